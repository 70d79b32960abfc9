/*
 * profile-mpiio.c: the MPIIO module of libh5proxy-profile.so, as Darshan's darshan-mpiio
 * counts: MPI_File_open, close, set_view, set_info, sync and every read and write (blocking,
 * collective, split and nonblocking), reached through the PMPI profiling interface, each
 * into the file's MPIIO record (MPIIO_* counters, profile.h). MPI_Init and MPI_Finalize
 * are the core's (profile-core.c).
 */
#include "profile.h"

PNEXT(MPI_Comm_size);
PNEXT(MPI_Type_size);
PNEXT(MPI_File_open);
PNEXT(MPI_File_close);
PNEXT(MPI_File_set_view);
PNEXT(MPI_File_set_info);
PNEXT(MPI_File_sync);
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

/* mpi_meta counts an MPI-IO call that moves no data, on record r (NULL: no record), with the
 * F counters of its first start and last end (start -1: none). */
static void mpi_meta(int call, struct record *r, int start, int end, int64_t t1, int64_t t2) {
    count_call(call, t1, t2);
    if (r) count_meta(r, call, start, end, MPIIO_F_META_TIME, t1, t2);
}

int MPI_File_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, MPI_File *fh) {
    PWRAP(int ret, MPI_File_open, mpi_active, comm, path, amode, info, fh);
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
        if (info != INFO_NULL) r->c[MPIIO_HINTS]++;
        hm_put(&mpifiles, (uint64_t)(uintptr_t)*fh, r);
    }
    mpi_meta(C_MPI_File_open, r, MPIIO_F_OPEN_START_TIMESTAMP, MPIIO_F_OPEN_END_TIMESTAMP, t1, t2);
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
    mpi_meta(C_MPI_File_close, r, MPIIO_F_CLOSE_START_TIMESTAMP, MPIIO_F_CLOSE_END_TIMESTAMP, t1, t2);
    pthread_mutex_unlock(&lock);
    return ret;
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info) {
    PWRAP(int ret, MPI_File_set_view, mpi_active, fh, disp, etype, filetype, datarep, info);
    int64_t t2 = now_ns();
    pthread_mutex_lock(&lock);
    struct record *r = hm_get(&mpifiles, (uint64_t)(uintptr_t)fh);
    if (r && ret == MPI_SUCCESS) {
        r->c[MPIIO_VIEWS]++;
        if (info != INFO_NULL) r->c[MPIIO_HINTS]++;
    }
    mpi_meta(C_MPI_File_set_view, r, -1, 0, t1, t2);
    pthread_mutex_unlock(&lock);
    return ret;
}

int MPI_File_set_info(MPI_File fh, MPI_Info info) {
    PWRAP(int ret, MPI_File_set_info, mpi_active, fh, info);
    int64_t t2 = now_ns();
    pthread_mutex_lock(&lock);
    struct record *r = hm_get(&mpifiles, (uint64_t)(uintptr_t)fh);
    if (r && ret == MPI_SUCCESS) r->c[MPIIO_HINTS]++;
    mpi_meta(C_MPI_File_set_info, r, -1, 0, t1, t2);
    pthread_mutex_unlock(&lock);
    return ret;
}

int MPI_File_sync(MPI_File fh) {
    PWRAP(int ret, MPI_File_sync, mpi_active, fh);
    int64_t t2 = now_ns();
    pthread_mutex_lock(&lock);
    struct record *r = hm_get(&mpifiles, (uint64_t)(uintptr_t)fh);
    if (r && ret == MPI_SUCCESS) {
        r->c[MPIIO_SYNCS]++;
        count_meta(r, C_MPI_File_sync, -1, 0, MPIIO_F_WRITE_TIME, t1, t2);
    }
    count_call(C_MPI_File_sync, t1, t2);
    pthread_mutex_unlock(&lock);
    return ret;
}

/* The kinds of reads and writes: each has its read counter, then its write counter. */
enum { K_INDEP, K_COLL, K_SPLIT, K_NB };
READ_WRITE(MPIIO_INDEP_READS, MPIIO_INDEP_WRITES);
READ_WRITE(MPIIO_COLL_READS, MPIIO_COLL_WRITES);
READ_WRITE(MPIIO_SPLIT_READS, MPIIO_SPLIT_WRITES);
READ_WRITE(MPIIO_NB_READS, MPIIO_NB_WRITES);
READ_WRITE(MPIIO_BYTES_READ, MPIIO_BYTES_WRITTEN);
READ_WRITE_BINS(MPIIO_SIZE_READ_AGG_0_100, MPIIO_SIZE_WRITE_AGG_0_100);
READ_WRITE(MPIIO_MAX_READ_TIME_SIZE, MPIIO_MAX_WRITE_TIME_SIZE);

/* mpi_io records a read (rw 1) or write (rw 2) of count elements of type at off (-1: the
 * file pointer's), as Darshan's MPIIO module counts them. */
static void mpi_io(int call, MPI_File fh, int rw, int kind, int64_t off, int count, MPI_Datatype type,
                   int ret, int64_t t1, int64_t t2) {
    if (ret != MPI_SUCCESS) return;
    int tsize = 0;
    PRESOLVE(MPI_Type_size);
    next_MPI_Type_size(type, &tsize);
    int64_t n = (int64_t)tsize * count;
    pthread_mutex_lock(&lock);
    count_call(call, t1, t2);
    struct record *r = hm_get(&mpifiles, (uint64_t)(uintptr_t)fh);
    if (r) {
        static const int ops[] = {MPIIO_INDEP_READS, MPIIO_COLL_READS, MPIIO_SPLIT_READS, MPIIO_NB_READS};
        count_io(r, rw, n, t1, t2, ops[kind], MPIIO_BYTES_READ, MPIIO_SIZE_READ_AGG_0_100, MPIIO_RW_SWITCHES,
                 MPIIO_MAX_READ_TIME_SIZE);
        cv_add(&r->access, &n);
        event_add(r, call, off, n, t1, t2, kind == K_COLL ? 1 : 0, NULL);
    }
    pthread_mutex_unlock(&lock);
}

/* MPIW defines the wrapper of NAME, a read (RW 1) or a write (RW 2) of kind KIND at OFF (the
 * explicit offset, or -1), with parameters PARAMS and arguments ARGS (in parentheses). */
#define UNPAREN(...) __VA_ARGS__
#define MPIW(NAME, RW, KIND, OFF, PARAMS, ARGS)                                                \
    PNEXT(NAME);                                                                               \
    int NAME PARAMS {                                                                          \
        PWRAP(int ret, NAME, mpi_active, UNPAREN ARGS);                                        \
        int64_t t2 = now_ns();                                                                 \
        inside++;                                                                              \
        mpi_io(C_##NAME, fh, RW, KIND, OFF, count, datatype, ret, t1, t2);                     \
        inside--;                                                                              \
        return ret;                                                                            \
    }
/* The signatures of the reads and writes: with a status, with a request (nonblocking), or
 * neither (split collectives); Q qualifies the buffer (const for writes), the variable part
 * is "MPI_Offset offset," for the calls at an explicit offset. */
#define SIG_STATUS(Q, ...) (MPI_File fh, __VA_ARGS__ Q void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
#define SIG_REQUEST(Q, ...) (MPI_File fh, __VA_ARGS__ Q void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
#define SIG_SPLIT(Q, ...) (MPI_File fh, __VA_ARGS__ Q void *buf, int count, MPI_Datatype datatype)
/* MPIRW defines the read and the write of one kind, MPI_File_R and MPI_File_W, of signature
 * SIG, with AT the offset parameter or (), called with ARGS. */
#define MPIRW(R, W, KIND, OFF, SIG, AT, ARGS)                                                  \
    MPIW(MPI_File_##R, 1, KIND, OFF, SIG(, UNPAREN AT), ARGS)                                  \
    MPIW(MPI_File_##W, 2, KIND, OFF, SIG(const, UNPAREN AT), ARGS)
#define AT_OFF (MPI_Offset offset,)
MPIRW(read, write, K_INDEP, -1, SIG_STATUS, (), (fh, buf, count, datatype, status))
MPIRW(read_at, write_at, K_INDEP, offset, SIG_STATUS, AT_OFF, (fh, offset, buf, count, datatype, status))
MPIRW(read_all, write_all, K_COLL, -1, SIG_STATUS, (), (fh, buf, count, datatype, status))
MPIRW(read_at_all, write_at_all, K_COLL, offset, SIG_STATUS, AT_OFF, (fh, offset, buf, count, datatype, status))
MPIRW(read_shared, write_shared, K_INDEP, -1, SIG_STATUS, (), (fh, buf, count, datatype, status))
MPIRW(read_ordered, write_ordered, K_COLL, -1, SIG_STATUS, (), (fh, buf, count, datatype, status))
MPIRW(iread, iwrite, K_NB, -1, SIG_REQUEST, (), (fh, buf, count, datatype, request))
MPIRW(iread_at, iwrite_at, K_NB, offset, SIG_REQUEST, AT_OFF, (fh, offset, buf, count, datatype, request))
MPIRW(iread_all, iwrite_all, K_NB, -1, SIG_REQUEST, (), (fh, buf, count, datatype, request))
MPIRW(iread_at_all, iwrite_at_all, K_NB, offset, SIG_REQUEST, AT_OFF, (fh, offset, buf, count, datatype, request))
MPIRW(iread_shared, iwrite_shared, K_NB, -1, SIG_REQUEST, (), (fh, buf, count, datatype, request))
MPIRW(read_all_begin, write_all_begin, K_SPLIT, -1, SIG_SPLIT, (), (fh, buf, count, datatype))
MPIRW(read_at_all_begin, write_at_all_begin, K_SPLIT, offset, SIG_SPLIT, AT_OFF, (fh, offset, buf, count, datatype))
MPIRW(read_ordered_begin, write_ordered_begin, K_SPLIT, -1, SIG_SPLIT, (), (fh, buf, count, datatype))
