package openpmd

import (
	"encoding/binary"
	"fmt"
	"math"
	"path"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

// The expected values in these tests are written from layouts.md section 3, independently
// of the package's own tables.

func u(v ...uint64) []uint64 { return v }

// kit builds the pattern from "KEY=VALUE" pairs.
var kit = plantest.For[*Pattern](Factory)

// sample is h5bench's samples/sync-openpmd.json write entry.
var sample = []string{"dim=3", "balanced=true", "ratio=1", "steps=1", "minBlock=8 16 16", "grid=16 16 8"}

const seriesDir = "/run/storage"

func env(rank, size int, file string) patterns.Env {
	return patterns.Env{Rank: rank, Size: size, Path: seriesDir + "/" + file}
}

// object is an HDF5 object of the replayed file.
type object struct {
	group   bool
	dataset *plan.DatasetSpec
	attrs   []plan.AttributeSpec
}

// file is the replayed content of one file.
type file struct {
	objs  map[string]*object
	order []string // creation order
	root  []plan.AttributeSpec
}

// written is what a rank's plans did.
type written struct {
	files     map[string]*file
	fileOrder []string
	writes    []plan.Op // transfers, in order
}

// replay executes a phase's plans on a model of HDF5, checking the lifecycle: files
// created (write) or opened (read) before use and closed once, one file open at a time,
// objects created or opened once before use, closed only while open, parents existing,
// attributes and transfers only on open objects, nothing left open at file close, no
// flush; and on every operation the Step field and the collective flags: metadata and
// file operations collective, transfers (and a writer's own opens around them)
// collective exactly when transfers are.
func replay(ph patterns.Phase, collectiveData bool, plans []plan.Plan, steps []int) (*written, error) {
	w := &written{files: map[string]*file{}}
	var cur *file
	curPath := ""
	open := map[string]plan.OpKind{}
	for pi, pl := range plans {
		for oi, op := range pl.Ops {
			where := fmt.Sprintf("plan %d op %d (%s %s)", pi, oi, op.Kind, op.Path)
			if steps[pi] >= 0 && op.Step != steps[pi] {
				return nil, fmt.Errorf("%s: Step %d, want %d", where, op.Step, steps[pi])
			}
			wantColl := true
			switch op.Kind {
			case plan.Write, plan.Read:
				wantColl = collectiveData
			case plan.OpenDataset, plan.CloseDataset:
				if ph == patterns.PhaseWrite && isTransferOpen(pl.Ops, oi) {
					wantColl = collectiveData
				}
			}
			if op.Collective != wantColl {
				return nil, fmt.Errorf("%s: collective %v, want %v", where, op.Collective, wantColl)
			}
			switch op.Kind {
			case plan.CreateFile, plan.OpenFile:
				if ph == patterns.PhaseWrite && op.Kind == plan.OpenFile || ph == patterns.PhaseRead && op.Kind == plan.CreateFile {
					return nil, fmt.Errorf("%s: wrong kind for the %s phase", where, ph)
				}
				if cur != nil {
					return nil, fmt.Errorf("%s: file %s still open", where, curPath)
				}
				if op.File == nil {
					return nil, fmt.Errorf("%s: no file spec", where)
				}
				if _, seen := w.files[op.Path]; seen {
					return nil, fmt.Errorf("%s: file used twice", where)
				}
				cur = &file{objs: map[string]*object{}}
				curPath = op.Path
				w.files[op.Path] = cur
				w.fileOrder = append(w.fileOrder, op.Path)
				continue
			case plan.FlushFile:
				return nil, fmt.Errorf("%s: openPMD-api does not flush files", where)
			}
			if cur == nil {
				return nil, fmt.Errorf("%s: no file open", where)
			}
			switch op.Kind {
			case plan.CloseFile:
				if op.Path != curPath {
					return nil, fmt.Errorf("%s: open file is %s", where, curPath)
				}
				if len(open) > 0 {
					return nil, fmt.Errorf("%s: objects still open: %v", where, keys(open))
				}
				cur, curPath = nil, ""
			case plan.CreateGroup, plan.CreateDataset:
				if ph != patterns.PhaseWrite {
					return nil, fmt.Errorf("%s: create in a read", where)
				}
				if _, ok := cur.objs[op.Path]; ok {
					return nil, fmt.Errorf("%s: exists", where)
				}
				if par := path.Dir(op.Path); par != "/" && (cur.objs[par] == nil || !cur.objs[par].group) {
					return nil, fmt.Errorf("%s: parent group %s missing", where, par)
				}
				o := &object{group: op.Kind == plan.CreateGroup, dataset: op.Dataset}
				if !o.group && op.Dataset == nil {
					return nil, fmt.Errorf("%s: no dataset spec", where)
				}
				cur.objs[op.Path] = o
				cur.order = append(cur.order, op.Path)
				open[op.Path] = op.Kind
			case plan.OpenGroup, plan.OpenDataset:
				if _, dup := open[op.Path]; dup {
					return nil, fmt.Errorf("%s: already open", where)
				}
				if ph == patterns.PhaseWrite && op.Path != "/" { // the root group always exists
					o := cur.objs[op.Path]
					if o == nil || o.group != (op.Kind == plan.OpenGroup) {
						return nil, fmt.Errorf("%s: no such object in the file", where)
					}
				}
				open[op.Path] = op.Kind
			case plan.CloseGroup, plan.CloseDataset:
				k, ok := open[op.Path]
				isGroup := k == plan.CreateGroup || k == plan.OpenGroup
				if !ok || isGroup != (op.Kind == plan.CloseGroup) {
					return nil, fmt.Errorf("%s: not open as that kind", where)
				}
				delete(open, op.Path)
			case plan.WriteAttribute:
				if op.Attribute == nil {
					return nil, fmt.Errorf("%s: no attribute", where)
				}
				if op.Path == "/" {
					cur.root = append(cur.root, *op.Attribute)
					continue
				}
				if _, ok := open[op.Path]; !ok {
					return nil, fmt.Errorf("%s: object not open", where)
				}
				o := cur.objs[op.Path]
				for _, a := range o.attrs {
					if a.Name == op.Attribute.Name {
						return nil, fmt.Errorf("%s: attribute written twice", where)
					}
				}
				o.attrs = append(o.attrs, *op.Attribute)
			case plan.Write, plan.Read:
				k := open[op.Path]
				if k != plan.OpenDataset && k != plan.CreateDataset {
					return nil, fmt.Errorf("%s: dataset not open", where)
				}
				if (op.Kind == plan.Write) != (ph == patterns.PhaseWrite) {
					return nil, fmt.Errorf("%s: wrong transfer for the %s phase", where, ph)
				}
				if o := cur.objs[op.Path]; ph == patterns.PhaseWrite && !reflect.DeepEqual(o.dataset.Shape, op.Transfer.FileShape) {
					return nil, fmt.Errorf("%s: file shape %v, dataset %v", where, op.Transfer.FileShape, o.dataset.Shape)
				}
				w.writes = append(w.writes, op)
			default:
				return nil, fmt.Errorf("%s: unexpected", where)
			}
		}
	}
	if cur != nil || len(open) > 0 {
		return nil, fmt.Errorf("after End: file %q open, objects %v", curPath, keys(open))
	}
	return w, nil
}

// isTransferOpen reports whether the open or close at i brackets a write.
func isTransferOpen(ops []plan.Op, i int) bool {
	if ops[i].Kind == plan.OpenDataset {
		return i+1 < len(ops) && ops[i+1].Kind == plan.Write
	}
	return i > 0 && ops[i-1].Kind == plan.Write
}

func keys[T any](m map[string]T) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}

// runPhase plans Begin, every step and End for one rank; steps[i] is the Step the ops of
// plans[i] must carry (-1: any, for Begin and End).
func runPhase(p *Pattern, ph patterns.Phase, e patterns.Env) ([]plan.Plan, []int, error) {
	steps := []int{-1}
	for s := range p.Steps() {
		steps = append(steps, s)
	}
	plans, err := plantest.Phase(p, ph, p.Steps(), e)
	return plans, append(steps, -1), err
}

// replayPhase plans a phase of one rank and replays it.
func replayPhase(t *testing.T, p *Pattern, ph patterns.Phase, e patterns.Env) (*written, []plan.Plan) {
	t.Helper()
	plans, steps, err := runPhase(p, ph, e)
	if err != nil {
		t.Fatal(err)
	}
	w, err := replay(ph, !p.C.Independent, plans, steps)
	if err != nil {
		t.Fatalf("rank %d of %d: %v", e.Rank, e.Size, err)
	}
	return w, plans
}

// writeAll replays the write phase of one rank.
func writeAll(t *testing.T, p *Pattern, e patterns.Env) *written {
	t.Helper()
	w, _ := replayPhase(t, p, patterns.PhaseWrite, e)
	return w
}

// attr is an expected attribute: name, type notation, shape (nil: scalar), decoded value.
type attr struct {
	name  string
	typ   string
	shape []uint64
	value any
}

// decode turns an attribute's bytes into a Go value: string, []string, float64,
// []float64, float32, uint32, int32, uint64 or []uint64 (vectors when Shape is set).
func decode(a plan.AttributeSpec) any {
	le := binary.LittleEndian
	n := int(plan.Product(a.Shape))
	vec := a.Shape != nil
	switch a.Type.Class {
	case plan.String:
		var ss []string
		for i := 0; i < n; i++ {
			b := a.Value[i*a.Type.Size : (i+1)*a.Type.Size]
			if k := strings.IndexByte(string(b), 0); k >= 0 {
				b = b[:k]
			}
			ss = append(ss, string(b))
		}
		if vec {
			return ss
		}
		return ss[0]
	case plan.Float64:
		var fs []float64
		for i := 0; i < n; i++ {
			fs = append(fs, math.Float64frombits(le.Uint64(a.Value[8*i:])))
		}
		if vec {
			return fs
		}
		return fs[0]
	case plan.Uint64:
		var us []uint64
		for i := 0; i < n; i++ {
			us = append(us, le.Uint64(a.Value[8*i:]))
		}
		if vec {
			return us
		}
		return us[0]
	case plan.Float32:
		return math.Float32frombits(le.Uint32(a.Value))
	case plan.Uint32:
		return le.Uint32(a.Value)
	case plan.Int32:
		return int32(le.Uint32(a.Value))
	}
	return fmt.Sprintf("undecoded %s", a.Type)
}

// checkAttrs compares a list of attributes with the expected ones, in order. Values of
// names in skipValue are not compared (dates).
func checkAttrs(t *testing.T, where string, got []plan.AttributeSpec, want []attr, skipValue ...string) {
	t.Helper()
	if len(got) != len(want) {
		var names []string
		for _, a := range got {
			names = append(names, a.Name)
		}
		t.Errorf("%s: attributes %v, want %d", where, names, len(want))
		return
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.name || g.Type.String() != w.typ || !reflect.DeepEqual(g.Shape, w.shape) {
			t.Errorf("%s: attribute %d is %s %s %v, want %s %s %v", where, i, g.Name, g.Type, g.Shape, w.name, w.typ, w.shape)
			continue
		}
		if want := plan.Product(g.Shape) * uint64(g.Type.Size); uint64(len(g.Value)) != want {
			t.Errorf("%s @%s: %d bytes, want %d", where, g.Name, len(g.Value), want)
			continue
		}
		skip := false
		for _, s := range skipValue {
			skip = skip || s == w.name
		}
		if v := decode(g); !skip && !reflect.DeepEqual(v, w.value) {
			t.Errorf("%s @%s = %#v, want %#v", where, g.Name, v, w.value)
		}
		if g.Type.Class == plan.String && g.Type.Size > 0 {
			// NUL-terminated: the last byte of every element is NUL.
			for i := 1; i <= int(plan.Product(g.Shape)); i++ {
				if g.Value[i*g.Type.Size-1] != 0 {
					t.Errorf("%s @%s: element %d not NUL-terminated: %q", where, g.Name, i-1, g.Value)
				}
			}
		}
	}
}
