/*
 * misuse.c: drives every entry point of the C ABI with wrong arguments and out-of-order
 * calls, and checks that each returns the documented status code and that
 * h5proxy_last_error() names the function and the problem. It also checks the calls that
 * must keep working around the failures (copies, finalize, per-thread error slots).
 *
 *   mpirun -np 2 ./misuse SCRATCH_DIR
 *
 * Exit status 0 means every check held on every rank; each failed check is printed.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "h5proxy.h"

static int failures = 0;
static int checks = 0;
static int rank = 0;

/* expect_rc checks a status code and, for errors, that the thread's last error names the
 * function (the text of the call up to its '(') and contains needle. */
static void expect_rc(int line, const char *call, int got, int want, const char *needle) {
    checks++;
    if (got != want) {
        fprintf(stderr, "misuse:%d: rank %d: %s\n  returned %d (%s), want %d (%s)\n  last error: %s\n",
                line, rank, call, got, h5proxy_strerror(got), want, h5proxy_strerror(want),
                h5proxy_last_error());
        failures++;
        return;
    }
    if (want == H5PROXY_OK) return;
    const char *msg = h5proxy_last_error();
    char fn[64];
    size_t n = strcspn(call, "(");
    if (n >= sizeof fn) n = sizeof fn - 1;
    memcpy(fn, call, n);
    fn[n] = '\0';
    /* h5proxy_session_create_f reports as itself, the others as their own name. */
    if (strstr(msg, fn) == NULL || (needle != NULL && strstr(msg, needle) == NULL)) {
        fprintf(stderr, "misuse:%d: rank %d: %s\n  last error %s\n  should name %s and contain \"%s\"\n",
                line, rank, call, msg, fn, needle ? needle : "");
        failures++;
    }
}

#define EXPECT(call, want, needle) expect_rc(__LINE__, #call, (call), (want), (needle))
#define TRUE_OR_FAIL(cond)                                                                   \
    do {                                                                                     \
        checks++;                                                                            \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "misuse:%d: rank %d: check failed: %s\n", __LINE__, rank, #cond); \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

static char dir[1024];

static const char *path(const char *name) {
    static char buf[8][1200];
    static int next = 0;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

static void write_text(const char *file, const char *text) {
    FILE *f = fopen(file, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(file);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* --- per-thread error slots and concurrent use ---------------------------------------- */

struct thread_arg {
    h5proxy_session_t s;
    int rc;
    char msg[512];
    int initially_empty;
};

static void *second_thread(void *p) {
    struct thread_arg *a = p;
    a->initially_empty = h5proxy_last_error()[0] == '\0';
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL); /* the main thread is inside h5proxy_compute(s, 1.0) by now */
    a->rc = h5proxy_compute(a->s, 0);
    snprintf(a->msg, sizeof a->msg, "%s", h5proxy_last_error());
    return NULL;
}

static void check_threads(h5proxy_session_t s) {
    struct thread_arg a = {.s = s, .rc = 1};
    pthread_t t;
    EXPECT(h5proxy_session_steps(0, NULL), H5PROXY_ERR_INVALID_HANDLE, "handle 0");
    const char *mine = h5proxy_last_error();
    char saved[512];
    snprintf(saved, sizeof saved, "%s", mine);
    TRUE_OR_FAIL(pthread_create(&t, NULL, second_thread, &a) == 0);
    EXPECT(h5proxy_compute(s, 1.0), H5PROXY_OK, NULL);
    pthread_join(t, NULL);
    TRUE_OR_FAIL(a.initially_empty);
    checks++;
    if (a.rc != H5PROXY_ERR_STATE || strstr(a.msg, "in use") == NULL || strstr(a.msg, "h5proxy_compute") == NULL) {
        fprintf(stderr, "misuse: rank %d: concurrent h5proxy_compute returned %d (%s), want H5PROXY_ERR_STATE naming the use\n",
                rank, a.rc, a.msg);
        failures++;
    }
    /* The other thread's failure did not touch this thread's message. */
    TRUE_OR_FAIL(strcmp(h5proxy_last_error(), saved) == 0);
}

int main(int argc, char **argv) {
    h5proxy_session_t s = 0, t = 0, u = 0;
    int n = -1, size = 0, provided = 0;
    double v = 0;
    size_t needed = 0;
    char buf[4096];
    char opts[2048];

    if (argc != 2) {
        fprintf(stderr, "usage: misuse SCRATCH_DIR\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);

    /* --- before MPI_Init: the local calls work, sessions refuse --------------------- */
    TRUE_OR_FAIL(h5proxy_abi_version() == H5PROXY_ABI_VERSION);
    TRUE_OR_FAIL(strcmp(h5proxy_last_error(), "") == 0);
    EXPECT(h5proxy_last_error_copy(NULL, 0, &needed), H5PROXY_OK, NULL);
    TRUE_OR_FAIL(needed == 1);
    EXPECT(h5proxy_patterns_list(buf, sizeof buf, &needed), H5PROXY_OK, NULL);
    TRUE_OR_FAIL(strstr(buf, "vpic") != NULL && needed == strlen(buf) + 1);
    s = 77;
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", "file=x.h5", NULL, &s), H5PROXY_ERR_MPI, "MPI_Init");
    TRUE_OR_FAIL(s == 0);
    EXPECT(h5proxy_session_create_f(0, "vpic", "file=x.h5", NULL, &s), H5PROXY_ERR_MPI, "not initialized");
    EXPECT(h5proxy_finalize(), H5PROXY_OK, NULL);

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* --- status strings --------------------------------------------------------------- */
    const int codes[] = {H5PROXY_OK, H5PROXY_ERR_INVALID_ARGUMENT, H5PROXY_ERR_INVALID_HANDLE,
                         H5PROXY_ERR_CONFIG, H5PROXY_ERR_HDF5, H5PROXY_ERR_MPI, H5PROXY_ERR_IO,
                         H5PROXY_ERR_STATE, H5PROXY_ERR_UNSUPPORTED, H5PROXY_ERR_PANIC,
                         H5PROXY_ERR_INTERNAL, H5PROXY_ERR_VERIFY, H5PROXY_ERR_THREAD_LEVEL};
    const char *names[] = {"H5PROXY_OK:", "H5PROXY_ERR_INVALID_ARGUMENT:", "H5PROXY_ERR_INVALID_HANDLE:",
                           "H5PROXY_ERR_CONFIG:", "H5PROXY_ERR_HDF5:", "H5PROXY_ERR_MPI:", "H5PROXY_ERR_IO:",
                           "H5PROXY_ERR_STATE:", "H5PROXY_ERR_UNSUPPORTED:", "H5PROXY_ERR_PANIC:",
                           "H5PROXY_ERR_INTERNAL:", "H5PROXY_ERR_VERIFY:", "H5PROXY_ERR_THREAD_LEVEL:"};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        TRUE_OR_FAIL(strncmp(h5proxy_strerror(codes[i]), names[i], strlen(names[i])) == 0);
    }
    TRUE_OR_FAIL(strstr(h5proxy_strerror(-999), "unknown") != NULL);
    TRUE_OR_FAIL(strstr(h5proxy_strerror(7), "H5PROXY_ERR_INTERNAL") != NULL);

    /* --- help and copies ----------------------------------------------------------------- */
    EXPECT(h5proxy_options_help(NULL, buf, sizeof buf, &needed), H5PROXY_ERR_INVALID_ARGUMENT, "pattern is NULL");
    EXPECT(h5proxy_options_help("nosuch", buf, sizeof buf, &needed), H5PROXY_ERR_CONFIG, "\"nosuch\"");
    TRUE_OR_FAIL(strstr(h5proxy_last_error(), "vpic") != NULL); /* lists what exists */
    EXPECT(h5proxy_options_help("vpic", NULL, 0, &needed), H5PROXY_OK, NULL);
    {
        size_t need = needed;
        char *help = malloc(need);
        EXPECT(h5proxy_options_help("vpic", help, need, &needed), H5PROXY_OK, NULL);
        TRUE_OR_FAIL(needed == need && strlen(help) + 1 == need);
        TRUE_OR_FAIL(strstr(help, "DIM_1") != NULL && strstr(help, "TIMESTEPS") != NULL);
        free(help);
    }
    EXPECT(h5proxy_options_help("session", buf, sizeof buf, NULL), H5PROXY_OK, NULL);
    TRUE_OR_FAIL(strstr(buf, "compute_time") != NULL && strstr(buf, "layout") != NULL);
    EXPECT(h5proxy_options_help("vpic", NULL, 8, &needed), H5PROXY_ERR_INVALID_ARGUMENT, "buf is NULL");
    EXPECT(h5proxy_patterns_list(NULL, 3, &needed), H5PROXY_ERR_INVALID_ARGUMENT, "buf is NULL");
    memset(buf, 'x', sizeof buf);
    EXPECT(h5proxy_patterns_list(buf, 3, &needed), H5PROXY_OK, NULL); /* truncated */
    TRUE_OR_FAIL(strlen(buf) == 2 && needed > 3);
    EXPECT(h5proxy_patterns_list(NULL, 0, NULL), H5PROXY_OK, NULL);

    /* last_error_copy: the two-call pattern, truncation, and the message survives. */
    EXPECT(h5proxy_session_steps(0, &n), H5PROXY_ERR_INVALID_HANDLE, "handle 0");
    {
        char before[512];
        snprintf(before, sizeof before, "%s", h5proxy_last_error());
        EXPECT(h5proxy_last_error_copy(NULL, 0, &needed), H5PROXY_OK, NULL);
        TRUE_OR_FAIL(needed == strlen(before) + 1);
        TRUE_OR_FAIL(h5proxy_last_error_copy(NULL, 5, &needed) == H5PROXY_ERR_INVALID_ARGUMENT);
        TRUE_OR_FAIL(strcmp(h5proxy_last_error(), before) == 0);
        memset(buf, 'x', sizeof buf);
        EXPECT(h5proxy_last_error_copy(buf, 5, &needed), H5PROXY_OK, NULL);
        TRUE_OR_FAIL(strlen(buf) == 4 && strncmp(buf, before, 4) == 0 && needed == strlen(before) + 1);
        EXPECT(h5proxy_last_error_copy(buf, 0, NULL), H5PROXY_OK, NULL);
        EXPECT(h5proxy_last_error_copy(buf, sizeof buf, NULL), H5PROXY_OK, NULL);
        TRUE_OR_FAIL(strcmp(buf, before) == 0);
        /* Successful calls leave the message alone (errno semantics). */
        EXPECT(h5proxy_patterns_list(buf, sizeof buf, NULL), H5PROXY_OK, NULL);
        TRUE_OR_FAIL(strcmp(h5proxy_last_error(), before) == 0);
    }

    /* --- session_create: arguments and configuration ---------------------------------- */
    char good[1200];
    snprintf(good, sizeof good, "%s", path("good.h5"));
    snprintf(opts, sizeof opts, "TIMESTEPS=2;DIM_1=64;file=%s", good);
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", opts, NULL, NULL), H5PROXY_ERR_INVALID_ARGUMENT, "NULL");
    s = 77;
    EXPECT(h5proxy_session_create(MPI_COMM_NULL, "vpic", opts, NULL, &s), H5PROXY_ERR_INVALID_ARGUMENT, "MPI_COMM_NULL");
    TRUE_OR_FAIL(s == 0);
    EXPECT(h5proxy_session_create_f(987654, "vpic", opts, NULL, &s), H5PROXY_ERR_MPI, "987654");
    EXPECT(h5proxy_session_create_f(MPI_Comm_c2f(MPI_COMM_WORLD), "vpic", opts, NULL, NULL), H5PROXY_ERR_INVALID_ARGUMENT, "NULL");
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, NULL, opts, NULL, &s), H5PROXY_ERR_INVALID_ARGUMENT, "no pattern");
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "", opts, NULL, &s), H5PROXY_ERR_INVALID_ARGUMENT, "no pattern");
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "nosuch", opts, NULL, &s), H5PROXY_ERR_CONFIG, "\"nosuch\"");
    TRUE_OR_FAIL(strstr(h5proxy_last_error(), "vpic") != NULL);
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", "DIM_9=3;file=a.h5", NULL, &s), H5PROXY_ERR_CONFIG, "DIM_9");
    TRUE_OR_FAIL(strstr(h5proxy_last_error(), "DIM_1") != NULL); /* the allowed keys */
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", "DIM_1=lots;file=a.h5", NULL, &s), H5PROXY_ERR_CONFIG, "lots");
    TRUE_OR_FAIL(strstr(h5proxy_last_error(), "DIM_1") != NULL);
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", "TIMESTEPS=-2;file=a.h5", NULL, &s), H5PROXY_ERR_CONFIG, "TIMESTEPS");
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", "mode=turbo;file=a.h5", NULL, &s), H5PROXY_ERR_CONFIG, "turbo");
    /* Every mode and layout the header lists is built: each creates a session (MPI was
     * initialized with MPI_THREAD_MULTIPLE, which the background modes need; thread_level.c
     * checks the failure without it). */
    {
        const char *built[] = {"mode=async", "mode=cache", "layout=log", "layout=subfiling",
                               "layout=mpiio", "layout=null"};
        char sopts[1400];
        for (size_t i = 0; i < sizeof built / sizeof built[0]; i++) {
            snprintf(sopts, sizeof sopts, "%s;TIMESTEPS=1;DIM_1=4;file=%s", built[i], path("strategy.h5"));
            expect_rc(__LINE__, built[i], h5proxy_session_create(MPI_COMM_WORLD, "vpic", sopts, NULL, &s), H5PROXY_OK, NULL);
            if (s != 0) EXPECT(h5proxy_session_close(s), H5PROXY_OK, NULL);
        }
    }
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", "TIMESTEPS;file=a.h5", NULL, &s), H5PROXY_ERR_CONFIG, "TIMESTEPS");
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", "TIMESTEPS=2", NULL, &s), H5PROXY_ERR_CONFIG, "\"file\"");
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", "DIM_1=4;dim_1=5;file=a.h5", NULL, &s), H5PROXY_ERR_CONFIG, "more than once");
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", "layout=null;verify=yes", NULL, &s), H5PROXY_ERR_CONFIG, "verify");
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", NULL, path("missing.json"), &s), H5PROXY_ERR_IO, "missing.json");
    TRUE_OR_FAIL(s == 0);

    /* Config files: rank 0 writes them, everyone reads them. */
    char cfg[1500];
    if (rank == 0) {
        write_text(path("broken.json"), "{\"pattern\": \"vpic\", ");
        write_text(path("unknown-key.json"), "{\"pattern\": \"vpic\", \"session\": {\"turbo\": true}}");
        snprintf(cfg, sizeof cfg,
                 "{\"pattern\": \"vpic\", \"session\": {\"file\": \"%s\", \"CSV_FILE\": \"%s\"},"
                 " \"options\": {\"TIMESTEPS\": 5, \"dim_1\": 64}}",
                 path("from-json.h5"), path("from-json.csv"));
        write_text(path("good.json"), cfg);
        write_text(path("not-hdf5.h5"), "this is not an HDF5 file\n");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, NULL, NULL, path("broken.json"), &s), H5PROXY_ERR_CONFIG, "broken.json");
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, NULL, NULL, path("unknown-key.json"), &s), H5PROXY_ERR_CONFIG, "turbo");
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "other", NULL, path("good.json"), &s), H5PROXY_ERR_CONFIG, "contradicts");
    /* Options override the file, aliases and case included: DIM_1 replaces dim_1. */
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, NULL, "TIMESTEPS=2;DIM_1=32;layout=null;csv_file=", path("good.json"), &s), H5PROXY_OK, NULL);
    EXPECT(h5proxy_session_steps(s, &n), H5PROXY_OK, NULL);
    TRUE_OR_FAIL(n == 2);
    EXPECT(h5proxy_session_run(s), H5PROXY_OK, NULL);
    EXPECT(h5proxy_report_metric(s, 0, "bytes", &v), H5PROXY_OK, NULL);
    TRUE_OR_FAIL(v == 2.0 * 32 * 32 * size); /* null layout: counted, not stored */
    EXPECT(h5proxy_session_close(s), H5PROXY_OK, NULL);
    TRUE_OR_FAIL(access(path("from-json.h5"), F_OK) != 0); /* layout=null wrote nothing */

    /* --- handles ---------------------------------------------------------------------- */
    EXPECT(h5proxy_session_steps(0, &n), H5PROXY_ERR_INVALID_HANDLE, "handle 0");
    EXPECT(h5proxy_session_rank(0x0100000000abcdefULL, &n), H5PROXY_ERR_INVALID_HANDLE, "never issued");
    EXPECT(h5proxy_session_size(0x0200000000000001ULL, &n), H5PROXY_ERR_INVALID_HANDLE, "never issued");
    EXPECT(h5proxy_session_close(0), H5PROXY_ERR_INVALID_HANDLE, "handle 0");
    EXPECT(h5proxy_session_run(0), H5PROXY_ERR_INVALID_HANDLE, "handle 0");
    EXPECT(h5proxy_session_wait(0), H5PROXY_ERR_INVALID_HANDLE, "handle 0");
    EXPECT(h5proxy_phase_begin(0, H5PROXY_PHASE_WRITE), H5PROXY_ERR_INVALID_HANDLE, "handle 0");
    EXPECT(h5proxy_phase_step(0, 0), H5PROXY_ERR_INVALID_HANDLE, "handle 0");
    EXPECT(h5proxy_phase_end(0), H5PROXY_ERR_INVALID_HANDLE, "handle 0");
    EXPECT(h5proxy_compute(0, 0), H5PROXY_ERR_INVALID_HANDLE, "handle 0");
    EXPECT(h5proxy_report_write(0, 0), H5PROXY_ERR_INVALID_HANDLE, "handle 0");
    EXPECT(h5proxy_report_metric(0, 0, "bytes", &v), H5PROXY_ERR_INVALID_HANDLE, "handle 0");

    /* --- a live session driven out of order ------------------------------------------- */
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", opts, NULL, &s), H5PROXY_OK, NULL);
    TRUE_OR_FAIL(s != 0);
    EXPECT(h5proxy_session_steps(s, NULL), H5PROXY_ERR_INVALID_ARGUMENT, "NULL");
    EXPECT(h5proxy_session_rank(s, NULL), H5PROXY_ERR_INVALID_ARGUMENT, "NULL");
    EXPECT(h5proxy_session_size(s, NULL), H5PROXY_ERR_INVALID_ARGUMENT, "NULL");
    EXPECT(h5proxy_session_rank(s, &n), H5PROXY_OK, NULL);
    TRUE_OR_FAIL(n == rank);
    EXPECT(h5proxy_session_size(s, &n), H5PROXY_OK, NULL);
    TRUE_OR_FAIL(n == size);
    EXPECT(h5proxy_phase_step(s, 0), H5PROXY_ERR_STATE, "outside a phase");
    EXPECT(h5proxy_phase_end(s), H5PROXY_ERR_STATE, "no phase");
    EXPECT(h5proxy_phase_begin(s, 0), H5PROXY_ERR_INVALID_ARGUMENT, "phase 0");
    EXPECT(h5proxy_phase_begin(s, 3), H5PROXY_ERR_INVALID_ARGUMENT, "phase 3");
    EXPECT(h5proxy_report_metric(s, 0, "bytes", &v), H5PROXY_ERR_INVALID_ARGUMENT, "0 phases finished");
    EXPECT(h5proxy_phase_begin(s, H5PROXY_PHASE_READ), H5PROXY_ERR_IO, "good.h5"); /* not written yet */
    EXPECT(h5proxy_compute(s, NAN), H5PROXY_ERR_INVALID_ARGUMENT, "NaN");
    EXPECT(h5proxy_compute(s, INFINITY), H5PROXY_ERR_INVALID_ARGUMENT, "+Inf");
    EXPECT(h5proxy_compute(s, -INFINITY), H5PROXY_ERR_INVALID_ARGUMENT, "-Inf");
    EXPECT(h5proxy_compute(s, 2e6), H5PROXY_ERR_INVALID_ARGUMENT, "2e+06");
    EXPECT(h5proxy_compute(s, 0), H5PROXY_OK, NULL);
    EXPECT(h5proxy_compute(s, -1), H5PROXY_OK, NULL);
    EXPECT(h5proxy_phase_begin(s, H5PROXY_PHASE_WRITE), H5PROXY_OK, NULL);
    EXPECT(h5proxy_phase_begin(s, H5PROXY_PHASE_WRITE), H5PROXY_ERR_STATE, "still running");
    EXPECT(h5proxy_session_run(s), H5PROXY_ERR_STATE, "still running");
    EXPECT(h5proxy_report_write(s, 0), H5PROXY_ERR_STATE, "end it first");
    EXPECT(h5proxy_report_metric(s, 0, "bytes", &v), H5PROXY_ERR_STATE, "end it first");
    EXPECT(h5proxy_phase_step(s, 1), H5PROXY_ERR_STATE, "next step");
    EXPECT(h5proxy_phase_step(s, -1), H5PROXY_ERR_INVALID_ARGUMENT, "step -1");
    EXPECT(h5proxy_phase_step(s, 2), H5PROXY_ERR_INVALID_ARGUMENT, "out of range");
    EXPECT(h5proxy_phase_step(s, 0), H5PROXY_OK, NULL);
    EXPECT(h5proxy_phase_step(s, 0), H5PROXY_ERR_STATE, "next step");
    EXPECT(h5proxy_phase_step(s, 1), H5PROXY_OK, NULL);
    EXPECT(h5proxy_phase_step(s, 2), H5PROXY_ERR_INVALID_ARGUMENT, "out of range");
    EXPECT(h5proxy_phase_end(s), H5PROXY_OK, NULL);
    EXPECT(h5proxy_phase_end(s), H5PROXY_ERR_STATE, "no phase");
    EXPECT(h5proxy_session_wait(s), H5PROXY_OK, NULL);
    EXPECT(h5proxy_report_metric(s, 0, NULL, &v), H5PROXY_ERR_INVALID_ARGUMENT, "metric is NULL");
    EXPECT(h5proxy_report_metric(s, 0, "bytes", NULL), H5PROXY_ERR_INVALID_ARGUMENT, "NULL");
    EXPECT(h5proxy_report_metric(s, 0, "speed", &v), H5PROXY_ERR_INVALID_ARGUMENT, "\"speed\"");
    TRUE_OR_FAIL(strstr(h5proxy_last_error(), "observed_rate") != NULL); /* the allowed names */
    EXPECT(h5proxy_report_metric(s, 1, "bytes", &v), H5PROXY_ERR_INVALID_ARGUMENT, "phase_index 1");
    EXPECT(h5proxy_report_metric(s, -1, "bytes", &v), H5PROXY_ERR_INVALID_ARGUMENT, "negative");
    EXPECT(h5proxy_report_metric(s, 0, "bytes", &v), H5PROXY_OK, NULL);
    TRUE_OR_FAIL(v == 2.0 * 64 * 32 * size);
    EXPECT(h5proxy_report_write(s, 0), H5PROXY_OK, NULL);
    check_threads(s);

    /* A second session reads the file with another seed: every element mismatches. */
    snprintf(opts, sizeof opts, "TIMESTEPS=2;DIM_1=64;seed=7;verify=yes;file=%s", good);
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", opts, NULL, &t), H5PROXY_OK, NULL);
    EXPECT(h5proxy_phase_begin(t, H5PROXY_PHASE_READ), H5PROXY_OK, NULL);
    EXPECT(h5proxy_phase_step(t, 0), H5PROXY_OK, NULL);
    EXPECT(h5proxy_phase_step(t, 1), H5PROXY_OK, NULL);
    EXPECT(h5proxy_phase_end(t), H5PROXY_ERR_VERIFY, "mismatching elements");
    EXPECT(h5proxy_report_metric(t, 0, "mismatches", &v), H5PROXY_OK, NULL);
    TRUE_OR_FAIL(v == 2.0 * 64 * 8 * size); /* 8 variables per particle, every one wrong */

    /* HDF5 and file-system failures, then the session goes on. */
    snprintf(opts, sizeof opts, "TIMESTEPS=1;DIM_1=8;file=%s", path("not-hdf5.h5"));
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", opts, NULL, &u), H5PROXY_OK, NULL);
    EXPECT(h5proxy_phase_begin(u, H5PROXY_PHASE_READ), H5PROXY_ERR_HDF5, "H5Fopen");
    EXPECT(h5proxy_session_close(u), H5PROXY_OK, NULL);
    snprintf(opts, sizeof opts, "TIMESTEPS=1;DIM_1=8;file=%s", path("no/such/dir/x.h5"));
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", opts, NULL, &u), H5PROXY_OK, NULL);
    EXPECT(h5proxy_phase_begin(u, H5PROXY_PHASE_WRITE), H5PROXY_ERR_IO, "no/such/dir");
    EXPECT(h5proxy_session_close(u), H5PROXY_OK, NULL);
    snprintf(opts, sizeof opts, "TIMESTEPS=1;DIM_1=8;layout=null;report_file=%s", path("no/such/dir/r.json"));
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", opts, NULL, &u), H5PROXY_OK, NULL);
    EXPECT(h5proxy_session_run(u), H5PROXY_OK, NULL);
    EXPECT(h5proxy_report_write(u, 0), H5PROXY_ERR_IO, "report");
    EXPECT(h5proxy_session_close(u), H5PROXY_OK, NULL);

    /* --- closing ------------------------------------------------------------------------- */
    EXPECT(h5proxy_session_close(s), H5PROXY_OK, NULL);
    EXPECT(h5proxy_session_close(s), H5PROXY_ERR_INVALID_HANDLE, "closed");
    EXPECT(h5proxy_session_steps(s, &n), H5PROXY_ERR_INVALID_HANDLE, "closed");
    EXPECT(h5proxy_session_rank(s, &n), H5PROXY_ERR_INVALID_HANDLE, "closed");
    EXPECT(h5proxy_session_run(s), H5PROXY_ERR_INVALID_HANDLE, "closed");
    EXPECT(h5proxy_phase_begin(s, H5PROXY_PHASE_WRITE), H5PROXY_ERR_INVALID_HANDLE, "closed");
    EXPECT(h5proxy_phase_step(s, 0), H5PROXY_ERR_INVALID_HANDLE, "closed");
    EXPECT(h5proxy_phase_end(s), H5PROXY_ERR_INVALID_HANDLE, "closed");
    EXPECT(h5proxy_compute(s, 0), H5PROXY_ERR_INVALID_HANDLE, "closed");
    EXPECT(h5proxy_session_wait(s), H5PROXY_ERR_INVALID_HANDLE, "closed");
    EXPECT(h5proxy_report_write(s, 1), H5PROXY_ERR_INVALID_HANDLE, "closed");
    EXPECT(h5proxy_report_metric(s, 0, "bytes", &v), H5PROXY_ERR_INVALID_HANDLE, "closed");

    /* Closing during a phase aborts it, reports STATE, and still ends the handle. */
    snprintf(opts, sizeof opts, "TIMESTEPS=2;DIM_1=16;file=%s", path("aborted.h5"));
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", opts, NULL, &u), H5PROXY_OK, NULL);
    TRUE_OR_FAIL(u > t && t > s); /* ids only increase */
    EXPECT(h5proxy_phase_begin(u, H5PROXY_PHASE_WRITE), H5PROXY_OK, NULL);
    EXPECT(h5proxy_phase_step(u, 0), H5PROXY_OK, NULL);
    EXPECT(h5proxy_session_close(u), H5PROXY_ERR_STATE, "closed during the write phase");
    EXPECT(h5proxy_session_steps(u, &n), H5PROXY_ERR_INVALID_HANDLE, "closed");

    /* h5proxy_finalize closes the leaked session t (and logs it). */
    EXPECT(h5proxy_finalize(), H5PROXY_OK, NULL);
    EXPECT(h5proxy_session_steps(t, &n), H5PROXY_ERR_INVALID_HANDLE, "closed");
    EXPECT(h5proxy_session_close(t), H5PROXY_ERR_INVALID_HANDLE, "closed");
    EXPECT(h5proxy_finalize(), H5PROXY_OK, NULL);

    /* A session leaked past MPI_Finalize is dropped by h5proxy_finalize with ERR_MPI. */
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", "layout=null", NULL, &u), H5PROXY_OK, NULL);

    int all = 0, total = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();

    EXPECT(h5proxy_finalize(), H5PROXY_ERR_MPI, "after MPI_Finalize");
    EXPECT(h5proxy_session_steps(u, &n), H5PROXY_ERR_INVALID_HANDLE, "closed");
    EXPECT(h5proxy_session_create(MPI_COMM_WORLD, "vpic", "layout=null", NULL, &u), H5PROXY_ERR_MPI, "finalized");
    EXPECT(h5proxy_finalize(), H5PROXY_OK, NULL);
    total = all + failures;
    if (rank == 0 || failures > 0) {
        printf("misuse: rank %d of %d: %d checks, %s\n", rank, size, checks,
               total == 0 ? "all passed" : "FAILURES");
    }
    return total == 0 ? 0 : 1;
}
