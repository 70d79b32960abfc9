package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <stdlib.h>
#include <hdf5.h>

// The H5T_STD_REF_* names are macros calling H5open(): cgo cannot use them directly.
static hid_t h5p_ref_type(int region) { return H5Tcopy(region ? H5T_STD_REF_DSETREG : H5T_STD_REF_OBJ); }
// The 1.8 reference calls (hobj_ref_t, hdset_reg_ref_t), as the writers of that era
// call them; -1 where the library was built without its deprecated symbols.
#ifndef H5_NO_DEPRECATED_SYMBOLS
static herr_t h5p_ref_object(hid_t file, const char *path, void *ref) {
	return H5Rcreate(ref, file, path, H5R_OBJECT, -1);
}
static herr_t h5p_ref_region(hid_t file, const char *path, hid_t space, void *ref) {
	return H5Rcreate(ref, file, path, H5R_DATASET_REGION, space);
}
static ssize_t h5p_ref_name(hid_t loc, int region, void *ref, char *name, size_t size) {
	return H5Rget_name(loc, region ? H5R_DATASET_REGION : H5R_OBJECT, ref, name, size);
}
static hid_t h5p_ref_space(hid_t loc, void *ref) {
	return H5Rget_region(loc, H5R_DATASET_REGION, ref);
}
#else
static herr_t h5p_ref_object(hid_t file, const char *path, void *ref) { return -1; }
static herr_t h5p_ref_region(hid_t file, const char *path, hid_t space, void *ref) { return -1; }
static ssize_t h5p_ref_name(hid_t loc, int region, void *ref, char *name, size_t size) { return -1; }
static hid_t h5p_ref_space(hid_t loc, void *ref) { return -1; }
#endif
*/
import "C"

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/h5proxy/h5proxy/plan"
)

// The enum, array and opaque datatypes (plan/types_more.go): built for writes, described
// for reads. Called inside the gate, as convType and typeOf.

// moreClass reports whether t is an enum, array or opaque type (cached, never native).
func moreClass(t plan.Type) bool {
	return t.Enum != nil || t.Class == plan.Array || t.Class == plan.Opaque || t.Class == plan.Reference
}

// moreType builds an enum (H5Tenum_create over the native integer, H5Tenum_insert in
// order), an array (H5Tarray_create2 over the element's type) or an opaque type
// (H5Tcreate(H5T_OPAQUE), H5Tset_tag).
func moreType(t plan.Type) (_ C.hid_t, err error) {
	op := "datatype " + t.String()
	h := C.hid_t(-1)
	defer func() {
		if err != nil && h >= 0 {
			C.H5Tclose(h)
		}
	}()
	switch {
	case t.Class == plan.Reference: // a copy: the cache closes what it holds
		region := C.int(0)
		if t.Region {
			region = 1
		}
		if h = C.h5p_ref_type(region); h < 0 {
			return -1, stackError("H5Tcopy " + op)
		}
	case t.Enum != nil:
		base := plan.Type{Class: t.Class, Size: t.Size, BigEndian: t.BigEndian}
		bh, err := convType(base)
		if err != nil {
			return -1, err
		}
		if h = C.H5Tenum_create(bh); h < 0 {
			return -1, stackError("H5Tenum_create " + op)
		}
		v := (*[8]byte)(C.malloc(8))
		defer C.free(unsafe.Pointer(v))
		for _, e := range t.Enum {
			putEnumValue(v[:t.Size], e.Value, t.BigEndian) // in the type's own order: HDF5 copies the bytes
			name := cstr(e.Name)
			rc := C.H5Tenum_insert(h, name, unsafe.Pointer(v))
			free(name)
			if rc < 0 {
				return -1, stackError(fmt.Sprintf("H5Tenum_insert %s name %s", op, e.Name))
			}
		}
	case t.Class == plan.Array:
		bh, err := convType(*t.Base)
		if err != nil {
			return -1, err
		}
		dims := make([]C.hsize_t, len(t.Dims))
		for i, d := range t.Dims {
			dims[i] = C.hsize_t(d)
		}
		if h = C.H5Tarray_create2(bh, C.uint(len(dims)), &dims[0]); h < 0 {
			return -1, stackError("H5Tarray_create2 " + op)
		}
	default:
		if h = C.H5Tcreate(C.H5T_OPAQUE, C.size_t(t.Size)); h < 0 {
			return -1, stackError("H5Tcreate " + op)
		}
		if t.Tag != "" {
			tag := cstr(t.Tag)
			rc := C.H5Tset_tag(h, tag)
			free(tag)
			if rc < 0 {
				return -1, stackError("H5Tset_tag " + op)
			}
		}
	}
	return h, nil
}

// moreTypeOf describes an enum, array or opaque datatype h of size bytes.
func moreTypeOf(h C.hid_t, cls C.H5T_class_t, size int) (plan.Type, error) {
	if cls == C.H5T_REFERENCE { // the targets' length is known once they are read
		return plan.RefOf(size, size != 8), nil
	}
	if cls == C.H5T_OPAQUE {
		tag := ""
		if ct := C.H5Tget_tag(h); ct != nil {
			tag = C.GoString(ct)
			C.H5free_memory(unsafe.Pointer(ct))
		}
		return plan.OpaqueOf(size, tag), nil
	}
	sh := C.H5Tget_super(h)
	if sh < 0 {
		return plan.Type{}, stackError("H5Tget_super")
	}
	base, err := typeOf(sh)
	C.H5Tclose(sh)
	if err != nil {
		return plan.Type{}, err
	}
	if cls == C.H5T_ARRAY {
		n := int(C.H5Tget_array_ndims(h))
		if n < 1 {
			return plan.Type{}, stackError("H5Tget_array_ndims")
		}
		cd := make([]C.hsize_t, n)
		if C.H5Tget_array_dims2(h, &cd[0]) < 0 {
			return plan.Type{}, stackError("H5Tget_array_dims2")
		}
		dims := make([]int, n)
		for i, d := range cd {
			dims[i] = int(d)
		}
		return plan.ArrayOf(base, dims...), nil
	}
	n := int(C.H5Tget_nmembers(h))
	if n < 0 {
		return plan.Type{}, stackError("H5Tget_nmembers")
	}
	v := (*[8]byte)(C.malloc(8))
	defer C.free(unsafe.Pointer(v))
	values := make([]plan.EnumValue, 0, n)
	for i := range n {
		cname := C.H5Tget_member_name(h, C.uint(i))
		if cname == nil {
			return plan.Type{}, stackError(fmt.Sprintf("H5Tget_member_name %d", i))
		}
		name := C.GoString(cname)
		C.H5free_memory(unsafe.Pointer(cname))
		*v = [8]byte{}
		if C.H5Tget_member_value(h, C.uint(i), unsafe.Pointer(v)) < 0 {
			return plan.Type{}, stackError("H5Tget_member_value " + name)
		}
		values = append(values, plan.EnumValue{Name: name, Value: signExtend(v[:], base)})
	}
	return plan.EnumOf(base, values...), nil
}

// putEnumValue writes v into b (the enumeration's size) in its byte order: H5Tenum_insert
// and H5Tget_member_value take a member's value in the enumeration type's own order.
func putEnumValue(b []byte, v int64, bigEndian bool) {
	for i := range b {
		k := i // the low byte first
		if bigEndian {
			k = len(b) - 1 - i
		}
		b[k] = byte(uint64(v) >> (8 * i))
	}
}

// signExtend reads an enumeration value of integer type t from the first t.Size bytes of
// b, in t's byte order.
func signExtend(b []byte, t plan.Type) int64 {
	var u uint64
	for i := range t.Size {
		k := i
		if t.BigEndian {
			k = t.Size - 1 - i
		}
		u |= uint64(b[k]) << (8 * i)
	}
	bits := uint(t.Size * 8)
	if bits >= 64 {
		return int64(u)
	}
	u &= 1<<bits - 1
	switch t.Class {
	case plan.Int8, plan.Int16, plan.Int32:
		if u&(1<<(bits-1)) != 0 {
			return int64(u) - 1<<bits
		}
	}
	return int64(u)
}

// refSize is the bytes HDF5 stores per reference: hobj_ref_t or hdset_reg_ref_t.
func refSize(region bool) int {
	if region {
		return C.sizeof_hdset_reg_ref_t
	}
	return C.sizeof_hobj_ref_t
}

// makeRefs turns a reference attribute's plan value (n targets of t.Size bytes each, NUL
// padded: "/path" or, for regions, "/path[a:b,c:d]") into the references HDF5 stores,
// made in loc's file (H5Rcreate). The result is C memory the caller frees.
func makeRefs(loc C.hid_t, t plan.Type, value []byte, n int) (unsafe.Pointer, error) {
	file := C.H5Iget_file_id(loc)
	if file < 0 {
		return nil, stackError("H5Iget_file_id")
	}
	defer C.H5Fclose(file)
	rs := refSize(t.Region)
	buf := C.calloc(C.size_t(max(n, 1)), C.size_t(rs))
	for i := range n {
		target := string(bytesTrimNUL(value[i*t.Size : (i+1)*t.Size]))
		ref := unsafe.Add(buf, i*rs)
		if err := makeRef(file, t.Region, target, ref); err != nil {
			C.free(buf)
			return nil, err
		}
	}
	return buf, nil
}

// makeRef makes one reference to target in file at ref.
func makeRef(file C.hid_t, region bool, target string, ref unsafe.Pointer) error {
	path, sel := target, ""
	if region {
		i := strings.IndexByte(target, '[')
		if i < 0 || !strings.HasSuffix(target, "]") {
			return errorf("h5: region reference %q: want PATH[START:END,...]", target)
		}
		path, sel = target[:i], target[i+1:len(target)-1]
	}
	cpath := cstr(path)
	defer free(cpath)
	if !region {
		if C.h5p_ref_object(file, cpath, ref) < 0 {
			return stackError("H5Rcreate H5R_OBJECT " + path)
		}
		return nil
	}
	// The target's dataspace through H5Oopen, which profilers that follow H5Dopen (Darshan's
	// H5D module, libh5proxy-profile.so) do not count as a dataset open: a program makes
	// its region references from a dataspace it holds, opening nothing.
	d := C.H5Oopen(file, cpath, C.H5P_DEFAULT)
	if d < 0 {
		return stackError("H5Oopen " + path + " (region reference)")
	}
	defer C.H5Oclose(d)
	space := C.H5Dget_space(d)
	if space < 0 {
		return stackError("H5Dget_space " + path)
	}
	defer C.H5Sclose(space)
	dims := strings.Split(sel, ",")
	if int(C.H5Sget_simple_extent_ndims(space)) != len(dims) {
		return errorf("h5: region reference %q: %d ranges for a dataset of rank %d", target, len(dims), int(C.H5Sget_simple_extent_ndims(space)))
	}
	start, count := make([]C.hsize_t, len(dims)), make([]C.hsize_t, len(dims))
	for k, r := range dims {
		a, b, ok := strings.Cut(r, ":")
		lo, err1 := strconv.ParseUint(strings.TrimSpace(a), 10, 64)
		hi, err2 := strconv.ParseUint(strings.TrimSpace(b), 10, 64)
		if !ok || err1 != nil || err2 != nil || hi <= lo {
			return errorf("h5: region reference %q: range %q is not START:END with END > START", target, r)
		}
		start[k], count[k] = C.hsize_t(lo), C.hsize_t(hi-lo)
	}
	if C.H5Sselect_hyperslab(space, C.H5S_SELECT_SET, &start[0], nil, &count[0], nil) < 0 {
		return stackError("H5Sselect_hyperslab " + target)
	}
	if C.h5p_ref_region(file, cpath, space, ref) < 0 {
		return stackError("H5Rcreate H5R_DATASET_REGION " + target)
	}
	return nil
}

// refTargets names the targets of n references read at buf (H5Rget_name; a region's
// selection bounds appended as [start:end,...]), as a reference attribute's plan value
// with elements as long as the longest name.
func refTargets(loc C.hid_t, region bool, buf unsafe.Pointer, n int) (plan.Type, []byte, error) {
	rs := refSize(region)
	reg := C.int(0)
	if region {
		reg = 1
	}
	names := make([]string, n)
	width := 1
	for i := range n {
		ref := unsafe.Add(buf, i*rs)
		l := C.h5p_ref_name(loc, reg, ref, nil, 0)
		if l < 0 {
			return plan.Type{}, nil, stackError("H5Rget_name")
		}
		cname := (*C.char)(C.malloc(C.size_t(l + 1)))
		C.h5p_ref_name(loc, reg, ref, cname, C.size_t(l+1))
		names[i] = C.GoString(cname)
		C.free(unsafe.Pointer(cname))
		if region {
			sp := C.h5p_ref_space(loc, ref)
			if sp < 0 {
				return plan.Type{}, nil, stackError("H5Rget_region")
			}
			rank := int(C.H5Sget_simple_extent_ndims(sp))
			lo, hi := make([]C.hsize_t, max(rank, 1)), make([]C.hsize_t, max(rank, 1))
			rc := C.H5Sget_select_bounds(sp, &lo[0], &hi[0])
			C.H5Sclose(sp)
			if rc < 0 {
				return plan.Type{}, nil, stackError("H5Sget_select_bounds")
			}
			r := make([]string, rank)
			for k := range rank {
				r[k] = fmt.Sprintf("%d:%d", lo[k], hi[k]+1)
			}
			names[i] += "[" + strings.Join(r, ",") + "]"
		}
		width = max(width, len(names[i]))
	}
	val := make([]byte, n*width)
	for i, s := range names {
		copy(val[i*width:], s)
	}
	return plan.RefOf(width, region), val, nil
}

// bytesTrimNUL cuts b at its first NUL.
func bytesTrimNUL(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// enumFill reads the user fill value of enumeration dataset d (its creation list dcpl) as
// its value; false when d is no enumeration or the value cannot be read. Inside the gate.
func enumFill(d, dcpl C.hid_t) (int64, bool) {
	t := C.H5Dget_type(d)
	if t < 0 {
		C.H5Eclear2(C.H5E_DEFAULT)
		return 0, false
	}
	defer C.H5Tclose(t)
	if C.H5Tget_class(t) != C.H5T_ENUM {
		return 0, false
	}
	pt, err := typeOf(t)
	if err != nil {
		return 0, false
	}
	mt, err := memType(pt)
	if err != nil {
		return 0, false
	}
	v := (*[8]byte)(C.calloc(1, 8))
	defer C.free(unsafe.Pointer(v))
	if C.H5Pget_fill_value(dcpl, mt, unsafe.Pointer(v)) < 0 {
		C.H5Eclear2(C.H5E_DEFAULT)
		return 0, false
	}
	return signExtend(v[:], pt.Native()), true
}

// ReadReferences reads dataset d of object or region references whole and names their
// targets (H5Rget_name; a region's selection bounds appended as [start:end,...]): the
// plan value of a reference dataset, as a description's value: gives it (ok false, and
// nothing read, for a dataset of another type).
func ReadReferences(d ID) (t plan.Type, names []byte, ok bool, err error) {
	enter()
	defer leave()
	if err := checkID("ReadReferences", d, C.H5I_DATASET); err != nil {
		return t, nil, false, err
	}
	op := objName(d)
	ft := C.H5Dget_type(C.hid_t(d))
	if ft < 0 {
		return t, nil, false, stackError("H5Dget_type " + op)
	}
	class := C.H5Tget_class(ft)
	size := int(C.H5Tget_size(ft))
	C.H5Tclose(ft)
	if class != C.H5T_REFERENCE {
		return t, nil, false, nil
	}
	region := size != C.sizeof_hobj_ref_t
	space := C.H5Dget_space(C.hid_t(d))
	if space < 0 {
		return t, nil, true, stackError("H5Dget_space " + op)
	}
	n := int(C.H5Sget_simple_extent_npoints(space))
	C.H5Sclose(space)
	if n < 0 {
		return t, nil, true, stackError("H5Sget_simple_extent_npoints " + op)
	}
	mt, err := memType(plan.RefOf(1, region))
	if err != nil {
		return t, nil, true, err
	}
	refs := C.calloc(C.size_t(max(n, 1)), C.size_t(refSize(region)))
	defer C.free(refs)
	if n > 0 && C.H5Dread(C.hid_t(d), mt, C.H5S_ALL, C.H5S_ALL, C.H5P_DEFAULT, refs) < 0 {
		return t, nil, true, stackError("H5Dread " + op)
	}
	t, names, err = refTargets(C.hid_t(d), region, refs, n)
	return t, names, true, err
}
