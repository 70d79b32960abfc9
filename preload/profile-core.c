/*
 * libh5proxy-profile.so: an LD_PRELOAD profiler of a program's HDF5, MPI-IO and POSIX I/O.
 *
 * It records, per process (per MPI rank), Darshan's counters for its POSIX, MPIIO, H5F and
 * H5D modules under Darshan's names, the time in each kind of call and, with
 * H5PROXY_PROFILE_TRACE=1, every call with its offset and size (like Darshan's DXT). It
 * writes one record file per process, in the versioned JSON-lines format of
 * docs/profile.md, at MPI_Finalize (MPI programs) or at exit (other programs); a crash
 * (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL) writes what was recorded, marked partial.
 *
 * It has no Go inside and links nothing but libc, libdl and libpthread: HDF5 and MPI are
 * reached through the symbols it wraps (dlsym(RTLD_NEXT)) and, for MPI, through the PMPI
 * profiling interface. Counter names and bins are Darshan's (darshan-hpc/darshan,
 * include/darshan-*-log-format.h); the code is this project's.
 *
 * This file is the core: start-up and shut-down (the constructor, MPI_Init and MPI_Finalize,
 * exit, _exit, crash signals, fork), the records and the maps from the program's identifiers
 * to them, paths, the call table, and the output of the per-process record file. The
 * modules that count are profile-posix.c, profile-mpiio.c, profile-h5f.c and profile-h5d.c
 * (over profile-hdf5.c); profile-trace.c keeps the trace. profile.h lists them.
 *
 * Environment:
 *   H5PROXY_PROFILE_DIR        directory of the record files (default: the working directory)
 *   H5PROXY_PROFILE_TRACE      1: keep every call (DXT-like events)
 *   H5PROXY_PROFILE_TRACE_MAX  most events kept per process (default 1048576; more are counted)
 *   H5PROXY_PROFILE_MEM_ALIGN  memory alignment for POSIX_MEM_NOT_ALIGNED (default 8, Darshan's)
 *   H5PROXY_PROFILE_DISABLE    1: pass every call through, record nothing
 */
#include "profile.h"

/* ---- counters' names ---------------------------------------------------------------------- */

#define X(a) #a,
static const char *const posix_names[] = {POSIX_COUNTERS};
static const char *const posix_f_names[] = {POSIX_F_COUNTERS};
static const char *const mpiio_names[] = {MPIIO_COUNTERS};
static const char *const mpiio_f_names[] = {MPIIO_F_COUNTERS};
static const char *const h5f_names[] = {H5F_COUNTERS};
static const char *const h5f_f_names[] = {H5F_F_COUNTERS};
static const char *const h5d_names[] = {H5D_COUNTERS};
static const char *const h5d_f_names[] = {H5D_F_COUNTERS};
#undef X
const char *const module_names[M_NMOD] = {"POSIX", "MPIIO", "H5F", "H5D"};
static const int ncounters[M_NMOD] = {POSIX_N, MPIIO_N, H5F_N, H5D_N};
static const int nfcounters[M_NMOD] = {POSIX_FN, MPIIO_FN, H5F_FN, H5D_FN};
static const char *const *const counter_names[M_NMOD] = {posix_names, mpiio_names, h5f_names, h5d_names};
static const char *const *const fcounter_names[M_NMOD] = {posix_f_names, mpiio_f_names, h5f_f_names,
                                                          h5d_f_names};

/* ---- process state ---------------------------------------------------------------------- */

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
__thread int inside;
volatile int disabled;
int initialized, mpi_initialized, mpi_ok = 1;
static int written;
static int rank = -1, nprocs = 1, forked;
int64_t t0_mono;
static int64_t t0_real;
static char outdir[PATH_MAX];
int trace_on;
long trace_max = 1L << 20;
int64_t mem_align = 8;
static char cwd[PATH_MAX];
char hdf5_version[32]; /* the program's, set at its first HDF5 call (profile-hdf5.c) */
static char mpi_version[256];
/* The thread level MPI provides the program (MPI_Query_thread after its MPI_Init*): capture
 * writes it, since OMPIO sieves collective writes with holes only below MPI_THREAD_MULTIPLE. */
static const char *mpi_thread = "";

#define NBUCKET 4096
static struct record *buckets[NBUCKET];
static struct record *all_records;
static int nrecords;

struct hmap fds, h5files, h5dsets, mpifiles;

/* The call table (profile.h's CALLS): every intercepted call of the process, recorded or not. */
#define X(a) #a,
const char *const call_names[C_N] = {CALLS};
#undef X
int64_t call_n[C_N], call_ns[C_N];

/* objects collects the loaded objects' names (dl_iterate_phdr's callback; the loader's lock
 * is held there, so nothing is opened inside it). */
struct objects {
    const char *name[512];
    int n;
};
static int collect_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct objects *o = data;
    if (info->dlpi_name && info->dlpi_name[0] && o->n < (int)(sizeof o->name / sizeof o->name[0]))
        o->name[o->n++] = info->dlpi_name;
    return 0;
}

/* own reports whether p lies in this library (a wrapper of ours, not the next function). */
static int own(void *p) {
    Dl_info mine, theirs;
    return dladdr((void *)sym, &mine) && dladdr(p, &theirs) && mine.dli_fbase == theirs.dli_fbase;
}

/* sym finds the function (or object) name that the program would reach without this library.
 * dlsym(RTLD_NEXT) finds it in the global scope. A library loaded with RTLD_LOCAL is not
 * there: Python loads its extension modules so, and with h5py's and mpi4py's, libhdf5 and
 * libmpi. Their calls still reach this library's wrappers (LD_PRELOAD comes first in every
 * lookup), so the next function is looked up in each loaded object's own scope (opened again
 * by name with RTLD_NOLOAD: nothing new is loaded). NULL when no loaded object defines it. */
void *sym(const char *name) {
    void *p = dlsym(RTLD_NEXT, name);
    if (p) return p;
    struct objects o = {.n = 0};
    dl_iterate_phdr(collect_object, &o);
    for (int i = 0; i < o.n && !p; i++) {
        void *h = dlopen(o.name[i], RTLD_LAZY | RTLD_NOLOAD);
        if (!h) continue;
        void *q = dlsym(h, name);
        if (q && !own(q)) p = q;
        dlclose(h);
    }
    return p;
}

/* sym_default finds name in the global scope first (dlsym(RTLD_DEFAULT)), then as sym does:
 * for functions the library does not wrap (HDF5's helpers) and for data. A program's own
 * reference to a library's data (OpenMPI's ompi_mpi_comm_world behind MPI_COMM_WORLD) is
 * a copy relocation: the object the library uses is the executable's copy, first in the
 * global scope, not the library's original that RTLD_NEXT would find. */
void *sym_default(const char *name) {
    void *p = dlsym(RTLD_DEFAULT, name);
    return p ? p : sym(name);
}

/* need is sym for a function about to be called: a program whose calls reach a wrapper has
 * the library that defines the function loaded, so a miss is a broken process; it stops
 * with the function's name instead of calling NULL. */
void *need(const char *name) {
    void *p = sym(name);
    if (!p) {
        say("h5proxy-profile: %s is not defined by any library of this process (pid %d); stopping\n", name,
            (int)getpid());
        _exit(127);
    }
    return p;
}

/* ---- small helpers ---------------------------------------------------------------------- */

void say(const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof buf - 1) n = sizeof buf - 1;
    if (!next_write) next_write = (__typeof__(next_write))sym("write"); /* not need: it says */
    if (n > 0 && next_write) (void)!next_write(2, buf, (size_t)n);
}

/* fail disables the library for the rest of the process, with one message: the program runs
 * on with every call passed through. */
static void fail(const char *what) {
    if (!disabled) {
        disabled = 1;
        say("h5proxy-profile: %s; profiling disabled for this process (pid %d), the program continues\n",
            what, (int)getpid());
    }
}

void *xcalloc(size_t n, size_t s) {
    void *p = calloc(n, s);
    if (!p) fail("out of memory");
    return p;
}

static char *xstrdup(const char *s) {
    char *p = strdup(s ? s : "");
    if (!p) fail("out of memory");
    return p;
}

static uint64_t hash_str(const char *s, uint64_t h) {
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static int hm_grow(struct hmap *m);
/* Keys are stored +2 (profile.h's hm_get). */
void hm_put(struct hmap *m, uint64_t key, struct record *r) {
    if ((m->used + 1) * 2 > m->cap && hm_grow(m)) return;
    key += 2;
    size_t dead = (size_t)-1;
    for (size_t i = hm_mix(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) {
            m->vals[i] = r;
            return;
        }
        if (m->keys[i] == HM_DEAD && dead == (size_t)-1) dead = i;
        if (m->keys[i] == HM_EMPTY) {
            if (dead != (size_t)-1) i = dead;
            else m->used++;
            m->keys[i] = key;
            m->vals[i] = r;
            return;
        }
    }
}
struct record *hm_del(struct hmap *m, uint64_t key) {
    if (!m->cap) return NULL;
    key += 2;
    for (size_t i = hm_mix(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) {
            struct record *r = m->vals[i];
            m->keys[i] = HM_DEAD;
            return r;
        }
        if (m->keys[i] == HM_EMPTY) return NULL;
    }
}
static int hm_grow(struct hmap *m) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    uint64_t *keys = xcalloc(cap, sizeof *keys);
    struct record **vals = xcalloc(cap, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    struct hmap old = *m;
    m->keys = keys, m->vals = vals, m->cap = cap, m->used = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i] > HM_DEAD) hm_put(m, old.keys[i] - 2, old.vals[i]);
    free(old.keys);
    free(old.vals);
    return 0;
}

/* record finds or creates the record of (module, file, name). Called with the lock held. */
struct record *record_get(int module, const char *file, const char *name) {
    uint64_t h = hash_str(file, 1469598103934665603ULL ^ (uint64_t)module);
    if (name) h = hash_str(name, h ^ 0x2f);
    struct record **b = &buckets[h % NBUCKET];
    for (struct record *r = *b; r; r = r->next_hash)
        if (r->module == module && !strcmp(r->file, file) &&
            ((!name && !r->name) || (name && r->name && !strcmp(r->name, name))))
            return r;
    struct record *r = xcalloc(1, sizeof *r);
    if (!r) return NULL;
    r->module = module;
    r->file = xstrdup(file);
    r->name = name ? xstrdup(name) : NULL;
    if (!r->file || (name && !r->name)) return NULL;
    r->access.nkeys = module == M_H5D ? CV_KEYS : 1;
    r->stride.nkeys = 1;
    r->next_hash = *b;
    *b = r;
    r->next_all = all_records;
    all_records = r;
    nrecords++;
    return r;
}

/* cv_place puts value key, seen n times, among cv's four common values as Darshan's
 * DARSHAN_UPDATE_COMMON_VAL_COUNTERS does (darshan-common.h): ordered by count, ties by the
 * larger first key (the access size), a value tied on both placed before the ones it ties
 * with; a value that would come fifth is left out, and a zero first key never enters. */
static void cv_place(struct cv *cv, const int64_t *key, int64_t n) {
    size_t sz = sizeof(int64_t) * (size_t)cv->nkeys;
    int64_t tv[4][CV_KEYS] = {{0}}, tc[4] = {0};
    int t = 0, i = 0;
    if (key[0] == 0) return;
    for (; i < 4; i++) {
        if (cv->topn[i] > n || (cv->topn[i] == n && cv->top[i][0] > key[0])) {
            memcpy(tv[t], cv->top[i], sz);
            tc[t++] = cv->topn[i];
        } else break;
    }
    if (t == 4) return;
    memcpy(tv[t], key, sz);
    tc[t++] = n;
    for (; t < 4 && i < 4; i++)
        if (memcmp(cv->top[i], key, sz)) {
            memcpy(tv[t], cv->top[i], sz);
            tc[t++] = cv->topn[i];
        }
    memcpy(cv->top, tv, sizeof tv);
    memcpy(cv->topn, tc, sizeof tc);
}

/* cv_add counts one access of value key: the count of the distinct value (Darshan tracks
 * CV_MAX of them per record, new ones past that are not counted), then its place among
 * the four common values. */
void cv_add(struct cv *cv, const int64_t *key) {
    int i = 0;
    while (i < cv->n && memcmp(cv->key[i], key, sizeof(int64_t) * (size_t)cv->nkeys)) i++;
    if (i == cv->n) {
        if (cv->n == CV_MAX) return;
        memcpy(cv->key[cv->n], key, sizeof(int64_t) * (size_t)cv->nkeys);
        cv->count[cv->n++] = 0;
    }
    cv_place(cv, key, ++cv->count[i]);
}

/* cv_top writes the four common values into values[4][nkeys] and counts[4]. */
static void cv_top(const struct cv *cv, int64_t *values, int64_t *counts) {
    for (int k = 0; k < 4; k++) {
        memcpy(values + k * cv->nkeys, cv->top[k], sizeof(int64_t) * (size_t)cv->nkeys);
        counts[k] = cv->topn[k];
    }
}


/* ---- start-up and shut-down --------------------------------------------------------------- */

static void on_crash(int sig);
static void atfork_prepare(void) { pthread_mutex_lock(&lock); }
static void atfork_parent(void) { pthread_mutex_unlock(&lock); }
static void atfork_child(void) {
    pthread_mutex_unlock(&lock);
    /* The child records its own I/O from here; the parent's records stay the parent's. */
    memset(buckets, 0, sizeof buckets);
    all_records = NULL;
    nrecords = 0;
    memset(&fds, 0, sizeof fds);
    fd_forget();
    memset(&h5files, 0, sizeof h5files);
    memset(&h5dsets, 0, sizeof h5dsets);
    memset(&mpifiles, 0, sizeof mpifiles);
    memset(call_n, 0, sizeof call_n);
    memset(call_ns, 0, sizeof call_ns);
    trace_forget();
    forked = 1;
    mpi_initialized = 0;
    written = 0;
}

__attribute__((constructor)) void init(void) {
    if (initialized) return;
    initialized = 1;
    inside++;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    t0_mono = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    clock_gettime(CLOCK_REALTIME, &ts);
    t0_real = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    const char *e = getenv("H5PROXY_PROFILE_DISABLE");
    if (e && *e && strcmp(e, "0")) disabled = 1;
    e = getenv("H5PROXY_PROFILE_TRACE");
    trace_on = e && *e && strcmp(e, "0");
    e = getenv("H5PROXY_PROFILE_TRACE_MAX");
    if (e && *e) trace_max = atol(e) > 0 ? atol(e) : 0;
    e = getenv("H5PROXY_PROFILE_MEM_ALIGN");
    if (e && *e && atol(e) > 0) mem_align = atol(e);
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
    /* The record files' directory: a path that does not fit is refused, never cut short (the
     * records would go to another directory). */
    e = getenv("H5PROXY_PROFILE_DIR");
    int n;
    if (e && *e && e[0] != '/' && cwd[0]) n = snprintf(outdir, sizeof outdir, "%s/%s", cwd, e);
    else n = snprintf(outdir, sizeof outdir, "%s", e && *e ? e : cwd[0] ? cwd : ".");
    if (n < 0 || (size_t)n >= sizeof outdir) {
        char why[320];
        snprintf(why, sizeof why, "H5PROXY_PROFILE_DIR=%.200s%s makes a directory path longer than PATH_MAX (%d)",
                 e, strlen(e) > 200 ? "..." : "", PATH_MAX);
        fail(why);
    }
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    int sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction sa, old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_crash;
            sa.sa_flags = SA_RESETHAND | SA_NODEFER;
            sigaction(sigs[i], &sa, NULL);
        }
    }
    inside--;
}

__attribute__((destructor)) static void fini(void) {
    if (written || disabled) return;
    /* MPI programs write at MPI_Finalize: one that exits without it is cut short. */
    if (mpi_initialized) write_records(1, "exit without MPI_Finalize");
    else if (nrecords) write_records(0, "exit");
}

/* h5proxy_profile_write writes the records of a process without MPI now: for programs whose
 * exit runs no exit handlers (Go's runtime ends the process with the exit_group system
 * call), found with dlsym(RTLD_DEFAULT, "h5proxy_profile_write") and called before exiting.
 * MPI processes write at MPI_Finalize; a second call does nothing. */
void h5proxy_profile_write(void) {
    if (!written && !disabled && initialized && !mpi_initialized && nrecords) write_records(0, "exit (h5proxy_profile_write)");
}

/* h5proxy_profile_totals sets out[i] to the sum of counter names[i] over this process's
 * records of its module (0 for a name no module has) and returns 1, or returns 0 when the
 * library records nothing (disabled). h5proxy's session calls it, found with
 * dlsym(RTLD_DEFAULT, ...), at the start and end of each phase: the difference is the
 * phase's counters (profile=yes). */
int h5proxy_profile_totals(const char *const *names, int n, int64_t *out) {
    if (disabled || !initialized) return 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n; i++) {
        out[i] = 0;
        int mod = -1, idx = -1;
        for (int m = 0; m < M_NMOD && mod < 0; m++)
            for (int k = 0; k < ncounters[m]; k++)
                if (strcmp(counter_names[m][k], names[i]) == 0) {
                    mod = m, idx = k;
                    break;
                }
        if (mod < 0) continue;
        for (const struct record *r = all_records; r; r = r->next_all)
            if (r->module == mod) out[i] += r->c[idx];
    }
    pthread_mutex_unlock(&lock);
    return 1;
}

/* _exit skips destructors: shells and forked children end this way. */
typedef void exit_fn(int);
static exit_fn *next__exit;
void _exit(int status) {
    if (!next__exit) next__exit = (exit_fn *)sym("_exit");
    if (!written && !disabled && initialized) {
        if (mpi_initialized) write_records(1, "_exit without MPI_Finalize");
        else if (nrecords) write_records(0, "_exit");
    }
    next__exit(status);
    __builtin_unreachable();
}

static void on_crash(int sig) {
    if (!written && !disabled) {
        const char *why = sig == SIGSEGV   ? "SIGSEGV"
                          : sig == SIGBUS  ? "SIGBUS"
                          : sig == SIGABRT ? "SIGABRT"
                          : sig == SIGFPE  ? "SIGFPE"
                                           : "SIGILL";
        write_records(1, why);
    }
    raise(sig); /* SA_RESETHAND restored the default action */
}

/* ---- path handling ----------------------------------------------------------------------- */

/* tracked reports whether POSIX I/O on path is recorded: Darshan 3.5's default excluded
 * directories (darshan-config.c darshan_path_exclusions, the same prefixes and nothing more:
 * the MPI library's session files, e.g. OpenMPI's shared-file-pointer files under
 * /tmp/ompi.HOST.UID, are the program's I/O to Darshan) and the profile's own directory. */
int tracked(const char *path) {
    static const char *const skip[] = {"/etc/", "/dev/", "/usr/", "/bin/", "/boot/", "/lib/",
                                       "/opt/", "/sbin/", "/sys/", "/proc/", "/var/"};
    for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
        if (!strncmp(path, skip[i], strlen(skip[i]))) return 0;
    size_t n = strlen(outdir);
    if (n && !strncmp(path, outdir, n) && path[n] == '/' && strstr(path + n, "/h5proxy-profile."))
        return 0;
    return 1;
}

/* absolute writes path made absolute against the working directory (no symlink resolution,
 * like Darshan's record names); "." and ".." components are folded. */
void absolute(const char *path, char *out, size_t len) {
    char tmp[2 * PATH_MAX + 2];
    if (path[0] == '/') snprintf(tmp, sizeof tmp, "%s", path);
    else snprintf(tmp, sizeof tmp, "%s/%s", cwd, path);
    size_t o = 0;
    const char *p = tmp;
    while (*p) {
        while (*p == '/') p++;
        if (!*p) break;
        const char *s = p;
        while (*p && *p != '/') p++;
        size_t n = (size_t)(p - s);
        if (n == 1 && s[0] == '.') continue;
        if (n == 2 && s[0] == '.' && s[1] == '.') {
            while (o > 0 && out[o - 1] != '/') o--;
            if (o > 0) o--;
            continue;
        }
        if (o + n + 2 >= len) break;
        out[o++] = '/';
        memcpy(out + o, s, n);
        o += n;
    }
    if (o == 0) out[o++] = '/';
    out[o] = 0;
}

/* ---- MPI start-up and shut-down (through PMPI) ---------------------------------------------- */

PNEXT(MPI_Init);
PNEXT(MPI_Init_thread);
PNEXT(MPI_Finalize);
PNEXT(MPI_Comm_rank);
PNEXT(MPI_Comm_size);
PNEXT(MPI_Get_library_version);
PNEXT(MPI_Query_thread);
#ifdef OPEN_MPI
MPI_Comm comm_world, comm_null;
MPI_Info info_null;
#endif

/* mpi_started runs after MPI_Init: it learns the rank and checks the MPI library against
 * the one this library was built with. */
void mpi_started(void) {
    inside++;
    mpi_initialized = 1;
    PRESOLVE(MPI_Get_library_version);
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0;
    if (next_MPI_Get_library_version) next_MPI_Get_library_version(v, &n);
    PRESOLVE(MPI_Query_thread);
    int provided = -1;
    if (next_MPI_Query_thread && next_MPI_Query_thread(&provided) == MPI_SUCCESS) {
        mpi_thread = provided == MPI_THREAD_MULTIPLE     ? "multiple"
                     : provided == MPI_THREAD_SERIALIZED ? "serialized"
                     : provided == MPI_THREAD_FUNNELED   ? "funneled"
                                                         : "single";
    }
    snprintf(mpi_version, sizeof mpi_version, "%.*s", (int)strcspn(v, ",\n"), v);
#ifdef OPEN_MPI
    char want[64];
    snprintf(want, sizeof want, "Open MPI v%d.%d.", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION);
    comm_world = (MPI_Comm)sym_default("ompi_mpi_comm_world");
    comm_null = (MPI_Comm)sym_default("ompi_mpi_comm_null");
    info_null = (MPI_Info)sym_default("ompi_mpi_info_null");
    if (!strstr(v, want) || !comm_world || !comm_null || !info_null) {
        mpi_ok = 0;
        say("h5proxy-profile: this program's MPI is \"%s\", not the %s the profiler was built with: "
            "MPI-IO calls are not recorded (rebuild libh5proxy-profile.so against this MPI)\n",
            mpi_version, want);
    } else {
        PRESOLVE(MPI_Comm_rank);
        PRESOLVE(MPI_Comm_size);
        next_MPI_Comm_rank(COMM_WORLD, &rank);
        next_MPI_Comm_size(COMM_WORLD, &nprocs);
    }
#else
    PRESOLVE(MPI_Comm_rank);
    PRESOLVE(MPI_Comm_size);
    next_MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    next_MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
#endif
    inside--;
}

/* Darshan's runtime starts at the end of MPI_Init (darshan-core's MPI_Init wrapper calls
 * PMPI_Init, then darshan_core_initialize; its modules record nothing before): the files
 * MPI_Init opens itself (PMIx's shared-memory stores, Open MPI's session files) are in no
 * Darshan log, and the profiler leaves them out too. mpi_initializing is set for every
 * thread, as MPI's own threads open some of them. */
volatile int mpi_initializing;
int MPI_Init(int *argc, char ***argv) {
    PRESOLVE(MPI_Init);
    mpi_initializing = 1;
    int ret = next_MPI_Init(argc, argv);
    mpi_initializing = 0;
    if (ret == MPI_SUCCESS && !disabled) mpi_started();
    return ret;
}
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    PRESOLVE(MPI_Init_thread);
    mpi_initializing = 1;
    int ret = next_MPI_Init_thread(argc, argv, required, provided);
    mpi_initializing = 0;
    if (ret == MPI_SUCCESS && !disabled) mpi_started();
    return ret;
}
int MPI_Finalize(void) {
    PRESOLVE(MPI_Finalize);
    if (!disabled && !written) write_records(0, "MPI_Finalize");
    return next_MPI_Finalize();
}

/* ---- output ------------------------------------------------------------------------------- */

/* The writer formats without stdio or allocation, so a crash handler can use it. */
static char wbuf[1 << 16];
static size_t wlen;
static int wfd = -1, werr;

static void wflush(void) {
    size_t off = 0;
    while (off < wlen && !werr) {
        ssize_t n = next_write(wfd, wbuf + off, wlen - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) werr = errno ? errno : EIO;
        else off += (size_t)n;
    }
    wlen = 0;
}
static void wput(const char *s, size_t n) {
    while (n) {
        if (wlen == sizeof wbuf) wflush();
        size_t k = sizeof wbuf - wlen < n ? sizeof wbuf - wlen : n;
        memcpy(wbuf + wlen, s, k);
        wlen += k, s += k, n -= k;
    }
}
void ws(const char *s) { wput(s, strlen(s)); }
void wi(int64_t v) {
    char b[24];
    int i = 23;
    uint64_t u = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
    b[i] = 0;
    do b[--i] = (char)('0' + u % 10), u /= 10;
    while (u);
    if (v < 0) b[--i] = '-';
    ws(b + i);
}
void wstr(const char *s) {
    static const char hex[] = "0123456789abcdef";
    wput("\"", 1);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            char e[2] = {'\\', (char)ch};
            wput(e, 2);
        } else if (ch < 0x20) {
            char e[6] = {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15]};
            wput(e, 6);
        } else wput((const char *)&ch, 1);
    }
    wput("\"", 1);
}

/* wfile writes "file":FILE and, for a dataset, ,"name":PATH: what names a record in the
 * record's line and in its events'. */
void wfile(const struct record *r) {
    ws("\"file\":");
    wstr(r->file);
    if (r->name) {
        ws(",\"name\":");
        wstr(r->name);
    }
}

static void write_record(const struct record *r) {
    int m = r->module;
    int64_t c[MAXC];
    memcpy(c, r->c, sizeof c);
    /* the common values: the four most frequent accesses (and, for POSIX, strides) */
    int64_t vals[4 * CV_KEYS] = {0}, cnt[4] = {0};
    cv_top(&r->access, vals, cnt);
    if (m == M_POSIX) {
        for (int k = 0; k < 4; k++) c[POSIX_ACCESS1_ACCESS + k] = vals[k], c[POSIX_ACCESS1_COUNT + k] = cnt[k];
        int64_t sv[4] = {0}, sc[4] = {0};
        cv_top(&r->stride, sv, sc);
        for (int k = 0; k < 4; k++) c[POSIX_STRIDE1_STRIDE + k] = sv[k], c[POSIX_STRIDE1_COUNT + k] = sc[k];
    } else if (m == M_MPIIO) {
        for (int k = 0; k < 4; k++) c[MPIIO_ACCESS1_ACCESS + k] = vals[k], c[MPIIO_ACCESS1_COUNT + k] = cnt[k];
    } else if (m == M_H5D) {
        for (int k = 0; k < 4; k++) {
            for (int j = 0; j < CV_KEYS; j++) c[H5D_ACCESS1_ACCESS + k * CV_KEYS + j] = vals[k * CV_KEYS + j];
            c[H5D_ACCESS1_COUNT + k] = cnt[k];
        }
    }
    ws("{\"kind\":\"record\",\"module\":\"");
    ws(module_names[m]);
    ws("\",");
    wfile(r);
    ws(",\"counters\":{");
    for (int i = 0; i < ncounters[m]; i++) {
        if (i) ws(",");
        wstr(counter_names[m][i]);
        ws(":");
        wi(c[i]);
    }
    ws("},\"fcounters_ns\":{");
    for (int i = 0; i < nfcounters[m]; i++) {
        if (i) ws(",");
        wstr(fcounter_names[m][i]);
        ws(":");
        wi(r->f[i]);
    }
    ws("}");
    if (r->info) {
        ws(",\"info\":");
        ws(r->info);
    }
    ws("}\n");
}

/* write_records writes this process's records: <dir>/h5proxy-profile.<rank>.<pid>.jsonl
 * (rank "x" for processes without MPI). partial marks records cut short (a crash, or an
 * MPI program ending without MPI_Finalize). */
void write_records(int partial, const char *reason) {
    if (written) return;
    written = 1;
    inside++;
    RESOLVE(open);
    RESOLVE(write);
    RESOLVE(close);
    /* a crash handler may run while the lock is held: take it if it is free */
    int locked = partial ? pthread_mutex_trylock(&lock) == 0 : pthread_mutex_lock(&lock) == 0;
    char path[PATH_MAX + 64];
    char rk[16];
    if (rank >= 0) snprintf(rk, sizeof rk, "%d", rank);
    else snprintf(rk, sizeof rk, "x");
    snprintf(path, sizeof path, "%s/h5proxy-profile.%s.%d.jsonl", outdir, rk, (int)getpid());
    wfd = next_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (wfd < 0) {
        say("h5proxy-profile: cannot write %s: %s; no profile for this process (pid %d)\n", path,
            strerror(errno), (int)getpid());
        if (locked) pthread_mutex_unlock(&lock);
        inside--;
        return;
    }
    wlen = 0, werr = 0;
    ws("{\"kind\":\"header\",\"format\":\"h5proxy-profile\",\"version\":");
    wi(PROFILE_FORMAT_VERSION);
    ws(",\"rank\":");
    wi(rank);
    ws(",\"nprocs\":");
    wi(rank >= 0 ? nprocs : 1);
    ws(",\"mpi\":");
    ws(mpi_initialized ? "true" : "false");
    ws(",\"pid\":");
    wi(getpid());
    ws(",\"forked\":");
    ws(forked ? "true" : "false");
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    ws(",\"exe\":");
    wstr(exe);
    ws(",\"cwd\":");
    wstr(cwd);
    ws(",\"hdf5_version\":");
    wstr(hdf5_version);
    ws(",\"hdf5_built\":\"" H5_VERS_INFO "\",\"mpi_version\":");
    wstr(mpi_version);
    ws(",\"mpi_thread\":");
    wstr(mpi_thread);
    ws(",\"start_unix_ns\":");
    wi(t0_real);
    ws(",\"trace\":");
    ws(trace_on ? "true" : "false");
    ws(",\"mem_alignment\":");
    wi(mem_align);
    ws("}\n");
    for (const struct record *r = all_records; r; r = r->next_all) write_record(r);
    ws("{\"kind\":\"calls\",\"calls\":{");
    int first = 1;
    for (int i = 0; i < C_N; i++) {
        if (!call_n[i]) continue;
        if (!first) ws(",");
        first = 0;
        wstr(call_names[i]);
        ws(":[");
        wi(call_n[i]);
        ws(",");
        wi(call_ns[i]);
        ws("]");
    }
    ws("}}\n");
    trace_write();
    ws("{\"kind\":\"end\",\"partial\":");
    ws(partial ? "true" : "false");
    ws(",\"reason\":");
    wstr(reason);
    ws(",\"end_ns\":");
    wi(now_ns());
    ws(",\"records\":");
    wi(nrecords);
    ws(",\"events\":");
    long kept, dropped;
    trace_counts(&kept, &dropped);
    wi(kept);
    ws(",\"dropped_events\":");
    wi(dropped);
    ws("}\n");
    wflush();
    if (werr) say("h5proxy-profile: writing %s: %s; the profile is incomplete\n", path, strerror(werr));
    next_close(wfd);
    wfd = -1;
    if (locked) pthread_mutex_unlock(&lock);
    inside--;
}
