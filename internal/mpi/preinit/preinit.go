//go:build cgo

// Package preinit initializes MPI before any Go code runs, in a program whose HDF5 loads
// the Cache VOL (HDF5_VOL_CONNECTOR names cache_ext). That connector's init asks MPI for
// the rank when HDF5 starts and, when MPI is not initialized yet, initializes it itself and
// then crashes (vol-cache 1.2.1, H5VL_cache_ext_init: its log is opened only when MPI was
// already up). HDF5 starts before main: gonum.org/v1/hdf5's package init asks HDF5 for its
// property list classes. A C constructor runs before any package init, so MPI is up first,
// with MPI_THREAD_MULTIPLE as the connector requires; internal/mpi's Init then adopts it
// (and finalizes it at the end, as if it had initialized it).
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

__attribute__((constructor)) static void preinit_mpi(void) {
	const char *vol = getenv("HDF5_VOL_CONNECTOR");
	int init = 0, provided = 0;
	while (vol && *vol == ' ') vol++;
	if (!vol || strncmp(vol, "cache_ext", 9) != 0 || (vol[9] != ' ' && vol[9] != '\0')) return;
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
