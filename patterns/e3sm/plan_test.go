package e3sm

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

// TestAssign checks E3SM-IO's rank assignment: P/R processes each, one more for the first
// P%R ranks, nothing for ranks >= P.
func TestAssign(t *testing.T) {
	cases := []struct{ p, r, size, start, count int }{
		{16, 0, 1, 0, 16}, {16, 1, 2, 8, 8}, {16, 0, 3, 0, 6}, {16, 1, 3, 6, 5}, {16, 2, 3, 11, 5},
		{16, 3, 4, 12, 4}, {16, 15, 16, 15, 1}, {16, 16, 20, 16, 0}, {16, 19, 20, 16, 0}, {5, 4, 6, 4, 1},
	}
	for _, c := range cases {
		s, n := Assign(c.p, c.r, c.size)
		if s != c.start || n != c.count {
			t.Errorf("Assign(%d, %d, %d) = %d, %d; want %d, %d", c.p, c.r, c.size, s, n, c.start, c.count)
		}
	}
	// Every process is taken exactly once, whatever the rank count.
	for size := 1; size <= 20; size++ {
		next := 0
		for r := 0; r < size; r++ {
			s, n := Assign(16, r, size)
			if n > 0 && s != next {
				t.Fatalf("size %d rank %d starts at %d, want %d", size, r, s, next)
			}
			next += n
		}
		if next != 16 {
			t.Errorf("size %d covers %d processes", size, next)
		}
	}
}

// TestSelection checks the request -> hyperslab mapping: unflattened starts, the record
// index prepended, 1-element-thick blocks, and the runs HDF5 pairs memory with.
func TestSelection(t *testing.T) {
	dims := []uint64{3, 10}
	reqs := []Request{{Offset: 12, Length: 3}, {Offset: 0, Length: 2}, {Offset: 29, Length: 1}}
	sel, n := Selection(reqs, dims, 4)
	if n != 6 || len(sel.Blocks) != 3 {
		t.Fatalf("n %d blocks %d", n, len(sel.Blocks))
	}
	want := []string{"[4 1 2] [1 1 3]", "[4 0 0] [1 1 2]", "[4 2 9] [1 1 1]"}
	for i, h := range sel.Blocks {
		if got := fmt.Sprint(h.Start, " ", h.Block); got != want[i] || fmt.Sprint(h.Count) != "[1 1 1]" || fmt.Sprint(h.Stride) != "[1 1 1]" {
			t.Errorf("block %d: %s count %v stride %v, want %s", i, got, h.Count, h.Stride, want[i])
		}
	}
	shape := []uint64{5, 3, 10}
	if err := sel.Validate(shape); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(sel.Runs(shape)); got != "[{120 2} {132 3} {149 1}]" {
		t.Errorf("runs %s", got)
	}
	fixed, _ := Selection(reqs, dims, -1)
	if got := fmt.Sprint(fixed.Blocks[0].Start, fixed.Blocks[0].Block); got != "[1 2] [1 3]" {
		t.Errorf("fixed-size block %s", got)
	}
	if none, n := Selection(nil, dims, 0); !none.IsNone() || n != 0 {
		t.Errorf("no requests: %v %d", none, n)
	}
}

// TestSynthesizedMaps checks the synthesizer's invariants for every case and several
// process counts: every element is covered exactly once (I: land only, holes as fill
// requests), no request crosses a row, requests per process are balanced, and the F
// dynamics maps fall apart into length-1 requests like the real ones.
func TestSynthesizedMaps(t *testing.T) {
	for _, c := range []string{"F", "G", "I"} {
		for _, p := range []int{1, 3, 16} {
			m := synth(t, c, p)
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
			for k := range m.Decomps {
				dims := m.Decomps[k].Dims
				total := plan.Product(dims)
				seen := make([]int, total)
				var used uint64
				for r := 0; r < p; r++ {
					for _, fill := range []bool{false, true} {
						for _, q := range m.Requests(k, r, p, fill) {
							row := int64(dims[len(dims)-1])
							if q.Offset/row != (q.Offset+q.Length-1)/row {
								t.Fatalf("%s D%d: request %v crosses a row of %d", c, k+1, q, row)
							}
							if fill {
								for i := q.Offset; i < q.Offset+q.Length; i++ {
									seen[i]++
								}
							} else {
								used += uint64(q.Length)
							}
						}
					}
				}
				for i, s := range seen {
					if s != 1 {
						t.Fatalf("%s P=%d D%d: element %d covered %d times", c, p, k+1, i, s)
					}
				}
				if c != "I" && used != total {
					t.Errorf("%s D%d: written elements %d of %d", c, k+1, used, total)
				}
				if c == "I" && (used >= total || used == 0) {
					t.Errorf("I D%d: land elements %d of %d", k+1, used, total)
				}
			}
		}
	}
	m := synth(t, "F", 16)
	if s := m.Stats(1); s.MaxLen != 1 {
		t.Errorf("F D2 synthesized: %+v, want length-1 requests like the real map", s)
	}
	if s := m.Stats(2); s.TotalReqs != 5*(54*4+2) {
		t.Errorf("F D3 synthesized: %d requests, want lev*ncol", s.TotalReqs)
	}
	if s := m.Stats(0); s.MeanLen < 2 {
		t.Errorf("F D1 synthesized: %+v, want contiguous column runs", s)
	}
}

// TestSynthesizedStatsVsReal compares a synthesized ne4/16-process F map with the real
// 16p map's statistics (dims exactly, request counts and lengths approximately).
func TestSynthesizedStatsVsReal(t *testing.T) {
	m, err := Synthesize(SynthSpec{Case: "F", NProcs: 16, NE: 4, Lev: 72})
	if err != nil {
		t.Fatal(err)
	}
	// The real map: D1 866 (47 requests, 9..36 long), D2 866 (866 of 1), D3 72x866 (62352
	// of 1, 3744..4032 per process).
	if fmt.Sprint(m.Decomps[2].Dims) != "[72 866]" || fmt.Sprint(m.Decomps[0].Dims) != "[866]" {
		t.Fatalf("dims %v %v", m.Decomps[0].Dims, m.Decomps[2].Dims)
	}
	d3 := m.Stats(2)
	if d3.TotalReqs < 50000 || d3.MinReqs < 3000 || d3.MaxReqs > 4500 || d3.MaxLen > 2 {
		t.Errorf("D3 %+v, real: 62352 requests, 3744..4032 per process, length 1", d3)
	}
	d1 := m.Stats(0)
	if d1.TotalReqs > 200 || d1.MeanLen < 4 {
		t.Errorf("D1 %+v, real: 47 requests of mean length 18", d1)
	}
}

// newPattern builds the pattern from option pairs through its option table and factory.
func newPattern(t *testing.T, kv ...options.KV) *Pattern {
	t.Helper()
	p, _, err := plantest.For[*Pattern](Factory).BuildKV(kv)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanStructure walks the F write plans per rank and pins E3SM-IO's call order:
// files one after the other; definitions only at file creation; with record 0 first every
// fixed-size variable written in definition order (E3SM-IO's commit cd9d8c7), then per
// record every record dataset extended, in definition order, then every record variable
// written in definition order; partitioned writes collective (empty
// selections where a rank has nothing); non-partitioned ones an independent write on rank
// 0 alone with a memory space of the block's shape; no H5Fflush unless flush_file.
func TestPlanStructure(t *testing.T) {
	kv := []options.KV{{Key: "ne", Value: "2"}, {Key: "lev", Value: "3"}, {Key: "r", Value: "2"}, {Key: "nprocs", Value: "2"}}
	p := newPattern(t, kv...)
	if p.Steps() != 3 {
		t.Fatalf("steps %d, want 1 (h0) + 2 (h1)", p.Steps())
	}
	hs, err := p.Histories(2)
	if err != nil {
		t.Fatal(err)
	}
	// Definition order of each file's variables, and of its record variables.
	order := func(h *History, record bool) string {
		var names []string
		for _, v := range h.Vars {
			if v.Record == record {
				names = append(names, "/"+v.Name)
			}
		}
		return strings.Join(names, " ")
	}
	for _, size := range []int{1, 2, 3} {
		for rank := 0; rank < size; rank++ {
			env := patterns.Env{Rank: rank, Size: size, Path: "/d/out.h5"}
			begin, err := p.Begin(patterns.PhaseWrite, env)
			if err != nil {
				t.Fatal(err)
			}
			steps := [][]plan.Op{begin.Ops}
			for s := 0; s < p.Steps(); s++ {
				pl, err := p.Step(patterns.PhaseWrite, s, env)
				if err != nil {
					t.Fatal(err)
				}
				if err := pl.Validate(); err != nil {
					t.Fatal(err)
				}
				steps = append(steps, pl.Ops)
			}
			end, _ := p.End(patterns.PhaseWrite, p.Steps(), env)
			steps = append(steps, end.Ops)
			var files []string
			counts := map[plan.OpKind]int{}
			extended := map[string]int{}
			for si, ops := range steps {
				var exts, writes, recWrites []string
				for _, op := range ops {
					counts[op.Kind]++
					switch op.Kind {
					case plan.CreateFile:
						files = append(files, op.Path)
						exts, writes, recWrites = nil, nil, nil // the previous file's record ended with its close
					case plan.ExtendDataset:
						if len(recWrites) > 0 {
							t.Fatalf("rank %d step %d: extend of %s after record writes", rank, si-1, op.Path)
						}
						extended[op.Path] = int(op.Dataset.Shape[0])
						exts = append(exts, op.Path)
					case plan.Write:
						tr := op.Transfer
						v := varOf(t, op.Path)
						writes = append(writes, op.Path)
						if v.Record {
							recWrites = append(recWrites, op.Path)
						}
						switch {
						case v.Decomp > 0 && !op.Collective:
							t.Errorf("rank %d: partitioned write of %s is not collective", rank, op.Path)
						case v.Decomp == 0 && rank != 0:
							t.Errorf("rank %d writes non-partitioned %s", rank, op.Path)
						case v.Decomp == 0 && (op.Collective || len(tr.MemShape) != len(tr.FileShape)):
							t.Errorf("non-partitioned %s: collective %v, memory %v for file %v; want independent, block rank", op.Path, op.Collective, tr.MemShape, tr.FileShape)
						case v.Decomp == 0 && len(tr.MemShape) > 0 && plan.Product(tr.MemShape) != tr.Selection.NPoints(tr.FileShape):
							t.Errorf("non-partitioned %s: memory %v, %d points selected", op.Path, tr.MemShape, tr.Selection.NPoints(tr.FileShape))
						}
						if rank >= 2 && !tr.Selection.IsNone() {
							t.Errorf("size %d rank %d (no map process) selects data in %s", size, rank, op.Path)
						}
					}
				}
				if si == 0 && len(writes) > 0 {
					t.Errorf("rank %d: Begin writes %v; E3SM-IO writes fixed-size variables with record 0", rank, writes)
				}
				if si == 0 || si == len(steps)-1 {
					continue
				}
				h := hs[0]
				if si > 1 {
					h = hs[1]
				}
				if got := strings.Join(exts, " "); got != order(h, true) {
					t.Errorf("rank %d step %d: extends %s, want every record variable in definition order", rank, si-1, got)
				}
				// Record 0 of a file (steps 0 and 1) writes the fixed-size variables, then
				// the record ones; later records the record variables; rank 0 alone writes
				// the non-partitioned ones.
				want := order(h, true)
				if si != 3 {
					want = order(h, false) + " " + want
				}
				if rank != 0 {
					var keep []string
					for _, n := range strings.Fields(want) {
						if varOf(t, n).Decomp > 0 {
							keep = append(keep, n)
						}
					}
					want = strings.Join(keep, " ")
				}
				if got := strings.Join(writes, " "); got != want {
					t.Errorf("rank %d step %d: writes out of definition order:\n got %.200s\nwant %.200s", rank, si-1, got, want)
				}
			}
			if fmt.Sprint(files) != "[/d/out_h0.h5 /d/out_h1.h5]" {
				t.Errorf("files %v", files)
			}
			if counts[plan.CreateFile] != counts[plan.CloseFile] || counts[plan.CreateDataset] != counts[plan.CloseDataset] || counts[plan.CreateDataset] != 414+51 {
				t.Errorf("op counts %v", counts)
			}
			if counts[plan.FlushFile] != 0 {
				t.Errorf("rank %d: %d H5Fflush; E3SM-IO's HDF5 driver flushes nothing", rank, counts[plan.FlushFile])
			}
			if extended["/U"] != 2 || extended["/T"] != 1 {
				t.Errorf("extents: U %d (h1, 2 records), T %d (h0)", extended["/U"], extended["/T"])
			}
			wantRec := 399 + 2*36
			if counts[plan.ExtendDataset] != wantRec {
				t.Errorf("%d extends, want %d", counts[plan.ExtendDataset], wantRec)
			}
		}
	}
	// flush_file: one H5Fflush per record with y=1, none with y=-1.
	for y, want := range map[string]int{"1": 3, "-1": 0} {
		p := newPattern(t, append(kv, options.KV{Key: "flush_file", Value: "YES"}, options.KV{Key: "y", Value: y})...)
		n := 0
		for s := 0; s < p.Steps(); s++ {
			pl, err := p.Step(patterns.PhaseWrite, s, patterns.Env{Rank: 1, Size: 2, Path: "/d/out.h5"})
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range pl.Ops {
				if op.Kind == plan.FlushFile {
					n++
				}
			}
		}
		if n != want {
			t.Errorf("flush_file y=%s: %d flushes, want %d", y, n, want)
		}
	}
}

// fVars maps F dataset paths to variables (both files), built once.
var fVars map[string]*Var

// varOf finds an F variable by dataset path.
func varOf(t *testing.T, path string) *Var {
	t.Helper()
	if fVars == nil {
		fVars = map[string]*Var{}
		for _, hist := range []string{"h0", "h1"} {
			h, err := buildHistory("F", hist, synth(t, "F", 1), false, 1)
			if err != nil {
				t.Fatal(err)
			}
			for i := range h.Vars {
				fVars["/"+h.Vars[i].Name] = &h.Vars[i]
			}
		}
	}
	v := fVars[path]
	if v == nil {
		t.Fatalf("no F variable %s", path)
	}
	return v
}

// TestDatasetSpecs checks the canonical dataset properties.
func TestDatasetSpecs(t *testing.T) {
	rec := DatasetSpec(&Var{Type: plan.F64, Record: true, Shape: []uint64{72, 866}})
	if fmt.Sprint(rec.Shape, rec.MaxShape[1:], rec.Chunk) != "[0 72 866] [72 866] [1 72 866]" || rec.MaxShape[0] != plan.MaxUnlimited || !rec.FillNever || !rec.FillUndefined {
		t.Errorf("record dataset %+v", rec)
	}
	fix := DatasetSpec(&Var{Type: plan.F64, Shape: []uint64{866}})
	if fmt.Sprint(fix.Shape) != "[866]" || fix.Chunk != nil || fix.MaxShape != nil || !fix.FillNever || !fix.FillUndefined {
		t.Errorf("fixed dataset %+v", fix)
	}
	if s := DatasetSpec(&Var{Type: plan.F64}); len(s.Shape) != 0 {
		t.Errorf("scalar %+v", s)
	}
}

// TestHistoryPath checks E3SM-IO's file names.
func TestHistoryPath(t *testing.T) {
	for in, want := range map[[2]string]string{
		{"a/out.h5", "h0"}: "a/out_h0.h5", {"out.nc", "h1"}: "out_h1.nc", {"out.nc4", "h0"}: "out_h0.nc4",
		{"out.bp", "h1"}: "out_h1.bp", {"out", "h0"}: "out_h0", {"out.dat", "h1"}: "out.dat_h1", {"g.h5", ""}: "g.h5",
	} {
		if got := HistoryPath(in[0], in[1]); got != want {
			t.Errorf("HistoryPath(%q, %q) = %q, want %q", in[0], in[1], got, want)
		}
	}
}

// TestConfigErrors checks that bad option combinations name the key, the value and the
// rule.
func TestConfigErrors(t *testing.T) {
	cases := []struct {
		kv   []options.KV
		want string
	}{
		{[]options.KV{{Key: "y", Value: "0"}}, `key "y" value "0"`},
		{[]options.KV{{Key: "f", Value: "2"}}, `key "f" value "2"`},
		{[]options.KV{{Key: "case", Value: "X"}}, `key "case" value "X"`},
		{[]options.KV{{Key: "map", Value: "m.h5"}, {Key: "ne", Value: "30"}}, `key "ne" value "30"`},
		{[]options.KV{{Key: "land", Value: "1.5"}}, `key "land" value "1.5"`},
	}
	for _, c := range cases {
		v, err := Options.Parse(c.kv)
		if err == nil {
			_, err = Factory.New(v)
		}
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want it to name %s", c.kv, err, c.want)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestSortCoalesce checks the earlier read_decomp's order: sorted by offset, touching
// requests merged, never across the start of a row (row length 10 here).
func TestSortCoalesce(t *testing.T) {
	reqs := []Request{{25, 2}, {3, 2}, {5, 1}, {8, 2}, {10, 3}, {13, 1}, {1, 1}, {27, 1}}
	got := fmt.Sprint(SortCoalesce(reqs, 10))
	if want := "[{1 1} {3 3} {8 2} {10 4} {25 3}]"; got != want {
		t.Errorf("SortCoalesce = %s, want %s", got, want)
	}
	if got := SortCoalesce([]Request{{4, 1}}, 10); len(got) != 1 || got[0] != (Request{4, 1}) {
		t.Errorf("one request: %v", got)
	}
}

// TestOrderKey checks that order=sorted gives each rank the sorted, coalesced requests
// (fewer hyperslabs, increasing starts, the same elements) and that the default keeps
// map order, as h5bench's E3SM-IO does.
func TestOrderKey(t *testing.T) {
	kv := []options.KV{{Key: "ne", Value: "2"}, {Key: "lev", Value: "3"}, {Key: "nprocs", Value: "4"}}
	env := patterns.Env{Rank: 0, Size: 2, Path: "/d/out.h5"}
	writes := func(p *Pattern) map[string]*plan.Transfer {
		pl, err := p.Step(patterns.PhaseWrite, 0, env)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*plan.Transfer{}
		for _, op := range pl.Ops {
			if op.Kind == plan.Write && op.Collective {
				out[op.Path] = op.Transfer
			}
		}
		return out
	}
	mapOrder := writes(newPattern(t, append(kv, options.KV{Key: "order", Value: "map"})...))
	sorted := writes(newPattern(t, kv...)) // the default
	fewer, unsorted := 0, 0
	for path, m := range mapOrder {
		s := sorted[path]
		if s == nil {
			t.Fatalf("sorted plan lacks %s", path)
		}
		if s.Selection.NPoints(s.FileShape) != m.Selection.NPoints(m.FileShape) {
			t.Errorf("%s: sorted selects %d elements, map order %d", path, s.Selection.NPoints(s.FileShape), m.Selection.NPoints(m.FileShape))
		}
		if fmt.Sprint(s.Selection.Runs(s.FileShape)) != fmt.Sprint(sortedRuns(m.Selection.Runs(m.FileShape))) {
			t.Errorf("%s: sorted selection covers other elements", path)
		}
		if len(s.Selection.Blocks) < len(m.Selection.Blocks) {
			fewer++
		}
		if !increasing(s) {
			t.Errorf("%s: sorted blocks out of order", path)
		}
		if !increasing(m) {
			unsorted++
		}
	}
	if fewer == 0 || unsorted == 0 {
		t.Errorf("%d variables with fewer hyperslabs sorted, %d unsorted in map order: the synthesized map should show both", fewer, unsorted)
	}
}

// increasing reports whether a transfer's blocks start at increasing linear offsets.
func increasing(t *plan.Transfer) bool {
	prev := -1
	for _, b := range t.Selection.Blocks {
		off := 0
		for d, x := range b.Start {
			off = off*int(t.FileShape[d]) + int(x)
		}
		if off <= prev {
			return false
		}
		prev = off
	}
	return true
}

// sortedRuns merges runs in increasing order (what a sorted selection's runs are).
func sortedRuns(runs []plan.Run) []plan.Run {
	rs := append([]plan.Run(nil), runs...)
	sort.Slice(rs, func(i, j int) bool { return rs[i].Start < rs[j].Start })
	var out []plan.Run
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].Start+out[n-1].Len == r.Start {
			out[n-1].Len += r.Len
			continue
		}
		out = append(out, r)
	}
	return out
}
