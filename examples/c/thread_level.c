/*
 * thread_level.c: a host that initializes MPI with plain MPI_Init (no
 * MPI_THREAD_MULTIPLE) asks for a background mode. h5proxy_session_create must refuse it
 * with H5PROXY_ERR_THREAD_LEVEL, a message naming MPI_THREAD_MULTIPLE and the fix, and a
 * strerror text saying what is wrong; so must the subfiling-vfd layout (the VFD's I/O
 * concentrators are threads calling MPI), or, on a build without the VFD, refuse it as
 * unsupported; mode=sync must still work.
 *
 *   mpirun -np 2 ./thread_level SCRATCH_DIR
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "h5proxy.h"

static int failures = 0;

static void check(int ok, const char *what, int rank) {
    if (!ok) {
        fprintf(stderr, "thread_level: rank %d: %s\n  last error: %s\n", rank, what, h5proxy_last_error());
        failures++;
    }
}

int main(int argc, char **argv) {
    int rank, size, provided, all = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2) {
        if (rank == 0) fprintf(stderr, "usage: thread_level SCRATCH_DIR\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Query_thread(&provided);
    check(provided < MPI_THREAD_MULTIPLE, "MPI_Init provided MPI_THREAD_MULTIPLE: the test cannot run", rank);

    char opts[1200];
    const char *modes[] = {"async", "cache"};
    h5proxy_session_t s = 1;
    for (int i = 0; i < 2; i++) {
        snprintf(opts, sizeof opts, "mode=%s;TIMESTEPS=1;DIM_1=4;file=%s/t.h5", modes[i], argv[1]);
        int rc = h5proxy_session_create(MPI_COMM_WORLD, "vpic", opts, NULL, &s);
        check(rc == H5PROXY_ERR_THREAD_LEVEL, "background mode under MPI_Init: want H5PROXY_ERR_THREAD_LEVEL", rank);
        check(s == 0, "failed create left a handle", rank);
        check(strstr(h5proxy_last_error(), "MPI_THREAD_MULTIPLE") != NULL &&
                  strstr(h5proxy_last_error(), modes[i]) != NULL,
              "message should name the mode and MPI_THREAD_MULTIPLE", rank);
    }
    /* The subfiling-vfd layout runs the VFD's I/O concentrator threads: refused for the
     * thread level on a build with HDF5 1.14's subfiling VFD, as unsupported (naming the
     * build that has it) on any other. */
    snprintf(opts, sizeof opts, "layout=subfiling-vfd;TIMESTEPS=1;DIM_1=4;file=%s/t.h5", argv[1]);
    {
        int rc = h5proxy_session_create(MPI_COMM_WORLD, "vpic", opts, NULL, &s);
        const char *msg = h5proxy_last_error();
        int no_vfd = strstr(msg, "no subfiling VFD") != NULL;
        check(s == 0, "failed create left a handle", rank);
        check(no_vfd ? rc == H5PROXY_ERR_UNSUPPORTED && strstr(msg, "HDF5=1.14 make build") != NULL
                     : rc == H5PROXY_ERR_THREAD_LEVEL && strstr(msg, "subfiling-vfd") != NULL &&
                           strstr(msg, "MPI_THREAD_MULTIPLE") != NULL,
              "layout=subfiling-vfd under MPI_Init: want H5PROXY_ERR_THREAD_LEVEL (or, without the VFD, "
              "H5PROXY_ERR_UNSUPPORTED naming HDF5=1.14 make build)", rank);
    }
    check(strstr(h5proxy_strerror(H5PROXY_ERR_THREAD_LEVEL), "MPI_THREAD_MULTIPLE") != NULL,
          "strerror(H5PROXY_ERR_THREAD_LEVEL) should name MPI_THREAD_MULTIPLE", rank);

    snprintf(opts, sizeof opts, "mode=sync;TIMESTEPS=1;DIM_1=4;file=%s/t.h5", argv[1]);
    check(h5proxy_session_create(MPI_COMM_WORLD, "vpic", opts, NULL, &s) == H5PROXY_OK, "mode=sync under MPI_Init", rank);
    check(h5proxy_session_run(s) == H5PROXY_OK, "sync run", rank);
    check(h5proxy_session_close(s) == H5PROXY_OK, "close", rank);
    check(h5proxy_finalize() == H5PROXY_OK, "finalize", rank);

    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0) printf("thread_level: %d ranks, thread level %d: all checks passed\n", size, provided);
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
