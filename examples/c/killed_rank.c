/*
 * killed_rank.c: a host whose rank 1 dies (SIGKILL) in the middle of a write phase, as a
 * node failure or the OOM killer would end it. The other ranks go on into the next step's
 * collective HDF5 calls; the launcher must notice the lost rank and end the job, naming
 * it, instead of leaving them waiting. cmake/RunChecked.cmake (FAIL=1) checks that the
 * job ends within its time limit, fails, and names rank 1.
 *
 *   mpirun -np 2 ./killed_rank /tmp/killed.h5
 *
 * Exit status 0 is a failure of the test: the job should never get to the end.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "h5proxy.h"

#define CHECK(call)                                                                          \
    do {                                                                                     \
        int rc_ = (call);                                                                    \
        if (rc_ != H5PROXY_OK) {                                                             \
            fprintf(stderr, "killed_rank: %s failed: %s\n  %s\n", #call, h5proxy_strerror(rc_), \
                    h5proxy_last_error());                                                   \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                    \
        }                                                                                    \
    } while (0)

int main(int argc, char **argv) {
    int provided = 0, rank = 0, size = 0;
    char options[4096];
    h5proxy_session_t s = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2 || size < 2) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np 2 killed_rank FILE.h5\n");
        MPI_Finalize();
        return 2;
    }
    snprintf(options, sizeof options, "TIMESTEPS=50;DIM_1=1024;COLLECTIVE_DATA=YES;compute_time=100ms;file=%s",
             argv[1]);
    CHECK(h5proxy_session_create(MPI_COMM_WORLD, "vpic", options, NULL, &s));
    CHECK(h5proxy_phase_begin(s, H5PROXY_PHASE_WRITE));
    for (int step = 0; step < 50; step++) {
        if (step > 0) CHECK(h5proxy_compute(s, -1.0));
        CHECK(h5proxy_phase_step(s, step));
        if (step == 2 && rank == 1) {
            fprintf(stderr, "killed_rank: rank 1 kills itself after step 2\n");
            fflush(stderr);
            raise(SIGKILL);
        }
    }
    CHECK(h5proxy_phase_end(s));
    CHECK(h5proxy_session_close(s));
    CHECK(h5proxy_finalize());
    if (rank == 0) printf("killed_rank: the job reached its end: the lost rank went unnoticed\n");
    MPI_Finalize();
    return 0;
}
