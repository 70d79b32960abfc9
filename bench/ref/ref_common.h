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

/* ref_init starts MPI as h5bench does (MPI_THREAD_MULTIPLE) and returns rank and size. */
static inline void ref_init(int *argc, char ***argv, int *rank, int *nranks)
{
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, nranks);
}

/* ref_summary prints h5bench's performance summary for op ("write" or "read"): the banner,
 * ranks, compute time (none here), size, raw and metadata time, the lines in between
 * (extra, may be NULL), the observed time under its h5bench name, both rates and the
 * closing line. */
static inline void ref_summary(const char *op, int nranks, double bytes, double raw_s, double meta_s,
                               const char *extra, const char *observed_name, double obs_s)
{
    char u;
    printf("\n=================== Performance Results ==================\n");
    printf("Total number of ranks: %d\n", nranks);
    printf("Total emulated compute time: %.3lf s\n", 0.0);
    double v = ref_human(bytes, &u);
    printf("Total %s size: %.3lf %cB\n", op, v, u);
    printf("Raw %s time: %.3f s\n", op, raw_s);
    printf("Metadata time: %.3f s\n", meta_s);
    if (extra != NULL)
        fputs(extra, stdout);
    printf("%s: %.3f s\n", observed_name, obs_s);
    v = ref_human(bytes / raw_s, &u);
    printf("SYNC Raw %s rate: %.3f %cB/s \n", op, v, u);
    v = ref_human(bytes / obs_s, &u);
    printf("SYNC Observed %s rate: %.3f %cB/s\n", op, v, u);
    printf("===========================================================\n");
}

#endif
