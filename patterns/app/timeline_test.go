package app

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// opsOf returns one rank's write-phase operations, in order, over every plan.
func opsOf(t *testing.T, src string, rank, size int) []plan.Op {
	t.Helper()
	p, err := FromDescription(mustParse(t, src))
	if err != nil {
		t.Fatal(err)
	}
	var ops []plan.Op
	for _, pl := range all(t, p, patterns.PhaseWrite, patterns.Env{Rank: rank, Size: size, Path: "/o/r.h5"}) {
		ops = append(ops, pl.Ops...)
	}
	return ops
}

// find returns the operations of a kind on a path.
func find(ops []plan.Op, kind plan.OpKind, path string) []plan.Op {
	var out []plan.Op
	for _, op := range ops {
		if op.Kind == kind && op.Path == path {
			out = append(out, op)
		}
	}
	return out
}

// Two files one after the other (E3SM's h0 then h1): when picks the steps, a
// start_empty series is created with 0 records and extended before every record.
const filesInTurn = `
params: {n: 4, first: 1, records: 2}
steps: first + records
files:
  a:
    name: a.h5
    datasets: {x: {type: f64, shape: [n * nranks]}}
  b:
    name: b.h5
    datasets:
      r: {type: f64, shape: [1, n * nranks], extend: 0, start_empty: true, decompose: {grid: [1, 0]}}
      fixed: {type: f64, shape: [n * nranks]}
timeline:
  - write: a
    when: step < first
  - write: b
    when: step >= first
    datasets: [r]
  - write: b
    when: step == first
    datasets: [fixed]
`

// TestWhenAndStartEmpty: a runs at step 0 alone and is closed there (the next action
// naming it never fires), b at steps 1 and 2 with its fixed dataset at step 1 only; r is
// created [0, 8] and extended to 1 then 2 records, each write selecting its record.
func TestWhenAndStartEmpty(t *testing.T) {
	ops := opsOf(t, filesInTurn, 1, 2)
	if w := find(ops, plan.Write, "/x"); len(w) != 1 || w[0].Step != 0 {
		t.Errorf("a's x written %v, want once at step 0", w)
	}
	closeA := slices.IndexFunc(ops, func(op plan.Op) bool { return op.Kind == plan.CloseFile && op.Path == "/o/a.h5" })
	createB := slices.IndexFunc(ops, func(op plan.Op) bool { return op.Kind == plan.CreateFile && op.Path == "/o/b.h5" })
	if closeA < 0 || createB < 0 || closeA > createB {
		t.Errorf("a closed at op %d, b created at op %d: a should close first", closeA, createB)
	}
	if w := find(ops, plan.Write, "/fixed"); len(w) != 1 || w[0].Step != 1 {
		t.Errorf("fixed written %v, want once at step 1", w)
	}
	c := find(ops, plan.CreateDataset, "/r")
	if len(c) != 1 || !slices.Equal(c[0].Dataset.Shape, []uint64{0, 8}) || c[0].Dataset.MaxShape[0] != plan.MaxUnlimited || !slices.Equal(c[0].Dataset.Chunk, []uint64{1, 8}) {
		t.Fatalf("r created %+v, want shape [0 8], unlimited, chunk [1 8]", c)
	}
	ext, w := find(ops, plan.ExtendDataset, "/r"), find(ops, plan.Write, "/r")
	if len(ext) != 2 || len(w) != 2 {
		t.Fatalf("r extended %d times and written %d times, want 2 and 2", len(ext), len(w))
	}
	for k := range 2 {
		if !slices.Equal(ext[k].Dataset.Shape, []uint64{uint64(k + 1), 8}) || ext[k].Step != k+1 {
			t.Errorf("extension %d: %v at step %d, want [%d 8] at step %d", k, ext[k].Dataset.Shape, ext[k].Step, k+1, k+1)
		}
		if h := w[k].Transfer.Selection.Blocks[0]; !slices.Equal(h.Start, []uint64{uint64(k), 4}) || !slices.Equal(h.Block, []uint64{1, 4}) {
			t.Errorf("record %d of rank 1: %+v, want start [%d 4] block [1 4]", k, h, k)
		}
	}
	// first=0: a never runs, so it is never created.
	ops = opsOf(t, strings.Replace(filesInTurn, "first: 1", "first: 0", 1), 0, 2)
	if c := find(ops, plan.CreateFile, "/o/a.h5"); len(c) != 0 {
		t.Errorf("a created %v with first=0", c)
	}
	if w := find(ops, plan.Write, "/r"); len(w) != 2 || w[0].Step != 0 {
		t.Errorf("r written %v with first=0, want at steps 0 and 1", w)
	}
}

// One file per rank and step over a fixed number of files: steps use nranks, when skips
// the ranks past the last file; those files are serial on one rank too.
const spreadFiles = `
params: {files: 4}
steps: cdiv(files, nranks)
files:
  in:
    name: in_${step * nranks + rank}.h5
    ranks: 1
    datasets: {x: {type: i32, shape: [8]}}
timeline:
  - write: in
    when: step * nranks + rank < files
`

// TestStepsPerRankCount: the steps follow the rank count (4 on 1 rank, 2 on 3), the rank
// past the last file makes no call at its last step, and on 1 rank the files are serial.
func TestStepsPerRankCount(t *testing.T) {
	p, err := FromDescription(mustParse(t, spreadFiles))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ ranks, steps int }{{1, 4}, {2, 2}, {3, 2}, {4, 1}} {
		if got := patterns.StepsOf(p, patterns.PhaseWrite, c.ranks); got != c.steps {
			t.Errorf("%d ranks: %d steps, want %d", c.ranks, got, c.steps)
		}
	}
	var files []string
	for _, op := range opsOf(t, spreadFiles, 2, 3) {
		if op.Kind == plan.CreateFile {
			files = append(files, op.Path)
		}
	}
	if !slices.Equal(files, []string{"/o/in_2.h5"}) {
		t.Errorf("rank 2 of 3 creates %v, want [/o/in_2.h5] (file 5 is past the last)", files)
	}
	ops := opsOf(t, spreadFiles, 0, 1)
	if c := find(ops, plan.CreateFile, "/o/in_3.h5"); len(c) != 1 || c[0].File.Parallel || c[0].Step != 3 {
		t.Errorf("rank 0 of 1 creates in_3.h5 %+v, want once at step 3, serial", c)
	}
}

// rank0Writes: rank 0 writes s (a scalar) and v alone, independently, and v again
// collectively.
const rank0Writes = `
files:
  o:
    name: o.h5
    datasets:
      s: {type: f64, shape: [], decompose: rank0}
      v: {type: i32, shape: [3], decompose: rank0}
timeline:
  - write: o
    collective: false
  - write: o
    datasets: [v]
`

// TestIndependentRank0: an independent write of nothing is no call (rank 1 makes none),
// a collective one is a call with an empty selection; a rank0 scalar's write selects its
// element.
func TestIndependentRank0(t *testing.T) {
	ops := opsOf(t, rank0Writes, 1, 2)
	if w := find(ops, plan.Write, "/s"); len(w) != 0 {
		t.Errorf("rank 1 writes s: %+v", w)
	}
	if w := find(ops, plan.Write, "/v"); len(w) != 1 || !w[0].Collective || !w[0].Transfer.Selection.IsNone() {
		t.Errorf("rank 1 writes v %+v, want one collective write of nothing", w)
	}
	ops = opsOf(t, rank0Writes, 0, 2)
	s := find(ops, plan.Write, "/s")
	if len(s) != 1 || s[0].Collective || len(s[0].Transfer.Selection.Blocks) != 1 || s[0].Transfer.MemShape != nil {
		t.Errorf("rank 0 writes s %+v, want one independent write of the scalar element", s)
	}
	if w := find(ops, plan.Write, "/v"); len(w) != 2 || w[0].Collective || !w[1].Collective {
		t.Errorf("rank 0 writes v %+v, want an independent then a collective write", w)
	}
}

// TestMapOrderSorted: order: sorted sorts each rank's requests and merges touching ones
// within a row, as E3SM-IO's read_decomp did: the same elements in fewer blocks.
func TestMapOrderSorted(t *testing.T) {
	_, mapFile := registerTestMap(t)
	blocks := func(order string, rank int) [][2]uint64 {
		src := strings.Replace(oneDataset, "DS", "{type: f64, shape: [2, 6], decompose: {kind: map, file: "+mapFile+", decomp: 1, order: "+order+"}}", 1)
		var out [][2]uint64
		for _, h := range find(opsOf(t, src, rank, 2), plan.Write, "/x")[0].Transfer.Selection.Blocks {
			out = append(out, [2]uint64{h.Start[0]*6 + h.Start[1], h.Block[1]})
		}
		return out
	}
	for _, c := range []struct {
		order string
		rank  int
		want  [][2]uint64 // offset, length
	}{
		{"map", 0, [][2]uint64{{0, 2}, {9, 2}, {2, 2}}},
		{"sorted", 0, [][2]uint64{{0, 4}, {9, 2}}},
		{"sorted", 1, [][2]uint64{{4, 2}, {6, 3}, {11, 1}}}, // 6 starts a row: not merged with 4..5
	} {
		if got := blocks(c.order, c.rank); !slices.Equal(got, c.want) {
			t.Errorf("order %s, rank %d: %v, want %v", c.order, c.rank, got, c.want)
		}
	}
}

// TestTimelineErrors: start_empty needs extend, when must be a condition, and steps must
// stay positive on every rank count; each error names the line, key and value.
func TestTimelineErrors(t *testing.T) {
	for _, c := range []struct {
		from, to string
		size     int
		want     []string
	}{
		{"extend: 0, start_empty: true", "start_empty: true", 2, []string{"d.yaml:11:", "start_empty", "start_empty without extend", "extend: 0 with start_empty: true"}},
		{"when: step >= first", "when: step + first", 2, []string{"d.yaml:17:11", "timeline[1].when", "not a boolean"}},
		{"steps: first + records", "steps: 4 - nranks", 4, []string{"steps", "0 steps on 4 ranks", "steps >= 1"}},
	} {
		src := strings.Replace(filesInTurn, c.from, c.to, 1)
		err := planErr(t, src, c.size)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want it to name %q", c.to, err, w)
			}
		}
	}
}

// TestWideIntegerAttributes: 64-bit integer literals are written exactly (beyond a
// float64's 53 bits), as E3SM's -DIM_time holds 2^64-1.
func TestWideIntegerAttributes(t *testing.T) {
	src := `
files:
  o:
    name: o.h5
    attributes:
      u: {type: u64, value: 18446744073709551615}
      i: {type: i64, value: -9223372036854775807}
    datasets: {x: {type: f64, shape: [2]}}
timeline: [{write: o}]
`
	got := map[string]uint64{}
	for _, op := range opsOf(t, src, 0, 1) {
		if op.Kind == plan.WriteAttribute {
			got[op.Attribute.Name] = binary.NativeEndian.Uint64(op.Attribute.Value)
		}
	}
	if got["u"] != math.MaxUint64 || int64(got["i"]) != -math.MaxInt64 {
		t.Errorf("u = %d, i = %d; want %d and %d", got["u"], int64(got["i"]), uint64(math.MaxUint64), -math.MaxInt64)
	}
}

// TestWholeSelect: rank0 and replicated pass H5S_ALL by default and select the whole
// extent as one hyperslab with select: hyperslab (as E3SM-IO's put_vara selects its
// variables); select on another kind is an error naming the key.
func TestWholeSelect(t *testing.T) {
	src := func(dc string) string {
		return strings.Replace(oneDataset, "DS", "{type: f64, shape: [2, 6], decompose: "+dc+"}", 1)
	}
	for _, c := range []struct {
		dc    string
		hyper bool
	}{{"rank0", false}, {"{kind: rank0, select: hyperslab}", true}, {"{kind: replicated, select: hyperslab}", true}, {"{kind: replicated, select: all}", false}} {
		w := find(opsOf(t, src(c.dc), 0, 2), plan.Write, "/x")
		if len(w) != 1 {
			t.Fatalf("%s: writes %+v", c.dc, w)
		}
		if got := w[0].Transfer.Selection; (got.Kind == plan.Whole) == c.hyper || len(got.Blocks) != 1 || !slices.Equal(got.Blocks[0].Block, []uint64{2, 6}) {
			t.Errorf("%s: selection %+v, want the whole extent, as a hyperslab %v", c.dc, got, c.hyper)
		}
	}
	err := planErr(t, src("{kind: block, select: hyperslab}"), 2)
	for _, w := range []string{"decompose.select", "hyperslab", "select applies to rank0 and replicated"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("select on a block: %v, want it to name %q", err, w)
		}
	}
}

// TestSeriesStayOpen: a series is opened once, stays open between its writes and closes
// with its file, in that file: with two files open in turn, the close of the one not
// current selects it first.
func TestSeriesStayOpen(t *testing.T) {
	src := `
steps: 3
files:
  a:
    name: a.h5
    datasets: {x: {type: f64, shape: [1, 4], extend: 0, start_empty: true, decompose: {kind: block, grid: [1, 0]}}}
  b:
    name: b.h5
    datasets: {y: {type: f64, shape: [4]}}
timeline: [{write: a}, {write: b}]
`
	ops := opsOf(t, src, 0, 2)
	if n := len(find(ops, plan.CreateDataset, "/x")) + len(find(ops, plan.OpenDataset, "/x")); n != 1 {
		t.Errorf("x created or opened %d times, want once", n)
	}
	if n := len(find(ops, plan.OpenDataset, "/y")); n != 2 {
		t.Errorf("y reopened %d times, want at steps 1 and 2", n)
	}
	current := ""
	for _, op := range ops {
		switch op.Kind {
		case plan.CreateFile, plan.OpenFile, plan.SelectFile:
			current = op.Path
		case plan.CloseDataset:
			if op.Path == "/x" && !strings.HasSuffix(current, "a.h5") {
				t.Errorf("x closed while %s is current", current)
			}
		}
	}
	if len(find(ops, plan.CloseDataset, "/x")) != 1 {
		t.Errorf("x closed %d times, want once, with its file", len(find(ops, plan.CloseDataset, "/x")))
	}
}
