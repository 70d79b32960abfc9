package vpic

import (
	"fmt"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
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

// kv turns "KEY=VALUE" strings into options pairs.
func kv(pairs ...string) []options.KV { return plantest.KV(pairs...) }

// build parses the pairs and builds the pattern.
func build(pairs ...string) (*Pattern, error) {
	p, _, err := plantest.Build[*Pattern](Options, New, pairs...)
	return p, err
}

func mustBuild(t *testing.T, pairs ...string) *Pattern {
	return plantest.MustBuild[*Pattern](t, Options, New, pairs...)
}

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

// checkLifecycle replays the plans of one phase (Begin, the steps, End) and checks that
// every file, group and dataset is created (write) or opened (read) once, closed exactly
// once, closed only while open, that transfers touch open datasets, that objects live in
// an open parent group, and that nothing is open at file close or afterwards.
func checkLifecycle(ph patterns.Phase, plans []plan.Plan) error {
	open := map[string]plan.OpKind{}
	file := ""
	closedFiles := 0
	isGroup := func(k plan.OpKind) bool { return k == plan.CreateGroup || k == plan.OpenGroup }
	isDataset := func(k plan.OpKind) bool { return k == plan.CreateDataset || k == plan.OpenDataset }
	for pi, pl := range plans {
		for oi, op := range pl.Ops {
			where := fmt.Sprintf("plan %d op %d (%s %s)", pi, oi, op.Kind, op.Path)
			if ph == patterns.PhaseWrite && (op.Kind == plan.OpenFile || op.Kind == plan.OpenGroup || op.Kind == plan.OpenDataset || op.Kind == plan.Read) {
				return fmt.Errorf("%s: open/read in a write phase", where)
			}
			if ph == patterns.PhaseRead && (op.Kind == plan.CreateFile || op.Kind == plan.CreateGroup || op.Kind == plan.CreateDataset || op.Kind == plan.Write || op.Kind == plan.FlushFile) {
				return fmt.Errorf("%s: create/write in a read phase", where)
			}
			switch op.Kind {
			case plan.CreateFile, plan.OpenFile:
				if file != "" || closedFiles > 0 {
					return fmt.Errorf("%s: file opened twice", where)
				}
				file = op.Path
			case plan.FlushFile:
				if file != op.Path {
					return fmt.Errorf("%s: flush of a file that is not open (%q)", where, file)
				}
			case plan.CloseFile:
				if file != op.Path {
					return fmt.Errorf("%s: close of a file that is not open (%q)", where, file)
				}
				if len(open) > 0 {
					return fmt.Errorf("%s: objects still open at file close: %v", where, open)
				}
				file = ""
				closedFiles++
			case plan.CreateGroup, plan.OpenGroup, plan.CreateDataset, plan.OpenDataset:
				if file == "" {
					return fmt.Errorf("%s: no open file", where)
				}
				if _, dup := open[op.Path]; dup {
					return fmt.Errorf("%s: already open", where)
				}
				if parent := path.Dir(op.Path); parent != "/" && !isGroup(open[parent]) {
					return fmt.Errorf("%s: parent group %s not open", where, parent)
				}
				open[op.Path] = op.Kind
			case plan.CloseGroup:
				if !isGroup(open[op.Path]) {
					return fmt.Errorf("%s: group not open", where)
				}
				for p := range open {
					if strings.HasPrefix(p, op.Path+"/") {
						return fmt.Errorf("%s: child %s still open", where, p)
					}
				}
				delete(open, op.Path)
			case plan.CloseDataset:
				if !isDataset(open[op.Path]) {
					return fmt.Errorf("%s: dataset not open", where)
				}
				delete(open, op.Path)
			case plan.Write, plan.Read:
				if !isDataset(open[op.Path]) {
					return fmt.Errorf("%s: dataset not open", where)
				}
			default:
				return fmt.Errorf("%s: unexpected operation", where)
			}
		}
	}
	if file != "" || len(open) > 0 || closedFiles != 1 {
		return fmt.Errorf("after End: file %q open, objects %v open, %d file closes", file, open, closedFiles)
	}
	return nil
}

// runPhase plans Begin, steps 0..steps-1 and End.
func runPhase(p *Pattern, ph patterns.Phase, steps int, e patterns.Env) ([]plan.Plan, error) {
	var plans []plan.Plan
	b, err := p.Begin(ph, e)
	if err != nil {
		return nil, fmt.Errorf("Begin: %w", err)
	}
	plans = append(plans, b)
	for s := 0; s < steps; s++ {
		st, err := p.Step(ph, s, e)
		if err != nil {
			return nil, fmt.Errorf("Step %d: %w", s, err)
		}
		plans = append(plans, st)
	}
	end, err := p.End(ph, steps, e)
	if err != nil {
		return nil, fmt.Errorf("End: %w", err)
	}
	return append(plans, end), nil
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
