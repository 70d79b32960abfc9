package iotest

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

// TestDefaults: the values of hdf5_iotest.ini.
func TestDefaults(t *testing.T) {
	p := kit.Must(t)
	want := Config{Steps: 20, Arrays: 500, Rows: 100, Cols: 200, ProcRows: 1, ProcCols: 1, Rank: 4, StepFirst: true,
		Scaling: "weak", Slowest: "step"}
	if !reflect.DeepEqual(p.C, want) {
		t.Errorf("defaults\n got %+v\nwant %+v", p.C, want)
	}
	if p.Name() != "iotest" || p.Steps() != 20 || !reflect.DeepEqual(p.Phases(), []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}) {
		t.Errorf("name %q steps %d phases %v", p.Name(), p.Steps(), p.Phases())
	}
	if d := Options.Duplicates(); len(d) > 0 {
		t.Errorf("duplicate keys %v", d)
	}
}

// TestConfigErrors: the program's sanity checks and validation as errors naming key and
// value.
func TestConfigErrors(t *testing.T) {
	cases := []struct {
		kv   []string
		want []string
	}{
		{[]string{"version=1"}, []string{`"version"`, `"1"`}},
		{[]string{"steps=0"}, []string{`"steps"`, `"0"`}},
		{[]string{"arrays=0"}, []string{`"arrays"`}},
		{[]string{"rows=1"}, []string{`"rows"`, `"1"`}},
		{[]string{"columns=1"}, []string{`"columns"`}},
		{[]string{"process-rows=0"}, []string{`"process-rows"`}},
		{[]string{"scaling=linear"}, []string{`"scaling"`, `"linear"`, "weak", "strong"}},
		{[]string{"dataset-rank=5"}, []string{`"dataset-rank"`, `"5"`}},
		{[]string{"dataset-rank=1"}, []string{`"dataset-rank"`}},
		{[]string{"slowest-dimension=row"}, []string{`"slowest-dimension"`, "step", "array"}},
		{[]string{"dataset-layout=compact"}, []string{`"dataset-layout"`, "contiguous", "chunked"}},
		{[]string{"mpi-io=async"}, []string{`"mpi-io"`, "independent", "collective"}},
		{[]string{"scaling=strong", "rows=10", "process-rows=3", "process-columns=1"}, []string{`"rows"`, `"10"`, "process-rows=3"}},
		{[]string{"scaling=strong", "columns=10", "process-columns=4"}, []string{`"columns"`, `"10"`, "process-columns=4"}},
	}
	for _, c := range cases {
		_, _, err := kit.Build(c.kv...)
		plantest.CheckOptionsError(t, c.kv, err, c.want...)
	}
	// The process grid must cover the ranks (the program's validate).
	p := kit.Must(t, "process-rows=2", "process-columns=3")
	_, err := p.Begin(patterns.PhaseWrite, patterns.Env{Rank: 0, Size: 4, Path: "f.h5"})
	if err == nil || !strings.Contains(err.Error(), `"process-rows"`) || !strings.Contains(err.Error(), "process-columns") ||
		!strings.Contains(err.Error(), "2 x 3 = 6") || !strings.Contains(err.Error(), "4 ranks") {
		t.Errorf("grid 2x3 on 4 ranks: %v", err)
	}
	if _, err := p.Begin(patterns.PhaseRead, patterns.Env{Rank: 0, Size: 6, Path: "f.h5"}); err != nil {
		t.Errorf("grid 2x3 on 6 ranks: %v", err)
	}
}

// layoutCase is one dataset organisation with what dataset.c creates for it, written out
// from the program: extents, maximum extents and chunks of steps=3, arrays=2, a 2x2
// process grid of 4x5 blocks (weak scaling: arrays of 8x10).
type layoutCase struct {
	kv          string
	paths       []string // every dataset, in creation order
	groups      []string
	shape, max  []uint64
	chunk       []uint64
	reopenWrite bool // later steps open the datasets the first created
}

const u = plan.MaxUnlimited

var layoutCases = []layoutCase{
	{"dataset-rank=4;slowest-dimension=step", []string{"/dataset"}, nil, []uint64{3, 2, 8, 10}, nil, nil, false},
	{"dataset-rank=4;slowest-dimension=array", []string{"/dataset"}, nil, []uint64{2, 3, 8, 10}, nil, nil, false},
	{"dataset-rank=4;slowest-dimension=step;dataset-layout=chunked", []string{"/dataset"}, nil, []uint64{3, 2, 8, 10}, []uint64{u, 2, 8, 10}, []uint64{1, 2, 4, 5}, false},
	{"dataset-rank=4;slowest-dimension=array;dataset-layout=chunked", []string{"/dataset"}, nil, []uint64{2, 3, 8, 10}, []uint64{2, u, 8, 10}, []uint64{2, 1, 4, 5}, false},
	{"dataset-rank=3;slowest-dimension=step", []string{"/step=0", "/step=1", "/step=2"}, nil, []uint64{2, 8, 10}, nil, nil, false},
	{"dataset-rank=3;slowest-dimension=array", []string{"/array=0", "/array=1"}, nil, []uint64{3, 8, 10}, nil, nil, true},
	{"dataset-rank=3;slowest-dimension=step;dataset-layout=chunked", []string{"/step=0", "/step=1", "/step=2"}, nil, []uint64{2, 8, 10}, nil, []uint64{1, 4, 5}, false},
	{"dataset-rank=3;slowest-dimension=array;dataset-layout=chunked", []string{"/array=0", "/array=1"}, nil, []uint64{3, 8, 10}, []uint64{u, 8, 10}, []uint64{1, 4, 5}, true},
	{"dataset-rank=2;slowest-dimension=step", []string{"/step=0/array=0", "/step=0/array=1", "/step=1/array=0", "/step=1/array=1", "/step=2/array=0", "/step=2/array=1"},
		[]string{"/step=0", "/step=1", "/step=2"}, []uint64{8, 10}, nil, nil, false},
	{"dataset-rank=2;slowest-dimension=array;dataset-layout=chunked", []string{"/array=0/step=0", "/array=1/step=0", "/array=0/step=1", "/array=1/step=1", "/array=0/step=2", "/array=1/step=2"},
		[]string{"/array=0", "/array=1"}, []uint64{8, 10}, nil, []uint64{4, 5}, false},
}

func (c layoutCase) pattern(t *testing.T) *Pattern {
	return kit.Must(t, append(strings.Split(c.kv, ";"), "steps=3", "arrays=2", "rows=4", "columns=5", "process-rows=2", "process-columns=2")...)
}

// TestLayouts: the datasets, groups, extents and chunks dataset.c creates, the call order
// of hdf5_iotest.c (creates, opens, transfers, closes), and the plans' lifecycle.
func TestLayouts(t *testing.T) {
	for _, c := range layoutCases {
		t.Run(c.kv, func(t *testing.T) {
			p := c.pattern(t)
			for _, ph := range []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead} {
				plans := plantest.MustPhase(t, p, ph, patterns.Env{Rank: 3, Size: 4, Path: "io.h5"})
				if err := plantest.CheckLifecycle(ph, plans, plantest.Lifecycle{OneFile: true, CreateOnly: !c.reopenWrite, FullPaths: c.groups != nil}); err != nil {
					t.Fatalf("%s: %v", ph, err)
				}
				var created, groups, opened []string
				transfers := 0
				for _, pl := range plans {
					for _, op := range pl.Ops {
						switch op.Kind {
						case plan.CreateFile, plan.OpenFile:
							if !op.File.Parallel || op.File.ReadOnly != (ph == patterns.PhaseRead) || op.File.CollMetadataOps || op.File.AlignLen != 0 || op.File.MDCInitialSize != 0 || op.File.LibverLatest {
								t.Errorf("%s file access %+v, want MPI-IO only", ph, *op.File)
							}
						case plan.CreateGroup:
							groups = append(groups, op.Path)
						case plan.CreateDataset:
							created = append(created, op.Path)
							d := op.Dataset
							if !d.Type.Equal(plan.F64) || !reflect.DeepEqual(d.Shape, c.shape) || !reflect.DeepEqual(d.MaxShape, c.max) ||
								!reflect.DeepEqual(d.Chunk, c.chunk) || d.FillNever || d.Deflate != 0 {
								t.Errorf("%s: %+v, want shape %v max %v chunk %v", op.Path, *d, c.shape, c.max, c.chunk)
							}
						case plan.OpenDataset:
							opened = append(opened, op.Path)
						case plan.Write, plan.Read:
							transfers++
							if op.Collective {
								t.Errorf("%s %s collective with mpi-io=independent", op.Kind, op.Path)
							}
						}
					}
				}
				if transfers != 3*2 {
					t.Errorf("%s: %d transfers, want steps x arrays = 6", ph, transfers)
				}
				if ph == patterns.PhaseWrite {
					if !reflect.DeepEqual(created, c.paths) || !reflect.DeepEqual(groups, c.groups) {
						t.Errorf("created %v groups %v, want %v %v", created, groups, c.paths, c.groups)
					}
					if wantOpens := map[bool]int{true: 2 * 2, false: 0}[c.reopenWrite]; len(opened) != wantOpens {
						t.Errorf("write opened %v, want %d reopens", opened, wantOpens)
					}
					continue
				}
				// The read opens as the write created: once per dataset, except a dataset per
				// array, opened at every step.
				want := len(c.paths)
				if c.reopenWrite {
					want = 3 * 2
				}
				if len(created)+len(groups) != 0 || len(opened) != want {
					t.Errorf("read created %v %v, opened %v (want %d opens)", created, groups, opened, want)
				}
			}
		})
	}
}

// TestSelections: rank r's block at (r / process-columns, r % process-columns) in the last
// two dimensions, the step and array in the outer ones as create_selection places them.
func TestSelections(t *testing.T) {
	type want struct {
		start, block []uint64
	}
	cases := []struct {
		kv                string
		rank, step, array int
		w                 want
	}{
		{"dataset-rank=4;slowest-dimension=step", 3, 2, 1, want{[]uint64{2, 1, 4, 5}, []uint64{1, 1, 4, 5}}},
		{"dataset-rank=4;slowest-dimension=array", 1, 2, 1, want{[]uint64{1, 2, 0, 5}, []uint64{1, 1, 4, 5}}},
		{"dataset-rank=3;slowest-dimension=step", 2, 2, 1, want{[]uint64{1, 4, 0}, []uint64{1, 4, 5}}},
		{"dataset-rank=3;slowest-dimension=array", 2, 2, 1, want{[]uint64{2, 4, 0}, []uint64{1, 4, 5}}},
		{"dataset-rank=2;slowest-dimension=step", 3, 1, 1, want{[]uint64{4, 5}, []uint64{4, 5}}},
		{"dataset-rank=2;slowest-dimension=array", 0, 1, 1, want{[]uint64{0, 0}, []uint64{4, 5}}},
		// Strong scaling: the 8x10 array split over the grid.
		{"dataset-rank=2;scaling=strong;rows=8;columns=10", 3, 0, 0, want{[]uint64{4, 5}, []uint64{4, 5}}},
	}
	for _, c := range cases {
		kv := map[string]string{"steps": "3", "arrays": "2", "rows": "4", "columns": "5", "process-rows": "2", "process-columns": "2"}
		for _, s := range strings.Split(c.kv, ";") {
			k, v, _ := strings.Cut(s, "=")
			kv[k] = v
		}
		var kvs []string
		for k, v := range kv {
			kvs = append(kvs, k+"="+v)
		}
		p := kit.Must(t, kvs...)
		got := p.Selection(c.rank, c.step, c.array)
		if len(got.Blocks) != 1 || !reflect.DeepEqual(got.Blocks[0].Start, c.w.start) || !reflect.DeepEqual(got.Blocks[0].Block, c.w.block) ||
			got.Blocks[0].NPoints() != 20 {
			t.Errorf("%s rank %d step %d array %d: %+v, want %+v", c.kv, c.rank, c.step, c.array, got, c.w)
		}
		// Every transfer moves the rank's whole buffer: a 4x5 double memory space.
		pl, err := p.Step(patterns.PhaseRead, c.step, patterns.Env{Rank: c.rank, Size: 4, Path: "io.h5"})
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range pl.Ops {
			if tr := op.Transfer; tr != nil && (!reflect.DeepEqual(tr.MemShape, []uint64{4, 5}) || tr.Buffer != "rbuf" || tr.Bytes() != 160) {
				t.Errorf("%s: transfer %+v", c.kv, tr)
			}
		}
	}
	// Collective transfers with mpi-io=collective; the metadata calls are collective always.
	p := kit.Must(t, "steps=1", "arrays=2", "mpi-io=collective", "dataset-rank=2")
	pl, _ := p.Step(patterns.PhaseWrite, 0, patterns.Env{Size: 1, Path: "io.h5"})
	for _, op := range pl.Ops {
		if !op.Collective {
			t.Errorf("%s %s not collective", op.Kind, op.Path)
		}
	}
}

// TestKernelReport: the program's lines, with its CSV column names, from the session's
// measurements: spans, creates and opens, raw times and per-rank rates in MiB/s.
func TestKernelReport(t *testing.T) {
	p := kit.Must(t)
	w := patterns.PhaseTimes{Phase: patterns.PhaseWrite, Ranks: 4, Bytes: 4 * 8 * mib, Start: 100, End: 103, FileBytes: 5000,
		Span: patterns.Timing{Min: 2, Max: 2.5}, Opens: patterns.Timing{Min: 0.25, Max: 0.5}, Raw: patterns.Timing{Min: 1, Max: 2}}
	r := patterns.PhaseTimes{Phase: patterns.PhaseRead, Ranks: 4, Bytes: 4 * 8 * mib, Start: 104, End: 106, FileBytes: 5000,
		Span: patterns.Timing{Min: 1.5, Max: 1.75}, Raw: patterns.Timing{Min: 0.5, Max: 4}, FileOpen: patterns.Timing{Max: 0.125}, Earlier: []patterns.PhaseTimes{w}}
	values := func(lines []patterns.Line) (map[string]float64, []string) {
		m := map[string]float64{}
		var names []string
		for _, l := range lines {
			if l.Name != "" {
				m[l.Name+" ["+l.Unit+"]"] = l.Value
				names = append(names, l.Name)
			}
		}
		return m, names
	}
	got, names := values(p.KernelReport(r))
	want := map[string]float64{"wall [s]": 6, "fsize [B]": 5000, "write-phase-min [s]": 2, "write-phase-max [s]": 2.5, "creat-min [s]": 0.25,
		"creat-max [s]": 0.5, "write-min [s]": 1, "write-max [s]": 2, "write-rate-min [MiB/s]": 4, "write-rate-max [MiB/s]": 8,
		"read-phase-min [s]": 1.5, "read-phase-max [s]": 1.75, "read-min [s]": 0.5, "read-max [s]": 4, "read-rate-min [MiB/s]": 2, "read-rate-max [MiB/s]": 16}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read phase lines\n got %v\nwant %v", got, want)
	}
	// In the program's CSV order.
	if order := strings.Join(names, ","); order != "wall,fsize,write-phase-min,write-phase-max,creat-min,creat-max,write-min,write-max,write-rate-min,write-rate-max,read-phase-min,read-phase-max,read-min,read-max,read-rate-min,read-rate-max" {
		t.Errorf("order %s", order)
	}
	// After the write alone: its own lines; a read alone starts its wall clock before its open.
	got, _ = values(p.KernelReport(w))
	if len(got) != 10 || got["wall [s]"] != 3 || got["write-rate-min [MiB/s]"] != 4 {
		t.Errorf("write phase lines %v", got)
	}
	r.Earlier = nil
	got, _ = values(p.KernelReport(r))
	if len(got) != 8 || got["wall [s]"] != 2.125 {
		t.Errorf("read-only lines %v", got)
	}
	// No time, no rate (never an infinity, which JSON cannot carry).
	r.Raw = patterns.Timing{}
	got, _ = values(p.KernelReport(r))
	if got["read-rate-max [MiB/s]"] != 0 || math.IsInf(got["read-rate-min [MiB/s]"], 0) {
		t.Errorf("rates of zero time: %v", got)
	}
	// The summary text is the program's: label, _min, then ^max on the next line.
	var text []string
	for _, l := range p.KernelReport(w) {
		text = append(text, l.Text)
	}
	if s := strings.Join(text, "\n"); !strings.Contains(s, "Write phase [s]:\t_2.00\n\t\t\t^2.50\nCreate time [s]:\t_0.25\n\t\t\t^0.50") ||
		!strings.Contains(s, "Wall clock [s]:\t\t3.00\nFile size [B]:\t\t5000") {
		t.Errorf("summary text:\n%s", s)
	}
}
