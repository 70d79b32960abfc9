package log

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/plan"
)

// Element conversions of the log layout: what a write stores of its memory type (the
// file type's members it writes), and how stored elements convert into a read's memory
// type, as HDF5 converts compound members by name and numbers by value.

// leaf is one field of an element: a compound member, or the whole element of an atomic
// type (name "").
type leaf struct {
	name string
	off  int
	t    plan.Type
}

func leavesOf(t plan.Type) []leaf {
	if t.Class != plan.Compound {
		return []leaf{{t: t}}
	}
	out := make([]leaf, len(t.Members))
	for i, m := range t.Members {
		out[i] = leaf{name: m.Name, off: m.Offset, t: m.Type}
	}
	return out
}

// projection returns the members of file type ft that a transfer with memory type mt
// writes (nil: whole elements), as HDF5 converts compounds member by member, by name.
func projection(ft, mt plan.Type) ([]string, error) {
	fc, mc := ft.Class == plan.Compound, mt.Class == plan.Compound
	switch {
	case !fc && !mc:
		return nil, nil
	case fc != mc:
		return nil, fmt.Errorf("no conversion between the %s memory type and the %s file type (compound and atomic)", mt, ft)
	}
	var names []string
	for _, f := range ft.Members {
		for _, m := range mt.Members {
			if m.Name == f.Name {
				names = append(names, f.Name)
			}
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("the memory type %s and the file type %s have no member in common", mt, ft)
	}
	if len(names) == len(ft.Members) {
		return nil, nil // every member: store whole elements
	}
	return names, nil
}

// packed returns the layout of an entry's elements: ft's members listed in members,
// packed back to back in that order (all of ft when members is nil), and the element
// size.
func packed(ft plan.Type, members []string) ([]leaf, int, error) {
	if members == nil {
		return leavesOf(ft), ft.Size, nil
	}
	if ft.Class != plan.Compound {
		return nil, 0, fmt.Errorf("index lists members %v of the atomic type %s", members, ft)
	}
	var out []leaf
	off := 0
	for _, name := range members {
		found := false
		for _, m := range ft.Members {
			if m.Name == name {
				out = append(out, leaf{name: name, off: off, t: m.Type})
				off += m.Type.Size
				found = true
				break
			}
		}
		if !found {
			return nil, 0, fmt.Errorf("index lists member %q absent from the file type %s", name, ft)
		}
	}
	return out, off, nil
}

// fieldGroup is a set of fields of a read's memory type that the same entries hold.
type fieldGroup struct {
	dst     []leaf
	entries []*logEntry
}

// fieldGroups splits a read by the entries that hold each field: an entry that wrote some
// members of a compound (a partial write) takes precedence for those members only. Reads
// of atomic types, or of compounds only ever written whole, make one group.
func fieldGroups(ft, mt plan.Type, entries []*logEntry) []fieldGroup {
	dst := leavesOf(mt)
	if mt.Class != plan.Compound || ft.Class != plan.Compound {
		return []fieldGroup{{dst: dst, entries: entries}}
	}
	byKey := map[string]int{}
	var out []fieldGroup
	for _, l := range dst {
		inFile := false
		for _, m := range ft.Members {
			inFile = inFile || m.Name == l.name
		}
		if !inFile {
			continue
		}
		var sub []*logEntry
		var key strings.Builder
		for i, e := range entries {
			if e.members == nil || slices.Contains(e.members, l.name) {
				sub = append(sub, e)
				fmt.Fprintf(&key, "%d,", i)
			}
		}
		k, ok := byKey[key.String()]
		if !ok {
			k = len(out)
			byKey[key.String()] = k
			out = append(out, fieldGroup{entries: sub})
		}
		out[k].dst = append(out[k].dst, l)
	}
	return out
}

// converter moves elements from one layout to another, field by field, by name.
type converter struct {
	srcSize, dstSize int
	moves            []move
	// same: source and destination layouts are identical, elements copy as bytes.
	same bool
}

type move struct {
	src, dst int
	st, dt   plan.Type
}

// newConverter pairs the destination fields with the source fields of the same name.
// Destination fields without a source are left alone.
func newConverter(src []leaf, srcSize int, dst []leaf, dstSize int) (*converter, error) {
	c := &converter{srcSize: srcSize, dstSize: dstSize}
	for _, d := range dst {
		for _, s := range src {
			if s.name != d.name {
				continue
			}
			if !convertible(s.t, d.t) {
				return nil, fmt.Errorf("no conversion from %s to %s (field %q)", s.t, d.t, d.name)
			}
			c.moves = append(c.moves, move{src: s.off, dst: d.off, st: s.t, dt: d.t})
		}
	}
	c.same = srcSize == dstSize
	covered := 0
	for _, m := range c.moves {
		c.same = c.same && m.src == m.dst && m.st.Equal(m.dt)
		covered += m.st.Size
	}
	c.same = c.same && covered == srcSize
	return c, nil
}

// run converts n elements from src to dst.
func (c *converter) run(dst, src []byte, n int) {
	if c.same {
		copy(dst[:n*c.dstSize], src[:n*c.srcSize])
		return
	}
	for i := 0; i < n; i++ {
		s, d := src[i*c.srcSize:], dst[i*c.dstSize:]
		for _, m := range c.moves {
			convertAtomic(d[m.dst:m.dst+m.dt.Size], m.dt, s[m.src:m.src+m.st.Size], m.st)
		}
	}
}

func numeric(c plan.Class) bool {
	switch c {
	case plan.Float32, plan.Float64, plan.Int32, plan.Int64, plan.Uint64, plan.Uint8, plan.Uint32, plan.Int8, plan.Int16, plan.Uint16:
		return true
	}
	return false
}

func convertible(s, d plan.Type) bool {
	switch {
	case s.Equal(d):
		return true
	case numeric(s.Class) && numeric(d.Class):
		return true
	case s.Class == plan.String && d.Class == plan.String:
		return true
	}
	return false
}

// convertAtomic converts one value as HDF5's hard conversions do: integers clip to the
// destination's range, floats truncate toward zero into integers (clipping), strings are
// cut or NUL-padded. Values are in the machine's native byte order.
func convertAtomic(dst []byte, dt plan.Type, src []byte, st plan.Type) {
	if st.Equal(dt) {
		copy(dst, src)
		return
	}
	if st.Class == plan.String {
		n := copy(dst, src)
		clear(dst[n:])
		return
	}
	ne := binary.NativeEndian
	var f float64
	var i int64
	var u uint64
	isFloat, isSigned := false, false
	switch st.Class {
	case plan.Float32:
		f, isFloat = float64(math.Float32frombits(ne.Uint32(src))), true
	case plan.Float64:
		f, isFloat = math.Float64frombits(ne.Uint64(src)), true
	case plan.Int32:
		i, isSigned = int64(int32(ne.Uint32(src))), true
	case plan.Int64:
		i, isSigned = int64(ne.Uint64(src)), true
	case plan.Int8:
		i, isSigned = int64(int8(src[0])), true
	case plan.Int16:
		i, isSigned = int64(int16(ne.Uint16(src))), true
	case plan.Uint16:
		u = uint64(ne.Uint16(src))
	case plan.Uint8:
		u = uint64(src[0])
	case plan.Uint32:
		u = uint64(ne.Uint32(src))
	case plan.Uint64:
		u = ne.Uint64(src)
	}
	switch dt.Class {
	case plan.Float32, plan.Float64:
		v := f
		if isSigned {
			v = float64(i)
		} else if !isFloat {
			v = float64(u)
		}
		if dt.Class == plan.Float32 {
			ne.PutUint32(dst, math.Float32bits(float32(v)))
		} else {
			ne.PutUint64(dst, math.Float64bits(v))
		}
		return
	}
	lo, hi := intRange(dt.Class)
	var out int64
	var outU uint64
	unsignedDst := dt.Class == plan.Uint64
	switch {
	case isFloat:
		switch {
		case math.IsNaN(f):
		case f <= float64(lo):
			out = lo
		case unsignedDst && f >= float64(math.MaxUint64):
			outU = math.MaxUint64
		case unsignedDst:
			outU = uint64(math.Trunc(f))
		case f >= float64(hi):
			out = hi
		default:
			out = int64(math.Trunc(f))
		}
	case isSigned:
		switch {
		case i < lo:
			out = lo
		case unsignedDst:
			outU = uint64(i)
		case i > hi:
			out = hi
		default:
			out = i
		}
	default:
		switch {
		case unsignedDst:
			outU = u
		case u > uint64(hi):
			out = hi
		default:
			out = int64(u)
		}
	}
	if unsignedDst {
		ne.PutUint64(dst, outU)
		return
	}
	switch dt.Class {
	case plan.Int32:
		ne.PutUint32(dst, uint32(int32(out)))
	case plan.Int64:
		ne.PutUint64(dst, uint64(out))
	case plan.Uint8:
		dst[0] = uint8(out)
	case plan.Int8:
		dst[0] = uint8(int8(out))
	case plan.Int16, plan.Uint16:
		ne.PutUint16(dst, uint16(out))
	case plan.Uint32:
		ne.PutUint32(dst, uint32(out))
	}
}

// intRange is the range of an integer class (Uint64's upper bound is handled apart).
func intRange(c plan.Class) (int64, int64) {
	switch c {
	case plan.Int32:
		return math.MinInt32, math.MaxInt32
	case plan.Uint8:
		return 0, math.MaxUint8
	case plan.Int8:
		return math.MinInt8, math.MaxInt8
	case plan.Int16:
		return math.MinInt16, math.MaxInt16
	case plan.Uint16:
		return 0, math.MaxUint16
	case plan.Uint32:
		return 0, math.MaxUint32
	case plan.Uint64:
		return 0, math.MaxInt64
	}
	return math.MinInt64, math.MaxInt64
}

// fillFields zeroes, in n elements of memory type mt, the fields the file type ft has:
// what HDF5 reads for elements never written (the default fill value). Fields of mt
// absent from ft keep their bytes, as HDF5 leaves them.
func fillFields(buf []byte, mt, ft plan.Type, n int) {
	if mt.Class != plan.Compound || ft.Class != plan.Compound {
		clear(buf[:n*mt.Size])
		return
	}
	var fields []leaf
	for _, m := range leavesOf(mt) {
		for _, f := range ft.Members {
			if f.Name == m.name {
				fields = append(fields, m)
			}
		}
	}
	if len(fields) == len(mt.Members) {
		clear(buf[:n*mt.Size])
		return
	}
	for i := 0; i < n; i++ {
		for _, f := range fields {
			clear(buf[i*mt.Size+f.off : i*mt.Size+f.off+f.t.Size])
		}
	}
}
