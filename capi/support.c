/*
 * The C side of libh5proxy's ABI: the per-thread last-error slot, status strings, copies
 * into caller buffers, communicator conversion and stdio output. It lives in a .c file
 * because a Go file with //export cannot define C functions or data in its preamble (the
 * preamble is compiled twice). Nothing here is exported from the library: the public
 * entry points are the Go //export functions declared in include/h5proxy.h.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5p_internal.h"
#include "h5proxy.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* The calling thread's last error message: a heap buffer grown on demand, freed by a
 * thread-exit destructor registered the first time a thread stores a message. */
static __thread char *err_msg;
static __thread size_t err_cap;
static __thread size_t err_len;
static pthread_key_t err_key;
static pthread_once_t err_once = PTHREAD_ONCE_INIT;
static int err_key_ok;

/* Used when allocation fails: the message is truncated into this buffer. */
static __thread char err_fallback[256];

static void err_free(void *p) { free(p); }
static void err_key_init(void) { err_key_ok = pthread_key_create(&err_key, err_free) == 0; }

HIDDEN void h5p_error_set(const char *msg, size_t n) {
    if (n + 1 > err_cap) {
        size_t cap = err_cap ? err_cap : 256;
        while (cap < n + 1) cap *= 2;
        char *p = realloc(err_msg == err_fallback ? NULL : err_msg, cap);
        if (p == NULL) {
            if (err_msg != err_fallback) free(err_msg);
            err_msg = err_fallback;
            err_cap = sizeof err_fallback;
            if (n >= err_cap) n = err_cap - 1;
        } else {
            err_msg = p;
            err_cap = cap;
            pthread_once(&err_once, err_key_init);
            if (err_key_ok) pthread_setspecific(err_key, p);
        }
    }
    memcpy(err_msg, msg, n);
    err_msg[n] = '\0';
    err_len = n;
}

HIDDEN const char *h5p_error_get(void) { return err_msg ? err_msg : ""; }

HIDDEN int h5p_copy_out(const char *text, size_t n, char *buf, size_t len, size_t *needed) {
    if (buf == NULL && len != 0) return -1;
    if (needed != NULL) *needed = n + 1;
    if (len == 0) return 0;
    size_t k = n < len - 1 ? n : len - 1;
    memcpy(buf, text, k);
    buf[k] = '\0';
    return 0;
}

HIDDEN int h5p_error_copy(char *buf, size_t len, size_t *needed) {
    return h5p_copy_out(h5p_error_get(), err_msg ? err_len : 0, buf, len, needed);
}

HIDDEN const char *h5p_strerror(int code) {
    switch ((h5proxy_status)code) {
    case H5PROXY_OK: return "H5PROXY_OK: success";
    case H5PROXY_ERR_INVALID_ARGUMENT: return "H5PROXY_ERR_INVALID_ARGUMENT: invalid argument";
    case H5PROXY_ERR_INVALID_HANDLE: return "H5PROXY_ERR_INVALID_HANDLE: invalid, closed or never issued handle";
    case H5PROXY_ERR_CONFIG: return "H5PROXY_ERR_CONFIG: bad configuration";
    case H5PROXY_ERR_HDF5: return "H5PROXY_ERR_HDF5: an HDF5 call failed";
    case H5PROXY_ERR_MPI: return "H5PROXY_ERR_MPI: an MPI call failed or MPI is not active";
    case H5PROXY_ERR_IO: return "H5PROXY_ERR_IO: file system or I/O error";
    case H5PROXY_ERR_STATE: return "H5PROXY_ERR_STATE: call out of order or concurrent use";
    case H5PROXY_ERR_UNSUPPORTED: return "H5PROXY_ERR_UNSUPPORTED: not supported by this build";
    case H5PROXY_ERR_PANIC: return "H5PROXY_ERR_PANIC: internal panic recovered (a bug; stack on stderr)";
    case H5PROXY_ERR_INTERNAL: return "H5PROXY_ERR_INTERNAL: internal error";
    case H5PROXY_ERR_VERIFY: return "H5PROXY_ERR_VERIFY: data read differs from data written";
    case H5PROXY_ERR_THREAD_LEVEL: return "H5PROXY_ERR_THREAD_LEVEL: mode async or cache needs MPI initialized with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...)";
    }
    return "unknown status code (treat as H5PROXY_ERR_INTERNAL: internal error)";
}

HIDDEN MPI_Fint h5p_comm_c2f(MPI_Comm comm, int *is_null) {
    *is_null = comm == MPI_COMM_NULL;
    if (*is_null) return 0;
    return MPI_Comm_c2f(comm);
}

HIDDEN int h5p_stdout_write(const char *text, size_t n) {
    if (n > 0 && fwrite(text, 1, n, stdout) != n) return -1;
    return fflush(stdout) == 0 ? 0 : -1;
}
