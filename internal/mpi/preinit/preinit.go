//go:build cgo

// Package preinit initializes MPI before any Go code runs, in a program whose HDF5 loads
// the Cache VOL or the log-based VOL (HDF5_VOL_CONNECTOR names cache_ext or LOG). That connector's init, run when HDF5
// starts, initializes MPI itself when it is not up yet (vol-cache 1.2.1,
// H5VL_cache_ext_init: MPI_Init_thread), and HDF5 starts before main:
// gonum.org/v1/hdf5's package init asks HDF5 for its property list classes. MPI would then
// be up before internal/mpi.Init, which would not own it (nobody would call MPI_Finalize)
// and could not keep OpenMPI's signal handlers out of the Go runtime's way. A C constructor
// runs before any package init, so MPI is initialized here first, as internal/mpi.Init
// does it (MPI_THREAD_MULTIPLE, which the connector requires, and no OpenMPI signal
// handlers); Init then adopts it and the program finalizes it at the end.
//
// The log-based VOL (HDF5_VOL_CONNECTOR names LOG; vol-log-based 1.4, H5VL_log_init) does
// the same with MPI_Init, and finalizes the MPI it started when HDF5 terminates it, in an
// exit handler a Go program's exit never runs: without this package `h5proxy run` under it
// ended with mpirun's "exited without calling finalize".
//
// Only programs that own MPI import it (cmd/h5proxy, test binaries): a library loaded into
// a program that initializes MPI itself (the C ABI) must not initialize it first.
package preinit

/*
#cgo pkg-config: ompi
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static int preinit_owned;

// preinit_names reports whether vol (HDF5_VOL_CONNECTOR) starts with the connector name.
static int preinit_names(const char *vol, const char *name) {
	size_t n = strlen(name);
	return strncmp(vol, name, n) == 0 && (vol[n] == ' ' || vol[n] == '\0');
}

__attribute__((constructor)) static void preinit_mpi(void) {
	const char *vol = getenv("HDF5_VOL_CONNECTOR");
	int init = 0, provided = 0;
	while (vol && *vol == ' ') vol++;
	if (!vol || !(preinit_names(vol, "cache_ext") || preinit_names(vol, "LOG"))) return;
	MPI_Initialized(&init);
	if (init) return;
	// As internal/mpi.Init: OpenMPI installs no signal handlers in place of Go's.
	setenv("OMPI_MCA_opal_signal", "", 0);
	if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS) preinit_owned = 1;
}

static int preinit_did(void) { return preinit_owned; }
*/
import "C"

import "github.com/h5proxy/h5proxy/internal/mpi"

func init() {
	if C.preinit_did() != 0 {
		mpi.AdoptEarlyInit()
	}
}
