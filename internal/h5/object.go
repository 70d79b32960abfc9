package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>
#include "es.h"

static hid_t h5p_dcpl_class(void) { return H5P_DATASET_CREATE; }
static hid_t h5p_dapl_class(void) { return H5P_DATASET_ACCESS; }
static hid_t h5p_lapl_class(void) { return H5P_LINK_ACCESS; }
static hid_t h5p_gapl_class(void) { return H5P_GROUP_ACCESS; }

// HDF5's 1.6 calls, where the library keeps its deprecated symbols (-2 otherwise: this
// HDF5 was built without them).
static hid_t h5p_dcreate1(hid_t loc, const char *name, hid_t type, hid_t space, hid_t dcpl) {
#ifndef H5_NO_DEPRECATED_SYMBOLS
	return H5Dcreate1(loc, name, type, space, dcpl);
#else
	return -2;
#endif
}
static int h5p_have_deprecated(void) {
#ifndef H5_NO_DEPRECATED_SYMBOLS
	return 1;
#else
	return 0;
#endif
}
static hid_t h5p_dopen1(hid_t loc, const char *name) {
#ifndef H5_NO_DEPRECATED_SYMBOLS
	return H5Dopen1(loc, name);
#else
	return -2;
#endif
}
static hid_t h5p_gcreate1(hid_t loc, const char *name) {
#ifndef H5_NO_DEPRECATED_SYMBOLS
	return H5Gcreate1(loc, name, 0);
#else
	return -2;
#endif
}
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/h5proxy/h5proxy/plan"
)

// maxRank is HDF5's limit on dataspace rank (H5S_MAX_RANK).
const maxRank = 32

// hsizes returns a pointer to s as hsize_t values, or nil for an empty s. s must stay alive
// for the duration of the C call that uses it (hsize_t is a 64-bit unsigned integer).
func hsizes(s []uint64) *C.hsize_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.hsize_t)(unsafe.Pointer(&s[0]))
}

// simpleSpace creates a dataspace: scalar for an empty shape, else simple with maxShape
// (nil: same as shape; plan.MaxUnlimited is H5S_UNLIMITED, the same value). The caller
// closes it.
func simpleSpace(op string, shape, maxShape []uint64) (C.hid_t, error) {
	if len(shape) > maxRank {
		return -1, errorf("h5: %s: rank %d exceeds %d", op, len(shape), maxRank)
	}
	if maxShape != nil && len(maxShape) != len(shape) {
		return -1, errorf("h5: %s: max shape rank %d != shape rank %d", op, len(maxShape), len(shape))
	}
	var s C.hid_t
	if len(shape) == 0 {
		s = C.H5Screate(C.H5S_SCALAR)
	} else {
		s = C.H5Screate_simple(C.int(len(shape)), hsizes(shape), hsizes(maxShape))
	}
	if s < 0 {
		return -1, spaceError(op, shape, maxShape)
	}
	return s, nil
}

// spaceError is the error of a dataspace create simpleSpace's arguments failed.
func spaceError(op string, shape, maxShape []uint64) error {
	return stackError(fmt.Sprintf("H5Screate %s shape %v max %v", op, shape, maxShape))
}

// spaceDims returns the current and maximum extents of a dataspace (empty for scalar).
func spaceDims(op string, s C.hid_t) (dims, maxDims []uint64, err error) {
	n := C.H5Sget_simple_extent_ndims(s)
	if n < 0 {
		return nil, nil, stackError("H5Sget_simple_extent_ndims " + op)
	}
	dims, maxDims = make([]uint64, n), make([]uint64, n)
	if n > 0 && C.H5Sget_simple_extent_dims(s, hsizes(dims), hsizes(maxDims)) < 0 {
		return nil, nil, stackError("H5Sget_simple_extent_dims " + op)
	}
	return dims, maxDims, nil
}

// CreateGroup creates the group at path (absolute, or relative to loc) with default
// property lists; intermediate groups must exist.
func CreateGroup(loc ID, path string) (ID, error) {
	return createGroup(loc, path, "H5Gcreate2", func(es, l C.hid_t, n *C.char) C.hid_t { return C.h5e_gcreate(es, l, n, C.H5P_DEFAULT) })
}

// CreateGroup1 creates the group at path with H5Gcreate1(loc, path, 0), HDF5's deprecated
// call (no property lists, no size hint), as programs written for the 1.6 API do
// (MACSio's plugin; plan.Op.API1).
func CreateGroup1(loc ID, path string) (ID, error) {
	if !HaveDeprecated() {
		return 0, errorf("h5: H5Gcreate1 %s: this HDF5 (%s) was built without its deprecated symbols (H5_NO_DEPRECATED_SYMBOLS)", path, Version())
	}
	// H5Gcreate1 has no _async form: it runs at once, in an event set or not.
	return createGroup(loc, path, "H5Gcreate1", func(_, l C.hid_t, n *C.char) C.hid_t { return C.h5p_gcreate1(l, n) })
}

// createGroup creates the group at path with call (named by what, for errors), given the
// calling thread's event set (0: none).
func createGroup(loc ID, path, what string, call func(es, loc C.hid_t, name *C.char) C.hid_t) (ID, error) {
	enter()
	defer leave()
	return createGroupLocked(loc, path, what, call)
}

// createGroupLocked is createGroup inside the gate.
func createGroupLocked(loc ID, path, what string, call func(es, loc C.hid_t, name *C.char) C.hid_t) (ID, error) {
	if err := checkID("CreateGroup "+path, loc, C.H5I_FILE, C.H5I_GROUP); err != nil {
		return 0, err
	}
	cpath := cstr(path)
	defer free(cpath)
	es := curES()
	g := call(es, C.hid_t(loc), cpath)
	if g < 0 {
		return 0, stackError(asyncCall(what, es) + " " + path)
	}
	inherit(ID(g), loc)
	objKind[ID(g)] = C.H5I_GROUP
	if _, async := asyncForms[what]; async { // (H5Gcreate1 has no _async form)
		inserted(es)
		pending(ID(g), es, asyncCall(what, es)+" "+path)
	}
	return ID(g), nil
}

// OpenGroup opens the group at path.
func OpenGroup(loc ID, path string) (ID, error) { return OpenGroupColl(loc, path, false) }

// OpenGroupColl opens the group at path; collMeta asks for collective metadata reads on its
// group access list (H5Pset_all_coll_metadata_ops), as openPMD-api opens the parent group
// of what it creates.
func OpenGroupColl(loc ID, path string, collMeta bool) (ID, error) {
	return openWith("H5Gopen2", "OpenGroup", loc, path, collMeta, C.h5p_gapl_class(), "H5P_GROUP_ACCESS",
		func(l C.hid_t, n *C.char, apl C.hid_t) C.hid_t { return C.h5e_gopen(curES(), l, n, apl) })
}

// openWith opens the object at path (absolute, or relative to loc) with call, one of
// HDF5's opens, through an access list: H5P_DEFAULT, or with collMeta a new one of class
// (className) asking for collective metadata reads (H5Pset_all_coll_metadata_ops). what
// names the operation in errors.
func openWith(call, what string, loc ID, path string, collMeta bool, class C.hid_t, className string,
	open func(loc C.hid_t, name *C.char, apl C.hid_t) C.hid_t) (ID, error) {
	enter()
	defer leave()
	if err := checkID(what+" "+path, loc, C.H5I_FILE, C.H5I_GROUP); err != nil {
		return 0, err
	}
	cpath := cstr(path)
	defer free(cpath)
	apl := C.hid_t(C.H5P_DEFAULT)
	if collMeta {
		if apl = C.H5Pcreate(class); apl < 0 {
			return 0, stackError("H5Pcreate(" + className + ") for " + path)
		}
		defer C.H5Pclose(apl)
		if C.H5Pset_all_coll_metadata_ops(apl, true) < 0 {
			return 0, stackError("H5Pset_all_coll_metadata_ops for " + path)
		}
	}
	id := open(C.hid_t(loc), cpath, apl)
	if id < 0 {
		return 0, stackError(asyncCall(call, curES()) + " " + path)
	}
	inherit(ID(id), loc)
	if _, async := asyncForms[call]; async { // H5Gopen2, H5Dopen2 (not H5Oopen, H5Dopen1)
		es := curES()
		inserted(es)
		pending(ID(id), es, asyncCall(call, es)+" "+path)
	}
	switch call {
	case "H5Gopen2":
		objKind[ID(id)] = C.H5I_GROUP
	case "H5Dopen2", "H5Dopen1":
		objKind[ID(id)] = C.H5I_DATASET
	}
	return ID(id), nil
}

// CloseGroup closes a group identifier.
func CloseGroup(g ID) error {
	enter()
	defer leave()
	if err := checkID("CloseGroup", g, C.H5I_GROUP); err != nil {
		return err
	}
	es := curES()
	if C.h5e_gclose(es, C.hid_t(g)) < 0 {
		return stackError(fmt.Sprintf("%s group %d", asyncCall("H5Gclose", es), g))
	}
	inserted(es)
	forget(g)
	return nil
}

// CreateDataset creates the dataset at path as d describes: chunked when d.Chunk is set,
// filtered by d.Filters then deflated when d.Deflate > 0, fill time never when
// d.FillNever, fill value undefined when d.FillUndefined, else the default (contiguous)
// creation properties, as h5bench uses.
func CreateDataset(loc ID, path string, d plan.DatasetSpec) (ID, error) {
	enter()
	defer leave()
	op := "H5Dcreate2 " + path
	if d.API1 {
		op = "H5Dcreate1 " + path
	}
	if d.Chunk != nil && len(d.Chunk) != len(d.Shape) {
		return 0, errorf("h5: %s: chunk rank %d != shape rank %d", op, len(d.Chunk), len(d.Shape))
	}
	if d.Deflate < 0 || d.Deflate > 9 {
		return 0, errorf("h5: %s: deflate level %d outside 0..9", op, d.Deflate)
	}
	return create(loc, "CreateDataset", path, op, d, func(C.hid_t) (C.hid_t, error) {
		if d.Chunk == nil && d.Deflate == 0 && len(d.Filters) == 0 && !d.FillNever && !d.FillUndefined && d.FillValue == nil && !datasetTuned(d.Tuning) && !d.Compact && d.AttrOrder == 0 && !d.NoTimes {
			return C.H5P_DEFAULT, nil
		}
		dcpl := C.H5Pcreate(C.h5p_dcpl_class())
		if dcpl < 0 {
			return dcpl, stackError("H5Pcreate(H5P_DATASET_CREATE) for " + op)
		}
		if d.Chunk != nil && C.H5Pset_chunk(dcpl, C.int(len(d.Chunk)), hsizes(d.Chunk)) < 0 {
			return dcpl, stackError(fmt.Sprintf("H5Pset_chunk %v for %s", d.Chunk, op))
		}
		if err := tuneShuffle(op, dcpl, d.Tuning); err != nil {
			return dcpl, err
		}
		for _, f := range d.Filters {
			if err := setFilter(dcpl, f); err != nil {
				return dcpl, fmt.Errorf("%w (%s)", err, op)
			}
		}
		if d.Deflate > 0 && C.H5Pset_deflate(dcpl, C.uint(d.Deflate)) < 0 {
			return dcpl, stackError(fmt.Sprintf("H5Pset_deflate %d for %s", d.Deflate, op))
		}
		if d.FillNever && C.H5Pset_fill_time(dcpl, C.H5D_FILL_TIME_NEVER) < 0 {
			return dcpl, stackError("H5Pset_fill_time for " + op)
		}
		if err := setExtraDCPL(dcpl, &d, op); err != nil {
			return dcpl, err
		}
		if d.FillUndefined {
			typ, err := memType(d.Type) // native or cached: not closed here
			if err != nil {
				return dcpl, err
			}
			if C.H5Pset_fill_value(dcpl, typ, nil) < 0 {
				return dcpl, stackError("H5Pset_fill_value(NULL) for " + op)
			}
		} else if d.FillValue != nil {
			if len(d.FillValue) != d.Type.Size {
				return dcpl, errorf("h5: %s: fill value of %d bytes for a %d-byte type", op, len(d.FillValue), d.Type.Size)
			}
			typ, err := memType(d.Type)
			if err != nil {
				return dcpl, err
			}
			if C.H5Pset_fill_value(dcpl, typ, unsafe.Pointer(&d.FillValue[0])) < 0 {
				return dcpl, stackError("H5Pset_fill_value for " + op)
			}
		}
		return dcpl, tuneTimes(op, dcpl, d.Tuning)
	})
}

// setFilter adds f to the pipeline of dcpl: SZIP through H5Pset_szip (options mask and
// pixels per block, the first two client values), N-Bit through H5Pset_nbit (it takes no
// values), any other filter through H5Pset_filter as mandatory. Called inside the gate.
func setFilter(dcpl C.hid_t, f plan.Filter) error {
	switch f.ID {
	case plan.FilterSZIP:
		if len(f.CDValues) < 2 {
			return errorf("h5: SZIP filter needs the options mask and pixels per block, got %v", f.CDValues)
		}
		if C.H5Pset_szip(dcpl, C.uint(f.CDValues[0]), C.uint(f.CDValues[1])) < 0 {
			return stackError(fmt.Sprintf("H5Pset_szip %v", f.CDValues))
		}
	case plan.FilterNBit:
		if C.H5Pset_nbit(dcpl) < 0 {
			return stackError("H5Pset_nbit")
		}
	case plan.FilterDeflate:
		if len(f.CDValues) != 1 || C.H5Pset_deflate(dcpl, C.uint(f.CDValues[0])) < 0 {
			return stackError(fmt.Sprintf("H5Pset_deflate %v", f.CDValues))
		}
	case plan.FilterShuffle:
		if C.H5Pset_shuffle(dcpl) < 0 {
			return stackError("H5Pset_shuffle")
		}
	case plan.FilterFletcher32:
		if C.H5Pset_fletcher32(dcpl) < 0 {
			return stackError("H5Pset_fletcher32")
		}
	case plan.FilterScaleOffset:
		if len(f.CDValues) != 2 || C.H5Pset_scaleoffset(dcpl, C.H5Z_SO_scale_type_t(f.CDValues[0]), C.int(int32(f.CDValues[1]))) < 0 {
			return stackError(fmt.Sprintf("H5Pset_scaleoffset %v", f.CDValues))
		}
	default:
		var cd *C.uint
		vals := make([]C.uint, len(f.CDValues)+1) // never empty: &vals[0] is valid
		for i, v := range f.CDValues {
			vals[i] = C.uint(v)
		}
		if len(f.CDValues) > 0 {
			cd = &vals[0]
		}
		if C.H5Pset_filter(dcpl, C.H5Z_filter_t(f.ID), C.H5Z_FLAG_MANDATORY, C.size_t(len(f.CDValues)), cd) < 0 {
			return stackError(fmt.Sprintf("H5Pset_filter %d %v", f.ID, f.CDValues))
		}
	}
	return nil
}

// FilterAvailable reports whether HDF5 can encode with filter id: built in, or a plugin
// H5Zfilter_avail loads from HDF5_PLUGIN_PATH (or HDF5's default plugin directory), with
// its encoder enabled (SZIP may be built decode-only). A plugin search that finds nothing
// fails inside HDF5 1.10: that is "not available", not an error.
func FilterAvailable(id uint32) (bool, error) {
	enter()
	defer leave()
	if C.H5Zfilter_avail(C.H5Z_filter_t(id)) <= 0 {
		C.H5Eclear2(C.H5E_DEFAULT)
		return false, nil
	}
	var config C.uint
	if C.H5Zget_filter_info(C.H5Z_filter_t(id), &config) < 0 {
		return false, stackError(fmt.Sprintf("H5Zget_filter_info %d", id))
	}
	return config&C.H5Z_FILTER_CONFIG_ENCODE_ENABLED != 0, nil
}

// create runs H5Dcreate2 for the dataset at path with d's datatype and dataspace and the
// creation property list props builds over that dataspace (H5P_DEFAULT for none; any
// other list props returns, failed or not, is closed here). fn names the caller for
// identifier checks, op the HDF5 call in errors. Called inside the gate.
func create(loc ID, fn, path, op string, d plan.DatasetSpec, props func(space C.hid_t) (C.hid_t, error)) (ID, error) {
	if err := checkID(fn+" "+path, loc, C.H5I_FILE, C.H5I_GROUP); err != nil {
		return 0, err
	}
	typ, err := fileType(d.Type)
	if err != nil {
		return 0, fmt.Errorf("%w (creating %s)", err, path)
	}
	space, cached, err := creationSpace(op, d.Shape, d.MaxShape)
	if err != nil {
		return 0, err
	}
	if !cached {
		defer C.H5Sclose(space)
	}
	dcpl, err := props(space)
	if dcpl > 0 && dcpl != C.H5P_DEFAULT {
		defer C.H5Pclose(dcpl)
	}
	if err != nil {
		return 0, err
	}
	return createDataset(loc, path, op, typ, space, dcpl, d.API1)
}

// createDataset creates the dataset at path in loc (H5Dcreate2 with the default link and
// access lists, or H5Dcreate1 with api1) and records that it lives in loc's file; op names
// it in errors. Called inside the gate.
func createDataset(loc ID, path, op string, typ, space, dcpl C.hid_t, api1 bool) (ID, error) {
	cpath := cstr(path)
	defer free(cpath)
	var ds C.hid_t
	if api1 {
		ds = C.h5p_dcreate1(C.hid_t(loc), cpath, typ, space, dcpl)
		if ds == -2 {
			return 0, errorf("h5: %s: this HDF5 (%s) was built without its deprecated symbols (H5_NO_DEPRECATED_SYMBOLS)", op, versionLocked())
		}
	} else {
		es := curES()
		ds = C.h5e_dcreate(es, C.hid_t(loc), cpath, typ, space, dcpl)
		op = asyncOp(op, es)
		if ds >= 0 {
			inserted(es)
			pending(ID(ds), es, op)
		}
	}
	if ds < 0 {
		return 0, stackError(op)
	}
	inherit(ID(ds), loc)
	objKind[ID(ds)] = C.H5I_DATASET
	return ID(ds), nil
}

// OpenDataset opens the dataset at path.
func OpenDataset(loc ID, path string) (ID, error) { return OpenDatasetColl(loc, path, false) }

// OpenDatasetColl opens the dataset at path; collMeta asks for collective metadata reads
// on its dataset access list (H5Pset_all_coll_metadata_ops), which the file's access list
// does not pass on to H5Dopen2 with the default access list.
func OpenDatasetColl(loc ID, path string, collMeta bool) (ID, error) {
	return openWith("H5Dopen2", "OpenDataset", loc, path, collMeta, C.h5p_dapl_class(), "H5P_DATASET_ACCESS",
		func(l C.hid_t, n *C.char, apl C.hid_t) C.hid_t { return C.h5e_dopen(curES(), l, n, apl) })
}

// OpenDataset1 opens the dataset at path with H5Dopen1, HDF5's deprecated call (no
// access list), as programs written for the 1.6 API do (plan.DatasetSpec.API1).
func OpenDataset1(loc ID, path string) (ID, error) {
	if !HaveDeprecated() {
		return 0, errorf("h5: H5Dopen1 %s: this HDF5 (%s) was built without its deprecated symbols (H5_NO_DEPRECATED_SYMBOLS)", path, Version())
	}
	return openWith("H5Dopen1", "OpenDataset", loc, path, false, C.h5p_dapl_class(), "H5P_DATASET_ACCESS",
		func(l C.hid_t, n *C.char, apl C.hid_t) C.hid_t { return C.h5p_dopen1(l, n) })
}

// HaveDeprecated reports whether the HDF5 this package was compiled against keeps its
// deprecated symbols (H5Dcreate1, H5Dopen1).
func HaveDeprecated() bool { return C.h5p_have_deprecated() != 0 }

// OpenObject opens the group or dataset at path with H5Oopen, the generic open that
// openPMD-api uses to write or read an attribute (its object type then decides nothing);
// collMeta asks for collective metadata reads on the link access list, as openPMD-api sets
// them. Profilers that follow H5Dopen (Darshan's H5D module, libh5proxy-profile.so) do not
// count it as a dataset open. Close the identifier with CloseObject.
func OpenObject(loc ID, path string, collMeta bool) (ID, error) {
	return openWith("H5Oopen", "OpenObject", loc, path, collMeta, C.h5p_lapl_class(), "H5P_LINK_ACCESS",
		func(l C.hid_t, n *C.char, apl C.hid_t) C.hid_t { return C.H5Oopen(l, n, apl) })
}

// CloseObject closes an identifier OpenObject returned (H5Oclose).
func CloseObject(o ID) error {
	enter()
	defer leave()
	if err := checkID("CloseObject", o, C.H5I_GROUP, C.H5I_DATASET); err != nil {
		return err
	}
	if C.H5Oclose(C.hid_t(o)) < 0 {
		return stackError(fmt.Sprintf("H5Oclose object %d", o))
	}
	forget(o)
	return nil
}

// CloseDataset closes a dataset identifier.
func CloseDataset(d ID) error {
	enter()
	defer leave()
	if err := checkID("CloseDataset", d, C.H5I_DATASET); err != nil {
		return err
	}
	es := curES()
	if C.h5e_dclose(es, C.hid_t(d)) < 0 {
		return stackError(fmt.Sprintf("%s dataset %d", asyncCall("H5Dclose", es), d))
	}
	inserted(es)
	forget(d)
	return nil
}

// DatasetShape returns the dataset's current extent (empty for a scalar).
func DatasetShape(d ID) ([]uint64, error) {
	enter()
	defer leave()
	if err := checkID("DatasetShape", d, C.H5I_DATASET); err != nil {
		return nil, err
	}
	op := fmt.Sprintf("dataset %d", d)
	s := C.H5Dget_space(C.hid_t(d))
	if s < 0 {
		return nil, stackError("H5Dget_space " + op)
	}
	defer C.H5Sclose(s)
	dims, _, err := spaceDims(op, s)
	return dims, err
}

// DatasetInfo describes a dataset: type, extents, chunking, deflate level and fill time.
func DatasetInfo(d ID) (Info, error) {
	enter()
	defer leave()
	if err := checkID("DatasetInfo", d, C.H5I_DATASET); err != nil {
		return Info{}, err
	}
	op := fmt.Sprintf("dataset %d", d)
	var info Info
	typ := C.H5Dget_type(C.hid_t(d))
	if typ < 0 {
		return Info{}, stackError("H5Dget_type " + op)
	}
	t, err := typeOf(typ)
	C.H5Tclose(typ)
	if err != nil {
		return Info{}, err
	}
	info.Type = t

	s := C.H5Dget_space(C.hid_t(d))
	if s < 0 {
		return Info{}, stackError("H5Dget_space " + op)
	}
	defer C.H5Sclose(s)
	if info.Shape, info.MaxShape, err = spaceDims(op, s); err != nil {
		return Info{}, err
	}

	dcpl := C.H5Dget_create_plist(C.hid_t(d))
	if dcpl < 0 {
		return Info{}, stackError("H5Dget_create_plist " + op)
	}
	defer C.H5Pclose(dcpl)
	layout := C.H5Pget_layout(dcpl)
	if layout < 0 {
		return Info{}, stackError("H5Pget_layout " + op)
	}
	if layout == C.H5D_CHUNKED {
		info.Chunk = make([]uint64, len(info.Shape))
		if C.H5Pget_chunk(dcpl, C.int(len(info.Chunk)), hsizes(info.Chunk)) < 0 {
			return Info{}, stackError("H5Pget_chunk " + op)
		}
	}
	nf := C.H5Pget_nfilters(dcpl)
	if nf < 0 {
		return Info{}, stackError("H5Pget_nfilters " + op)
	}
	for i := C.int(0); i < nf; i++ {
		var flags, config C.uint
		cd := make([]C.uint, 8)
		ncd := C.size_t(len(cd))
		f := C.H5Pget_filter2(dcpl, C.uint(i), &flags, &ncd, &cd[0], 0, nil, &config)
		if f < 0 {
			return Info{}, stackError(fmt.Sprintf("H5Pget_filter2 %d %s", i, op))
		}
		switch {
		case f == C.H5Z_FILTER_DEFLATE && ncd > 0:
			info.Deflate = int(cd[0])
		case f != C.H5Z_FILTER_DEFLATE:
			n := min(int(ncd), len(cd))
			vals := make([]uint32, n)
			for j := range vals {
				vals[j] = uint32(cd[j])
			}
			info.Filters = append(info.Filters, plan.Filter{ID: uint32(f), CDValues: vals})
		}
	}
	var ft C.H5D_fill_time_t
	if C.H5Pget_fill_time(dcpl, &ft) < 0 {
		return Info{}, stackError("H5Pget_fill_time " + op)
	}
	info.FillNever = ft == C.H5D_FILL_TIME_NEVER
	var fv C.H5D_fill_value_t
	if C.H5Pfill_value_defined(dcpl, &fv) < 0 {
		return Info{}, stackError("H5Pfill_value_defined " + op)
	}
	info.FillUndefined = fv == C.H5D_FILL_VALUE_UNDEFINED
	return info, readExtraDCPL(dcpl, &info, op)
}

// WriteAttribute creates the attribute a on loc (a file, group or dataset), writes its value
// and closes it; with a.Exists it opens the attribute a earlier write made (H5Aopen) and
// writes it again. A nil (or empty) a.Shape makes a scalar attribute. It is an error if
// the attribute exists (does not exist, with Exists) or len(a.Value) does not match the
// type and shape.
func WriteAttribute(loc ID, a plan.AttributeSpec) error {
	enter()
	defer leave()
	op := "H5Acreate2 @" + a.Name
	if err := checkID("WriteAttribute @"+a.Name, loc, C.H5I_FILE, C.H5I_GROUP, C.H5I_DATASET); err != nil {
		return err
	}
	ftyp, err := fileType(a.Type)
	if err != nil {
		return fmt.Errorf("%w (attribute %s)", err, a.Name)
	}
	typ, err := memType(a.Type)
	if err != nil {
		return fmt.Errorf("%w (attribute %s)", err, a.Name)
	}
	if want := plan.Product(a.Shape) * uint64(a.Type.Size); uint64(len(a.Value)) != want {
		return errorf("h5: %s: value has %d bytes, type %s shape %v needs %d", op, len(a.Value), a.Type, a.Shape, want)
	}
	cname := cstr(a.Name)
	defer free(cname)
	es := curES()
	if es > 0 && a.Type.Class == plan.Reference {
		// The references are made from the targets' paths (H5Rcreate_object), ordinary
		// calls that would wait for the set's creates: the caller waits first.
		return errorf("h5: %s: a reference attribute has no asynchronous form here (its references are made by ordinary calls on the targets): write it outside the event set, once the set is waited", op)
	}
	if es == 0 { // in an event set a wrong plan fails in the background instead, naming the call
		switch ex := C.H5Aexists(C.hid_t(loc), cname); {
		case ex < 0:
			return stackError("H5Aexists @" + a.Name)
		case ex > 0 && !a.Exists:
			return errorf("h5: %s: attribute %q already exists", op, a.Name)
		case ex == 0 && a.Exists:
			return errorf("h5: H5Aopen @%s: attribute %q does not exist to be written again", a.Name, a.Name)
		}
	}
	var refs unsafe.Pointer
	if a.Type.Class == plan.Reference { // the targets' references, made in loc's file first
		if refs, err = makeRefs(C.hid_t(loc), a.Type, a.Value, int(plan.Product(a.Shape))); err != nil {
			return fmt.Errorf("%w (attribute %s)", err, a.Name)
		}
		defer C.free(refs)
	}
	space, err := simpleSpace(op, a.Shape, nil)
	if err != nil {
		return err
	}
	defer C.H5Sclose(space)
	var attr C.hid_t
	if a.Exists { // written again: opened, its type and shape the first write's
		op = "H5Aopen @" + a.Name
		attr = C.h5e_aopen(es, C.hid_t(loc), cname)
	} else {
		attr = C.h5e_acreate(es, C.hid_t(loc), cname, ftyp, space)
	}
	if attr < 0 {
		return stackError(asyncOp(op, es))
	}
	inserted(es)
	defer func() {
		if C.h5e_aclose(es, attr) >= 0 {
			inserted(es)
		}
	}()
	count := int(plan.Product(a.Shape))
	write := func(buf unsafe.Pointer) error {
		if es > 0 {
			buf = attrCopy(es, buf, attrBytes(a.Type, count), a.Exists)
		}
		if C.h5e_awrite(es, attr, typ, buf) < 0 {
			return stackError(asyncCall("H5Awrite", es) + " @" + a.Name)
		}
		inserted(es)
		return nil
	}
	if refs != nil {
		return write(refs)
	}
	// In an event set the value must outlive the call until the set is waited (the Async
	// VOL's default build copies nothing): the C memory is released then (hold).
	if a.Type.VarLen { // the plan's fixed strings as the C strings HDF5 takes
		v, err := packVStrings(a.Value, int(plan.Product(a.Shape)), a.Type.Size)
		if err != nil {
			return fmt.Errorf("%w (attribute %s)", err, a.Name)
		}
		if es > 0 {
			hold(es, func() { v.release(typ, space) })
		} else {
			defer v.release(typ, space)
		}
		return write(v.ptr())
	}
	if a.Type.Class == plan.Compound && a.Type.HasVarLen() { // the C structs HDF5 takes
		v, err := packVCompound(a.Type, a.Value, int(plan.Product(a.Shape)))
		if err != nil {
			return fmt.Errorf("%w (attribute %s)", err, a.Name)
		}
		if es > 0 {
			hold(es, func() { v.release(typ, space) })
		} else {
			defer v.release(typ, space)
		}
		return write(v.p)
	}
	if len(a.Value) == 0 {
		return nil
	}
	return write(unsafe.Pointer(&a.Value[0]))
}

// esAttrMax is the largest attribute value written into an event set (bytes), guarded by
// the gate: vol-async 1.8.1's write copy takes that many bytes (at least 4096) from the
// buffer of an attribute it did not create (one opened to be written again).
var esAttrMax = 4096

// attrBytes is the size of the memory buffer of n values of t as H5Awrite takes it: a
// pointer per variable-length string, the C structs of a compound holding them.
func attrBytes(t plan.Type, n int) int {
	switch {
	case t.VarLen:
		return n * int(unsafe.Sizeof(uintptr(0)))
	case t.Class == plan.Compound && t.HasVarLen():
		_, size, _ := cLayout(t, 0, 0)
		return n * size
	}
	return n * t.Size
}

// attrCopy returns a copy in C memory of the n bytes at buf for an H5Awrite_async into es,
// released once es is waited: the value must outlive the call (the Async VOL's default
// build copies nothing). For an attribute written again (opened, not created) the copy is
// padded with zeros to what vol-async's write copy reads there (esAttrMax). Inside the
// gate.
func attrCopy(es C.hid_t, buf unsafe.Pointer, n int, reopened bool) unsafe.Pointer {
	size := n
	if reopened {
		size = max(n, esAttrMax)
	} else {
		esAttrMax = max(esAttrMax, n)
	}
	p := C.calloc(C.size_t(max(size, 1)), 1)
	if n > 0 {
		C.memcpy(p, buf, C.size_t(n))
	}
	hold(es, func() { C.free(p) })
	return p
}

// ReadAttribute reads the attribute name of loc: its type, shape (nil for scalar) and raw
// bytes in the native layout of that type.
func ReadAttribute(loc ID, name string) (plan.AttributeSpec, error) {
	enter()
	defer leave()
	op := "@" + name
	if err := checkID("ReadAttribute "+op, loc, C.H5I_FILE, C.H5I_GROUP, C.H5I_DATASET); err != nil {
		return plan.AttributeSpec{}, err
	}
	cname := cstr(name)
	defer free(cname)
	attr := C.H5Aopen(C.hid_t(loc), cname, C.H5P_DEFAULT)
	if attr < 0 {
		return plan.AttributeSpec{}, stackError("H5Aopen " + op)
	}
	defer C.H5Aclose(attr)
	ft := C.H5Aget_type(attr)
	if ft < 0 {
		return plan.AttributeSpec{}, stackError("H5Aget_type " + op)
	}
	t, err := typeOf(ft)
	C.H5Tclose(ft)
	if err != nil {
		return plan.AttributeSpec{}, fmt.Errorf("%w (attribute %s)", err, name)
	}
	s := C.H5Aget_space(attr)
	if s < 0 {
		return plan.AttributeSpec{}, stackError("H5Aget_space " + op)
	}
	defer C.H5Sclose(s)
	dims, _, err := spaceDims(op, s)
	if err != nil {
		return plan.AttributeSpec{}, err
	}
	if len(dims) == 0 {
		dims = nil
	}
	mt, err := memType(t)
	if err != nil {
		return plan.AttributeSpec{}, err
	}
	if t.Class == plan.Compound && t.HasVarLen() {
		return readVCompoundAttribute(attr, op, name, t, mt, s, dims)
	}
	if t.Class == plan.Reference { // the targets' names, as a plan writes them
		n := int(plan.Product(dims))
		refs := C.calloc(C.size_t(max(n, 1)), C.size_t(refSize(t.Region)))
		defer C.free(refs)
		if C.H5Aread(attr, mt, refs) < 0 {
			return plan.AttributeSpec{}, stackError("H5Aread " + op)
		}
		rt, val, err := refTargets(C.hid_t(loc), t.Region, refs, n)
		if err != nil {
			return plan.AttributeSpec{}, fmt.Errorf("%w (attribute %s)", err, name)
		}
		return plan.AttributeSpec{Name: name, Type: rt, Shape: dims, Value: val}, nil
	}
	if t.VarLen { // fixed strings as long as the longest value (at least 1 byte)
		n := int(plan.Product(dims))
		v := readVStrings(n, 0)
		defer v.release(mt, s)
		if C.H5Aread(attr, mt, v.ptr()) < 0 {
			return plan.AttributeSpec{}, stackError("H5Aread " + op)
		}
		v.w = max(v.maxLen(), 1)
		val := make([]byte, n*v.w)
		if err := v.unpack("H5Aread "+op, val); err != nil {
			return plan.AttributeSpec{}, err
		}
		vt := plan.VStr(v.w)
		vt.UTF8 = t.UTF8
		return plan.AttributeSpec{Name: name, Type: vt, Shape: dims, Value: val}, nil
	}
	val := make([]byte, plan.Product(dims)*uint64(t.Size))
	if len(val) > 0 && C.H5Aread(attr, mt, unsafe.Pointer(&val[0])) < 0 {
		return plan.AttributeSpec{}, stackError("H5Aread " + op)
	}
	return plan.AttributeSpec{Name: name, Type: t, Shape: dims, Value: val}, nil
}

// ReadAttributeAs reads the attribute a.Name of loc (a file, group or dataset) as a program
// reads one, and nothing more: H5Aopen, H5Aread into a buffer of a.Shape elements of a
// memory type of a.Type (with a.Stored: H5Aget_type, H5Aread with that type, H5Tclose),
// H5Aclose. It returns the bytes read; when a.Value is set they must equal it, else the
// error names the attribute and the first byte that differs. a.Type must be fixed-size and
// hold no references (plan.AttributeSpec.CheckReadType; an error otherwise). A stored type
// holding variable-length data (a.Stored) is read and reclaimed, and nil returned: see
// readStoredVarLen.
func ReadAttributeAs(loc ID, a plan.AttributeSpec) ([]byte, error) {
	enter()
	defer leave()
	op := "@" + a.Name
	if err := checkID("ReadAttributeAs "+op, loc, C.H5I_FILE, C.H5I_GROUP, C.H5I_DATASET); err != nil {
		return nil, err
	}
	if err := a.CheckReadType(); err != nil {
		return nil, errorf("h5: ReadAttributeAs: %v", err)
	}
	var mt C.hid_t
	if !a.Stored {
		t, err := memType(a.Type)
		if err != nil {
			return nil, fmt.Errorf("%w (attribute %s)", err, a.Name)
		}
		mt = t
	}
	cname := cstr(a.Name)
	defer free(cname)
	attr := C.H5Aopen(C.hid_t(loc), cname, C.H5P_DEFAULT)
	if attr < 0 {
		return nil, stackError("H5Aopen " + op)
	}
	defer C.H5Aclose(attr)
	size := C.size_t(a.Type.Size)
	if a.Stored {
		if mt = C.H5Aget_type(attr); mt < 0 {
			return nil, stackError("H5Aget_type " + op)
		}
		defer C.H5Tclose(mt)
		if size = C.H5Tget_size(mt); size == 0 {
			return nil, stackError("H5Tget_size " + op)
		}
	}
	val := make([]byte, plan.Product(a.Shape)*uint64(size))
	if a.Stored && (C.H5Tdetect_class(mt, C.H5T_VLEN) > 0 || C.H5Tis_variable_str(mt) > 0) {
		return nil, readStoredVarLen(attr, mt, op, val, a.Value != nil)
	}
	if len(val) > 0 && C.H5Aread(attr, mt, unsafe.Pointer(&val[0])) < 0 {
		return nil, stackError("H5Aread " + op)
	}
	if a.Value == nil {
		return val, nil
	}
	if len(val) != len(a.Value) {
		return val, errorf("h5: H5Aread %s: read %d bytes (stored type of %d bytes), the writer wrote %d", op, len(val), size, len(a.Value))
	}
	for i := range val {
		if val[i] != a.Value[i] {
			return val, errorf("h5: H5Aread %s: byte %d is %#02x, the writer wrote %#02x", op, i, val[i], a.Value[i])
		}
	}
	return val, nil
}

// Exists reports whether every link along path exists, checking each prefix in turn with
// H5Lexists (which fails rather than answering false when an intermediate is missing).
// "/" and "." exist. A dangling soft link counts as existing.
func Exists(loc ID, path string) (bool, error) {
	enter()
	defer leave()
	if err := checkID("Exists "+path, loc, C.H5I_FILE, C.H5I_GROUP); err != nil {
		return false, err
	}
	if path == "" {
		return false, errorf("h5: Exists: empty path")
	}
	prefix := ""
	if strings.HasPrefix(path, "/") {
		prefix = "/"
	}
	for _, part := range strings.Split(path, "/") {
		if part == "" || part == "." {
			continue
		}
		if prefix != "" && !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
		prefix += part
		cp := cstr(prefix)
		ex := C.H5Lexists(C.hid_t(loc), cp, C.H5P_DEFAULT)
		free(cp)
		if ex < 0 {
			return false, stackError("H5Lexists " + prefix)
		}
		if ex == 0 {
			return false, nil
		}
	}
	return true, nil
}
