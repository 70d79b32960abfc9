/*
 * simulation.c: a host application driving h5proxy step by step.
 *
 * It stands for a simulation that writes a VPIC-like particle checkpoint every timestep:
 * MPI stays the host's, compute is emulated by h5proxy_compute, and each step's HDF5
 * output is issued by h5proxy_phase_step. A read phase then re-reads the file and
 * verifies every element, and the program checks the reduced metrics.
 *
 *   mpirun -np 2 ./simulation /tmp/particles.h5 [EXTRA_OPTIONS]
 *
 * EXTRA_OPTIONS are appended to the options: session keys given there (e.g. "seed=7")
 * override the defaults above.
 * Exit status 0 means every call succeeded and every check held. The options are the
 * ones of examples/fortran/simulation.f90 and examples/go/simulation, so the three write
 * the same file (a ctest compares them with h5diff).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "h5proxy.h"

#define TIMESTEPS 3
#define DIM_1 65536
#define PARTICLE_BYTES 32 /* 8 four-byte variables per particle */

/* CHECK aborts the job with the library's message when a call fails: a host may call
 * MPI_Abort, the library never does. */
#define CHECK(call)                                                                          \
    do {                                                                                     \
        int rc_ = (call);                                                                    \
        if (rc_ != H5PROXY_OK) {                                                             \
            fprintf(stderr, "simulation: %s failed: %s\n  %s\n", #call, h5proxy_strerror(rc_), \
                    h5proxy_last_error());                                                   \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                    \
        }                                                                                    \
    } while (0)

static int failures = 0;

static void expect(int rank, int ok, const char *what, double got, double want) {
    if (!ok) {
        fprintf(stderr, "simulation: rank %d: %s = %.17g, want %.17g\n", rank, what, got, want);
        failures++;
    }
}

int main(int argc, char **argv) {
    int provided = 0, rank = 0, size = 0, steps = 0, srank = -1, ssize = -1;
    char options[4096];
    h5proxy_session_t s = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2 && argc != 3) {
        if (rank == 0) fprintf(stderr, "usage: simulation FILE.h5 [EXTRA_OPTIONS]\n");
        MPI_Finalize();
        return 2;
    }
    if (h5proxy_abi_version() != H5PROXY_ABI_VERSION) {
        fprintf(stderr, "simulation: library ABI %d, header ABI %d\n", h5proxy_abi_version(),
                H5PROXY_ABI_VERSION);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    snprintf(options, sizeof options,
             "TIMESTEPS=%d;DIM_1=%d;COLLECTIVE_DATA=YES;compute_time=10ms;verify=yes;file=%s;%s",
             TIMESTEPS, DIM_1, argv[1], argc == 3 ? argv[2] : "");
    CHECK(h5proxy_session_create(MPI_COMM_WORLD, "vpic", options, NULL, &s));
    CHECK(h5proxy_session_steps(s, &steps));
    CHECK(h5proxy_session_rank(s, &srank));
    CHECK(h5proxy_session_size(s, &ssize));
    expect(rank, steps == TIMESTEPS, "steps", steps, TIMESTEPS);
    expect(rank, srank == rank, "session rank", srank, rank);
    expect(rank, ssize == size, "session size", ssize, size);

    /* The simulation's time loop: compute, then write this timestep's particles. */
    CHECK(h5proxy_phase_begin(s, H5PROXY_PHASE_WRITE));
    for (int step = 0; step < steps; step++) {
        if (step > 0) CHECK(h5proxy_compute(s, -1.0)); /* the configured compute_time */
        CHECK(h5proxy_phase_step(s, step));
    }
    CHECK(h5proxy_phase_end(s));
    CHECK(h5proxy_session_wait(s));

    /* Restart-style read of every timestep, verified element by element. */
    CHECK(h5proxy_phase_begin(s, H5PROXY_PHASE_READ));
    for (int step = 0; step < steps; step++) CHECK(h5proxy_phase_step(s, step));
    CHECK(h5proxy_phase_end(s));

    CHECK(h5proxy_report_write(s, 1));

    /* The reduced metrics are the same on every rank: check them everywhere. */
    const double want_bytes = (double)TIMESTEPS * DIM_1 * PARTICLE_BYTES * size;
    double v = -1;
    CHECK(h5proxy_report_metric(s, 0, "bytes", &v));
    expect(rank, v == want_bytes, "write bytes", v, want_bytes);
    CHECK(h5proxy_report_metric(s, 0, "steps", &v));
    expect(rank, v == TIMESTEPS, "write steps", v, TIMESTEPS);
    CHECK(h5proxy_report_metric(s, 0, "compute_time", &v));
    expect(rank, v >= 0.010 * (TIMESTEPS - 1), "write compute_time", v, 0.010 * (TIMESTEPS - 1));
    CHECK(h5proxy_report_metric(s, 0, "raw_rate", &v));
    expect(rank, v > 0, "write raw_rate", v, 1);
    CHECK(h5proxy_report_metric(s, 1, "bytes", &v));
    expect(rank, v == want_bytes, "read bytes", v, want_bytes);
    CHECK(h5proxy_report_metric(s, 1, "mismatches", &v));
    expect(rank, v == 0, "read mismatches", v, 0);
    CHECK(h5proxy_report_metric(s, 1, "verify_time", &v));
    expect(rank, v > 0, "read verify_time (the read was verified)", v, 1);

    CHECK(h5proxy_session_close(s));
    CHECK(h5proxy_finalize());

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("simulation: %d ranks, thread level %d, %s: %s\n", size, provided, argv[1],
               all == 0 ? "all checks passed" : "CHECKS FAILED");
    }
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
