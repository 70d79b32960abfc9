package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>
#include "es.h"

// The H5F_ACC_* and H5P_* class names are macros calling H5check()/H5open().
static unsigned h5p_acc_trunc(void) { return H5F_ACC_TRUNC; }
static unsigned h5p_acc_rdonly(void) { return H5F_ACC_RDONLY; }
static unsigned h5p_acc_rdwr(void) { return H5F_ACC_RDWR; }
static hid_t h5p_fapl_class(void) { return H5P_FILE_ACCESS; }

static int h5p_mpi_ready(void) {
	int init = 0, fin = 0;
	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	return init && !fin;
}

// h5p_subfiling holds the subfiling VFD settings h5proxy sets (0: the VFD's default).
typedef struct {
	long long stripe_size;
	int stripe_count, thread_pool;
} h5p_subfiling;

static int h5p_have_subfiling(void) {
#ifdef H5_HAVE_SUBFILING_VFD
	return 1;
#else
	return 0;
#endif
}

#ifdef H5_HAVE_SUBFILING_VFD
#include <H5FDsubfiling.h>
#include <H5FDioc.h>

// h5p_set_subfiling sets the subfiling VFD on fapl for communicator c: the VFD's defaults
// (H5Pget_fapl_subfiling on a list without it), then sf's settings, the IOC driver's thread
// pool included. Returns 0 or -1 (HDF5 error on the stack).
static int h5p_set_subfiling(hid_t fapl, MPI_Comm c, MPI_Info info, const h5p_subfiling *sf) {
	H5FD_subfiling_config_t cfg;
	H5FD_ioc_config_t ioc;
	int rc = 0;
	if (H5Pset_mpi_params(fapl, c, info) < 0) return -1;
	if (H5Pget_fapl_subfiling(fapl, &cfg) < 0) return -1;
	if (sf->stripe_size > 0) cfg.shared_cfg.stripe_size = sf->stripe_size;
	if (sf->stripe_count > 0) cfg.shared_cfg.stripe_count = sf->stripe_count;
	if (sf->thread_pool > 0) {
		if (H5Pget_fapl_ioc(cfg.ioc_fapl_id, &ioc) < 0) rc = -1;
		ioc.thread_pool_size = sf->thread_pool;
		if (rc == 0 && H5Pset_fapl_ioc(cfg.ioc_fapl_id, &ioc) < 0) rc = -1;
	}
	if (rc == 0 && H5Pset_fapl_subfiling(fapl, &cfg) < 0) rc = -1;
	H5Pclose(cfg.ioc_fapl_id);
	return rc;
}
#endif

// h5p_set_mpio sets the MPI-IO driver on fapl for the communicator with Fortran handle comm
// and the n hints keys[i]=vals[i] (an MPI_Info object even with none when always, else
// MPI_INFO_NULL then). The MPI_Info is freed before returning (HDF5 duplicates it). Returns 0, -1 (HDF5 error on the stack), -2 (MPI_COMM_NULL) or -3 (MPI_Info error).
// With sf, the subfiling VFD (over its I/O concentrator driver) replaces the MPI-IO driver:
// H5Pset_mpi_params gives it the communicator and hints, sf's non-zero fields override the
// VFD's defaults. -4: this HDF5 has no subfiling VFD.
static int h5p_set_mpio(hid_t fapl, int comm, int n, char **keys, char **vals, int always, const h5p_subfiling *sf) {
	MPI_Comm c = MPI_Comm_f2c((MPI_Fint)comm);
	MPI_Info info = MPI_INFO_NULL;
	int i, rc = 0;
#ifndef H5_HAVE_SUBFILING_VFD
	if (sf != NULL) return -4;
#endif
	// OpenMPI returns NULL (not MPI_COMM_NULL) for a handle outside its table.
	if (c == NULL || c == MPI_COMM_NULL) return -2;
	if (n > 0 || always) {
		if (MPI_Info_create(&info) != MPI_SUCCESS) return -3;
		for (i = 0; i < n; i++) {
			if (MPI_Info_set(info, keys[i], vals[i]) != MPI_SUCCESS) {
				MPI_Info_free(&info);
				return -3;
			}
		}
	}
	if (sf == NULL) {
		if (H5Pset_fapl_mpio(fapl, c, info) < 0) rc = -1;
	} else {
#ifdef H5_HAVE_SUBFILING_VFD
		rc = h5p_set_subfiling(fapl, c, info, sf);
#endif
	}
	if (info != MPI_INFO_NULL) MPI_Info_free(&info);
	return rc;
}

// h5p_get_mdc reads fapl's metadata cache configuration (HDF5's defaults on a new list).
static herr_t h5p_get_mdc(hid_t fapl, H5AC_cache_config_t *c) {
	memset(c, 0, sizeof *c);
	c->version = H5AC__CURR_CACHE_CONFIG_VERSION;
	return H5Pget_mdc_config(fapl, c);
}

// h5p_set_mdc applies a fixed metadata cache configuration: the initial size, every
// automatic resize off, evictions as asked (h5bench: off). min/max (0: HDF5's) are widened
// when the size lies outside them, since HDF5 rejects an initial size outside
// [min_size, max_size].
static herr_t h5p_set_mdc(hid_t fapl, size_t initial, size_t min, size_t max, int evictions) {
	H5AC_cache_config_t c;
	if (h5p_get_mdc(fapl, &c) < 0) return -1;
	c.set_initial_size = 1;
	c.initial_size = initial;
	if (min > 0) c.min_size = min;
	if (max > 0) c.max_size = max;
	if (initial > c.max_size) c.max_size = initial;
	if (initial < c.min_size) c.min_size = initial;
	c.evictions_enabled = evictions;
	c.incr_mode = H5C_incr__off;
	c.flash_incr_mode = H5C_flash_incr__off;
	c.decr_mode = H5C_decr__off;
	return H5Pset_mdc_config(fapl, &c);
}

// h5p_adjust_mdc edits the default metadata cache configuration in place, automatic
// resizing kept (MACSio's make_fapl): the initial and minimum sizes, the epoch length and
// the lower hit-rate threshold.
static herr_t h5p_adjust_mdc(hid_t fapl, size_t initial, size_t min, long epoch, double lower) {
	H5AC_cache_config_t c;
	if (h5p_get_mdc(fapl, &c) < 0) return -1;
	c.set_initial_size = 1;
	c.initial_size = initial;
	c.min_size = min;
	c.epoch_length = epoch;
	c.lower_hr_threshold = lower;
	return H5Pset_mdc_config(fapl, &c);
}
*/
import "C"

import (
	"fmt"
	"sort"
	"unsafe"
)

// coreIncrement is the core driver's allocation increment (64 MiB).
const coreIncrement = 64 << 20

// fileAccess builds the file access property list of a; the caller closes it. Called inside
// the gate.
func fileAccess(op string, a Access) (_ C.hid_t, err error) {
	fapl := C.H5Pcreate(C.h5p_fapl_class())
	if fapl < 0 {
		return -1, stackError("H5Pcreate(H5P_FILE_ACCESS) for " + op)
	}
	// fapl, not the named result (set to -1 by the error returns), is closed on failure.
	defer func() {
		if err != nil {
			C.H5Pclose(fapl)
		}
	}()
	if a.Parallel {
		if err := setMPIO(op, fapl, a); err != nil {
			return -1, err
		}
	}
	if a.VOL != "" {
		if err := setVOL(op, fapl, a.VOL); err != nil {
			return -1, err
		}
	}
	if a.CollMetadataOps && C.H5Pset_all_coll_metadata_ops(fapl, true) < 0 {
		return -1, stackError("H5Pset_all_coll_metadata_ops for " + op)
	}
	if a.CollMetadataWrite && C.H5Pset_coll_metadata_write(fapl, true) < 0 {
		return -1, stackError("H5Pset_coll_metadata_write for " + op)
	}
	if a.AlignLen > 0 && C.H5Pset_alignment(fapl, C.hsize_t(a.AlignThreshold), C.hsize_t(a.AlignLen)) < 0 {
		return -1, stackError("H5Pset_alignment for " + op)
	}
	if a.MDCInitialSize > 0 {
		ev := C.int(0)
		if a.MDCEvictions {
			ev = 1
		}
		if C.h5p_set_mdc(fapl, C.size_t(a.MDCInitialSize), C.size_t(a.MDCMinSize), C.size_t(a.MDCMaxSize), ev) < 0 {
			return -1, stackError("H5Pset_mdc_config for " + op)
		}
	}
	if m := a.MDCAdjust; m != nil && C.h5p_adjust_mdc(fapl, C.size_t(m.Initial), C.size_t(m.Min), C.long(m.EpochLength), C.double(m.LowerHitRate)) < 0 {
		return -1, stackError("H5Pset_mdc_config for " + op)
	}
	if a.CloseSemi && C.H5Pset_fclose_degree(fapl, C.H5F_CLOSE_SEMI) < 0 {
		return -1, stackError("H5Pset_fclose_degree for " + op)
	}
	if a.LibverLatest && C.H5Pset_libver_bounds(fapl, C.H5F_LIBVER_LATEST, C.H5F_LIBVER_LATEST) < 0 {
		return -1, stackError("H5Pset_libver_bounds for " + op)
	}
	if a.MetaBlockSize > 0 && C.H5Pset_meta_block_size(fapl, C.hsize_t(a.MetaBlockSize)) < 0 {
		return -1, stackError("H5Pset_meta_block_size for " + op)
	}
	if err := tuneAccess(op, fapl, a); err != nil {
		return -1, err
	}
	if err := setCacheWrite(op, fapl, a); err != nil {
		return -1, err
	}
	return fapl, nil
}

// setMPIO sets the MPI-IO driver with a's communicator and hints.
func setMPIO(op string, fapl C.hid_t, a Access) error {
	// MPI_Comm_f2c before MPI_Init (or after MPI_Finalize) is undefined: refuse instead.
	if C.h5p_mpi_ready() == 0 {
		return errorf("h5: %s: Parallel access needs MPI initialized (and not finalized)", op)
	}
	keys := make([]string, 0, len(a.Info))
	for k := range a.Info {
		keys = append(keys, k)
	}
	sort.Strings(keys) // same order on every rank
	n := len(keys)
	var ck, cv **C.char
	if n > 0 {
		ptrSize := C.size_t(unsafe.Sizeof((*C.char)(nil)))
		ck = (**C.char)(C.malloc(C.size_t(n) * ptrSize))
		cv = (**C.char)(C.malloc(C.size_t(n) * ptrSize))
		ks, vs := unsafe.Slice(ck, n), unsafe.Slice(cv, n)
		for i, k := range keys {
			ks[i], vs[i] = cstr(k), cstr(a.Info[k])
		}
		defer func() {
			for i := range ks {
				free(ks[i])
				free(vs[i])
			}
			C.free(unsafe.Pointer(ck))
			C.free(unsafe.Pointer(cv))
		}()
	}
	var sf *C.h5p_subfiling
	if s := a.Subfiling; s != nil {
		sf = &C.h5p_subfiling{stripe_size: C.longlong(s.StripeSize), stripe_count: C.int(s.StripeCount), thread_pool: C.int(s.ThreadPool)}
	}
	always := C.int(0)
	if a.Hints { // an info object even without hints (plan.FileSpec.Hints)
		always = 1
	}
	switch C.h5p_set_mpio(fapl, C.int(a.Comm), C.int(n), ck, cv, always, sf) {
	case 0:
		return nil
	case -4:
		return errorf("h5: %s: the subfiling VFD is not in HDF5 %s (it needs HDF5 1.14 built with --enable-subfiling-vfd)", op, versionLocked())
	case -2:
		return errorf("h5: %s: Fortran communicator handle %d is MPI_COMM_NULL or invalid", op, a.Comm)
	case -3:
		return errorf("h5: %s: building the MPI_Info hints failed", op)
	}
	if sf != nil {
		return stackError("H5Pset_fapl_subfiling for " + op)
	}
	return stackError("H5Pset_fapl_mpio for " + op)
}

// HaveSubfiling reports whether the HDF5 this package was compiled against has the
// subfiling VFD (H5_HAVE_SUBFILING_VFD: HDF5 1.14 built with --enable-subfiling-vfd).
func HaveSubfiling() bool { return C.h5p_have_subfiling() != 0 }

// CreateFile creates (truncating) the file at path with the access settings a. Parallel
// creates are collective on a.Comm.
func CreateFile(path string, a Access) (ID, error) {
	enter()
	defer leave()
	op := "H5Fcreate " + path
	fapl, err := fileAccess(op, a)
	if err != nil {
		return 0, err
	}
	defer C.H5Pclose(fapl)
	fcpl, err := fileCreation(op, a)
	if err != nil {
		return 0, err
	}
	if fcpl != C.H5P_DEFAULT {
		defer C.H5Pclose(fcpl)
	}
	cpath := cstr(path)
	defer free(cpath)
	es := curES()
	f := C.h5e_fcreate(es, cpath, C.h5p_acc_trunc(), fcpl, fapl)
	if f < 0 {
		return 0, stackError(asyncOp(op, es))
	}
	objMPIO[ID(f)] = a.Parallel && a.Subfiling == nil
	objKind[ID(f)] = C.H5I_FILE
	inserted(es)
	pending(ID(f), es, asyncOp(op, es))
	return ID(f), nil
}

// OpenFile opens the existing file at path, read-only if a.ReadOnly, else read-write.
// Parallel opens are collective on a.Comm.
func OpenFile(path string, a Access) (ID, error) {
	enter()
	defer leave()
	op := "H5Fopen " + path
	fapl, err := fileAccess(op, a)
	if err != nil {
		return 0, err
	}
	defer C.H5Pclose(fapl)
	flags := C.h5p_acc_rdwr()
	if a.ReadOnly {
		flags = C.h5p_acc_rdonly()
	}
	cpath := cstr(path)
	defer free(cpath)
	es := curES()
	f := C.h5e_fopen(es, cpath, flags, fapl)
	if f < 0 {
		return 0, stackError(asyncOp(op, es))
	}
	objMPIO[ID(f)] = a.Parallel && a.Subfiling == nil
	objKind[ID(f)] = C.H5I_FILE
	inserted(es)
	pending(ID(f), es, asyncOp(op, es))
	return ID(f), nil
}

// FlushFile flushes the file's buffers with scope H5F_SCOPE_LOCAL when local (h5bench),
// else H5F_SCOPE_GLOBAL.
func FlushFile(f ID, local bool) error {
	enter()
	defer leave()
	if err := checkID("FlushFile", f, C.H5I_FILE); err != nil {
		return err
	}
	scope := C.H5F_scope_t(C.H5F_SCOPE_GLOBAL)
	if local {
		scope = C.H5F_SCOPE_LOCAL
	}
	es := curES()
	if C.h5e_fflush(es, C.hid_t(f), scope) < 0 {
		return stackError(fmt.Sprintf("%s file %d", asyncCall("H5Fflush", es), f))
	}
	inserted(es)
	return nil
}

// CloseFile closes a file identifier. A parallel (MPI-IO) file refuses to close while
// objects in it are open (HDF5's "semi" close degree); a serial file stays open until they
// are closed.
func CloseFile(f ID) error {
	enter()
	defer leave()
	if err := checkID("CloseFile", f, C.H5I_FILE); err != nil {
		return err
	}
	releaseSpaces()
	es := curES()
	if C.h5e_fclose(es, C.hid_t(f)) < 0 {
		return stackError(fmt.Sprintf("%s file %d", asyncCall("H5Fclose", es), f))
	}
	inserted(es)
	forget(f)
	return nil
}

// ObjectCount returns the number of open identifiers in the file other than the file
// identifier itself (HDF5 1.10 counts it): 0 once every group, dataset and attribute is
// closed. For leak checks.
func ObjectCount(f ID) (int, error) {
	enter()
	defer leave()
	if err := checkID("ObjectCount", f, C.H5I_FILE); err != nil {
		return 0, err
	}
	n := C.H5Fget_obj_count(C.hid_t(f), C.H5F_OBJ_ALL)
	if n < 0 {
		return 0, stackError(fmt.Sprintf("H5Fget_obj_count file %d", f))
	}
	if n < 1 {
		return 0, errorf("h5: H5Fget_obj_count: file not counted")
	}
	return int(n) - 1, nil
}

// OpenObjects returns the number of HDF5 identifiers of files, groups, datasets,
// datatypes and attributes open in the whole process (H5Fget_obj_count(H5F_OBJ_ALL,
// H5F_OBJ_ALL)): the leak check's figure, 0 when no session holds a file.
func OpenObjects() (int, error) {
	enter()
	defer leave()
	n := C.H5Fget_obj_count(C.H5F_OBJ_ALL, C.H5F_OBJ_ALL)
	if n < 0 {
		return 0, stackError("H5Fget_obj_count H5F_OBJ_ALL")
	}
	return int(n), nil
}
