/*
 * loop.c: N calls of one intercepted kind in a tight loop, for libh5proxy-profile.so's
 * per-call cost (bench/profile). Kinds: pwrite (1 byte at offset 0 of a file in DIR),
 * h5dwrite (an H5Dwrite of 1 int, independent, one rank, no MPI-IO).
 *
 *   loop pwrite|h5dwrite N DIR
 */
#include <fcntl.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: loop pwrite|h5dwrite N DIR\n");
        return 2;
    }
    long n = atol(argv[2]);
    char path[4096];
    if (!strcmp(argv[1], "pwrite")) {
        snprintf(path, sizeof path, "%s/loop.dat", argv[3]);
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0) return 1;
        char b = 1;
        for (long i = 0; i < n; i++)
            if (pwrite(fd, &b, 1, 0) != 1) return 1;
        close(fd);
        return 0;
    }
    snprintf(path, sizeof path, "%s/loop.h5", argv[3]);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[1] = {1};
    hid_t s = H5Screate_simple(1, dims, NULL);
    hid_t d = H5Dcreate2(f, "x", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int v = 1;
    for (long i = 0; i < n; i++)
        if (H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) < 0) return 1;
    H5Dclose(d);
    H5Sclose(s);
    H5Fclose(f);
    return 0;
}
