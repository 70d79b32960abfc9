package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <hdf5.h>

// The H5T_NATIVE_* names are macros calling H5open(): cgo cannot use them directly.
static hid_t h5p_native(int c) {
	switch (c) {
	case 1: return H5T_NATIVE_FLOAT;
	case 2: return H5T_NATIVE_DOUBLE;
	case 3: return H5T_NATIVE_INT;
	case 4: return H5T_NATIVE_LLONG;
	case 5: return H5T_NATIVE_ULLONG;
	case 6: return H5T_NATIVE_UCHAR;
	case 7: return H5T_NATIVE_UINT;
	case 8: return H5T_NATIVE_SCHAR;
	case 9: return H5T_NATIVE_SHORT;
	case 10: return H5T_NATIVE_USHORT;
	}
	return H5I_INVALID_HID;
}

static hid_t h5p_c_s1(void) { return H5T_C_S1; }
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/h5proxy/h5proxy/plan"
)

// natives maps the atomic classes to h5p_native's selector.
var natives = map[plan.Class]C.int{
	plan.Float32: 1, plan.Float64: 2, plan.Int32: 3,
	plan.Int64: 4, plan.Uint64: 5, plan.Uint8: 6, plan.Uint32: 7, plan.Int8: 8, plan.Int16: 9, plan.Uint16: 10,
}

// typeCache holds the string and compound datatypes built so far, keyed by Type.String(),
// so that repeated writes do not rebuild them. Guarded by the gate. The predefined native
// types are not cached: they belong to the library and must not be closed.
var typeCache = map[string]C.hid_t{}

// memType returns the HDF5 datatype of buffers holding t: t in native byte order
// throughout (plan buffers are native; HDF5 converts to and from a big-endian file type).
// The result is owned by the package (native or cached): callers must not close it.
// Called inside the gate.
func memType(t plan.Type) (C.hid_t, error) {
	return fileType(t.Native())
}

// fileType returns the HDF5 datatype of t as stored in a file, in t's byte order: the type
// H5Dcreate and H5Acreate take. Owned by the package, as memType's.
func fileType(t plan.Type) (C.hid_t, error) {
	if t.Class == plan.String || t.Class == plan.Compound || moreClass(t) || t.BigEndian {
		if h, ok := typeCache[t.String()]; ok {
			return h, nil // validated when cached: skip the per-write check
		}
	}
	if err := t.Validate(); err != nil {
		return -1, errorf("h5: datatype: %w", err)
	}
	return convType(t)
}

func convType(t plan.Type) (C.hid_t, error) {
	if sel, ok := natives[t.Class]; ok && !moreClass(t) && !t.BigEndian {
		return C.h5p_native(sel), nil
	}
	key := t.String()
	if h, ok := typeCache[key]; ok {
		return h, nil
	}
	var h C.hid_t
	var err error
	switch t.Class {
	case plan.String:
		if t.VarLen {
			h, err = vstringType(t.UTF8)
		} else {
			h, err = stringType(t.Size, t.UTF8, t.NullPad)
		}
	case plan.Compound:
		if t.HasVarLen() { // the C struct, a char * for each variable-length string
			h, err = vlenCompoundType(t)
		} else {
			h, err = compoundType(t)
		}
	case plan.Array, plan.Opaque, plan.Reference:
		h, err = moreType(t)
	default:
		if t.Enum != nil {
			h, err = moreType(t)
			break
		}
		if sel, ok := natives[t.Class]; ok && t.BigEndian {
			h, err = bigEndianType(sel, t)
			break
		}
		return -1, errorf("h5: datatype: unknown class %v", t.Class)
	}
	if err != nil {
		return -1, err
	}
	typeCache[key] = h
	return h, nil
}

// bigEndianType builds the big-endian copy of native type sel (H5Tcopy, H5Tset_order
// H5T_ORDER_BE): H5T_IEEE_F32BE for a big-endian f32, H5T_STD_I32BE for an i32.
func bigEndianType(sel C.int, t plan.Type) (_ C.hid_t, err error) {
	h := C.H5Tcopy(C.h5p_native(sel))
	if h < 0 {
		return -1, stackError("H5Tcopy datatype " + t.String())
	}
	if C.H5Tset_order(h, C.H5T_ORDER_BE) < 0 {
		C.H5Tclose(h)
		return -1, stackError("H5Tset_order H5T_ORDER_BE datatype " + t.String())
	}
	return h, nil
}

// stringType builds a fixed-length string type of n bytes, ASCII or UTF-8, NUL-terminated
// or (nullPad) NUL-padded.
func stringType(n int, utf8, nullPad bool) (_ C.hid_t, err error) {
	op := fmt.Sprintf("string datatype %s", plan.Type{Class: plan.String, Size: n, UTF8: utf8, NullPad: nullPad})
	h := C.H5Tcopy(C.h5p_c_s1())
	if h < 0 {
		return -1, stackError("H5Tcopy " + op)
	}
	defer func() {
		if err != nil {
			C.H5Tclose(h)
		}
	}()
	if C.H5Tset_size(h, C.size_t(n)) < 0 {
		return -1, stackError("H5Tset_size " + op)
	}
	pad := C.H5T_str_t(C.H5T_STR_NULLTERM)
	if nullPad {
		pad = C.H5T_STR_NULLPAD
	}
	if C.H5Tset_strpad(h, pad) < 0 {
		return -1, stackError("H5Tset_strpad " + op)
	}
	if C.H5Tset_cset(h, cset(utf8)) < 0 {
		return -1, stackError("H5Tset_cset " + op)
	}
	return h, nil
}

// cset is the HDF5 character set of a string type: UTF-8 or ASCII.
func cset(utf8 bool) C.H5T_cset_t {
	if utf8 {
		return C.H5T_CSET_UTF8
	}
	return C.H5T_CSET_ASCII
}

// compoundType builds a compound type, converting (and caching) its members' types.
func compoundType(t plan.Type) (_ C.hid_t, err error) {
	op := "compound datatype " + t.String()
	h := C.H5Tcreate(C.H5T_COMPOUND, C.size_t(t.Size))
	if h < 0 {
		return -1, stackError("H5Tcreate " + op)
	}
	defer func() {
		if err != nil {
			C.H5Tclose(h)
		}
	}()
	for _, m := range t.Members {
		mt, err := convType(m.Type)
		if err != nil {
			return -1, err
		}
		name := cstr(m.Name)
		rc := C.H5Tinsert(h, name, C.size_t(m.Offset), mt)
		free(name)
		if rc < 0 {
			return -1, stackError(fmt.Sprintf("H5Tinsert %s member %s", op, m.Name))
		}
	}
	return h, nil
}

// ReleaseTypeCache closes the cached string and compound datatypes and the cached transfer
// property lists. Call it before closing HDF5 or finalizing MPI to leave no open handles;
// later calls rebuild what they need.
func ReleaseTypeCache() {
	enter()
	defer leave()
	for k, h := range typeCache {
		C.H5Tclose(h)
		delete(typeCache, k)
	}
	releaseTransferCache()
	C.H5Eclear2(C.H5E_DEFAULT)
}

// typeOf describes an HDF5 datatype as a plan.Type. Called inside the gate; h stays
// owned by the caller.
func typeOf(h C.hid_t) (plan.Type, error) {
	size := int(C.H5Tget_size(h))
	if size == 0 {
		return plan.Type{}, stackError("H5Tget_size")
	}
	switch cls := C.H5Tget_class(h); cls {
	case C.H5T_FLOAT:
		switch size {
		case 4:
			return ordered(h, plan.F32)
		case 8:
			return ordered(h, plan.F64)
		}
		return plan.Type{}, errorf("h5: unsupported datatype: float of %d bytes", size)
	case C.H5T_INTEGER:
		sign := C.H5Tget_sign(h)
		if sign < 0 {
			return plan.Type{}, stackError("H5Tget_sign")
		}
		signed := sign == C.H5T_SGN_2
		switch {
		case signed && size == 4:
			return ordered(h, plan.I32)
		case signed && size == 8:
			return ordered(h, plan.I64)
		case !signed && size == 8:
			return ordered(h, plan.U64)
		case !signed && size == 4:
			return ordered(h, plan.U32)
		case !signed && size == 1:
			return plan.U8, nil
		case signed && size == 1:
			return plan.I8, nil
		case signed && size == 2:
			return ordered(h, plan.I16)
		case !signed && size == 2:
			return ordered(h, plan.U16)
		}
		sn := "unsigned"
		if signed {
			sn = "signed"
		}
		return plan.Type{}, errorf("h5: unsupported datatype: %s integer of %d bytes", sn, size)
	case C.H5T_STRING:
		v := C.H5Tis_variable_str(h)
		if v < 0 {
			return plan.Type{}, stackError("H5Tis_variable_str")
		}
		cs := C.H5Tget_cset(h)
		if cs < 0 {
			return plan.Type{}, stackError("H5Tget_cset")
		}
		// Plans hold fixed strings of Size bytes: for variable-length ones the pointer's
		// size until a reader knows better (ReadAttribute sizes it to the longest value).
		pad := C.H5Tget_strpad(h)
		if pad < 0 {
			return plan.Type{}, stackError("H5Tget_strpad")
		}
		return plan.Type{Class: plan.String, Size: size, VarLen: v > 0, UTF8: cs == C.H5T_CSET_UTF8, NullPad: v == 0 && pad == C.H5T_STR_NULLPAD}, nil
	case C.H5T_COMPOUND:
		return compoundOf(h, size)
	case C.H5T_ENUM, C.H5T_ARRAY, C.H5T_OPAQUE, C.H5T_REFERENCE:
		return moreTypeOf(h, cls, size)
	default:
		return plan.Type{}, errorf("h5: unsupported datatype: class %d of %d bytes", int(cls), size)
	}
}

// ordered returns t with the byte order of integer or float type h (H5Tget_order):
// big-endian, or native.
func ordered(h C.hid_t, t plan.Type) (plan.Type, error) {
	switch C.H5Tget_order(h) {
	case C.H5T_ORDER_ERROR:
		return t, stackError("H5Tget_order")
	case C.H5T_ORDER_BE:
		t.BigEndian = true
	}
	return t, nil
}

func compoundOf(h C.hid_t, size int) (plan.Type, error) {
	n := int(C.H5Tget_nmembers(h))
	if n < 0 {
		return plan.Type{}, stackError("H5Tget_nmembers")
	}
	t := plan.Struct("", size)
	for i := 0; i < n; i++ {
		cname := C.H5Tget_member_name(h, C.uint(i))
		if cname == nil {
			return plan.Type{}, stackError(fmt.Sprintf("H5Tget_member_name %d", i))
		}
		name := C.GoString(cname)
		C.H5free_memory(unsafe.Pointer(cname))
		off := int(C.H5Tget_member_offset(h, C.uint(i)))
		mh := C.H5Tget_member_type(h, C.uint(i))
		if mh < 0 {
			return plan.Type{}, stackError("H5Tget_member_type " + name)
		}
		mt, err := typeOf(mh)
		C.H5Tclose(mh)
		if err != nil {
			return plan.Type{}, fmt.Errorf("compound member %s: %w", name, err)
		}
		t.Members = append(t.Members, plan.Field(name, off, mt))
	}
	return t, nil
}
