package amrex

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

// The expected values in these tests are written from layouts.md section 2, independently
// of the package's own tables and encoders.

// exampleKeys is layouts.md's worked example: 2 ranks, ncells=16, max_grid_size=8, ncomp=2.
var exampleKeys = []string{"ncells=16", "max_grid_size=8", "nlevs=1", "ncomp=2", "nppc=1"}

// sampleKeys are h5bench's samples/sync-amrex.json settings.
var sampleKeys = []string{"ncells=64", "max_grid_size=8", "nlevs=1", "ncomp=6", "nppc=2",
	"nplotfile=2", "nparticlefile=2"}

// kit builds the pattern from "KEY=VALUE" pairs.
var kit = plantest.For[*Pattern](Factory)

const testDir = "/data/run"

func env(rank, size int) patterns.Env {
	return patterns.Env{Rank: rank, Size: size, Path: testDir}
}

func u(v ...uint64) []uint64 { return v }

// box builds a box from its six bounds.
func box(lo0, lo1, lo2, hi0, hi1, hi2 int) Box { return NewBox(lo0, lo1, lo2, hi0, hi1, hi2) }

// Little-endian encoders, independent of attrs.go.
func wantI32(v ...int32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

func wantI64(v ...int64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

func wantF64(v ...float64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

func wantStr(s string) []byte { return append([]byte(s), 0) }

func wantBoxes(boxes ...Box) []byte {
	var v []int32
	for _, b := range boxes {
		v = append(v, int32(b.Lo[0]), int32(b.Lo[1]), int32(b.Lo[2]), int32(b.Hi[0]), int32(b.Hi[1]), int32(b.Hi[2]))
	}
	return wantI32(v...)
}

// boxWant and centerWant are the compounds of layouts.md 2.1.
var (
	boxWant = plan.Struct("", 24,
		plan.Field("lo_i", 0, plan.I32), plan.Field("lo_j", 4, plan.I32), plan.Field("lo_k", 8, plan.I32),
		plan.Field("hi_i", 12, plan.I32), plan.Field("hi_j", 16, plan.I32), plan.Field("hi_k", 20, plan.I32))
	centerWant = plan.Struct("", 12,
		plan.Field("i", 0, plan.I32), plan.Field("j", 4, plan.I32), plan.Field("k", 8, plan.I32))
)

// attrWant is an expected attribute: scalar when shape is nil.
type attrWant struct {
	name  string
	typ   plan.Type
	shape []uint64
	value []byte
}

func sAttr(name, s string) attrWant { return attrWant{name, plan.Str(len(s) + 1), nil, wantStr(s)} }
func iAttr(name string, v ...int32) attrWant {
	return attrWant{name, plan.I32, u(uint64(len(v))), wantI32(v...)}
}
func lAttr(name string, v ...int64) attrWant {
	return attrWant{name, plan.I64, u(uint64(len(v))), wantI64(v...)}
}
func fAttr(name string, v ...float64) attrWant {
	return attrWant{name, plan.F64, u(uint64(len(v))), wantF64(v...)}
}

// checkAttr compares one attribute operation with its expectation.
func checkAttr(op plan.Op, objPath string, w attrWant) error {
	if op.Kind != plan.WriteAttribute || op.Path != objPath || op.Attribute == nil {
		return fmt.Errorf("got %s %s, want write-attribute %s @%s", op.Kind, op.Path, objPath, w.name)
	}
	a := op.Attribute
	switch {
	case a.Name != w.name:
		return fmt.Errorf("attribute %q, want %q", a.Name, w.name)
	case !a.Type.Equal(w.typ):
		return fmt.Errorf("@%s type %s, want %s", a.Name, a.Type, w.typ)
	case !reflect.DeepEqual(a.Shape, w.shape):
		return fmt.Errorf("@%s shape %v, want %v", a.Name, a.Shape, w.shape)
	case string(a.Value) != string(w.value):
		return fmt.Errorf("@%s value %x, want %x", a.Name, a.Value, w.value)
	case op.Collective:
		return fmt.Errorf("@%s written collectively; rank 0 writes the header alone", a.Name)
	}
	return nil
}

// stepPlan plans one step and fails the test on error.
func stepPlan(t *testing.T, p *Pattern, ph patterns.Phase, step, rank, size int) plan.Plan {
	t.Helper()
	pl, err := p.Step(ph, step, env(rank, size))
	if err != nil {
		t.Fatalf("%s step %d rank %d/%d: %v", ph, step, rank, size, err)
	}
	if err := plantest.CheckLifecycle(ph, []plan.Plan{pl}, plantest.Lifecycle{}); err != nil {
		t.Fatalf("%s step %d rank %d/%d: %v", ph, step, rank, size, err)
	}
	return pl
}

// transfers returns the plan's reads or writes of one dataset, in order.
func transfers(pl plan.Plan, kind plan.OpKind, dataset string) []plan.Op {
	var out []plan.Op
	for _, op := range pl.Ops {
		if op.Kind == kind && op.Path == dataset {
			out = append(out, op)
		}
	}
	return out
}

// datasetSpec returns the plan's creation of a dataset.
func datasetSpec(t *testing.T, pl plan.Plan, dataset string) *plan.DatasetSpec {
	t.Helper()
	for _, op := range pl.Ops {
		if op.Kind == plan.CreateDataset && op.Path == dataset {
			return op.Dataset
		}
	}
	t.Fatalf("no create-dataset %s", dataset)
	return nil
}

// span is one selected range of a 1-D dataset.
type span struct{ start, n uint64 }

// spanOf returns a 1-D transfer's range (n = 0 for an empty selection), checking that its
// memory space matches.
func spanOf(t *testing.T, op plan.Op) span {
	t.Helper()
	tr := op.Transfer
	if tr.Selection.IsNone() {
		return span{}
	}
	runs := tr.Selection.Runs(tr.FileShape)
	if len(runs) != 1 || plan.Product(tr.MemShape) != runs[0].Len {
		t.Fatalf("%s %s: selection %v, memory %v: want one run filling memory", op.Kind, op.Path, runs, tr.MemShape)
	}
	return span{runs[0].Start, runs[0].Len}
}

// checkPartition checks that the spans cover [0, total) exactly once.
func checkPartition(t *testing.T, what string, spans []span, total uint64) {
	t.Helper()
	var nonEmpty []span
	for _, s := range spans {
		if s.n > 0 {
			nonEmpty = append(nonEmpty, s)
		}
	}
	sort.Slice(nonEmpty, func(i, j int) bool { return nonEmpty[i].start < nonEmpty[j].start })
	var end uint64
	for _, s := range nonEmpty {
		switch {
		case s.start < end:
			t.Fatalf("%s: elements %d..%d transferred twice", what, s.start, min(end, s.start+s.n)-1)
		case s.start > end:
			t.Fatalf("%s: elements %d..%d not transferred", what, end, s.start-1)
		}
		end = s.start + s.n
	}
	if end != total {
		t.Fatalf("%s: transfers end at %d, dataset has %d elements", what, end, total)
	}
}

// writeGrids writes box-list files grids/Level_<l> in a fresh working directory.
func writeGrids(t *testing.T, files ...string) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll(filepath.Join(dir, "grids"), 0o755); err != nil {
		t.Fatal(err)
	}
	for l, text := range files {
		if err := os.WriteFile(filepath.Join(dir, "grids", fmt.Sprintf("Level_%d", l)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// twoLevels is a two-level hierarchy: a 16^3 domain in two boxes, refined by 2 in its
// centre (cells 8..23 of the 32^3 fine domain) in two boxes.
var twoLevels = []string{
	"((0,0,0) (15,15,15) (0,0,0))\n(2 0\n((0,0,0) (7,15,15) (0,0,0))\n((8,0,0) (15,15,15) (0,0,0))\n)\n",
	"((0,0,0) (31,31,31) (0,0,0))\n(2 0\n((8,8,8) (15,23,23) (0,0,0))\n((16,8,8) (23,23,23) (0,0,0))\n)\n",
}
