package proxy

import "github.com/h5proxy/h5proxy/internal/libc"

// FlushProfile has libh5proxy-profile.so (docs/profile.md), when the process runs under it,
// write its records now. Go programs end with the exit_group system call, which runs no exit
// handlers, so a command without MPI calls this before exiting; under MPI the records are
// written at MPI_Finalize and this does nothing.
func FlushProfile() { libc.FlushProfile() }
