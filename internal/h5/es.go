package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <stdint.h>
#include <stdlib.h>
#include <hdf5.h>
#include "es.h"

static int h5e_have(void) { return H5E_HAS_ES; }

#if H5E_HAS_ES
typedef H5ES_err_info_t h5e_err_info;
static hid_t h5e_create(void) { return H5EScreate(); }
// h5e_wait first waits with no timeout, which makes the Async VOL push the first queued
// operation to its Argobots pool and every task push its successor when it ends
// (vol-async 1.8.1's request wait with timeout 0 sets start_abt_push), then waits for good. The wait for good alone pushes only if it finds no task running in two
// looks 1 ms apart: right after the previous operation woke the caller, that task still
// counts as running, and a loaded node can give its execution stream no time in those
// 2 ms, so the operation just queued stayed queued with nothing left to push it (the
// lost wake-up in docs/modes.md). Under the native connector the first wait finds
// everything done.
static herr_t h5e_wait(hid_t es, size_t *in_progress, int *failed) {
	hbool_t f = 0;
	if (H5ESwait(es, 0, in_progress, &f) < 0)
		H5Eclear2(H5E_DEFAULT); // the wait for good reports it
	else if (*in_progress == 0) {
		*failed = f != 0;
		return 0;
	}
	f = 0;
	herr_t rc = H5ESwait(es, H5ES_WAIT_FOREVER, in_progress, &f);
	*failed = f != 0;
	return rc;
}
static herr_t h5e_poll(hid_t es, size_t *in_progress, int *failed) {
	hbool_t f = 0;
	herr_t rc = H5ESwait(es, 0, in_progress, &f);
	*failed = f != 0;
	return rc;
}
static herr_t h5e_err_status(hid_t es, int *failed) {
	hbool_t f = 0;
	herr_t rc = H5ESget_err_status(es, &f);
	*failed = f != 0;
	return rc;
}
static herr_t h5e_err_count(hid_t es, size_t *n) { return H5ESget_err_count(es, n); }
static herr_t h5e_err_info_get(hid_t es, size_t n, h5e_err_info *info, size_t *cleared) {
	return H5ESget_err_info(es, n, info, cleared);
}
static herr_t h5e_err_info_free(size_t n, h5e_err_info *info) { return H5ESfree_err_info(n, info); }
static herr_t h5e_close(hid_t es) { return H5ESclose(es); }
#else
// HDF5 1.10 has no event sets: these are never called (HaveEventSets is false).
typedef struct { char *api_name, *api_args; uint64_t op_ins_count; hid_t err_stack_id; } h5e_err_info;
static hid_t h5e_create(void) { return -1; }
static herr_t h5e_wait(hid_t es, size_t *p, int *f) { (void)es, (void)p, (void)f; return -1; }
static herr_t h5e_poll(hid_t es, size_t *p, int *f) { (void)es, (void)p, (void)f; return -1; }
static herr_t h5e_err_status(hid_t es, int *f) { (void)es, (void)f; return -1; }
static herr_t h5e_err_count(hid_t es, size_t *n) { (void)es, (void)n; return -1; }
static herr_t h5e_err_info_get(hid_t es, size_t n, h5e_err_info *i, size_t *c) { (void)es, (void)n, (void)i, (void)c; return -1; }
static herr_t h5e_err_info_free(size_t n, h5e_err_info *i) { (void)n, (void)i; return -1; }
static herr_t h5e_close(hid_t es) { (void)es; return -1; }
#endif
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"unsafe"

	"github.com/h5proxy/h5proxy/plan"
)

// Records that keep HDF5 calls from between an event set's _async calls, guarded by the
// gate. Under the Async VOL every HDF5 call, even H5Sclose or H5Iis_valid, waits for the
// library's lock, which the connector's thread holds for a whole background operation: a
// call made between two H5Dwrite_async waited for the first write, and the writes ran
// one by one inside the caller's step, where h5bench's overlap its compute (docs/modes.md,
// "Where h5proxy's event sets lost their overlap").
var (
	// objKind is the kind of each file, group and dataset identifier this package handed
	// out and has not closed: checkID answers from it inside an event set.
	objKind = map[ID]C.H5I_type_t{}
	// esSpaces are the dataspaces of transfers and creates inside an event set, by
	// esSpaceKey: made once and reused, as h5bench makes its file and memory spaces once
	// (the connector copies a space in each _async call). Closed at a file's close.
	esSpaces = map[string]spaces{}
)

// Records of what an event set's operations still hold, guarded by the gate.
var (
	// esPending are the identifiers an _async create or open returned, by the event set
	// that holds the operation, until that set is waited: an ordinary call on one is
	// refused (checkID). Under the Async VOL such a call is the connector's implicit wait
	// behind every queued operation, the wait that can lose its wake-up (docs/modes.md);
	// under the native connector nothing is queued, but the rule is the same, so a mode
	// that breaks it fails where CI runs it.
	esPending = map[ID]pendingObj{}
	// esHeld are what each event set's operations read after their call returned (an
	// attribute's value, in C memory): released once the set is waited or closed.
	esHeld = map[C.hid_t][]func(){}
	// esInserted counts the _async calls each event set took, so that a failed
	// operation's insertion count (H5ESget_err_info) names the plan operation that made
	// it without asking HDF5 between the calls (EventSet.Inserted).
	esInserted = map[C.hid_t]uint64{}
)

// pendingObj is an identifier whose create or open is in an event set not yet waited.
type pendingObj struct {
	es   C.hid_t
	call string // e.g. "H5Dcreate_async /Timestep_0/x"
}

// ErrPending is wrapped by the error of an ordinary (synchronous) call on an identifier
// whose _async create or open is in an event set not yet waited.
var ErrPending = errors.New("its asynchronous create or open is in an event set not yet waited")

// pending records that the _async call (naming the object) in es returned id. Inside
// the gate; es 0 (an ordinary call) records nothing.
func pending(id ID, es C.hid_t, call string) {
	if es > 0 {
		esPending[id] = pendingObj{es: es, call: call}
	}
}

// inserted counts one _async call es took (es 0: an ordinary call). Inside the gate.
func inserted(es C.hid_t) {
	if es > 0 {
		esInserted[es]++
	}
}

// hold keeps release until es is waited or closed. Inside the gate.
func hold(es C.hid_t, release func()) { esHeld[es] = append(esHeld[es], release) }

// settle forgets es's pending identifiers and releases what its operations held, once
// every operation of es has completed. Inside the gate.
func settle(es C.hid_t) {
	for id, p := range esPending {
		if p.es == es {
			delete(esPending, id)
		}
	}
	for _, r := range esHeld[es] {
		r()
	}
	delete(esHeld, es)
}

// checkSettled refuses an ordinary call (no event set current) on id while its create or
// open is pending in an event set. Inside the gate.
func checkSettled(op string, id ID) error {
	if curES() > 0 {
		return nil
	}
	if p, ok := esPending[id]; ok {
		return errorf("h5: %s: identifier %d (%s in event set %d): %w; wait the set first (H5ESwait) or issue the call into it", op, id, p.call, p.es, ErrPending)
	}
	return nil
}

// forget drops a closed identifier's records.
func forget(id ID) {
	delete(objMPIO, id)
	delete(objKind, id)
	delete(esPending, id)
}

// esSpaceKey is the key of t's spaces in esSpaces, "" outside an event set, where the
// transfer stages variable-length values of its own, or for a point selection (its key
// would be as long as its points, kept until the file's close).
func esSpaceKey(t *plan.Transfer) string {
	if curES() <= 0 || t.MemType.VarLen || (t.MemType.Class == plan.Compound && t.MemType.HasVarLen()) || t.Selection.Kind == plan.Points {
		return ""
	}
	return fmt.Sprint("T", t.FileShape, t.Selection, t.MemShape, t.MemSelection)
}

// creationSpace is the dataspace of a dataset create: inside an event set the one made for
// that extent before (cached true: the caller does not close it), else a new one.
func creationSpace(op string, shape, maxShape []uint64) (s C.hid_t, cached bool, err error) {
	if curES() <= 0 {
		s, err = simpleSpace(op, shape, maxShape)
		return s, false, err
	}
	key := fmt.Sprint("C", shape, maxShape)
	if c, ok := esSpaces[key]; ok {
		return c.fs, true, nil
	}
	if s, err = simpleSpace(op, shape, maxShape); err != nil {
		return s, false, err
	}
	esSpaces[key] = spaces{ms: -1, fs: s, cached: true}
	return s, true, nil
}

// releaseSpaces closes esSpaces (at a file's close, when its event sets are waited).
// Inside the gate.
func releaseSpaces() {
	for k, sp := range esSpaces {
		sp.cached = false
		sp.close()
		delete(esSpaces, k)
	}
}

// HaveEventSets reports whether the HDF5 this package was compiled against has event sets
// and the _async calls (H5ES: HDF5 1.13 and later; not 1.10).
func HaveEventSets() bool { return C.h5e_have() != 0 }

// EventSet is an HDF5 event set (H5EScreate). Operations go into it through InEventSet.
type EventSet struct{ id C.hid_t }

// esCur is the event set the HDF5 calls of one OS thread go to (InEventSet), guarded by
// the gate: HDF5 calls of any other thread (another session's background executor) keep
// the ordinary, synchronous calls.
var esCur struct {
	id  C.hid_t
	tid C.long
}

// curES returns the calling thread's current event set, 0 (H5ES_NONE) for none. Inside
// the gate.
func curES() C.hid_t {
	if esCur.id <= 0 || C.h5e_tid() != esCur.tid {
		return 0
	}
	return esCur.id
}

// asyncCall names the call HDF5 ran for call: its _async form when es is an event set.
func asyncCall(call string, es C.hid_t) string {
	if a, ok := asyncForms[call]; ok && es > 0 {
		return a
	}
	return call
}

// asyncForms are the calls es.h issues as an _async form into an event set.
var asyncForms = map[string]string{
	"H5Gcreate2": "H5Gcreate_async", "H5Gopen2": "H5Gopen_async", "H5Gclose": "H5Gclose_async",
	"H5Dcreate2": "H5Dcreate_async", "H5Dopen2": "H5Dopen_async", "H5Dclose": "H5Dclose_async",
	"H5Dwrite": "H5Dwrite_async", "H5Dread": "H5Dread_async", "H5Dset_extent": "H5Dset_extent_async",
	"H5Fcreate": "H5Fcreate_async", "H5Fopen": "H5Fopen_async", "H5Fflush": "H5Fflush_async", "H5Fclose": "H5Fclose_async",
	"H5Acreate2": "H5Acreate_async", "H5Aopen": "H5Aopen_async", "H5Awrite": "H5Awrite_async", "H5Aclose": "H5Aclose_async",
}

// asyncOp is asyncCall of the call that begins op ("H5Dcreate2 /path").
func asyncOp(op string, es C.hid_t) string {
	call, rest, _ := strings.Cut(op, " ")
	if rest == "" {
		return asyncCall(call, es)
	}
	return asyncCall(call, es) + " " + rest
}

// NewEventSet creates an event set (H5EScreate); on a library without event sets it fails
// naming the build that has them.
func NewEventSet() (EventSet, error) {
	if !HaveEventSets() {
		return EventSet{}, errorf("h5: H5EScreate: HDF5 %s has no event sets (HDF5 1.13 and later; build HDF5=1.14)", Version())
	}
	enter()
	defer leave()
	id := C.h5e_create()
	if id < 0 {
		return EventSet{}, stackError("H5EScreate")
	}
	return EventSet{id}, nil
}

// InEventSet runs fn with es current for the calling thread: the HDF5 calls fn makes
// through this package that have an _async form (file create, open, flush and close,
// group and dataset create, open and close, H5Dwrite, H5Dread, H5Dset_extent, the
// multi-dataset transfers and an attribute's create or open, write and close) are issued
// as that form into es. The identifiers its creates and opens return are pending until es
// is waited: an ordinary call on one fails (ErrPending). The thread stays locked for fn, so every call is this thread's.
func InEventSet(es EventSet, fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	enter()
	esCur.id, esCur.tid = es.id, C.h5e_tid()
	leave()
	defer func() {
		enter()
		esCur.id, esCur.tid = 0, 0
		leave()
	}()
	return fn()
}

// EventSetFailure is an operation of an event set that failed after its call returned
// (in the background, under a connector that runs it there).
type EventSetFailure struct {
	// API is the HDF5 call, e.g. "H5Dwrite_async"; Args its argument string.
	API, Args string
	// Index is the operation's insertion count in the event set (0 for the first).
	Index uint64
	// Err is the failed operation's HDF5 error stack.
	Err *Error
}

// Wait blocks until every operation in es has completed (H5ESwait), then asks whether any
// failed (H5ESget_err_status) and returns those (H5ESget_err_count, H5ESget_err_info,
// H5ESfree_err_info), which the event set then forgets. The error is that of the waits
// and queries themselves.
func (es EventSet) Wait() ([]EventSetFailure, error) {
	if err := es.WaitDone(); err != nil {
		return nil, err
	}
	return es.Failures()
}

// WaitDone blocks until every operation in es has completed (H5ESwait); ask Failures
// next. A step's sets are all waited before any is asked: a query made while the
// connector still runs another set's operation waits for the library's lock.
func (es EventSet) WaitDone() error {
	enter()
	defer leave()
	var inProgress C.size_t
	var failed C.int
	if C.h5e_wait(es.id, &inProgress, &failed) < 0 {
		return stackError("H5ESwait")
	}
	settle(es.id)
	return nil
}

// Inserted is the number of _async calls es has taken: under a connector that runs them
// in the background each inserted one operation, so a failure's insertion count
// (EventSetFailure.Index) falls below the Inserted read after the call that made it.
// Under the native connector nothing is inserted and failures come at the call.
func (es EventSet) Inserted() uint64 {
	enter()
	defer leave()
	return esInserted[es.id]
}

// Failures asks whether any operation of the waited set es failed (H5ESget_err_status)
// and returns those (H5ESget_err_count, H5ESget_err_info, H5ESfree_err_info), which the
// event set then forgets.
func (es EventSet) Failures() ([]EventSetFailure, error) {
	enter()
	defer leave()
	var failed C.int
	if C.h5e_err_status(es.id, &failed) < 0 {
		return nil, stackError("H5ESget_err_status")
	}
	if failed == 0 {
		return nil, nil
	}
	var n C.size_t
	if C.h5e_err_count(es.id, &n) < 0 {
		return nil, stackError("H5ESget_err_count")
	}
	if n == 0 {
		return []EventSetFailure{{API: "unknown", Err: &Error{Op: "an operation of the event set (H5ESget_err_status reports a failure, H5ESget_err_count none)"}}}, nil
	}
	info := (*C.h5e_err_info)(C.calloc(n, C.size_t(unsafe.Sizeof(C.h5e_err_info{}))))
	defer C.free(unsafe.Pointer(info))
	var cleared C.size_t
	if C.h5e_err_info_get(es.id, n, info, &cleared) < 0 {
		return nil, stackError("H5ESget_err_info")
	}
	infos := unsafe.Slice(info, int(cleared))
	out := make([]EventSetFailure, len(infos))
	for i, e := range infos {
		api := C.GoString(e.api_name)
		out[i] = EventSetFailure{API: api, Args: C.GoString(e.api_args), Index: uint64(e.op_ins_count),
			Err: stackErrorOf(api, e.err_stack_id)}
	}
	if C.h5e_err_info_free(cleared, info) < 0 {
		return out, stackError("H5ESfree_err_info")
	}
	return out, nil
}

// Poll waits for the event set with no timeout (H5ESwait(es, 0, ...)): under the Async VOL
// it lets the queued operations start, as h5bench does before its compute; errors are left
// to Wait.
func (es EventSet) Poll() {
	enter()
	defer leave()
	var inProgress C.size_t
	var failed C.int
	if C.h5e_poll(es.id, &inProgress, &failed) < 0 {
		C.H5Eclear2(C.H5E_DEFAULT)
	}
}

// Close closes the event set (H5ESclose); wait for it first.
func (es EventSet) Close() error {
	if es.id <= 0 {
		return nil
	}
	enter()
	defer leave()
	if C.h5e_close(es.id) < 0 {
		return stackError(fmt.Sprintf("H5ESclose %d", es.id))
	}
	settle(es.id)
	delete(esInserted, es.id)
	return nil
}
