/* h5md_lammps: an H5MD trajectory as LAMMPS's dump h5md writes it through ch5md.
 *
 * Read (facts, not code): LAMMPS src/H5MD/dump_h5md.cpp (DumpH5MD::openfile: only rank 0
 * (me == 0) creates the file, h5md_create_file(filename, author, NULL, "lammps", version),
 * the particles group named after the LAMMPS group, position as time data [natoms, dim],
 * the box with time-dependent edges linked to position, image/velocity/force time data
 * linked to position; write_data gathers every atom to rank 0, which appends) and ch5md's
 * src/ch5md.c (h5md_create_file: H5Fcreate with the default access list (serial driver);
 * group h5md with attribute version int[2] = {1, 0}, h5md/author with a fixed string
 * attribute name, h5md/creator with name and version, then particles, observables,
 * parameters, left open until h5md_close_file; h5md_create_time_data: a group per element,
 * step (int) and time (double) [0 -> unlimited] chunked, or, given a link, H5Lcreate_hard
 * of the linked element's step and time; value [0 -> unlimited, dims...] chunked [1, ...];
 * h5md_append: H5Dset_extent by one row then a one-row hyperslab H5Dwrite of step, time,
 * value; h5md_create_box: group box, attributes dimension (int) and boundary (fixed
 * strings [dim]), edges as time data).
 *
 * Shape: natoms = 8 per rank, 3-D; 4 dumps (argv[1] sets another count: tests/corpus's
 * TestFold100k writes 8400 for a trace of 10^5 calls); rank 0 gathers positions, velocities, images
 * and writes alone; the other ranks never open the file. Writes dump.h5.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

enum { PER_RANK = 8, DIM = 3, DUMPS = 4 };

typedef struct { hid_t group, step, time, value; int linked; } element;

static void str_attr(hid_t loc, const char *name, const char *value) {
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR);
    H5Tset_size(t, strlen(value));
    hid_t a = H5Acreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, value);
    H5Aclose(a); H5Sclose(s); H5Tclose(t);
}

static element time_data(hid_t loc, const char *name, int natoms, int dim, hid_t type, element *link) {
    element e = {0};
    hsize_t dims[3] = {0, natoms, dim}, max[3] = {H5S_UNLIMITED, natoms, dim}, chunk[3] = {1, natoms, dim};
    int rank = dim > 0 ? 3 : 2;
    e.group = H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (link == NULL) {
        hid_t s = H5Screate_simple(1, dims, max), p = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(p, 1, chunk);
        e.time = H5Dcreate2(e.group, "time", H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, p, H5P_DEFAULT);
        e.step = H5Dcreate2(e.group, "step", H5T_NATIVE_INT, s, H5P_DEFAULT, p, H5P_DEFAULT);
        H5Pclose(p); H5Sclose(s);
    } else {
        e.linked = 1;
        H5Lcreate_hard(link->group, "step", e.group, "step", H5P_DEFAULT, H5P_DEFAULT);
        H5Lcreate_hard(link->group, "time", e.group, "time", H5P_DEFAULT, H5P_DEFAULT);
    }
    if (dim == 0) { dims[1] = natoms; max[1] = natoms; chunk[1] = natoms; }
    hid_t s = H5Screate_simple(rank, dims, max), p = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(p, rank, chunk);
    e.value = H5Dcreate2(e.group, "value", type, s, H5P_DEFAULT, p, H5P_DEFAULT);
    H5Pclose(p); H5Sclose(s);
    return e;
}

/* one row more, then that row written (h5md_extend_by_one and h5md_append) */
static void append_row(hid_t d, hid_t type, const void *buf) {
    hsize_t dims[3], start[3] = {0, 0, 0}, count[3];
    hid_t fs = H5Dget_space(d);
    int n = H5Sget_simple_extent_ndims(fs);
    H5Sget_simple_extent_dims(fs, dims, NULL);
    H5Sclose(fs);
    dims[0]++;
    H5Dset_extent(d, dims);
    fs = H5Dget_space(d);
    start[0] = dims[0] - 1; count[0] = 1;
    for (int i = 1; i < n; i++) count[i] = dims[i];
    hid_t ms = n > 1 ? H5Screate_simple(n - 1, dims + 1, NULL) : H5Screate(H5S_SCALAR);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    H5Dwrite(d, type, ms, fs, H5P_DEFAULT, buf);
    H5Sclose(ms); H5Sclose(fs);
}

static void append(element *e, hid_t type, const void *buf, int step, double time) {
    if (!e->linked) { append_row(e->step, H5T_NATIVE_INT, &step); append_row(e->time, H5T_NATIVE_DOUBLE, &time); }
    append_row(e->value, type, buf);
}

static void close_element(element *e) {
    if (!e->linked) { H5Dclose(e->step); H5Dclose(e->time); }
    H5Dclose(e->value); H5Gclose(e->group);
}

int main(int argc, char **argv) {
    int me, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int natoms = PER_RANK * nprocs, dumps = argc > 1 ? atoi(argv[1]) : DUMPS;
    hid_t file = -1, h5md, particles = -1, observables = -1, parameters = -1, all = -1;
    element pos, vel, img, edges;
    if (me == 0) {
        file = H5Fcreate("dump.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        h5md = H5Gcreate2(file, "h5md", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        int version[2] = {1, 0};
        hsize_t two = 2;
        hid_t s = H5Screate_simple(1, &two, NULL);
        hid_t a = H5Acreate2(h5md, "version", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_INT, version);
        H5Aclose(a); H5Sclose(s);
        hid_t g = H5Gcreate2(h5md, "author", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        str_attr(g, "name", "N/A");
        H5Gclose(g);
        g = H5Gcreate2(h5md, "creator", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        str_attr(g, "name", "lammps");
        str_attr(g, "version", "2Aug2023");
        H5Gclose(g);
        H5Gclose(h5md);
        particles = H5Gcreate2(file, "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        observables = H5Gcreate2(file, "observables", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        parameters = H5Gcreate2(file, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        all = H5Gcreate2(particles, "all", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        pos = time_data(all, "position", natoms, DIM, H5T_NATIVE_DOUBLE, NULL);
        hid_t box = H5Gcreate2(all, "box", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        int dim = DIM;
        s = H5Screate(H5S_SCALAR);
        a = H5Acreate2(box, "dimension", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_INT, &dim);
        H5Aclose(a); H5Sclose(s);
        hsize_t three = DIM;
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, 9);
        s = H5Screate_simple(1, &three, NULL);
        a = H5Acreate2(box, "boundary", t, s, H5P_DEFAULT, H5P_DEFAULT);
        char boundary[DIM][9] = {"periodic", "periodic", "periodic"};
        H5Awrite(a, t, boundary);
        H5Aclose(a); H5Sclose(s); H5Tclose(t);
        edges = time_data(box, "edges", DIM, 0, H5T_NATIVE_DOUBLE, &pos);
        H5Gclose(box);
        img = time_data(all, "image", natoms, DIM, H5T_NATIVE_INT, &pos);
        vel = time_data(all, "velocity", natoms, DIM, H5T_NATIVE_DOUBLE, &pos);
    }
    double mine[PER_RANK][DIM], *x = NULL;
    int mimg[PER_RANK][DIM], *im = NULL;
    if (me == 0) { x = malloc(sizeof(double) * natoms * DIM); im = malloc(sizeof(int) * natoms * DIM); }
    for (int step = 0; step < dumps; step++) {
        for (int i = 0; i < PER_RANK; i++)
            for (int d = 0; d < DIM; d++) { mine[i][d] = me * PER_RANK + i + 0.1 * d + 0.01 * step; mimg[i][d] = step % 2; }
        /* write_data: every atom gathered to rank 0 */
        MPI_Gather(mine, PER_RANK * DIM, MPI_DOUBLE, x, PER_RANK * DIM, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Gather(mimg, PER_RANK * DIM, MPI_INT, im, PER_RANK * DIM, MPI_INT, 0, MPI_COMM_WORLD);
        if (me == 0) {
            double edge[DIM] = {10.0, 10.0, 10.0 + step};
            append(&pos, H5T_NATIVE_DOUBLE, x, step * 100, step * 0.5);
            append(&edges, H5T_NATIVE_DOUBLE, edge, step * 100, step * 0.5);
            append(&img, H5T_NATIVE_INT, im, step * 100, step * 0.5);
            for (int i = 0; i < natoms * DIM; i++) x[i] *= -1;
            append(&vel, H5T_NATIVE_DOUBLE, x, step * 100, step * 0.5);
        }
    }
    if (me == 0) {
        close_element(&vel); close_element(&img); close_element(&edges); close_element(&pos);
        H5Gclose(all);
        H5Gclose(particles); H5Gclose(observables); H5Gclose(parameters);
        H5Fclose(file);
        free(x); free(im);
    }
    MPI_Finalize();
    return 0;
}
