package log

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/layout/internal/h5layout"
)

// randomSelection returns a union of up to 3 hyperslabs (some strided) inside shape.
func randomSelection(r *rand.Rand, shape []uint64) plan.Selection {
	var sel plan.Selection
	for b := 0; b < 1+r.IntN(3); b++ {
		h := plan.Hyperslab{}
		for _, ext := range shape {
			block := 1 + r.Uint64N(ext)
			count, stride := uint64(1), block
			if r.IntN(3) == 0 && block < ext {
				stride = block + r.Uint64N(ext-block+1)
				count = 1 + (ext-block)/max(stride, 1)
				count = 1 + r.Uint64N(count)
			}
			last := (count-1)*stride + block
			start := r.Uint64N(ext - last + 1)
			h.Start, h.Stride = append(h.Start, start), append(h.Stride, stride)
			h.Count, h.Block = append(h.Count, count), append(h.Block, block)
		}
		sel.Blocks = append(sel.Blocks, h)
	}
	return sel
}

// TestResolveAgainstOracle resolves random reads against random overlapping writes and
// compares, element by element, with painting the writes in order on a dense array.
func TestResolveAgainstOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 400; iter++ {
		shape := []uint64{1 + r.Uint64N(7), 1 + r.Uint64N(9)}
		if iter%4 == 0 {
			shape = []uint64{1 + r.Uint64N(40)}
		}
		total := plan.Product(shape)
		type src struct {
			entry int
			elem  uint64
		}
		dense := make([]*src, total)
		var entries []*logEntry
		for e := 0; e < r.IntN(5); e++ {
			sel := randomSelection(r, shape)
			entries = append(entries, &logEntry{path: "/d", sel: sel})
			var k uint64
			for _, run := range sel.Runs(shape) {
				for g := run.Start; g < run.Start+run.Len; g++ {
					dense[g] = &src{e, k}
					k++
				}
			}
		}
		req := randomSelection(r, shape)
		pieces, err := resolve(req, shape, entries)
		if err != nil {
			t.Fatal(err)
		}
		got := map[uint64]src{}
		var last uint64
		for i, p := range pieces {
			if p.n == 0 || (i > 0 && p.buf < last) {
				t.Fatalf("iter %d: pieces not sorted and disjoint: %+v", iter, pieces)
			}
			last = p.buf + p.n
			for k := uint64(0); k < p.n; k++ {
				got[p.buf+k] = src{p.entry, p.src + k}
			}
		}
		var b uint64
		for _, run := range req.Runs(shape) {
			for g := run.Start; g < run.Start+run.Len; g++ {
				want := dense[g]
				s, ok := got[b]
				switch {
				case want == nil && ok:
					t.Fatalf("iter %d: element %d (buffer %d) resolved to %+v, nobody wrote it", iter, g, b, s)
				case want != nil && (!ok || s != *want):
					t.Fatalf("iter %d: element %d (buffer %d) resolved to %+v (found %v), want %+v", iter, g, b, s, ok, *want)
				}
				delete(got, b)
				b++
			}
		}
		if len(got) != 0 {
			t.Fatalf("iter %d: pieces outside the request: %v", iter, got)
		}
	}
}

// TestResolveLaterWins: a later write over part of an earlier one takes precedence and
// splits it; a request of nothing or without entries resolves to nothing.
func TestResolveLaterWins(t *testing.T) {
	shape := []uint64{10}
	blk := func(s, n uint64) plan.Selection {
		return plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{s}, []uint64{n})}}
	}
	entries := []*logEntry{{sel: blk(0, 10)}, {sel: blk(3, 2)}}
	pieces, err := resolve(plan.All(shape), shape, entries)
	if err != nil {
		t.Fatal(err)
	}
	want := []piece{{buf: 0, n: 3, src: 0, entry: 0}, {buf: 3, n: 2, src: 0, entry: 1}, {buf: 5, n: 5, src: 5, entry: 0}}
	if !reflect.DeepEqual(pieces, want) {
		t.Errorf("pieces %+v, want %+v", pieces, want)
	}
	if p, _ := resolve(plan.None(), shape, entries); p != nil {
		t.Errorf("empty request: %+v", p)
	}
	if p, _ := resolve(blk(2, 3), shape, nil); p != nil {
		t.Errorf("no entries: %+v", p)
	}
	if _, err := resolve(blk(0, 2), []uint64{4}, entries); err == nil {
		t.Error("an entry beyond the extent was accepted")
	}
}

// TestIndexCodec round-trips entries (members, strided N-D blocks, a scalar) and rejects
// truncated and inconsistent streams.
func TestIndexCodec(t *testing.T) {
	entries := []*logEntry{
		{path: "/Timestep_0/particles", members: []string{"x", "id_1"}, offset: 1 << 40, size: 96,
			sel: plan.Selection.Explicit(plan.Selection{Blocks: []plan.Hyperslab{
				{Start: []uint64{4, 0}, Stride: []uint64{3, 1}, Count: []uint64{2, 1}, Block: []uint64{1, 5}},
				{Start: []uint64{0, 2}, Count: []uint64{1, 1}},
			}})},
		{path: "/scalar", sel: plan.Selection.Explicit(plan.All(nil)), offset: 7, size: 8},
		{path: "/ünïcode name", sel: plan.Selection.Explicit(plan.All([]uint64{3})), size: 12},
	}
	var b []byte
	for _, e := range entries {
		if err := e.checkEncodable(); err != nil {
			t.Fatal(err)
		}
		n := len(b)
		b = e.encode(b)
		if len(b)-n != e.encodedSize() {
			t.Errorf("%s: encoded %d bytes, encodedSize %d", e.path, len(b)-n, e.encodedSize())
		}
	}
	back, err := decodeEntries(b, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(entries) {
		t.Fatalf("%d entries back, want %d", len(back), len(entries))
	}
	for i, e := range entries {
		g := back[i]
		if g.path != e.path || !reflect.DeepEqual(g.members, e.members) || g.offset != e.offset || g.size != e.size || g.log != 3 ||
			!reflect.DeepEqual(g.sel, e.sel) {
			t.Errorf("entry %d: %+v, want %+v", i, g, e)
		}
	}
	if g := back[0].sel.Blocks[1]; !reflect.DeepEqual(g.Stride, []uint64{1, 1}) || !reflect.DeepEqual(g.Block, []uint64{1, 1}) {
		t.Errorf("nil stride and block not normalized to ones: %+v", g)
	}
	// Cut at a record boundary the stream is a valid shorter one; anywhere else, corrupt.
	bounds := map[int]int{entries[0].encodedSize(): 1, entries[0].encodedSize() + entries[1].encodedSize(): 2}
	for cut := 1; cut < len(b); cut++ {
		got, err := decodeEntries(b[:cut], 0)
		if n, ok := bounds[cut]; ok {
			if err != nil || len(got) != n {
				t.Errorf("cut at boundary %d: %d entries, %v", cut, len(got), err)
			}
		} else if !errors.Is(err, errIndex) {
			t.Errorf("truncation at %d: %v, want a corrupt-index error", cut, err)
		}
	}
	bad := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(bad, 3)
	if _, err := decodeEntries(bad, 0); !errors.Is(err, errIndex) {
		t.Errorf("record length 3: %v", err)
	}
	mixed := &logEntry{path: "/m", sel: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{0}, []uint64{1}), plan.Block([]uint64{0, 0}, []uint64{1, 1})}}}
	if err := mixed.checkEncodable(); err == nil {
		t.Error("hyperslabs of mixed ranks accepted")
	}
}

// TestProjectionAndConversion: what a write stores of each VPIC memory/file type pair,
// and the numeric conversions HDF5 applies.
func TestProjectionAndConversion(t *testing.T) {
	particle := plan.Struct("particle", 12, plan.Field("x", 0, plan.F32), plan.Field("y", 4, plan.F32), plan.Field("id", 8, plan.I32))
	onlyX := plan.Struct("x", 4, plan.Field("x", 0, plan.F32))
	cases := []struct {
		file, mem plan.Type
		members   []string
		err       bool
	}{
		{plan.F32, plan.F32, nil, false},
		{plan.F32, plan.F64, nil, false},
		{particle, particle, nil, false},
		{particle, onlyX, []string{"x"}, false},
		{onlyX, particle, nil, false}, // every member of the file type: whole elements
		{particle, plan.F32, nil, true},
		{particle, plan.Struct("z", 4, plan.Field("z", 0, plan.F32)), nil, true},
	}
	for _, c := range cases {
		m, err := projection(c.file, c.mem)
		if (err != nil) != c.err || !reflect.DeepEqual(m, c.members) {
			t.Errorf("projection(%s, %s) = %v, %v; want %v, error %v", c.file, c.mem, m, err, c.members, c.err)
		}
	}
	// A CI write stores x only; reading it into the particle keeps y and id untouched.
	src, sz, err := packed(particle, []string{"x"})
	if err != nil || sz != 4 || len(src) != 1 {
		t.Fatalf("packed: %v %d %v", src, sz, err)
	}
	conv, err := newConverter(src, sz, leavesOf(particle), 12)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 24)
	for i := range buf {
		buf[i] = 0xAA
	}
	xs := make([]byte, 8)
	binary.NativeEndian.PutUint32(xs, math.Float32bits(1.5))
	binary.NativeEndian.PutUint32(xs[4:], math.Float32bits(-2))
	conv.run(buf, xs, 2)
	if got := math.Float32frombits(binary.NativeEndian.Uint32(buf[12:])); got != -2 || buf[4] != 0xAA || buf[23] != 0xAA {
		t.Errorf("partial conversion: %v", buf)
	}
	// fillFields zeroes what the file type has (x and y of a {x,y,w} memory type), not w.
	mem := plan.Struct("m", 12, plan.Field("x", 0, plan.F32), plan.Field("w", 4, plan.F32), plan.Field("y", 8, plan.F32))
	fill := make([]byte, 24)
	for i := range fill {
		fill[i] = 0xAA
	}
	fillFields(fill, mem, particle, 2)
	if fill[0] != 0 || fill[4] != 0xAA || fill[8] != 0 || fill[16] != 0xAA || fill[23] != 0 {
		t.Errorf("fillFields: %v", fill)
	}

	num := func(c plan.Type, v float64) []byte {
		b := make([]byte, c.Size)
		convertAtomic(b, c, f64(v), plan.F64)
		return b
	}
	for _, c := range []struct {
		t    plan.Type
		in   float64
		want []byte
	}{
		{plan.I32, -3.9, le32(uint32(0xFFFFFFFD))}, // truncation toward zero: -3
		{plan.I32, 1e12, le32(math.MaxInt32)},
		{plan.U8, 300, []byte{255}},
		{plan.U8, -5, []byte{0}},
		{plan.I8, -5.5, []byte{0xFB}}, // -5
		{plan.I8, 300, []byte{127}},
		{plan.I8, -300, []byte{0x80}},
		{plan.U32, 7.99, le32(7)},
		{plan.U64, -1, make([]byte, 8)},
		{plan.F32, 0.5, le32(math.Float32bits(0.5))},
	} {
		if got := num(c.t, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("f64 %v -> %s = %v, want %v", c.in, c.t, got, c.want)
		}
	}
	out := make([]byte, 1)
	convertAtomic(out, plan.U8, le32(uint32(0xFFFFFFFF)), plan.I32) // -1 clips to 0
	if out[0] != 0 {
		t.Errorf("i32 -1 -> u8 = %d", out[0])
	}
	convertAtomic(out, plan.I8, le32(uint32(0xFFFFFFFF)), plan.I32) // -1 stays -1
	if int8(out[0]) != -1 {
		t.Errorf("i32 -1 -> i8 = %d", int8(out[0]))
	}
	wide := make([]byte, 4)
	convertAtomic(wide, plan.I32, []byte{0xF0}, plan.I8) // i8 -16 widens signed
	if int32(binary.NativeEndian.Uint32(wide)) != -16 {
		t.Errorf("i8 -16 -> i32 = %d", int32(binary.NativeEndian.Uint32(wide)))
	}
	i64 := make([]byte, 8)
	convertAtomic(i64, plan.I64, le64(math.MaxUint64), plan.U64)
	if int64(binary.NativeEndian.Uint64(i64)) != math.MaxInt64 {
		t.Errorf("u64 max -> i64 = %d", int64(binary.NativeEndian.Uint64(i64)))
	}
	s := make([]byte, 4)
	convertAtomic(s, plan.Str(4), []byte("ab\x00\x00\x00\x00"), plan.Str(6))
	if string(s) != "ab\x00\x00" {
		t.Errorf("str(6) -> str(4) = %q", s)
	}
	if _, err := newConverter(leavesOf(plan.Str(4)), 4, leavesOf(plan.F32), 4); err == nil {
		t.Error("string to float conversion accepted")
	}
}

func f64(v float64) []byte { return le64(math.Float64bits(v)) }
func le32(v uint32) []byte { return binary.NativeEndian.AppendUint32(nil, v) }
func le64(v uint64) []byte { return binary.NativeEndian.AppendUint64(nil, v) }

// TestReadPartialMembers assembles reads from pending requests only (no HDF5): whole
// particles, then later writes of one member each over parts of them (h5bench's
// CONTIG-memory to INTERLEAVED-file writes), then a conversion to f64; each member comes
// from the latest request that wrote it, and unwritten elements read as zeros.
func TestReadPartialMembers(t *testing.T) {
	particle := plan.Struct("p", 8, plan.Field("x", 0, plan.F32), plan.Field("id", 4, plan.I32))
	shape := []uint64{6}
	s := newLogStore("mem", 0, 0, 0)
	s.dsets["/p"] = &plan.DatasetSpec{Type: particle, Shape: shape}
	var pending []byte
	var pend []*logEntry
	blk := func(start, n uint64) plan.Selection {
		return plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{start}, []uint64{n})}}
	}
	add := func(sel plan.Selection, members []string, data []byte) {
		pend = append(pend, &logEntry{path: "/p", members: members, sel: plan.Selection.Explicit(sel), log: -1, offset: int64(len(pending)), size: int64(len(data))})
		pending = append(pending, data...)
	}
	var whole, xs, ids []byte
	for i := 0; i < 4; i++ { // elements 0..3: x = i, id = 10+i
		whole = append(whole, le32(math.Float32bits(float32(i)))...)
		whole = append(whole, le32(uint32(10+i))...)
	}
	add(blk(0, 4), nil, whole)
	for i := 0; i < 2; i++ { // elements 2..3: x = 100+i
		xs = append(xs, le32(math.Float32bits(float32(100+i)))...)
	}
	add(blk(2, 2), []string{"x"}, xs)
	for i := 0; i < 3; i++ { // elements 3..5: id = 50+i
		ids = append(ids, le32(uint32(50+i))...)
	}
	add(blk(3, 3), []string{"id"}, ids)

	buf := make([]byte, 6*8)
	for i := range buf {
		buf[i] = 0xEE
	}
	found, err := s.read("/p", &plan.Transfer{MemType: particle, MemShape: []uint64{6}, FileType: particle, FileShape: shape, Selection: plan.All(shape)}, buf, pend, pending)
	if err != nil || !found {
		t.Fatalf("read: found %v, %v", found, err)
	}
	wantX := []float32{0, 1, 100, 101, 0, 0}
	wantID := []int32{10, 11, 12, 50, 51, 52}
	for i := 0; i < 6; i++ {
		x := math.Float32frombits(binary.NativeEndian.Uint32(buf[8*i:]))
		id := int32(binary.NativeEndian.Uint32(buf[8*i+4:]))
		if x != wantX[i] || id != wantID[i] {
			t.Errorf("element %d: x=%v id=%v, want %v %v", i, x, id, wantX[i], wantID[i])
		}
	}
	// Member x alone, converted to f64, of elements 1, 3 and 5.
	xOnly := plan.Struct("x", 8, plan.Field("x", 0, plan.F64))
	sel := plan.Selection{Blocks: []plan.Hyperslab{{Start: []uint64{1}, Stride: []uint64{2}, Count: []uint64{3}, Block: []uint64{1}}}}
	out := make([]byte, 3*8)
	if _, err := s.read("/p", &plan.Transfer{MemType: xOnly, MemShape: []uint64{3}, FileType: particle, FileShape: shape, Selection: sel}, out, pend, pending); err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{1, 101, 0} {
		if got := math.Float64frombits(binary.NativeEndian.Uint64(out[8*i:])); got != want {
			t.Errorf("x[%d] as f64 = %v, want %v", 1+2*i, got, want)
		}
	}
	if _, err := s.read("/p", &plan.Transfer{MemType: plan.F32, MemShape: []uint64{6}, FileShape: shape, Selection: plan.All(shape)}, buf, pend, pending); err == nil {
		t.Error("reading a compound dataset into f32 was accepted")
	}
}

// TestCoalesce: random unions keep their elements; E3SM-like requests (one block per
// level and column run) become one block per column run.
func TestCoalesce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 600; iter++ {
		shape := []uint64{1 + r.Uint64N(5), 1 + r.Uint64N(6), 1 + r.Uint64N(9)}
		switch iter % 3 {
		case 1: // ranks 1 and 5: the other merge paths
			shape = shape[2:]
		case 2:
			shape = append(shape, 1+r.Uint64N(3), 1+r.Uint64N(4))
		}
		sel := plan.Selection.Explicit(randomSelection(r, shape))
		got := h5layout.Coalesce(sel)
		if !reflect.DeepEqual(got.Runs(shape), sel.Runs(shape)) {
			t.Fatalf("iter %d: h5layout.Coalesce(%+v) = %+v selects other elements", iter, sel, got)
		}
		if len(got.Blocks) == 0 {
			t.Fatalf("iter %d: empty result", iter)
		}
	}
	shape := []uint64{3, 72, 866}
	var sel plan.Selection
	for rec := uint64(0); rec < 3; rec++ {
		for lev := uint64(0); lev < 72; lev++ {
			for _, run := range [][2]uint64{{5, 10}, {100, 3}, {400, 60}} {
				sel.Blocks = append(sel.Blocks, plan.Block([]uint64{rec, lev, run[0]}, []uint64{1, 1, run[1]}))
			}
		}
	}
	got := h5layout.Coalesce(sel)
	if len(got.Blocks) != 3 || !reflect.DeepEqual(got.Runs(shape), sel.Runs(shape)) {
		t.Errorf("E3SM-like union: %d blocks %+v, want 3 (one per column run)", len(got.Blocks), got.Blocks)
	}
	if c := h5layout.Coalesce(plan.All(nil)); len(c.Blocks) != 1 {
		t.Errorf("scalar: %+v", c)
	}
}

// TestStreamSharing: entries that share a selection's storage (E3SM's variables of one
// decomposition) encode it once, coalesced, and refer back to it; decoding restores the
// same elements, with one runs cache.
func TestStreamSharing(t *testing.T) {
	shape := []uint64{4, 30}
	var rows plan.Selection
	for r := uint64(0); r < 4; r++ {
		rows.Blocks = append(rows.Blocks, plan.Block([]uint64{r, 2}, []uint64{1, 5}))
	}
	strided := plan.Selection{Blocks: []plan.Hyperslab{{Start: []uint64{0, 0}, Stride: []uint64{2, 10}, Count: []uint64{2, 3}, Block: []uint64{1, 4}}}}
	entries := []*logEntry{
		{path: "/a", sel: rows, size: 80}, {path: "/b", sel: strided, offset: 80, size: 96}, {path: "/c", sel: rows, offset: 176, size: 80},
	}
	stream := prepareStream(entries, nil)
	if stream[0].ref != 0 || stream[1].ref != 0 || stream[2].ref != 2 {
		t.Fatalf("references %d %d %d, want 0 0 2", stream[0].ref, stream[1].ref, stream[2].ref)
	}
	if len(stream[0].sel.Blocks) != 1 || entries[0].sel.Blocks[0].Block[0] != 1 {
		t.Errorf("first selection not coalesced (%d blocks) or the plan's modified", len(stream[0].sel.Blocks))
	}
	var b []byte
	for _, e := range stream {
		b = e.encode(b)
	}
	if plain := entries[0].encodedSize() + entries[1].encodedSize() + entries[2].encodedSize(); len(b) >= plain {
		t.Errorf("shared stream of %d bytes, not smaller than %d", len(b), plain)
	}
	back, err := decodeEntries(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range back {
		if !reflect.DeepEqual(e.sel.Runs(shape), entries[i].sel.Runs(shape)) || e.offset != entries[i].offset || e.path != entries[i].path {
			t.Errorf("entry %d decoded as %+v", i, e)
		}
	}
	back[0].entryRuns(shape)
	if back[2].cache != back[0].cache || back[2].cache.runs == nil {
		t.Error("the referring entry does not share the runs cache")
	}
	// A reference past the stream's start is corrupt.
	bad := (&logEntry{path: "/x", sel: rows, ref: 1}).encode(nil)
	if _, err := decodeEntries(bad, 0); !errors.Is(err, errIndex) {
		t.Errorf("dangling reference: %v", err)
	}
}

// BenchmarkCoalesceE3SM: one E3SM-like decomposition of a rank (72 levels of 435 column
// runs, one block each).
func BenchmarkCoalesceE3SM(b *testing.B) {
	var sel plan.Selection
	for lev := uint64(0); lev < 72; lev++ {
		for run := uint64(0); run < 435; run++ {
			sel.Blocks = append(sel.Blocks, plan.Block([]uint64{0, lev, run * 20}, []uint64{1, 1, 7}))
		}
	}
	sel = plan.Selection.Explicit(sel)
	for b.Loop() {
		h5layout.Coalesce(sel)
	}
}
