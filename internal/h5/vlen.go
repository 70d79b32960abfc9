package h5

/*
#cgo pkg-config: hdf5-openmpi
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>
#include "compat.h"

static hid_t h5p_c_s1_var(void) { return H5T_C_S1; }
static size_t h5p_variable(void) { return H5T_VARIABLE; }

// h5p_reclaim frees the strings HDF5 allocated in a read (the version's reclaim call).
static herr_t h5p_reclaim(hid_t t, hid_t s, void *buf) { return h5p_vlen_reclaim(t, s, buf); }

// h5p_vstr_pack turns n fixed strings of w bytes at src (NUL-padded, or w characters
// long) into what HDF5 takes for a variable-length string: n pointers, followed in the
// same block by the n NUL-terminated copies they point to. free() releases it.
static char **h5p_vstr_pack(const char *src, size_t n, size_t w) {
	char **p = malloc((n > 0 ? n : 1) * (sizeof(char *) + w + 1));
	if (p == NULL) return NULL;
	char *s = (char *)(p + n);
	for (size_t i = 0; i < n; i++) {
		const char *e = src + i * w;
		size_t l = 0;
		while (l < w && e[l] != 0) l++;
		memcpy(s, e, l);
		s[l] = 0;
		p[i] = s;
		s += w + 1;
	}
	return p;
}

// h5p_vstr_maxlen is the length of the longest of n strings (NULL counts as empty).
static size_t h5p_vstr_maxlen(char **p, size_t n) {
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] != NULL && strlen(p[i]) > m) m = strlen(p[i]);
	}
	return m;
}

// h5p_vstr_unpack copies n strings HDF5 read into fixed strings of w bytes at dst,
// NUL-padded; a longer string is cut at w bytes. Returns how many were cut.
static size_t h5p_vstr_unpack(char **p, size_t n, char *dst, size_t w) {
	size_t cut = 0;
	for (size_t i = 0; i < n; i++) {
		char *e = dst + i * w;
		memset(e, 0, w);
		if (p[i] == NULL) continue;
		size_t l = strlen(p[i]);
		if (l > w) {
			l = w;
			cut++;
		}
		memcpy(e, p[i], l);
	}
	return cut;
}
*/
import "C"

import "unsafe"

// vstringType builds a variable-length, NUL-terminated string type (H5T_VARIABLE), ASCII
// or UTF-8: the file type of a plan.VStr, and its memory type, whose elements are char
// pointers.
func vstringType(utf8 bool) (_ C.hid_t, err error) {
	h := C.H5Tcopy(C.h5p_c_s1_var())
	if h < 0 {
		return -1, stackError("H5Tcopy variable-length string")
	}
	defer func() {
		if err != nil {
			C.H5Tclose(h)
		}
	}()
	if C.H5Tset_size(h, C.h5p_variable()) < 0 {
		return -1, stackError("H5Tset_size H5T_VARIABLE")
	}
	if C.H5Tset_strpad(h, C.H5T_STR_NULLTERM) < 0 {
		return -1, stackError("H5Tset_strpad variable-length string")
	}
	if C.H5Tset_cset(h, cset(utf8)) < 0 {
		return -1, stackError("H5Tset_cset variable-length string")
	}
	return h, nil
}

// vstrings stages n elements of a variable-length string transfer: plans hold fixed
// strings of w bytes (plan.VStr), HDF5 takes and gives one C string pointer per element
// (HDF5 converts no fixed-length string to a variable-length one). Inside the gate.
type vstrings struct {
	p    **C.char // the pointers HDF5 reads or writes
	n, w int
	read bool // HDF5 allocated the strings: reclaim them
}

// packVStrings copies n fixed strings of w bytes of buf into C strings for a write.
func packVStrings(buf []byte, n, w int) (*vstrings, error) {
	if len(buf) < n*w {
		return nil, errorf("h5: variable-length strings: buffer has %d bytes, %d strings of %d need %d", len(buf), n, w, n*w)
	}
	var src *C.char
	if n > 0 {
		src = (*C.char)(unsafe.Pointer(&buf[0]))
	}
	p := C.h5p_vstr_pack(src, C.size_t(n), C.size_t(w))
	if p == nil {
		return nil, errorf("h5: variable-length strings: out of memory for %d strings", n)
	}
	return &vstrings{p: p, n: n, w: w}, nil
}

// readVStrings allocates n string pointers for HDF5 to read into.
func readVStrings(n, w int) *vstrings {
	return &vstrings{p: (**C.char)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof(uintptr(0))))), n: n, w: w, read: true}
}

// ptr is the buffer handed to HDF5.
func (v *vstrings) ptr() unsafe.Pointer { return unsafe.Pointer(v.p) }

// unpack copies the strings read into buf as fixed strings of w bytes; a string longer
// than w is an error (the plan did not expect it; its first w bytes are kept).
func (v *vstrings) unpack(op string, buf []byte) error {
	if v.n == 0 {
		return nil
	}
	if cut := C.h5p_vstr_unpack(v.p, C.size_t(v.n), (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(v.w)); cut > 0 {
		return errorf("h5: %s: %d of %d variable-length strings are longer than the %d bytes the plan holds", op, int(cut), v.n, v.w)
	}
	return nil
}

// release frees the staging: the strings HDF5 allocated on a read (reclaimed through
// the memory type and space of the transfer), then the block.
func (v *vstrings) release(mt, space C.hid_t) {
	if v == nil || v.p == nil {
		return
	}
	if v.read {
		C.h5p_reclaim(mt, space, unsafe.Pointer(v.p))
	}
	C.free(unsafe.Pointer(v.p))
	v.p = nil
}

// maxLen is the length of the longest string read.
func (v *vstrings) maxLen() int { return int(C.h5p_vstr_maxlen(v.p, C.size_t(v.n))) }

// readStoredVarLen reads an attribute whose stored type holds variable-length data as a
// program reading with that type does (its buffer of pointers, sized by the stored type),
// then hands HDF5's allocations back (H5Aget_space, the version's reclaim call): the
// pointers mean nothing to a caller, so nothing is returned, and a value to verify is an
// error naming the attribute, since the plan's fixed-size type cannot say what was stored.
func readStoredVarLen(attr, mt C.hid_t, op string, buf []byte, verify bool) error {
	if verify {
		return errorf("h5: H5Aread %s: the stored type holds variable-length data; a fixed-size value cannot be verified against it", op)
	}
	space := C.H5Aget_space(attr)
	if space < 0 {
		return stackError("H5Aget_space " + op)
	}
	defer C.H5Sclose(space)
	if len(buf) == 0 {
		return nil
	}
	if C.H5Aread(attr, mt, unsafe.Pointer(&buf[0])) < 0 {
		return stackError("H5Aread " + op)
	}
	if C.h5p_reclaim(mt, space, unsafe.Pointer(&buf[0])) < 0 {
		return stackError("reclaim " + op)
	}
	return nil
}
