/*
 * bench_calls.c: cost of the C ABI itself (a benchmark, not a test).
 *
 *  1. A no-op call into the library: h5proxy_session_steps on a valid handle (C -> Go
 *     transition, panic guard, handle lookup), median ns/call over batches; for scale,
 *     h5proxy_abi_version (the bare transition), a plain C call through a function
 *     pointer, and the error path (handle 0: the message is formatted and stored).
 *  2. The per-phase overhead outside HDF5: a session with layout=null (plans, fills and
 *     metrics run, no I/O happens), timing h5proxy_phase_begin, each h5proxy_phase_step
 *     and h5proxy_phase_end.
 *
 *   mpirun -np 1 ./bench_calls [BATCHES [CALLS_PER_BATCH [PHASES [STEPS [ONLY]]]]]   (make bench-capi)
 *
 * ONLY restricts the run to one measurement, for instruction counts (bench/capi/icount.sh
 * runs it under callgrind twice with different counts and divides the difference): calls
 * (valid-handle calls), abi (bare transitions) or steps (the phases); default all.
 *
 * The last line puts the two figures issue 26 bounds side by side: a step's own cost
 * (at most 5 us) and a valid-handle call against the bare transition (at most 20 ns
 * more). Timings need a quiet machine; instruction counts do not (docs/metrics.md,
 * "The cost of a step", runs this program under callgrind with two step counts).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "h5proxy.h"

#define CHECK(call)                                                                 \
    do {                                                                            \
        int rc_ = (call);                                                           \
        if (rc_ != H5PROXY_OK) {                                                    \
            fprintf(stderr, "bench_calls: %s: %s\n", #call, h5proxy_last_error());  \
            MPI_Abort(MPI_COMM_WORLD, 1);                                           \
        }                                                                           \
    } while (0)

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A C function the compiler cannot inline (called through a volatile pointer). */
static int c_noop(h5proxy_session_t s, int *out) {
    *out = (int)(s & 7);
    return 0;
}
static int (*volatile c_noop_ptr)(h5proxy_session_t, int *) = c_noop;

enum which { STEPS_VALID, ABI_VERSION, C_CALL, STEPS_INVALID };

/* per_call returns the median ns/call over batches of calls of one kind. */
static double per_call(enum which w, h5proxy_session_t s, int batches, int calls, double *times) {
    int n = 0;
    long sink = 0;
    for (int b = 0; b < batches; b++) {
        double t0 = now_ns();
        switch (w) {
        case STEPS_VALID:
            for (int i = 0; i < calls; i++) sink += h5proxy_session_steps(s, &n) + n;
            break;
        case ABI_VERSION:
            for (int i = 0; i < calls; i++) sink += h5proxy_abi_version();
            break;
        case C_CALL:
            for (int i = 0; i < calls; i++) sink += c_noop_ptr(s, &n) + n;
            break;
        case STEPS_INVALID:
            for (int i = 0; i < calls; i++) sink += h5proxy_session_steps(0, &n);
            break;
        }
        times[b] = (now_ns() - t0) / calls;
    }
    if (sink == 42) printf(" "); /* keep the loops */
    return median(times, batches);
}

int main(int argc, char **argv) {
    int provided = 0, rank = 0, steps = 0;
    int batches = argc > 1 ? atoi(argv[1]) : 1000;
    int calls = argc > 2 ? atoi(argv[2]) : 1000;
    int phases = argc > 3 ? atoi(argv[3]) : 20, psteps = argc > 4 ? atoi(argv[4]) : 200;
    const char *only = argc > 5 ? argv[5] : "all";
    int all = strcmp(only, "all") == 0;
    h5proxy_session_t s = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (batches < 1 || calls < 1 || phases < 1 || psteps < 1 ||
        !(all || strcmp(only, "calls") == 0 || strcmp(only, "abi") == 0 || strcmp(only, "steps") == 0)) {
        fprintf(stderr, "usage: bench_calls [BATCHES [CALLS_PER_BATCH [PHASES [STEPS [all|calls|abi|steps]]]]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char opts[256];
    snprintf(opts, sizeof opts, "layout=null;TIMESTEPS=%d;DIM_1=1", psteps);
    CHECK(h5proxy_session_create(MPI_COMM_WORLD, "vpic", opts, NULL, &s));
    CHECK(h5proxy_session_steps(s, &steps));

    double *times = malloc(sizeof(double) * (size_t)(batches > psteps * phases ? batches : psteps * phases));
    double t_steps = 0, t_abi = 0, t_c = 0, t_err = 0;
    int ebatches = batches / 10 > 0 ? batches / 10 : 1;
    if (all) /* warm-up */
        per_call(STEPS_VALID, s, batches < 10 ? batches : 10, calls, times);
    if (all || strcmp(only, "calls") == 0)
        t_steps = per_call(STEPS_VALID, s, batches, calls, times);
    if (all || strcmp(only, "abi") == 0)
        t_abi = per_call(ABI_VERSION, s, batches, calls, times);
    if (all) {
        t_c = per_call(C_CALL, s, batches, calls, times);
        t_err = per_call(STEPS_INVALID, s, ebatches, calls, times);
    }
    if (!all && strcmp(only, "steps") != 0)
        phases = 0;

    /* Phases on the null layout. */
    double *begin = malloc(sizeof(double) * (size_t)(phases + 1)), *end = malloc(sizeof(double) * (size_t)(phases + 1));
    double *per_step_total = malloc(sizeof(double) * (size_t)(phases + 1));
    int k = 0;
    for (int p = 0; p < phases; p++) {
        double t0 = now_ns();
        CHECK(h5proxy_phase_begin(s, H5PROXY_PHASE_WRITE));
        double t1 = now_ns();
        for (int i = 0; i < steps; i++) {
            double a = now_ns();
            CHECK(h5proxy_phase_step(s, i));
            times[k++] = now_ns() - a;
        }
        double t2 = now_ns();
        CHECK(h5proxy_phase_end(s));
        double t3 = now_ns();
        begin[p] = t1 - t0;
        end[p] = t3 - t2;
        per_step_total[p] = (t3 - t0) / steps;
    }
    if (!all) { /* a partial run for instruction counts: no figures */
        CHECK(h5proxy_session_close(s));
        CHECK(h5proxy_finalize());
        MPI_Finalize();
        return 0;
    }
    double m_step = median(times, k), m_begin = median(begin, phases), m_end = median(end, phases);
    double m_total = median(per_step_total, phases);

    if (rank == 0) {
        printf("h5proxy C ABI call cost (median of %d batches x %d calls; %d batches for the error path)\n",
               batches, calls, ebatches);
        printf("  h5proxy_session_steps (valid handle, no-op)  %8.1f ns/call\n", t_steps);
        printf("  h5proxy_abi_version (bare C->Go transition)  %8.1f ns/call\n", t_abi);
        printf("  plain C call through a function pointer      %8.1f ns/call\n", t_c);
        printf("  h5proxy_session_steps (handle 0, error path) %8.1f ns/call\n", t_err);
        printf("h5proxy per-phase overhead outside HDF5 (layout=null, vpic DIM_1=1, %d phases x %d steps)\n",
               phases, steps);
        printf("  h5proxy_phase_begin                          %8.2f us (median)\n", m_begin / 1e3);
        printf("  h5proxy_phase_step                           %8.2f us (median)\n", m_step / 1e3);
        printf("  h5proxy_phase_end                            %8.2f us (median)\n", m_end / 1e3);
        printf("  (begin + steps + end) / steps                %8.2f us per step (median over phases)\n",
               m_total / 1e3);
        printf("summary: step %.2f us (issue 26: <= 5); valid-handle call %.1f ns vs bare C->Go transition %.1f ns: +%.1f ns (<= 20)\n",
               m_step / 1e3, t_steps, t_abi, t_steps - t_abi);
    }
    CHECK(h5proxy_session_close(s));
    CHECK(h5proxy_finalize());
    free(times);
    free(begin);
    free(end);
    free(per_step_total);
    MPI_Finalize();
    return 0;
}
