/**
 * @file h5proxy.h
 * @brief C ABI of libh5proxy, the embeddable HDF5 I/O proxy.
 *
 * A simulation keeps its MPI set-up, replaces its compute loop by emulated compute
 * (h5proxy_compute) and calls proxy I/O phases that issue the HDF5 I/O its real output
 * would (same groups, datasets, datatypes, selections and collective calls per step).
 *
 * @code
 *   h5proxy_session_t s = 0;
 *   if (h5proxy_session_create(MPI_COMM_WORLD, "vpic",
 *                              "TIMESTEPS=4;DIM_1=1M;file=/scratch/particles.h5",
 *                              NULL, &s) != H5PROXY_OK) {
 *       fprintf(stderr, "%s\n", h5proxy_last_error());
 *       MPI_Abort(MPI_COMM_WORLD, 1);
 *   }
 *   h5proxy_session_run(s);            // write phase, then verified read phase
 *   h5proxy_report_write(s, 1);        // summary on rank 0, CSV/JSON if configured
 *   h5proxy_session_close(s);
 * @endcode
 *
 * @par The whole contract
 * This header and capi/CONTRACT.md are the contract of the C ABI. In short:
 *  - Every function returning @c int returns a status: ::H5PROXY_OK (0) or one of the
 *    negative ::h5proxy_status codes. Callers treat a code they do not know as
 *    ::H5PROXY_ERR_INTERNAL (new codes may be added in later versions).
 *  - A failed call stores a message in a per-thread slot, read with h5proxy_last_error()
 *    or h5proxy_last_error_copy(). It names the function, the offending key, value,
 *    handle or dataset, and for HDF5 failures the HDF5 error stack. Successful calls
 *    leave the slot unchanged (errno semantics): read it only after a failure.
 *  - Handles are opaque non-zero integers validated on every call: 0, a closed handle or a
 *    handle never issued gives ::H5PROXY_ERR_INVALID_HANDLE, never a crash. Handle values
 *    only increase and are never reused within a process.
 *  - NULL pointers are rejected with ::H5PROXY_ERR_INVALID_ARGUMENT unless a function's
 *    documentation says the argument may be NULL.
 *  - Strings passed in are read during the call only; the library keeps no pointer to
 *    caller memory. Strings are returned by copying into caller buffers; the library
 *    returns no memory the caller must free.
 *  - @b Collective functions must be called by every rank of the session's communicator,
 *    in the same order, with the same arguments (the same options, metric names, phase
 *    constants and step numbers). @b Local functions involve no other rank.
 *  - @b Threads: the HDF5 library used is not thread-safe; the library serializes its
 *    HDF5 calls process-wide. A session is used by one thread at a time (any thread, one
 *    after the other): a call on a session while another thread is inside a call on it
 *    returns ::H5PROXY_ERR_STATE ("in use by a call on another thread") and does nothing.
 *    Calls on different sessions may overlap only for sessions on communicators of one
 *    rank (MPI_COMM_SELF); otherwise at most one thread of a process may be inside a
 *    session call at a time. The error slot is per thread. MPI must be initialized by the
 *    host (MPI_Init or MPI_Init_thread) before h5proxy_session_create; a host that calls
 *    h5proxy from several threads must initialize MPI with MPI_THREAD_MULTIPLE.
 *  - The library never calls MPI_Init, MPI_Finalize, MPI_Abort, exit or abort, and a
 *    Go panic inside the library is returned as ::H5PROXY_ERR_PANIC (its stack is
 *    written to stderr). Call h5proxy_finalize() before MPI_Finalize.
 *
 * @par Modes, layouts and patterns of this build
 * The values of the session keys @c mode and @c layout and the pattern names
 * h5proxy_session_create() accepts (h5proxy_patterns_list() returns the patterns):
 *  - modes: sync, async, async-model, cache, cache-model
 *  - layouts: native, mpiio, posix, null, log, log-vol, subfiling, subfiling-vfd
 *  - patterns: vpic, amrex, openpmd, e3sm, iotest, exerciser, vpic-unlimited, vpic-normal-dist, vpic-overwrite, vpic-append, dlio, ior, h5perf, nova, macsio, app
 *
 * The background modes (async, cache) issue HDF5 and MPI-IO calls from a second thread:
 * they need MPI initialized with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) and return
 * ::H5PROXY_ERR_THREAD_LEVEL otherwise.
 *
 * Not yet provided: binding application buffers (writing the host's own arrays instead of
 * generated fills); see capi/CONTRACT.md.
 */
#ifndef H5PROXY_H
#define H5PROXY_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @name Version
 *  The version of this header. h5proxy_abi_version() returns the ABI version of the
 *  library actually linked: compare it with ::H5PROXY_ABI_VERSION.
 *  @{ */
#define H5PROXY_VERSION_MAJOR 0 /**< Major version. */
#define H5PROXY_VERSION_MINOR 1 /**< Minor version. */
#define H5PROXY_VERSION_PATCH 0 /**< Patch version. */
/** ABI version: incremented on any incompatible change of a prototype, a constant or a
 *  documented behaviour. It is the major number of the library's soname. */
#define H5PROXY_ABI_VERSION 1
/** @} */

/**
 * @brief Status codes returned by every function that returns @c int.
 *
 * ::H5PROXY_OK is 0 and every error is negative. Codes may be added in later versions:
 * treat an unknown negative code as ::H5PROXY_ERR_INTERNAL.
 */
typedef enum h5proxy_status {
    H5PROXY_OK = 0,                    /**< Success. */
    H5PROXY_ERR_INVALID_ARGUMENT = -1, /**< NULL pointer, out-of-range number, unknown
                                            metric or phase constant, bad buffer. */
    H5PROXY_ERR_INVALID_HANDLE = -2,   /**< Handle 0, closed, finalized or never issued. */
    H5PROXY_ERR_CONFIG = -3,           /**< Bad configuration: unknown pattern, key or
                                            value; the message names key, value and the
                                            allowed set. */
    H5PROXY_ERR_HDF5 = -4,             /**< An HDF5 call failed; the message carries the
                                            HDF5 error stack. */
    H5PROXY_ERR_MPI = -5,              /**< An MPI call failed, MPI is not initialized
                                            (or already finalized), or the communicator
                                            is MPI_COMM_NULL or invalid. */
    H5PROXY_ERR_IO = -6,               /**< A file system or other I/O error: a config
                                            file, an output directory or a report file
                                            that cannot be read or written. */
    H5PROXY_ERR_STATE = -7,            /**< Call out of order (a step outside a phase, a
                                            phase begun twice, a report during a phase)
                                            or concurrent use of one session. */
    H5PROXY_ERR_UNSUPPORTED = -8,      /**< A mode or layout declared but not part of
                                            this build. */
    H5PROXY_ERR_PANIC = -9,            /**< A bug: a Go panic was recovered at the ABI
                                            boundary (stack written to stderr). */
    H5PROXY_ERR_INTERNAL = -10,        /**< Any other internal failure. */
    H5PROXY_ERR_VERIFY = -11,          /**< A verified read found data that differs
                                            from what was written. */
    H5PROXY_ERR_THREAD_LEVEL = -12     /**< A background mode (async, cache) when MPI
                                            was not initialized with
                                            MPI_THREAD_MULTIPLE: call
                                            MPI_Init_thread(..., MPI_THREAD_MULTIPLE,
                                            ...) or use mode=sync. */
} h5proxy_status;

/**
 * @brief Phase constants for h5proxy_phase_begin() and the @c phase_index order of
 * reports.
 */
typedef enum h5proxy_phase {
    H5PROXY_PHASE_WRITE = 1, /**< The pattern's write (checkpoint/output) phase. */
    H5PROXY_PHASE_READ = 2   /**< The pattern's read (restart/analysis) phase. */
} h5proxy_phase;

/**
 * @brief Session handle: a non-zero opaque id (0 is never valid).
 *
 * Created by h5proxy_session_create() or h5proxy_session_create_f(), ended by
 * h5proxy_session_close() (or h5proxy_finalize() for sessions left open). Values only
 * increase and are never reused, so a stale copy of a closed handle is always detected.
 * Fortran stores it in an @c integer(c_int64_t).
 */
typedef uint64_t h5proxy_session_t;

/* ------------------------------------------------------------------------------------ */
/** @name Library
 *  @{ */

/**
 * @brief ABI version of the linked library (compare with ::H5PROXY_ABI_VERSION).
 *
 * Local; may be called at any time, before MPI_Init too. Never fails.
 * @return the library's ABI version (1 for this header).
 */
int h5proxy_abi_version(void);

/**
 * @brief Message of the calling thread's last failed call.
 *
 * Local; may be called at any time and does not change the message.
 * @return a NUL-terminated string owned by the library (never NULL; "" when no call on
 *         this thread has failed yet). It stays valid until the next h5proxy call on the
 *         same thread; copy it to keep it. Never free it.
 */
const char *h5proxy_last_error(void);

/**
 * @brief Copy the calling thread's last error message into a caller buffer.
 *
 * The two-call pattern: call with @p buf NULL and @p len 0 to learn the size in
 * @p needed, then with a buffer of that size. Local. The stored message is not changed,
 * even when this call fails.
 *
 * @param buf    destination; may be NULL only when @p len is 0.
 * @param len    size of @p buf in bytes. When it is smaller than the message, the copy is
 *               truncated to @p len - 1 bytes and NUL-terminated (nothing is written
 *               when @p len is 0); the call still returns ::H5PROXY_OK: compare
 *               @p needed with @p len to detect truncation.
 * @param needed receives the message length plus the terminating NUL; may be NULL.
 * @return ::H5PROXY_OK, or ::H5PROXY_ERR_INVALID_ARGUMENT when @p buf is NULL and
 *         @p len is not 0.
 */
int h5proxy_last_error_copy(char *buf, size_t len, size_t *needed);

/**
 * @brief Static description of a status code.
 *
 * Local; may be called at any time.
 * @param code a status code.
 * @return a static NUL-terminated string such as "H5PROXY_ERR_CONFIG: bad configuration";
 *         an unknown code gives the ::H5PROXY_ERR_INTERNAL text prefixed by "unknown
 *         status code". Never NULL; never free it.
 */
const char *h5proxy_strerror(int code);

/**
 * @brief List the registered I/O patterns (for example "vpic").
 *
 * Names are separated by '\n' with no trailing newline. Copy semantics as in
 * h5proxy_last_error_copy() (truncated copy, ::H5PROXY_OK, full size in @p needed).
 * Local; may be called before MPI_Init.
 *
 * @param buf    destination; may be NULL only when @p len is 0.
 * @param len    size of @p buf in bytes.
 * @param needed receives the text length plus the terminating NUL; may be NULL.
 * @return ::H5PROXY_OK or ::H5PROXY_ERR_INVALID_ARGUMENT (@p buf NULL with @p len > 0).
 */
int h5proxy_patterns_list(char *buf, size_t len, size_t *needed);

/**
 * @brief Help text of a pattern's option keys, or of the session keys.
 *
 * One line per key: name, kind, default, description and allowed values. Copy semantics
 * as in h5proxy_last_error_copy(). Local; may be called before MPI_Init.
 *
 * @param pattern a pattern name from h5proxy_patterns_list(), or "session" for the keys
 *                every pattern shares (file, mode, layout, compute_time, ...).
 * @param buf     destination; may be NULL only when @p len is 0.
 * @param len     size of @p buf in bytes.
 * @param needed  receives the text length plus the terminating NUL; may be NULL.
 * @return ::H5PROXY_OK, ::H5PROXY_ERR_INVALID_ARGUMENT (@p pattern NULL, @p buf NULL with
 *         @p len > 0) or ::H5PROXY_ERR_CONFIG (unknown pattern; the message lists the
 *         available ones).
 */
int h5proxy_options_help(const char *pattern, char *buf, size_t len, size_t *needed);

/**
 * @brief Close every session still open, writing one line per leaked session to stderr.
 *
 * Sessions are closed in the order they were created. Because closing is collective,
 * h5proxy_finalize() is collective over the communicators of the sessions left open:
 * call it on every rank, before MPI_Finalize. It does not finalize MPI, and the library
 * stays usable afterwards (new sessions may be created). Calling it with no session open
 * is a cheap no-op.
 *
 * @return ::H5PROXY_OK when nothing was open or every leaked session closed cleanly;
 *         otherwise the code of the first failed close, or ::H5PROXY_ERR_MPI when MPI was
 *         already finalized (the sessions are then dropped without releasing their MPI
 *         resources), or ::H5PROXY_ERR_STATE when another thread is inside a call on
 *         a leaked session: that session stays open (a later h5proxy_finalize closes
 *         it). Every other handle is invalid afterwards in all cases.
 */
int h5proxy_finalize(void);

/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Sessions
 *  @{ */

/**
 * @brief Create a session: a validated configuration, a duplicate of @p comm and the I/O
 *        stack. No file is touched yet.
 *
 * Collective on @p comm. Every rank must pass the same @p pattern, @p options and
 * @p config_file contents; configuration errors are detected before any communication,
 * so they are reported identically on every rank.
 *
 * @param comm        the host's communicator (not MPI_COMM_NULL). The session works on a
 *                    duplicate, so its collectives never interleave with the host's; the
 *                    caller keeps ownership of @p comm.
 * @param pattern     registered pattern name (see h5proxy_patterns_list()), e.g. "vpic".
 *                    May be NULL or "" when @p config_file names the pattern; when both
 *                    are given they must agree.
 * @param options     "KEY=VALUE" items separated by ';' or newlines; blank items and
 *                    items starting with '#' are skipped. Keys are the session keys
 *                    (h5proxy_options_help("session")) and the pattern's keys (h5bench
 *                    spellings: TIMESTEPS, DIM_1, COLLECTIVE_DATA, ...), case-insensitive.
 *                    Options override @p config_file. May be NULL (no options).
 * @param config_file path of a native JSON configuration ({"pattern":..,"phases":[..],
 *                    "session":{..},"options":{..},"mpi_info":{..}}). May be NULL (none).
 * @param session     receives the new handle on success and 0 on failure. Must not be
 *                    NULL. The caller owns the session and ends it with
 *                    h5proxy_session_close().
 * @return ::H5PROXY_OK, ::H5PROXY_ERR_INVALID_ARGUMENT (@p session NULL, no pattern, comm
 *         MPI_COMM_NULL), ::H5PROXY_ERR_CONFIG (unknown pattern, key or value, missing
 *         file key, contradiction), ::H5PROXY_ERR_UNSUPPORTED (mode or layout not in this
 *         build), ::H5PROXY_ERR_THREAD_LEVEL (mode async or cache when MPI does not
 *         provide MPI_THREAD_MULTIPLE), ::H5PROXY_ERR_IO (@p config_file unreadable),
 *         ::H5PROXY_ERR_MPI (MPI not
 *         initialized or finalized, invalid communicator, duplication failed),
 *         ::H5PROXY_ERR_PANIC.
 */
int h5proxy_session_create(MPI_Comm comm, const char *pattern, const char *options,
                           const char *config_file, h5proxy_session_t *session);

/**
 * @brief h5proxy_session_create() taking a Fortran communicator handle (MPI_Fint), as
 *        given by MPI_Comm_c2f or by Fortran's @c mpi / @c mpi_f08 (%MPI_VAL) modules.
 *
 * Same contract as h5proxy_session_create(); an invalid handle gives ::H5PROXY_ERR_MPI.
 */
int h5proxy_session_create_f(MPI_Fint comm, const char *pattern, const char *options,
                             const char *config_file, h5proxy_session_t *session);

/**
 * @brief End a session: an unfinished phase is aborted (its files closed), buffers are
 *        released, the timeline is written when trace_file is set (rank 0 merges every
 *        rank's part) and the communicator duplicate is freed.
 *
 * Collective. The handle is invalid after this call whatever it returns; closing it again
 * returns ::H5PROXY_ERR_INVALID_HANDLE.
 *
 * @return ::H5PROXY_OK, ::H5PROXY_ERR_INVALID_HANDLE, ::H5PROXY_ERR_STATE (a phase was
 *         still running: it was aborted, the session is closed anyway),
 *         ::H5PROXY_ERR_MPI, ::H5PROXY_ERR_HDF5, ::H5PROXY_ERR_PANIC.
 */
int h5proxy_session_close(h5proxy_session_t session);

/**
 * @brief Number of steps the pattern is configured for (e.g. TIMESTEPS). Local.
 * @param steps receives the count; must not be NULL.
 * @return ::H5PROXY_OK, ::H5PROXY_ERR_INVALID_HANDLE or ::H5PROXY_ERR_INVALID_ARGUMENT.
 */
int h5proxy_session_steps(h5proxy_session_t session, int *steps);

/**
 * @brief Calling process's rank in the session's communicator. Local.
 * @param rank receives the rank; must not be NULL.
 * @return ::H5PROXY_OK, ::H5PROXY_ERR_INVALID_HANDLE or ::H5PROXY_ERR_INVALID_ARGUMENT.
 */
int h5proxy_session_rank(h5proxy_session_t session, int *rank);

/**
 * @brief Number of ranks of the session's communicator. Local.
 * @param size receives the number of ranks; must not be NULL.
 * @return ::H5PROXY_OK, ::H5PROXY_ERR_INVALID_HANDLE or ::H5PROXY_ERR_INVALID_ARGUMENT.
 */
int h5proxy_session_size(h5proxy_session_t session, int *size);

/**
 * @brief Run every configured phase (by default the write phase, then a read phase that
 *        verifies every element against the seeded fill), each with the configured
 *        compute_time emulated between steps.
 *
 * Collective.
 * @return ::H5PROXY_OK, ::H5PROXY_ERR_INVALID_HANDLE, ::H5PROXY_ERR_STATE (a phase begun
 *         with h5proxy_phase_begin() is running), ::H5PROXY_ERR_HDF5, ::H5PROXY_ERR_MPI,
 *         ::H5PROXY_ERR_IO (e.g. missing output directory or input file),
 *         ::H5PROXY_ERR_VERIFY (data read differs from data written),
 *         ::H5PROXY_ERR_PANIC. After a failure the failed phase's files are closed and
 *         the session can run another phase.
 */
int h5proxy_session_run(h5proxy_session_t session);

/**
 * @brief Wait until every I/O operation issued so far has completed, and return the
 *        first error of a background operation. In sync mode everything completes
 *        inline and this returns at once. Local.
 * @return ::H5PROXY_OK, ::H5PROXY_ERR_INVALID_HANDLE, or the code of the failed
 *         operation.
 */
int h5proxy_session_wait(h5proxy_session_t session);

/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Phases (step-by-step control)
 *  Replace h5proxy_session_run() by: begin, then for each step 0..steps-1 a
 *  h5proxy_phase_step() (with h5proxy_compute() between steps), then end.
 *  @{ */

/**
 * @brief Begin a phase: check the file system, then create (write) or open (read) the
 *        file as the pattern plans.
 *
 * Collective. A read phase after a write phase of the same file verifies every element
 * unless verify=no; verify=yes verifies any file written with the same seed.
 *
 * @param phase ::H5PROXY_PHASE_WRITE or ::H5PROXY_PHASE_READ.
 * @return ::H5PROXY_OK, ::H5PROXY_ERR_INVALID_HANDLE, ::H5PROXY_ERR_INVALID_ARGUMENT
 *         (unknown phase constant), ::H5PROXY_ERR_STATE (a phase is already running, or
 *         the pattern has no such phase), ::H5PROXY_ERR_IO, ::H5PROXY_ERR_HDF5,
 *         ::H5PROXY_ERR_MPI, ::H5PROXY_ERR_PANIC.
 */
int h5proxy_phase_begin(h5proxy_session_t session, int phase);

/**
 * @brief Issue the I/O of one step of the running phase (data generation, HDF5 calls,
 *        verification of reads).
 *
 * Collective. Steps run in order from 0: @p step must be the next step of the phase.
 * Any failure aborts the phase (its files are closed); begin a new phase to go on.
 *
 * @param step the step number, 0 <= step < h5proxy_session_steps().
 * @return ::H5PROXY_OK, ::H5PROXY_ERR_INVALID_HANDLE, ::H5PROXY_ERR_INVALID_ARGUMENT
 *         (@p step < 0 or >= the number of steps), ::H5PROXY_ERR_STATE (no phase
 *         running, or @p step is not the next step), ::H5PROXY_ERR_HDF5, ::H5PROXY_ERR_MPI, ::H5PROXY_ERR_PANIC.
 */
int h5proxy_phase_step(h5proxy_session_t session, int step);

/**
 * @brief End the running phase: close what it left open and its file, wait for pending
 *        I/O, and for verified reads check every rank's verdict.
 *
 * Collective.
 * @return ::H5PROXY_OK, ::H5PROXY_ERR_INVALID_HANDLE, ::H5PROXY_ERR_STATE (no phase
 *         running), ::H5PROXY_ERR_VERIFY (the same code on every rank; the message gives
 *         the number of mismatching elements and, on a rank that found some, the first:
 *         the file it was read from, the step, the dataset and the element's index),
 *         ::H5PROXY_ERR_HDF5,
 *         ::H5PROXY_ERR_MPI, ::H5PROXY_ERR_PANIC.
 */
int h5proxy_phase_end(h5proxy_session_t session);

/**
 * @brief Emulate application compute (sleep or spin, per the compute_kind key) and charge
 *        it to the running phase's last step, or to the next phase when none is running.
 *
 * Local.
 * @param seconds duration; a negative (finite) value means the configured compute_time
 *                per step; 0 returns at once.
 * @return ::H5PROXY_OK, ::H5PROXY_ERR_INVALID_HANDLE, ::H5PROXY_ERR_INVALID_ARGUMENT
 *         (NaN, infinite, or longer than 10^6 s).
 */
int h5proxy_compute(h5proxy_session_t session, double seconds);

/** @} */

/* ------------------------------------------------------------------------------------ */
/** @name Reports
 *  @{ */

/**
 * @brief Reduce the measurements of every finished phase over the ranks and write the
 *        configured outputs on rank 0: the h5bench-style summary to stdout if
 *        @p print_summary is non-zero (it includes the "Mode:" line), the CSV of the last
 *        phase to csv_file and the JSON report to report_file when configured.
 *
 * Collective. The summary is written to C stdio's stdout and flushed, so it stays in
 * order with the host's printf output. Every rank returns the same status.
 *
 * @return ::H5PROXY_OK, ::H5PROXY_ERR_INVALID_HANDLE, ::H5PROXY_ERR_STATE (a phase is
 *         running), ::H5PROXY_ERR_IO (rank 0 could not write a report file),
 *         ::H5PROXY_ERR_MPI, ::H5PROXY_ERR_PANIC.
 */
int h5proxy_report_write(h5proxy_session_t session, int print_summary);

/**
 * @brief One reduced metric of a finished phase, in SI units (s, B, B/s).
 *
 * Collective: the first call after a phase ended reduces the measurements over the
 * ranks; later calls reuse that reduction until another phase ends. Times are the
 * slowest rank's, bytes and mismatches are sums over ranks (h5bench names and formulas).
 *
 * @param phase_index index of the phase among the finished ones, from 0 in the order they
 *                    ended (after h5proxy_session_run() with defaults: 0 = write,
 *                    1 = read).
 * @param metric      one of: bytes, observed_time, raw_rate, observed_rate, raw_time,
 *                    metadata_time, file_open_time, file_flush_time, file_close_time,
 *                    compute_time, prep_time, verify_time, wait_time, mismatches, steps.
 * @param value       receives the value; must not be NULL.
 * @return ::H5PROXY_OK, ::H5PROXY_ERR_INVALID_HANDLE, ::H5PROXY_ERR_INVALID_ARGUMENT
 *         (NULL pointer, unknown metric, @p phase_index out of range),
 *         ::H5PROXY_ERR_STATE (a phase is running), ::H5PROXY_ERR_MPI,
 *         ::H5PROXY_ERR_PANIC.
 */
int h5proxy_report_metric(h5proxy_session_t session, int phase_index, const char *metric,
                          double *value);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* H5PROXY_H */
