package main

/*
#cgo pkg-config: ompi
#cgo CFLAGS: -I${SRCDIR}/../include
#include <stdlib.h>
#include "h5p_internal.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"unsafe"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/proxy"
)

// status is a return code of the C ABI (enum h5proxy_status in include/h5proxy.h; a test
// checks that the values agree).
type status int

// Status codes.
const (
	statusOK           status = 0
	errInvalidArgument status = -1
	errInvalidHandle   status = -2
	errConfig          status = -3
	errHDF5            status = -4
	errMPI             status = -5
	errIO              status = -6
	errState           status = -7
	errUnsupported     status = -8
	errPanic           status = -9
	errInternal        status = -10
	errVerify          status = -11
	errThreadLevel     status = -12
)

// statusNames maps each code to its name in the header, for the ABI test.
var statusNames = map[status]string{
	statusOK: "H5PROXY_OK", errInvalidArgument: "H5PROXY_ERR_INVALID_ARGUMENT",
	errInvalidHandle: "H5PROXY_ERR_INVALID_HANDLE", errConfig: "H5PROXY_ERR_CONFIG",
	errHDF5: "H5PROXY_ERR_HDF5", errMPI: "H5PROXY_ERR_MPI", errIO: "H5PROXY_ERR_IO",
	errState: "H5PROXY_ERR_STATE", errUnsupported: "H5PROXY_ERR_UNSUPPORTED",
	errPanic: "H5PROXY_ERR_PANIC", errInternal: "H5PROXY_ERR_INTERNAL", errVerify: "H5PROXY_ERR_VERIFY",
	errThreadLevel: "H5PROXY_ERR_THREAD_LEVEL",
}

// abiVersion is H5PROXY_ABI_VERSION of the header this library implements.
const abiVersion = 1

// Phase constants of the header (H5PROXY_PHASE_*).
const (
	phaseWrite = 1
	phaseRead  = 2
)

// setError stores msg as the calling thread's last error message. It runs on the C
// caller's thread: an exported function's goroutine stays on that thread for its whole
// call, including the cgo calls it makes.
func setError(msg string) {
	cs := C.CString(msg)
	C.h5p_error_set(cs, C.size_t(len(msg)))
	C.free(unsafe.Pointer(cs))
}

// fail records "fn: message" and returns code, for a failure detected by the boundary
// itself.
func fail(fn string, code status, format string, args ...any) C.int {
	setError(fn + ": " + fmt.Sprintf(format, args...))
	return C.int(code)
}

// failErr records fn and err's message and returns err's code (def when err carries no
// recognizable class).
func failErr(fn string, err error, def status) C.int {
	setError(fn + ": " + err.Error())
	return C.int(classify(err, def))
}

// classify maps a Go error to a status code. The operation's default def applies to
// errors of no known class: configuration steps default to CONFIG, I/O phases to IO.
func classify(err error, def status) status {
	var oe *options.Error
	var pe *fs.PathError
	var le *os.LinkError
	var se *os.SyscallError
	switch {
	case err == nil:
		return statusOK
	case errors.Is(err, proxy.ErrClosed):
		return errInvalidHandle
	case errors.Is(err, proxy.ErrVerify):
		return errVerify
	case errors.Is(err, proxy.ErrState):
		return errState
	case errors.Is(err, proxy.ErrThreadLevel): // before ErrUnsupported, which it wraps
		return errThreadLevel
	case errors.Is(err, proxy.ErrUnsupported):
		return errUnsupported
	case errors.As(err, &oe):
		return errConfig
	case proxy.IsHDF5Error(err):
		return errHDF5
	case proxy.IsMPIError(err):
		return errMPI
	case errors.As(err, &pe), errors.As(err, &le), errors.As(err, &se),
		errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission), errors.Is(err, fs.ErrExist):
		return errIO
	}
	return def
}

// guard recovers a panic of the exported function fn: the stack goes to stderr, the
// message to the thread's error slot and *rc becomes H5PROXY_ERR_PANIC. Every export
// defers it first, so no Go panic ever unwinds into C.
func guard(fn string, rc *C.int) {
	if r := recover(); r != nil {
		fmt.Fprintf(os.Stderr, "h5proxy: panic in %s (a bug in h5proxy, please report it): %v\n%s", fn, r, debug.Stack())
		setError(fmt.Sprintf("%s: internal panic recovered: %v (stack written to stderr)", fn, r))
		*rc = C.int(errPanic)
	}
}

// goString converts an optional C string: NULL gives "" and false.
func goString(p *C.char) (string, bool) {
	if p == nil {
		return "", false
	}
	return C.GoString(p), true
}

// copyOut copies text into a caller buffer with the header's copy semantics (truncated
// and NUL-terminated, full size in *needed).
func copyOut(fn, text string, buf *C.char, n C.size_t, needed *C.size_t) C.int {
	if buf == nil && n != 0 {
		return fail(fn, errInvalidArgument, "buf is NULL but len is %d (pass len 0 to query the size)", uint64(n))
	}
	cs := C.CString(text)
	defer C.free(unsafe.Pointer(cs))
	C.h5p_copy_out(cs, C.size_t(len(text)), buf, n, needed)
	return C.int(statusOK)
}
