/*
 * local: loads kernel.c built as a library (its main renamed kernel_main) with RTLD_LOCAL
 * and runs it: as Python loads its extension modules (h5py's, mpi4py's), and with them
 * libmpi and libhdf5, out of the global scope. This program links neither library, so
 * libh5proxy-profile.so's wrappers find MPI's and HDF5's functions only in the scope of
 * the library that loaded them. Usage: local LIBKERNEL MODE DIR
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: local LIBKERNEL MODE DIR\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "local: %s\n", dlerror());
        return 1;
    }
    int (*kernel_main)(int, char **) = (int (*)(int, char **))dlsym(h, "kernel_main");
    if (!kernel_main) {
        fprintf(stderr, "local: %s\n", dlerror());
        return 1;
    }
    argv[1] = "kernel";
    return kernel_main(argc - 1, argv + 1);
}
