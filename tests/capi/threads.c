/*
 * threads.c: the C ABI's misuse cases under concurrency (CONTRACT.md, "Threads and MPI").
 *
 *   1. Two threads calling one session: each call either runs or returns
 *      H5PROXY_ERR_STATE naming the use ("in use by a call on another thread"); never
 *      anything else, never two at once; the session stays usable and closes.
 *   2. Sessions on different threads: one session per thread on MPI_COMM_SELF, running
 *      write + verified read at the same time, and a session created on one thread, run on
 *      a second and closed on a third.
 *   3. Calls after h5proxy_finalize, from other threads: the finalized handle is
 *      H5PROXY_ERR_INVALID_HANDLE ("closed"), the library calls work, new sessions work;
 *      h5proxy_finalize while another thread is inside a call on a session returns
 *      H5PROXY_ERR_STATE and leaves that session open for a later finalize.
 *
 *   mpirun -np 1 ./threads_c SCRATCH_DIR
 *
 * Needs MPI_THREAD_MULTIPLE. Prints "threads_c: N checks, all passed" when every check held.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "h5proxy.h"

static int failures = 0, checks = 0;
static pthread_mutex_t count_mu = PTHREAD_MUTEX_INITIALIZER;
static char dir[1024];

static void check(int line, int ok, const char *what, const char *detail) {
    pthread_mutex_lock(&count_mu);
    checks++;
    if (!ok) {
        failures++;
        fprintf(stderr, "threads_c:%d: check failed: %s (%s)\n", line, what, detail ? detail : "");
    }
    pthread_mutex_unlock(&count_mu);
}
#define CHECK(cond, detail) check(__LINE__, (cond), #cond, (detail))

static void pause_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void options(char *buf, size_t n, const char *name, const char *layout) {
    snprintf(buf, n, "file=%s/%s.h5;layout=%s;verify=yes;TIMESTEPS=2;DIM_1=4096", dir, name, layout);
}

/* --- 1. two threads on one session ---------------------------------------------------- */

struct hammer {
    h5proxy_session_t s;
    int ok, busy, other;
    int started; /* set (atomically) when the thread begins its calls */
    char other_msg[512];
};

static void *hammer_thread(void *p) {
    struct hammer *h = p;
    __atomic_store_n(&h->started, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < 200; i++) {
        int rc = h5proxy_compute(h->s, 0.0005);
        if (rc == H5PROXY_OK) {
            h->ok++;
        } else if (rc == H5PROXY_ERR_STATE && strstr(h5proxy_last_error(), "in use by a call on another thread") != NULL &&
                   strstr(h5proxy_last_error(), "h5proxy_compute") != NULL) {
            h->busy++;
        } else {
            h->other++;
            snprintf(h->other_msg, sizeof h->other_msg, "%d: %s", rc, h5proxy_last_error());
        }
        int steps = 0; /* the local queries take no lock: they always answer */
        if (h5proxy_session_steps(h->s, &steps) != H5PROXY_OK || steps != 2) h->other++;
    }
    return NULL;
}

static void one_session_two_threads(void) {
    char opts[2048];
    h5proxy_session_t s = 0;
    options(opts, sizeof opts, "shared", "native");
    CHECK(h5proxy_session_create(MPI_COMM_SELF, "vpic", opts, NULL, &s) == H5PROXY_OK, h5proxy_last_error());
    struct hammer h[2] = {{.s = s}, {.s = s}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&t[i], NULL, hammer_thread, &h[i]) == 0, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++) {
        CHECK(h[i].other == 0, h[i].other_msg);
        CHECK(h[i].ok + h[i].busy == 200, NULL);
    }
    /* Calls that surely overlap: 300 ms of compute on this thread while another thread
     * makes its 200 short calls. Either thread may be first to hold the session (under
     * load the other thread can start before or after this call), so this call is made
     * again while it is refused as in use, and one side or the other must see the refusal. */
    struct hammer late = {.s = s};
    pthread_t lt;
    CHECK(pthread_create(&lt, NULL, hammer_thread, &late) == 0, NULL);
    while (!__atomic_load_n(&late.started, __ATOMIC_SEQ_CST)) sched_yield();
    int rc, mine_busy = 0;
    while ((rc = h5proxy_compute(s, 0.3)) == H5PROXY_ERR_STATE &&
           strstr(h5proxy_last_error(), "in use by a call on another thread") != NULL)
        mine_busy++;
    CHECK(rc == H5PROXY_OK, h5proxy_last_error());
    pthread_join(lt, NULL);
    CHECK(late.other == 0, late.other_msg);
    CHECK(late.busy + mine_busy > 0, "no call was refused while another held the session");
    CHECK(h5proxy_session_run(s) == H5PROXY_OK, h5proxy_last_error());
    CHECK(h5proxy_session_close(s) == H5PROXY_OK, h5proxy_last_error());
    printf("threads_c: one session, two threads: %d+%d calls ran, %d+%d refused as in use\n", h[0].ok, h[1].ok,
           h[0].busy, h[1].busy);
}

/* --- 2. sessions on different threads ---------------------------------------------------- */

struct own {
    const char *name, *layout;
    int rc;
    char msg[512];
};

static void *own_session(void *p) {
    struct own *o = p;
    char opts[2048];
    h5proxy_session_t s = 0;
    options(opts, sizeof opts, o->name, o->layout);
    o->rc = h5proxy_session_create(MPI_COMM_SELF, "vpic", opts, NULL, &s);
    for (int round = 0; round < 3 && o->rc == H5PROXY_OK; round++) o->rc = h5proxy_session_run(s);
    if (o->rc != H5PROXY_OK) snprintf(o->msg, sizeof o->msg, "%s", h5proxy_last_error());
    if (s != 0 && h5proxy_session_close(s) != H5PROXY_OK && o->rc == H5PROXY_OK) {
        o->rc = -100;
        snprintf(o->msg, sizeof o->msg, "close: %s", h5proxy_last_error());
    }
    return NULL;
}

struct relay {
    h5proxy_session_t s;
    int rc;
};

static void *relay_run(void *p) {
    struct relay *r = p;
    r->rc = h5proxy_session_run(r->s);
    return NULL;
}

static void *relay_close(void *p) {
    struct relay *r = p;
    r->rc = h5proxy_session_close(r->s);
    return NULL;
}

static void sessions_on_threads(void) {
    struct own o[3] = {{"own-native", "native"}, {"own-posix", "posix"}, {"own-log", "log"}};
    pthread_t t[3];
    for (int i = 0; i < 3; i++) CHECK(pthread_create(&t[i], NULL, own_session, &o[i]) == 0, NULL);
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
        CHECK(o[i].rc == H5PROXY_OK, o[i].msg);
    }
    /* Created here, run on one thread, closed on another (one thread at a time). */
    char opts[2048];
    struct relay r = {0, -1};
    options(opts, sizeof opts, "relay", "subfiling");
    CHECK(h5proxy_session_create(MPI_COMM_SELF, "vpic", opts, NULL, &r.s) == H5PROXY_OK, h5proxy_last_error());
    pthread_t rt;
    CHECK(pthread_create(&rt, NULL, relay_run, &r) == 0 && pthread_join(rt, NULL) == 0, NULL);
    CHECK(r.rc == H5PROXY_OK, "run on a second thread");
    r.rc = -1;
    CHECK(pthread_create(&rt, NULL, relay_close, &r) == 0 && pthread_join(rt, NULL) == 0, NULL);
    CHECK(r.rc == H5PROXY_OK, "close on a third thread");
    CHECK(h5proxy_session_steps(r.s, &r.rc) == H5PROXY_ERR_INVALID_HANDLE, "closed handle");
}

/* --- 3. after h5proxy_finalize ---------------------------------------------------------- */

struct after {
    h5proxy_session_t s;
    int run_rc, steps_rc, version, create_rc;
    char run_msg[512];
};

static void *after_finalize(void *p) {
    struct after *a = p;
    a->run_rc = h5proxy_session_run(a->s);
    snprintf(a->run_msg, sizeof a->run_msg, "%s", h5proxy_last_error());
    int steps = 0;
    a->steps_rc = h5proxy_session_steps(a->s, &steps);
    a->version = h5proxy_abi_version();
    char opts[2048];
    h5proxy_session_t s = 0;
    options(opts, sizeof opts, "after", "posix");
    a->create_rc = h5proxy_session_create(MPI_COMM_SELF, "vpic", opts, NULL, &s);
    if (a->create_rc == H5PROXY_OK) a->create_rc = h5proxy_session_run(s);
    if (s != 0) h5proxy_session_close(s);
    return NULL;
}

struct busy_call {
    h5proxy_session_t s;
    int rc;
};

static void *long_compute(void *p) {
    struct busy_call *b = p;
    b->rc = h5proxy_compute(b->s, 0.5);
    return NULL;
}

static void calls_after_finalize(void) {
    char opts[2048];
    struct after a = {0};
    options(opts, sizeof opts, "finalized", "native");
    CHECK(h5proxy_session_create(MPI_COMM_SELF, "vpic", opts, NULL, &a.s) == H5PROXY_OK, h5proxy_last_error());
    CHECK(h5proxy_finalize() == H5PROXY_OK, h5proxy_last_error()); /* closes the leaked session */
    pthread_t t;
    CHECK(pthread_create(&t, NULL, after_finalize, &a) == 0 && pthread_join(t, NULL) == 0, NULL);
    CHECK(a.run_rc == H5PROXY_ERR_INVALID_HANDLE && strstr(a.run_msg, "closed") != NULL, a.run_msg);
    CHECK(a.steps_rc == H5PROXY_ERR_INVALID_HANDLE, NULL);
    CHECK(a.version == H5PROXY_ABI_VERSION, NULL);
    CHECK(a.create_rc == H5PROXY_OK, "a new session after h5proxy_finalize");

    /* h5proxy_finalize while another thread is inside a call on a session. */
    struct busy_call b = {0, -1};
    options(opts, sizeof opts, "finalize-busy", "native");
    CHECK(h5proxy_session_create(MPI_COMM_SELF, "vpic", opts, NULL, &b.s) == H5PROXY_OK, h5proxy_last_error());
    CHECK(pthread_create(&t, NULL, long_compute, &b) == 0, NULL);
    pause_ms(150);
    int rc = h5proxy_finalize();
    CHECK(rc == H5PROXY_ERR_STATE && strstr(h5proxy_last_error(), "in use") != NULL, h5proxy_last_error());
    pthread_join(t, NULL);
    CHECK(b.rc == H5PROXY_OK, "the call finalize ran into completes");
    int steps = 0;
    CHECK(h5proxy_session_steps(b.s, &steps) == H5PROXY_OK, "the busy session stays open");
    CHECK(h5proxy_finalize() == H5PROXY_OK, h5proxy_last_error());
    CHECK(h5proxy_session_steps(b.s, &steps) == H5PROXY_ERR_INVALID_HANDLE, "closed by the second finalize");
}

int main(int argc, char **argv) {
    int provided = 0, size = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: threads_c SCRATCH_DIR\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE");
    CHECK(size == 1, "run on one rank: a refused collective call would leave other ranks waiting");
    if (provided == MPI_THREAD_MULTIPLE && size == 1) {
        one_session_two_threads();
        sessions_on_threads();
        calls_after_finalize();
    }
    CHECK(h5proxy_finalize() == H5PROXY_OK, h5proxy_last_error());
    MPI_Finalize();
    if (failures == 0) printf("threads_c: %d checks, all passed\n", checks);
    return failures != 0;
}
