package proxy_test

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
)

// dlioKV is a small DLIO run: 5 train and 3 valid files (uneven over 2 and 4 ranks) of 3
// samples of 5x5 bytes (record-length 30 rounds down to 25), chunked (1, 3, 3) with deflate
// 6; two epochs of training in batches of 2 with shuffling, evaluation after each in
// batches of 1, 1 ms of compute per batch.
const dlioKV = "num-files-train=5;num-files-eval=3;num-samples-per-file=3;record-length=30;chunking=true;chunk-size=10;" +
	"compression=true;compression-level=6;keep-files=true;epochs=2;batch-size=2;batch-size-eval=1;shuffle=true;" +
	"seed-change-epoch=true;evaluation=true;computation-time=0.001;eval-time=0.001"

// patternConfig is the configuration of a pattern from "key=value;..." and a file.
func patternConfig(t *testing.T, pattern, kv, file string) proxy.Config {
	t.Helper()
	kvs, err := proxy.ParseKV(kv + ";file=" + file)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := proxy.ParseOptions(pattern, kvs)
	if err != nil {
		t.Fatalf("%s: %v", kv, err)
	}
	return cfg
}

// TestDLIO runs the DLIO pattern at 1, 2 and 4 ranks: first generation and training in one
// session without read threads (the program's own loop), then training alone on those
// files with read threads; every sample read is verified against what the generation
// wrote, the bytes are the program's, the kernel lines are the per-step measurements
// summed as the program sums them. The parent then compares each file with what
// h5bench_dlio writes.
func TestDLIO(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, rankCounts...) {
		for _, np := range rankCounts {
			checkDLIOFiles(t, filepath.Join(dir, fmt.Sprintf("data-np%d", np)))
		}
		return
	}
	np := world(t).Size()
	data := filepath.Join(dir, fmt.Sprintf("data-np%d", np))
	cfg := patternConfig(t, "dlio", dlioKV+";generate-data=true;train=true;read-threads=0", data)
	rep, got := runDLIO(t, cfg)
	if len(rep.Phases) != 2 || rep.Phases[0].Phase != "write" || rep.Phases[1].Phase != "read" {
		t.Fatalf("phases %+v", rep.Phases)
	}
	if w := rep.Phases[0]; w.Bytes != 8*(75+24) || len(w.Files) == 0 {
		t.Errorf("write: %v bytes (want 8 files of 75 + 24), files %v", w.Bytes, w.Files)
	}
	checkDLIORead(t, rep.Phases[1], got[1], np)
	// Training alone, with read threads: a session of its own, verifying the same files.
	cfg = patternConfig(t, "dlio", dlioKV+";train=true;read-threads=2;verify=yes", data)
	rep, got = runDLIO(t, cfg)
	if len(rep.Phases) != 1 {
		t.Fatalf("phases %+v", rep.Phases)
	}
	checkDLIORead(t, rep.Phases[0], got[0], np)
}

// runDLIO runs cfg and returns the report and what the kernel report got per phase.
func runDLIO(t *testing.T, cfg proxy.Config) (*proxy.Report, []patterns.PhaseTimes) {
	t.Helper()
	s := session(t, cfg)
	defer s.Close()
	c := &capturing{}
	proxy.WrapPattern(s, func(p patterns.Pattern) patterns.Pattern { c.Pattern = p; return dlioCapture{c} })
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Report()
	if err != nil {
		t.Fatal(err)
	}
	return rep, c.got
}

// dlioCapture passes the pattern's step counts and compute through the capturing wrapper.
type dlioCapture struct{ *capturing }

func (d dlioCapture) PhaseSteps(ph patterns.Phase, ranks int) int {
	return d.Pattern.(patterns.Stepper).PhaseSteps(ph, ranks)
}

func (d dlioCapture) ComputeAfter(ph patterns.Phase, step int, env patterns.Env) time.Duration {
	return d.Pattern.(patterns.Computer).ComputeAfter(ph, step, env)
}

// checkDLIORead checks a training phase: verified, the program's bytes (15 train samples:
// 15/2/np whole batches of 2 per rank; 9 valid samples: 9/np batches of 1, per epoch), and
// the kernel lines against the per-step measurements.
func checkDLIORead(t *testing.T, p proxy.PhaseReport, pt patterns.PhaseTimes, np int) {
	t.Helper()
	trainB, evalB := 15/2/np, 9/np
	perEpoch := float64(np * (trainB*2 + evalB) * 25)
	if !p.Verified || p.Mismatches != 0 || p.Bytes != 2*perEpoch || p.Steps != 2*(trainB+evalB) {
		t.Fatalf("read: verified %v mismatches %v bytes %v (want %v) steps %d", p.Verified, p.Mismatches, p.Bytes, 2*perEpoch, p.Steps)
	}
	lines := map[string]patterns.Line{}
	for _, l := range p.Kernel {
		lines[l.Name] = l
	}
	sum := func(from, to int, f func(patterns.StepTimes) float64) float64 {
		var s float64
		for i := from; i < to; i++ {
			s += f(pt.Steps[i])
		}
		return s
	}
	meta := func(s patterns.StepTimes) float64 { return s.FileOpen.Mean + s.Metadata.Mean + s.FileClose.Mean }
	// Steps: epoch 1 training, epoch 1 evaluation, epoch 2 training, epoch 2 evaluation.
	e1, e2 := [2]int{0, trainB}, [2]int{trainB + evalB, 2*trainB + evalB}
	v1, v2 := [2]int{trainB, trainB + evalB}, [2]int{2*trainB + evalB, 2 * (trainB + evalB)}
	for name, want := range map[string]float64{
		"ranks":               float64(np),
		"train metadata time": sum(e1[0], e1[1], meta) + sum(e2[0], e2[1], meta),
		"train total raw read time": sum(e1[0], e1[1], func(s patterns.StepTimes) float64 { return s.Raw.Mean }) +
			sum(e2[0], e2[1], func(s patterns.StepTimes) float64 { return s.Raw.Mean }),
		"train observed time epoch 2":                 sum(e2[0], e2[1], func(s patterns.StepTimes) float64 { return s.Wall.Mean }),
		"eval emulated compute time epoch 1":          sum(v1[0], v1[1], func(s patterns.StepTimes) float64 { return s.Compute.Mean }),
		"eval metadata time epoch 2":                  sum(v2[0], v2[1], meta),
		"train throughput samples per second epoch 1": float64(trainB*2) / sum(e1[0], e1[1], func(s patterns.StepTimes) float64 { return s.Wall.Mean }),
	} {
		l, ok := lines[name]
		if !ok || math.Abs(l.Value-want) > 1e-9*max(1, want) {
			t.Errorf("np=%d: line %q = %+v, want %v", np, name, l, want)
		}
	}
	// Every batch computed its 1 ms draw: the emulated compute is at least that.
	if c := lines["train emulated compute time"].Value; trainB > 0 && c < 2*float64(trainB)*0.001 {
		t.Errorf("train compute %v for %d batches of 1 ms", c, 2*trainB)
	}
	if l := lines["train total size"]; l.Text != fmt.Sprintf("Total training set size: %.3f  B", float64(trainB*2*np*25)) || l.Unit != "B" {
		t.Errorf("%+v", l)
	}
	if _, ok := lines["eval io stdev"]; !ok {
		t.Error("no evaluation lines")
	}
}

// checkDLIOFiles compares the data directory with what h5bench_dlio generates for dlioKV:
// train/img_<i>_of_5.h5 and valid/img_<i>_of_3.h5, each with /records (uint8 3x5x5,
// chunks 1x3x3, deflate 6) and /labels (int64, 3 zeros, contiguous) and nothing else.
func checkDLIOFiles(t *testing.T, data string) {
	t.Helper()
	var files []string
	for i := 1; i <= 5; i++ {
		files = append(files, filepath.Join(data, "train", fmt.Sprintf("img_%d_of_5.h5", i)))
	}
	for i := 1; i <= 3; i++ {
		files = append(files, filepath.Join(data, "valid", fmt.Sprintf("img_%d_of_3.h5", i)))
	}
	all, _ := filepath.Glob(filepath.Join(data, "*", "*"))
	if slices.Sort(all); !slices.Equal(all, slices.Sorted(slices.Values(files))) {
		t.Fatalf("data directory holds %v, want %v", all, files)
	}
	for _, file := range files {
		if got, want := treeLines(t, file), []string{"/labels dataset i64 [3]", "/records dataset u8 [3 5 5]"}; !slices.Equal(got, want) {
			t.Errorf("%s holds %v, want %v", file, got, want)
		}
		f, err := h5.OpenFile(file, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []struct {
			name    string
			chunk   []uint64
			deflate int
		}{{"/records", []uint64{1, 3, 3}, 6}, {"/labels", nil, 0}} {
			id, err := h5.OpenDataset(f, d.name)
			if err != nil {
				t.Fatal(err)
			}
			info, err := h5.DatasetInfo(id)
			h5.CloseDataset(id)
			if err != nil || !reflect.DeepEqual(info.Chunk, d.chunk) || info.Deflate != d.deflate {
				t.Errorf("%s %s: chunk %v deflate %d (%v), want %v %d", file, d.name, info.Chunk, info.Deflate, err, d.chunk, d.deflate)
			}
		}
		h5.CloseFile(f)
		labels := make([]int64, 3)
		if err := inspect.Read(file, "/labels", &labels); err != nil || !slices.Equal(labels, []int64{0, 0, 0}) {
			t.Errorf("%s labels %v (%v)", file, labels, err)
		}
	}
}

// treeLines lists a file's groups and datasets, one line each (inspect.Node.String).
func treeLines(t *testing.T, file string) []string {
	t.Helper()
	tree, err := inspect.Tree(file)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, n := range tree {
		lines = append(lines, n.String())
	}
	return lines
}
