/*
 * profile.h: the internal header of libh5proxy-profile.so, shared by its sources. Nothing in
 * it is exported: the library's only exported symbols are the calls it wraps and the two
 * h5proxy_profile_* functions (profile-core.c).
 *
 * The library is split as Darshan splits its runtime (darshan-core, darshan-posix,
 * darshan-mpiio, darshan-hdf5, DXT): a core and one source per module.
 *
 *   profile-core.c   start-up and shut-down (constructor, MPI_Init/MPI_Finalize, exit, _exit,
 *                    crash signals, fork), records and the identifier maps, paths, the call
 *                    table, output of the per-rank record file
 *   profile-posix.c  the POSIX module: open, read, write, seek, sync, stat, dup ... counted
 *   profile-mpiio.c  the MPIIO module: MPI_File_* through PMPI
 *   profile-hdf5.c   what the H5F and H5D modules share: HDF5's helpers resolved and the
 *                    program's HDF5 checked, names, datatype descriptions
 *   profile-h5f.c    the H5F module: H5Fcreate/open/flush/close; groups, objects and
 *                    attributes (no Darshan module: the call table and the file's events)
 *   profile-h5d.c    the H5D module: dataset creates, opens, reads, writes, extents, closes
 *   profile-trace.c  the trace (Darshan's DXT): every call kept as an event, written after the
 *                    records; the JSON text its events and the HDF5 infos carry
 */
#ifndef H5PROXY_PROFILE_H
#define H5PROXY_PROFILE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
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

/* OpenMPI's predefined handles (MPI_COMM_WORLD, MPI_INFO_NULL ...) are the addresses of
 * libmpi's data symbols. The library refers to none of them: libmpi may be absent (programs
 * without MPI) or loaded RTLD_LOCAL (Python's extension modules), where a link-time (weak)
 * reference would be null. mpi_started looks them up (sym_default, profile-core.c). */
#ifdef OPEN_MPI
extern MPI_Comm comm_world, comm_null;
extern MPI_Info info_null;
#define COMM_WORLD comm_world
#define COMM_NULL comm_null
#define INFO_NULL info_null
#else
#define COMM_WORLD MPI_COMM_WORLD
#define COMM_NULL MPI_COMM_NULL
#define INFO_NULL MPI_INFO_NULL
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
    X(POSIX_OPENS) X(POSIX_FILENOS) X(POSIX_DUPS) X(POSIX_READS) X(POSIX_WRITES) X(POSIX_SEEKS) X(POSIX_STATS)              \
    X(POSIX_FSYNCS) X(POSIX_FDSYNCS) X(POSIX_MODE) X(POSIX_BYTES_READ)                        \
    X(POSIX_BYTES_WRITTEN) X(POSIX_MAX_BYTE_READ) X(POSIX_MAX_BYTE_WRITTEN)                   \
    X(POSIX_CONSEC_READS) X(POSIX_CONSEC_WRITES) X(POSIX_SEQ_READS) X(POSIX_SEQ_WRITES)       \
    X(POSIX_RW_SWITCHES) X(POSIX_MEM_NOT_ALIGNED) X(POSIX_MEM_ALIGNMENT)                      \
    X(POSIX_FILE_NOT_ALIGNED) X(POSIX_FILE_ALIGNMENT) X(POSIX_MAX_READ_TIME_SIZE)             \
    X(POSIX_MAX_WRITE_TIME_SIZE) BINS(POSIX, READ) BINS(POSIX, WRITE)                         \
    TOP4(POSIX_STRIDE, STRIDE) TOP4(POSIX_STRIDE, COUNT) TOP4(POSIX_ACCESS, ACCESS)           \
    TOP4(POSIX_ACCESS, COUNT)
/* The F counters of the POSIX, MPIIO and H5D modules: one list, in Darshan's order. */
#define F_COUNTERS(P)                                                                          \
    X(P##_F_OPEN_START_TIMESTAMP) X(P##_F_READ_START_TIMESTAMP)                               \
    X(P##_F_WRITE_START_TIMESTAMP) X(P##_F_CLOSE_START_TIMESTAMP)                             \
    X(P##_F_OPEN_END_TIMESTAMP) X(P##_F_READ_END_TIMESTAMP)                                   \
    X(P##_F_WRITE_END_TIMESTAMP) X(P##_F_CLOSE_END_TIMESTAMP) X(P##_F_READ_TIME)            \
    X(P##_F_WRITE_TIME) X(P##_F_META_TIME) X(P##_F_MAX_READ_TIME) X(P##_F_MAX_WRITE_TIME)
#define POSIX_F_COUNTERS F_COUNTERS(POSIX)

#define MPIIO_COUNTERS                                                                         \
    X(MPIIO_INDEP_OPENS) X(MPIIO_COLL_OPENS) X(MPIIO_INDEP_READS) X(MPIIO_INDEP_WRITES)       \
    X(MPIIO_COLL_READS) X(MPIIO_COLL_WRITES) X(MPIIO_SPLIT_READS) X(MPIIO_SPLIT_WRITES)       \
    X(MPIIO_NB_READS) X(MPIIO_NB_WRITES) X(MPIIO_SYNCS) X(MPIIO_HINTS) X(MPIIO_VIEWS)         \
    X(MPIIO_MODE) X(MPIIO_BYTES_READ) X(MPIIO_BYTES_WRITTEN) X(MPIIO_RW_SWITCHES)             \
    X(MPIIO_MAX_READ_TIME_SIZE) X(MPIIO_MAX_WRITE_TIME_SIZE) BINS(MPIIO, READ_AGG)            \
    BINS(MPIIO, WRITE_AGG) TOP4(MPIIO_ACCESS, ACCESS) TOP4(MPIIO_ACCESS, COUNT)
#define MPIIO_F_COUNTERS F_COUNTERS(MPIIO)

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
#define H5D_F_COUNTERS F_COUNTERS(H5D)

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

enum module { M_POSIX, M_MPIIO, M_H5F, M_H5D, M_NMOD };
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
    /* the four common values as Darshan keeps them, updated at every access (cv_add) */
    int64_t top[4][CV_KEYS];
    int64_t topn[4];
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


/* Every declaration below is internal: hidden, so that the sources reach each other's
 * functions and data directly (no PLT or GOT, as when they were one file) and nothing leaks
 * into the program's symbol space. */
#pragma GCC visibility push(hidden)

/* The modules' names, as records and events name them (profile-core.c). */
extern const char *const module_names[M_NMOD];

/* ---- process state (profile-core.c) ------------------------------------------------------ */

extern pthread_mutex_t lock;
extern __thread int inside; /* >0 while the library itself runs: its own I/O is not recorded */
extern volatile int disabled;
extern volatile int mpi_initializing; /* inside MPI_Init: nothing is recorded, as by Darshan */
extern int initialized, mpi_initialized, mpi_ok;
extern int64_t t0_mono;
extern int trace_on;
extern long trace_max;
extern int64_t mem_align;
extern char hdf5_version[32];

/* A hash map from handles (fd, hid_t, MPI_File) to records. Open addressing, tombstones. */
struct hmap {
    uint64_t *keys;
    struct record **vals;
    size_t cap, used;
};
#define HM_EMPTY ((uint64_t)0)
#define HM_DEAD ((uint64_t)1)
extern struct hmap fds, h5files, h5dsets, mpifiles;

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
    X(H5Dread_multi) X(H5Gclose) X(H5Oopen) X(H5Oclose) X(H5Lcreate_hard) X(H5Lcreate_soft)     \
    X(H5Lcreate_external) X(H5Gcreate1) X(H5Aopen) X(H5Aread) X(H5Rcreate) X(fopen) X(fileno)  \
    X(fclose)
#define X(a) C_##a,
enum { CALLS C_N };
#undef X
extern const char *const call_names[C_N];
extern int64_t call_n[C_N], call_ns[C_N];

/* ---- the next functions ----------------------------------------------------------------- */

void *sym(const char *name);
void *sym_default(const char *name);
void *need(const char *name);
#define NEXT(f) static __typeof__(f) *next_##f
#define RESOLVE(f)                                                                             \
    do {                                                                                       \
        if (!next_##f) next_##f = (__typeof__(next_##f))need(#f);                             \
    } while (0)
/* MPI's, through the profiling interface */
#define PNEXT(f) static __typeof__(P##f) *next_##f
#define PRESOLVE(f)                                                                            \
    do {                                                                                       \
        if (!next_##f) next_##f = (__typeof__(next_##f))need("P" #f);                          \
    } while (0)
/* WRAP begins the wrapper of a function f: it resolves the next f and, when gate() (active,
 * mpi_active, hdf5_active) says the library records nothing, passes the call straight
 * through; else it makes the call, declared by decl (`int ret`), after reading the clock
 * into t1. PWRAP is WRAP for MPI's functions, reached through PMPI. */
#define WRAP_WITH(RES, decl, f, gate, ...)                                                     \
    RES(f);                                                                                    \
    if (!gate()) return next_##f(__VA_ARGS__);                                                 \
    int64_t t1 = now_ns();                                                                     \
    decl = next_##f(__VA_ARGS__)
#define WRAP(...) WRAP_WITH(RESOLVE, __VA_ARGS__)
#define PWRAP(...) WRAP_WITH(PRESOLVE, __VA_ARGS__)
/* the output and messages use the program's own open, write and close (profile-posix.c) */
extern __typeof__(open) *next_open;
extern __typeof__(write) *next_write;
extern __typeof__(close) *next_close;

/* ---- core (profile-core.c) ---------------------------------------------------------------- */

void init(void);
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xcalloc(size_t n, size_t s);
void absolute(const char *path, char *out, size_t len);
int tracked(const char *path);
struct record *record_get(int module, const char *file, const char *name);
void hm_put(struct hmap *m, uint64_t key, struct record *r);
struct record *hm_del(struct hmap *m, uint64_t key);
void fd_forget(void);
void cv_add(struct cv *cv, const int64_t *key);
void mpi_started(void);
void write_records(int partial, const char *reason);
/* the record file's writer: no stdio, no allocation (a crash handler uses it) */
void ws(const char *s);
void wi(int64_t v);
void wstr(const char *s);
void wfile(const struct record *r);

/* hm_get is the lookup of nearly every intercepted call: inline, so a module's wrappers keep
 * their values in registers across it (keys are stored +2 so 0 and 1 stay free for empty
 * and dead slots; hm_put and hm_del are the core's). */
static inline uint64_t hm_mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}
static inline struct record *hm_get(struct hmap *m, uint64_t key) {
    if (!m->cap) return NULL;
    key += 2;
    for (size_t i = hm_mix(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) return m->vals[i];
        if (m->keys[i] == HM_EMPTY) return NULL;
    }
}

static inline int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - t0_mono;
}

/* active: the library records this call (initialized, not disabled, not its own). */
static inline int active(void) {
    if (!initialized) init();
    return !disabled && !inside && !mpi_initializing;
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


/* ---- trace (profile-trace.c) -------------------------------------------------------------- */

void event_add(struct record *r, int call, int64_t off, int64_t len, int64_t t1, int64_t t2, int flags,
               char *sel);
void event_add_extra(struct record *r, int call, int64_t t1, int64_t t2, char *extra);
void event_add_with(struct record *r, int call, int64_t off, int64_t len, int64_t t1, int64_t t2, int flags,
                    char *sel, char *extra);
void trace_forget(void);
void trace_write(void);
void trace_counts(long *kept, long *dropped);

/* A growing JSON text for traced events and HDF5 infos (never used by the crash path). */
struct jb {
    char *p;
    size_t n, cap;
    int bad;
};
void jb_printf(struct jb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void jb_str(struct jb *b, const char *s);
/* untimed_json appends ,"untimed":true to b when the creation list pl (a program's
 * argument: H5P_DEFAULT tracks them) turns object times off (profile-h5f.c). */
void untimed_json(struct jb *b, hid_t pl);
void jb_hex(struct jb *b, const void *buf, size_t n);
char *jb_done(struct jb *b);

/* ---- counting, as every module counts (the lock held) ------------------------------------ */

/* count_call adds a call of kind call, from t1 to t2, to the call table. */
static inline void count_call(int call, int64_t t1, int64_t t2) {
    call_n[call]++;
    call_ns[call] += t2 - t1;
}

/* count_meta counts a call of record r that moves no data (a close, flush, sync, stat ...)
 * from t1 to t2: the kind's first start and last end into F counters start and end (start
 * -1: none), the time into F counter ftime (the module's META_TIME; a sync's WRITE_TIME),
 * and the event. */
static inline void count_meta(struct record *r, int call, int start, int end, int ftime, int64_t t1, int64_t t2) {
    if (start >= 0) first_last(&r->f[start], &r->f[end], t1, t2);
    r->f[ftime] += t2 - t1;
    event_add(r, call, -1, 0, t1, t2, 0, NULL);
}

/* The POSIX, MPIIO and H5D modules keep their F counters in one order (F_COUNTERS), each
 * read counter followed by the write one: F_* name them for the three. */
enum {
    F_READ_START = POSIX_F_READ_START_TIMESTAMP,
    F_READ_END = POSIX_F_READ_END_TIMESTAMP,
    F_READ_TIME = POSIX_F_READ_TIME,
    F_MAX_READ_TIME = POSIX_F_MAX_READ_TIME,
};
/* READ_WRITE asserts that a module's write counter follows its read counter. */
#define READ_WRITE(R, W) _Static_assert((W) == (R) + 1, #W " follows " #R)
#define READ_WRITE_BINS(R, W) _Static_assert((W) == (R) + 10, "the write bins from " #W " follow the read bins from " #R)
READ_WRITE(POSIX_F_READ_START_TIMESTAMP, POSIX_F_WRITE_START_TIMESTAMP);
READ_WRITE(POSIX_F_READ_END_TIMESTAMP, POSIX_F_WRITE_END_TIMESTAMP);
READ_WRITE(POSIX_F_READ_TIME, POSIX_F_WRITE_TIME);
READ_WRITE(POSIX_F_MAX_READ_TIME, POSIX_F_MAX_WRITE_TIME);

/* count_rw is count_io in one direction w (0 read, 1 write): count_io calls it with w a
 * constant on each side, so each compiles to the straight-line code of one direction. */
static inline __attribute__((always_inline)) void count_rw(struct record *r, int w, int64_t n, int64_t t1, int64_t t2,
                                                           int ops, int bytes, int bins, int switches, int max_size) {
    int64_t *c = r->c, *f = r->f, el = t2 - t1;
    c[ops + w]++;
    c[bytes + w] += n;
    c[bins + 10 * w + bin(n)]++;
    if (r->last_io == 2 - w) c[switches]++;
    first_last(&f[F_READ_START + w], &f[F_READ_END + w], t1, t2);
    f[F_READ_TIME + w] += el;
    if (f[F_MAX_READ_TIME + w] < el) f[F_MAX_READ_TIME + w] = el, c[max_size + w] = n;
    r->last_io = w + 1;
}

/* count_io counts a read (rw 1) or a write (rw 2) of n bytes from t1 to t2 into record r, as
 * Darshan's POSIX, MPIIO and H5D modules all count one: the operations, bytes, size bin,
 * read/write switch (counter switches), first and last time, time, and the size of the
 * slowest. ops, bytes, bins and max_size are the module's read counters, each followed by
 * its write counter (bins: the ten read bins, then the ten write bins). */
static inline void count_io(struct record *r, int rw, int64_t n, int64_t t1, int64_t t2, int ops, int bytes,
                            int bins, int switches, int max_size) {
    if (rw == 1) count_rw(r, 0, n, t1, t2, ops, bytes, bins, switches, max_size);
    else count_rw(r, 1, n, t1, t2, ops, bytes, bins, switches, max_size);
}

/* ---- HDF5 (profile-hdf5.c) ---------------------------------------------------------------- */

/* HDF5 functions the library calls for names, spaces and properties, resolved once. */
struct h5fns {
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
    __typeof__(H5Sget_select_bounds) *Sget_select_bounds;
    __typeof__(H5Pget_virtual_count) *Pget_virtual_count;
    __typeof__(H5Pget_virtual_vspace) *Pget_virtual_vspace;
    __typeof__(H5Pget_virtual_srcspace) *Pget_virtual_srcspace;
    __typeof__(H5Pget_virtual_filename) *Pget_virtual_filename;
    __typeof__(H5Pget_virtual_dsetname) *Pget_virtual_dsetname;
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
    /* creation order of a created file's root group and of created groups (capture) */
    __typeof__(H5Fget_create_plist) *Fget_create_plist;
    __typeof__(H5Gget_create_plist) *Gget_create_plist;
    __typeof__(H5Pget_link_creation_order) *Pget_link_creation_order;
    __typeof__(H5Pget_attr_creation_order) *Pget_attr_creation_order;
    /* object times untracked on a creation list (capture's track_times) */
    __typeof__(H5Pget_obj_track_times) *Pget_obj_track_times;
    __typeof__(H5Tget_order) *Tget_order;
    __typeof__(H5Tget_super) *Tget_super;
    __typeof__(H5Tget_array_ndims) *Tget_array_ndims;
    __typeof__(H5Tget_array_dims2) *Tget_array_dims2;
    __typeof__(H5Tget_tag) *Tget_tag;
    __typeof__(H5Tget_member_value) *Tget_member_value;
};
extern struct h5fns h5;

int hdf5_active(void);
void file_name(hid_t id, char *out, size_t len);
herr_t h5_close_record(int call, herr_t (*next)(hid_t), hid_t id, struct hmap *map, int start, int end, int ftime);
void members_str(hid_t t, const char *prefix, char *out, size_t len);
void type_json(struct jb *b, const char *prefix, hid_t t);
int type_tree_needed(hid_t t);
void type_tree(struct jb *b, hid_t t, int depth);

/* Silence HDF5's error stack while the library asks questions that may fail. */
struct quiet {
    H5E_auto2_t f;
    void *d;
};
static inline void quiet_on(struct quiet *q) {
    h5.Eget_auto2(H5E_DEFAULT, &q->f, &q->d);
    h5.Eset_auto2(H5E_DEFAULT, NULL, NULL);
}
static inline void quiet_off(struct quiet *q) { h5.Eset_auto2(H5E_DEFAULT, q->f, q->d); }

#pragma GCC visibility pop

#endif
