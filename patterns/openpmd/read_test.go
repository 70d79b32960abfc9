package openpmd

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// shapesOf answers Env.Shape from a rank's replayed write of the same configuration.
func shapesOf(w *written) func(string) ([]uint64, error) {
	return func(p string) ([]uint64, error) {
		for _, f := range w.files {
			if o := f.objs[p]; o != nil && o.dataset != nil {
				return o.dataset.Shape, nil
			}
		}
		return nil, fmt.Errorf("no dataset %s", p)
	}
}

// readEnv is the read environment of rank r of R after the same keys were written.
func readEnv(t *testing.T, p *Pattern, r, R int, name string) (patterns.Env, *written) {
	t.Helper()
	e := env(r, R, name)
	w := writeAll(t, p, e)
	e.Shape = shapesOf(w)
	return e, w
}

// readAll replays a read phase and checks that everything it opens exists in the written
// files with the same kind.
func readAll(t *testing.T, p *Pattern, e patterns.Env, w *written) *written {
	t.Helper()
	got, plans := replayPhase(t, p, patterns.PhaseRead, e)
	if !reflect.DeepEqual(got.fileOrder, w.fileOrder) {
		t.Errorf("read files %v, written %v", got.fileOrder, w.fileOrder)
	}
	var cur *file
	for _, pl := range plans {
		for _, op := range pl.Ops {
			switch op.Kind {
			case plan.OpenFile:
				cur = w.files[op.Path]
			case plan.OpenGroup, plan.OpenDataset:
				if o := cur.objs[op.Path]; o == nil || o.group != (op.Kind == plan.OpenGroup) {
					t.Errorf("%s %s: no such object in the written file", op.Kind, op.Path)
				}
			}
		}
	}
	return got
}

// wantOpens lists what reading iteration path ip opens, in order, for a mesh of dim.
func wantOpens(ip string, dim int) []string {
	out := []string{"g " + ip, "g " + ip + "/fields"}
	for _, rec := range []string{"B", "E"} {
		out = append(out, "g "+ip+"/fields/"+rec)
		for _, ax := range []string{"x", "y", "z"}[:dim] {
			out = append(out, "d "+ip+"/fields/"+rec+"/"+ax)
		}
	}
	sp := ip + "/particles/ion"
	return append(out, "d "+ip+"/fields/rho", "g "+ip+"/particles", "g "+sp, "d "+sp+"/charge", "d "+sp+"/id",
		"g "+sp+"/position", "d "+sp+"/position/x", "g "+sp+"/positionOffset", "g "+sp+"/positionOffset/x")
}

// TestReadSample: h5bench's sample read (pattern sy) of the sample write, on 2 ranks.
func TestReadSample(t *testing.T) {
	p := kit.Must(t, append(sample, "pattern=sy")...)
	for r := 0; r < 2; r++ {
		e, w := readEnv(t, p, r, 2, "8a_parallel_3Db.h5")
		got := readAll(t, p, e, w)
		if len(got.writes) != 1 {
			t.Fatalf("rank %d: %d reads", r, len(got.writes))
		}
		op := got.writes[0]
		want := plan.Transfer{Variable: "fields/rho", Buffer: "read:fields/rho", MemType: plan.F64, MemShape: u(128, 1, 128),
			FileType: plan.F64, FileShape: u(128, 256, 128), Selection: plan.Selection{Blocks: []plan.Hyperslab{plan.Block(u(0, uint64(r), 0), u(128, 1, 128))}}}
		if op.Path != "/data/fields/rho" || op.Collective || !reflect.DeepEqual(*op.Transfer, want) {
			t.Errorf("rank %d: %s collective=%v %+v, want %+v", r, op.Path, op.Collective, *op.Transfer, want)
		}
		if op.Transfer.Bytes() != 128*128*8 {
			t.Errorf("bytes %d", op.Transfer.Bytes())
		}
		b, _ := p.Begin(patterns.PhaseRead, e)
		wantFS := plan.FileSpec{Parallel: true, ReadOnly: true, CollMetadataOps: true, CollMetadataWrite: true, MDCInitialSize: 32 << 20}
		if len(b.Ops) != 1 || b.Ops[0].Kind != plan.OpenFile || b.Ops[0].Path != e.Path || !reflect.DeepEqual(*b.Ops[0].File, wantFS) {
			t.Errorf("Begin %v, want open-file %+v", b.Ops, wantFS)
		}
		st, _ := p.Step(patterns.PhaseRead, 0, e)
		var opens []string
		for _, op := range st.Ops {
			switch op.Kind {
			case plan.OpenGroup:
				opens = append(opens, "g "+op.Path)
			case plan.OpenDataset:
				opens = append(opens, "d "+op.Path)
			}
		}
		if !reflect.DeepEqual(opens, wantOpens("/data", 3)) {
			t.Errorf("opens\n%s\nwant\n%s", strings.Join(opens, "\n"), strings.Join(wantOpens("/data", 3), "\n"))
		}
	}
}

// TestReadPatterns: every 8b pattern in 1, 2 and 3 dimensions: which datasets are read
// and the selection (index rank mod extent along the axis, everything else).
func TestReadPatterns(t *testing.T) {
	type rd struct {
		path         string
		start, block []uint64
	}
	const R, r = 8, 6
	cases := map[string]struct {
		keys []string
		want map[string][]rd
	}{
		"3-D": {[]string{"dim=3", "minBlock=2 3 1", "grid=4 2 4"}, map[string][]rd{ // global [8,6,4], 8 ranks
			"m":  nil,
			"sx": {{"rho", u(6, 0, 0), u(1, 6, 4)}},
			"sy": {{"rho", u(0, 0, 0), u(8, 1, 4)}}, // 6 mod 6
			"sz": {{"rho", u(0, 0, 2), u(8, 6, 1)}}, // 6 mod 4
			"fx": {{"B/x", u(6, 0, 0), u(1, 6, 4)}, {"B/y", u(6, 0, 0), u(1, 6, 4)}, {"B/z", u(6, 0, 0), u(1, 6, 4)}},
			"fy": {{"B/x", u(0, 0, 0), u(8, 1, 4)}, {"B/y", u(0, 0, 0), u(8, 1, 4)}, {"B/z", u(0, 0, 0), u(8, 1, 4)}},
			"fz": {{"B/x", u(0, 0, 2), u(8, 6, 1)}, {"B/y", u(0, 0, 2), u(8, 6, 1)}, {"B/z", u(0, 0, 2), u(8, 6, 1)}},
		}},
		"2-D": {[]string{"dim=2", "minBlock=1 5", "grid=8 1"}, map[string][]rd{ // global [8,5]
			"sx": {{"rho", u(6, 0), u(1, 5)}},
			"sy": {{"rho", u(0, 1), u(8, 1)}}, // 6 mod 5
			"sz": nil, "fx": nil, "fy": nil, "fz": nil, "m": nil,
		}},
		"1-D": {[]string{"dim=1", "minBlock=3", "grid=8"}, map[string][]rd{ // global [24]
			"sx": {{"rho", u(0), u(24)}}, // the whole mesh
			"sy": nil, "sz": nil, "fx": nil, "m": nil,
		}},
	}
	for name, tc := range cases {
		for pat, want := range tc.want {
			t.Run(name+"-"+pat, func(t *testing.T) {
				p := kit.Must(t, append(tc.keys, "pattern="+pat)...)
				e, w := readEnv(t, p, r, R, "r.h5")
				got := readAll(t, p, e, w)
				var rds []rd
				for _, op := range got.writes {
					b := op.Transfer.Selection.Blocks[0]
					rds = append(rds, rd{strings.TrimPrefix(op.Path, "/data/fields/"), b.Start, b.Block})
					if !reflect.DeepEqual(op.Transfer.MemShape, b.Block) || op.Transfer.Variable != "fields/"+strings.TrimPrefix(op.Path, "/data/fields/") {
						t.Errorf("%s: %+v", op.Path, op.Transfer)
					}
				}
				if !reflect.DeepEqual(rds, want) {
					t.Errorf("reads %+v, want %+v", rds, want)
				}
			})
		}
	}
}

// TestReadEveryFifth: 8b processes iterations 1, 6, 11, ...; the others are only opened
// and closed. Collective transfers when OPENPMD_HDF5_INDEPENDENT=OFF.
func TestReadEveryFifth(t *testing.T) {
	p := kit.Must(t, "dim=2", "minBlock=2 2", "grid=2 2", "encoding=g", "steps=7", "pattern=sx", "OPENPMD_HDF5_INDEPENDENT=OFF")
	e, w := readEnv(t, p, 1, 2, "g.h5")
	got := readAll(t, p, e, w)
	var paths []string
	for _, op := range got.writes {
		paths = append(paths, op.Path)
		if !op.Collective {
			t.Errorf("%s: not collective", op.Path)
		}
	}
	if !reflect.DeepEqual(paths, []string{"/data/1/fields/rho", "/data/6/fields/rho"}) {
		t.Errorf("reads %v", paths)
	}
	st, _ := p.Step(patterns.PhaseRead, 3, e)
	if st.Ops[0].Kind != plan.OpenGroup || st.Ops[0].Path != "/data/4" || len(st.Ops) != 2*len(wantOpens("/data/4", 2)) {
		t.Errorf("iteration 4: %d ops, first %v", len(st.Ops), st.Ops[0])
	}
}

// TestReadFileBased: iteration 1's file opens in Begin; leaving an iteration closes its
// file and opens the next; an early End closes the file opened ahead.
func TestReadFileBased(t *testing.T) {
	p := kit.Must(t, "dim=2", "minBlock=2 2", "grid=2 2", "encoding=f", "steps=3", "pattern=sy")
	e, w := readEnv(t, p, 0, 1, "8a_parallel_2Db.h5")
	got := readAll(t, p, e, w)
	files := []string{seriesDir + "/8a_parallel_2Db_0000001.h5", seriesDir + "/8a_parallel_2Db_0000002.h5", seriesDir + "/8a_parallel_2Db_0000003.h5"}
	if !reflect.DeepEqual(got.fileOrder, files) {
		t.Errorf("files %v", got.fileOrder)
	}
	if p.FilePath(e) != files[0] {
		t.Errorf("FilePath %s", p.FilePath(e))
	}
	st, _ := p.Step(patterns.PhaseRead, 0, e)
	n := len(st.Ops)
	if st.Ops[n-2].Kind != plan.CloseFile || st.Ops[n-2].Path != files[0] || st.Ops[n-1].Kind != plan.OpenFile || st.Ops[n-1].Path != files[1] ||
		!st.Ops[n-1].File.ReadOnly {
		t.Errorf("step 0 ends with %v %v", st.Ops[n-2], st.Ops[n-1])
	}
	// Ending after 1 of 3 iterations closes iteration 2's file, opened ahead.
	b, _ := p.Begin(patterns.PhaseRead, e)
	end, _ := p.End(patterns.PhaseRead, 1, e)
	if _, err := replay(patterns.PhaseRead, false, []plan.Plan{b, st, end}, []int{-1, 0, -1}); err != nil {
		t.Errorf("early end: %v", err)
	}
	if end.Ops[0].Path != files[1] {
		t.Errorf("early end closes %v", end.Ops)
	}
	if end, _ := p.End(patterns.PhaseRead, 3, e); len(end.Ops) != 0 {
		t.Errorf("End after the last iteration: %v", end.Ops)
	}
}

func TestReadErrors(t *testing.T) {
	p := kit.Must(t, "pattern=sx")
	if _, err := p.Step(patterns.PhaseRead, 0, env(0, 1, "x.h5")); err == nil || !strings.Contains(err.Error(), "needs the file's dataset shapes") {
		t.Errorf("no Shape: %v", err)
	}
	e := env(0, 1, "x.h5")
	e.Shape = func(p string) ([]uint64, error) { return nil, fmt.Errorf("no such dataset") }
	if _, err := p.Step(patterns.PhaseRead, 0, e); err == nil || !strings.Contains(err.Error(), "extent of /data/fields/rho: no such dataset") {
		t.Errorf("Shape failure: %v", err)
	}
	e.Shape = func(string) ([]uint64, error) { return u(2, 2, 2, 2), nil }
	if _, err := p.Step(patterns.PhaseRead, 0, e); err == nil || !strings.Contains(err.Error(), "rank 4, want 1 to 3") {
		t.Errorf("4-D rho: %v", err)
	}
}
