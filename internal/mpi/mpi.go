//go:build cgo

package mpi

/*
#cgo pkg-config: ompi
#include <mpi.h>
#include <time.h>

// Handles and constants come through functions: in OpenMPI they are macros taking the
// address of library globals, which cgo cannot evaluate as constants.
static MPI_Comm h5p_comm_world(void) { return MPI_COMM_WORLD; }
static MPI_Comm h5p_comm_self(void) { return MPI_COMM_SELF; }
static MPI_Comm h5p_comm_null(void) { return MPI_COMM_NULL; }
static MPI_Datatype h5p_int64(void) { return MPI_INT64_T; }
static MPI_Datatype h5p_double(void) { return MPI_DOUBLE; }
static MPI_Datatype h5p_byte(void) { return MPI_BYTE; }
static MPI_Op h5p_min(void) { return MPI_MIN; }
static MPI_Op h5p_max(void) { return MPI_MAX; }
static MPI_Op h5p_sum(void) { return MPI_SUM; }

// MPI_Initialized and MPI_Finalized are the only calls valid at any time.
static int h5p_active(void) {
	int init = 0, fin = 0;
	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	return init && !fin;
}
static int h5p_finalized(void) {
	int fin = 0;
	MPI_Finalized(&fin);
	return fin;
}

static int h5p_errors_return(MPI_Comm c) { return MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN); }

// h5p_adopt makes a communicator just created by this package return its errors, and frees
// it if that fails so that no half-configured communicator escapes.
static int h5p_adopt(int rc, MPI_Comm *c) {
	if (rc != MPI_SUCCESS || *c == MPI_COMM_NULL) return rc;
	rc = h5p_errors_return(*c);
	if (rc != MPI_SUCCESS) MPI_Comm_free(c);
	return rc;
}
static int h5p_comm_dup(MPI_Comm c, MPI_Comm *out) { return h5p_adopt(MPI_Comm_dup(c, out), out); }
static int h5p_comm_split(MPI_Comm c, int color, int key, MPI_Comm *out) {
	return h5p_adopt(MPI_Comm_split(c, color < 0 ? MPI_UNDEFINED : color, key, out), out);
}
static int h5p_comm_split_node(MPI_Comm c, int key, MPI_Comm *out) {
	return h5p_adopt(MPI_Comm_split_type(c, MPI_COMM_TYPE_SHARED, key, MPI_INFO_NULL, out), out);
}

// h5p_ibarrier_within polls a nonblocking barrier until it completes (1) or ms
// milliseconds pass (0); a timed-out request is left pending, since the caller aborts.
static int h5p_ibarrier_within(MPI_Comm c, int ms, int *done) {
	MPI_Request r;
	int rc = MPI_Ibarrier(c, &r);
	*done = 0;
	if (rc != MPI_SUCCESS) return rc;
	double end = MPI_Wtime() + ms / 1e3;
	for (;;) {
		rc = MPI_Test(&r, done, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS || *done || MPI_Wtime() >= end) return rc;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
}
*/
import "C"

import (
	"fmt"
	"io/fs"
	"math"
	"os"
	"strings"
	"sync"
	"time"
	"unsafe"
)

var (
	commWorld = C.h5p_comm_world()
	commSelf  = C.h5p_comm_self()
	commNull  = C.h5p_comm_null()
	typeInt64 = C.h5p_int64()
	typeFloat = C.h5p_double()
	typeByte  = C.h5p_byte()
	cOps      = [...]C.MPI_Op{OpMin: C.h5p_min(), OpMax: C.h5p_max(), OpSum: C.h5p_sum()}
)

// maxCount is the largest element count of one MPI call (counts are C ints); larger
// transfers are split or use derived datatypes. Tests lower it to exercise those paths.
var maxCount = math.MaxInt32

// initMu serializes Init and Finalize, so two goroutines cannot both initialize MPI.
var initMu sync.Mutex

// Comm is an MPI communicator. The zero Comm is the null communicator.
type Comm struct {
	c C.MPI_Comm
}

// active reports whether MPI calls are allowed now.
func active() bool { return C.h5p_active() != 0 }

// mpiErr turns an MPI return code into an *Error (nil for MPI_SUCCESS).
func mpiErr(op string, rc C.int) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	var msg [C.MPI_MAX_ERROR_STRING]C.char
	var n, class C.int
	e := &Error{Op: op, Code: int(rc), Msg: fmt.Sprintf("error code %d", int(rc))}
	if C.MPI_Error_string(rc, &msg[0], &n) == C.MPI_SUCCESS {
		e.Msg = C.GoStringN(&msg[0], n)
	}
	if C.MPI_Error_class(rc, &class) == C.MPI_SUCCESS {
		e.Class = int(class)
		if class == C.MPI_ERR_NO_SUCH_FILE {
			e.err = fs.ErrNotExist
		}
	}
	return e
}

// cint converts a Go int to a C int, failing instead of truncating.
func cint(what string, v int) (C.int, error) {
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, errorf("mpi: %s %d does not fit a C int", what, v)
	}
	return C.int(v), nil
}

// count checks that n elements fit one MPI call.
func count(op string, n int) (C.int, error) {
	if n > maxCount {
		return 0, errorf("mpi: %s: %d elements exceed the MPI count limit %d", op, n, maxCount)
	}
	return C.int(n), nil
}

// threadLevel maps MPI's thread level constants, whose values the standard leaves open.
func threadLevel(p C.int) ThreadLevel {
	switch p {
	case C.MPI_THREAD_MULTIPLE:
		return ThreadMultiple
	case C.MPI_THREAD_SERIALIZED:
		return ThreadSerialized
	case C.MPI_THREAD_FUNNELED:
		return ThreadFunneled
	}
	return ThreadSingle
}

// cThreadLevel is MPI's constant for l.
func cThreadLevel(l ThreadLevel) C.int {
	switch l {
	case ThreadSingle:
		return C.MPI_THREAD_SINGLE
	case ThreadFunneled:
		return C.MPI_THREAD_FUNNELED
	case ThreadSerialized:
		return C.MPI_THREAD_SERIALIZED
	}
	return C.MPI_THREAD_MULTIPLE
}

// Initialized reports whether MPI is initialized and not yet finalized, that is whether MPI
// calls are allowed.
func Initialized() bool { return active() }

// Finalized reports whether MPI has been finalized.
func Finalized() bool { return C.h5p_finalized() != 0 }

// Init initializes MPI asking for MPI_THREAD_MULTIPLE, unless MPI is already initialized:
// then it does nothing and returns the current level. owned reports whether this call
// initialized MPI, so that the caller knows it must call Finalize. A Go program that owns
// MPI this way also gets MPI_ERRORS_RETURN on MPI_COMM_WORLD, so errors on World come back
// as errors; a host's communicators keep the host's error handlers.
//
// Before MPI_Init it sets OMPI_MCA_opal_signal to "" when the variable is unset, so that
// OpenMPI installs no SIGSEGV, SIGBUS, SIGFPE or SIGABRT handlers: one in place of the Go
// runtime's would turn a nil pointer dereference, a recoverable panic in Go, into a stack
// dump and an abort. (OpenMPI 4.1 already leaves alone signals that have a handler, as in a
// Go program; the variable makes that independent of the release.)
// MPI cannot be initialized again after Finalize.
func Init() (provided ThreadLevel, owned bool, err error) {
	return InitThread(ThreadMultiple)
}

// InitThread is Init asking for the thread level required instead of
// MPI_THREAD_MULTIPLE: a replay asks for the level the program it reproduces asked for,
// since OpenMPI's OMPIO behaves differently below MPI_THREAD_MULTIPLE (its POSIX writes
// of a collective write with holes go through data sieving, a pread and a pwrite, only
// then). A Go program below MPI_THREAD_MULTIPLE must make its MPI calls on the thread
// that called InitThread (runtime.LockOSThread first).
func InitThread(required ThreadLevel) (provided ThreadLevel, owned bool, err error) {
	initMu.Lock()
	defer initMu.Unlock()
	if Finalized() {
		return 0, false, errorf("mpi: Init: MPI was already finalized")
	}
	if active() {
		provided, err = QueryThread()
		return provided, earlyOwned, err
	}
	if _, ok := os.LookupEnv("OMPI_MCA_opal_signal"); !ok {
		// os.Setenv reaches the C environment in a cgo program, where OpenMPI reads it.
		if err := os.Setenv("OMPI_MCA_opal_signal", ""); err != nil {
			return 0, false, errorf("mpi: Init: %w", err)
		}
	}
	var p C.int
	if err := mpiErr("MPI_Init_thread", C.MPI_Init_thread(nil, nil, cThreadLevel(required), &p)); err != nil {
		return 0, false, err
	}
	if err := mpiErr("MPI_Comm_set_errhandler MPI_COMM_WORLD", C.h5p_errors_return(commWorld)); err != nil {
		return threadLevel(p), true, err
	}
	return threadLevel(p), true, nil
}

// earlyOwned is set when this program initialized MPI before main (package preinit).
var earlyOwned bool

// AdoptEarlyInit records that this program initialized MPI before any Go code ran (package
// preinit, under the Cache VOL): Init then reports it owned, so the program finalizes it.
func AdoptEarlyInit() {
	initMu.Lock()
	defer initMu.Unlock()
	earlyOwned = true
}

// Finalize finalizes MPI. Only the owner of MPI (see Init) calls it. It fails if MPI is not
// initialized or already finalized.
func Finalize() error {
	initMu.Lock()
	defer initMu.Unlock()
	if !active() {
		return errorf("mpi: Finalize: %w", ErrNotActive)
	}
	return mpiErr("MPI_Finalize", C.MPI_Finalize())
}

// QueryThread returns the thread level MPI provides.
func QueryThread() (ThreadLevel, error) {
	if !active() {
		return 0, errorf("mpi: QueryThread: %w", ErrNotActive)
	}
	var p C.int
	if err := mpiErr("MPI_Query_thread", C.MPI_Query_thread(&p)); err != nil {
		return 0, err
	}
	return threadLevel(p), nil
}

// World returns MPI_COMM_WORLD.
func World() Comm { return Comm{commWorld} }

// Self returns MPI_COMM_SELF: this process alone. Operations collective on it involve no
// other rank, so a rank can open a file on it while the others do something else.
func Self() Comm { return Comm{commSelf} }

// FromFortran returns the communicator of a Fortran handle (MPI_Comm_f2c), the form in which
// communicators cross package and language boundaries. It fails if MPI is not active or the
// handle names no communicator.
func FromFortran(handle int) (Comm, error) {
	if !active() {
		return Comm{}, errorf("mpi: FromFortran: %w", ErrNotActive)
	}
	invalid := errorf("mpi: invalid communicator handle %d", handle)
	if handle < math.MinInt32 || handle > math.MaxInt32 {
		return Comm{}, invalid
	}
	// OpenMPI returns NULL (the zero handle) for an unknown index, hence IsNull.
	c := Comm{C.MPI_Comm_f2c(C.MPI_Fint(handle))}
	if c.IsNull() {
		return Comm{}, invalid
	}
	return c, nil
}

// Fortran returns the Fortran handle of c (MPI_Comm_c2f), or -1 if MPI is not active.
func (c Comm) Fortran() int {
	if !active() {
		return -1
	}
	return int(C.MPI_Comm_c2f(c.handle()))
}

// handle returns the C communicator, mapping the zero Comm to MPI_COMM_NULL.
func (c Comm) handle() C.MPI_Comm {
	if c.IsNull() {
		return commNull
	}
	return c.c
}

// IsNull reports whether c is the null communicator.
func (c Comm) IsNull() bool {
	var zero C.MPI_Comm
	return c.c == zero || c.c == commNull
}

// check returns why c cannot be used now, if it cannot.
func (c Comm) check(op string) error {
	if !active() {
		return errorf("mpi: %s: %w", op, ErrNotActive)
	}
	if c.IsNull() {
		return errorf("mpi: %s: %w", op, ErrNullComm)
	}
	return nil
}

// Rank returns the rank of this process in c, or -1 if c is null or MPI is not active.
func (c Comm) Rank() int {
	var r C.int
	if c.check("Rank") != nil || C.MPI_Comm_rank(c.c, &r) != C.MPI_SUCCESS {
		return -1
	}
	return int(r)
}

// Size returns the number of processes in c, or -1 if c is null or MPI is not active.
func (c Comm) Size() int {
	var s C.int
	if c.check("Size") != nil || C.MPI_Comm_size(c.c, &s) != C.MPI_SUCCESS {
		return -1
	}
	return int(s)
}

// Dup duplicates c (collective on c). The duplicate returns errors instead of aborting;
// free it with Free.
func (c Comm) Dup() (Comm, error) {
	if err := c.check("Dup"); err != nil {
		return Comm{}, err
	}
	var out C.MPI_Comm
	if err := mpiErr("MPI_Comm_dup", C.h5p_comm_dup(c.c, &out)); err != nil {
		return Comm{}, err
	}
	return Comm{out}, nil
}

// Free frees c (collective on c). MPI_COMM_WORLD cannot be freed. Copies of c become
// invalid.
func (c Comm) Free() error {
	if err := c.check("Free"); err != nil {
		return err
	}
	if c.c == commWorld || c.c == commSelf {
		return errorf("mpi: Free: MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed")
	}
	return mpiErr("MPI_Comm_free", C.MPI_Comm_free(&c.c))
}

// Split partitions c by color, ordering each part by key then rank (collective on c).
// A negative color opts out (MPI_UNDEFINED): that rank gets a null Comm and no error.
func (c Comm) Split(color, key int) (Comm, error) {
	if err := c.check("Split"); err != nil {
		return Comm{}, err
	}
	cc, err := cint("Split color", color)
	if err != nil {
		return Comm{}, err
	}
	ck, err := cint("Split key", key)
	if err != nil {
		return Comm{}, err
	}
	var out C.MPI_Comm
	if err := mpiErr("MPI_Comm_split", C.h5p_comm_split(c.c, cc, ck, &out)); err != nil {
		return Comm{}, err
	}
	return Comm{out}, nil
}

// SplitNode splits c into one communicator per shared-memory node
// (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED), keeping the order of ranks in c
// (collective on c).
func (c Comm) SplitNode() (Comm, error) {
	if err := c.check("SplitNode"); err != nil {
		return Comm{}, err
	}
	var out C.MPI_Comm
	if err := mpiErr("MPI_Comm_split_type", C.h5p_comm_split_node(c.c, 0, &out)); err != nil {
		return Comm{}, err
	}
	return Comm{out}, nil
}

// Barrier blocks until every rank of c has called it.
func (c Comm) Barrier() error {
	if err := c.check("Barrier"); err != nil {
		return err
	}
	return mpiErr("MPI_Barrier", C.MPI_Barrier(c.c))
}

// BarrierWithin is a barrier that gives up after d: it reports whether every rank of c
// entered it in time. Ranks use it to learn whether a failure is shared before they run
// collective clean-up; a rank that did not fail never enters it.
func (c Comm) BarrierWithin(d time.Duration) (bool, error) {
	if err := c.check("Ibarrier"); err != nil {
		return false, err
	}
	var done C.int
	rc := C.h5p_ibarrier_within(c.c, C.int(d.Milliseconds()), &done)
	return done != 0, mpiErr("MPI_Ibarrier", rc)
}

// Abort ends every process of c's job with code (MPI_Abort): what is left when a rank
// cannot fail alone without leaving the others waiting in a collective for ever.
func (c Comm) Abort(code int) error {
	if err := c.check("Abort"); err != nil {
		return err
	}
	return mpiErr("MPI_Abort", C.MPI_Abort(c.c, C.int(code)))
}

// allreduce reduces n elements of type t element-wise over c.
func (c Comm) allreduce(in, out unsafe.Pointer, n int, t C.MPI_Datatype, op Op) error {
	if op < OpMin || op > OpSum {
		return errorf("mpi: Allreduce: unknown operation %v", op)
	}
	cn, err := count("MPI_Allreduce", n)
	if err != nil {
		return err
	}
	return mpiErr("MPI_Allreduce", C.MPI_Allreduce(in, out, cn, t, cOps[op], c.c))
}

// AllreduceInt64 reduces in element-wise over c with op and returns the result on every
// rank (collective on c; every rank passes the same length). An empty in gives an empty
// result without communication.
func (c Comm) AllreduceInt64(in []int64, op Op) ([]int64, error) {
	if err := c.check("AllreduceInt64"); err != nil {
		return nil, err
	}
	out := make([]int64, len(in))
	if len(in) == 0 {
		return out, nil
	}
	return out, c.allreduce(unsafe.Pointer(&in[0]), unsafe.Pointer(&out[0]), len(in), typeInt64, op)
}

// AllreduceFloat64 reduces in element-wise over c with op and returns the result on every
// rank (collective on c; every rank passes the same length). An empty in gives an empty
// result without communication.
func (c Comm) AllreduceFloat64(in []float64, op Op) ([]float64, error) {
	if err := c.check("AllreduceFloat64"); err != nil {
		return nil, err
	}
	out := make([]float64, len(in))
	if len(in) == 0 {
		return out, nil
	}
	return out, c.allreduce(unsafe.Pointer(&in[0]), unsafe.Pointer(&out[0]), len(in), typeFloat, op)
}

// AllgatherFloat64 gathers in from every rank of c on every rank: the result holds
// len(in)*Size() values, rank 0's first (collective on c; every rank passes the same
// length). An empty in gives an empty result without communication.
func (c Comm) AllgatherFloat64(in []float64) ([]float64, error) {
	if err := c.check("AllgatherFloat64"); err != nil {
		return nil, err
	}
	if len(in) == 0 {
		return []float64{}, nil
	}
	size := c.Size()
	if _, err := count("MPI_Allgather", len(in)*size); err != nil {
		return nil, err
	}
	cn := C.int(len(in))
	out := make([]float64, len(in)*size)
	err := mpiErr("MPI_Allgather", C.MPI_Allgather(unsafe.Pointer(&in[0]), cn, typeFloat,
		unsafe.Pointer(&out[0]), cn, typeFloat, c.c))
	return out, err
}

// SsendInt sends one int to rank dest of c with tag (MPI_Ssend: it returns once dest has
// started receiving it). A serial group's baton goes this way.
func (c Comm) SsendInt(v, dest, tag int) error {
	if err := c.check("SsendInt"); err != nil {
		return err
	}
	if dest < 0 || dest >= c.Size() || tag < 0 {
		return errorf("mpi: SsendInt: destination %d outside [0, %d) or negative tag %d", dest, c.Size(), tag)
	}
	x := C.int(v)
	return mpiErr("MPI_Ssend", C.MPI_Ssend(unsafe.Pointer(&x), 1, C.MPI_INT, C.int(dest), C.int(tag), c.c))
}

// RecvInt receives one int from rank src of c with tag (MPI_Recv), waiting for it.
func (c Comm) RecvInt(src, tag int) (int, error) {
	if err := c.check("RecvInt"); err != nil {
		return 0, err
	}
	if src < 0 || src >= c.Size() || tag < 0 {
		return 0, errorf("mpi: RecvInt: source %d outside [0, %d) or negative tag %d", src, c.Size(), tag)
	}
	var x C.int
	err := mpiErr("MPI_Recv", C.MPI_Recv(unsafe.Pointer(&x), 1, C.MPI_INT, C.int(src), C.int(tag), c.c, C.MPI_STATUS_IGNORE))
	return int(x), err
}

// BcastBytes returns root's buf on every rank of c (collective on c). Other ranks' buf may
// be nil: the length is broadcast first, and buf is reused when its capacity suffices.
// Buffers larger than a C int are sent in pieces.
func (c Comm) BcastBytes(buf []byte, root int) ([]byte, error) {
	if err := c.check("BcastBytes"); err != nil {
		return nil, err
	}
	size := c.Size()
	if root < 0 || root >= size {
		return nil, errorf("mpi: BcastBytes: root %d outside [0, %d)", root, size)
	}
	croot := C.int(root)
	n := [1]int64{int64(len(buf))}
	if err := mpiErr("MPI_Bcast", C.MPI_Bcast(unsafe.Pointer(&n[0]), 1, typeInt64, croot, c.c)); err != nil {
		return nil, err
	}
	if c.Rank() != root {
		if int64(cap(buf)) >= n[0] {
			buf = buf[:n[0]]
		} else {
			buf = make([]byte, n[0])
		}
	}
	for off := 0; off < len(buf); off += maxCount {
		piece := C.int(min(maxCount, len(buf)-off))
		if err := mpiErr("MPI_Bcast", C.MPI_Bcast(unsafe.Pointer(&buf[off]), piece, typeByte, croot, c.c)); err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// NodeCount returns the number of distinct shared-memory nodes spanned by c
// (collective on c).
func (c Comm) NodeCount() (int, error) {
	node, err := c.SplitNode()
	if err != nil {
		return 0, err
	}
	leader := int64(0)
	if node.Rank() == 0 {
		leader = 1
	}
	if err := node.Free(); err != nil {
		return 0, err
	}
	n, err := c.AllreduceInt64([]int64{leader}, OpSum)
	if err != nil {
		return 0, err
	}
	return int(n[0]), nil
}

// Wtime returns MPI's wall-clock time in seconds (MPI_Wtime), on the clock of MPI's own
// timings.
func Wtime() float64 { return float64(C.MPI_Wtime()) }

// ProcessorName returns MPI's name for this processor (MPI_Get_processor_name), or the host
// name when MPI is not active.
func ProcessorName() string {
	if !active() {
		h, _ := os.Hostname()
		return h
	}
	var buf [C.MPI_MAX_PROCESSOR_NAME]C.char
	var n C.int
	if C.MPI_Get_processor_name(&buf[0], &n) != C.MPI_SUCCESS {
		return ""
	}
	return C.GoStringN(&buf[0], n)
}

// StandardVersion returns the version of the MPI standard the library implements
// (MPI_Get_version: 3.1 for OpenMPI 4.1). It works at any time.
func StandardVersion() (major, minor int) {
	var v, sub C.int
	if C.MPI_Get_version(&v, &sub) != C.MPI_SUCCESS {
		return 0, 0
	}
	return int(v), int(sub)
}

// LibraryVersion returns the first line of MPI_Get_library_version, such as
// "Open MPI v4.1.4, package: Debian OpenMPI, ...". It works at any time.
func LibraryVersion() string {
	var buf [C.MPI_MAX_LIBRARY_VERSION_STRING]C.char
	var n C.int
	if C.MPI_Get_library_version(&buf[0], &n) != C.MPI_SUCCESS {
		return ""
	}
	v, _, _ := strings.Cut(C.GoStringN(&buf[0], n), "\n")
	return strings.TrimSpace(strings.TrimRight(v, "\x00"))
}
