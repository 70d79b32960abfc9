/* plain_writer: an MPI program that writes HDF5 with plain mpicc and parallel HDF5 and
 * knows nothing of h5proxy. h5proxy's capture round trip (cmd/h5proxy/roundtrip_test.go)
 * profiles it, folds the trace into an application description and checks that `h5proxy
 * run` of the description makes the same I/O and the same file.
 *
 *   mpirun -np N plain_writer FILE.h5 [STEPS [ROWS [uneven]]]
 *
 * Per step s it creates group /step_<s> and in it, with collective transfers on a file
 * opened with collective metadata reads and writes:
 *   temperature  f64 [ROWS*N][16]  rank r writes rows [r*ROWS, (r+1)*ROWS) (block)
 *   pressure     f32 [ROWS*N]      the same rows, 1-D (block)
 *   ids          i32 [ROWS*N]      chunked in ROWS-element chunks (block)
 *   mesh         i64 [16]          rank 0 alone, independent (the others write nothing)
 * then flushes the file (H5Fflush, every step).
 * With "uneven", rank r writes ROWS+r rows (a decomposition that does not generalize to
 * another rank count). Prints "plain_writer: N ranks, S steps written". */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COLS 16

static void die(const char *what)
{
    fprintf(stderr, "plain_writer: %s failed\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#define CHECK(x)            \
    do {                    \
        if ((x) < 0)        \
            die(#x);        \
    } while (0)

/* write one block-decomposed dataset: rows [start, start+count) of a [total](x cols) set */
static void put(hid_t grp, const char *name, hid_t type, int rank2, hsize_t total, hsize_t start, hsize_t count,
                const void *buf, hid_t dcpl, hid_t dxpl)
{
    hsize_t dims[2] = {total, COLS}, off[2] = {start, 0}, cnt[2] = {count, COLS};
    hid_t fs = H5Screate_simple(rank2 ? 2 : 1, dims, NULL);
    hid_t ds = H5Dcreate2(grp, name, type, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(ds);
    hid_t ms = H5Screate_simple(rank2 ? 2 : 1, cnt, NULL);
    CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL));
    CHECK(H5Dwrite(ds, type, ms, fs, dxpl, buf));
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(ds);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s FILE.h5 [STEPS [ROWS [uneven]]]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    int steps = argc > 2 ? atoi(argv[2]) : 2;
    int rows = argc > 3 ? atoi(argv[3]) : 64;
    int uneven = argc > 4 && strcmp(argv[4], "uneven") == 0;
    if (steps < 1 || rows < 1)
        die("arguments (STEPS and ROWS must be positive)");
    hsize_t mine = (hsize_t)rows + (uneven ? (hsize_t)rank : 0), start = 0, total = 0;
    for (int r = 0; r < size; r++) {
        hsize_t n = (hsize_t)rows + (uneven ? (hsize_t)r : 0);
        if (r < rank)
            start += n;
        total += n;
    }

    double *t = malloc(mine * COLS * sizeof *t);
    float *p = malloc(mine * sizeof *p);
    int *id = malloc(mine * sizeof *id);
    long long mesh[COLS];
    if (!t || !p || !id)
        die("malloc");

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    CHECK(H5Pset_all_coll_metadata_ops(fapl, 1));
    CHECK(H5Pset_coll_metadata_write(fapl, 1));
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(file);
    hid_t coll = H5Pcreate(H5P_DATASET_XFER), indep = H5Pcreate(H5P_DATASET_XFER);
    CHECK(H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE));
    hid_t chunked = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t chunk = (hsize_t)rows;
    CHECK(H5Pset_chunk(chunked, 1, &chunk));

    for (int s = 0; s < steps; s++) {
        for (hsize_t i = 0; i < mine; i++) {
            for (int c = 0; c < COLS; c++)
                t[i * COLS + c] = s * 1e6 + (double)(start + i) * COLS + c;
            p[i] = (float)(s + start + i);
            id[i] = (int)(start + i);
        }
        for (int c = 0; c < COLS; c++)
            mesh[c] = 1000LL * s + c;
        char name[32];
        snprintf(name, sizeof name, "step_%d", s);
        hid_t g = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(g);
        put(g, "temperature", H5T_NATIVE_DOUBLE, 1, total, start, mine, t, H5P_DEFAULT, coll);
        put(g, "pressure", H5T_NATIVE_FLOAT, 0, total, start, mine, p, H5P_DEFAULT, coll);
        put(g, "ids", H5T_NATIVE_INT, 0, total, start, mine, id, chunked, coll);
        /* mesh: created by all (collective metadata), written by rank 0 alone */
        hsize_t n = COLS;
        hid_t fs = H5Screate_simple(1, &n, NULL);
        hid_t ds = H5Dcreate2(g, "mesh", H5T_NATIVE_LLONG, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(ds);
        if (rank == 0)
            CHECK(H5Dwrite(ds, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, indep, mesh));
        H5Dclose(ds);
        H5Sclose(fs);
        H5Gclose(g);
        CHECK(H5Fflush(file, H5F_SCOPE_GLOBAL));
    }

    H5Pclose(chunked);
    H5Pclose(coll);
    H5Pclose(indep);
    H5Pclose(fapl);
    CHECK(H5Fclose(file));
    if (rank == 0)
        printf("plain_writer: %d ranks, %d steps written\n", size, steps);
    free(t);
    free(p);
    free(id);
    MPI_Finalize();
    return 0;
}
