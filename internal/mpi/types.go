package mpi

import (
	"fmt"
)

// ThreadLevel is an MPI thread support level; the constants follow MPI's order, so levels
// compare with < and >.
type ThreadLevel int

// Thread support levels, from the least to the most permissive.
const (
	ThreadSingle     ThreadLevel = iota // MPI_THREAD_SINGLE: only one thread exists.
	ThreadFunneled                      // MPI_THREAD_FUNNELED: only the initializing thread calls MPI.
	ThreadSerialized                    // MPI_THREAD_SERIALIZED: any thread, one call at a time.
	ThreadMultiple                      // MPI_THREAD_MULTIPLE: any thread, concurrently.
)

// String returns the MPI name of the level, such as "MPI_THREAD_MULTIPLE".
func (l ThreadLevel) String() string {
	switch l {
	case ThreadSingle:
		return "MPI_THREAD_SINGLE"
	case ThreadFunneled:
		return "MPI_THREAD_FUNNELED"
	case ThreadSerialized:
		return "MPI_THREAD_SERIALIZED"
	case ThreadMultiple:
		return "MPI_THREAD_MULTIPLE"
	}
	return fmt.Sprintf("ThreadLevel(%d)", int(l))
}

// ThreadLevelNames are the levels' short names, in order (descriptions' mpi_thread key,
// profiles' mpi_thread).
var ThreadLevelNames = []string{"single", "funneled", "serialized", "multiple"}

// ParseThreadLevel reads a level's short name (ThreadLevelNames).
func ParseThreadLevel(name string) (ThreadLevel, bool) {
	for i, n := range ThreadLevelNames {
		if n == name {
			return ThreadLevel(i), true
		}
	}
	return 0, false
}

// Op is a reduction operation of the Allreduce calls.
type Op int

// Reduction operations.
const (
	OpMin Op = iota // MPI_MIN
	OpMax           // MPI_MAX
	OpSum           // MPI_SUM
)

// String returns the MPI name of the operation, such as "MPI_SUM".
func (o Op) String() string {
	switch o {
	case OpMin:
		return "MPI_MIN"
	case OpMax:
		return "MPI_MAX"
	case OpSum:
		return "MPI_SUM"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Errors returned without reaching MPI.
var (
	// ErrNotActive is returned by calls made before MPI is initialized or after it is
	// finalized, where MPI itself would abort the process.
	ErrNotActive = errorf("mpi: MPI is not initialized or already finalized")
	// ErrNullComm is returned by calls on a null communicator (the zero Comm, or the
	// result of Split for a rank that opted out).
	ErrNullComm = errorf("mpi: null communicator")
	// ErrNoCgo is returned by every call of a build without cgo.
	ErrNoCgo = errorf("mpi: built without cgo")
)

// Error is a failed MPI call: which call, MPI's error code and class, and MPI's message.
type Error struct {
	Op    string // the MPI function and its subject, e.g. "MPI_File_open /scratch/out.dat"
	Code  int    // the MPI error code
	Class int    // the MPI error class of Code
	Msg   string // MPI_Error_string of Code
	err   error  // the matching standard error (fs.ErrNotExist), for errors.Is
}

// Error returns "mpi: <op>: <MPI message>".
func (e *Error) Error() string { return "mpi: " + e.Op + ": " + e.Msg }

// Unwrap returns the standard error matching the MPI error class, if any: fs.ErrNotExist
// for MPI_ERR_NO_SUCH_FILE.
func (e *Error) Unwrap() error { return e.err }

// FileAccess is how OpenFile opens a file.
type FileAccess int

const (
	// ReadOnly opens an existing file for reading.
	ReadOnly FileAccess = iota
	// Create opens a file write-only, creating it or truncating it to zero length, as
	// HDF5's H5F_ACC_TRUNC does.
	Create
	// ReadWrite opens an existing file for reading and writing, keeping its contents.
	ReadWrite
)

// OpenOptions are the further settings of OpenFileWith.
type OpenOptions struct {
	// Info are MPI hints passed to MPI_File_open.
	Info map[string]string
	// AlwaysInfo passes an MPI_Info object even without hints (MPI_INFO_NULL otherwise),
	// as programs that always create one do (IOR's SetHints).
	AlwaysInfo bool
	// Unique adds MPI_MODE_UNIQUE_OPEN (IOR's MPI-IO opens).
	Unique bool
}

// XferKind is the MPI call sequence of one transfer of a run (File.Run): that of the File
// method named beside it.
type XferKind int

// Transfer kinds, in the order of the C side's (mpiio.go).
const (
	WriteAtAll   XferKind = iota // MPI_File_write_at_all (File.WriteAtAll)
	WriteAt                      // MPI_File_write_at (File.WriteAt)
	ReadAtAll                    // MPI_File_read_at_all (File.ReadAtAll)
	ReadAt                       // MPI_File_read_at (File.ReadAt)
	ViewWriteAll                 // MPI_File_seek + MPI_File_write_all (File.ViewIO)
	ViewWrite                    // MPI_File_seek + MPI_File_write (File.ViewIO)
	ViewReadAll                  // MPI_File_seek + MPI_File_read_all (File.ViewIO)
	ViewRead                     // MPI_File_seek + MPI_File_read (File.ViewIO)
)

// Writes reports whether k moves memory to the file.
func (k XferKind) Writes() bool {
	return k == WriteAtAll || k == WriteAt || k == ViewWriteAll || k == ViewWrite
}

// Xfer is one transfer of a run: Buf moved at file offset Off (the view kinds: at view
// position Off, in the view's transfers).
type Xfer struct {
	Kind XferKind
	Off  int64
	Buf  []byte
}
