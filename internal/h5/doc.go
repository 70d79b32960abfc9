// Package h5 is a thin cgo layer over parallel HDF5 1.10 (the system libhdf5-openmpi). It turns
// the data-only descriptions of package patterns (datatypes, selections, dataset, attribute and
// file specs) into HDF5 calls.
//
// # Concurrency
//
// The system HDF5 is not thread-safe. Every exported function holds one package-level gate
// for its whole sequence of HDF5 calls, so at most one HDF5 call runs at a time in the
// process; the sequence also runs on one locked OS thread, so the MPI calls parallel HDF5
// makes never hop threads in the middle of an operation. Under MPI_THREAD_FUNNELED the caller
// must itself run on the thread that initialized MPI (runtime.LockOSThread on the main
// goroutine); the gate does not move work to another thread.
//
// The library is initialized lazily on the first call, never at package init, so a host that
// initializes MPI before its first HDF5 call gets HDF5's MPI_Finalize cleanup hook.
//
// On a parallel file the usual parallel HDF5 rules apply: file create/open/close, group,
// dataset and attribute creation are collective (every rank calls them with the same
// arguments); Write and Read with collective set are collective too.
//
// # Errors
//
// Automatic error printing is turned off on first use. A failing HDF5 call yields an *Error
// carrying the HDF5 error stack; nothing is printed to stderr. Invalid identifiers (0,
// negative, closed, or of the wrong kind) yield an error wrapping ErrInvalidID.
//
// # Drivers
//
// Files opened with Access.Parallel use the MPI-IO driver; others use sec2 (or core for
// serial reads). Write and Read take the driver of a dataset's file from what CreateFile or
// OpenFile recorded (asking HDF5 through H5Fget_access_plist would duplicate an MPI-IO
// file's communicator, a collective call, per dataset): collective transfers
// use an MPI-IO transfer property list only for MPI-IO files; on a serial file both modes use
// H5P_DEFAULT, because HDF5 rejects collective transfers on non-MPI drivers.
//
// # Memory
//
// Transfer buffers are []byte that may live outside the Go heap (mmap). They are handed to
// HDF5 only for the duration of a call; no Go pointer is retained by C.
//
// Built without cgo, the package keeps its API and every call returns ErrNoCgo.
package h5
