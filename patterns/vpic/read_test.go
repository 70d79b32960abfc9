package vpic

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

// fileShape is a fake env.Shape: every dataset of the file has the given dims. It records
// the paths asked for.
func fileShape(dims []uint64, asked *[]string) func(string) ([]uint64, error) {
	return func(p string) ([]uint64, error) {
		if asked != nil {
			*asked = append(*asked, p)
		}
		return append([]uint64(nil), dims...), nil
	}
}

func readEnv(rank, size int, dims []uint64) patterns.Env {
	e := env(rank, size)
	e.Shape = fileShape(dims, nil)
	return e
}

// wantReadStep is the read plan of one step (DELAYED_CLOSE_TIMESTEPS=0): open the group
// and the 8 datasets in read order, read them with native types, close them in the same
// order, then the group.
func wantReadStep(step int, dims, memShape []uint64, sel plan.Selection, collData, parallel bool) []plan.Op {
	g := fmt.Sprintf("/Timestep_%d", step)
	ops := []plan.Op{{Kind: plan.OpenGroup, Path: g, Collective: parallel, Step: step}}
	for _, v := range readOrderWant {
		// h5bench opens them with a dataset access list asking for collective metadata reads
		ops = append(ops, plan.Op{Kind: plan.OpenDataset, Path: g + "/" + v, Collective: parallel, CollMetadata: parallel, Step: step})
	}
	for _, v := range readOrderWant {
		ops = append(ops, plan.Op{Kind: plan.Read, Path: g + "/" + v, Collective: collData && parallel, Step: step,
			Transfer: &plan.Transfer{Variable: v, Buffer: "read:" + v, MemType: varWant(v), MemShape: memShape,
				FileType: varWant(v), FileShape: dims, Selection: sel}})
	}
	for _, v := range readOrderWant {
		ops = append(ops, plan.Op{Kind: plan.CloseDataset, Path: g + "/" + v, Step: step})
	}
	return append(ops, plan.Op{Kind: plan.CloseGroup, Path: g, Step: step})
}

// ldcKeys is a 2-D corner-read configuration: rank 0's region is 20x10, so BLOCK_SIZE must
// be in 2..4 and BLOCK_SIZE_2 in 1..2.
var ldcKeys = []string{"NUM_DIMS=2", "DIM_1=20", "DIM_2=10", "BLOCK_SIZE=3", "BLOCK_SIZE_2=2"}

func TestReadSelections(t *testing.T) {
	type sel = plan.Selection
	tests := []struct {
		name string
		keys []string
		// file dims written by R ranks, and rank r's selection and memory shape; rank0Only
		// means every other rank selects nothing (memory [1]).
		dims      func(R uint64) []uint64
		want      func(R, r uint64) (sel, []uint64)
		rank0Only bool
	}{
		{"FULL 1-D", []string{"READ_OPTION=FULL", "DIM_1=4"},
			func(R uint64) []uint64 { return u(4 * R) },
			func(R, r uint64) (sel, []uint64) { return one(u(4*r), u(4)), u(4) }, false},
		{"FULL 1-D, file holds more per rank: offset from the file", []string{"DIM_1=4"},
			func(R uint64) []uint64 { return u(10 * R) },
			func(R, r uint64) (sel, []uint64) { return one(u(10*r), u(4)), u(4) }, false},
		{"FULL 1-D reads all of a rank's share", []string{"DIM_1=10"},
			func(R uint64) []uint64 { return u(10 * R) },
			func(R, r uint64) (sel, []uint64) { return one(u(10*r), u(10)), u(10) }, false},
		{"PARTIAL without TO_READ_NUM_PARTICLES is FULL", []string{"READ_OPTION=PARTIAL", "DIM_1=4"},
			func(R uint64) []uint64 { return u(10 * R) },
			func(R, r uint64) (sel, []uint64) { return one(u(10*r), u(4)), u(4) }, false},
		{"PARTIAL with TO_READ_NUM_PARTICLES", []string{"READ_OPTION=PARTIAL", "DIM_1=4", "TO_READ_NUM_PARTICLES=3"},
			func(R uint64) []uint64 { return u(10 * R) },
			func(R, r uint64) (sel, []uint64) { return one(u(10*r), u(3)), u(3) }, false},
		{"PARTIAL reading a whole share", []string{"READ_OPTION=PARTIAL", "DIM_1=4", "TO_READ_NUM_PARTICLES=10"},
			func(R uint64) []uint64 { return u(10 * R) },
			func(R, r uint64) (sel, []uint64) { return one(u(10*r), u(10)), u(10) }, false},
		{"FULL 2-D", []string{"NUM_DIMS=2", "DIM_1=4", "DIM_2=3"},
			func(R uint64) []uint64 { return u(4*R, 3) },
			func(R, r uint64) (sel, []uint64) { return one(u(4*r, 0), u(4, 3)), u(4, 3) }, false},
		{"FULL 2-D of a larger file: start r*DIM_1", []string{"NUM_DIMS=2", "DIM_1=4", "DIM_2=3"},
			func(R uint64) []uint64 { return u(8*R, 5) },
			func(R, r uint64) (sel, []uint64) { return one(u(4*r, 0), u(4, 3)), u(4, 3) }, false},
		{"FULL 3-D", []string{"NUM_DIMS=3", "DIM_1=4", "DIM_2=3", "DIM_3=2"},
			func(R uint64) []uint64 { return u(4*R, 3, 2) },
			func(R, r uint64) (sel, []uint64) { return one(u(4*r, 0, 0), u(4, 3, 2)), u(4, 3, 2) }, false},
		{"STRIDED", []string{"FILE_PATTERN=STRIDED", "READ_OPTION=STRIDED", "DIM_1=16", "STRIDE_SIZE=4", "BLOCK_SIZE=2", "BLOCK_CNT=2"},
			func(R uint64) []uint64 { return u(16 * R) },
			func(R, r uint64) (sel, []uint64) { return slab(u(16*r), u(4), u(2), u(2)), u(4) }, false},
		{"STRIDED file with READ_OPTION=FULL", []string{"FILE_PATTERN=STRIDED", "DIM_1=16", "STRIDE_SIZE=5", "BLOCK_SIZE=3", "BLOCK_CNT=2"},
			func(R uint64) []uint64 { return u(16 * R) },
			func(R, r uint64) (sel, []uint64) { return slab(u(16*r), u(5), u(2), u(3)), u(6) }, false},
		{"LDC", append([]string{"READ_OPTION=LDC"}, ldcKeys...),
			func(R uint64) []uint64 { return u(20*R, 10) },
			func(R, r uint64) (sel, []uint64) {
				return sel{Blocks: []plan.Hyperslab{one(u(0, 0), u(3, 2)).Blocks[0], one(u(17, 8), u(3, 2)).Blocks[0]}}, u(6, 2)
			}, true},
		{"RDC", append([]string{"READ_OPTION=RDC"}, ldcKeys...),
			func(R uint64) []uint64 { return u(20*R, 10) },
			func(R, r uint64) (sel, []uint64) {
				return sel{Blocks: []plan.Hyperslab{one(u(17, 0), u(3, 2)).Blocks[0], one(u(0, 8), u(3, 2)).Blocks[0]}}, u(6, 2)
			}, true},
		{"PRL", append([]string{"READ_OPTION=PRL"}, ldcKeys...),
			func(R uint64) []uint64 { return u(20*R, 10) },
			func(R, r uint64) (sel, []uint64) {
				return sel{Blocks: []plan.Hyperslab{
					one(u(0, 0), u(20, 2)).Blocks[0], one(u(0, 8), u(20, 2)).Blocks[0],
					one(u(0, 2), u(3, 6)).Blocks[0], one(u(17, 2), u(3, 6)).Blocks[0],
				}}, u(40+40+18+18, 1)
			}, true},
		{"CS", append([]string{"READ_OPTION=CS", "STRIDE_SIZE=5", "STRIDE_SIZE_2=2"}, ldcKeys...),
			func(R uint64) []uint64 { return u(20*R, 10) },
			func(R, r uint64) (sel, []uint64) {
				// k = 0..3: (5k, 2k); k = 4 would start at row 20.
				var s sel
				for k := uint64(0); k < 4; k++ {
					s.Blocks = append(s.Blocks, one(u(5*k, 2*k), u(3, 2)).Blocks[0])
				}
				return s, u(24, 1)
			}, true},
		{"CS stops before a block ending at DIM_1", []string{"READ_OPTION=CS", "NUM_DIMS=2", "DIM_1=20", "DIM_2=20", "BLOCK_SIZE=4", "BLOCK_SIZE_2=2", "STRIDE_SIZE=4", "STRIDE_SIZE_2=2"},
			func(R uint64) []uint64 { return u(20*R, 20) },
			func(R, r uint64) (sel, []uint64) {
				// (16, 8) would end at row 20 = DIM_1: h5bench requires start+block < DIM.
				var s sel
				for k := uint64(0); k < 4; k++ {
					s.Blocks = append(s.Blocks, one(u(4*k, 2*k), u(4, 2)).Blocks[0])
				}
				return s, u(32, 1)
			}, true},
		{"CS stops before a block ending at DIM_2", []string{"READ_OPTION=CS", "NUM_DIMS=2", "DIM_1=40", "DIM_2=10", "BLOCK_SIZE=2", "BLOCK_SIZE_2=2", "STRIDE_SIZE=5", "STRIDE_SIZE_2=4"},
			func(R uint64) []uint64 { return u(40*R, 10) },
			func(R, r uint64) (sel, []uint64) {
				// columns 0 and 4 fit; (10, 8) would end at column 10 = DIM_2.
				return sel{Blocks: []plan.Hyperslab{one(u(0, 0), u(2, 2)).Blocks[0], one(u(5, 4), u(2, 2)).Blocks[0]}}, u(8, 1)
			}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := kit.Must(t, append(tc.keys, "TIMESTEPS=2")...)
			for R := 1; R <= 4; R++ {
				dims := tc.dims(uint64(R))
				for r := 0; r < R; r++ {
					e := readEnv(r, R, dims)
					var asked []string
					e.Shape = fileShape(dims, &asked)
					plans, err := plantest.Phase(p, patterns.PhaseRead, 2, e)
					if err != nil {
						t.Fatalf("R=%d r=%d: %v", R, r, err)
					}
					wantSel, wantMem := tc.want(uint64(R), uint64(r))
					if tc.rank0Only && r != 0 {
						wantSel, wantMem = plan.None(), u(1)
					}
					for s := 0; s < 2; s++ {
						if err := compareOps(plans[1+s].Ops, wantReadStep(s, dims, wantMem, wantSel, false, true)); err != nil {
							t.Fatalf("R=%d r=%d step %d:\n%v", R, r, s, err)
						}
						if got, want := plans[1+s].RawBytes(), 32*wantSel.NPoints(dims); got != want {
							t.Errorf("R=%d r=%d: RawBytes %d, want %d", R, r, got, want)
						}
					}
					for _, a := range asked {
						if a != "/Timestep_0/px" {
							t.Errorf("dimensions taken from %s, want /Timestep_0/px", a)
						}
					}
					if len(asked) == 0 {
						t.Error("env.Shape never called")
					}
					if err := plantest.CheckLifecycle(patterns.PhaseRead, plans, vpicLifecycle); err != nil {
						t.Errorf("R=%d r=%d lifecycle: %v", R, r, err)
					}
				}
			}
		})
	}
}

func TestReadBeginEnd(t *testing.T) {
	for _, c := range []struct {
		name     string
		keys     []string
		parallel bool
		collData bool
		path     string
	}{
		{"shared", nil, true, false, testPath},
		{"shared collective", []string{"COLLECTIVE_DATA=YES"}, true, true, testPath},
		// The read kernel always uses collective metadata; COLLECTIVE_METADATA=NO does not
		// turn it off.
		{"metadata key ignored", []string{"COLLECTIVE_METADATA=NO", "ALIGN=YES", "ALIGN_LEN=4096"}, true, false, testPath},
		{"file per proc", []string{"FILE_PER_PROC=YES", "COLLECTIVE_DATA=YES"}, false, true, "/data/run/rank_2_test.h5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := kit.Must(t, append(c.keys, "DIM_1=4", "TIMESTEPS=1")...)
			e := readEnv(2, 3, u(12))
			plans, err := plantest.Phase(p, patterns.PhaseRead, 1, e)
			if err != nil {
				t.Fatal(err)
			}
			begin := plans[0].Ops
			if len(begin) != 1 || begin[0].Kind != plan.OpenFile || begin[0].Path != c.path || begin[0].Collective != c.parallel {
				t.Fatalf("Begin = %v", begin)
			}
			f := begin[0].File
			if !f.ReadOnly || f.Parallel != c.parallel || f.CollMetadataOps != c.parallel || f.CollMetadataWrite != c.parallel ||
				f.AlignLen != 0 || f.AlignThreshold != 0 || f.MDCInitialSize != 0 {
				t.Errorf("read file spec %+v", f)
			}
			if err := compareOps(plans[1].Ops, wantReadStep(0, u(12), u(4), one(u(8), u(4)), c.collData, c.parallel)); err != nil {
				t.Errorf("step:\n%v", err)
			}
			if err := compareOps(plans[2].Ops, []plan.Op{{Kind: plan.CloseFile, Path: c.path, Collective: c.parallel}}); err != nil {
				t.Errorf("End (no flush in a read phase):\n%v", err)
			}
		})
	}
}

func TestReadDelayedClose(t *testing.T) {
	// h5bench's read kernel shares the write kernel's delayed close (layouts.md 1.6).
	for _, w := range wantCloses {
		t.Run(fmt.Sprintf("D=%d/async=%v", w.d, w.async), func(t *testing.T) {
			p := kit.Must(t, "DIM_1=4", "TIMESTEPS=5", fmt.Sprintf("DELAYED_CLOSE_TIMESTEPS=%d", w.d))
			e := readEnv(1, 2, u(8))
			e.Async = w.async
			plans, err := plantest.Phase(p, patterns.PhaseRead, 5, e)
			if err != nil {
				t.Fatal(err)
			}
			for s := 0; s < 5; s++ {
				if got := closedSteps(t, plans[1+s], readOrderWant); !reflect.DeepEqual(got, w.steps[s]) {
					t.Errorf("step %d closes %v, want %v", s, got, w.steps[s])
				}
				if w.d > 0 && plans[1+s].Ops[len(plans[1+s].Ops)-1].Kind != plan.Read {
					t.Errorf("step %d: a delayed step must end with its reads", s)
				}
			}
			if got := closedSteps(t, plans[6], readOrderWant); !reflect.DeepEqual(got, w.end) {
				t.Errorf("End closes %v, want %v", got, w.end)
			}
			if err := plantest.CheckLifecycle(patterns.PhaseRead, plans, vpicLifecycle); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name  string
		keys  []string
		R, r  int
		dims  []uint64
		begin bool // error from Begin rather than Step
		want  string
	}{
		{"INTERLEAVED file", []string{"FILE_PATTERN=INTERLEAVED"}, 2, 0, u(2), true,
			"vpic read: the read kernel reads FILE_PATTERN CONTIG or STRIDED files (datasets of native f32/i32), not INTERLEAVED"},
		{"NUM_DIMS 2, file 1-D", []string{"NUM_DIMS=2", "DIM_1=2", "DIM_2=2"}, 2, 1, u(8), false,
			"vpic read: file datasets have rank 1, NUM_DIMS=2"},
		{"NUM_DIMS 1, file 3-D", []string{"DIM_1=2"}, 1, 0, u(2, 2, 2), false,
			"vpic read: file datasets have rank 3, NUM_DIMS=1"},
		{"more particles than a rank's share", []string{"DIM_1=8"}, 2, 1, u(8), false,
			"vpic read: 8 particles per rank requested, the file holds 4 per rank (8 over 2 ranks)"},
		{"PARTIAL asks too many", []string{"READ_OPTION=PARTIAL", "DIM_1=2", "TO_READ_NUM_PARTICLES=5"}, 3, 0, u(12), false,
			"vpic read: 5 particles per rank requested, the file holds 4 per rank (12 over 3 ranks)"},
		{"2-D DIM_1 too large", []string{"NUM_DIMS=2", "DIM_1=5", "DIM_2=3"}, 2, 0, u(8, 3), false,
			"vpic read: DIM_1=5 exceeds the file's 4 rows per rank (8 over 2 ranks)"},
		{"2-D DIM_2 too large", []string{"NUM_DIMS=2", "DIM_1=4", "DIM_2=4"}, 2, 0, u(8, 3), false,
			"vpic read: DIM_2=4 exceeds the file's extent 3"},
		{"3-D DIM_3 too large", []string{"NUM_DIMS=3", "DIM_1=4", "DIM_2=3", "DIM_3=3"}, 2, 1, u(8, 3, 2), false,
			"vpic read: DIM_3=3 exceeds the file's extent 2"},
		{"corner read beyond the file", append([]string{"READ_OPTION=LDC"}, ldcKeys...), 1, 0, u(20, 8), false,
			"vpic read: DIM_1 x DIM_2 = 20x10 exceeds the file's [20 8]"},
		{"STRIDED selection beyond the file", []string{"FILE_PATTERN=STRIDED", "DIM_1=16", "STRIDE_SIZE=4", "BLOCK_SIZE=2", "BLOCK_CNT=2"}, 2, 1, u(10), false,
			"hyperslab 0 dim 0: ends at 11 beyond extent 10"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := kit.Must(t, tc.keys...)
			e := readEnv(tc.r, tc.R, tc.dims)
			_, err := p.Begin(patterns.PhaseRead, e)
			if !tc.begin {
				if err != nil {
					t.Fatalf("Begin: %v", err)
				}
				_, err = p.Step(patterns.PhaseRead, 0, e)
			}
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
	// Other ranks of a corner read do not look at the region at all.
	p := kit.Must(t, append([]string{"READ_OPTION=LDC"}, ldcKeys...)...)
	if _, err := p.Step(patterns.PhaseRead, 0, readEnv(1, 2, u(20, 8))); err != nil {
		t.Errorf("rank 1 of a corner read: %v", err)
	}
}

func TestReadShapeErrors(t *testing.T) {
	p := kit.Must(t, "DIM_1=4")
	e := env(0, 1)
	if _, err := p.Step(patterns.PhaseRead, 0, e); err == nil || err.Error() != "vpic read: the plan needs the file's dataset shapes (env.Shape)" {
		t.Errorf("nil Shape: %v", err)
	}
	boom := errors.New("no such dataset")
	e.Shape = func(string) ([]uint64, error) { return nil, boom }
	_, err := p.Step(patterns.PhaseRead, 0, e)
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "vpic read: shape of /Timestep_0/px: ") {
		t.Errorf("Shape error: %v", err)
	}
}
