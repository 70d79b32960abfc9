/*
 * run_pattern.c: run any built-in pattern from C with its options, then check its report:
 * every finished phase moved bytes and every verified read found no mismatch.
 *
 *   mpirun -np 2 ./run_pattern h5perf file=/tmp/h5perf/data api=phdf5 num-bytes=1M
 *   mpirun -np 2 ./run_pattern ior file=/tmp/ior/test api=HDF5 blockSize=1M transferSize=256K
 *   mpirun -np 2 ./run_pattern app description=examples/apps/particles.yaml steps=3 file=/tmp/app/run.h5
 *
 * PATTERN is a name of h5proxy_patterns_list (`h5proxy help PATTERN` lists its keys); the
 * KEY=VALUE arguments are joined with ';' into the options string of
 * h5proxy_session_create (so a shell or a test driver needs no quoting). The program runs
 * the session's default phases (h5proxy_session_run), prints the summary, and exits 0 only
 * when every call succeeded and every check held. The ctests run it on the patterns that
 * have no example of their own (h5perf, ior, nova) and on an application description
 * (pattern app, examples/apps/particles.yaml: its parameters are KEY=VALUE options too).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "h5proxy.h"

/* CHECK aborts the job with the library's message when a call fails. */
#define CHECK(call)                                                                          \
    do {                                                                                     \
        int rc_ = (call);                                                                    \
        if (rc_ != H5PROXY_OK) {                                                             \
            fprintf(stderr, "run_pattern: %s failed: %s\n  %s\n", #call, h5proxy_strerror(rc_), \
                    h5proxy_last_error());                                                   \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                    \
        }                                                                                    \
    } while (0)

int main(int argc, char **argv) {
    int provided = 0, rank = 0, size = 0, phases = 0, failures = 0;
    char options[8192];
    h5proxy_session_t s = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    options[0] = '\0';
    for (int i = 2; i < argc; i++) {
        size_t used = strlen(options);
        if (used + strlen(argv[i]) + 2 > sizeof options) {
            if (rank == 0) fprintf(stderr, "run_pattern: options longer than %zu bytes\n", sizeof options);
            MPI_Finalize();
            return 2;
        }
        if (used > 0) strcat(options, ";");
        strcat(options, argv[i]);
    }
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: run_pattern PATTERN [KEY=VALUE ...]\n");
        MPI_Finalize();
        return 2;
    }

    CHECK(h5proxy_session_create(MPI_COMM_WORLD, argv[1], options, NULL, &s));
    CHECK(h5proxy_session_run(s));
    CHECK(h5proxy_report_write(s, 1));

    /* Phases are numbered from 0 in the order they ended; the first index past the last
     * is refused as an invalid argument. */
    for (;; phases++) {
        double bytes = -1, mismatches = -1;
        int rc = h5proxy_report_metric(s, phases, "bytes", &bytes);
        if (rc == H5PROXY_ERR_INVALID_ARGUMENT) break;
        CHECK(rc);
        CHECK(h5proxy_report_metric(s, phases, "mismatches", &mismatches));
        if (bytes <= 0 || mismatches != 0) {
            fprintf(stderr, "run_pattern: rank %d: phase %d: bytes %.0f, mismatches %.0f\n", rank,
                    phases, bytes, mismatches);
            failures++;
        }
    }
    if (phases == 0) {
        fprintf(stderr, "run_pattern: rank %d: no phase finished\n", rank);
        failures++;
    }

    CHECK(h5proxy_session_close(s));
    CHECK(h5proxy_finalize());

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("run_pattern: %s, %d ranks, %d phases: %s\n", argv[1], size, phases,
               all == 0 ? "all checks passed" : "CHECKS FAILED");
    }
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
