// Package logvol is the log-vol layout: the native layout's files created and opened through
// the real log-based VOL (DataLib-ECP/vol-log-based, connector "LOG"), beside the log
// layout that models it. The connector stores each rank's writes as logs with an index in
// a file of its own format and resolves reads through that index, so the data are read
// back through the connector itself; the file is not the native layout's (compare values
// read back, not h5dump output).
//
// The layout needs an h5proxy built against HDF5 1.14 and the connector's library on
// HDF5_PLUGIN_PATH (scripts/vol-connectors.sh builds it): elsewhere it is refused before
// any I/O, naming the layout and what is missing.
package logvol

import (
	"fmt"
	"os"
	"sync"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/layout/native"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// Name is the layout's name.
const Name = "log-vol"

// Connector is the log-based VOL's registered name (H5VL_log_NAME), the name HDF5 loads
// it by from HDF5_PLUGIN_PATH.
const Connector = "LOG"

func init() {
	stack.RegisterLayout(stack.Strategy{Name: Name, Caps: stack.StoresData,
		Summary:   "the native layout's files through the real log-based VOL (connector LOG, HDF5 1.14, HDF5_PLUGIN_PATH): its own log file format, read back through the connector",
		Available: Available,
		NewLayout: func(env stack.Env) (stack.Layout, error) { return native.New(env, open), nil }})
}

// allowed says what runs the layout, in its refusals.
const allowed = "a build against HDF5 1.14 (HDF5=1.14 make build) with the log-based VOL on HDF5_PLUGIN_PATH (make vol-connectors), or layout=log (the model of it)"

// loaded caches the answer of loading the connector (asked once MPI is up): the
// registry's walks (help, validation of every configuration) ask again and again, and
// HDF5 reads HDF5_PLUGIN_PATH once, when it starts.
var loaded struct {
	sync.Mutex
	done bool
	err  error
}

// Available refuses builds whose HDF5 has no VOL layer (1.10) and processes whose HDF5
// cannot load the connector (HDF5_PLUGIN_PATH, read when HDF5 starts), before any file
// is made. The connector is loaded only where MPI is up: loaded before, its init
// initializes MPI itself and its termination (when the check lets it go) finalizes MPI,
// after which the rank's own MPI_Init fails ("MPI was already finalized": every
// `h5proxy run` with layout=log-vol did, since the ranks check their configuration
// before they start MPI). Without MPI (a launcher's front end, a rank's first parse) the
// check is left to the session, which validates its configuration again with MPI up.
func Available() error {
	if !h5.HaveEventSets() { // HDF5 1.13 and later: VOL connectors and event sets alike
		return stack.Unsupported{Err: &options.Error{Table: "session", Key: "layout", Value: Name,
			Reason: fmt.Sprintf("this h5proxy is built against HDF5 %s, which has no VOL connectors", h5.Version()), Allowed: allowed}}
	}
	if !mpi.Initialized() {
		return nil
	}
	loaded.Lock()
	defer loaded.Unlock()
	if !loaded.done {
		loaded.err = h5.LoadConnector(Connector)
		loaded.done = true
	}
	if loaded.err != nil {
		return stack.Unsupported{Err: &options.Error{Table: "session", Key: "layout", Value: Name,
			Reason: fmt.Sprintf("HDF5 cannot load the log-based VOL (HDF5_PLUGIN_PATH=%q): %v", os.Getenv("HDF5_PLUGIN_PATH"), loaded.err), Allowed: allowed}}
	}
	return nil
}

// open creates or opens op's file through the connector, with the MPI-IO driver and
// collective metadata as its user guide sets them; a file of one rank is opened on
// MPI_COMM_SELF (the connector needs an MPI-IO file access).
func open(op *plan.Op, a h5.Access) (h5.ID, error) {
	if !a.Parallel {
		a.Parallel, a.Comm = true, mpi.Self().Fortran()
	}
	a.CollMetadataOps, a.CollMetadataWrite = true, true
	a.VOL = Connector
	return native.Open(op, a)
}
