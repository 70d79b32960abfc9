package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>

// h5p_buf is a growing NUL-terminated C string.
typedef struct {
	char *buf;
	size_t len, cap;
} h5p_buf;

static void h5p_append(h5p_buf *b, const char *s) {
	size_t n;
	if (s == NULL) s = "";
	n = strlen(s);
	if (b->len + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 1024;
		char *p;
		while (b->len + n + 1 > c) c *= 2;
		if ((p = realloc(b->buf, c)) == NULL) return;
		b->buf = p;
		b->cap = c;
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = 0;
}

// h5p_walk_cb appends "func \x1f desc \x1f major \x1f minor \x1e" for one stack entry.
// H5Eget_msg does not clear the stack being walked.
static herr_t h5p_walk_cb(unsigned n, const H5E_error2_t *e, void *data) {
	h5p_buf *b = data;
	char maj[256], min[256];
	(void)n;
	if (H5Eget_msg(e->maj_num, NULL, maj, sizeof maj) < 0) maj[0] = 0;
	if (H5Eget_msg(e->min_num, NULL, min, sizeof min) < 0) min[0] = 0;
	h5p_append(b, e->func_name);
	h5p_append(b, "\x1f");
	h5p_append(b, e->desc);
	h5p_append(b, "\x1f");
	h5p_append(b, maj);
	h5p_append(b, "\x1f");
	h5p_append(b, min);
	h5p_append(b, "\x1e");
	return 0;
}

// h5p_error_stack walks an error stack (H5E_DEFAULT: the thread's) from the API function
// down, clears it and returns the records (malloc'd, caller frees) or NULL when the stack
// is empty.
static char *h5p_error_stack(hid_t stack) {
	h5p_buf b = {0};
	H5Ewalk2(stack, H5E_WALK_DOWNWARD, h5p_walk_cb, &b);
	H5Eclear2(stack);
	return b.buf;
}

// h5p_auto_off reports whether automatic error printing is off for the default stack.
static int h5p_auto_off(void) {
	H5E_auto2_t fn = NULL;
	void *data = NULL;
	if (H5Eget_auto2(H5E_DEFAULT, &fn, &data) < 0) return 0;
	return fn == NULL;
}

static hid_t h5p_probe_plist(void) { return H5Pcreate(H5P_DATASET_XFER); }

// h5p_threadsafe reports whether the library keeps an error stack per thread.
static int h5p_threadsafe(void) {
	hbool_t ts = 0;
	if (H5is_library_threadsafe(&ts) < 0) return 0;
	return ts != 0;
}

// h5p_quiet_thread turns automatic error printing off for the calling thread's default
// stack, once per thread: a thread-safe HDF5 gives every thread its own stack, printing on.
static __thread int h5p_quiet_done;
static void h5p_quiet_thread(void) {
	if (!h5p_quiet_done) {
		H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
		h5p_quiet_done = 1;
	}
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// The gate: HDF5 is built without thread safety, so every sequence of HDF5 calls runs while
// holding gate, on a locked OS thread. ready, version and the package's caches (typeCache,
// objMPIO, the transfer property lists) are guarded by the gate too.
var (
	gate       sync.Mutex
	ready      bool
	threadsafe bool
	version    string
	// initTID is the OS thread that initialized the library: a connector with threads of
	// its own (the Async VOL starts Argobots there) knows that thread only.
	initTID C.long
)

// enter takes the gate and initializes the library on first use: automatic error printing
// off (HDF5 errors are returned as *Error, never printed). A thread-safe library keeps that
// setting per thread, so there it is turned off on every OS thread that enters.
func enter() {
	runtime.LockOSThread()
	gate.Lock()
	if !ready {
		C.H5open()
		initTID = osThread()
		C.H5Eset_auto2(C.H5E_DEFAULT, nil, nil)
		threadsafe = C.h5p_threadsafe() != 0
		initConnector()
		ready = true
	}
	if threadsafe {
		C.h5p_quiet_thread()
	}
}

// leave releases the gate taken by enter.
func leave() {
	gate.Unlock()
	runtime.UnlockOSThread()
}

// Version returns the HDF5 library version, e.g. "1.10.8".
func Version() string {
	enter()
	defer leave()
	return versionLocked()
}

// versionLocked is Version inside the gate.
func versionLocked() string {
	if version == "" {
		var maj, min, rel C.uint
		if C.H5get_libversion(&maj, &min, &rel) < 0 {
			C.H5Eclear2(C.H5E_DEFAULT)
			return "unknown"
		}
		version = fmt.Sprintf("%d.%d.%d", maj, min, rel)
	}
	return version
}

// stackError collects and clears the HDF5 error stack of a call that just failed. It must
// run before any other HDF5 call (each API call clears the stack on entry), which is why
// cleanup is deferred: return values are evaluated before deferred closes run.
func stackError(op string) *Error { return stackErrorOf(op, C.H5E_DEFAULT) }

// stackErrorOf is stackError of an error stack of its own (an event set's failed
// operation's).
func stackErrorOf(op string, stack C.hid_t) *Error {
	e := &Error{Op: op}
	p := C.h5p_error_stack(stack)
	if p == nil {
		return e
	}
	raw := C.GoString(p)
	C.free(unsafe.Pointer(p))
	for _, rec := range strings.Split(strings.TrimSuffix(raw, "\x1e"), "\x1e") {
		f := strings.Split(rec, "\x1f")
		if len(f) != 4 {
			continue
		}
		// Some descriptions embed ctime() output with its newline: keep one line.
		cause := fmt.Sprintf("%s (%s/%s)", strings.Join(strings.Fields(f[1]), " "), f[2], f[3])
		e.Stack = append(e.Stack, f[0]+"(): "+cause)
		e.causes = append(e.causes, cause)
	}
	return e
}

// autoPrintOff reports whether HDF5's automatic error printing is off (for tests).
func autoPrintOff() bool {
	enter()
	defer leave()
	return C.h5p_auto_off() != 0
}

// kindNames names identifier kinds in error messages.
var kindNames = map[C.H5I_type_t]string{
	C.H5I_FILE: "file", C.H5I_GROUP: "group", C.H5I_DATATYPE: "datatype",
	C.H5I_DATASPACE: "dataspace", C.H5I_DATASET: "dataset", C.H5I_ATTR: "attribute",
	C.H5I_GENPROP_LST: "property list",
}

func kindName(k C.H5I_type_t) string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind %d", int(k))
}

// checkID validates an identifier argument: > 0, valid (not closed), not pending in an
// event set when the call is an ordinary one (checkSettled) and, when kinds are given, of
// one of those kinds. Called inside the gate.
func checkID(op string, id ID, kinds ...C.H5I_type_t) error {
	if id <= 0 {
		return errorf("h5: %s: %w %d", op, ErrInvalidID, id)
	}
	if err := checkSettled(op, id); err != nil {
		return err
	}
	// Inside an event set, an identifier this package handed out and has not closed is
	// checked against its own record (objKind), not HDF5: under the Async VOL every HDF5
	// call waits for the library's lock, which the connector's thread holds for a whole
	// background write, so asking around each _async call serialised the writes
	// (docs/modes.md, "Where h5proxy's event sets lost their overlap").
	k, ok := C.H5I_type_t(0), false
	if curES() > 0 {
		k, ok = objKind[id]
	}
	if !ok {
		if C.H5Iis_valid(C.hid_t(id)) <= 0 {
			C.H5Eclear2(C.H5E_DEFAULT)
			return errorf("h5: %s: %w %d (closed or never opened)", op, ErrInvalidID, id)
		}
		if len(kinds) == 0 {
			return nil
		}
		k = C.H5Iget_type(C.hid_t(id))
	}
	if len(kinds) == 0 {
		return nil
	}
	names := make([]string, len(kinds))
	for i, want := range kinds {
		if k == want {
			return nil
		}
		names[i] = kindName(want)
	}
	return errorf("h5: %s: %w %d: a %s, want a %s", op, ErrInvalidID, id, kindName(k), strings.Join(names, " or "))
}

// cstr returns a C copy of s; the caller frees it with free.
func cstr(s string) *C.char { return C.CString(s) }

func free(p *C.char) { C.free(unsafe.Pointer(p)) }

// idMark holds fresh dataspace, property list and datatype identifiers, closed at once.
// HDF5 1.10 hands out identifiers of one kind in increasing order, so an identifier created
// between two marks lies between them: tests use this to find handles leaked by a call
// (H5Inmembers refuses library kinds).
type idMark [3]C.hid_t

func newIDMark() idMark {
	enter()
	defer leave()
	m := idMark{C.H5Screate(C.H5S_SCALAR), C.h5p_probe_plist(), C.H5Tcreate(C.H5T_OPAQUE, 1)}
	C.H5Sclose(m[0])
	C.H5Pclose(m[1])
	C.H5Tclose(m[2])
	return m
}

// leakedSince returns the identifiers created after mark a and before mark b that are
// still open, and how many were created.
func leakedSince(a, b idMark) (open []ID, created int) {
	enter()
	defer leave()
	for k := range a {
		for id := a[k] + 1; id < b[k]; id++ {
			created++
			if C.H5Iis_valid(id) > 0 {
				open = append(open, ID(id))
			}
		}
	}
	C.H5Eclear2(C.H5E_DEFAULT)
	return open, created
}
