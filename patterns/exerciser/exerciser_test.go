package exerciser

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

// kit builds the pattern from "KEY=VALUE" pairs.
var kit = plantest.For[*Pattern](Factory)

// TestConfigErrors: lists of the wrong length or with bad numbers, too many dimensions and
// element counts beyond the exerciser's int are errors naming the key and the value.
func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		want []string
	}{
		{[]string{"numdims=2", "minels=8"}, []string{`"minels"`, `"8"`, "has 1 numbers, numdims=2 needs 2"}},
		{[]string{"numdims=2", "bufmult=2 x"}, []string{`"bufmult"`, `"2 x"`, `"x" is not an integer >= 1`}},
		{[]string{"numdims=2", "dimranks=0 4"}, []string{`"dimranks"`, `"0 4"`, `"0" is not an integer >= 1`}},
		{[]string{"numdims=1", "fileblocks=1 2"}, []string{`"fileblocks"`, `"1 2"`, "needs 1"}},
		{[]string{"numdims=1", "filestride=-1"}, []string{`"filestrides"`, `"-1"`, "not an integer >= 0"}},
		{[]string{"numdims=5"}, []string{`"numdims"`, `"5"`}},
		{[]string{"numdims=1", "minels=65536", "nsizes=3", "bufmult=256"}, []string{`"nsizes"`, `"3"`, "size 2 holds 4294967296 elements"}},
		{[]string{"memblock=-2"}, []string{`"memblock"`, `"-2"`}},
	} {
		_, _, err := kit.Build(c.kv...)
		plantest.CheckOptionsError(t, c.kv, err, c.want...)
	}
}

// TestGrid: dimranks whose product is the rank count lay the ranks out row-major; any
// other product (and no dimranks) splits dimension 0 over all ranks, as the exerciser
// does after its warning.
func TestGrid(t *testing.T) {
	p := kit.Must(t, "numdims=2", "dimranks=8 4")
	if g := p.C.Grid(32); g.Fallback || !reflect.DeepEqual(g.DimRanks, []uint64{8, 4}) || !reflect.DeepEqual(g.location(13), []uint64{3, 1}) {
		t.Errorf("32 ranks: %+v, rank 13 at %v", g, g.location(13))
	}
	if g := p.C.Grid(4); !g.Fallback || g.Configured != 32 || !reflect.DeepEqual(g.DimRanks, []uint64{4, 1}) {
		t.Errorf("4 ranks: %+v", g)
	}
	if g := kit.Must(t, "numdims=3").C.Grid(1); g.Fallback || !reflect.DeepEqual(g.DimRanks, []uint64{1, 1, 1}) {
		t.Errorf("1 rank, no dimranks: %+v", g)
	}
}

// TestLayout: the sizes grow by bufmult per dimension; a file block that does not divide a
// dimension falls back to one block of it; the memory block falls back to 1 at a size it
// does not divide and stays 1 afterwards (the exerciser overwrites its settings), and the
// memory stride names the dataset.
func TestLayout(t *testing.T) {
	p := kit.Must(t, "numdims=2", "minels=3 4", "nsizes=3", "bufmult=2 1", "fileblocks=2 2", "filestrides=1 4", "memblock=8", "memstride=12", "dimranks=2 1")
	type want struct {
		size, block, stride, count, shape []uint64
		memBlock, memStride, memEls       uint64
	}
	for s, w := range []want{
		// 3x4: 3 % 2 != 0 -> one block of 3 in dim 0; 12 elements % 8 != 0 -> memory block 1.
		{[]uint64{3, 4}, []uint64{3, 2}, []uint64{3, 4}, []uint64{1, 2}, []uint64{6, 8}, 1, 1, 12},
		// 6x4: blocks of 2 (stride raised to 2), memory block stays 1.
		{[]uint64{6, 4}, []uint64{2, 2}, []uint64{2, 4}, []uint64{3, 2}, []uint64{12, 8}, 1, 1, 24},
		{[]uint64{12, 4}, []uint64{2, 2}, []uint64{2, 4}, []uint64{6, 2}, []uint64{24, 8}, 1, 1, 48},
	} {
		l, err := p.C.Layout(s, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual([]uint64(l.Size), w.size) || !reflect.DeepEqual(l.Block, w.block) || !reflect.DeepEqual(l.Stride, w.stride) ||
			!reflect.DeepEqual(l.Count, w.count) || !reflect.DeepEqual(l.Shape, w.shape) || l.MemBlock != w.memBlock || l.MemStride != w.memStride || l.MemElements != w.memEls {
			t.Errorf("size %d: %+v, want %+v", s, l, w)
		}
		if want := []uint64{w.shape[0] / 2, 0}; !reflect.DeepEqual(l.WriteAt, want) {
			t.Errorf("size %d: rank 1 writes at %v, want %v", s, l.WriteAt, want)
		}
	}
	// A dividing memory block keeps its stride, and the dataset is named by stride × count.
	q := kit.Must(t, "numdims=1", "minels=8", "memblock=4", "memstride=6")
	l, _ := q.C.Layout(0, 0, 1)
	if l.MemBlock != 4 || l.MemStride != 6 || l.MemCount != 2 || l.MemElements != 12 || DatasetName(3, l.MemElements) != "/Data/hdf5DataSet1-iter3-size12" {
		t.Errorf("memory %+v", l)
	}
	if _, err := kit.Must(t, "numdims=1", "rshift=3").C.Layout(0, 3, 4); err == nil || !strings.Contains(err.Error(), `"rshift"`) {
		t.Errorf("rshift 3 of 4 ranks: %v, want an error naming rshift", err)
	}
}

// TestStepPlan: one iteration's calls in the exerciser's order, with its properties.
func TestStepPlan(t *testing.T) {
	p := kit.Must(t, "numdims=1", "minels=4", "nsizes=2", "iterations=3", "addattr=true", "derivedtype=true", "usechunked=true", "indepio=true", "metacoll=true", "maxcheck=40")
	if p.Steps() != 6 {
		t.Fatalf("steps %d", p.Steps())
	}
	env := patterns.Env{Rank: 1, Size: 2, Path: "f.h5"}
	pl, err := p.Step(patterns.PhaseWrite, 4, env) // size 1 (8 elements), iteration 1
	if err != nil {
		t.Fatal(err)
	}
	if err := pl.Validate(); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, op := range pl.Ops {
		if op.Kind != plan.WriteAttribute {
			kinds = append(kinds, op.Kind.String()+" "+op.Path)
		}
	}
	ds, dd := "/Data/hdf5DataSet1-iter1-size8", "/Data/derivedData/simulation parameters"
	want := []string{"create-file f.h5", "create-group /Data", "create-dataset " + ds, "write " + ds, "close-dataset " + ds,
		"close-group /Data", "flush-file f.h5", "close-file f.h5", "open-file f.h5", "open-group /Data", "open-dataset " + ds,
		"read " + ds, "close-dataset " + ds, "create-group /Data/derivedData", "create-dataset " + dd, "write " + dd,
		"close-dataset " + dd, "close-group /Data/derivedData", "close-group /Data", "flush-file f.h5", "close-file f.h5"}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("calls\n%s\nwant\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}
	if n := len(pl.Ops) - len(kinds); n != NumAttributes || pl.Ops[2].Attribute.Name != "Attribute 0 Name" {
		t.Errorf("%d attributes, first %+v", n, pl.Ops[2].Attribute)
	}
	byKind := map[string]plan.Op{}
	for _, op := range pl.Ops {
		byKind[op.Kind.String()+" "+op.Path] = op
	}
	c, w, r := byKind["create-dataset "+ds], byKind["write "+ds], byKind["read "+ds]
	if !reflect.DeepEqual(c.Dataset.Shape, []uint64{16}) || !reflect.DeepEqual(c.Dataset.Chunk, []uint64{8}) || !c.Dataset.FillNever {
		t.Errorf("dataset %+v", c.Dataset)
	}
	if w.Collective || r.Collective || !r.Transfer.Unchecked || w.Transfer.Selection.Blocks[0].Start[0] != 8 {
		t.Errorf("write %+v read %+v: independent, read unchecked above maxcheck (64 > 40 bytes), rank 1 at 8", w, r)
	}
	if f := byKind["create-file f.h5"].File; !f.Parallel || !f.FlushLocal || f.CollMetadataWrite || !f.CollMetadataOps {
		t.Errorf("create after the first iteration: %+v", f)
	}
	first, _ := p.Step(patterns.PhaseWrite, 0, env)
	if f := first.Ops[0].File; !f.CollMetadataWrite || f.CollMetadataOps || first.Ops[len(first.Ops)-1].Kind != plan.CloseFile {
		t.Errorf("first create: %+v", f)
	}
	if _, err := p.Step(patterns.PhaseRead, 0, env); err == nil {
		t.Error("read phase planned")
	}
	if got := kit.Must(t, "keepfile=true").Cleanup(env); got != nil {
		t.Errorf("keepfile: removes %v", got)
	}
	if got := p.Cleanup(env); !reflect.DeepEqual(got, []string{"f.h5"}) {
		t.Errorf("cleanup %v", got)
	}
}

// TestMoments: the exerciser's statistics of a column.
func TestMoments(t *testing.T) {
	got := Moments([]float64{4, 1, 3, 2})
	want := []float64{1, 2.5, 4, 2.5, math.Sqrt(1.25)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Moments = %v, want %v", got, want)
	}
	if got := Moments([]float64{5, 1, 3}); got[1] != 3 || got[3] != 3 {
		t.Errorf("odd count: %v", got)
	}
}

// TestKernelReport: the exerciser's lines from given measurements, to the character.
func TestKernelReport(t *testing.T) {
	p := kit.Must(t, "numdims=1", "minels=4", "iterations=2", "dimranks=3", "addattr=true")
	step := func(w, r float64) patterns.StepTimes {
		return patterns.StepTimes{Ops: map[plan.OpKind]patterns.Timing{plan.Write: {Max: w}, plan.Read: {Max: r},
			plan.CreateDataset: {Max: 0.5}, plan.OpenDataset: {Max: 0.25}, plan.CloseFile: {Max: 1}}}
	}
	lines := p.KernelReport(patterns.PhaseTimes{Phase: patterns.PhaseWrite, Ranks: 2, Steps: []patterns.StepTimes{step(0.001, 0.002), step(0.003, 0.002)}})
	var text []string
	cells := map[string]float64{}
	for _, l := range lines {
		if l.Text != "" {
			text = append(text, l.Text)
		} else if l.Quiet {
			cells[l.Name] = l.Value
		}
	}
	want := []string{
		"WARNING!! - ndomains: 3 must be: 2. Only dividing dim-0",
		"WARNING: Bufsize is the size of the double-type dataset (The derived-type dataset is 8x larger!).",
		"useMetaDataCollectives: 0 addDerivedTypeDataset: 0 addAttributes: 1 useIndependentIO: 0 numDims: 1 useChunked: 0 rankShift: 0",
		Header,
		"FileSpace: Dim= 0 Block= 4 Stride= 4 Count= 1",
		"MemSpace:  Dim= 0 Block= 1 Stride= 1 Count= 4",
		// 32 bytes per rank on 2 ranks: 6.1e-5 MiB in 1 and 3 ms.
		"Min              32   0.001000      0.020345   0.002000      0.030518   0.750000   0.000000   0.000000   0.000000   1.000000   0.000000   0.000000",
		"Med              32   0.002000      0.040690   0.002000      0.030518   0.750000   0.000000   0.000000   0.000000   1.000000   0.000000   0.000000",
		"Max              32   0.003000      0.061035   0.002000      0.030518   0.750000   0.000000   0.000000   0.000000   1.000000   0.000000   0.000000",
		"Avg              32   0.002000      0.040690   0.002000      0.030518   0.750000   0.000000   0.000000   0.000000   1.000000   0.000000   0.000000",
		"Std              32   0.001000      0.020345   0.000000      0.000000   0.000000   0.000000   0.000000   0.000000   0.000000   0.000000   0.000000",
	}
	if !reflect.DeepEqual(text, want) {
		t.Errorf("report\n%s\nwant\n%s", strings.Join(text, "\n"), strings.Join(want, "\n"))
	}
	if len(cells) != 5*11 || cells["Max H5DWrite 32"] != 0.003 || cells["Avg Dataset 32"] != 0.75 {
		t.Errorf("%d cells: %v", len(cells), cells)
	}
	if p.KernelReport(patterns.PhaseTimes{Phase: patterns.PhaseRead}) != nil {
		t.Error("lines for a read phase")
	}
}
