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
 * Environment:
 *   H5PROXY_PROFILE_DIR        directory of the record files (default: the working directory)
 *   H5PROXY_PROFILE_TRACE      1: keep every call (DXT-like events)
 *   H5PROXY_PROFILE_TRACE_MAX  most events kept per process (default 1048576; more are counted)
 *   H5PROXY_PROFILE_MEM_ALIGN  memory alignment for POSIX_MEM_NOT_ALIGNED (default 8, Darshan's)
 *   H5PROXY_PROFILE_DISABLE    1: pass every call through, record nothing
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>
#include <mpi.h>

/* OpenMPI's predefined handles are data symbols of libmpi. Weak references let the library
 * load into programs without MPI (they are then null and never used). */
#ifdef OPEN_MPI
#pragma weak ompi_mpi_info_null
#pragma weak ompi_mpi_comm_world
#pragma weak ompi_mpi_comm_null
#endif

#define PROFILE_FORMAT_VERSION 1

/* The HDF5 version the library expects: the headers' (a test builds it expecting another
 * to check the mismatch path). */
#ifndef EXPECT_HDF5_MAJOR
#define EXPECT_HDF5_MAJOR H5_VERS_MAJOR
#endif
#ifndef EXPECT_HDF5_MINOR
#define EXPECT_HDF5_MINOR H5_VERS_MINOR
#endif

/* ---- counters: Darshan's names, in Darshan's order ------------------------------------- */

#define BINS(P, RW)                                                                            \
    X(P##_SIZE_##RW##_0_100) X(P##_SIZE_##RW##_100_1K) X(P##_SIZE_##RW##_1K_10K)             \
    X(P##_SIZE_##RW##_10K_100K) X(P##_SIZE_##RW##_100K_1M) X(P##_SIZE_##RW##_1M_4M)          \
    X(P##_SIZE_##RW##_4M_10M) X(P##_SIZE_##RW##_10M_100M) X(P##_SIZE_##RW##_100M_1G)         \
    X(P##_SIZE_##RW##_1G_PLUS)
#define TOP4(P, W) X(P##1_##W) X(P##2_##W) X(P##3_##W) X(P##4_##W)

#define POSIX_COUNTERS                                                                         \
    X(POSIX_OPENS) X(POSIX_DUPS) X(POSIX_READS) X(POSIX_WRITES) X(POSIX_SEEKS) X(POSIX_STATS)              \
    X(POSIX_FSYNCS) X(POSIX_FDSYNCS) X(POSIX_MODE) X(POSIX_BYTES_READ)                        \
    X(POSIX_BYTES_WRITTEN) X(POSIX_MAX_BYTE_READ) X(POSIX_MAX_BYTE_WRITTEN)                   \
    X(POSIX_CONSEC_READS) X(POSIX_CONSEC_WRITES) X(POSIX_SEQ_READS) X(POSIX_SEQ_WRITES)       \
    X(POSIX_RW_SWITCHES) X(POSIX_MEM_NOT_ALIGNED) X(POSIX_MEM_ALIGNMENT)                      \
    X(POSIX_FILE_NOT_ALIGNED) X(POSIX_FILE_ALIGNMENT) X(POSIX_MAX_READ_TIME_SIZE)             \
    X(POSIX_MAX_WRITE_TIME_SIZE) BINS(POSIX, READ) BINS(POSIX, WRITE)                         \
    TOP4(POSIX_STRIDE, STRIDE) TOP4(POSIX_STRIDE, COUNT) TOP4(POSIX_ACCESS, ACCESS)           \
    TOP4(POSIX_ACCESS, COUNT)
#define POSIX_F_COUNTERS                                                                       \
    X(POSIX_F_OPEN_START_TIMESTAMP) X(POSIX_F_READ_START_TIMESTAMP)                           \
    X(POSIX_F_WRITE_START_TIMESTAMP) X(POSIX_F_CLOSE_START_TIMESTAMP)                         \
    X(POSIX_F_OPEN_END_TIMESTAMP) X(POSIX_F_READ_END_TIMESTAMP)                               \
    X(POSIX_F_WRITE_END_TIMESTAMP) X(POSIX_F_CLOSE_END_TIMESTAMP) X(POSIX_F_READ_TIME)        \
    X(POSIX_F_WRITE_TIME) X(POSIX_F_META_TIME) X(POSIX_F_MAX_READ_TIME)                       \
    X(POSIX_F_MAX_WRITE_TIME)

#define MPIIO_COUNTERS                                                                         \
    X(MPIIO_INDEP_OPENS) X(MPIIO_COLL_OPENS) X(MPIIO_INDEP_READS) X(MPIIO_INDEP_WRITES)       \
    X(MPIIO_COLL_READS) X(MPIIO_COLL_WRITES) X(MPIIO_SPLIT_READS) X(MPIIO_SPLIT_WRITES)       \
    X(MPIIO_NB_READS) X(MPIIO_NB_WRITES) X(MPIIO_SYNCS) X(MPIIO_HINTS) X(MPIIO_VIEWS)         \
    X(MPIIO_MODE) X(MPIIO_BYTES_READ) X(MPIIO_BYTES_WRITTEN) X(MPIIO_RW_SWITCHES)             \
    X(MPIIO_MAX_READ_TIME_SIZE) X(MPIIO_MAX_WRITE_TIME_SIZE) BINS(MPIIO, READ_AGG)            \
    BINS(MPIIO, WRITE_AGG) TOP4(MPIIO_ACCESS, ACCESS) TOP4(MPIIO_ACCESS, COUNT)
#define MPIIO_F_COUNTERS                                                                       \
    X(MPIIO_F_OPEN_START_TIMESTAMP) X(MPIIO_F_READ_START_TIMESTAMP)                           \
    X(MPIIO_F_WRITE_START_TIMESTAMP) X(MPIIO_F_CLOSE_START_TIMESTAMP)                         \
    X(MPIIO_F_OPEN_END_TIMESTAMP) X(MPIIO_F_READ_END_TIMESTAMP)                               \
    X(MPIIO_F_WRITE_END_TIMESTAMP) X(MPIIO_F_CLOSE_END_TIMESTAMP) X(MPIIO_F_READ_TIME)        \
    X(MPIIO_F_WRITE_TIME) X(MPIIO_F_META_TIME) X(MPIIO_F_MAX_READ_TIME)                       \
    X(MPIIO_F_MAX_WRITE_TIME)

#define H5F_COUNTERS X(H5F_OPENS) X(H5F_FLUSHES) X(H5F_USE_MPIIO)
#define H5F_F_COUNTERS                                                                         \
    X(H5F_F_OPEN_START_TIMESTAMP) X(H5F_F_CLOSE_START_TIMESTAMP) X(H5F_F_OPEN_END_TIMESTAMP)  \
    X(H5F_F_CLOSE_END_TIMESTAMP) X(H5F_F_META_TIME)

#define H5D_ACC(N)                                                                             \
    X(H5D_ACCESS##N##_ACCESS) X(H5D_ACCESS##N##_LENGTH_D1) X(H5D_ACCESS##N##_LENGTH_D2)      \
    X(H5D_ACCESS##N##_LENGTH_D3) X(H5D_ACCESS##N##_LENGTH_D4) X(H5D_ACCESS##N##_LENGTH_D5)   \
    X(H5D_ACCESS##N##_STRIDE_D1) X(H5D_ACCESS##N##_STRIDE_D2) X(H5D_ACCESS##N##_STRIDE_D3)   \
    X(H5D_ACCESS##N##_STRIDE_D4) X(H5D_ACCESS##N##_STRIDE_D5)
#define H5D_COUNTERS                                                                           \
    X(H5D_OPENS) X(H5D_READS) X(H5D_WRITES) X(H5D_FLUSHES) X(H5D_BYTES_READ)                  \
    X(H5D_BYTES_WRITTEN) X(H5D_RW_SWITCHES) X(H5D_REGULAR_HYPERSLAB_SELECTS)                  \
    X(H5D_IRREGULAR_HYPERSLAB_SELECTS) X(H5D_POINT_SELECTS) X(H5D_MAX_READ_TIME_SIZE)         \
    X(H5D_MAX_WRITE_TIME_SIZE) BINS(H5D, READ_AGG) BINS(H5D, WRITE_AGG) H5D_ACC(1)            \
    H5D_ACC(2) H5D_ACC(3) H5D_ACC(4) TOP4(H5D_ACCESS, COUNT) X(H5D_DATASPACE_NDIMS)           \
    X(H5D_DATASPACE_NPOINTS) X(H5D_DATATYPE_SIZE) X(H5D_CHUNK_SIZE_D1) X(H5D_CHUNK_SIZE_D2)   \
    X(H5D_CHUNK_SIZE_D3) X(H5D_CHUNK_SIZE_D4) X(H5D_CHUNK_SIZE_D5)                            \
    X(H5D_USE_MPIIO_COLLECTIVE) X(H5D_USE_DEPRECATED)
#define H5D_F_COUNTERS                                                                         \
    X(H5D_F_OPEN_START_TIMESTAMP) X(H5D_F_READ_START_TIMESTAMP)                               \
    X(H5D_F_WRITE_START_TIMESTAMP) X(H5D_F_CLOSE_START_TIMESTAMP)                             \
    X(H5D_F_OPEN_END_TIMESTAMP) X(H5D_F_READ_END_TIMESTAMP) X(H5D_F_WRITE_END_TIMESTAMP)      \
    X(H5D_F_CLOSE_END_TIMESTAMP) X(H5D_F_READ_TIME) X(H5D_F_WRITE_TIME) X(H5D_F_META_TIME)    \
    X(H5D_F_MAX_READ_TIME) X(H5D_F_MAX_WRITE_TIME)

#define X(a) a,
enum { POSIX_COUNTERS POSIX_N };
enum { POSIX_F_COUNTERS POSIX_FN };
enum { MPIIO_COUNTERS MPIIO_N };
enum { MPIIO_F_COUNTERS MPIIO_FN };
enum { H5F_COUNTERS H5F_N };
enum { H5F_F_COUNTERS H5F_FN };
enum { H5D_COUNTERS H5D_N };
enum { H5D_F_COUNTERS H5D_FN };
#undef X
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

enum module { M_POSIX, M_MPIIO, M_H5F, M_H5D, M_NMOD };
static const char *const module_names[M_NMOD] = {"POSIX", "MPIIO", "H5F", "H5D"};
static const int ncounters[M_NMOD] = {POSIX_N, MPIIO_N, H5F_N, H5D_N};
static const int nfcounters[M_NMOD] = {POSIX_FN, MPIIO_FN, H5F_FN, H5D_FN};
static const char *const *const counter_names[M_NMOD] = {posix_names, mpiio_names, h5f_names, h5d_names};
static const char *const *const fcounter_names[M_NMOD] = {posix_f_names, mpiio_f_names, h5f_f_names,
                                                          h5d_f_names};
#define MAXC H5D_N
#define MAXF 13

/* Darshan keeps at most this many distinct values per common-value counter. */
#define CV_MAX 32
#define CV_KEYS 11
struct cv {
    int n; /* distinct values tracked */
    int nkeys;
    int64_t key[CV_MAX][CV_KEYS];
    int64_t count[CV_MAX];
};

/* One record: a file (POSIX, MPIIO, H5F) or a dataset of a file (H5D). */
struct record {
    struct record *next_hash, *next_all;
    int module;
    char *file, *name; /* name: the dataset's path in the file (H5D), else NULL */
    int64_t c[MAXC];
    int64_t f[MAXF]; /* nanoseconds since the process's start */
    /* Darshan's per-record access state */
    int64_t offset, last_byte_read, last_byte_written;
    int last_io; /* 0 none, 1 read, 2 write */
    struct cv access, stride;
    char *info; /* H5F/H5D: JSON object of properties (driver, type, layout ...) */
    int blocks_traced; /* H5D: bit rw set once an irregular selection's block list is traced */
};

/* ---- process state ---------------------------------------------------------------------- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* h5check guards the one-time HDF5 check: never held with lock, since HDF5's own lock may be
 * taken inside it and a thread inside HDF5 may be waiting for lock (in a pwrite). */
static pthread_mutex_t h5check = PTHREAD_MUTEX_INITIALIZER;
static __thread int inside; /* >0 while the library itself runs: its own I/O is not recorded */
static volatile int disabled;
static int initialized, written, mpi_initialized, mpi_ok = 1, hdf5_checked, hdf5_ok = 1;
static int rank = -1, nprocs = 1, forked;
static int64_t t0_mono, t0_real;
static char outdir[PATH_MAX];
static int trace_on;
static long trace_max = 1L << 20;
static int64_t mem_align = 8;
static char cwd[PATH_MAX];
static char mpi_session[PATH_MAX]; /* the MPI library's own session files: not the program's I/O */
static char mpi_tmpbase[PATH_MAX]; /* the directory it makes them in (it stats it on one rank or another) */
static char hdf5_version[32], mpi_version[256];

#define NBUCKET 4096
static struct record *buckets[NBUCKET];
static struct record *all_records;
static int nrecords;

/* A hash map from handles (fd, hid_t, MPI_File) to records. Open addressing, tombstones. */
struct hmap {
    uint64_t *keys;
    struct record **vals;
    size_t cap, used;
};
#define HM_EMPTY ((uint64_t)0)
#define HM_DEAD ((uint64_t)1)
static struct hmap fds, h5files, h5dsets, mpifiles;

/* Time per kind of call: count and nanoseconds. */
#define CALLS                                                                                  \
    X(open) X(close) X(dup) X(read) X(write) X(pread) X(pwrite) X(readv) X(writev) X(preadv)          \
    X(pwritev) X(lseek) X(fsync) X(fdatasync) X(stat) X(MPI_File_open) X(MPI_File_close)      \
    X(MPI_File_set_view) X(MPI_File_set_info) X(MPI_File_sync) X(MPI_File_read)               \
    X(MPI_File_read_at) X(MPI_File_read_all) X(MPI_File_read_at_all) X(MPI_File_read_shared)  \
    X(MPI_File_read_ordered) X(MPI_File_iread) X(MPI_File_iread_at) X(MPI_File_iread_all)      \
    X(MPI_File_iread_at_all) X(MPI_File_iread_shared) X(MPI_File_read_all_begin)              \
    X(MPI_File_read_at_all_begin) X(MPI_File_read_ordered_begin) X(MPI_File_write)            \
    X(MPI_File_write_at) X(MPI_File_write_all) X(MPI_File_write_at_all)                       \
    X(MPI_File_write_shared) X(MPI_File_write_ordered) X(MPI_File_iwrite)                     \
    X(MPI_File_iwrite_at) X(MPI_File_iwrite_all) X(MPI_File_iwrite_at_all)                    \
    X(MPI_File_iwrite_shared) X(MPI_File_write_all_begin) X(MPI_File_write_at_all_begin)      \
    X(MPI_File_write_ordered_begin) X(H5Fcreate) X(H5Fopen) X(H5Fflush) X(H5Fclose)           \
    X(H5Gcreate2) X(H5Gopen2) X(H5Dcreate2) X(H5Dcreate1) X(H5Dopen2) X(H5Dopen1) X(H5Dwrite) \
    X(H5Dread) X(H5Dset_extent) X(H5Dclose) X(H5Acreate2) X(H5Awrite) X(H5Dwrite_multi)          \
    X(H5Dread_multi) X(H5Gclose) X(H5Oopen) X(H5Oclose)
#define X(a) C_##a,
enum { CALLS C_N };
#undef X
#define X(a) #a,
static const char *const call_names[] = {CALLS};
#undef X
static int64_t call_n[C_N], call_ns[C_N];

/* Trace events (H5PROXY_PROFILE_TRACE=1). */
struct event {
    struct record *rec;
    int call;
    int flags; /* H5D: 1 collective */
    int64_t offset, length, start, end;
    char *sel; /* H5D: the file selection, a JSON value, or NULL */
    char *extra; /* more JSON members ("attribute":{...}, "extent":[...]), or NULL */
};
static struct event *events;
static long nevents, capevents, dropped_events;

/* ---- the next functions ---------------------------------------------------------------- */

#define NEXT(f) static __typeof__(f) *next_##f
NEXT(open);
NEXT(open64);
NEXT(openat);
NEXT(openat64);
NEXT(close);
NEXT(dup);
NEXT(dup2);
NEXT(dup3);
NEXT(read);
NEXT(write);
NEXT(pread);
NEXT(pread64);
NEXT(pwrite);
NEXT(pwrite64);
NEXT(readv);
NEXT(writev);
NEXT(preadv);
NEXT(pwritev);
NEXT(lseek);
NEXT(lseek64);
NEXT(fsync);
NEXT(fdatasync);
NEXT(stat);
NEXT(stat64);
NEXT(lstat);
NEXT(lstat64);
NEXT(fstat);
NEXT(fstat64);
NEXT(fstatat);
static int (*next___xstat)(int, const char *, struct stat *);
static int (*next___lxstat)(int, const char *, struct stat *);
static int (*next___fxstat)(int, int, struct stat *);

static void *sym(const char *name) {
    void *p = dlsym(RTLD_NEXT, name);
    return p;
}
#define RESOLVE(f)                                                                             \
    do {                                                                                       \
        if (!next_##f) next_##f = (__typeof__(next_##f))sym(#f);                              \
    } while (0)

/* ---- small helpers ---------------------------------------------------------------------- */

static inline int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - t0_mono;
}

static void say(const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof buf - 1) n = sizeof buf - 1;
    RESOLVE(write);
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

static void *xcalloc(size_t n, size_t s) {
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
static inline uint64_t hm_mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}
/* Keys are stored +2 so 0 and 1 stay free for empty and dead slots. */
static struct record *hm_get(struct hmap *m, uint64_t key) {
    if (!m->cap) return NULL;
    key += 2;
    for (size_t i = hm_mix(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) return m->vals[i];
        if (m->keys[i] == HM_EMPTY) return NULL;
    }
}
static void hm_put(struct hmap *m, uint64_t key, struct record *r) {
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
static struct record *hm_del(struct hmap *m, uint64_t key) {
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
static struct record *record_get(int module, const char *file, const char *name) {
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

static void cv_add(struct cv *cv, const int64_t *key) {
    for (int i = 0; i < cv->n; i++)
        if (!memcmp(cv->key[i], key, sizeof(int64_t) * (size_t)cv->nkeys)) {
            cv->count[i]++;
            return;
        }
    if (cv->n == CV_MAX) return; /* Darshan too stops tracking new values past its limit */
    memcpy(cv->key[cv->n], key, sizeof(int64_t) * (size_t)cv->nkeys);
    cv->count[cv->n++] = 1;
}

/* cv_top writes the four most frequent values (ties: the first seen) into values[4][nkeys]
 * and counts[4]. */
static void cv_top(const struct cv *cv, int64_t *values, int64_t *counts) {
    int used[CV_MAX] = {0};
    for (int k = 0; k < 4; k++) {
        int best = -1;
        for (int i = 0; i < cv->n; i++)
            if (!used[i] && (best < 0 || cv->count[i] > cv->count[best])) best = i;
        if (best < 0) break;
        used[best] = 1;
        memcpy(values + k * cv->nkeys, cv->key[best], sizeof(int64_t) * (size_t)cv->nkeys);
        counts[k] = cv->count[best];
    }
}

/* bin is Darshan's size bucket: 0-100, 100-1K, 1K-10K, ... 100M-1G, 1G+ (upper bounds inclusive). */
static inline int bin(int64_t n) {
    static const int64_t up[] = {100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600,
                                 1073741824};
    for (int i = 0; i < 9; i++)
        if (n <= up[i]) return i;
    return 9;
}

static inline void first_last(int64_t *first, int64_t *last, int64_t t1, int64_t t2) {
    if (*first == 0 || *first > t1) *first = t1 ? t1 : 1;
    if (*last < t2) *last = t2;
}

static void event_add(struct record *r, int call, int64_t off, int64_t len, int64_t t1, int64_t t2,
                      int flags, char *sel) {
    if (!trace_on) {
        free(sel);
        return;
    }
    if (nevents == capevents) {
        if (capevents >= trace_max) {
            dropped_events++;
            free(sel);
            return;
        }
        long cap = capevents ? capevents * 2 : 4096;
        if (cap > trace_max) cap = trace_max;
        struct event *e = realloc(events, (size_t)cap * sizeof *e);
        if (!e) {
            dropped_events++;
            free(sel);
            return;
        }
        events = e, capevents = cap;
    }
    events[nevents++] = (struct event){r, call, flags, off, len, t1, t2, sel, NULL};
}

/* event_add_extra adds an event that carries more JSON members (extra, owned: freed when the
 * event is not kept). */
static void event_add_extra(struct record *r, int call, int64_t t1, int64_t t2, char *extra) {
    long before = nevents;
    event_add(r, call, -1, 0, t1, t2, 0, NULL);
    if (nevents > before) events[nevents - 1].extra = extra;
    else free(extra);
}

/* ---- initialization ---------------------------------------------------------------------- */

static void write_records(int partial, const char *reason);
static void on_crash(int sig);
static void absolute(const char *path, char *out, size_t len);
static void atfork_prepare(void) { pthread_mutex_lock(&lock); }
static void atfork_parent(void) { pthread_mutex_unlock(&lock); }
static void atfork_child(void) {
    pthread_mutex_unlock(&lock);
    /* The child records its own I/O from here; the parent's records stay the parent's. */
    memset(buckets, 0, sizeof buckets);
    all_records = NULL;
    nrecords = 0;
    memset(&fds, 0, sizeof fds);
    memset(&h5files, 0, sizeof h5files);
    memset(&h5dsets, 0, sizeof h5dsets);
    memset(&mpifiles, 0, sizeof mpifiles);
    memset(call_n, 0, sizeof call_n);
    memset(call_ns, 0, sizeof call_ns);
    events = NULL;
    nevents = capevents = dropped_events = 0;
    forked = 1;
    mpi_initialized = 0;
    written = 0;
}

__attribute__((constructor)) static void init(void) {
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
    e = getenv("H5PROXY_PROFILE_DIR");
    if (e && *e) {
        if (e[0] == '/' || !cwd[0]) snprintf(outdir, sizeof outdir, "%s", e);
        else snprintf(outdir, sizeof outdir, "%s/%s", cwd, e);
    } else snprintf(outdir, sizeof outdir, "%s", cwd[0] ? cwd : ".");
    e = getenv("OMPI_MCA_orte_tmpdir_base");
    if (e && e[0] == '/') absolute(e, mpi_tmpbase, sizeof mpi_tmpbase);
    e = getenv("OMPI_MCA_orte_top_session_dir");
    if (e && e[0] == '/') snprintf(mpi_session, sizeof mpi_session, "%s/", e);
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

/* tracked reports whether POSIX I/O on path is recorded: Darshan's excluded system
 * directories and the profile's own directory are not. */
static int tracked(const char *path) {
    static const char *const skip[] = {"/etc/", "/dev/", "/usr/", "/bin/", "/boot/", "/lib",
                                       "/opt/", "/sbin/", "/sys/", "/proc/", "/var/", "/run/"};
    for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
        if (!strncmp(path, skip[i], strlen(skip[i]))) return 0;
    if (mpi_tmpbase[0] && !strcmp(path, mpi_tmpbase)) return 0;
    size_t ns = strlen(mpi_session);
    if (ns && (!strncmp(path, mpi_session, ns) || (!strncmp(path, mpi_session, ns - 1) && !path[ns - 1])))
        return 0;
    size_t n = strlen(outdir);
    if (n && !strncmp(path, outdir, n) && path[n] == '/' && strstr(path + n, "/h5proxy-profile."))
        return 0;
    return 1;
}

/* absolute writes path made absolute against the working directory (no symlink resolution,
 * like Darshan's record names); "." and ".." components are folded. */
static void absolute(const char *path, char *out, size_t len) {
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

static inline int active(void) {
    if (!initialized) init();
    return !disabled && !inside;
}

/* ---- POSIX --------------------------------------------------------------------------- */

static void posix_opened(int fd, const char *path, int dirfd, mode_t mode, int64_t t1, int64_t t2) {
    char abs[PATH_MAX];
    if (dirfd != AT_FDCWD && path[0] != '/') {
        char link[64], dir[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        ssize_t n = readlink(link, dir, sizeof dir - 1);
        if (n <= 0) return;
        dir[n] = 0;
        char joined[2 * PATH_MAX + 2];
        snprintf(joined, sizeof joined, "%s/%s", dir, path);
        absolute(joined, abs, sizeof abs);
    } else absolute(path, abs, sizeof abs);
    if (!tracked(abs)) return;
    struct stat st;
    int64_t align = 0;
    RESOLVE(fstat);
    if (next_fstat && next_fstat(fd, &st) == 0) align = st.st_blksize;
    pthread_mutex_lock(&lock);
    struct record *r = record_get(M_POSIX, abs, NULL);
    if (r) {
        r->c[POSIX_OPENS]++;
        if (mode) r->c[POSIX_MODE] = mode;
        r->c[POSIX_MEM_ALIGNMENT] = mem_align;
        r->c[POSIX_FILE_ALIGNMENT] = align;
        r->offset = 0;
        first_last(&r->f[POSIX_F_OPEN_START_TIMESTAMP], &r->f[POSIX_F_OPEN_END_TIMESTAMP], t1, t2);
        r->f[POSIX_F_META_TIME] += t2 - t1;
        hm_put(&fds, (uint64_t)fd, r);
        event_add(r, C_open, 0, 0, t1, t2, 0, NULL);
    }
    call_n[C_open]++;
    call_ns[C_open] += t2 - t1;
    pthread_mutex_unlock(&lock);
}

/* posix_io records a read (rw 1) or write (rw 2) of ret bytes at off (-1: the record's
 * current offset), as Darshan's POSIX module counts them. */
static void posix_io(int call, int fd, int rw, int64_t off, int64_t ret, const void *buf, int64_t t1,
                     int64_t t2) {
    pthread_mutex_lock(&lock);
    call_n[call]++;
    call_ns[call] += t2 - t1;
    struct record *r = hm_get(&fds, (uint64_t)fd);
    if (!r || ret < 0) {
        pthread_mutex_unlock(&lock);
        return;
    }
    int64_t *c = r->c, *f = r->f, el = t2 - t1;
    int64_t this_off = off >= 0 ? off : r->offset;
    int64_t *last = rw == 1 ? &r->last_byte_read : &r->last_byte_written;
    int64_t stride = 0;
    if (this_off > *last) c[rw == 1 ? POSIX_SEQ_READS : POSIX_SEQ_WRITES]++;
    if (this_off == *last + 1) c[rw == 1 ? POSIX_CONSEC_READS : POSIX_CONSEC_WRITES]++;
    if (this_off > 0 && this_off > *last && *last != 0) stride = this_off - *last - 1;
    *last = this_off + ret - 1;
    r->offset = this_off + ret;
    if (rw == 1) {
        if (c[POSIX_MAX_BYTE_READ] < this_off + ret - 1) c[POSIX_MAX_BYTE_READ] = this_off + ret - 1;
        c[POSIX_BYTES_READ] += ret;
        c[POSIX_READS]++;
        c[POSIX_SIZE_READ_0_100 + bin(ret)]++;
        if (r->last_io == 2) c[POSIX_RW_SWITCHES]++;
        first_last(&f[POSIX_F_READ_START_TIMESTAMP], &f[POSIX_F_READ_END_TIMESTAMP], t1, t2);
        f[POSIX_F_READ_TIME] += el;
        if (f[POSIX_F_MAX_READ_TIME] < el) f[POSIX_F_MAX_READ_TIME] = el, c[POSIX_MAX_READ_TIME_SIZE] = ret;
    } else {
        if (c[POSIX_MAX_BYTE_WRITTEN] < this_off + ret - 1)
            c[POSIX_MAX_BYTE_WRITTEN] = this_off + ret - 1;
        c[POSIX_BYTES_WRITTEN] += ret;
        c[POSIX_WRITES]++;
        c[POSIX_SIZE_WRITE_0_100 + bin(ret)]++;
        if (r->last_io == 1) c[POSIX_RW_SWITCHES]++;
        first_last(&f[POSIX_F_WRITE_START_TIMESTAMP], &f[POSIX_F_WRITE_END_TIMESTAMP], t1, t2);
        f[POSIX_F_WRITE_TIME] += el;
        if (f[POSIX_F_MAX_WRITE_TIME] < el)
            f[POSIX_F_MAX_WRITE_TIME] = el, c[POSIX_MAX_WRITE_TIME_SIZE] = ret;
    }
    r->last_io = rw;
    cv_add(&r->access, &ret);
    cv_add(&r->stride, &stride);
    if (buf && ((uintptr_t)buf % (uint64_t)mem_align) != 0) c[POSIX_MEM_NOT_ALIGNED]++;
    if (c[POSIX_FILE_ALIGNMENT] > 0 && this_off % c[POSIX_FILE_ALIGNMENT] != 0) c[POSIX_FILE_NOT_ALIGNED]++;
    event_add(r, call, this_off, ret, t1, t2, 0, NULL);
    pthread_mutex_unlock(&lock);
}

/* posix_meta records a call on fd that is neither I/O nor open: kind is the counter to
 * increment (-1 none), ftime the time counter. */
static void posix_meta(int call, int fd, int counter, int ftime, int64_t t1, int64_t t2) {
    pthread_mutex_lock(&lock);
    call_n[call]++;
    call_ns[call] += t2 - t1;
    struct record *r = hm_get(&fds, (uint64_t)fd);
    if (r) {
        if (counter >= 0) r->c[counter]++;
        r->f[ftime] += t2 - t1;
        event_add(r, call, -1, 0, t1, t2, 0, NULL);
    }
    pthread_mutex_unlock(&lock);
}

static int open_common(int call_dirfd, const char *path, int flags, mode_t mode, int is64, int at) {
    int64_t t1 = now_ns();
    int fd;
    RESOLVE(openat64);
    RESOLVE(openat);
    RESOLVE(open64);
    RESOLVE(open);
    if (at) fd = is64 ? next_openat64(call_dirfd, path, flags, mode) : next_openat(call_dirfd, path, flags, mode);
    else fd = is64 ? next_open64(path, flags, mode) : next_open(path, flags, mode);
    if (fd >= 0 && path && active()) {
        int e = errno;
        inside++;
        posix_opened(fd, path, at ? call_dirfd : AT_FDCWD, (flags & O_CREAT) ? mode : 0, t1, now_ns());
        inside--;
        errno = e;
    }
    return fd;
}

#define OPEN_MODE(flags, mode)                                                                 \
    mode_t mode = 0;                                                                           \
    if ((flags) & (O_CREAT | O_TMPFILE)) {                                                     \
        va_list ap;                                                                            \
        va_start(ap, flags);                                                                   \
        mode = (mode_t)va_arg(ap, int);                                                        \
        va_end(ap);                                                                            \
    }

int open(const char *path, int flags, ...) {
    OPEN_MODE(flags, mode);
    return open_common(AT_FDCWD, path, flags, mode, 0, 0);
}
int open64(const char *path, int flags, ...) {
    OPEN_MODE(flags, mode);
    return open_common(AT_FDCWD, path, flags, mode, 1, 0);
}
int openat(int dirfd, const char *path, int flags, ...) {
    OPEN_MODE(flags, mode);
    return open_common(dirfd, path, flags, mode, 0, 1);
}
int openat64(int dirfd, const char *path, int flags, ...) {
    OPEN_MODE(flags, mode);
    return open_common(dirfd, path, flags, mode, 1, 1);
}
int creat(const char *path, mode_t mode) {
    return open_common(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, 0, 0);
}
int creat64(const char *path, mode_t mode) {
    return open_common(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, 1, 0);
}

int close(int fd) {
    RESOLVE(close);
    if (!active()) return next_close(fd);
    int64_t t1 = now_ns();
    int ret = next_close(fd);
    int64_t t2 = now_ns();
    int e = errno;
    pthread_mutex_lock(&lock);
    call_n[C_close]++;
    call_ns[C_close] += t2 - t1;
    struct record *r = hm_del(&fds, (uint64_t)fd);
    if (r) {
        first_last(&r->f[POSIX_F_CLOSE_START_TIMESTAMP], &r->f[POSIX_F_CLOSE_END_TIMESTAMP], t1, t2);
        r->f[POSIX_F_META_TIME] += t2 - t1;
        event_add(r, C_close, -1, 0, t1, t2, 0, NULL);
    }
    pthread_mutex_unlock(&lock);
    errno = e;
    return ret;
}

/* A duplicate descriptor refers to the same record: Darshan counts it as an open and a dup. */
static int dup_common(int oldfd, int newfd, int64_t t1, int64_t t2) {
    if (newfd < 0 || newfd == oldfd) return newfd;
    int e = errno;
    pthread_mutex_lock(&lock);
    call_n[C_dup]++;
    call_ns[C_dup] += t2 - t1;
    hm_del(&fds, (uint64_t)newfd); /* dup2 closed what newfd was */
    struct record *r = hm_get(&fds, (uint64_t)oldfd);
    if (r) {
        r->c[POSIX_OPENS]++;
        r->c[POSIX_DUPS]++;
        r->f[POSIX_F_META_TIME] += t2 - t1;
        hm_put(&fds, (uint64_t)newfd, r);
        event_add(r, C_dup, -1, 0, t1, t2, 0, NULL);
    }
    pthread_mutex_unlock(&lock);
    errno = e;
    return newfd;
}
int dup(int fd) {
    RESOLVE(dup);
    if (!active()) return next_dup(fd);
    int64_t t1 = now_ns();
    int ret = next_dup(fd);
    return dup_common(fd, ret, t1, now_ns());
}
int dup2(int fd, int fd2) {
    RESOLVE(dup2);
    if (!active()) return next_dup2(fd, fd2);
    int64_t t1 = now_ns();
    int ret = next_dup2(fd, fd2);
    return dup_common(fd, ret, t1, now_ns());
}
int dup3(int fd, int fd2, int flags) {
    RESOLVE(dup3);
    if (!active()) return next_dup3(fd, fd2, flags);
    int64_t t1 = now_ns();
    int ret = next_dup3(fd, fd2, flags);
    return dup_common(fd, ret, t1, now_ns());
}

#define IO_WRAP(call, rw, off, buf, expr)                                                      \
    if (!active()) return expr;                                                                \
    int64_t t1 = now_ns();                                                                     \
    __typeof__(expr) ret = expr;                                                               \
    int64_t t2 = now_ns();                                                                     \
    int e = errno;                                                                             \
    posix_io(call, fd, rw, off, (int64_t)ret, buf, t1, t2);                                    \
    errno = e;                                                                                 \
    return ret;

ssize_t read(int fd, void *buf, size_t n) {
    RESOLVE(read);
    IO_WRAP(C_read, 1, -1, buf, next_read(fd, buf, n));
}
ssize_t write(int fd, const void *buf, size_t n) {
    RESOLVE(write);
    IO_WRAP(C_write, 2, -1, buf, next_write(fd, buf, n));
}
ssize_t pread(int fd, void *buf, size_t n, off_t off) {
    RESOLVE(pread);
    IO_WRAP(C_pread, 1, off, buf, next_pread(fd, buf, n, off));
}
ssize_t pread64(int fd, void *buf, size_t n, off64_t off) {
    RESOLVE(pread64);
    IO_WRAP(C_pread, 1, off, buf, next_pread64(fd, buf, n, off));
}
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
    RESOLVE(pwrite);
    IO_WRAP(C_pwrite, 2, off, buf, next_pwrite(fd, buf, n, off));
}
ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off) {
    RESOLVE(pwrite64);
    IO_WRAP(C_pwrite, 2, off, buf, next_pwrite64(fd, buf, n, off));
}
/* Vector calls: Darshan counts one access of the total size, aligned if every buffer is. */
static const void *iov_buf(const struct iovec *iov, int n) {
    for (int i = 0; i < n; i++)
        if ((uintptr_t)iov[i].iov_base % (uint64_t)mem_align) return iov[i].iov_base;
    return n > 0 ? iov[0].iov_base : NULL;
}
ssize_t readv(int fd, const struct iovec *iov, int n) {
    RESOLVE(readv);
    IO_WRAP(C_readv, 1, -1, iov_buf(iov, n), next_readv(fd, iov, n));
}
ssize_t writev(int fd, const struct iovec *iov, int n) {
    RESOLVE(writev);
    IO_WRAP(C_writev, 2, -1, iov_buf(iov, n), next_writev(fd, iov, n));
}
ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off) {
    RESOLVE(preadv);
    IO_WRAP(C_preadv, 1, off, iov_buf(iov, n), next_preadv(fd, iov, n, off));
}
ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off) {
    RESOLVE(pwritev);
    IO_WRAP(C_pwritev, 2, off, iov_buf(iov, n), next_pwritev(fd, iov, n, off));
}

static off64_t seek_common(int fd, off64_t ret, int64_t t1, int64_t t2) {
    int e = errno;
    pthread_mutex_lock(&lock);
    call_n[C_lseek]++;
    call_ns[C_lseek] += t2 - t1;
    struct record *r = hm_get(&fds, (uint64_t)fd);
    if (r && ret >= 0) {
        r->offset = ret;
        r->c[POSIX_SEEKS]++;
        r->f[POSIX_F_META_TIME] += t2 - t1;
        event_add(r, C_lseek, ret, 0, t1, t2, 0, NULL);
    }
    pthread_mutex_unlock(&lock);
    errno = e;
    return ret;
}
off_t lseek(int fd, off_t off, int whence) {
    RESOLVE(lseek);
    if (!active()) return next_lseek(fd, off, whence);
    int64_t t1 = now_ns();
    off_t ret = next_lseek(fd, off, whence);
    return (off_t)seek_common(fd, ret, t1, now_ns());
}
off64_t lseek64(int fd, off64_t off, int whence) {
    RESOLVE(lseek64);
    if (!active()) return next_lseek64(fd, off, whence);
    int64_t t1 = now_ns();
    off64_t ret = next_lseek64(fd, off, whence);
    return seek_common(fd, ret, t1, now_ns());
}

int fsync(int fd) {
    RESOLVE(fsync);
    if (!active()) return next_fsync(fd);
    int64_t t1 = now_ns();
    int ret = next_fsync(fd);
    int e = errno;
    if (ret == 0) posix_meta(C_fsync, fd, POSIX_FSYNCS, POSIX_F_WRITE_TIME, t1, now_ns());
    errno = e;
    return ret;
}
int fdatasync(int fd) {
    RESOLVE(fdatasync);
    if (!active()) return next_fdatasync(fd);
    int64_t t1 = now_ns();
    int ret = next_fdatasync(fd);
    int e = errno;
    if (ret == 0) posix_meta(C_fdatasync, fd, POSIX_FDSYNCS, POSIX_F_WRITE_TIME, t1, now_ns());
    errno = e;
    return ret;
}

/* stat by path counts on the path's record (created if new, as Darshan does). */
static void stat_path(const char *path, int ret, int64_t t1, int64_t t2) {
    if (ret != 0 || !path) return;
    int e = errno;
    inside++;
    char abs[PATH_MAX];
    absolute(path, abs, sizeof abs);
    if (tracked(abs)) {
        pthread_mutex_lock(&lock);
        call_n[C_stat]++;
        call_ns[C_stat] += t2 - t1;
        struct record *r = record_get(M_POSIX, abs, NULL);
        if (r) {
            r->c[POSIX_STATS]++;
            r->f[POSIX_F_META_TIME] += t2 - t1;
            event_add(r, C_stat, -1, 0, t1, t2, 0, NULL);
        }
        pthread_mutex_unlock(&lock);
    }
    inside--;
    errno = e;
}
#define STAT_WRAP(fn, T, ...)                                                                  \
    RESOLVE(fn);                                                                               \
    if (!active()) return next_##fn(__VA_ARGS__);                                              \
    int64_t t1 = now_ns();                                                                     \
    int ret = next_##fn(__VA_ARGS__);
int stat(const char *path, struct stat *st) {
    STAT_WRAP(stat, 0, path, st);
    stat_path(path, ret, t1, now_ns());
    return ret;
}
int stat64(const char *path, struct stat64 *st) {
    STAT_WRAP(stat64, 0, path, st);
    stat_path(path, ret, t1, now_ns());
    return ret;
}
int lstat(const char *path, struct stat *st) {
    STAT_WRAP(lstat, 0, path, st);
    stat_path(path, ret, t1, now_ns());
    return ret;
}
int lstat64(const char *path, struct stat64 *st) {
    STAT_WRAP(lstat64, 0, path, st);
    stat_path(path, ret, t1, now_ns());
    return ret;
}
int fstat(int fd, struct stat *st) {
    STAT_WRAP(fstat, 0, fd, st);
    int e = errno;
    if (ret == 0) posix_meta(C_stat, fd, POSIX_STATS, POSIX_F_META_TIME, t1, now_ns());
    errno = e;
    return ret;
}
int fstat64(int fd, struct stat64 *st) {
    STAT_WRAP(fstat64, 0, fd, st);
    int e = errno;
    if (ret == 0) posix_meta(C_stat, fd, POSIX_STATS, POSIX_F_META_TIME, t1, now_ns());
    errno = e;
    return ret;
}
int fstatat(int dirfd, const char *path, struct stat *st, int flags) {
    STAT_WRAP(fstatat, 0, dirfd, path, st, flags);
    if (dirfd == AT_FDCWD || path[0] == '/') stat_path(path, ret, t1, now_ns());
    return ret;
}
/* glibc before 2.33 exports stat through these. */
int __xstat(int ver, const char *path, struct stat *st) {
    RESOLVE(__xstat);
    if (!active()) return next___xstat(ver, path, st);
    int64_t t1 = now_ns();
    int ret = next___xstat(ver, path, st);
    stat_path(path, ret, t1, now_ns());
    return ret;
}
int __lxstat(int ver, const char *path, struct stat *st) {
    RESOLVE(__lxstat);
    if (!active()) return next___lxstat(ver, path, st);
    int64_t t1 = now_ns();
    int ret = next___lxstat(ver, path, st);
    stat_path(path, ret, t1, now_ns());
    return ret;
}
int __fxstat(int ver, int fd, struct stat *st) {
    RESOLVE(__fxstat);
    if (!active()) return next___fxstat(ver, fd, st);
    int64_t t1 = now_ns();
    int ret = next___fxstat(ver, fd, st);
    int e = errno;
    if (ret == 0) posix_meta(C_stat, fd, POSIX_STATS, POSIX_F_META_TIME, t1, now_ns());
    errno = e;
    return ret;
}

/* ---- MPI-IO (through PMPI) ---------------------------------------------------------------- */

#define PNEXT(f) static __typeof__(P##f) *next_##f
#define PRESOLVE(f)                                                                            \
    do {                                                                                       \
        if (!next_##f) next_##f = (__typeof__(next_##f))sym("P" #f);                           \
    } while (0)
PNEXT(MPI_Init);
PNEXT(MPI_Init_thread);
PNEXT(MPI_Finalize);
PNEXT(MPI_Comm_rank);
PNEXT(MPI_Comm_size);
PNEXT(MPI_Type_size);
PNEXT(MPI_Get_library_version);
PNEXT(MPI_File_open);
PNEXT(MPI_File_close);
PNEXT(MPI_File_set_view);
PNEXT(MPI_File_set_info);
PNEXT(MPI_File_sync);

/* mpi_started runs after MPI_Init: it learns the rank and checks the MPI library against
 * the one this library was built with. */
static void mpi_started(void) {
    inside++;
    mpi_initialized = 1;
    PRESOLVE(MPI_Get_library_version);
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0;
    if (next_MPI_Get_library_version) next_MPI_Get_library_version(v, &n);
    snprintf(mpi_version, sizeof mpi_version, "%.*s", (int)strcspn(v, ",\n"), v);
#ifdef OPEN_MPI
    char want[64];
    snprintf(want, sizeof want, "Open MPI v%d.%d.", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION);
    if (!strstr(v, want) || !&ompi_mpi_comm_world) {
        mpi_ok = 0;
        say("h5proxy-profile: this program's MPI is \"%s\", not the %s the profiler was built with: "
            "MPI-IO calls are not recorded (rebuild libh5proxy-profile.so against this MPI)\n",
            mpi_version, want);
    } else {
        PRESOLVE(MPI_Comm_rank);
        PRESOLVE(MPI_Comm_size);
        next_MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        next_MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    }
#else
    PRESOLVE(MPI_Comm_rank);
    PRESOLVE(MPI_Comm_size);
    next_MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    next_MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
#endif
    inside--;
}

int MPI_Init(int *argc, char ***argv) {
    PRESOLVE(MPI_Init);
    int ret = next_MPI_Init(argc, argv);
    if (ret == MPI_SUCCESS && !disabled) mpi_started();
    return ret;
}
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    PRESOLVE(MPI_Init_thread);
    int ret = next_MPI_Init_thread(argc, argv, required, provided);
    if (ret == MPI_SUCCESS && !disabled) mpi_started();
    return ret;
}
int MPI_Finalize(void) {
    PRESOLVE(MPI_Finalize);
    if (!disabled && !written) write_records(0, "MPI_Finalize");
    return next_MPI_Finalize();
}

PNEXT(MPI_Initialized);
/* mpi_active: MPI is initialized (programs whose MPI_Init bypassed the wrapper, such as
 * Fortran bindings calling PMPI_Init, are noticed here) and is the MPI of the build. */
static inline int mpi_active(void) {
    if (!active()) return 0;
    if (!mpi_initialized) {
        int flag = 0;
        PRESOLVE(MPI_Initialized);
        if (next_MPI_Initialized && next_MPI_Initialized(&flag) == MPI_SUCCESS && flag) mpi_started();
    }
    return mpi_ok && mpi_initialized;
}

static void mpi_meta(int call, struct record *r, int64_t t1, int64_t t2) {
    call_n[call]++;
    call_ns[call] += t2 - t1;
    if (r) {
        r->f[MPIIO_F_META_TIME] += t2 - t1;
        event_add(r, call, -1, 0, t1, t2, 0, NULL);
    }
}

int MPI_File_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, MPI_File *fh) {
    PRESOLVE(MPI_File_open);
    if (!mpi_active()) return next_MPI_File_open(comm, path, amode, info, fh);
    int64_t t1 = now_ns();
    int ret = next_MPI_File_open(comm, path, amode, info, fh);
    int64_t t2 = now_ns();
    if (ret != MPI_SUCCESS) return ret;
    inside++;
    int size = 1;
    PRESOLVE(MPI_Comm_size);
    next_MPI_Comm_size(comm, &size);
    /* ROMIO and OMPIO accept a "prefix:" naming the file system driver */
    const char *p = path;
    const char *colon = strchr(path, ':'), *slash = strchr(path, '/');
    if (colon && colon - path > 1 && (!slash || colon < slash)) p = colon + 1;
    char abs[PATH_MAX];
    absolute(p, abs, sizeof abs);
    pthread_mutex_lock(&lock);
    struct record *r = record_get(M_MPIIO, abs, NULL);
    if (r) {
        r->c[MPIIO_MODE] = amode;
        r->c[size == 1 ? MPIIO_INDEP_OPENS : MPIIO_COLL_OPENS]++;
        if (info != MPI_INFO_NULL) r->c[MPIIO_HINTS]++;
        first_last(&r->f[MPIIO_F_OPEN_START_TIMESTAMP], &r->f[MPIIO_F_OPEN_END_TIMESTAMP], t1, t2);
        hm_put(&mpifiles, (uint64_t)(uintptr_t)*fh, r);
    }
    mpi_meta(C_MPI_File_open, r, t1, t2);
    pthread_mutex_unlock(&lock);
    inside--;
    return ret;
}

int MPI_File_close(MPI_File *fh) {
    PRESOLVE(MPI_File_close);
    if (!mpi_active()) return next_MPI_File_close(fh);
    MPI_File h = *fh;
    int64_t t1 = now_ns();
    int ret = next_MPI_File_close(fh);
    int64_t t2 = now_ns();
    pthread_mutex_lock(&lock);
    struct record *r = hm_del(&mpifiles, (uint64_t)(uintptr_t)h);
    if (r) first_last(&r->f[MPIIO_F_CLOSE_START_TIMESTAMP], &r->f[MPIIO_F_CLOSE_END_TIMESTAMP], t1, t2);
    mpi_meta(C_MPI_File_close, r, t1, t2);
    pthread_mutex_unlock(&lock);
    return ret;
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info) {
    PRESOLVE(MPI_File_set_view);
    if (!mpi_active()) return next_MPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    int64_t t1 = now_ns();
    int ret = next_MPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    int64_t t2 = now_ns();
    pthread_mutex_lock(&lock);
    struct record *r = hm_get(&mpifiles, (uint64_t)(uintptr_t)fh);
    if (r && ret == MPI_SUCCESS) {
        r->c[MPIIO_VIEWS]++;
        if (info != MPI_INFO_NULL) r->c[MPIIO_HINTS]++;
    }
    mpi_meta(C_MPI_File_set_view, r, t1, t2);
    pthread_mutex_unlock(&lock);
    return ret;
}

int MPI_File_set_info(MPI_File fh, MPI_Info info) {
    PRESOLVE(MPI_File_set_info);
    if (!mpi_active()) return next_MPI_File_set_info(fh, info);
    int64_t t1 = now_ns();
    int ret = next_MPI_File_set_info(fh, info);
    int64_t t2 = now_ns();
    pthread_mutex_lock(&lock);
    struct record *r = hm_get(&mpifiles, (uint64_t)(uintptr_t)fh);
    if (r && ret == MPI_SUCCESS) r->c[MPIIO_HINTS]++;
    mpi_meta(C_MPI_File_set_info, r, t1, t2);
    pthread_mutex_unlock(&lock);
    return ret;
}

int MPI_File_sync(MPI_File fh) {
    PRESOLVE(MPI_File_sync);
    if (!mpi_active()) return next_MPI_File_sync(fh);
    int64_t t1 = now_ns();
    int ret = next_MPI_File_sync(fh);
    int64_t t2 = now_ns();
    pthread_mutex_lock(&lock);
    struct record *r = hm_get(&mpifiles, (uint64_t)(uintptr_t)fh);
    if (r && ret == MPI_SUCCESS) {
        r->c[MPIIO_SYNCS]++;
        r->f[MPIIO_F_WRITE_TIME] += t2 - t1;
        event_add(r, C_MPI_File_sync, -1, 0, t1, t2, 0, NULL);
    }
    call_n[C_MPI_File_sync]++;
    call_ns[C_MPI_File_sync] += t2 - t1;
    pthread_mutex_unlock(&lock);
    return ret;
}

/* The counter a read or write kind increments. */
enum { K_INDEP, K_COLL, K_SPLIT, K_NB };
static void mpi_io(int call, MPI_File fh, int rw, int kind, int64_t off, int count, MPI_Datatype type,
                   int ret, int64_t t1, int64_t t2) {
    if (ret != MPI_SUCCESS) return;
    int tsize = 0;
    PRESOLVE(MPI_Type_size);
    next_MPI_Type_size(type, &tsize);
    int64_t n = (int64_t)tsize * count, el = t2 - t1;
    pthread_mutex_lock(&lock);
    call_n[call]++;
    call_ns[call] += el;
    struct record *r = hm_get(&mpifiles, (uint64_t)(uintptr_t)fh);
    if (r) {
        int64_t *c = r->c, *f = r->f;
        static const int rd[] = {MPIIO_INDEP_READS, MPIIO_COLL_READS, MPIIO_SPLIT_READS, MPIIO_NB_READS};
        static const int wr[] = {MPIIO_INDEP_WRITES, MPIIO_COLL_WRITES, MPIIO_SPLIT_WRITES,
                                 MPIIO_NB_WRITES};
        if (rw == 1) {
            c[rd[kind]]++;
            c[MPIIO_BYTES_READ] += n;
            c[MPIIO_SIZE_READ_AGG_0_100 + bin(n)]++;
            if (r->last_io == 2) c[MPIIO_RW_SWITCHES]++;
            first_last(&f[MPIIO_F_READ_START_TIMESTAMP], &f[MPIIO_F_READ_END_TIMESTAMP], t1, t2);
            f[MPIIO_F_READ_TIME] += el;
            if (f[MPIIO_F_MAX_READ_TIME] < el) f[MPIIO_F_MAX_READ_TIME] = el, c[MPIIO_MAX_READ_TIME_SIZE] = n;
        } else {
            c[wr[kind]]++;
            c[MPIIO_BYTES_WRITTEN] += n;
            c[MPIIO_SIZE_WRITE_AGG_0_100 + bin(n)]++;
            if (r->last_io == 1) c[MPIIO_RW_SWITCHES]++;
            first_last(&f[MPIIO_F_WRITE_START_TIMESTAMP], &f[MPIIO_F_WRITE_END_TIMESTAMP], t1, t2);
            f[MPIIO_F_WRITE_TIME] += el;
            if (f[MPIIO_F_MAX_WRITE_TIME] < el)
                f[MPIIO_F_MAX_WRITE_TIME] = el, c[MPIIO_MAX_WRITE_TIME_SIZE] = n;
        }
        r->last_io = rw;
        cv_add(&r->access, &n);
        event_add(r, call, off, n, t1, t2, kind == K_COLL ? 1 : 0, NULL);
    }
    pthread_mutex_unlock(&lock);
}

/* MPIW defines one read or write wrapper. OFF is the explicit offset or -1. */
#define MPIW(NAME, RW, KIND, OFF, PARAMS, ARGS, CONSTBUF)                                       \
    PNEXT(NAME);                                                                               \
    int NAME PARAMS {                                                                          \
        PRESOLVE(NAME);                                                                        \
        if (!mpi_active()) return next_##NAME ARGS;                                            \
        int64_t t1 = now_ns();                                                                 \
        int ret = next_##NAME ARGS;                                                            \
        int64_t t2 = now_ns();                                                                 \
        inside++;                                                                              \
        mpi_io(C_##NAME, fh, RW, KIND, OFF, count, datatype, ret, t1, t2);                     \
        inside--;                                                                              \
        return ret;                                                                            \
    }
#define RD_P(...) (MPI_File fh, __VA_ARGS__ void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
#define WR_P(...) (MPI_File fh, __VA_ARGS__ const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
#define RDN_P(...) (MPI_File fh, __VA_ARGS__ void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
#define WRN_P(...) (MPI_File fh, __VA_ARGS__ const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
#define RDB_P(...) (MPI_File fh, __VA_ARGS__ void *buf, int count, MPI_Datatype datatype)
#define WRB_P(...) (MPI_File fh, __VA_ARGS__ const void *buf, int count, MPI_Datatype datatype)
MPIW(MPI_File_read, 1, K_INDEP, -1, RD_P(), (fh, buf, count, datatype, status), )
MPIW(MPI_File_read_at, 1, K_INDEP, offset, RD_P(MPI_Offset offset,), (fh, offset, buf, count, datatype, status), )
MPIW(MPI_File_read_all, 1, K_COLL, -1, RD_P(), (fh, buf, count, datatype, status), )
MPIW(MPI_File_read_at_all, 1, K_COLL, offset, RD_P(MPI_Offset offset,), (fh, offset, buf, count, datatype, status), )
MPIW(MPI_File_read_shared, 1, K_INDEP, -1, RD_P(), (fh, buf, count, datatype, status), )
MPIW(MPI_File_read_ordered, 1, K_COLL, -1, RD_P(), (fh, buf, count, datatype, status), )
MPIW(MPI_File_iread, 1, K_NB, -1, RDN_P(), (fh, buf, count, datatype, request), )
MPIW(MPI_File_iread_at, 1, K_NB, offset, RDN_P(MPI_Offset offset,), (fh, offset, buf, count, datatype, request), )
MPIW(MPI_File_iread_all, 1, K_NB, -1, RDN_P(), (fh, buf, count, datatype, request), )
MPIW(MPI_File_iread_at_all, 1, K_NB, offset, RDN_P(MPI_Offset offset,), (fh, offset, buf, count, datatype, request), )
MPIW(MPI_File_iread_shared, 1, K_NB, -1, RDN_P(), (fh, buf, count, datatype, request), )
MPIW(MPI_File_read_all_begin, 1, K_SPLIT, -1, RDB_P(), (fh, buf, count, datatype), )
MPIW(MPI_File_read_at_all_begin, 1, K_SPLIT, offset, RDB_P(MPI_Offset offset,), (fh, offset, buf, count, datatype), )
MPIW(MPI_File_read_ordered_begin, 1, K_SPLIT, -1, RDB_P(), (fh, buf, count, datatype), )
MPIW(MPI_File_write, 2, K_INDEP, -1, WR_P(), (fh, buf, count, datatype, status), )
MPIW(MPI_File_write_at, 2, K_INDEP, offset, WR_P(MPI_Offset offset,), (fh, offset, buf, count, datatype, status), )
MPIW(MPI_File_write_all, 2, K_COLL, -1, WR_P(), (fh, buf, count, datatype, status), )
MPIW(MPI_File_write_at_all, 2, K_COLL, offset, WR_P(MPI_Offset offset,), (fh, offset, buf, count, datatype, status), )
MPIW(MPI_File_write_shared, 2, K_INDEP, -1, WR_P(), (fh, buf, count, datatype, status), )
MPIW(MPI_File_write_ordered, 2, K_COLL, -1, WR_P(), (fh, buf, count, datatype, status), )
MPIW(MPI_File_iwrite, 2, K_NB, -1, WRN_P(), (fh, buf, count, datatype, request), )
MPIW(MPI_File_iwrite_at, 2, K_NB, offset, WRN_P(MPI_Offset offset,), (fh, offset, buf, count, datatype, request), )
MPIW(MPI_File_iwrite_all, 2, K_NB, -1, WRN_P(), (fh, buf, count, datatype, request), )
MPIW(MPI_File_iwrite_at_all, 2, K_NB, offset, WRN_P(MPI_Offset offset,), (fh, offset, buf, count, datatype, request), )
MPIW(MPI_File_iwrite_shared, 2, K_NB, -1, WRN_P(), (fh, buf, count, datatype, request), )
MPIW(MPI_File_write_all_begin, 2, K_SPLIT, -1, WRB_P(), (fh, buf, count, datatype), )
MPIW(MPI_File_write_at_all_begin, 2, K_SPLIT, offset, WRB_P(MPI_Offset offset,), (fh, offset, buf, count, datatype), )
MPIW(MPI_File_write_ordered_begin, 2, K_SPLIT, -1, WRB_P(), (fh, buf, count, datatype), )

/* ---- HDF5 ------------------------------------------------------------------------------- */

#define HNEXT(f) static __typeof__(f) *next_##f
#define HRESOLVE(f)                                                                            \
    do {                                                                                       \
        if (!next_##f) next_##f = (__typeof__(next_##f))sym(#f);                              \
    } while (0)
/* the helpers the library calls: HDF5's own, found in the global scope */
#define HCALL(f) ((__typeof__(f) *)dlsym(RTLD_DEFAULT, #f))
HNEXT(H5Fcreate);
HNEXT(H5Fopen);
HNEXT(H5Fflush);
HNEXT(H5Fclose);
HNEXT(H5Gcreate2);
HNEXT(H5Gopen2);
HNEXT(H5Gclose);
HNEXT(H5Oopen);
HNEXT(H5Oclose);
HNEXT(H5Dcreate2);
HNEXT(H5Dopen2);
HNEXT(H5Dwrite);
HNEXT(H5Dread);
HNEXT(H5Dset_extent);
HNEXT(H5Dclose);
HNEXT(H5Acreate2);
HNEXT(H5Awrite);
#ifndef H5_NO_DEPRECATED_SYMBOLS
HNEXT(H5Dcreate1);
HNEXT(H5Dopen1);
#endif
/* HDF5 1.14's multi-dataset transfers: wrapped only when the headers have them, so a build
 * against 1.10 neither defines nor needs the symbols. */
#if H5_VERSION_GE(1, 14, 0)
#define HAVE_H5D_MULTI 1
HNEXT(H5Dwrite_multi);
HNEXT(H5Dread_multi);
#endif

/* HDF5 functions the library calls for names, spaces and properties, resolved once. */
static struct {
    __typeof__(H5get_libversion) *get_libversion;
    __typeof__(H5Fget_name) *Fget_name;
    __typeof__(H5Iget_name) *Iget_name;
    __typeof__(H5Iget_ref) *Iget_ref;
    __typeof__(H5Dget_space) *Dget_space;
    __typeof__(H5Dget_type) *Dget_type;
    __typeof__(H5Dget_create_plist) *Dget_create_plist;
    __typeof__(H5Sget_simple_extent_ndims) *Sget_simple_extent_ndims;
    __typeof__(H5Sget_simple_extent_dims) *Sget_simple_extent_dims;
    __typeof__(H5Sget_simple_extent_npoints) *Sget_simple_extent_npoints;
    __typeof__(H5Sget_select_npoints) *Sget_select_npoints;
    __typeof__(H5Sget_select_type) *Sget_select_type;
    __typeof__(H5Sis_regular_hyperslab) *Sis_regular_hyperslab;
    __typeof__(H5Sget_regular_hyperslab) *Sget_regular_hyperslab;
    __typeof__(H5Sclose) *Sclose;
    __typeof__(H5Tget_size) *Tget_size;
    __typeof__(H5Tget_class) *Tget_class;
    __typeof__(H5Tget_sign) *Tget_sign;
    __typeof__(H5Pget_filter2) *Pget_filter2;
    __typeof__(H5Tclose) *Tclose;
    __typeof__(H5Pget_layout) *Pget_layout;
    __typeof__(H5Pget_chunk) *Pget_chunk;
    __typeof__(H5Pget_nfilters) *Pget_nfilters;
    __typeof__(H5Pget_driver) *Pget_driver;
    __typeof__(H5Pget_alignment) *Pget_alignment;
    __typeof__(H5Pget_all_coll_metadata_ops) *Pget_all_coll_metadata_ops;
    __typeof__(H5Pget_coll_metadata_write) *Pget_coll_metadata_write;
    __typeof__(H5Pget_dxpl_mpio) *Pget_dxpl_mpio;
    __typeof__(H5Pclose) *Pclose;
    __typeof__(H5FD_mpio_init) *FD_mpio_init;
    __typeof__(H5Eget_auto2) *Eget_auto2;
    __typeof__(H5Eset_auto2) *Eset_auto2;
    __typeof__(H5Sget_select_hyper_nblocks) *Sget_select_hyper_nblocks;
    __typeof__(H5Sget_select_hyper_blocklist) *Sget_select_hyper_blocklist;
    __typeof__(H5Aget_name) *Aget_name;
    __typeof__(H5Aget_space) *Aget_space;
    __typeof__(H5Aget_type) *Aget_type;
    __typeof__(H5Tis_variable_str) *Tis_variable_str;
    __typeof__(H5Tget_strpad) *Tget_strpad;
    __typeof__(H5Tget_cset) *Tget_cset;
    __typeof__(H5Pget_fill_time) *Pget_fill_time;
    __typeof__(H5Pget_alloc_time) *Pget_alloc_time;
    __typeof__(H5Pfill_value_defined) *Pfill_value_defined;
    __typeof__(H5Pget_fill_value) *Pget_fill_value;
    __typeof__(H5Pget_libver_bounds) *Pget_libver_bounds;
    __typeof__(H5Pget_fapl_mpio) *Pget_fapl_mpio;
    __typeof__(H5Tget_nmembers) *Tget_nmembers;
    __typeof__(H5Tget_member_name) *Tget_member_name;
    __typeof__(H5Tget_member_type) *Tget_member_type;
    __typeof__(H5Tget_member_offset) *Tget_member_offset;
    __typeof__(H5free_memory) *free_memory;
} h5;

/* hdf5_active resolves HDF5's helpers and checks the program's HDF5 against the build's on
 * the first HDF5 call; a mismatch is reported once and HDF5 calls then pass through. */
static int hdf5_active(void) {
    if (!active()) return 0;
    if (hdf5_checked) return hdf5_ok;
    pthread_mutex_lock(&h5check);
    if (!hdf5_checked) {
        inside++;
#define R(field, name) h5.field = HCALL(name)
        R(get_libversion, H5get_libversion);
        R(Fget_name, H5Fget_name);
        R(Iget_name, H5Iget_name);
        R(Iget_ref, H5Iget_ref);
        R(Dget_space, H5Dget_space);
        R(Dget_type, H5Dget_type);
        R(Dget_create_plist, H5Dget_create_plist);
        R(Sget_simple_extent_ndims, H5Sget_simple_extent_ndims);
        R(Sget_simple_extent_dims, H5Sget_simple_extent_dims);
        R(Sget_simple_extent_npoints, H5Sget_simple_extent_npoints);
        R(Sget_select_npoints, H5Sget_select_npoints);
        R(Sget_select_type, H5Sget_select_type);
        R(Sis_regular_hyperslab, H5Sis_regular_hyperslab);
        R(Sget_regular_hyperslab, H5Sget_regular_hyperslab);
        R(Sclose, H5Sclose);
        R(Tget_size, H5Tget_size);
        R(Tget_class, H5Tget_class);
        R(Tget_sign, H5Tget_sign);
        R(Pget_filter2, H5Pget_filter2);
        R(Tclose, H5Tclose);
        R(Pget_layout, H5Pget_layout);
        R(Pget_chunk, H5Pget_chunk);
        R(Pget_nfilters, H5Pget_nfilters);
        R(Pget_driver, H5Pget_driver);
        R(Pget_alignment, H5Pget_alignment);
        R(Pget_all_coll_metadata_ops, H5Pget_all_coll_metadata_ops);
        R(Pget_coll_metadata_write, H5Pget_coll_metadata_write);
        R(Pget_dxpl_mpio, H5Pget_dxpl_mpio);
        R(Pclose, H5Pclose);
        R(FD_mpio_init, H5FD_mpio_init);
        R(Eget_auto2, H5Eget_auto2);
        R(Eset_auto2, H5Eset_auto2);
        R(Sget_select_hyper_nblocks, H5Sget_select_hyper_nblocks);
        R(Sget_select_hyper_blocklist, H5Sget_select_hyper_blocklist);
        R(Aget_name, H5Aget_name);
        R(Aget_space, H5Aget_space);
        R(Aget_type, H5Aget_type);
        R(Tis_variable_str, H5Tis_variable_str);
        R(Tget_strpad, H5Tget_strpad);
        R(Tget_cset, H5Tget_cset);
        R(Pget_fill_time, H5Pget_fill_time);
        R(Pget_alloc_time, H5Pget_alloc_time);
        R(Pfill_value_defined, H5Pfill_value_defined);
        R(Pget_fill_value, H5Pget_fill_value);
        R(Pget_libver_bounds, H5Pget_libver_bounds);
        R(Pget_fapl_mpio, H5Pget_fapl_mpio);
        R(Tget_nmembers, H5Tget_nmembers);
        R(Tget_member_name, H5Tget_member_name);
        R(Tget_member_type, H5Tget_member_type);
        R(Tget_member_offset, H5Tget_member_offset);
        R(free_memory, H5free_memory);
#undef R
        unsigned maj = 0, min = 0, rel = 0;
        int complete = 1;
        for (size_t i = 0; i < sizeof h5 / sizeof(void *); i++)
            if (!((void **)&h5)[i]) complete = 0;
        if (complete) h5.get_libversion(&maj, &min, &rel);
        snprintf(hdf5_version, sizeof hdf5_version, "%u.%u.%u", maj, min, rel);
        if (!complete || maj != EXPECT_HDF5_MAJOR || min != EXPECT_HDF5_MINOR) {
            hdf5_ok = 0;
            say("h5proxy-profile: this program's HDF5 is %s, not the %d.%d.%d (parallel) the profiler was "
                "built with: HDF5 calls are not recorded (rebuild libh5proxy-profile.so against this HDF5)\n",
                complete ? hdf5_version : "missing parallel functions", EXPECT_HDF5_MAJOR, EXPECT_HDF5_MINOR,
                H5_VERS_RELEASE);
        }
        hdf5_checked = 1;
        inside--;
    }
    pthread_mutex_unlock(&h5check);
    return hdf5_ok;
}

/* Silence HDF5's error stack while the library asks questions that may fail. */
struct quiet {
    H5E_auto2_t f;
    void *d;
};
static void quiet_on(struct quiet *q) {
    h5.Eget_auto2(H5E_DEFAULT, &q->f, &q->d);
    h5.Eset_auto2(H5E_DEFAULT, NULL, NULL);
}
static void quiet_off(struct quiet *q) { h5.Eset_auto2(H5E_DEFAULT, q->f, q->d); }

static void file_name(hid_t id, char *out, size_t len) {
    char name[PATH_MAX];
    ssize_t n = h5.Fget_name(id, name, sizeof name);
    if (n <= 0 || (size_t)n >= sizeof name) snprintf(name, sizeof name, "<unknown>");
    absolute(name, out, len);
}

/* A growing JSON text for traced events (never used by the crash path). */
struct jb {
    char *p;
    size_t n, cap;
    int bad;
};
static void jb_printf(struct jb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jb_printf(struct jb *b, const char *fmt, ...) {
    if (b->bad) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->bad = 1;
            return;
        }
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap : 256;
        while (cap <= b->n + (size_t)k) cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->bad = 1;
            return;
        }
        b->p = q, b->cap = cap;
    }
}
/* jb_str appends s as a JSON string. */
static void jb_str(struct jb *b, const char *s) {
    jb_printf(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') jb_printf(b, "\\%c", c);
        else if (c < 0x20) jb_printf(b, "\\u%04x", c);
        else jb_printf(b, "%c", c);
    }
    jb_printf(b, "\"");
}
static void jb_hex(struct jb *b, const void *buf, size_t n) {
    jb_printf(b, "\"");
    for (size_t i = 0; i < n; i++) jb_printf(b, "%02x", ((const unsigned char *)buf)[i]);
    jb_printf(b, "\"");
}
/* jb_done returns the text (owned by the caller), or NULL when it could not be built. */
static char *jb_done(struct jb *b) {
    if (b->bad) {
        free(b->p);
        return NULL;
    }
    return b->p;
}

PNEXT(MPI_Info_get_nkeys);
PNEXT(MPI_Info_get_nthkey);
PNEXT(MPI_Info_get_valuelen);
PNEXT(MPI_Info_get);
PNEXT(MPI_Info_free);
PNEXT(MPI_Comm_free);

/* fapl_hints appends the MPI-IO hints an MPI-IO file access list carries (the info object
 * of H5Pset_fapl_mpio) as "hints":{KEY:VALUE,...}, for capture. */
static void fapl_hints(struct jb *b, hid_t fapl) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Info info = MPI_INFO_NULL;
    if (!mpi_initialized || !mpi_ok || h5.Pget_fapl_mpio(fapl, &comm, &info) < 0) return; /* inside the library: not mpi_active() */
    PRESOLVE(MPI_Info_get_nkeys);
    PRESOLVE(MPI_Info_get_nthkey);
    PRESOLVE(MPI_Info_get_valuelen);
    PRESOLVE(MPI_Info_get);
    PRESOLVE(MPI_Info_free);
    PRESOLVE(MPI_Comm_free);
    int n = 0;
    if (info != MPI_INFO_NULL) next_MPI_Info_get_nkeys(info, &n);
    jb_printf(b, ",\"hints\":{");
    for (int i = 0, first = 1; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[1024];
        int len = 0, flag = 0;
        if (next_MPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS) continue;
        if (next_MPI_Info_get_valuelen(info, key, &len, &flag) != MPI_SUCCESS || !flag || len >= (int)sizeof val) continue;
        if (next_MPI_Info_get(info, key, (int)sizeof val - 1, val, &flag) != MPI_SUCCESS || !flag) continue;
        val[len] = 0;
        jb_printf(b, "%s", first ? "" : ",");
        jb_str(b, key);
        jb_printf(b, ":");
        jb_str(b, val);
        first = 0;
    }
    jb_printf(b, "}");
    if (info != MPI_INFO_NULL) next_MPI_Info_free(&info);
    if (comm != MPI_COMM_NULL) next_MPI_Comm_free(&comm);
}

static void h5f_opened(int call, hid_t id, const char *path, hid_t fapl, int64_t t1, int64_t t2) {
    char abs[PATH_MAX];
    absolute(path, abs, sizeof abs);
    struct quiet q;
    quiet_on(&q);
    int mpio = 0;
    hsize_t thr = 0, al = 0;
    hbool_t cmops = 0, cmwrite = 0;
    H5F_libver_t low = H5F_LIBVER_EARLIEST, high = H5F_LIBVER_LATEST;
    if (fapl != H5P_DEFAULT) {
        mpio = h5.Pget_driver(fapl) == h5.FD_mpio_init();
        h5.Pget_alignment(fapl, &thr, &al);
        h5.Pget_all_coll_metadata_ops(fapl, &cmops);
        h5.Pget_coll_metadata_write(fapl, &cmwrite);
        h5.Pget_libver_bounds(fapl, &low, &high);
    }
    struct jb b = {0};
    jb_printf(&b,
              "{\"driver\":\"%s\",\"alignment_threshold\":%llu,\"alignment\":%llu,\"coll_metadata_ops\":%s,"
              "\"coll_metadata_write\":%s,\"libver\":[%d,%d],\"libver_latest\":%s",
              mpio ? "mpio" : "other", (unsigned long long)thr, (unsigned long long)al, cmops ? "true" : "false",
              cmwrite ? "true" : "false", (int)low, (int)high,
              low == H5F_LIBVER_LATEST && high == H5F_LIBVER_LATEST ? "true" : "false");
    if (mpio && trace_on) fapl_hints(&b, fapl);
    jb_printf(&b, "}");
    char *info = jb_done(&b);
    /* Traced, each open's event carries its own access list (the record's info is the last
     * open's): capture tells a serial creation on one rank from the shared opens after it. */
    char *fx = NULL;
    if (trace_on) {
        struct jb e = {0};
        jb_printf(&e, "\"fapl\":{\"driver\":\"%s\",\"coll_metadata_ops\":%s,\"coll_metadata_write\":%s}",
                  mpio ? "mpio" : "other", cmops ? "true" : "false", cmwrite ? "true" : "false");
        fx = jb_done(&e);
    }
    quiet_off(&q);
    pthread_mutex_lock(&lock);
    call_n[call]++;
    call_ns[call] += t2 - t1;
    struct record *r = record_get(M_H5F, abs, NULL);
    if (r) {
        r->c[H5F_OPENS]++;
        if (mpio) r->c[H5F_USE_MPIIO] = 1;
        first_last(&r->f[H5F_F_OPEN_START_TIMESTAMP], &r->f[H5F_F_OPEN_END_TIMESTAMP], t1, t2);
        r->f[H5F_F_META_TIME] += t2 - t1;
        free(r->info);
        r->info = info;
        info = NULL;
        hm_put(&h5files, (uint64_t)id, r);
        event_add_extra(r, call, t1, t2, fx);
        fx = NULL;
    }
    pthread_mutex_unlock(&lock);
    free(info);
    free(fx);
}

hid_t H5Fcreate(const char *name, unsigned flags, hid_t fcpl, hid_t fapl) {
    HRESOLVE(H5Fcreate);
    if (!hdf5_active()) return next_H5Fcreate(name, flags, fcpl, fapl);
    int64_t t1 = now_ns();
    hid_t id = next_H5Fcreate(name, flags, fcpl, fapl);
    int64_t t2 = now_ns();
    if (id >= 0) {
        inside++;
        h5f_opened(C_H5Fcreate, id, name, fapl, t1, t2);
        inside--;
    }
    return id;
}
hid_t H5Fopen(const char *name, unsigned flags, hid_t fapl) {
    HRESOLVE(H5Fopen);
    if (!hdf5_active()) return next_H5Fopen(name, flags, fapl);
    int64_t t1 = now_ns();
    hid_t id = next_H5Fopen(name, flags, fapl);
    int64_t t2 = now_ns();
    if (id >= 0) {
        inside++;
        h5f_opened(C_H5Fopen, id, name, fapl, t1, t2);
        inside--;
    }
    return id;
}

/* The file record of any identifier in a file: the identifiers H5Fcreate and H5Fopen
 * returned map directly; any other (an object, or a file identifier from H5Iget_file_id)
 * through the file's name. */
static struct record *h5f_of(hid_t id) {
    struct record *r = hm_get(&h5files, (uint64_t)id);
    if (r) return r;
    char abs[PATH_MAX];
    pthread_mutex_unlock(&lock);
    struct quiet q;
    quiet_on(&q);
    file_name(id, abs, sizeof abs);
    quiet_off(&q);
    pthread_mutex_lock(&lock);
    return record_get(M_H5F, abs, NULL);
}

herr_t H5Fflush(hid_t id, H5F_scope_t scope) {
    HRESOLVE(H5Fflush);
    if (!hdf5_active()) return next_H5Fflush(id, scope);
    int64_t t1 = now_ns();
    herr_t ret = next_H5Fflush(id, scope);
    int64_t t2 = now_ns();
    if (ret >= 0) {
        inside++;
        pthread_mutex_lock(&lock);
        call_n[C_H5Fflush]++;
        call_ns[C_H5Fflush] += t2 - t1;
        struct record *r = h5f_of(id);
        if (r) {
            r->c[H5F_FLUSHES]++;
            r->f[H5F_F_META_TIME] += t2 - t1;
            event_add(r, C_H5Fflush, -1, 0, t1, t2, 0, NULL);
        }
        pthread_mutex_unlock(&lock);
        inside--;
    }
    return ret;
}

/* refs is the identifier's reference count before a close: H5Iget_file_id returns the
 * open file's own identifier with one more reference (and H5Iinc_ref adds one), so a close
 * that leaves references behind only releases one. */
static int refs(hid_t id) {
    inside++;
    struct quiet q;
    quiet_on(&q);
    int n = h5.Iget_ref(id);
    quiet_off(&q);
    inside--;
    return n;
}

/* H5Fclose ends a file's record only when it closes the file's identifier for good: a
 * reference taken with H5Iget_file_id and released with H5Fclose leaves the file open (its
 * record goes on: a later flush or close is the file's). */
herr_t H5Fclose(hid_t id) {
    HRESOLVE(H5Fclose);
    if (!hdf5_active()) return next_H5Fclose(id);
    int n = refs(id);
    int64_t t1 = now_ns();
    herr_t ret = next_H5Fclose(id);
    int64_t t2 = now_ns();
    pthread_mutex_lock(&lock);
    call_n[C_H5Fclose]++;
    call_ns[C_H5Fclose] += t2 - t1;
    if (ret >= 0 && n <= 1) {
        struct record *r = hm_del(&h5files, (uint64_t)id);
        if (r) {
            first_last(&r->f[H5F_F_CLOSE_START_TIMESTAMP], &r->f[H5F_F_CLOSE_END_TIMESTAMP], t1, t2);
            r->f[H5F_F_META_TIME] += t2 - t1;
            event_add(r, C_H5Fclose, -1, 0, t1, t2, 0, NULL);
        }
    }
    pthread_mutex_unlock(&lock);
    return ret;
}

/* Attribute values up to this many bytes are kept in the trace (names, types and shapes
 * always): enough for units, long names, fill values and small arrays. */
#define ATTR_VALUE_MAX 4096

/* members_str writes `,"PREFIXmembers":[[name,class,size,sign,offset],...]` for a compound
 * datatype of at most 64 members (capture rebuilds it as a description's compound type;
 * sign is -1 but for integers), or "" for other types and longer lists. */
static void members_str(hid_t t, const char *prefix, char *out, size_t len) {
    out[0] = 0;
    if (h5.Tget_class(t) != H5T_COMPOUND) return;
    int n = h5.Tget_nmembers(t);
    if (n <= 0 || n > 64) return;
    size_t o = (size_t)snprintf(out, len, ",\"%smembers\":[", prefix);
    for (int i = 0; i < n && o < len; i++) {
        char *name = h5.Tget_member_name(t, (unsigned)i);
        hid_t mt = h5.Tget_member_type(t, (unsigned)i);
        int cls = mt >= 0 ? (int)h5.Tget_class(mt) : -1;
        int sign = cls == H5T_INTEGER ? (int)h5.Tget_sign(mt) : -1;
        size_t size = mt >= 0 ? h5.Tget_size(mt) : 0;
        if (mt >= 0) h5.Tclose(mt);
        char safe[256] = "";
        for (size_t k = 0; name && name[k] && k < sizeof safe - 1; k++)
            safe[k] = name[k] == '"' || name[k] == '\\' || (unsigned char)name[k] < 0x20 ? '_' : name[k], safe[k + 1] = 0;
        if (name) h5.free_memory(name);
        o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%s[\"%s\",%d,%zu,%d,%zu]", i ? "," : "", safe, cls, size, sign,
                              h5.Tget_member_offset(t, (unsigned)i));
    }
    if (o + 2 >= len) {
        out[0] = 0; /* too long for the buffer: left out */
        return;
    }
    snprintf(out + o, len - o, "]");
}

/* type_json appends a datatype's class, size, sign (integers), and for strings the padding,
 * character set and whether it is variable-length, as members named PREFIX_class ... */
static void type_json(struct jb *b, const char *prefix, hid_t t) {
    int cls = (int)h5.Tget_class(t);
    jb_printf(b, "\"%sclass\":%d,\"%ssize\":%zu", prefix, cls, prefix, h5.Tget_size(t));
    if (cls == H5T_INTEGER) jb_printf(b, ",\"%ssign\":%d", prefix, (int)h5.Tget_sign(t));
    if (cls == H5T_STRING)
        jb_printf(b, ",\"%sstr_pad\":%d,\"%scset\":%d,\"%svlen\":%s", prefix, (int)h5.Tget_strpad(t), prefix,
                  (int)h5.Tget_cset(t), prefix, h5.Tis_variable_str(t) > 0 ? "true" : "false");
    if (cls == H5T_COMPOUND) {
        char m[4096];
        members_str(t, prefix, m, sizeof m);
        jb_printf(b, "%s", m);
    }
}

/* attr_json describes an attribute for the trace: "attribute":{object (the path of the
 * object it hangs on), name, its file type, dims ([] scalar) and, given the memory type and
 * buffer of an H5Awrite, the memory type and the value's bytes in hex when they are few and
 * not variable-length}. Called outside the lock. */
static char *attr_json(hid_t attr, hid_t mtype, const void *buf) {
    struct quiet q;
    quiet_on(&q);
    char obj[1024], name[512];
    ssize_t n = h5.Iget_name(attr, obj, sizeof obj);
    if (n <= 0 || (size_t)n >= sizeof obj) snprintf(obj, sizeof obj, "<anonymous>");
    n = h5.Aget_name(attr, sizeof name, name);
    if (n <= 0 || (size_t)n >= sizeof name) snprintf(name, sizeof name, "<unknown>");
    struct jb b = {0};
    jb_printf(&b, "\"attribute\":{\"object\":");
    jb_str(&b, obj);
    jb_printf(&b, ",\"name\":");
    jb_str(&b, name);
    hid_t t = h5.Aget_type(attr);
    if (t >= 0) {
        jb_printf(&b, ",");
        type_json(&b, "type_", t);
        h5.Tclose(t);
    }
    hid_t s = h5.Aget_space(attr);
    hssize_t npoints = 0;
    if (s >= 0) {
        hsize_t dims[H5S_MAX_RANK];
        int nd = h5.Sget_simple_extent_ndims(s);
        if (nd < 0 || nd > H5S_MAX_RANK) nd = 0;
        if (nd > 0) h5.Sget_simple_extent_dims(s, dims, NULL);
        npoints = h5.Sget_simple_extent_npoints(s);
        jb_printf(&b, ",\"dims\":[");
        for (int i = 0; i < nd; i++) jb_printf(&b, "%s%llu", i ? "," : "", (unsigned long long)dims[i]);
        jb_printf(&b, "]");
        h5.Sclose(s);
    }
    if (mtype >= 0) {
        jb_printf(&b, ",");
        type_json(&b, "mem_", mtype);
        int vlen = h5.Tget_class(mtype) == H5T_VLEN ||
                   (h5.Tget_class(mtype) == H5T_STRING && h5.Tis_variable_str(mtype) > 0);
        size_t bytes = (size_t)(npoints > 0 ? npoints : 0) * h5.Tget_size(mtype);
        if (buf && !vlen && bytes <= ATTR_VALUE_MAX) {
            jb_printf(&b, ",\"value\":");
            jb_hex(&b, buf, bytes);
        }
    }
    jb_printf(&b, "}");
    quiet_off(&q);
    return jb_done(&b);
}

/* Groups and attributes have no Darshan module: their calls count in the call table and,
 * traced, as events of the file's record; extra (owned) adds members to the event. */
static void h5_other_extra(int call, hid_t loc, int64_t t1, int64_t t2, char *extra) {
    inside++;
    pthread_mutex_lock(&lock);
    call_n[call]++;
    call_ns[call] += t2 - t1;
    struct record *r = trace_on ? h5f_of(loc) : NULL;
    if (r) event_add_extra(r, call, t1, t2, extra);
    else free(extra);
    pthread_mutex_unlock(&lock);
    inside--;
}

/* object_json is "object":PATH, the path HDF5 names an open group or object by, for the
 * trace of group and object opens and closes (capture reads how a code holds its objects:
 * opened per call, attributes through H5Oopen, parents opened around creates). */
static char *object_json(hid_t id) {
    struct quiet q;
    quiet_on(&q);
    char obj[1024];
    ssize_t n = h5.Iget_name(id, obj, sizeof obj);
    if (n <= 0 || (size_t)n >= sizeof obj) snprintf(obj, sizeof obj, "<anonymous>");
    quiet_off(&q);
    struct jb b = {0};
    jb_printf(&b, "\"object\":");
    jb_str(&b, obj);
    return jb_done(&b);
}

/* h5_opened counts an open (or create) of a group or object; traced, its event names it. */
static void h5_opened(int call, hid_t id, int64_t t1, int64_t t2) {
    char *extra = NULL;
    if (trace_on) {
        inside++;
        extra = object_json(id);
        inside--;
    }
    h5_other_extra(call, id, t1, t2, extra);
}

/* h5_close closes a group or object with next: traced, its name and file are taken before
 * the close (the identifier means nothing after it); untraced, the call is only counted. */
static herr_t h5_close(int call, herr_t (*next)(hid_t), hid_t id) {
    char file[PATH_MAX];
    char *extra = NULL;
    if (trace_on) {
        inside++;
        struct quiet q;
        quiet_on(&q);
        file_name(id, file, sizeof file);
        quiet_off(&q);
        extra = object_json(id);
        inside--;
    }
    int64_t t1 = now_ns();
    herr_t ret = next(id);
    int64_t t2 = now_ns();
    inside++;
    pthread_mutex_lock(&lock);
    call_n[call]++;
    call_ns[call] += t2 - t1;
    struct record *r = extra && ret >= 0 ? record_get(M_H5F, file, NULL) : NULL;
    if (r) event_add_extra(r, call, t1, t2, extra);
    else free(extra);
    pthread_mutex_unlock(&lock);
    inside--;
    return ret;
}

hid_t H5Gcreate2(hid_t loc, const char *name, hid_t lcpl, hid_t gcpl, hid_t gapl) {
    HRESOLVE(H5Gcreate2);
    if (!hdf5_active()) return next_H5Gcreate2(loc, name, lcpl, gcpl, gapl);
    int64_t t1 = now_ns();
    hid_t id = next_H5Gcreate2(loc, name, lcpl, gcpl, gapl);
    if (id >= 0) h5_opened(C_H5Gcreate2, id, t1, now_ns());
    return id;
}
hid_t H5Gopen2(hid_t loc, const char *name, hid_t gapl) {
    HRESOLVE(H5Gopen2);
    if (!hdf5_active()) return next_H5Gopen2(loc, name, gapl);
    int64_t t1 = now_ns();
    hid_t id = next_H5Gopen2(loc, name, gapl);
    if (id >= 0) h5_opened(C_H5Gopen2, id, t1, now_ns());
    return id;
}
herr_t H5Gclose(hid_t id) {
    HRESOLVE(H5Gclose);
    if (!hdf5_active()) return next_H5Gclose(id);
    return h5_close(C_H5Gclose, next_H5Gclose, id);
}
hid_t H5Oopen(hid_t loc, const char *name, hid_t lapl) {
    HRESOLVE(H5Oopen);
    if (!hdf5_active()) return next_H5Oopen(loc, name, lapl);
    int64_t t1 = now_ns();
    hid_t id = next_H5Oopen(loc, name, lapl);
    if (id >= 0) h5_opened(C_H5Oopen, id, t1, now_ns());
    return id;
}
herr_t H5Oclose(hid_t id) {
    HRESOLVE(H5Oclose);
    if (!hdf5_active()) return next_H5Oclose(id);
    return h5_close(C_H5Oclose, next_H5Oclose, id);
}
hid_t H5Acreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t acpl, hid_t aapl) {
    HRESOLVE(H5Acreate2);
    if (!hdf5_active()) return next_H5Acreate2(loc, name, type, space, acpl, aapl);
    int64_t t1 = now_ns();
    hid_t id = next_H5Acreate2(loc, name, type, space, acpl, aapl);
    int64_t t2 = now_ns();
    if (id >= 0) {
        inside++;
        char *extra = trace_on ? attr_json(id, -1, NULL) : NULL;
        inside--;
        h5_other_extra(C_H5Acreate2, id, t1, t2, extra);
    }
    return id;
}
herr_t H5Awrite(hid_t attr, hid_t type, const void *buf) {
    HRESOLVE(H5Awrite);
    if (!hdf5_active()) return next_H5Awrite(attr, type, buf);
    int64_t t1 = now_ns();
    herr_t ret = next_H5Awrite(attr, type, buf);
    int64_t t2 = now_ns();
    if (ret >= 0) {
        inside++;
        char *extra = trace_on ? attr_json(attr, type, buf) : NULL;
        inside--;
        h5_other_extra(C_H5Awrite, attr, t1, t2, extra);
    }
    return ret;
}

/* h5d_opened records a dataset create or open: its record is (file, path in the file). */
static void h5d_opened(int call, hid_t id, int deprecated, int64_t t1, int64_t t2) {
    inside++;
    struct quiet q;
    quiet_on(&q);
    char file[PATH_MAX], name[1024], info[4096], members[2048] = "";
    file_name(id, file, sizeof file);
    ssize_t n = h5.Iget_name(id, name, sizeof name);
    if (n <= 0 || (size_t)n >= sizeof name) snprintf(name, sizeof name, "<anonymous>");
    int ndims = 0;
    hssize_t npoints = 0;
    size_t tsize = 0;
    int tclass = -1, tsign = -1, layout = -1, nfilters = 0;
    int filter_id[8] = {0};
    unsigned filter_cd0[8] = {0};
    hsize_t dims[H5S_MAX_RANK] = {0}, maxdims[H5S_MAX_RANK] = {0}, chunk[H5S_MAX_RANK] = {0};
    int fill_time = -1, alloc_time = -1;
    H5D_fill_value_t fill_def = H5D_FILL_VALUE_ERROR;
    unsigned char fill[16]; /* a user fill value of an atomic type, for capture */
    int fill_n = 0;
    hid_t s = h5.Dget_space(id);
    if (s >= 0) {
        ndims = h5.Sget_simple_extent_ndims(s);
        npoints = h5.Sget_simple_extent_npoints(s);
        if (ndims > 0) h5.Sget_simple_extent_dims(s, dims, maxdims);
        h5.Sclose(s);
    }
    hid_t t = h5.Dget_type(id);
    if (t >= 0) {
        tsize = h5.Tget_size(t);
        tclass = (int)h5.Tget_class(t);
        if (tclass == H5T_INTEGER) tsign = (int)h5.Tget_sign(t);
        members_str(t, "type_", members, sizeof members);
        h5.Tclose(t);
    }
    hid_t p = h5.Dget_create_plist(id);
    if (p >= 0) {
        layout = (int)h5.Pget_layout(p);
        if (layout == H5D_CHUNKED && ndims > 0) h5.Pget_chunk(p, H5S_MAX_RANK, chunk);
        nfilters = h5.Pget_nfilters(p);
        H5D_fill_time_t ft;
        H5D_alloc_time_t at;
        if (h5.Pget_fill_time(p, &ft) >= 0) fill_time = (int)ft;
        if (h5.Pget_alloc_time(p, &at) >= 0) alloc_time = (int)at;
        if (h5.Pfill_value_defined(p, &fill_def) < 0) fill_def = H5D_FILL_VALUE_ERROR;
        if (fill_def == H5D_FILL_VALUE_USER_DEFINED && tsize > 0 && tsize <= sizeof fill &&
            (tclass == H5T_INTEGER || tclass == H5T_FLOAT)) {
            hid_t ft2 = h5.Dget_type(id);
            if (ft2 >= 0) {
                if (h5.Pget_fill_value(p, ft2, fill) >= 0) fill_n = (int)tsize;
                h5.Tclose(ft2);
            }
        }
        for (int i = 0; i < nfilters && i < 8; i++) {
            unsigned flags = 0, cd[4] = {0}, config = 0;
            size_t ncd = 4;
            char fname[64];
            filter_id[i] = (int)h5.Pget_filter2(p, (unsigned)i, &flags, &ncd, cd, sizeof fname, fname, &config);
            filter_cd0[i] = ncd > 0 ? cd[0] : 0;
        }
        h5.Pclose(p);
    }
    quiet_off(&q);
    if (ndims < 0) ndims = 0;
    int o = snprintf(info, sizeof info,
                     "{\"type_class\":%d,\"type_size\":%zu,\"type_sign\":%d,\"layout\":%d,\"filters\":%d,\"filter_ids\":[",
                     tclass, tsize, tsign, layout, nfilters);
    for (int i = 0; i < nfilters && i < 8; i++)
        o += snprintf(info + o, sizeof info - (size_t)o, "%s[%d,%u]", i ? "," : "", filter_id[i], filter_cd0[i]);
    o += snprintf(info + o, sizeof info - (size_t)o, "],\"dims\":[");
    for (int i = 0; i < ndims && o < (int)sizeof info - 64; i++)
        o += snprintf(info + o, sizeof info - (size_t)o, "%s%llu", i ? "," : "", (unsigned long long)dims[i]);
    o += snprintf(info + o, sizeof info - (size_t)o, "],\"maxdims\":[");
    for (int i = 0; i < ndims && o < (int)sizeof info - 64; i++)
        o += snprintf(info + o, sizeof info - (size_t)o, "%s%lld", i ? "," : "",
                      maxdims[i] == H5S_UNLIMITED ? -1LL : (long long)maxdims[i]);
    o += snprintf(info + o, sizeof info - (size_t)o, "],\"chunk\":[");
    for (int i = 0; layout == H5D_CHUNKED && i < ndims && o < (int)sizeof info - 32; i++)
        o += snprintf(info + o, sizeof info - (size_t)o, "%s%llu", i ? "," : "", (unsigned long long)chunk[i]);
    o += snprintf(info + o, sizeof info - (size_t)o, "],\"fill_time\":%d,\"alloc_time\":%d,\"fill_defined\":%d,\"fill_value\":\"",
                  fill_time, alloc_time, (int)fill_def);
    for (int i = 0; i < fill_n && o < (int)sizeof info - 8; i++)
        o += snprintf(info + o, sizeof info - (size_t)o, "%02x", fill[i]);
    o += snprintf(info + o, sizeof info - (size_t)o, "\"");
    if (o + strlen(members) < sizeof info - 2) o += snprintf(info + o, sizeof info - (size_t)o, "%s", members);
    if (o < (int)sizeof info - 2) snprintf(info + o, sizeof info - (size_t)o, "}");
    pthread_mutex_lock(&lock);
    call_n[call]++;
    call_ns[call] += t2 - t1;
    struct record *r = record_get(M_H5D, file, name);
    if (r) {
        int64_t *c = r->c;
        c[H5D_OPENS]++;
        c[H5D_DATASPACE_NDIMS] = ndims;
        c[H5D_DATASPACE_NPOINTS] = npoints;
        c[H5D_DATATYPE_SIZE] = (int64_t)tsize;
        for (int i = 0; i < 5 && i < ndims; i++)
            c[H5D_CHUNK_SIZE_D1 + i] = layout == H5D_CHUNKED ? (int64_t)chunk[ndims - 1 - i] : 0;
        if (deprecated) c[H5D_USE_DEPRECATED] = 1;
        first_last(&r->f[H5D_F_OPEN_START_TIMESTAMP], &r->f[H5D_F_OPEN_END_TIMESTAMP], t1, t2);
        r->f[H5D_F_META_TIME] += t2 - t1;
        free(r->info);
        r->info = strdup(info);
        hm_put(&h5dsets, (uint64_t)id, r);
        event_add(r, call, -1, 0, t1, t2, 0, NULL);
    }
    pthread_mutex_unlock(&lock);
    inside--;
}

hid_t H5Dcreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t lcpl, hid_t dcpl, hid_t dapl) {
    HRESOLVE(H5Dcreate2);
    if (!hdf5_active()) return next_H5Dcreate2(loc, name, type, space, lcpl, dcpl, dapl);
    int64_t t1 = now_ns();
    hid_t id = next_H5Dcreate2(loc, name, type, space, lcpl, dcpl, dapl);
    if (id >= 0) h5d_opened(C_H5Dcreate2, id, 0, t1, now_ns());
    return id;
}
hid_t H5Dopen2(hid_t loc, const char *name, hid_t dapl) {
    HRESOLVE(H5Dopen2);
    if (!hdf5_active()) return next_H5Dopen2(loc, name, dapl);
    int64_t t1 = now_ns();
    hid_t id = next_H5Dopen2(loc, name, dapl);
    if (id >= 0) h5d_opened(C_H5Dopen2, id, 0, t1, now_ns());
    return id;
}
#ifndef H5_NO_DEPRECATED_SYMBOLS
hid_t H5Dcreate1(hid_t loc, const char *name, hid_t type, hid_t space, hid_t dcpl) {
    HRESOLVE(H5Dcreate1);
    if (!hdf5_active()) return next_H5Dcreate1(loc, name, type, space, dcpl);
    int64_t t1 = now_ns();
    hid_t id = next_H5Dcreate1(loc, name, type, space, dcpl);
    if (id >= 0) h5d_opened(C_H5Dcreate1, id, 1, t1, now_ns());
    return id;
}
hid_t H5Dopen1(hid_t loc, const char *name) {
    HRESOLVE(H5Dopen1);
    if (!hdf5_active()) return next_H5Dopen1(loc, name);
    int64_t t1 = now_ns();
    hid_t id = next_H5Dopen1(loc, name);
    if (id >= 0) h5d_opened(C_H5Dopen1, id, 1, t1, now_ns());
    return id;
}
#endif

/* Irregular selections keep at most this many blocks in the trace. */
#define SEL_BLOCKS_MAX (1 << 18)

/* selection_json describes a traced selection that is not a regular hyperslab: none
 * ({"none":true}), points ({"points":N}), or a union of hyperslabs: {"nblocks":N,
 * "blocks_hash":H, "blocks":[[start..., end...], ...]} with HDF5's block list (corners
 * inclusive, in HDF5's order) and a hash of it that ignores a shift along dimension 0 (a
 * record variable's union at each record hashes alike). Called outside the lock. */
static char *selection_json(hid_t space, int seltype, hssize_t npoints) {
    struct jb b = {0};
    if (seltype == H5S_SEL_NONE) {
        jb_printf(&b, "{\"none\":true}");
        return jb_done(&b);
    }
    if (seltype == H5S_SEL_POINTS) {
        jb_printf(&b, "{\"points\":%lld}", (long long)npoints);
        return jb_done(&b);
    }
    if (seltype != H5S_SEL_HYPERSLABS) return NULL;
    int nd = h5.Sget_simple_extent_ndims(space);
    hssize_t nb = h5.Sget_select_hyper_nblocks(space);
    if (nd <= 0 || nd > H5S_MAX_RANK || nb < 0) return NULL;
    hsize_t *bl = nb > 0 && nb <= SEL_BLOCKS_MAX ? malloc((size_t)nb * 2 * (size_t)nd * sizeof *bl) : NULL;
    if (bl && h5.Sget_select_hyper_blocklist(space, 0, (hsize_t)nb, bl) < 0) {
        free(bl);
        bl = NULL;
    }
    uint64_t h = 1469598103934665603ULL;
    if (bl) {
        hsize_t base = bl[0];
        for (hssize_t i = 0; i < nb; i++)
            for (int d = 0; d < 2 * nd; d++) {
                hsize_t v = bl[(size_t)i * 2 * (size_t)nd + (size_t)d];
                if (d % nd == 0) v -= base;
                h = (h ^ (uint64_t)v) * 1099511628211ULL;
            }
    }
    jb_printf(&b, "{\"nblocks\":%lld", (long long)nb);
    if (bl) {
        jb_printf(&b, ",\"blocks_hash\":\"%016llx\",\"blocks\":[", (unsigned long long)h);
        for (hssize_t i = 0; i < nb; i++) {
            jb_printf(&b, "%s[", i ? "," : "");
            for (int d = 0; d < 2 * nd; d++)
                jb_printf(&b, "%s%llu", d ? "," : "", (unsigned long long)bl[(size_t)i * 2 * (size_t)nd + (size_t)d]);
            jb_printf(&b, "]");
        }
        jb_printf(&b, "]");
        free(bl);
    }
    jb_printf(&b, "}");
    return jb_done(&b);
}

/* h5d_io records an H5Dread (rw 1) or H5Dwrite (rw 2) as Darshan's H5D module counts it. */
static void h5d_io(int call, int rw, hid_t dset, hid_t mtype, hid_t fspace, hid_t dxpl, int64_t t1,
                   int64_t t2) {
    inside++;
    struct quiet q;
    quiet_on(&q);
    hssize_t npoints = 0;
    int seltype = -1, regular = 0, coll = 0;
    int64_t key[CV_KEYS] = {0};
    hsize_t start[H5S_MAX_RANK], stride[H5S_MAX_RANK], count[H5S_MAX_RANK], block[H5S_MAX_RANK];
    int ndims = 0;
    char *sel = NULL;
    if (fspace == H5S_ALL) {
        seltype = H5S_SEL_ALL;
    } else {
        npoints = h5.Sget_select_npoints(fspace);
        seltype = (int)h5.Sget_select_type(fspace);
        if (seltype == H5S_SEL_HYPERSLABS && h5.Sis_regular_hyperslab(fspace) > 0) {
            regular = 1;
            ndims = h5.Sget_simple_extent_ndims(fspace);
            if (ndims > 0 && ndims <= H5S_MAX_RANK &&
                h5.Sget_regular_hyperslab(fspace, start, stride, count, block) >= 0) {
                for (int i = 0; i < 5; i++) {
                    /* Darshan 3.5's placement: Di holds dimension 5 - i, so D5 is the
                     * first (slowest) dimension and a 1-D selection lands in D5 */
                    int d = 4 - i;
                    if (d >= ndims) continue;
                    key[1 + i] = (int64_t)(count[d] * block[d]);
                    key[6 + i] = (int64_t)stride[d];
                }
                if (trace_on) {
                    size_t len = 64 + (size_t)ndims * 4 * 24;
                    sel = malloc(len);
                    if (sel) {
                        int o = snprintf(sel, len, "{\"start\":[");
                        hsize_t *v[] = {start, stride, count, block};
                        const char *nm[] = {"start", "stride", "count", "block"};
                        for (int k = 0; k < 4; k++) {
                            if (k) o += snprintf(sel + o, len - (size_t)o, "],\"%s\":[", nm[k]);
                            for (int i = 0; i < ndims; i++)
                                o += snprintf(sel + o, len - (size_t)o, "%s%llu", i ? "," : "",
                                              (unsigned long long)v[k][i]);
                        }
                        snprintf(sel + o, len - (size_t)o, "]}");
                    }
                }
            } else ndims = 0;
        } else if (trace_on) {
            sel = selection_json(fspace, seltype, npoints);
        }
    }
    if (dxpl != H5P_DEFAULT) {
        H5FD_mpio_xfer_t mode;
        if (h5.Pget_dxpl_mpio(dxpl, &mode) >= 0 && mode == H5FD_MPIO_COLLECTIVE) coll = 1;
    }
    size_t tsize = h5.Tget_size(mtype);
    quiet_off(&q);
    pthread_mutex_lock(&lock);
    call_n[call]++;
    call_ns[call] += t2 - t1;
    struct record *r = hm_get(&h5dsets, (uint64_t)dset);
    if (r) {
        int64_t *c = r->c, *f = r->f, el = t2 - t1;
        if (seltype == H5S_SEL_ALL) npoints = c[H5D_DATASPACE_NPOINTS];
        int64_t n = (int64_t)npoints * (int64_t)tsize;
        if (seltype == H5S_SEL_ALL || regular) c[H5D_REGULAR_HYPERSLAB_SELECTS]++;
        else if (seltype == H5S_SEL_POINTS) c[H5D_POINT_SELECTS]++;
        else if (seltype == H5S_SEL_HYPERSLABS) c[H5D_IRREGULAR_HYPERSLAB_SELECTS]++;
        if (coll) c[H5D_USE_MPIIO_COLLECTIVE] = 1;
        if (rw == 1) {
            c[H5D_READS]++;
            c[H5D_BYTES_READ] += n;
            c[H5D_SIZE_READ_AGG_0_100 + bin(n)]++;
            if (r->last_io == 2) c[H5D_RW_SWITCHES]++;
            first_last(&f[H5D_F_READ_START_TIMESTAMP], &f[H5D_F_READ_END_TIMESTAMP], t1, t2);
            f[H5D_F_READ_TIME] += el;
            if (f[H5D_F_MAX_READ_TIME] < el) f[H5D_F_MAX_READ_TIME] = el, c[H5D_MAX_READ_TIME_SIZE] = n;
        } else {
            c[H5D_WRITES]++;
            c[H5D_BYTES_WRITTEN] += n;
            c[H5D_SIZE_WRITE_AGG_0_100 + bin(n)]++;
            if (r->last_io == 1) c[H5D_RW_SWITCHES]++;
            first_last(&f[H5D_F_WRITE_START_TIMESTAMP], &f[H5D_F_WRITE_END_TIMESTAMP], t1, t2);
            f[H5D_F_WRITE_TIME] += el;
            if (f[H5D_F_MAX_WRITE_TIME] < el) f[H5D_F_MAX_WRITE_TIME] = el, c[H5D_MAX_WRITE_TIME_SIZE] = n;
        }
        r->last_io = rw;
        key[0] = n;
        cv_add(&r->access, key);
        if (sel && !regular && seltype == H5S_SEL_HYPERSLABS) {
            /* the block list once per dataset, direction and process; later ones by hash */
            if (r->blocks_traced & rw) {
                char *cut = strstr(sel, ",\"blocks\":");
                if (cut) strcpy(cut, "}");
            }
            r->blocks_traced |= rw;
        }
        event_add(r, call, -1, n, t1, t2, coll, sel);
        sel = NULL;
    }
    pthread_mutex_unlock(&lock);
    free(sel);
    inside--;
}

herr_t H5Dwrite(hid_t dset, hid_t mtype, hid_t mspace, hid_t fspace, hid_t dxpl, const void *buf) {
    HRESOLVE(H5Dwrite);
    if (!hdf5_active()) return next_H5Dwrite(dset, mtype, mspace, fspace, dxpl, buf);
    int64_t t1 = now_ns();
    herr_t ret = next_H5Dwrite(dset, mtype, mspace, fspace, dxpl, buf);
    if (ret >= 0) h5d_io(C_H5Dwrite, 2, dset, mtype, fspace, dxpl, t1, now_ns());
    return ret;
}
herr_t H5Dread(hid_t dset, hid_t mtype, hid_t mspace, hid_t fspace, hid_t dxpl, void *buf) {
    HRESOLVE(H5Dread);
    if (!hdf5_active()) return next_H5Dread(dset, mtype, mspace, fspace, dxpl, buf);
    int64_t t1 = now_ns();
    herr_t ret = next_H5Dread(dset, mtype, mspace, fspace, dxpl, buf);
    if (ret >= 0) h5d_io(C_H5Dread, 1, dset, mtype, fspace, dxpl, t1, now_ns());
    return ret;
}
herr_t H5Dset_extent(hid_t dset, const hsize_t size[]) {
    HRESOLVE(H5Dset_extent);
    if (!hdf5_active()) return next_H5Dset_extent(dset, size);
    int64_t t1 = now_ns();
    herr_t ret = next_H5Dset_extent(dset, size);
    int64_t t2 = now_ns();
    if (ret >= 0) {
        inside++;
        hid_t s = h5.Dget_space(dset);
        hssize_t np = s >= 0 ? h5.Sget_simple_extent_npoints(s) : -1;
        char *extra = NULL;
        if (s >= 0 && trace_on) { /* the new extent, for capture */
            hsize_t dims[H5S_MAX_RANK];
            int nd = h5.Sget_simple_extent_ndims(s);
            if (nd > 0 && nd <= H5S_MAX_RANK && h5.Sget_simple_extent_dims(s, dims, NULL) >= 0) {
                struct jb b = {0};
                jb_printf(&b, "\"extent\":[");
                for (int i = 0; i < nd; i++) jb_printf(&b, "%s%llu", i ? "," : "", (unsigned long long)dims[i]);
                jb_printf(&b, "]");
                extra = jb_done(&b);
            }
        }
        if (s >= 0) h5.Sclose(s);
        pthread_mutex_lock(&lock);
        call_n[C_H5Dset_extent]++;
        call_ns[C_H5Dset_extent] += t2 - t1;
        struct record *r = hm_get(&h5dsets, (uint64_t)dset);
        if (r) {
            if (np >= 0) r->c[H5D_DATASPACE_NPOINTS] = np;
            r->f[H5D_F_META_TIME] += t2 - t1;
            event_add_extra(r, C_H5Dset_extent, t1, t2, extra);
            extra = NULL;
        }
        pthread_mutex_unlock(&lock);
        free(extra);
        inside--;
    }
    return ret;
}
#ifdef HAVE_H5D_MULTI
/* h5d_multi records one H5Dwrite_multi (rw 2) or H5Dread_multi (rw 1) of count datasets as
 * Darshan's H5D module records an H5Dwrite or H5Dread: each dataset's record gets one read or
 * write of its own selection, memory type and the call's transfer list, with the whole
 * call's duration. The calls table counts the call once (h5d_io charges it per dataset). */
static void h5d_multi(int call, int rw, size_t count, const hid_t dset[], const hid_t mtype[],
                      const hid_t fspace[], hid_t dxpl, int64_t t1, int64_t t2) {
    for (size_t i = 0; i < count; i++) h5d_io(call, rw, dset[i], mtype[i], fspace[i], dxpl, t1, t2);
    pthread_mutex_lock(&lock);
    if (count == 0) {
        call_n[call]++;
        call_ns[call] += t2 - t1;
    } else {
        call_n[call] -= (int64_t)count - 1;
        call_ns[call] -= ((int64_t)count - 1) * (t2 - t1);
    }
    pthread_mutex_unlock(&lock);
}
herr_t H5Dwrite_multi(size_t count, hid_t dset[], hid_t mtype[], hid_t mspace[], hid_t fspace[],
                      hid_t dxpl, const void *buf[]) {
    HRESOLVE(H5Dwrite_multi);
    if (!hdf5_active()) return next_H5Dwrite_multi(count, dset, mtype, mspace, fspace, dxpl, buf);
    int64_t t1 = now_ns();
    herr_t ret = next_H5Dwrite_multi(count, dset, mtype, mspace, fspace, dxpl, buf);
    if (ret >= 0) h5d_multi(C_H5Dwrite_multi, 2, count, dset, mtype, fspace, dxpl, t1, now_ns());
    return ret;
}
herr_t H5Dread_multi(size_t count, hid_t dset[], hid_t mtype[], hid_t mspace[], hid_t fspace[],
                     hid_t dxpl, void *buf[]) {
    HRESOLVE(H5Dread_multi);
    if (!hdf5_active()) return next_H5Dread_multi(count, dset, mtype, mspace, fspace, dxpl, buf);
    int64_t t1 = now_ns();
    herr_t ret = next_H5Dread_multi(count, dset, mtype, mspace, fspace, dxpl, buf);
    if (ret >= 0) h5d_multi(C_H5Dread_multi, 1, count, dset, mtype, fspace, dxpl, t1, now_ns());
    return ret;
}
#endif
herr_t H5Dclose(hid_t dset) {
    HRESOLVE(H5Dclose);
    if (!hdf5_active()) return next_H5Dclose(dset);
    int n = refs(dset);
    int64_t t1 = now_ns();
    herr_t ret = next_H5Dclose(dset);
    int64_t t2 = now_ns();
    pthread_mutex_lock(&lock);
    call_n[C_H5Dclose]++;
    call_ns[C_H5Dclose] += t2 - t1;
    struct record *r = ret >= 0 && n <= 1 ? hm_del(&h5dsets, (uint64_t)dset) : NULL;
    if (r) {
        first_last(&r->f[H5D_F_CLOSE_START_TIMESTAMP], &r->f[H5D_F_CLOSE_END_TIMESTAMP], t1, t2);
        r->f[H5D_F_META_TIME] += t2 - t1;
        event_add(r, C_H5Dclose, -1, 0, t1, t2, 0, NULL);
    }
    pthread_mutex_unlock(&lock);
    return ret;
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
static void ws(const char *s) { wput(s, strlen(s)); }
static void wi(int64_t v) {
    char b[24];
    int i = 23;
    uint64_t u = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
    b[i] = 0;
    do b[--i] = (char)('0' + u % 10), u /= 10;
    while (u);
    if (v < 0) b[--i] = '-';
    ws(b + i);
}
static void wstr(const char *s) {
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
    ws("\",\"file\":");
    wstr(r->file);
    if (r->name) {
        ws(",\"name\":");
        wstr(r->name);
    }
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

static void write_event(const struct event *e) {
    ws("{\"kind\":\"event\",\"module\":\"");
    ws(module_names[e->rec->module]);
    ws("\",\"call\":\"");
    ws(call_names[e->call]);
    ws("\",\"file\":");
    wstr(e->rec->file);
    if (e->rec->name) {
        ws(",\"name\":");
        wstr(e->rec->name);
    }
    ws(",\"offset\":");
    wi(e->offset);
    ws(",\"length\":");
    wi(e->length);
    ws(",\"start_ns\":");
    wi(e->start);
    ws(",\"end_ns\":");
    wi(e->end);
    if (e->flags) ws(",\"collective\":true");
    if (e->sel) {
        ws(",\"selection\":");
        ws(e->sel);
    }
    if (e->extra) {
        ws(",");
        ws(e->extra);
    }
    ws("}\n");
}

/* write_records writes this process's records: <dir>/h5proxy-profile.<rank>.<pid>.jsonl
 * (rank "x" for processes without MPI). partial marks records cut short (a crash, or an
 * MPI program ending without MPI_Finalize). */
static void write_records(int partial, const char *reason) {
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
    for (long i = 0; i < nevents; i++) write_event(&events[i]);
    ws("{\"kind\":\"end\",\"partial\":");
    ws(partial ? "true" : "false");
    ws(",\"reason\":");
    wstr(reason);
    ws(",\"end_ns\":");
    wi(now_ns());
    ws(",\"records\":");
    wi(nrecords);
    ws(",\"events\":");
    wi(nevents);
    ws(",\"dropped_events\":");
    wi(dropped_events);
    ws("}\n");
    wflush();
    if (werr) say("h5proxy-profile: writing %s: %s; the profile is incomplete\n", path, strerror(werr));
    next_close(wfd);
    wfd = -1;
    if (locked) pthread_mutex_unlock(&lock);
    inside--;
}
