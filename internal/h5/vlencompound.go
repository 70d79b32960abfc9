package h5

/*
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>
#include "compat.h"

// h5p_vc_reclaim frees the strings HDF5 allocated in a read of compounds (the version's
// reclaim call; a macro cgo cannot call).
static herr_t h5p_vc_reclaim(hid_t t, hid_t s, void *buf) { return h5p_vlen_reclaim(t, s, buf); }
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/h5proxy/h5proxy/plan"
)

// A compound holding variable-length strings (plan.Type.HasVarLen) is, to HDF5, the C
// struct a program declares: a char * in place of each such member, every member at its C
// alignment. Plans lay it out with each variable-length member as a fixed string of its
// Size bytes (as plan.VStr datasets); the binding moves each element between that layout
// and the C struct's around a transfer (vcompound), as for plain variable-length strings.

// cField is one leaf of such a compound: where it lies in the plan's layout (off, size
// bytes) and in the C struct's (coff), and whether it is a variable-length string.
type cField struct {
	off, coff, size int
	vstr            bool
}

// cLayout flattens t's leaves with their offsets in the C struct at cbase (t's in the
// plan at base), and returns the C struct's size and alignment.
func cLayout(t plan.Type, base, cbase int) (fs []cField, size, align int) {
	off, align := 0, 1
	for _, m := range t.Members {
		var sub []cField
		var msize, malign int
		switch {
		case m.Type.Class == plan.Compound:
			sub, msize, malign = cLayout(m.Type, 0, 0)
		case m.Type.VarLen:
			msize, malign = plan.PointerSize, plan.PointerSize
		default:
			msize, malign = m.Type.Size, m.Type.Align()
		}
		off = (off + malign - 1) / malign * malign
		if m.Type.Class == plan.Compound {
			for _, f := range sub {
				fs = append(fs, cField{off: base + m.Offset + f.off, coff: cbase + off + f.coff, size: f.size, vstr: f.vstr})
			}
		} else {
			fs = append(fs, cField{off: base + m.Offset, coff: cbase + off, size: m.Type.Size, vstr: m.Type.VarLen})
		}
		off += msize
		align = max(align, malign)
	}
	return fs, (off + align - 1) / align * align, align
}

// vlenCompoundType builds the C struct's HDF5 compound type of t (nested compounds as
// their own C structs, variable-length members as H5T_VARIABLE strings).
func vlenCompoundType(t plan.Type) (_ C.hid_t, err error) {
	_, size, _ := cLayout(t, 0, 0)
	op := "compound datatype " + t.String()
	h := C.H5Tcreate(C.H5T_COMPOUND, C.size_t(size))
	if h < 0 {
		return -1, stackError("H5Tcreate " + op)
	}
	defer func() {
		if err != nil {
			C.H5Tclose(h)
		}
	}()
	off := 0
	for _, m := range t.Members {
		mt, err := convType(m.Type) // a nested compound with strings comes here too
		if err != nil {
			return -1, err
		}
		msize, malign := int(C.H5Tget_size(mt)), m.Type.Align()
		if m.Type.Class == plan.Compound {
			_, _, malign = cLayout(m.Type, 0, 0)
		}
		off = (off + malign - 1) / malign * malign
		name := cstr(m.Name)
		rc := C.H5Tinsert(h, name, C.size_t(off), mt)
		free(name)
		if rc < 0 {
			return -1, stackError(fmt.Sprintf("H5Tinsert %s member %s", op, m.Name))
		}
		off += msize
	}
	return h, nil
}

// vcompound stages n elements of a transfer of a compound with variable-length strings:
// the C structs HDF5 writes or reads (p, n × csize bytes) and, for a write, the strings
// they point to, in the same C allocation after them.
type vcompound struct {
	p     unsafe.Pointer
	n     int
	csize int
	fs    []cField
	size  int  // the plan's element size
	read  bool // HDF5 allocated the strings: reclaim them
}

// packVCompound copies n plan elements of t from buf into C structs for a write.
func packVCompound(t plan.Type, buf []byte, n int) (*vcompound, error) {
	fs, csize, _ := cLayout(t, 0, 0)
	if len(buf) < n*t.Size {
		return nil, errorf("h5: compound with variable-length strings: buffer has %d bytes, %d elements of %d need %d", len(buf), n, t.Size, n*t.Size)
	}
	strs := 0
	for _, f := range fs {
		if f.vstr {
			strs += f.size + 1
		}
	}
	total := max(n*(csize+strs), 1)
	p := C.calloc(C.size_t(total), 1)
	if p == nil {
		return nil, errorf("h5: compound with variable-length strings: out of memory for %d elements", n)
	}
	c := unsafe.Slice((*byte)(p), total)
	s := n * csize // the next string's place
	for i := range n {
		e, ce := buf[i*t.Size:], c[i*csize:]
		for _, f := range fs {
			if !f.vstr {
				copy(ce[f.coff:f.coff+f.size], e[f.off:f.off+f.size])
				continue
			}
			v := e[f.off : f.off+f.size]
			l := 0
			for l < len(v) && v[l] != 0 {
				l++
			}
			copy(c[s:s+l], v[:l]) // NUL-terminated: calloc'd
			*(*unsafe.Pointer)(unsafe.Pointer(&ce[f.coff])) = unsafe.Add(p, s)
			s += f.size + 1
		}
	}
	return &vcompound{p: p, n: n, csize: csize, fs: fs, size: t.Size}, nil
}

// readVCompound allocates n C structs of t for HDF5 to read into.
func readVCompound(t plan.Type, n int) *vcompound {
	fs, csize, _ := cLayout(t, 0, 0)
	return &vcompound{p: C.calloc(C.size_t(max(n*csize, 1)), 1), n: n, csize: csize, fs: fs, size: t.Size, read: true}
}

// unpack copies the structs read into buf in the plan's layout, each string as a fixed
// string of its member's size, NUL-padded; a longer one is an error (the plan did not
// expect it; its first bytes are kept).
func (v *vcompound) unpack(op string, buf []byte) error {
	if v.n == 0 {
		return nil
	}
	c := unsafe.Slice((*byte)(v.p), v.n*v.csize)
	cut := 0
	for i := range v.n {
		e, ce := buf[i*v.size:], c[i*v.csize:]
		for _, f := range v.fs {
			if !f.vstr {
				copy(e[f.off:f.off+f.size], ce[f.coff:f.coff+f.size])
				continue
			}
			dst := e[f.off : f.off+f.size]
			clear(dst)
			sp := *(**C.char)(unsafe.Pointer(&ce[f.coff]))
			if sp == nil {
				continue
			}
			str := C.GoString(sp)
			if len(str) > f.size {
				cut++
			}
			copy(dst, str)
		}
	}
	if cut > 0 {
		return errorf("h5: %s: %d variable-length strings are longer than the bytes the plan holds for their members", op, cut)
	}
	return nil
}

// release frees the staging: the strings HDF5 allocated on a read (reclaimed through the
// transfer's memory type and space), then the block.
func (v *vcompound) release(mt, space C.hid_t) {
	if v == nil || v.p == nil {
		return
	}
	if v.read {
		C.h5p_vc_reclaim(mt, space, v.p)
	}
	C.free(v.p)
	v.p = nil
}

// maxLen is the length of the longest string read.
func (v *vcompound) maxLen() int {
	c := unsafe.Slice((*byte)(v.p), max(v.n*v.csize, 1))
	m := 0
	for i := range v.n {
		for _, f := range v.fs {
			if sp := *(**C.char)(unsafe.Pointer(&c[i*v.csize+f.coff])); f.vstr && sp != nil {
				m = max(m, int(C.strlen(sp)))
			}
		}
	}
	return m
}

// withVStrings returns compound t with its variable-length members w bytes long in the
// plan's layout, members at their C alignment (as the description engine lays them out).
func withVStrings(t plan.Type, w int) plan.Type {
	out := plan.Type{Class: plan.Compound, Name: t.Name}
	off, align := 0, 1
	for _, m := range t.Members {
		mt := m.Type
		switch {
		case mt.Class == plan.Compound:
			mt = withVStrings(mt, w)
		case mt.VarLen:
			mt.Size = w
		}
		a := mt.Align()
		off = (off + a - 1) / a * a
		out.Members = append(out.Members, plan.Field(m.Name, off, mt))
		off += mt.Size
		align = max(align, a)
	}
	out.Size = (off + align - 1) / align * align
	return out
}

// readVCompoundAttribute reads attribute attr (op names it) of compound type t holding
// variable-length strings, through memory type mt and space s of dims: its strings as
// fixed ones as long as the longest value (at least 1 byte), as ReadAttribute gives a
// variable-length string attribute.
func readVCompoundAttribute(attr C.hid_t, op, name string, t plan.Type, mt, s C.hid_t, dims []uint64) (plan.AttributeSpec, error) {
	n := int(plan.Product(dims))
	v := readVCompound(t, n)
	defer v.release(mt, s)
	if C.H5Aread(attr, mt, v.p) < 0 {
		return plan.AttributeSpec{}, stackError("H5Aread " + op)
	}
	wt := withVStrings(t, max(v.maxLen(), 1))
	v.fs, _, _ = cLayout(wt, 0, 0) // the C offsets are t's: a string member is a pointer in both
	v.size = wt.Size
	val := make([]byte, n*wt.Size)
	if err := v.unpack("H5Aread "+op, val); err != nil {
		return plan.AttributeSpec{}, err
	}
	return plan.AttributeSpec{Name: name, Type: wt, Shape: dims, Value: val}, nil
}
