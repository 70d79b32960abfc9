package dlio

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

// kit builds the pattern from "KEY=VALUE" pairs.
var kit = plantest.For[*Pattern](Factory)

// TestCRand: the generator gives glibc's rand() sequences (values printed by a C program
// calling srand and rand on glibc 2.36), srand(0) seeds as srand(1), and the shuffle of
// the program's Fisher-Yates pass over 0..15 after srand(42) is glibc's.
func TestCRand(t *testing.T) {
	for _, tc := range []struct {
		seed uint32
		want []uint32
	}{
		{1, []uint32{1804289383, 846930886, 1681692777, 1714636915, 1957747793}},
		{0, []uint32{1804289383, 846930886, 1681692777, 1714636915, 1957747793}},
		{42, glibcSeed42},
	} {
		var g crand
		g.seed(tc.seed)
		var got []uint32
		for range tc.want {
			got = append(got, g.next())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("srand(%d): %v, want %v", tc.seed, got, tc.want)
		}
	}
	var g crand
	g.seed(42)
	a := iota32(16)
	g.shuffle(a)
	if !slices.Equal(a, glibcShuffle42) {
		t.Errorf("shuffle after srand(42): %v, want %v", a, glibcShuffle42)
	}
}

// TestGenerate: rank r of 2 writes train files r+1, r+3, ... then valid files the same
// way; each file is the program's: the records dataset (uint8, samples x DIM x DIM, chunk
// (1, c, c), deflate) written whole, then the labels (int64 zeros), each closed before the
// next, in the data directory's train and valid folders.
func TestGenerate(t *testing.T) {
	p := kit.Must(t, "generate-data=true", "num-files-train=5", "num-files-eval=3", "num-samples-per-file=3", "record-length=30",
		"chunking=true", "chunk-size=10", "compression=true", "compression-level=6", "file-prefix=im", "train-data-folder=tr")
	if got := p.PhaseSteps(patterns.PhaseWrite, 2); got != 5 {
		t.Fatalf("write steps at 2 ranks: %d, want 3 train rounds + 2 valid rounds", got)
	}
	if p.C.Dim != 5 || p.C.RecordLength != 25 || p.C.ChunkDim != 3 {
		t.Fatalf("DIM %d record %d chunk %d, want 5, 25, 3", p.C.Dim, p.C.RecordLength, p.C.ChunkDim)
	}
	want := map[int][]string{
		0: {"tr/im_1_of_5.h5", "tr/im_3_of_5.h5", "tr/im_5_of_5.h5", "valid/im_1_of_3.h5", "valid/im_3_of_3.h5"},
		1: {"tr/im_2_of_5.h5", "tr/im_4_of_5.h5", "", "valid/im_2_of_3.h5", ""},
	}
	for rank := range 2 {
		plans := plantest.MustPhase(t, p, patterns.PhaseWrite, patterns.Env{Rank: rank, Size: 2, Path: "d"})
		if len(plans) != 5+2 {
			t.Fatalf("rank %d: %d write steps, want 5", rank, len(plans)-2)
		}
		for step, pl := range plans[1 : len(plans)-1] {
			w := want[rank][step]
			if w == "" {
				if len(pl.Ops) != 0 {
					t.Errorf("rank %d step %d: %d ops, want none", rank, step, len(pl.Ops))
				}
				continue
			}
			var kinds []string
			for _, op := range pl.Ops {
				kinds = append(kinds, op.Kind.String()+" "+op.Path)
			}
			f := filepath.Join("d", w)
			wantKinds := []string{"create-file " + f, "create-dataset /records", "write /records", "close-dataset /records",
				"create-dataset /labels", "write /labels", "close-dataset /labels", "close-file " + f}
			if !slices.Equal(kinds, wantKinds) {
				t.Fatalf("rank %d step %d: %v, want %v", rank, step, kinds, wantKinds)
			}
			rec, lab := pl.Ops[1].Dataset, pl.Ops[4].Dataset
			if !rec.Type.Equal(plan.U8) || !slices.Equal(rec.Shape, []uint64{3, 5, 5}) || !slices.Equal(rec.Chunk, []uint64{1, 3, 3}) || rec.Deflate != 6 {
				t.Errorf("records %+v", rec)
			}
			if !lab.Type.Equal(plan.I64) || !slices.Equal(lab.Shape, []uint64{3}) || lab.Chunk != nil || lab.Deflate != 0 {
				t.Errorf("labels %+v", lab)
			}
			if w := pl.Ops[2].Transfer; w.Bytes() != 75 || pl.Ops[2].Collective {
				t.Errorf("records write of %d bytes, collective %v", w.Bytes(), pl.Ops[2].Collective)
			}
			if l := pl.Ops[5].Transfer; l.Bytes() != 24 || !slices.Equal(l.Data, make([]byte, 24)) {
				t.Errorf("labels write %d bytes, data %v", l.Bytes(), l.Data)
			}
			if fs := pl.Ops[0].File; fs.Parallel || !fs.MakeDirs {
				t.Errorf("file spec %+v: want a file of one rank, directories made", fs)
			}
		}
		if err := plantest.CheckLifecycle(patterns.PhaseWrite, plans, plantest.Lifecycle{CreateOnly: true}); err != nil {
			t.Errorf("rank %d: %v", rank, err)
		}
	}
}

// reads lists a rank's sample reads in each read step as "train:file/sample".
func reads(t *testing.T, p *Pattern, rank, size int) [][]string {
	t.Helper()
	var out [][]string
	plans := plantest.MustPhase(t, p, patterns.PhaseRead, patterns.Env{Rank: rank, Size: size, Path: "d"})
	for _, pl := range plans[1 : len(plans)-1] {
		var s []string
		for i := 0; i < len(pl.Ops); i += 5 {
			open, rd := pl.Ops[i], pl.Ops[i+2]
			dir, name := filepath.Split(open.Path)
			var file, n uint64
			fmt.Sscanf(strings.TrimPrefix(name, "img_"), "%d_of_%d.h5", &file, &n)
			if rd.Kind != plan.Read || !slices.Equal(rd.Transfer.MemShape, []uint64{1, p.C.Dim, p.C.Dim}) {
				t.Fatalf("op %d: %v", i+2, rd)
			}
			s = append(s, fmt.Sprintf("%s:%d/%d", filepath.Base(dir), file, rd.Transfer.Selection.Blocks[0].Start[0]))
		}
		out = append(out, s)
	}
	if err := plantest.CheckLifecycle(patterns.PhaseRead, plans, plantest.Lifecycle{}); err != nil {
		t.Errorf("rank %d: %v", rank, err)
	}
	return out
}

// TestReadOrder: without shuffle, rank r's batch i with read threads is batch
// r x batches-per-rank + i of the sample order; without read threads, the program's loop
// starts rank r at sample r x batches-per-rank, so the ranks' samples overlap as the
// program's do. 16 samples in 4 files, batches of 3, 2 ranks: 2 batches per rank.
func TestReadOrder(t *testing.T) {
	base := []string{"train=true", "num-files-train=4", "num-samples-per-file=4", "batch-size=3", "epochs=1", "record-length=4", "computation-time=0"}
	p := kit.Must(t, append(base, "read-threads=2")...)
	got1 := reads(t, p, 1, 2)
	want := [][]string{{"train:2/2", "train:2/3", "train:3/0"}, {"train:3/1", "train:3/2", "train:3/3"}}
	if fmt.Sprint(got1) != fmt.Sprint(want) {
		t.Errorf("read threads, rank 1: %v, want %v", got1, want)
	}
	p = kit.Must(t, append(base, "read-threads=0")...)
	got1 = reads(t, p, 1, 2)
	want = [][]string{{"train:1/2", "train:1/3", "train:2/0"}, {"train:2/1", "train:2/2", "train:2/3"}}
	if fmt.Sprint(got1) != fmt.Sprint(want) {
		t.Errorf("no read threads, rank 1: %v, want %v", got1, want)
	}
}

// TestShuffle: with shuffle and seed-change-epoch, each epoch's order is the previous
// order shuffled again after srand(random-seed + epoch) (here 42: glibc's shuffle of 0..15
// starts epoch 1), the ranks read distinct samples (with read threads), and evaluation
// runs on the valid files after each epochs-between-evals-th epoch.
func TestShuffle(t *testing.T) {
	p := kit.Must(t, "train=true", "evaluation=true", "num-files-train=4", "num-files-eval=2", "num-samples-per-file=4", "batch-size=3",
		"batch-size-eval=2", "epochs=3", "epochs-between-evals=2", "record-length=4", "shuffle=true", "seed-change-epoch=true", "read-threads=1")
	// Per epoch: 2 train batches per rank; evaluation (8/2/2 = 2 batches) only after epoch 2.
	if n := p.PhaseSteps(patterns.PhaseRead, 2); n != 2+2+2+2 {
		t.Fatalf("read steps %d", n)
	}
	r0, r1 := reads(t, p, 0, 2), reads(t, p, 1, 2)
	first := strings.Join(append(slices.Clone(r0[0]), r0[1]...), " ")
	var want []string
	for _, k := range glibcShuffle42[:6] {
		want = append(want, fmt.Sprintf("train:%d/%d", k/4+1, k%4))
	}
	if first != strings.Join(want, " ") {
		t.Errorf("epoch 1, rank 0: %s, want %s", first, strings.Join(want, " "))
	}
	for _, seg := range [][2]int{{0, 2}, {2, 4}, {4, 6}, {6, 8}} {
		var all []string
		for s := seg[0]; s < seg[1]; s++ {
			all = append(all, r0[s]...)
			all = append(all, r1[s]...)
		}
		sorted := slices.Clone(all)
		slices.Sort(sorted)
		if len(slices.Compact(sorted)) != len(all) {
			t.Errorf("steps %v: ranks read a sample twice: %v", seg, all)
		}
		eval := seg[0] == 4
		for _, r := range all {
			if strings.HasPrefix(r, "valid:") != eval {
				t.Errorf("steps %v: %s", seg, r)
			}
		}
	}
	if slices.Equal(r0[0], r0[2]) {
		t.Errorf("epochs 1 and 2 read the same batch %v", r0[0])
	}
}

// TestTotalTrainingSteps: total-training-steps=3 over 2 ranks with 2 batches each: rank 0
// reads 2 batches per epoch, rank 1 one (its second step is empty); 4 or more lets every
// batch run.
func TestTotalTrainingSteps(t *testing.T) {
	base := []string{"train=true", "num-files-train=4", "num-samples-per-file=4", "batch-size=3", "epochs=2", "record-length=4", "read-threads=0"}
	p := kit.Must(t, append(base, "total-training-steps=3")...)
	r0, r1 := reads(t, p, 0, 2), reads(t, p, 1, 2)
	if len(r0) != 4 || len(r0[1]) != 3 || len(r1[0]) != 3 || len(r1[1]) != 0 || len(r1[3]) != 0 || p.C.TrainSteps(2) != 3 {
		t.Errorf("rank 0 %v, rank 1 %v, train steps %d", r0, r1, p.C.TrainSteps(2))
	}
	p = kit.Must(t, append(base, "total-training-steps=4")...)
	if r1 := reads(t, p, 1, 2); len(r1[1]) != 3 || p.C.TrainSteps(2) != 4 {
		t.Errorf("rank 1 %v", r1)
	}
}

// TestCompute: the compute after a batch is the program's draw: computation-time 0.323 (a C
// float, 0.32300001) with no deviation is 323000 us for every training batch, eval-time's for every
// evaluation batch, plus the batch's preprocess draws; none in the write phase.
func TestCompute(t *testing.T) {
	p := kit.Must(t, "train=true", "evaluation=true", "num-files-train=2", "num-files-eval=1", "num-samples-per-file=4", "batch-size=4",
		"batch-size-eval=4", "epochs=1", "record-length=4", "eval-time=0.5", "preprocess-time=0.001")
	env := patterns.Env{Rank: 0, Size: 1, Path: "d"}
	want := []time.Duration{323000*time.Microsecond + 4*time.Millisecond, 323000*time.Microsecond + 4*time.Millisecond, 500*time.Millisecond + 4*time.Millisecond}
	for step, w := range want {
		if got := p.ComputeAfter(patterns.PhaseRead, step, env); got != w {
			t.Errorf("step %d: %v, want %v", step, got, w)
		}
	}
	if got := p.ComputeAfter(patterns.PhaseWrite, 0, env); got != 0 {
		t.Errorf("write: %v", got)
	}
}

// TestConfigErrors: bad values are errors naming the key and the value or the reason.
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		pairs []string
		want  []string
	}{
		{[]string{"epochs=0", "train=true"}, []string{"epochs", "0"}},
		{[]string{"batch-size=0", "train=true"}, []string{"batch-size", "0"}},
		{[]string{"compression-level=12", "train=true"}, []string{"compression-level", "12"}},
		{[]string{"train=false"}, []string{"train", "generate-data and train are both false"}},
		{[]string{"train=true", "records-dataset-name=a/b"}, []string{"records-dataset-name", "a/b"}},
		{[]string{"train=true", "labels-dataset-name=records"}, []string{"labels-dataset-name", "records"}},
		{[]string{"generate-data=true", "record-length=1073741824", "num-samples-per-file=4"}, []string{"num-samples-per-file", "2 GiB"}},
		{[]string{"train=true", "read-threads=-1"}, []string{"read-threads", "-1"}},
		{[]string{"train=true", "shuffel=true"}, []string{"shuffel", "shuffle"}},
	} {
		_, _, err := kit.Build(tc.pairs...)
		if err == nil {
			t.Errorf("%v: no error", tc.pairs)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %v, want %q in it", tc.pairs, err, w)
			}
		}
	}
}

// TestKernelReport: the training lines are the program's, computed from the per-step
// measurements: 2 epochs of 2 batches at 1 rank, 8 samples of 16 bytes per epoch.
func TestKernelReport(t *testing.T) {
	p := kit.Must(t, "train=true", "num-files-train=2", "num-samples-per-file=4", "batch-size=4", "epochs=2", "record-length=16", "read-threads=0")
	var steps []patterns.StepTimes
	for i := range 4 {
		f := float64(i + 1)
		steps = append(steps, patterns.StepTimes{Step: i, Wall: patterns.Timing{Mean: 1 * f}, Raw: patterns.Timing{Mean: 0.1 * f},
			Metadata: patterns.Timing{Mean: 0.01 * f}, FileOpen: patterns.Timing{Mean: 0.02 * f}, FileClose: patterns.Timing{Mean: 0.03 * f},
			Compute: patterns.Timing{Mean: 0.5 * f}})
	}
	lines := p.KernelReport(patterns.PhaseTimes{Phase: patterns.PhaseRead, Ranks: 1, Steps: steps, Earlier: []patterns.PhaseTimes{{}}})
	text := map[string]string{}
	named := map[string]patterns.Line{}
	for _, l := range lines {
		if l.Text != "" {
			text[strings.SplitN(l.Text, ":", 2)[0]] = l.Text
		}
		if l.Name != "" {
			named[l.Name] = l
		}
	}
	// Epoch 1: steps 1, 2; epoch 2: steps 3, 4. 128 bytes per rank per epoch.
	obs1, obs2 := 3.0, 7.0
	thr := (8/obs1 + 8/obs2) / 2
	for k, want := range map[string]string{
		"Total number of ranks":                "Total number of ranks: 1",
		"Total training set size":              "Total training set size: 128.000  B",
		"Total training emulated compute time": "Total training emulated compute time: 5.000 s",
		"Training metadata time":               "Training metadata time: 0.600 s",
		"Training raw read time":               "Training raw read time: 1.000 s",
		"Observed training completion time":    "Observed training completion time: 10.000 s",
		"Training average throughput":          fmt.Sprintf("Training average throughput: %.3f samples/s", thr),
		"Training average raw read rate":       fmt.Sprintf("Training average raw read rate: %.3f  B/s", 304.0),
	} {
		if text[k] != want {
			t.Errorf("%q, want %q", text[k], want)
		}
	}
	if l := named["train metadata time epoch 2"]; math.Abs(l.Value-0.42) > 1e-12 || !l.Quiet || l.Unit != "s" {
		t.Errorf("per-epoch metadata line %+v", l)
	}
	if l := named["train observed time"]; l.Value != 10 || l.Unit != "s" {
		t.Errorf("%+v", l)
	}
	if _, ok := named["eval total size"]; ok {
		t.Error("evaluation lines without evaluation")
	}
	// The generation reports its messages only.
	w := p.KernelReport(patterns.PhaseTimes{Phase: patterns.PhaseWrite, Ranks: 2})
	if len(w) == 0 || w[len(w)-1].Text != "Generation done" {
		t.Errorf("write report %+v", w)
	}
}

// TestHuman: h5bench's format_human_readable truncates to whole bytes and steps down by
// whole KiB.
func TestHuman(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want float64
		unit byte
	}{{1023.9, 1023, ' '}, {1536, 1.5, 'K'}, {1536*1024 + 1000, 1.5, 'M'}, {7 << 30, 7, 'G'}} {
		if v, u := human(tc.v); v != tc.want || u != tc.unit {
			t.Errorf("human(%v) = %v %c, want %v %c", tc.v, v, u, tc.want, tc.unit)
		}
	}
}

// glibcSeed42 are glibc's first rand() values after srand(42), and glibcShuffle42 the
// program's shuffle of 0..15 after srand(42), both printed by a C program on glibc 2.36.
var (
	glibcSeed42    = []uint32{71876166, 708592740, 1483128881, 907283241, 442951012}
	glibcShuffle42 = []uint32{11, 2, 10, 9, 13, 8, 14, 12, 15, 1, 5, 4, 7, 3, 0, 6}
)
