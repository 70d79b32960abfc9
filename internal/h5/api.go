package h5

import (
	"errors"
	"strings"

	"github.com/h5proxy/h5proxy/plan"
)

// This file holds the declarations shared by the cgo build and the !cgo stub.

// ID is an HDF5 identifier (hid_t) of a file, group or dataset. Valid identifiers are > 0.
type ID int64

// ErrInvalidID is wrapped by the errors for identifiers that are not > 0, no longer valid
// (closed) or of the wrong kind.
var ErrInvalidID = errors.New("invalid identifier")

// ErrNoCgo is returned by every call of a build without cgo.
var ErrNoCgo = errorf("h5: built without cgo")

// Error is a failed HDF5 call together with the library's error stack.
type Error struct {
	// Op names the failing call and its object, e.g. "H5Dcreate2 /Timestep_0/x".
	Op string
	// Stack holds the HDF5 error stack from the API function down to the innermost function
	// where the error was detected (H5E_WALK_DOWNWARD), one "func(): description
	// (major/minor)" per entry. Empty when HDF5 failed without pushing an error.
	Stack []string

	causes []string // "description (major/minor)" per entry, in Stack's order
}

// Error renders the operation followed by the stack innermost first, the innermost entry
// being the most specific: "h5: H5Fopen /x.h5: unable to open file: ... (File accessibility/
// Unable to open file); ...".
func (e *Error) Error() string {
	msgs := e.causes
	if len(msgs) != len(e.Stack) {
		msgs = e.Stack
	}
	var b strings.Builder
	b.WriteString("h5: ")
	b.WriteString(e.Op)
	if len(msgs) == 0 {
		b.WriteString(": failed (empty HDF5 error stack)")
		return b.String()
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if i == len(msgs)-1 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(msgs[i])
	}
	return b.String()
}

// Access holds the file-access settings of CreateFile and OpenFile.
type Access struct {
	// Comm is the Fortran handle of the MPI communicator (MPI_Comm_f2c is applied in C);
	// used only when Parallel is set.
	Comm int
	// Info holds MPI_Info hints passed to H5Pset_fapl_mpio (ignored unless Parallel).
	Info map[string]string
	// Subfiling, on a Parallel access, replaces the MPI-IO driver by HDF5 1.14's subfiling
	// VFD with these settings. Transfers through it are independent (HDF5 refuses
	// collective transfers on drivers other than MPI-IO).
	Subfiling *Subfiling
	// VOL, when set, names the VOL connector the file is created or opened through
	// (H5Pset_vol of the connector registered under that name, loaded from
	// HDF5_PLUGIN_PATH; HDF5 1.14): "LOG" is the log-based VOL.
	VOL string
	// FileSpec holds Parallel, ReadOnly (opens only), collective metadata, alignment,
	// metadata cache and meta block settings. FlushLocal is not used here: pass it to
	// FlushFile.
	plan.FileSpec
}

// Subfiling holds the subfiling VFD's settings (H5FD_subfiling_config_t and the
// H5FD_ioc_config_t of its I/O concentrators); 0 keeps the VFD's default. The environment
// variables the VFD reads at open (H5FD_SUBFILING_STRIPE_SIZE, H5FD_IOC_THREAD_POOL_SIZE,
// ...) override them: the caller sets those.
type Subfiling struct {
	// StripeSize is the size in bytes of a stripe (default 32 MiB).
	StripeSize int64
	// StripeCount caps the number of subfiles (default: the number of I/O concentrators).
	StripeCount int
	// ThreadPool is the number of worker threads of each I/O concentrator (default 4).
	ThreadPool int
}

// Info describes an existing dataset.
type Info struct {
	// Type is the dataset's datatype (compound names are not stored in files and are empty).
	Type plan.Type
	// Shape is the current extent; empty for a scalar dataset.
	Shape []uint64
	// MaxShape is the maximum extent; plan.MaxUnlimited marks H5S_UNLIMITED.
	MaxShape []uint64
	// Chunk is the chunk shape, nil unless the layout is chunked.
	Chunk []uint64
	// Deflate is the deflate (gzip) level, 0 without that filter.
	Deflate int
	// Filters are the pipeline's other filters with the client data values stored in the
	// file (as the filters' set-local callbacks completed them).
	Filters []plan.Filter
	// FillNever reports H5D_FILL_TIME_NEVER.
	FillNever bool
	// FillUndefined reports an undefined fill value (H5D_FILL_VALUE_UNDEFINED).
	FillUndefined bool
	// FillAlloc reports H5D_FILL_TIME_ALLOC; Compact the compact layout.
	FillAlloc, Compact bool
}

// AsyncTransfer reports whether a transfer of t goes into an event set as H5Dwrite_async
// or H5Dread_async (InEventSet): not when its values pass through C memory of the call's
// own (variable-length strings, compounds holding them, references made from the plan's
// target paths), which the ordinary call frees when it returns. A caller in an event set
// makes such a transfer outside it, once the set holding the dataset's create or open is
// waited (ErrPending).
func AsyncTransfer(t *plan.Transfer) bool {
	m := t.MemType
	return !m.VarLen && !(m.Class == plan.Compound && m.HasVarLen()) && m.Class != plan.Reference
}
