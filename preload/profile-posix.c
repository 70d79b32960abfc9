/*
 * profile-posix.c: the POSIX module of libh5proxy-profile.so, as Darshan's darshan-posix
 * counts: open, creat, close, dup, fileno, read, write, pread, pwrite and their vector forms,
 * lseek, fsync, fdatasync and the stat family, on files outside the system directories, each
 * into the file's POSIX record (POSIX_* counters, profile.h). The stdio opens are followed
 * only as far as Darshan's POSIX module depends on them: a fileno of a stream fopen opened is
 * an open of its file.
 */
#include "profile.h"

/* The functions wrapped (open, write and close are the core's too: profile.h). */
__typeof__(open) *next_open;
NEXT(open64);
NEXT(openat);
NEXT(openat64);
__typeof__(close) *next_close;
NEXT(dup);
NEXT(dup2);
NEXT(dup3);
NEXT(read);
__typeof__(write) *next_write;
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
NEXT(fopen);
NEXT(fopen64);
NEXT(freopen);
NEXT(freopen64);
NEXT(fdopen);
NEXT(fclose);
NEXT(fileno);
static int (*next___xstat)(int, const char *, struct stat *);
static int (*next___lxstat)(int, const char *, struct stat *);
static int (*next___fxstat)(int, int, struct stat *);
static int (*next___xstat64)(int, const char *, struct stat64 *);
static int (*next___lxstat64)(int, const char *, struct stat64 *);
static int (*next___fxstat64)(int, int, struct stat64 *);

/* Darshan keeps every descriptor reference it adds (an open, a fileno, a dup: uthash, the
 * newest found first) and its close deletes only the newest (darshan-common.c
 * darshan_add_record_ref, darshan_delete_record_ref). A reference left by a followed
 * stream's fclose, whose close Darshan does not see, therefore stays beneath a later open
 * of the same descriptor, and the descriptor maps back to the stream's file once that open
 * is closed: a /proc stream that gets the descriptor then reads there (openPMD-api 8a's
 * /proc/self/status reads after the series' close count on its input file under Darshan).
 * fd_push and fd_pop keep the references beneath the current one (fds' value), each with
 * how many times it was added in a row. Callers hold the lock. */
struct fdref {
    struct record *r;
    long n;
};
struct fdstack {
    struct fdref *v;
    size_t len, cap;
};
static struct fdstack *fdbelow;
static size_t nfdbelow;

static void fd_push(int fd, struct record *r) {
    struct record *cur = hm_get(&fds, (uint64_t)fd);
    if (cur && fd >= 0) {
        if ((size_t)fd >= nfdbelow) {
            size_t n = (size_t)fd + 16;
            struct fdstack *b = realloc(fdbelow, n * sizeof *b);
            if (!b) goto top; /* out of memory: the earlier reference is forgotten */
            memset(b + nfdbelow, 0, (n - nfdbelow) * sizeof *b);
            fdbelow = b, nfdbelow = n;
        }
        struct fdstack *st = &fdbelow[fd];
        if (st->len && st->v[st->len - 1].r == cur) st->v[st->len - 1].n++;
        else {
            if (st->len == st->cap) {
                size_t c = st->cap ? st->cap * 2 : 4;
                struct fdref *v = realloc(st->v, c * sizeof *v);
                if (!v) goto top;
                st->v = v, st->cap = c;
            }
            st->v[st->len++] = (struct fdref){cur, 1};
        }
    }
top:
    hm_put(&fds, (uint64_t)fd, r);
}

/* fd_pop deletes fd's newest reference and returns its record; the one beneath, if any,
 * becomes the descriptor's. */
static struct record *fd_pop(int fd) {
    struct record *r = hm_del(&fds, (uint64_t)fd);
    if (r && fd >= 0 && (size_t)fd < nfdbelow && fdbelow[fd].len) {
        struct fdstack *st = &fdbelow[fd];
        hm_put(&fds, (uint64_t)fd, st->v[st->len - 1].r);
        if (--st->v[st->len - 1].n == 0) st->len--;
    }
    return r;
}

/* fd_forget drops every reference beneath (a forked child starts with none). */
void fd_forget(void) {
    fdbelow = NULL;
    nfdbelow = 0;
}

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
        fd_push(fd, r);
        event_add(r, C_open, 0, 0, t1, t2, 0, NULL);
    }
    count_call(C_open, t1, t2);
    pthread_mutex_unlock(&lock);
}

/* posix_io records a read (rw 1) or write (rw 2) of ret bytes at off (-1: the record's
 * current offset), as Darshan's POSIX module counts them. */
READ_WRITE(POSIX_READS, POSIX_WRITES);
READ_WRITE(POSIX_BYTES_READ, POSIX_BYTES_WRITTEN);
READ_WRITE(POSIX_SIZE_READ_1G_PLUS, POSIX_SIZE_WRITE_0_100);
READ_WRITE(POSIX_MAX_READ_TIME_SIZE, POSIX_MAX_WRITE_TIME_SIZE);
static void posix_io(int call, int fd, int rw, int64_t off, int64_t ret, const void *buf, int64_t t1,
                     int64_t t2) {
    pthread_mutex_lock(&lock);
    count_call(call, t1, t2);
    struct record *r = hm_get(&fds, (uint64_t)fd);
    if (!r || ret < 0) {
        pthread_mutex_unlock(&lock);
        return;
    }
    int64_t *c = r->c;
    int64_t this_off = off >= 0 ? off : r->offset;
    int64_t *last = rw == 1 ? &r->last_byte_read : &r->last_byte_written;
    int64_t stride = 0;
    if (this_off > *last) c[rw == 1 ? POSIX_SEQ_READS : POSIX_SEQ_WRITES]++;
    if (this_off == *last + 1) c[rw == 1 ? POSIX_CONSEC_READS : POSIX_CONSEC_WRITES]++;
    if (this_off > 0 && this_off > *last && *last != 0) stride = this_off - *last - 1;
    *last = this_off + ret - 1;
    r->offset = this_off + ret;
    int64_t *max_byte = &c[rw == 1 ? POSIX_MAX_BYTE_READ : POSIX_MAX_BYTE_WRITTEN];
    if (*max_byte < this_off + ret - 1) *max_byte = this_off + ret - 1;
    count_io(r, rw, ret, t1, t2, POSIX_READS, POSIX_BYTES_READ, POSIX_SIZE_READ_0_100, POSIX_RW_SWITCHES,
             POSIX_MAX_READ_TIME_SIZE);
    cv_add(&r->access, &ret);
    cv_add(&r->stride, &stride);
    if (buf && ((uintptr_t)buf % (uint64_t)mem_align) != 0) c[POSIX_MEM_NOT_ALIGNED]++;
    if (c[POSIX_FILE_ALIGNMENT] > 0 && this_off % c[POSIX_FILE_ALIGNMENT] != 0) c[POSIX_FILE_NOT_ALIGNED]++;
    event_add(r, call, this_off, ret, t1, t2, 0, NULL);
    pthread_mutex_unlock(&lock);
}

/* posix_meta records a call on fd that is neither I/O nor open and returned ret (0: done):
 * counter is the counter to increment, ftime the time counter. It returns ret, errno kept. */
static int posix_meta(int call, int fd, int ret, int counter, int ftime, int64_t t1, int64_t t2) {
    if (ret != 0) return ret;
    int e = errno;
    pthread_mutex_lock(&lock);
    count_call(call, t1, t2);
    struct record *r = hm_get(&fds, (uint64_t)fd);
    if (r) {
        r->c[counter]++;
        count_meta(r, call, -1, 0, ftime, t1, t2);
    }
    pthread_mutex_unlock(&lock);
    errno = e;
    return ret;
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
/* glibc's fortified open (_FORTIFY_SOURCE), which Darshan wraps too */
int __open_2(const char *path, int flags) { return open_common(AT_FDCWD, path, flags, 0, 0, 0); }
int creat(const char *path, mode_t mode) {
    return open_common(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, 0, 0);
}
int creat64(const char *path, mode_t mode) {
    return open_common(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, 1, 0);
}

int close(int fd) {
    WRAP(int ret, close, active, fd);
    int64_t t2 = now_ns();
    int e = errno;
    pthread_mutex_lock(&lock);
    count_call(C_close, t1, t2);
    struct record *r = fd_pop(fd);
    if (r) count_meta(r, C_close, POSIX_F_CLOSE_START_TIMESTAMP, POSIX_F_CLOSE_END_TIMESTAMP, POSIX_F_META_TIME, t1, t2);
    pthread_mutex_unlock(&lock);
    errno = e;
    return ret;
}

/* A duplicate descriptor refers to the same record: Darshan counts it as an open and a dup. */
static int dup_common(int oldfd, int newfd, int64_t t1, int64_t t2) {
    if (newfd < 0 || newfd == oldfd) return newfd;
    int e = errno;
    pthread_mutex_lock(&lock);
    count_call(C_dup, t1, t2);
    hm_del(&fds, (uint64_t)newfd); /* dup2 closed what newfd was */
    struct record *r = hm_get(&fds, (uint64_t)oldfd);
    if (r) {
        r->c[POSIX_OPENS]++;
        r->c[POSIX_DUPS]++;
        fd_push(newfd, r);
        count_meta(r, C_dup, -1, 0, POSIX_F_META_TIME, t1, t2);
    }
    pthread_mutex_unlock(&lock);
    errno = e;
    return newfd;
}
int dup(int fd) {
    WRAP(int ret, dup, active, fd);
    return dup_common(fd, ret, t1, now_ns());
}
int dup2(int fd, int fd2) {
    WRAP(int ret, dup2, active, fd, fd2);
    return dup_common(fd, ret, t1, now_ns());
}
int dup3(int fd, int fd2, int flags) {
    WRAP(int ret, dup3, active, fd, fd2, flags);
    return dup_common(fd, ret, t1, now_ns());
}

/* ---- stdio streams ------------------------------------------------------------------------
 * Darshan's STDIO module registers each stream fopen, fopen64, freopen, freopen64 and fdopen
 * return (the name: the path, or the POSIX record of fdopen's descriptor) unless the path is
 * excluded, and forgets it at fclose (darshan-stdio.c). Its POSIX module counts a fileno of a
 * registered stream as an open of that file and a POSIX_FILENOS, without resetting the
 * record's offset, and maps the descriptor to the record (darshan-posix.c fileno): the reads
 * and seeks a C++ std::ifstream makes through fileno (libstdc++'s basic_filebuf) count there;
 * glibc's own open inside fopen and close inside fclose are not seen. fclose leaves the
 * descriptor mapped, as Darshan's does: a later stream Darshan does not follow (a path it
 * excludes) that gets the same descriptor has its reads counted on the earlier file. The
 * standard streams are followed from the start as <STDIN>, <STDOUT> and <STDERR>. */
struct stream {
    FILE *fp;
    char *path;
    int64_t blksize; /* the file's st_blksize, asked at the first fileno; -1 if fstat failed */
    struct stream *next;
};
static struct stream *streams; /* under lock */

static struct stream **stream_find(FILE *fp) {
    struct stream **s = &streams;
    while (*s && (*s)->fp != fp) s = &(*s)->next;
    return s;
}
static void stream_forget(FILE *fp) {
    struct stream **s = stream_find(fp), *d = *s;
    if (!d) return;
    *s = d->next;
    free(d->path);
    free(d);
}
/* stream_opened registers fp under path (absolute already when abs, else made so). */
static void stream_opened(FILE *fp, const char *path, int abs, int64_t t1, int64_t t2) {
    if (!fp || !path) return;
    int e = errno;
    inside++;
    char full[PATH_MAX];
    if (abs) snprintf(full, sizeof full, "%s", path);
    else absolute(path, full, sizeof full);
    pthread_mutex_lock(&lock);
    count_call(C_fopen, t1, t2);
    stream_forget(fp); /* freopen returns the stream it was given */
    if (tracked(full)) {
        struct stream *s = xcalloc(1, sizeof *s);
        if (s && (s->path = strdup(full))) {
            s->fp = fp;
            s->next = streams;
            streams = s;
        } else free(s);
    }
    pthread_mutex_unlock(&lock);
    inside--;
    errno = e;
}
FILE *fopen(const char *path, const char *mode) {
    WRAP(FILE *ret, fopen, active, path, mode);
    stream_opened(ret, path, 0, t1, now_ns());
    return ret;
}
FILE *fopen64(const char *path, const char *mode) {
    WRAP(FILE *ret, fopen64, active, path, mode);
    stream_opened(ret, path, 0, t1, now_ns());
    return ret;
}
FILE *freopen(const char *path, const char *mode, FILE *fp) {
    WRAP(FILE *ret, freopen, active, path, mode, fp);
    stream_opened(ret, path, 0, t1, now_ns());
    return ret;
}
FILE *freopen64(const char *path, const char *mode, FILE *fp) {
    WRAP(FILE *ret, freopen64, active, path, mode, fp);
    stream_opened(ret, path, 0, t1, now_ns());
    return ret;
}
FILE *fdopen(int fd, const char *mode) {
    WRAP(FILE *ret, fdopen, active, fd, mode);
    int64_t t2 = now_ns();
    pthread_mutex_lock(&lock);
    struct record *r = hm_get(&fds, (uint64_t)fd);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", r ? r->file : "");
    pthread_mutex_unlock(&lock);
    if (ret && path[0]) stream_opened(ret, path, 1, t1, t2);
    return ret;
}
int fclose(FILE *fp) {
    WRAP(int ret, fclose, active, fp);
    int64_t t2 = now_ns();
    int e = errno;
    pthread_mutex_lock(&lock);
    count_call(C_fclose, t1, t2);
    stream_forget(fp);
    pthread_mutex_unlock(&lock);
    errno = e;
    return ret;
}
int fileno(FILE *fp) {
    WRAP(int ret, fileno, active, fp);
    int64_t t2 = now_ns();
    if (ret < 0) return ret;
    int e = errno;
    inside++;
    pthread_mutex_lock(&lock);
    count_call(C_fileno, t1, t2);
    struct stream *s = *stream_find(fp);
    if (s && !s->blksize) { /* once per followed stream: libstdc++ calls fileno per refill */
        struct stat st;
        RESOLVE(fstat);
        s->blksize = next_fstat && next_fstat(ret, &st) == 0 ? (int64_t)st.st_blksize : -1;
    }
    int64_t align = s && s->blksize > 0 ? s->blksize : 0;
    /* Darshan's STDIO module registers the standard streams at its start under these names */
    const char *name = s                ? s->path
                       : fp == stdin  ? "<STDIN>"
                       : fp == stdout ? "<STDOUT>"
                       : fp == stderr ? "<STDERR>"
                                      : NULL;
    struct record *r = name ? record_get(M_POSIX, name, NULL) : NULL;
    if (r) {
        r->c[POSIX_OPENS]++;
        r->c[POSIX_FILENOS]++;
        r->c[POSIX_MEM_ALIGNMENT] = mem_align;
        r->c[POSIX_FILE_ALIGNMENT] = align; /* 0 for a standard stream: Darshan has no file system for a name */
        first_last(&r->f[POSIX_F_OPEN_START_TIMESTAMP], &r->f[POSIX_F_OPEN_END_TIMESTAMP], t1, t2);
        fd_push(ret, r);
        count_meta(r, C_fileno, -1, 0, POSIX_F_META_TIME, t1, t2);
    }
    pthread_mutex_unlock(&lock);
    inside--;
    errno = e;
    return ret;
}

/* IO_WRAP is the whole wrapper of a read or write f returning T: call, rw, off and buf as
 * posix_io takes them, then f's arguments. */
#define IO_WRAP(T, f, call, rw, off, buf, ...)                                                 \
    WRAP(T ret, f, active, __VA_ARGS__);                                                       \
    int64_t t2 = now_ns();                                                                     \
    int e = errno;                                                                             \
    posix_io(call, fd, rw, off, (int64_t)ret, buf, t1, t2);                                    \
    errno = e;                                                                                 \
    return ret;

ssize_t read(int fd, void *buf, size_t n) {
    IO_WRAP(ssize_t, read, C_read, 1, -1, buf, fd, buf, n);
}
ssize_t write(int fd, const void *buf, size_t n) {
    IO_WRAP(ssize_t, write, C_write, 2, -1, buf, fd, buf, n);
}
ssize_t pread(int fd, void *buf, size_t n, off_t off) {
    IO_WRAP(ssize_t, pread, C_pread, 1, off, buf, fd, buf, n, off);
}
ssize_t pread64(int fd, void *buf, size_t n, off64_t off) {
    IO_WRAP(ssize_t, pread64, C_pread, 1, off, buf, fd, buf, n, off);
}
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
    IO_WRAP(ssize_t, pwrite, C_pwrite, 2, off, buf, fd, buf, n, off);
}
ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off) {
    IO_WRAP(ssize_t, pwrite64, C_pwrite, 2, off, buf, fd, buf, n, off);
}
/* Vector calls: Darshan counts one access of the total size, aligned if every buffer is. */
static const void *iov_buf(const struct iovec *iov, int n) {
    for (int i = 0; i < n; i++)
        if ((uintptr_t)iov[i].iov_base % (uint64_t)mem_align) return iov[i].iov_base;
    return n > 0 ? iov[0].iov_base : NULL;
}
ssize_t readv(int fd, const struct iovec *iov, int n) {
    IO_WRAP(ssize_t, readv, C_readv, 1, -1, iov_buf(iov, n), fd, iov, n);
}
ssize_t writev(int fd, const struct iovec *iov, int n) {
    IO_WRAP(ssize_t, writev, C_writev, 2, -1, iov_buf(iov, n), fd, iov, n);
}
ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off) {
    IO_WRAP(ssize_t, preadv, C_preadv, 1, off, iov_buf(iov, n), fd, iov, n, off);
}
ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off) {
    IO_WRAP(ssize_t, pwritev, C_pwritev, 2, off, iov_buf(iov, n), fd, iov, n, off);
}

static off64_t seek_common(int fd, off64_t ret, int64_t t1, int64_t t2) {
    int e = errno;
    pthread_mutex_lock(&lock);
    count_call(C_lseek, t1, t2);
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
    WRAP(off_t ret, lseek, active, fd, off, whence);
    return (off_t)seek_common(fd, ret, t1, now_ns());
}
off64_t lseek64(int fd, off64_t off, int whence) {
    WRAP(off64_t ret, lseek64, active, fd, off, whence);
    return seek_common(fd, ret, t1, now_ns());
}

int fsync(int fd) {
    WRAP(int ret, fsync, active, fd);
    return posix_meta(C_fsync, fd, ret, POSIX_FSYNCS, POSIX_F_WRITE_TIME, t1, now_ns());
}
int fdatasync(int fd) {
    WRAP(int ret, fdatasync, active, fd);
    return posix_meta(C_fdatasync, fd, ret, POSIX_FDSYNCS, POSIX_F_WRITE_TIME, t1, now_ns());
}

/* The stat family as Darshan 3.5 counts it. Darshan wraps only __xstat, __lxstat and
 * __fxstat (and their 64-bit forms), the names glibc's headers called before glibc 2.33;
 * programs and libraries built against a later glibc (Debian 12's 2.36) call stat, lstat,
 * fstat and fstatat themselves, which Darshan does not see. So the __xstat family counts as
 * Darshan counts (POSIX_STATS, the record created for a path), and the newer names go into
 * the call table only: POSIX_STATS and the records equal a Darshan log of the same run. */

/* stat_path counts a stat by path that returned ret (0: done): the call, and, when counted
 * (the __xstat family), POSIX_STATS on the path's record (created if new, as Darshan does).
 * It returns ret, errno kept. */
static int stat_path(const char *path, int ret, int counted, int64_t t1, int64_t t2) {
    if (ret != 0 || !path) return ret;
    int e = errno;
    inside++;
    char abs[PATH_MAX];
    absolute(path, abs, sizeof abs);
    if (tracked(abs)) {
        pthread_mutex_lock(&lock);
        count_call(C_stat, t1, t2);
        struct record *r = counted ? record_get(M_POSIX, abs, NULL) : NULL;
        if (r) {
            r->c[POSIX_STATS]++;
            count_meta(r, C_stat, -1, 0, POSIX_F_META_TIME, t1, t2);
        }
        pthread_mutex_unlock(&lock);
    }
    inside--;
    errno = e;
    return ret;
}
/* stat_fd_uncounted puts a stat of a descriptor Darshan does not see into the call table. */
static int stat_fd_uncounted(int ret, int64_t t1, int64_t t2) {
    if (ret != 0) return ret;
    int e = errno;
    pthread_mutex_lock(&lock);
    count_call(C_stat, t1, t2);
    pthread_mutex_unlock(&lock);
    errno = e;
    return ret;
}
/* STAT_BY_PATH defines fn, a stat by path into a T; STAT_BY_FD fn, a stat of a descriptor:
 * the names Darshan 3.5 does not wrap, counted as calls only. */
#define STAT_BY_PATH(fn, T)                                                                    \
    int fn(const char *path, T *st) {                                                          \
        WRAP(int ret, fn, active, path, st);                                                   \
        return stat_path(path, ret, 0, t1, now_ns());                                          \
    }
#define STAT_BY_FD(fn, T)                                                                      \
    int fn(int fd, T *st) {                                                                    \
        WRAP(int ret, fn, active, fd, st);                                                     \
        return stat_fd_uncounted(ret, t1, now_ns());                                           \
    }
STAT_BY_PATH(stat, struct stat)
STAT_BY_PATH(stat64, struct stat64)
STAT_BY_PATH(lstat, struct stat)
STAT_BY_PATH(lstat64, struct stat64)
STAT_BY_FD(fstat, struct stat)
STAT_BY_FD(fstat64, struct stat64)
int fstatat(int dirfd, const char *path, struct stat *st, int flags) {
    WRAP(int ret, fstatat, active, dirfd, path, st, flags);
    if (dirfd != AT_FDCWD && path[0] != '/') return ret;
    return stat_path(path, ret, 0, t1, now_ns());
}
/* glibc before 2.33 exports stat through these. */
int __xstat(int ver, const char *path, struct stat *st) {
    WRAP(int ret, __xstat, active, ver, path, st);
    return stat_path(path, ret, 1, t1, now_ns());
}
int __lxstat(int ver, const char *path, struct stat *st) {
    WRAP(int ret, __lxstat, active, ver, path, st);
    return stat_path(path, ret, 1, t1, now_ns());
}
int __fxstat(int ver, int fd, struct stat *st) {
    WRAP(int ret, __fxstat, active, ver, fd, st);
    return posix_meta(C_stat, fd, ret, POSIX_STATS, POSIX_F_META_TIME, t1, now_ns());
}
int __xstat64(int ver, const char *path, struct stat64 *st) {
    WRAP(int ret, __xstat64, active, ver, path, st);
    return stat_path(path, ret, 1, t1, now_ns());
}
int __lxstat64(int ver, const char *path, struct stat64 *st) {
    WRAP(int ret, __lxstat64, active, ver, path, st);
    return stat_path(path, ret, 1, t1, now_ns());
}
int __fxstat64(int ver, int fd, struct stat64 *st) {
    WRAP(int ret, __fxstat64, active, ver, fd, st);
    return posix_meta(C_stat, fd, ret, POSIX_STATS, POSIX_F_META_TIME, t1, now_ns());
}
