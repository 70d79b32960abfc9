package vpic

import (
	"fmt"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

// The expected values below are written from layouts.md section 1, independently of the
// package's own tables.

// writeOrder and readOrderWant are the dataset orders of layouts.md 1.2.
var (
	writeOrder    = []string{"x", "y", "z", "px", "py", "pz", "id_1", "id_2"}
	readOrderWant = []string{"x", "y", "z", "id_1", "id_2", "px", "py", "pz"}
)

// particleWant is the 32-byte `particle` compound of layouts.md 1.2.
var particleWant = plan.Struct("particle", 32,
	plan.Field("x", 0, plan.F32), plan.Field("y", 4, plan.F32), plan.Field("z", 8, plan.F32),
	plan.Field("px", 12, plan.F32), plan.Field("py", 16, plan.F32), plan.Field("pz", 20, plan.F32),
	plan.Field("id_1", 24, plan.I32), plan.Field("id_2", 28, plan.F32))

func varWant(name string) plan.Type {
	if name == "id_1" {
		return plan.I32
	}
	return plan.F32
}

// singleWant is the 4-byte single-member compound {<name>: f32|i32}.
func singleWant(name string) plan.Type {
	return plan.Struct(name, 4, plan.Field(name, 0, varWant(name)))
}

func u(v ...uint64) []uint64 { return v }

func slab(start, stride, count, block []uint64) plan.Selection {
	return plan.Selection{Blocks: []plan.Hyperslab{{Start: start, Stride: stride, Count: count, Block: block}}}
}

func ones(n int) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// one is a single-block selection (stride and count 1 in every dimension).
func one(start, block []uint64) plan.Selection {
	return slab(start, ones(len(start)), ones(len(start)), block)
}

// kit builds the pattern from "KEY=VALUE" pairs.
var kit = plantest.For[*Pattern](Factory)

const testPath = "/data/run/test.h5"

func env(rank, size int) patterns.Env {
	return patterns.Env{Rank: rank, Size: size, Path: testPath}
}

// compareOps compares two op lists field by field. Types are compared with Type.Equal
// (layout, member names and offsets). The collective flag of group/dataset closes is not
// part of the contract and is not compared.
func compareOps(got, want []plan.Op) error {
	var errs []string
	n := max(len(got), len(want))
	for i := 0; i < n; i++ {
		if i >= len(got) {
			errs = append(errs, fmt.Sprintf("op %d missing: want %s", i, want[i]))
			continue
		}
		if i >= len(want) {
			errs = append(errs, fmt.Sprintf("op %d extra: %s", i, got[i]))
			continue
		}
		if err := compareOp(got[i], want[i]); err != nil {
			errs = append(errs, fmt.Sprintf("op %d (%s %s): %v", i, want[i].Kind, want[i].Path, err))
		}
		if len(errs) > 6 {
			break
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}

func compareOp(g, w plan.Op) error {
	if g.Kind != w.Kind || g.Path != w.Path {
		return fmt.Errorf("got %s %s", g.Kind, g.Path)
	}
	if g.Step != w.Step {
		return fmt.Errorf("step %d, want %d", g.Step, w.Step)
	}
	if w.Kind != plan.CloseDataset && w.Kind != plan.CloseGroup && g.Collective != w.Collective {
		return fmt.Errorf("collective %v, want %v", g.Collective, w.Collective)
	}
	if g.CollMetadata != w.CollMetadata {
		return fmt.Errorf("collective metadata reads %v, want %v", g.CollMetadata, w.CollMetadata)
	}
	if !reflect.DeepEqual(g.File, w.File) {
		return fmt.Errorf("file spec %+v, want %+v", g.File, w.File)
	}
	if (g.Dataset == nil) != (w.Dataset == nil) {
		return fmt.Errorf("dataset spec %v, want %v", g.Dataset, w.Dataset)
	}
	if d, e := g.Dataset, w.Dataset; d != nil {
		switch {
		case !d.Type.Equal(e.Type):
			return fmt.Errorf("dataset type %s, want %s", d.Type, e.Type)
		case !reflect.DeepEqual(d.Shape, e.Shape):
			return fmt.Errorf("dataset shape %v, want %v", d.Shape, e.Shape)
		case !reflect.DeepEqual(d.MaxShape, e.MaxShape):
			return fmt.Errorf("dataset max shape %v, want %v", d.MaxShape, e.MaxShape)
		case !reflect.DeepEqual(d.Chunk, e.Chunk):
			return fmt.Errorf("chunk %v, want %v", d.Chunk, e.Chunk)
		case d.Deflate != e.Deflate:
			return fmt.Errorf("deflate %d, want %d", d.Deflate, e.Deflate)
		case d.FillNever != e.FillNever:
			return fmt.Errorf("fill never %v, want %v", d.FillNever, e.FillNever)
		}
	}
	if g.Attribute != nil {
		return fmt.Errorf("unexpected attribute %+v", g.Attribute)
	}
	if (g.Transfer == nil) != (w.Transfer == nil) {
		return fmt.Errorf("transfer %v, want %v", g.Transfer, w.Transfer)
	}
	if t, e := g.Transfer, w.Transfer; t != nil {
		switch {
		case t.Variable != e.Variable:
			return fmt.Errorf("variable %q, want %q", t.Variable, e.Variable)
		case t.Buffer != e.Buffer:
			return fmt.Errorf("buffer %q, want %q", t.Buffer, e.Buffer)
		case !t.MemType.Equal(e.MemType):
			return fmt.Errorf("memory type %s, want %s", t.MemType, e.MemType)
		case !t.FileType.Equal(e.FileType):
			return fmt.Errorf("file type %s, want %s", t.FileType, e.FileType)
		case !reflect.DeepEqual(t.MemShape, e.MemShape):
			return fmt.Errorf("memory shape %v, want %v", t.MemShape, e.MemShape)
		case !reflect.DeepEqual(t.FileShape, e.FileShape):
			return fmt.Errorf("file shape %v, want %v", t.FileShape, e.FileShape)
		case !reflect.DeepEqual(t.Selection, e.Selection):
			return fmt.Errorf("selection %+v, want %+v", t.Selection.Blocks, e.Selection.Blocks)
		}
	}
	return nil
}

// closedSteps lists the timesteps whose group a plan closes, in order, after checking that
// each group close is preceded by the closes of all its datasets in the given order.
func closedSteps(t *testing.T, pl plan.Plan, names []string) []int {
	t.Helper()
	var steps []int
	var pending []string
	for _, op := range pl.Ops {
		switch op.Kind {
		case plan.CloseDataset:
			pending = append(pending, path.Base(op.Path))
		case plan.CloseGroup:
			var s int
			if _, err := fmt.Sscanf(op.Path, "/Timestep_%d", &s); err != nil {
				t.Fatalf("close-group %q: %v", op.Path, err)
			}
			if op.Step != s {
				t.Errorf("close-group %s has Step %d", op.Path, op.Step)
			}
			if !reflect.DeepEqual(pending, names) {
				t.Errorf("closing %s: datasets closed %v, want %v", op.Path, pending, names)
			}
			pending = nil
			steps = append(steps, s)
		}
	}
	if len(pending) > 0 {
		t.Errorf("dataset closes %v without their group", pending)
	}
	return steps
}

// vpicLifecycle: a VPIC phase works on one file, and its write phase creates everything.
var vpicLifecycle = plantest.Lifecycle{OneFile: true, CreateOnly: true}
