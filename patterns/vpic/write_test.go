package vpic

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

// writeCase is one valid row of the write pattern matrix (layouts.md 1.3).
type writeCase struct {
	mem, file string
	dims      int
}

func (c writeCase) name() string { return fmt.Sprintf("%c%c-%dD", c.mem[0], c.file[0], c.dims) }

var writeMatrix = []writeCase{
	{"CONTIG", "CONTIG", 1}, {"CONTIG", "CONTIG", 2}, {"CONTIG", "CONTIG", 3},
	{"CONTIG", "INTERLEAVED", 1}, {"CONTIG", "INTERLEAVED", 2},
	{"INTERLEAVED", "CONTIG", 1}, {"INTERLEAVED", "CONTIG", 2},
	{"INTERLEAVED", "INTERLEAVED", 1}, {"INTERLEAVED", "INTERLEAVED", 2},
	{"CONTIG", "STRIDED", 1},
}

// keys returns the configuration of a case. DIM_2 and DIM_3 are always given: they must be
// ignored beyond NUM_DIMS. STRIDED uses the layouts.md 1.4 example (DIM_1=16, STRIDE=4,
// BLOCK=2, CNT=2).
func (c writeCase) keys() []string {
	k := []string{"MEM_PATTERN=" + c.mem, "FILE_PATTERN=" + c.file, fmt.Sprintf("NUM_DIMS=%d", c.dims), "TIMESTEPS=2"}
	if c.file == "STRIDED" {
		return append(k, "DIM_1=16", "DIM_2=3", "DIM_3=2", "STRIDE_SIZE=4", "BLOCK_SIZE=2", "BLOCK_CNT=2")
	}
	return append(k, "DIM_1=4", "DIM_2=3", "DIM_3=2")
}

// geometry is layouts.md 1.4 for rank r of R with DIM_1=4, DIM_2=3, DIM_3=2 (STRIDED:
// DIM_1=16): file shape, memory shape, file selection and the number of particles
// transferred per rank.
func (c writeCase) geometry(R, r uint64) (file, mem []uint64, sel plan.Selection, points uint64) {
	switch {
	case c.file == "STRIDED":
		return u(16 * R), u(4), slab(u(16*r), u(4), u(2), u(2)), 4
	case c.dims == 1:
		return u(4 * R), u(4), one(u(4*r), u(4)), 4
	case c.dims == 2:
		return u(4*R, 3), u(4, 3), one(u(4*r, 0), u(4, 3)), 12
	default:
		return u(4*R, 3, 2), u(4, 3, 2), one(u(4*r, 0, 0), u(4, 3, 2)), 24
	}
}

// types returns the dataset names of a step and, per write, the variable, buffer, memory
// type, file type and dataset written (layouts.md 1.3).
type writeSpec struct {
	variable, buffer, dataset string
	mem, file                 plan.Type
}

func (c writeCase) datasets() ([]string, map[string]plan.Type) {
	types := map[string]plan.Type{}
	if c.file == "INTERLEAVED" {
		types["particles"] = particleWant
		return []string{"particles"}, types
	}
	for _, v := range writeOrder {
		if c.mem == "INTERLEAVED" {
			types[v] = singleWant(v)
		} else {
			types[v] = varWant(v)
		}
	}
	return writeOrder, types
}

func (c writeCase) writes() []writeSpec {
	switch c.mem[:1] + c.file[:1] {
	case "II":
		return []writeSpec{{"particles", "particles", "particles", particleWant, particleWant}}
	}
	var w []writeSpec
	for _, v := range writeOrder {
		switch c.mem[:1] + c.file[:1] {
		case "CI":
			w = append(w, writeSpec{v, v, "particles", singleWant(v), particleWant})
		case "IC":
			w = append(w, writeSpec{v, "particles", v, particleWant, singleWant(v)})
		default: // CC, CS
			w = append(w, writeSpec{v, v, v, varWant(v), varWant(v)})
		}
	}
	return w
}

// variant is a set of property keys and what they imply.
type variant struct {
	name     string
	keys     []string
	collData bool // COLLECTIVE_DATA or COMPRESS
	compress bool
	fpp      bool
	collMeta bool
	align    bool
}

var variants = []variant{
	{name: "plain"},
	{name: "collective-data", keys: []string{"COLLECTIVE_DATA=YES"}, collData: true},
	{name: "compress", keys: []string{"COMPRESS=YES", "CHUNK_DIM_1=2", "CHUNK_DIM_2=3", "CHUNK_DIM_3=2"}, collData: true, compress: true},
	{name: "file-per-proc", keys: []string{"FILE_PER_PROC=YES", "COLLECTIVE_DATA=YES", "COLLECTIVE_METADATA=YES", "ALIGN=YES", "ALIGN_LEN=4096"}, fpp: true},
	{name: "file-per-proc-compress", keys: []string{"FILE_PER_PROC=YES", "COMPRESS=YES", "CHUNK_DIM_1=2", "CHUNK_DIM_2=3", "CHUNK_DIM_3=2"}, fpp: true, compress: true},
	{name: "metadata-align", keys: []string{"COLLECTIVE_METADATA=YES", "ALIGN=YES", "ALIGN_THRESHOLD=16 M", "ALIGN_LEN=16777216"}, collMeta: true, align: true},
}

// wantWriteStep is the plan of one write step with DELAYED_CLOSE_TIMESTEPS=0.
func wantWriteStep(c writeCase, v variant, R, r, step int) []plan.Op {
	g := fmt.Sprintf("/Timestep_%d", step)
	fileShape, memShape, sel, _ := c.geometry(uint64(R), uint64(r))
	names, types := c.datasets()
	ops := []plan.Op{{Kind: plan.CreateGroup, Path: g, Collective: !v.fpp, Step: step}}
	for _, n := range names {
		ds := &plan.DatasetSpec{Type: types[n], Shape: fileShape}
		if v.compress {
			ds.Chunk = u(2, 3, 2)[:c.dims]
			ds.Deflate = 9
		}
		ops = append(ops, plan.Op{Kind: plan.CreateDataset, Path: g + "/" + n, Collective: !v.fpp, Step: step, Dataset: ds})
	}
	for _, w := range c.writes() {
		ops = append(ops, plan.Op{Kind: plan.Write, Path: g + "/" + w.dataset, Collective: v.collData && !v.fpp, Step: step,
			Transfer: &plan.Transfer{Variable: w.variable, Buffer: w.buffer, MemType: w.mem, MemShape: memShape,
				FileType: w.file, FileShape: fileShape, Selection: sel}})
	}
	for _, n := range names {
		ops = append(ops, plan.Op{Kind: plan.CloseDataset, Path: g + "/" + n, Step: step})
	}
	return append(ops, plan.Op{Kind: plan.CloseGroup, Path: g, Step: step})
}

func wantFilePath(v variant, r int) string {
	if v.fpp {
		return fmt.Sprintf("/data/run/rank_%d_test.h5", r)
	}
	return testPath
}

func wantWriteBegin(v variant, r int) []plan.Op {
	fs := &plan.FileSpec{Parallel: !v.fpp, FlushLocal: true}
	if !v.fpp {
		fs.MDCInitialSize = 16 * 1024 * 1024
		fs.CollMetadataOps, fs.CollMetadataWrite = v.collMeta, v.collMeta
		if v.align {
			fs.AlignThreshold, fs.AlignLen = 16<<20, 16<<20
		}
	}
	return []plan.Op{{Kind: plan.CreateFile, Path: wantFilePath(v, r), Collective: !v.fpp, File: fs}}
}

func wantWriteEnd(v variant, r int) []plan.Op {
	p := wantFilePath(v, r)
	return []plan.Op{
		{Kind: plan.FlushFile, Path: p, Collective: !v.fpp, File: &plan.FileSpec{FlushLocal: true}},
		{Kind: plan.CloseFile, Path: p, Collective: !v.fpp},
	}
}

func TestWriteMatrix(t *testing.T) {
	for _, c := range writeMatrix {
		for _, v := range variants {
			t.Run(c.name()+"/"+v.name, func(t *testing.T) {
				t.Parallel()
				p := kit.Must(t, append(c.keys(), v.keys...)...)
				if p.Steps() != 2 || p.Name() != "vpic" {
					t.Fatalf("Steps %d Name %q", p.Steps(), p.Name())
				}
				for R := 1; R <= 4; R++ {
					for r := 0; r < R; r++ {
						e := env(r, R)
						plans, err := plantest.Phase(p, patterns.PhaseWrite, 2, e)
						if err != nil {
							t.Fatalf("R=%d r=%d: %v", R, r, err)
						}
						if err := compareOps(plans[0].Ops, wantWriteBegin(v, r)); err != nil {
							t.Errorf("R=%d r=%d Begin:\n%v", R, r, err)
						}
						_, _, _, points := c.geometry(uint64(R), uint64(r))
						for s := 0; s < 2; s++ {
							pl := plans[1+s]
							if err := compareOps(pl.Ops, wantWriteStep(c, v, R, r, s)); err != nil {
								t.Fatalf("R=%d r=%d step %d:\n%v", R, r, s, err)
							}
							if got := pl.RawBytes(); got != 32*points {
								t.Errorf("R=%d r=%d step %d: RawBytes %d, want 32*%d", R, r, s, got, points)
							}
							writes := 0
							for _, op := range pl.Ops {
								if op.Kind == plan.Write {
									writes++
								}
							}
							if want := map[bool]int{true: 1, false: 8}[c.mem == "INTERLEAVED" && c.file == "INTERLEAVED"]; writes != want {
								t.Errorf("R=%d r=%d: %d writes per step, want %d", R, r, writes, want)
							}
							if err := pl.Validate(); err != nil {
								t.Errorf("Validate: %v", err)
							}
						}
						if err := compareOps(plans[3].Ops, wantWriteEnd(v, r)); err != nil {
							t.Errorf("R=%d r=%d End:\n%v", R, r, err)
						}
						if err := plantest.CheckLifecycle(patterns.PhaseWrite, plans, vpicLifecycle); err != nil {
							t.Errorf("R=%d r=%d lifecycle: %v", R, r, err)
						}
					}
				}
			})
		}
	}
}

// Literal spot checks of layouts.md 1.1/1.4 examples, in case the table-driven expectations
// and the code shared a misreading.
func TestWriteLayoutExamples(t *testing.T) {
	type check struct {
		name             string
		keys             []string
		R, r             int
		file, mem        []uint64
		start, stride    []uint64
		count, block     []uint64
		datasets         []string
		fileType, memTyp string
	}
	checks := []check{
		{"1.1 CC 1-D 2 ranks rank 1", []string{"DIM_1=4"}, 2, 1, u(8), u(4), u(4), u(1), u(1), u(4), writeOrder, "f32", "f32"},
		{"1.1 CC 2-D rank 1", []string{"NUM_DIMS=2", "DIM_1=4", "DIM_2=3"}, 2, 1, u(8, 3), u(4, 3), u(4, 0), u(1, 1), u(1, 1), u(4, 3), writeOrder, "f32", "f32"},
		{"1.1 CI 1-D rank 0", []string{"FILE_PATTERN=INTERLEAVED", "DIM_1=4"}, 2, 0, u(8), u(4), u(0), u(1), u(1), u(4), []string{"particles"},
			"particle{x:f32@0,y:f32@4,z:f32@8,px:f32@12,py:f32@16,pz:f32@20,id_1:i32@24,id_2:f32@28}[32B]", "x{x:f32@0}[4B]"},
		{"IC 2-D rank 2 of 3", []string{"MEM_PATTERN=INTERLEAVED", "NUM_DIMS=2", "DIM_1=5", "DIM_2=7"}, 3, 2, u(15, 7), u(5, 7), u(10, 0), u(1, 1), u(1, 1), u(5, 7), writeOrder,
			"x{x:f32@0}[4B]", "particle{x:f32@0,y:f32@4,z:f32@8,px:f32@12,py:f32@16,pz:f32@20,id_1:i32@24,id_2:f32@28}[32B]"},
		{"3-D rank 3 of 4", []string{"NUM_DIMS=3", "DIM_1=2", "DIM_2=3", "DIM_3=5"}, 4, 3, u(8, 3, 5), u(2, 3, 5), u(6, 0, 0), u(1, 1, 1), u(1, 1, 1), u(2, 3, 5), writeOrder, "f32", "f32"},
		{"1.4 STRIDED example rank 1", []string{"FILE_PATTERN=STRIDED", "DIM_1=16", "STRIDE_SIZE=4", "BLOCK_SIZE=2", "BLOCK_CNT=2"}, 3, 1, u(48), u(4), u(16), u(4), u(2), u(2), writeOrder, "f32", "f32"},
		{"NUM_DIMS=1 ignores DIM_2/DIM_3", []string{"DIM_1=6", "DIM_2=5", "DIM_3=4"}, 2, 1, u(12), u(6), u(6), u(1), u(1), u(6), writeOrder, "f32", "f32"},
		{"NUM_DIMS=2 ignores DIM_3", []string{"NUM_DIMS=2", "DIM_1=6", "DIM_2=5", "DIM_3=4"}, 1, 0, u(6, 5), u(6, 5), u(0, 0), u(1, 1), u(1, 1), u(6, 5), writeOrder, "f32", "f32"},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			p := kit.Must(t, c.keys...)
			pl, err := p.Step(patterns.PhaseWrite, 0, env(c.r, c.R))
			if err != nil {
				t.Fatal(err)
			}
			var created []string
			var first *plan.Transfer
			for _, op := range pl.Ops {
				switch op.Kind {
				case plan.CreateDataset:
					created = append(created, strings.TrimPrefix(op.Path, "/Timestep_0/"))
					if got := op.Dataset.Type.String(); len(created) == 1 && got != c.fileType {
						t.Errorf("%s file type %s, want %s", op.Path, got, c.fileType)
					}
					if !reflect.DeepEqual(op.Dataset.Shape, c.file) {
						t.Errorf("%s shape %v, want %v", op.Path, op.Dataset.Shape, c.file)
					}
				case plan.Write:
					if first == nil {
						first = op.Transfer
					}
				}
			}
			if !reflect.DeepEqual(created, c.datasets) {
				t.Errorf("datasets %v, want %v", created, c.datasets)
			}
			h := first.Selection.Blocks[0]
			if len(first.Selection.Blocks) != 1 || !reflect.DeepEqual(h.Start, c.start) || !reflect.DeepEqual(h.Stride, c.stride) ||
				!reflect.DeepEqual(h.Count, c.count) || !reflect.DeepEqual(h.Block, c.block) {
				t.Errorf("selection %+v, want start %v stride %v count %v block %v", first.Selection.Blocks, c.start, c.stride, c.count, c.block)
			}
			if !reflect.DeepEqual(first.MemShape, c.mem) || first.MemType.String() != c.memTyp {
				t.Errorf("memory %s%v, want %s%v", first.MemType, first.MemShape, c.memTyp, c.mem)
			}
		})
	}
}

func TestWriteTypesOfIdVariables(t *testing.T) {
	// id_1 is i32 everywhere it is atomic or a single member; id_2 stays f32.
	for _, c := range []struct {
		mem, file string
		id1File   string
		id1Mem    string
	}{
		{"CONTIG", "CONTIG", "i32", "i32"},
		{"INTERLEAVED", "CONTIG", "id_1{id_1:i32@0}[4B]", "particle{x:f32@0,y:f32@4,z:f32@8,px:f32@12,py:f32@16,pz:f32@20,id_1:i32@24,id_2:f32@28}[32B]"},
		{"CONTIG", "INTERLEAVED", "particle{x:f32@0,y:f32@4,z:f32@8,px:f32@12,py:f32@16,pz:f32@20,id_1:i32@24,id_2:f32@28}[32B]", "id_1{id_1:i32@0}[4B]"},
	} {
		p := kit.Must(t, "MEM_PATTERN="+c.mem, "FILE_PATTERN="+c.file, "DIM_1=2")
		pl, err := p.Step(patterns.PhaseWrite, 0, env(0, 1))
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range pl.Ops {
			if op.Kind == plan.Write && op.Transfer.Variable == "id_1" {
				if got := op.Transfer.FileType.String(); got != c.id1File {
					t.Errorf("%s/%s: id_1 file type %s, want %s", c.mem, c.file, got, c.id1File)
				}
				if got := op.Transfer.MemType.String(); got != c.id1Mem {
					t.Errorf("%s/%s: id_1 memory type %s, want %s", c.mem, c.file, got, c.id1Mem)
				}
				if op.Transfer.ElemBytes() != 4 {
					t.Errorf("%s/%s: id_1 moves %d bytes per element", c.mem, c.file, op.Transfer.ElemBytes())
				}
			}
			if op.Kind == plan.Write && op.Transfer.Variable == "id_2" && c.mem == "CONTIG" && c.file == "CONTIG" {
				if got := op.Transfer.MemType.String(); got != "f32" {
					t.Errorf("id_2 memory type %s, want f32", got)
				}
			}
		}
	}
}

func TestExportedTypes(t *testing.T) {
	if !reflect.DeepEqual(Variables, writeOrder) {
		t.Errorf("Variables = %v", Variables)
	}
	if !Particle.Equal(particleWant) || Particle.Size != BytesPerParticle || Particle.Name != "particle" {
		t.Errorf("Particle = %s", Particle)
	}
	if err := Particle.Validate(); err != nil {
		t.Error(err)
	}
	for _, v := range writeOrder {
		if !VarType(v).Equal(varWant(v)) {
			t.Errorf("VarType(%s) = %s", v, VarType(v))
		}
		if s := single(v); !s.Equal(singleWant(v)) || s.Validate() != nil {
			t.Errorf("single(%s) = %s", v, s)
		}
	}
}

// The chunk along dim 1 is checked against the dataset extent, which scales with the ranks.
func TestCompressChunkLargerThanDataset(t *testing.T) {
	p := kit.Must(t, "DIM_1=4", "COMPRESS=YES", "CHUNK_DIM_1=8")
	if _, err := p.Step(patterns.PhaseWrite, 0, env(0, 1)); err == nil ||
		!strings.Contains(err.Error(), "chunk [8] does not fit max shape: dim 0 chunk 8, extent 4") {
		t.Errorf("1 rank: %v", err)
	}
	if _, err := p.Step(patterns.PhaseWrite, 0, env(1, 2)); err != nil {
		t.Errorf("2 ranks (extent 8): %v", err)
	}
}

func TestStepOutOfRange(t *testing.T) {
	p := kit.Must(t, "TIMESTEPS=2")
	for _, s := range []int{-1, 2} {
		for _, ph := range []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead} {
			_, err := p.Step(ph, s, env(0, 1))
			if want := fmt.Sprintf("vpic: step %d outside 0..1", s); err == nil || err.Error() != want {
				t.Errorf("Step(%s, %d) = %v, want %q", ph, s, err, want)
			}
		}
	}
	if _, err := p.Begin(patterns.Phase(7), env(0, 1)); err == nil || err.Error() != "vpic: no phase(7) phase" {
		t.Errorf("Begin(7) = %v", err)
	}
	if _, err := p.Step(patterns.Phase(7), 0, env(0, 1)); err == nil || err.Error() != "vpic: no phase(7) phase" {
		t.Errorf("Step(7) = %v", err)
	}
	if got := p.Phases(); !reflect.DeepEqual(got, []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}) {
		t.Errorf("Phases() = %v", got)
	}
}

func TestFilePath(t *testing.T) {
	p := kit.Must(t, "FILE_PER_PROC=YES")
	for _, c := range []struct {
		path string
		rank int
		want string
	}{
		{"/data/run/test.h5", 3, "/data/run/rank_3_test.h5"},
		{"test.h5", 0, "rank_0_test.h5"},
		{"out/f.h5", 12, "out/rank_12_f.h5"},
	} {
		if got := p.FilePath(patterns.Env{Rank: c.rank, Size: 16, Path: c.path}); got != c.want {
			t.Errorf("FilePath(%s, %d) = %s, want %s", c.path, c.rank, got, c.want)
		}
	}
	shared := kit.Must(t)
	if got := shared.FilePath(patterns.Env{Rank: 3, Size: 4, Path: testPath}); got != testPath {
		t.Errorf("shared FilePath = %s", got)
	}
}

// wantCloses is the timestep groups closed in each step plan and in End for TIMESTEPS=5,
// by DELAYED_CLOSE_TIMESTEPS (layouts.md 1.6).
var wantCloses = []struct {
	d     int
	async bool
	steps [][]int
	end   []int
}{
	{0, true, [][]int{{0}, {1}, {2}, {3}, {4}}, nil},
	{1, true, [][]int{nil, {0}, {1}, {2}, {3}}, []int{4}},
	{2, true, [][]int{nil, nil, {0, 1}, {2}, {3}}, []int{4}},
	{5, true, [][]int{nil, nil, nil, nil, nil}, []int{0, 1, 2, 3, 4}},
	{0, false, [][]int{{0}, {1}, {2}, {3}, {4}}, nil},
	{1, false, [][]int{nil, nil, nil, nil, nil}, []int{0, 1, 2, 3, 4}},
	{2, false, [][]int{nil, nil, nil, nil, nil}, []int{0, 1, 2, 3, 4}},
	{5, false, [][]int{nil, nil, nil, nil, nil}, []int{0, 1, 2, 3, 4}},
}

func TestDelayedCloseWrite(t *testing.T) {
	for _, c := range []writeCase{{"CONTIG", "CONTIG", 1}, {"INTERLEAVED", "INTERLEAVED", 2}} {
		names, _ := c.datasets()
		for _, w := range wantCloses {
			t.Run(fmt.Sprintf("%s/D=%d/async=%v", c.name(), w.d, w.async), func(t *testing.T) {
				keys := append(c.keys(), "TIMESTEPS=5", fmt.Sprintf("DELAYED_CLOSE_TIMESTEPS=%d", w.d))
				keys = append(keys[:3], keys[4:]...) // drop the case's TIMESTEPS=2
				p := kit.Must(t, keys...)
				for R := 1; R <= 3; R++ {
					e := env(R-1, R)
					e.Async = w.async
					plans, err := plantest.Phase(p, patterns.PhaseWrite, 5, e)
					if err != nil {
						t.Fatal(err)
					}
					for s := 0; s < 5; s++ {
						ops := plans[1+s].Ops
						if got := closedSteps(t, plans[1+s], names); !reflect.DeepEqual(got, w.steps[s]) {
							t.Errorf("step %d closes %v, want %v", s, got, w.steps[s])
						}
						// Delayed closes come before the step's group is created; a D=0 step
						// closes itself after its writes.
						create := -1
						for i, op := range ops {
							if op.Kind == plan.CreateGroup {
								create = i
							}
						}
						for i, op := range ops {
							if op.Kind != plan.CloseGroup && op.Kind != plan.CloseDataset {
								continue
							}
							if (op.Step < s) != (i < create) {
								t.Errorf("step %d: close of step %d at position %d, group created at %d", s, op.Step, i, create)
							}
						}
						if w.d == 0 && ops[len(ops)-1].Kind != plan.CloseGroup {
							t.Errorf("step %d does not end with its group close", s)
						}
					}
					end := plans[6]
					if got := closedSteps(t, end, names); !reflect.DeepEqual(got, w.end) {
						t.Errorf("End closes %v, want %v", got, w.end)
					}
					if n := len(end.Ops); end.Ops[n-2].Kind != plan.FlushFile || end.Ops[n-1].Kind != plan.CloseFile {
						t.Errorf("End does not finish with flush and close: %v", end.Ops)
					}
					if err := plantest.CheckLifecycle(patterns.PhaseWrite, plans, vpicLifecycle); err != nil {
						t.Errorf("lifecycle: %v", err)
					}
				}
			})
		}
	}
}

// A phase stopped early (End with fewer steps than TIMESTEPS) still closes everything once.
func TestDelayedCloseEarlyEnd(t *testing.T) {
	for _, d := range []int{0, 1, 2, 3} {
		for _, async := range []bool{true, false} {
			for ran := 0; ran <= 4; ran++ {
				p := kit.Must(t, "TIMESTEPS=4", fmt.Sprintf("DELAYED_CLOSE_TIMESTEPS=%d", d))
				e := env(0, 2)
				e.Async = async
				plans, err := plantest.Phase(p, patterns.PhaseWrite, ran, e)
				if err != nil {
					t.Fatal(err)
				}
				if err := plantest.CheckLifecycle(patterns.PhaseWrite, plans, vpicLifecycle); err != nil {
					t.Errorf("D=%d async=%v after %d steps: %v", d, async, ran, err)
				}
			}
		}
	}
}

// Every valid configuration of the matrix, every variant and delayed close: no object is
// leaked or closed twice.
func TestLifecycleAllWrite(t *testing.T) {
	for _, c := range writeMatrix {
		for _, v := range variants {
			for _, d := range []int{0, 1, 2} {
				keys := append(append(c.keys(), v.keys...), fmt.Sprintf("DELAYED_CLOSE_TIMESTEPS=%d", d))
				p := kit.Must(t, keys...)
				for _, async := range []bool{false, true} {
					for _, R := range []int{1, 3} { // TestWriteMatrix covers R = 1..4 without delay
						for r := 0; r < R; r++ {
							e := env(r, R)
							e.Async = async
							plans, err := plantest.Phase(p, patterns.PhaseWrite, 2, e)
							if err != nil {
								t.Fatalf("%s/%s D=%d: %v", c.name(), v.name, d, err)
							}
							if err := plantest.CheckLifecycle(patterns.PhaseWrite, plans, vpicLifecycle); err != nil {
								t.Fatalf("%s/%s D=%d async=%v R=%d r=%d: %v", c.name(), v.name, d, async, R, r, err)
							}
						}
					}
				}
			}
		}
	}
}

func ExamplePattern_Step() {
	v, err := Options.Parse(plantest.KV("NUM_DIMS=1", "DIM_1=4", "TIMESTEPS=1", "COLLECTIVE_DATA=YES"))
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := Factory.New(v)
	if err != nil {
		fmt.Println(err)
		return
	}
	e := patterns.Env{Rank: 1, Size: 2, Path: "test.h5"}
	begin, _ := p.Begin(patterns.PhaseWrite, e)
	step, _ := p.Step(patterns.PhaseWrite, 0, e)
	end, _ := p.End(patterns.PhaseWrite, 1, e)
	for _, pl := range []plan.Plan{begin, step, end} {
		pl.Print(os.Stdout)
	}
	fmt.Println("bytes:", step.RawBytes())
	// Output:
	// create-file     test.h5 [collective]
	// create-group    /Timestep_0 [collective]
	// create-dataset  /Timestep_0/x [collective] type=f32 shape=[8]
	// create-dataset  /Timestep_0/y [collective] type=f32 shape=[8]
	// create-dataset  /Timestep_0/z [collective] type=f32 shape=[8]
	// create-dataset  /Timestep_0/px [collective] type=f32 shape=[8]
	// create-dataset  /Timestep_0/py [collective] type=f32 shape=[8]
	// create-dataset  /Timestep_0/pz [collective] type=f32 shape=[8]
	// create-dataset  /Timestep_0/id_1 [collective] type=i32 shape=[8]
	// create-dataset  /Timestep_0/id_2 [collective] type=f32 shape=[8]
	// write           /Timestep_0/x [collective] mem=f32[4] buffer=x start=[4] stride=[1] count=[1] block=[4]
	// write           /Timestep_0/y [collective] mem=f32[4] buffer=y start=[4] stride=[1] count=[1] block=[4]
	// write           /Timestep_0/z [collective] mem=f32[4] buffer=z start=[4] stride=[1] count=[1] block=[4]
	// write           /Timestep_0/px [collective] mem=f32[4] buffer=px start=[4] stride=[1] count=[1] block=[4]
	// write           /Timestep_0/py [collective] mem=f32[4] buffer=py start=[4] stride=[1] count=[1] block=[4]
	// write           /Timestep_0/pz [collective] mem=f32[4] buffer=pz start=[4] stride=[1] count=[1] block=[4]
	// write           /Timestep_0/id_1 [collective] mem=i32[4] buffer=id_1 start=[4] stride=[1] count=[1] block=[4]
	// write           /Timestep_0/id_2 [collective] mem=f32[4] buffer=id_2 start=[4] stride=[1] count=[1] block=[4]
	// close-dataset   /Timestep_0/x [collective]
	// close-dataset   /Timestep_0/y [collective]
	// close-dataset   /Timestep_0/z [collective]
	// close-dataset   /Timestep_0/px [collective]
	// close-dataset   /Timestep_0/py [collective]
	// close-dataset   /Timestep_0/pz [collective]
	// close-dataset   /Timestep_0/id_1 [collective]
	// close-dataset   /Timestep_0/id_2 [collective]
	// close-group     /Timestep_0 [collective]
	// flush-file      test.h5 [collective]
	// close-file      test.h5 [collective]
	// bytes: 128
}
