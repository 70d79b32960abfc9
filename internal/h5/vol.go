package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <hdf5.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

// h5v_tid is the calling OS thread's id.
static long h5v_tid(void) { return (long)syscall(SYS_gettid); }

// h5v_connector reports the VOL connector a new file access property list gets (the one
// HDF5_VOL_CONNECTOR names, else the native one): *value is its registered value (0: the
// native connector), *native_files whether it makes native HDF5 files (its terminal
// connector is native). HDF5 1.10 has no VOL: native. Returns 0 or -1.
static int h5v_connector(int *value, int *native_files) {
	*value = 0;
	*native_files = 1;
#if H5_VERSION_GE(1, 13, 0)
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), vol = H5I_INVALID_HID;
	H5VL_class_value_t v = 0;
	uint64_t flags = 0;
	int rc = -1;
	if (fapl < 0) return -1;
	if (H5Pget_vol_id(fapl, &vol) >= 0 && H5VLget_value(vol, &v) >= 0 && H5Pget_vol_cap_flags(fapl, &flags) >= 0) {
		*value = (int)v;
		*native_files = (flags & H5VL_CAP_FLAG_NATIVE_FILES) != 0;
		rc = 0;
	}
	if (vol >= 0) H5VLclose(vol);
	H5Pclose(fapl);
	return rc;
#else
	return 0;
#endif
}

// h5v_native_obj returns 1 when obj (a dataset) is accessed through the native
// connector, 0 through another (a file opened with H5Pset_vol: layout=log-vol), -1 on
// error.
static int h5v_native_obj(hid_t obj) {
#if H5_VERSION_GE(1, 13, 0)
	H5VL_class_value_t v = 0;
	hid_t id = H5VLget_connector_id(obj);
	int rc;
	if (id < 0) return -1;
	rc = H5VLget_value(id, &v) < 0 ? -1 : v == H5_VOL_NATIVE;
	H5VLclose(id);
	return rc;
#else
	(void)obj;
	return 1;
#endif
}

// h5v_fapl_class is H5P_FILE_ACCESS (a macro cgo cannot take).
static hid_t h5v_fapl_class(void) { return H5P_FILE_ACCESS; }

// h5v_set_vol puts the connector registered under name (loaded from HDF5_PLUGIN_PATH on
// first use) on fapl with no connector information (the log-based VOL then stacks on the
// native connector, as its user guide sets it). Returns 0, -1 (HDF5 error: the stack says
// why), or -4 on HDF5 1.10 (no VOL).
static int h5v_set_vol(hid_t fapl, const char *name) {
#if H5_VERSION_GE(1, 13, 0)
	hid_t id = H5VLregister_connector_by_name(name, H5P_DEFAULT);
	int rc;
	if (id < 0) return -1;
	rc = H5Pset_vol(fapl, id, NULL) < 0 ? -1 : 0;
	H5VLclose(id);
	return rc;
#else
	(void)fapl; (void)name;
	return -4;
#endif
}

// h5v_cache_wr puts the Cache VOL's per-file write-cache switch on fapl: the property
// "HDF5_CACHE_WR" of a bool, as vol-cache's H5Pset_fapl_cache inserts it (src/H5LS.c),
// which the connector reads at each file create and open when HDF5_CACHE_WR is not in the
// environment. Returns 0 or -1 (HDF5 error on the stack).
static int h5v_cache_wr(hid_t fapl) {
	hbool_t on = 1;
	if (H5Pexist(fapl, "HDF5_CACHE_WR") > 0) return H5Pset(fapl, "HDF5_CACHE_WR", &on) < 0 ? -1 : 0;
	return H5Pinsert2(fapl, "HDF5_CACHE_WR", sizeof on, &on, NULL, NULL, NULL, NULL, NULL, NULL) < 0 ? -1 : 0;
}
*/
import "C"

import (
	"fmt"
	"os"
	"unsafe"
)

// conn is the process's connector, asked once when the library is initialized (enter),
// guarded by the gate; connErr is the error of asking.
var (
	conn    Connector
	connErr error
)

// initConnector asks which connector the process uses. Called inside the gate, once.
func initConnector() {
	var value, files C.int
	if C.h5v_connector(&value, &files) < 0 {
		connErr = stackError("H5Pget_vol_id")
		return
	}
	conn = Connector{Name: "native", Native: value == 0, NativeFiles: files != 0, Value: int(value)}
	if !conn.Native {
		conn.Name = connectorName(os.Getenv("HDF5_VOL_CONNECTOR"), conn.Value)
	}
}

// DefaultConnector returns the VOL connector this process's files are opened through,
// asked once.
func DefaultConnector() (Connector, error) {
	enter()
	defer leave()
	return conn, connErr
}

// nativeVOL reports, inside the gate, whether the process's HDF5 calls go to the native
// connector (an error asking counts as not native: the queries it guards are skipped).
func nativeVOL() bool { return connErr == nil && conn.Native }

// volFiles is set once a file access got a connector of its own (Access.VOL), inside the
// gate: from then on a transfer asks which connector its dataset goes through.
var volFiles bool

// nativeObj reports, inside the gate, whether obj's calls reach the native connector: the
// process's connector, and for a file opened with a connector of its own (Access.VOL),
// that one. Only then does a transfer list carry the native connector's outcome.
func nativeObj(obj C.hid_t) bool {
	if !nativeVOL() {
		return false
	}
	if !volFiles {
		return true
	}
	switch C.h5v_native_obj(obj) {
	case 1:
		return true
	case -1:
		C.H5Eclear2(C.H5E_DEFAULT)
	}
	return false
}

// unavailable returns the *Unavailable of query under the process's connector (inside
// the gate).
func unavailable(query string) error { return &Unavailable{Query: query, Connector: conn.Name} }

// CheckConnectorThread returns nil when the calling thread may issue HDF5 calls through the
// process's connector: always under the native one; under any other, only the thread that
// initialized the library, the one a connector with threads of its own (the Async VOL
// starts Argobots on it) knows. From any other thread the Async VOL prints "[ASYNC VOL
// ERROR] ... ABT_thread_self" for each call and decides wrongly whether a call comes from
// its own execution stream; the error names both threads and the fix.
func CheckConnectorThread() error {
	enter()
	defer leave()
	if connErr != nil || conn.Native {
		return nil
	}
	if tid := osThread(); tid != initTID {
		return fmt.Errorf("h5: HDF5 call from OS thread %d under the %s VOL connector, which HDF5 started on thread %d and which knows that thread only: lock the goroutine that makes the session's calls to its thread (runtime.LockOSThread) before its first HDF5 call", tid, conn.Name, initTID)
	}
	return nil
}

// osThread is the calling OS thread's id.
func osThread() C.long { return C.h5v_tid() }

// setVOL puts the connector named name on fapl (Access.VOL).
func setVOL(op string, fapl C.hid_t, name string) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	switch C.h5v_set_vol(fapl, cname) {
	case 0:
		volFiles = true
		return nil
	case -4:
		return errorf("h5: %s: VOL connector %s: HDF5 %s has no VOL connectors (HDF5 1.13 and later; build HDF5=1.14)", op, name, versionLocked())
	}
	return fmt.Errorf("h5: %s: VOL connector %s (loaded from HDF5_PLUGIN_PATH=%q): %w", op, name, os.Getenv("HDF5_PLUGIN_PATH"), stackError("H5VLregister_connector_by_name/H5Pset_vol"))
}

// LoadConnector checks that HDF5 can load the VOL connector registered under name (from
// HDF5_PLUGIN_PATH), as a file access through it would, before any file is made.
func LoadConnector(name string) error {
	enter()
	defer leave()
	fapl := C.H5Pcreate(C.h5v_fapl_class())
	if fapl < 0 {
		return stackError("H5Pcreate(H5P_FILE_ACCESS)")
	}
	defer C.H5Pclose(fapl)
	return setVOL("loading", fapl, name)
}

// cacheWrite counts the sessions running mode=cache through the Cache VOL with
// HDF5_CACHE_WR unset in the environment (SetCacheWrite). Guarded by the gate.
var cacheWrite int

// SetCacheWrite turns the Cache VOL's write cache on (or off again) for the files this
// package creates or opens through MPI-IO from now on, with the connector's own per-file
// switch (the file access property HDF5_CACHE_WR that vol-cache's H5Pset_fapl_cache
// sets), not the process's environment: the switch lasts as long as the session that set
// it, and files with another driver stay uncached, which vol-cache 1.2.1 needs (it takes
// the file's communicator with H5Pget_fapl_mpio, unchecked, and aborts in MPI_Comm_dup on
// a serial file: AMReX's header, written by rank 0 with the default access). The
// environment's HDF5_CACHE_WR, where set, overrides the property in the connector.
// Each call with on=true is undone by one with on=false: the switch stays on while any
// session of the process asked for it.
func SetCacheWrite(on bool) {
	enter()
	defer leave()
	if on {
		cacheWrite++
	} else if cacheWrite > 0 {
		cacheWrite--
	}
}

// setCacheWrite puts the write-cache switch on fapl when SetCacheWrite turned it on and
// the file is accessed through MPI-IO. Called inside the gate.
func setCacheWrite(op string, fapl C.hid_t, a Access) error {
	if cacheWrite == 0 || !a.Parallel || a.Subfiling != nil {
		return nil
	}
	if C.h5v_cache_wr(fapl) < 0 {
		return stackError("H5Pinsert2(HDF5_CACHE_WR) for " + op)
	}
	return nil
}
