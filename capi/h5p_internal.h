/*
 * Internal helpers of libh5proxy's C side (capi/support.c), declared for the Go files'
 * cgo preambles. Not installed, not part of the ABI: every symbol is hidden.
 */
#ifndef H5P_INTERNAL_H
#define H5P_INTERNAL_H

#include <mpi.h>
#include <stddef.h>

/* h5p_error_set stores n bytes of msg as the calling thread's last error message. */
void h5p_error_set(const char *msg, size_t n);
/* h5p_error_get returns the calling thread's last error message ("" if none). */
const char *h5p_error_get(void);
/* h5p_error_copy copies the calling thread's message with the two-call copy semantics;
 * returns 0, or -1 when buf is NULL and len is not 0. */
int h5p_error_copy(char *buf, size_t len, size_t *needed);
/* h5p_copy_out copies n bytes of text into buf with the same semantics. */
int h5p_copy_out(const char *text, size_t n, char *buf, size_t len, size_t *needed);
/* h5p_strerror returns the static description of a status code. */
const char *h5p_strerror(int code);
/* h5p_comm_c2f converts a C communicator to its Fortran handle; *is_null is set when comm
 * is MPI_COMM_NULL. Only valid while MPI is initialized. */
MPI_Fint h5p_comm_c2f(MPI_Comm comm, int *is_null);
/* h5p_stdout_write writes n bytes to C stdio's stdout and flushes it; returns 0 or -1. */
int h5p_stdout_write(const char *text, size_t n);

#endif
