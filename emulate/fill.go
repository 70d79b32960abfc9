package emulate

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/h5proxy/h5proxy/plan"
)

// FillKind selects how write buffers are filled.
type FillKind int

// Fill kinds.
const (
	// Seeded values are a pure function of (seed, variable, step, global index): verifiable.
	Seeded FillKind = iota + 1
	// Random values are uniform pseudo-random, like h5bench's; not verifiable.
	Random
	// Zero leaves buffers as allocated (zeros) or as the previous step left them.
	Zero
	// Once is Seeded with step 0's values at every step: h5bench prepares its buffers once,
	// before its timed loop, and writes the same data at every step; a session fills each
	// buffer once, before the phase's timed window. Still verifiable (DataStep).
	Once
)

// FillKinds lists the accepted names.
var FillKinds = []string{"seeded", "random", "zero", "once"}

// ParseFillKind maps a name to a kind, case-insensitively.
func ParseFillKind(s string) (FillKind, error) {
	for i, n := range FillKinds {
		if strings.EqualFold(n, s) {
			return FillKind(i + 1), nil
		}
	}
	return 0, fmt.Errorf("fill %q: allowed %s", s, strings.Join(FillKinds, ", "))
}

// String returns the kind's name.
func (k FillKind) String() string {
	if k >= Seeded && k <= Once {
		return FillKinds[k-1]
	}
	return fmt.Sprintf("fill(%d)", int(k))
}

// Verifiable reports whether data written with kind can be checked element by element.
func (k FillKind) Verifiable() bool { return k == Seeded || k == Once }

// DataStep is the step whose seeded values a buffer of step holds under kind: step 0 for
// Once (every step repeats it), the step itself otherwise.
func DataStep(kind FillKind, step int) int {
	if kind == Once {
		return 0
	}
	return step
}

// mix64 is the SplitMix64 finalizer: a cheap bijective scrambler.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// varKey hashes a variable name.
func varKey(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// stream is the per-(seed, variable, step) base from which element values derive.
func stream(seed uint64, variable string, step int) uint64 {
	return mix64(mix64(seed^varKey(variable)) + uint64(step)*0x9e3779b97f4a7c15)
}

// Bits returns the raw 64 pseudo-random bits of element g of a variable at a step.
func Bits(seed uint64, variable string, step int, g uint64) uint64 {
	return mix64(stream(seed, variable, step) + g)
}

// encode stores the value derived from bits h as class c at b. Floats take only as many
// bits as their mantissa holds so the values are exact integers: no rounding anywhere.
func encode(c plan.Class, b []byte, h uint64) {
	ne := binary.NativeEndian
	switch c {
	case plan.Float32, plan.Int32, plan.Uint32:
		ne.PutUint32(b, word32(c, h))
	case plan.Float64:
		ne.PutUint64(b, math.Float64bits(float64(h>>11)))
	case plan.Int64:
		ne.PutUint64(b, h>>1)
	case plan.Uint64:
		ne.PutUint64(b, h)
	case plan.Uint8:
		b[0] = byte(h >> 56)
	case plan.Int8:
		b[0] = byte(h >> 57) // 0..127: the same value whether read signed or unsigned
	case plan.Int16, plan.Uint16:
		ne.PutUint16(b, uint16(h>>49)) // 0..32767: the same value signed or unsigned
	case plan.String, plan.Opaque:
		for i := range b {
			b[i] = 'a' + byte((h>>(uint(i)%8*8))%26)
		}
	}
}

// word32 encodes bits h as a 4-byte class: a float32 holding a 24-bit integer (exact),
// or a 24-bit non-negative integer. 24 bits, not 31: the applications' 4-byte integers
// (particle ids, counts, masks) leave their high bits clear, and with 31 random bits an
// integer dataset is incompressible, which SZIP answers by skipping its optional filter
// per chunk (HDF5 1.10.8's MPI-IO path then writes chunks no reader can decode).
func word32(c plan.Class, h uint64) uint32 {
	if c == plan.Float32 {
		return math.Float32bits(float32(h >> 40))
	}
	return uint32(h >> 40)
}

// Field is one atomic field of a buffer element: the variable it carries and where.
type Field struct {
	Variable string
	Offset   int
	Class    plan.Class
	Size     int
	// Enum holds an enumeration's values: the field's generated elements take one of them
	// (HDF5 converts no other value between enumerations: fill_more.go).
	Enum []int64
}

// Fields lists the atomic fields of memory type t; an atomic type carries variable name.
// A nested compound member's fields carry "member.field" at their offsets in the outer type.
func Fields(t plan.Type, name string) []Field {
	ms := t.Fields(name)
	f := make([]Field, 0, len(ms))
	for _, m := range ms {
		if m.Type.Class == plan.Compound {
			for _, in := range Fields(m.Type, "") {
				f = append(f, Field{Variable: m.Name + "." + in.Variable, Offset: m.Offset + in.Offset, Class: in.Class, Size: in.Size, Enum: in.Enum})
			}
			continue
		}
		if m.Type.Class == plan.Array {
			f = append(f, arrayFields(m)...)
			continue
		}
		f = append(f, Field{Variable: m.Name, Offset: m.Offset, Class: m.Type.Class, Size: m.Type.Size, Enum: enumValues(m.Type)})
	}
	return f
}

// Layout describes how a buffer maps to a file selection: element e of the buffer (elem
// bytes each) holds global index g, the e-th index of the runs in order.
type Layout struct {
	Elem   int
	Fields []Field
	Runs   []plan.Run
}

// Points is the number of buffer elements the layout covers.
func (l *Layout) Points() uint64 {
	var n uint64
	for _, r := range l.Runs {
		n += r.Len
	}
	return n
}

func (l *Layout) check(buf []byte) error {
	if need := l.Points() * uint64(l.Elem); uint64(len(buf)) < need {
		return fmt.Errorf("emulate: buffer has %d bytes, layout needs %d", len(buf), need)
	}
	return nil
}

// Fill writes the step's values into buf according to kind (Once: step 0's values whatever
// step is). rank only perturbs Random.
func Fill(kind FillKind, buf []byte, l *Layout, seed uint64, step, rank int) error {
	if err := l.check(buf); err != nil {
		return err
	}
	switch kind {
	case Zero:
		return nil
	case Random:
		r := rand.New(rand.NewPCG(seed, uint64(rank)<<32|uint64(step)))
		for _, f := range l.Fields {
			var e uint64
			for _, run := range l.Runs {
				for k := uint64(0); k < run.Len; k++ {
					f.encode(buf[e*uint64(l.Elem)+uint64(f.Offset):][:f.Size], r.Uint64())
					e++
				}
			}
		}
		return nil
	case Seeded, Once:
		for _, f := range l.Fields {
			base := stream(seed, f.Variable, DataStep(kind, step))
			var e uint64
			for _, run := range l.Runs {
				fillRun(f, buf, l.Elem, e, base, run)
				e += run.Len
			}
		}
		return nil
	}
	return fmt.Errorf("emulate: unknown fill kind %d", int(kind))
}

// fillRun is the hot loop: specialised for the two common classes.
func fillRun(f Field, buf []byte, elem int, e0, base uint64, run plan.Run) {
	ne := binary.NativeEndian
	off := int(e0)*elem + f.Offset
	switch {
	case f.Enum != nil:
		for k := uint64(0); k < run.Len; k++ {
			f.encode(buf[off:off+f.Size], mix64(base+run.Start+k))
			off += elem
		}
	case f.Class == plan.Float32 || f.Class == plan.Int32 || f.Class == plan.Uint32:
		for k := uint64(0); k < run.Len; k++ {
			ne.PutUint32(buf[off:], word32(f.Class, mix64(base+run.Start+k)))
			off += elem
		}
	default:
		for k := uint64(0); k < run.Len; k++ {
			encode(f.Class, buf[off:off+f.Size], mix64(base+run.Start+k))
			off += elem
		}
	}
}

// Mismatch describes the first element that failed verification.
type Mismatch struct {
	Variable string
	Index    uint64 // global (row-major) index in the dataset
	Got      string
	Want     string
}

func (m Mismatch) String() string {
	return fmt.Sprintf("%s[%d] = %s, want %s", m.Variable, m.Index, m.Got, m.Want)
}

// Verify compares buf against the seeded values of the step and returns the number of
// mismatching elements (per field) and the first mismatch.
func Verify(buf []byte, l *Layout, seed uint64, step int) (uint64, *Mismatch, error) {
	if err := l.check(buf); err != nil {
		return 0, nil, err
	}
	var bad uint64
	var first *Mismatch
	for _, f := range l.Fields {
		base := stream(seed, f.Variable, step)
		off := f.Offset
		// One scratch element per field: strings may be longer than 8 bytes, and encode
		// overwrites every byte of w, so it can be reused across elements.
		w := make([]byte, f.Size)
		for _, run := range l.Runs {
			if f.Size == 4 && f.Class != plan.String && f.Enum == nil {
				// Hot path: compare words; fall through to the generic loop on a mismatch.
				if n := match32(f, buf[off:], l.Elem, base, run); n == run.Len {
					off += int(run.Len) * l.Elem
					continue
				}
			}
			for k := uint64(0); k < run.Len; k++ {
				g := run.Start + k
				f.encode(w, mix64(base+g))
				got := buf[off : off+f.Size]
				if string(got) != string(w) {
					bad++
					if first == nil {
						first = &Mismatch{Variable: f.Variable, Index: g, Got: format(f.Class, got), Want: format(f.Class, w)}
					}
				}
				off += l.Elem
			}
		}
	}
	return bad, first, nil
}

// match32 returns how many leading elements of the run hold their expected 4-byte value.
func match32(f Field, buf []byte, elem int, base uint64, run plan.Run) uint64 {
	ne := binary.NativeEndian
	off := 0
	for k := uint64(0); k < run.Len; k++ {
		if ne.Uint32(buf[off:]) != word32(f.Class, mix64(base+run.Start+k)) {
			return k
		}
		off += elem
	}
	return run.Len
}

// Value returns the seeded value of one element as class c would encode it, decoded to
// float64 (for checks in other languages and in tests).
func Value(c plan.Class, seed uint64, variable string, step int, g uint64) float64 {
	b := make([]byte, 8)
	encode(c, b, Bits(seed, variable, step, g))
	return decode(c, b)
}

func decode(c plan.Class, b []byte) float64 {
	ne := binary.NativeEndian
	switch c {
	case plan.Float32:
		return float64(math.Float32frombits(ne.Uint32(b)))
	case plan.Float64:
		return math.Float64frombits(ne.Uint64(b))
	case plan.Int32:
		return float64(int32(ne.Uint32(b)))
	case plan.Uint32:
		return float64(ne.Uint32(b))
	case plan.Int64:
		return float64(int64(ne.Uint64(b)))
	case plan.Uint64:
		return float64(ne.Uint64(b))
	case plan.Uint8:
		return float64(b[0])
	case plan.Int8:
		return float64(int8(b[0]))
	case plan.Int16:
		return float64(int16(ne.Uint16(b)))
	case plan.Uint16:
		return float64(ne.Uint16(b))
	}
	return math.NaN()
}

func format(c plan.Class, b []byte) string {
	if c == plan.String {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%v", decode(c, b))
}
