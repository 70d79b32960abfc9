package emulate

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// particle is h5bench's 32-byte compound (kept local: emulate must not import patterns/vpic).
var particle = plan.Struct("particle", 32,
	plan.Field("x", 0, plan.F32), plan.Field("y", 4, plan.F32), plan.Field("z", 8, plan.F32),
	plan.Field("px", 12, plan.F32), plan.Field("py", 16, plan.F32), plan.Field("pz", 20, plan.F32),
	plan.Field("id_1", 24, plan.I32), plan.Field("id_2", 28, plan.F32))

var particleVars = []string{"x", "y", "z", "px", "py", "pz", "id_1", "id_2"}

func varType(v string) plan.Type {
	if v == "id_1" {
		return plan.I32
	}
	return plan.F32
}

// layout builds the Layout of a buffer of memory type t holding the selection sel of a
// dataset of the given shape.
func layout(t plan.Type, name string, shape []uint64, sel plan.Selection) *Layout {
	return &Layout{Elem: t.Size, Fields: Fields(t, name), Runs: sel.Runs(shape)}
}

func block1(start, n uint64) plan.Selection {
	return plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{start}, []uint64{n})}}
}

func filled(t *testing.T, kind FillKind, l *Layout, seed uint64, step, rank int) []byte {
	t.Helper()
	buf := make([]byte, l.Points()*uint64(l.Elem))
	if err := Fill(kind, buf, l, seed, step, rank); err != nil {
		t.Fatalf("Fill: %v", err)
	}
	return buf
}

func TestFillVerifyRoundTrip(t *testing.T) {
	strided := plan.Selection{Blocks: []plan.Hyperslab{{Start: []uint64{16}, Stride: []uint64{4}, Count: []uint64{2}, Block: []uint64{2}}}}
	ldc := plan.Selection{Blocks: []plan.Hyperslab{
		plan.Block([]uint64{0, 0}, []uint64{2, 3}), plan.Block([]uint64{8, 7}, []uint64{2, 3})}}
	tests := []struct {
		name  string
		t     plan.Type
		shape []uint64
		sel   plan.Selection
	}{
		{"f32 1-D", plan.F32, []uint64{64}, block1(16, 16)},
		{"f64 1-D", plan.F64, []uint64{64}, block1(0, 64)},
		{"i32 strided", plan.I32, []uint64{32}, strided},
		{"i64", plan.I64, []uint64{10}, block1(3, 5)},
		{"u64", plan.U64, []uint64{10}, block1(3, 5)},
		{"u8", plan.U8, []uint64{300}, block1(0, 300)},
		{"i8", plan.I8, []uint64{300}, block1(0, 300)},
		{"str(5)", plan.Str(5), []uint64{10}, block1(0, 10)},
		{"str(12)", plan.Str(12), []uint64{10}, block1(2, 6)},
		{"particle 2-D LDC", particle, []uint64{20, 10}, ldc},
		{"particle 3-D", particle, []uint64{4, 3, 2}, plan.All([]uint64{4, 3, 2})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := layout(tc.t, "v", tc.shape, tc.sel)
			const seed, step = 42, 3
			buf := filled(t, Seeded, l, seed, step, 7)
			bad, first, err := Verify(buf, l, seed, step)
			if err != nil || bad != 0 || first != nil {
				t.Fatalf("Verify after Fill = %d, %v, %v", bad, first, err)
			}
			// Other step, other seed: (almost) everything differs. u8 has only 256 values,
			// so allow a few collisions there.
			nfields := uint64(len(l.Fields)) * l.Points()
			for _, c := range []struct {
				seed uint64
				step int
			}{{seed, step + 1}, {seed + 1, step}} {
				bad, first, err = Verify(buf, l, c.seed, c.step)
				if err != nil || first == nil || bad < nfields*9/10 {
					t.Errorf("Verify with seed %d step %d: %d of %d mismatches", c.seed, c.step, bad, nfields)
				}
			}
		})
	}
}

func TestVerifyReportsOneFlippedByte(t *testing.T) {
	const seed, step = 7, 2
	shape := []uint64{40}
	sel := block1(10, 20) // global indices 10..29
	tests := []struct {
		name     string
		t        plan.Type
		elem     int    // which buffer element
		byteOff  int    // byte within the element
		variable string // expected variable
	}{
		{"f32 contiguous", plan.F32, 5, 2, "v"},
		{"i32 first element", plan.I32, 0, 0, "v"},
		{"particle member pz", particle, 17, 21, "pz"},
		{"particle member id_1", particle, 3, 27, "id_1"},
		{"str(12) last byte", plan.Str(12), 19, 11, "v"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := layout(tc.t, "v", shape, sel)
			buf := filled(t, Seeded, l, seed, step, 0)
			buf[tc.elem*tc.t.Size+tc.byteOff] ^= 0x10
			bad, first, err := Verify(buf, l, seed, step)
			if err != nil {
				t.Fatal(err)
			}
			if bad != 1 || first == nil {
				t.Fatalf("Verify = %d mismatches (%v), want exactly 1", bad, first)
			}
			if want := uint64(10 + tc.elem); first.Variable != tc.variable || first.Index != want {
				t.Errorf("mismatch names %s[%d], want %s[%d]", first.Variable, first.Index, tc.variable, want)
			}
			if first.Got == first.Want {
				t.Errorf("mismatch Got == Want == %s", first.Got)
			}
			if s := first.String(); !strings.HasPrefix(s, first.Variable+"[") || !strings.Contains(s, ", want ") {
				t.Errorf("Mismatch.String() = %q", s)
			}
		})
	}
}

func TestMismatchString(t *testing.T) {
	m := Mismatch{Variable: "x", Index: 12, Got: "3", Want: "4"}
	if got := m.String(); got != "x[12] = 3, want 4" {
		t.Errorf("String() = %q", got)
	}
}

// An interleaved particle buffer holds, member by member, the same values as 8 contiguous
// per-variable buffers of the same selection: values depend on (variable, global index),
// not on the memory layout.
func TestInterleavedEqualsContiguous(t *testing.T) {
	const seed, step = 99, 4
	shape := []uint64{6, 5}
	sel := plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{3, 0}, []uint64{3, 5})}}
	il := layout(particle, "", shape, sel)
	ibuf := filled(t, Seeded, il, seed, step, 1)
	n := int(il.Points())
	if n != 15 {
		t.Fatalf("points = %d", n)
	}
	for _, m := range particle.Members {
		cl := layout(varType(m.Name), m.Name, shape, sel)
		cbuf := filled(t, Seeded, cl, seed, step, 1)
		for e := 0; e < n; e++ {
			got := ibuf[e*32+m.Offset : e*32+m.Offset+4]
			want := cbuf[e*4 : e*4+4]
			if !bytes.Equal(got, want) {
				t.Fatalf("%s element %d: interleaved %x, contiguous %x", m.Name, e, got, want)
			}
		}
		// And the contiguous buffer verifies as that variable, not another one.
		if bad, _, _ := Verify(cbuf, cl, seed, step); bad != 0 {
			t.Errorf("%s: %d mismatches", m.Name, bad)
		}
		other := layout(varType(m.Name), m.Name+"_other", shape, sel)
		if bad, _, _ := Verify(cbuf, other, seed, step); bad == 0 {
			t.Errorf("%s verifies as another variable", m.Name)
		}
	}
}

// Two decompositions of the same global index space give identical values at every global
// index: a writer with R ranks can be checked by a reader with R' ranks.
func TestDecompositionIndependence(t *testing.T) {
	const seed, step = 5, 1
	// 2-D dataset [12, 4]: 2 ranks of 6 rows vs 3 ranks of 4 rows vs strided single blocks.
	shape := []uint64{12, 4}
	values := func(ranks int) map[uint64][4]byte {
		got := map[uint64][4]byte{}
		rows := uint64(12 / ranks)
		for r := 0; r < ranks; r++ {
			sel := plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{uint64(r) * rows, 0}, []uint64{rows, 4})}}
			l := layout(plan.F32, "x", shape, sel)
			buf := filled(t, Seeded, l, seed, step, r)
			var e uint64
			for _, run := range l.Runs {
				for k := uint64(0); k < run.Len; k++ {
					got[run.Start+k] = [4]byte(buf[e*4 : e*4+4])
					e++
				}
			}
		}
		return got
	}
	a, b := values(2), values(3)
	if len(a) != 48 || len(b) != 48 {
		t.Fatalf("covered %d and %d points, want 48", len(a), len(b))
	}
	for g, v := range a {
		if b[g] != v {
			t.Fatalf("global index %d: 2-rank value %x, 3-rank value %x", g, v, b[g])
		}
	}
	// A column-strided reader selection sees the same values too.
	sel := plan.Selection{Blocks: []plan.Hyperslab{{Start: []uint64{1, 1}, Stride: []uint64{3, 2}, Count: []uint64{4, 2}, Block: []uint64{1, 1}}}}
	l := layout(plan.F32, "x", shape, sel)
	buf := make([]byte, l.Points()*4)
	var e uint64
	for _, run := range l.Runs {
		for k := uint64(0); k < run.Len; k++ {
			v := a[run.Start+k]
			copy(buf[e*4:], v[:])
			e++
		}
	}
	if e != 8 {
		t.Fatalf("strided selection has %d points, want 8", e)
	}
	if bad, first, err := Verify(buf, l, seed, step); bad != 0 || err != nil {
		t.Errorf("strided reader: %d mismatches, first %v, err %v", bad, first, err)
	}
}

func TestValueAgreesWithBytes(t *testing.T) {
	const seed, step = 11, 6
	ne := binary.NativeEndian
	classes := []plan.Type{plan.F32, plan.F64, plan.I32, plan.I64, plan.U64, plan.U8, plan.I8}
	for _, typ := range classes {
		l := layout(typ, "q", []uint64{1000}, block1(500, 200))
		buf := filled(t, Seeded, l, seed, step, 0)
		for e := uint64(0); e < 200; e++ {
			b := buf[e*uint64(typ.Size):]
			var got float64
			switch typ.Class {
			case plan.Float32:
				got = float64(math.Float32frombits(ne.Uint32(b)))
			case plan.Float64:
				got = math.Float64frombits(ne.Uint64(b))
			case plan.Int32:
				got = float64(int32(ne.Uint32(b)))
			case plan.Int64:
				got = float64(int64(ne.Uint64(b)))
			case plan.Uint64:
				got = float64(ne.Uint64(b))
			case plan.Uint8:
				got = float64(b[0])
			case plan.Int8:
				got = float64(int8(b[0]))
			}
			if want := Value(typ.Class, seed, "q", step, 500+e); got != want {
				t.Fatalf("%s element %d: bytes say %v, Value says %v", typ, e, got, want)
			}
		}
	}
	if v := Value(plan.String, 1, "s", 0, 0); !math.IsNaN(v) {
		t.Errorf("Value(str) = %v, want NaN", v)
	}
}

func TestValueRanges(t *testing.T) {
	distinct := map[float64]bool{}
	for g := uint64(0); g < 5000; g++ {
		f := Value(plan.Float32, 3, "x", 0, g)
		if f != math.Trunc(f) || f < 0 || f >= 1<<24 {
			t.Fatalf("f32 value %v at %d is not an exact integer in [0, 2^24)", f, g)
		}
		if float64(float32(f)) != f {
			t.Fatalf("f32 value %v is not representable", f)
		}
		d := Value(plan.Float64, 3, "x", 0, g)
		if d != math.Trunc(d) || d < 0 || d >= 1<<53 {
			t.Fatalf("f64 value %v at %d is not an exact integer in [0, 2^53)", d, g)
		}
		if i := Value(plan.Int32, 3, "id_1", 0, g); i < 0 || i > math.MaxInt32 {
			t.Fatalf("i32 value %v is negative or too large", i)
		}
		if i := Value(plan.Int64, 3, "id_1", 0, g); i < 0 {
			t.Fatalf("i64 value %v is negative", i)
		}
		distinct[f] = true
	}
	if len(distinct) < 4990 {
		t.Errorf("only %d distinct f32 values in 5000", len(distinct))
	}
}

func TestSeededDependsOnEveryInput(t *testing.T) {
	base := Bits(1, "x", 0, 0)
	for name, other := range map[string]uint64{
		"seed": Bits(2, "x", 0, 0), "variable": Bits(1, "y", 0, 0), "step": Bits(1, "x", 1, 0), "index": Bits(1, "x", 0, 1),
	} {
		if other == base {
			t.Errorf("changing the %s does not change the bits", name)
		}
	}
	// Steps differ element-wise (not just somewhere).
	l := layout(plan.F32, "x", []uint64{256}, block1(0, 256))
	a, b := filled(t, Seeded, l, 1, 0, 0), filled(t, Seeded, l, 1, 1, 0)
	same := 0
	for e := 0; e < 256; e++ {
		if bytes.Equal(a[e*4:e*4+4], b[e*4:e*4+4]) {
			same++
		}
	}
	if same > 2 {
		t.Errorf("steps 0 and 1 agree on %d of 256 elements", same)
	}
	// The rank does not perturb seeded values.
	if c := filled(t, Seeded, l, 1, 0, 5); !bytes.Equal(a, c) {
		t.Error("seeded fill depends on the rank")
	}
}

func TestRandomFill(t *testing.T) {
	l := layout(particle, "", []uint64{100}, block1(0, 100))
	a := filled(t, Random, l, 9, 2, 1)
	if b := filled(t, Random, l, 9, 2, 1); !bytes.Equal(a, b) {
		t.Error("Random fill is not deterministic for the same (seed, rank, step)")
	}
	for name, c := range map[string][]byte{
		"rank": filled(t, Random, l, 9, 2, 0), "step": filled(t, Random, l, 9, 3, 1), "seed": filled(t, Random, l, 10, 2, 1),
	} {
		if bytes.Equal(a, c) {
			t.Errorf("Random fill ignores the %s", name)
		}
	}
	bad, first, err := Verify(a, l, 9, 2)
	if err != nil {
		t.Fatal(err)
	}
	if bad < 790 || first == nil { // 8 fields x 100 elements
		t.Errorf("Verify on random data: %d mismatches, want ~800", bad)
	}
	// Every field of every element is written.
	z := make([]byte, len(a))
	zeros := 0
	for e := 0; e < 100*8; e++ {
		if bytes.Equal(a[e*4:e*4+4], z[:4]) {
			zeros++
		}
	}
	if zeros > 2 {
		t.Errorf("%d of 800 random fields are zero", zeros)
	}
}

func TestZeroFillLeavesBuffer(t *testing.T) {
	l := layout(plan.I32, "id_1", []uint64{8}, block1(0, 8))
	buf := bytes.Repeat([]byte{0xab}, 32)
	if err := Fill(Zero, buf, l, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf, bytes.Repeat([]byte{0xab}, 32)) {
		t.Error("Zero fill modified the buffer")
	}
}

func TestFillErrors(t *testing.T) {
	l := layout(particle, "", []uint64{10}, block1(2, 5)) // needs 160 bytes
	short := make([]byte, 159)
	want := "emulate: buffer has 159 bytes, layout needs 160"
	for _, k := range []FillKind{Seeded, Random, Zero} {
		if err := Fill(k, short, l, 1, 0, 0); err == nil || err.Error() != want {
			t.Errorf("Fill(%s) short buffer: %v, want %q", k, err, want)
		}
	}
	if _, _, err := Verify(short, l, 1, 0); err == nil || err.Error() != want {
		t.Errorf("Verify short buffer: %v, want %q", err, want)
	}
	// A longer buffer is fine; the tail is untouched.
	long := make([]byte, 170)
	if err := Fill(Seeded, long, l, 1, 0, 0); err != nil {
		t.Errorf("Fill with spare room: %v", err)
	}
	if !bytes.Equal(long[160:], make([]byte, 10)) {
		t.Error("Fill wrote past the layout")
	}
	if err := Fill(FillKind(9), long, l, 1, 0, 0); err == nil || err.Error() != "emulate: unknown fill kind 9" {
		t.Errorf("Fill(9) = %v", err)
	}
}

func TestFieldsAndPoints(t *testing.T) {
	f := Fields(particle, "ignored")
	if len(f) != 8 {
		t.Fatalf("%d fields", len(f))
	}
	for i, v := range particleVars {
		wantClass := plan.Float32
		if v == "id_1" {
			wantClass = plan.Int32
		}
		if f[i].Variable != v || f[i].Offset != 4*i || f[i].Class != wantClass || f[i].Size != 4 {
			t.Errorf("field %d = %+v", i, f[i])
		}
	}
	f = Fields(plan.F64, "pz")
	if len(f) != 1 || !reflect.DeepEqual(f[0], Field{Variable: "pz", Offset: 0, Class: plan.Float64, Size: 8}) {
		t.Errorf("Fields(f64, pz) = %+v", f)
	}
	l := &Layout{Runs: []plan.Run{{Start: 0, Len: 3}, {Start: 10, Len: 4}}}
	if l.Points() != 7 {
		t.Errorf("Points = %d", l.Points())
	}
}

func TestParseFillKind(t *testing.T) {
	for in, want := range map[string]FillKind{"seeded": Seeded, "SEEDED": Seeded, "Random": Random, "zero": Zero, "Once": Once} {
		got, err := ParseFillKind(in)
		if err != nil || got != want {
			t.Errorf("ParseFillKind(%q) = %v, %v", in, got, err)
		}
		if got.String() != strings.ToLower(in) {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
	if _, err := ParseFillKind("noise"); err == nil || err.Error() != `fill "noise": allowed seeded, random, zero, once` {
		t.Errorf("ParseFillKind(noise) = %v", err)
	}
	if s := FillKind(0).String(); s != "fill(0)" {
		t.Errorf("FillKind(0) = %q", s)
	}
	if s := FillKind(5).String(); s != "fill(5)" {
		t.Errorf("FillKind(5) = %q", s)
	}
}

// TestOnceFill pins fill=once: every step holds step 0's seeded values, element by element,
// so a read of any step verifies against step 0 (DataStep) and not against its own step.
func TestOnceFill(t *testing.T) {
	sel := plan.Selection{Blocks: []plan.Hyperslab{{Start: []uint64{5}, Stride: []uint64{3}, Count: []uint64{4}, Block: []uint64{2}}}}
	for _, typ := range []plan.Type{plan.F32, plan.I32, plan.F64, particle} {
		l := layout(typ, "v", []uint64{40}, sel)
		const seed = 9
		step0 := filled(t, Seeded, l, seed, 0, 0)
		for _, step := range []int{0, 1, 7} {
			buf := filled(t, Once, l, seed, step, 3)
			if !bytes.Equal(buf, step0) {
				t.Fatalf("%s: Once at step %d differs from Seeded at step 0", typ.Name, step)
			}
			bad, first, err := Verify(buf, l, seed, DataStep(Once, step))
			if err != nil || bad != 0 || first != nil {
				t.Fatalf("%s step %d: Verify(DataStep) = %d, %v, %v", typ.Name, step, bad, first, err)
			}
			if step > 0 {
				if bad, _, _ := Verify(buf, l, seed, step); bad == 0 {
					t.Errorf("%s step %d: Once data verified as the step's own seeded values", typ.Name, step)
				}
			}
		}
		// Element by element: the values are f(seed, variable, 0, global index).
		for e, g := range []uint64{5, 6, 8, 9, 11, 12, 14, 15} {
			for _, f := range l.Fields {
				got := decode(f.Class, step0[e*l.Elem+f.Offset:][:f.Size])
				if want := Value(f.Class, seed, f.Variable, 0, g); got != want {
					t.Errorf("%s %s[%d] = %v, want %v", typ.Name, f.Variable, g, got, want)
				}
			}
		}
	}
	for kind, want := range map[FillKind][2]int{Once: {0, 0}, Seeded: {0, 5}, Random: {0, 5}} {
		if a, b := DataStep(kind, 0), DataStep(kind, 5); a != want[0] || b != want[1] {
			t.Errorf("DataStep(%v) = %d, %d; want %v", kind, a, b, want)
		}
	}
	for kind, want := range map[FillKind]bool{Seeded: true, Once: true, Random: false, Zero: false} {
		if kind.Verifiable() != want {
			t.Errorf("%v.Verifiable() = %v", kind, !want)
		}
	}
}
