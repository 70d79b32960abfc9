/* Shared helpers of the reference programs in bench/ref: wall-clock time in microseconds
 * (the unit h5bench's timers count in), h5bench's human-readable sizes, argument parsing
 * that names the bad argument, and an abort that takes every rank down. */
#ifndef H5PROXY_REF_COMMON_H
#define H5PROXY_REF_COMMON_H

#include <errno.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

/* ref_usec is the wall clock in microseconds, like h5bench's get_time_usec. */
static inline unsigned long ref_usec(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (unsigned long)tv.tv_sec * 1000000UL + (unsigned long)tv.tv_usec;
}

/* ref_die prints the message on the calling rank and aborts the job: a reference run that
 * half-ran must not print figures. */
#define ref_die(...)                                                                        \
    do {                                                                                    \
        fprintf(stderr, __VA_ARGS__);                                                       \
        fputc('\n', stderr);                                                                \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                       \
        exit(1);                                                                            \
    } while (0)

/* REF_CHECK aborts when an HDF5 call returned a negative id or status. */
#define REF_CHECK(expr)                                                                     \
    do {                                                                                    \
        if ((expr) < 0)                                                                     \
            ref_die("%s:%d: %s failed", __FILE__, __LINE__, #expr);                         \
    } while (0)

/* ref_ull parses a non-negative integer argument, naming it when it is not one. */
static inline unsigned long long ref_ull(const char *name, const char *s)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-')
        ref_die("argument %s: %s is not a non-negative integer", name, s);
    return v;
}

/* ref_yesno parses yes/no (any case), naming the argument otherwise. */
static inline int ref_yesno(const char *name, const char *s)
{
    if (strcasecmp(s, "yes") == 0)
        return 1;
    if (strcasecmp(s, "no") == 0)
        return 0;
    ref_die("argument %s: %s is neither yes nor no", name, s);
    return 0;
}

/* ref_human scales bytes (or bytes/s) to h5bench's units: value and unit letter K/M/G/T. */
static inline double ref_human(double v, char *unit)
{
    static const char units[] = " KMGT";
    int i = 0;
    while (v >= 1024 && i < 4) {
        v /= 1024;
        i++;
    }
    *unit = units[i];
    return v;
}

#endif
