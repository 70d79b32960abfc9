package proxy

import (
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/plan"
)

// TestStallReportNamesRun: a rank stalled inside a run of transfers (one C loop, runs.go)
// reports the run, the number of its transfers and its first and last transfer, in the
// layout's names (the native layout's HDF5 calls, another layout's operations), not the
// run's first transfer alone. Operations in the run that are no transfer are not counted.
func TestStallReportNamesRun(t *testing.T) {
	read := func(path string, step int) *plan.Op {
		return &plan.Op{Kind: plan.Read, Path: path, Step: step, Transfer: &plan.Transfer{Buffer: "ior"}}
	}
	ops := []*plan.Op{read("/Dataset-0000.0000", 1), read("/Dataset-0000.0000", 1),
		{Kind: plan.CloseDataset, Path: "/Dataset-0000.0000", Step: 1}, {Kind: plan.OpenDataset, Path: "/Dataset-0000.0001", Step: 1},
		read("/Dataset-0000.0001", 1)}
	at := uint64(1)<<32 | uint64(stageStep)<<28 | uint64(2)<<24 | 2 // phase 2 (read), step 1
	for layout, want := range map[string]string{
		"mpiio":  "inside one of a run of 3 reads made from one C loop, from read /Dataset-0000.0000 (layout mpiio, step 1) to read /Dataset-0000.0001 (layout mpiio, step 1); ending the job",
		"native": "inside one of a run of 3 reads made from one C loop, from H5Dread /Dataset-0000.0000 (read, step 1) to H5Dread /Dataset-0000.0001 (read, step 1); ending the job",
	} {
		w := &watchdog{timeout: time.Second, rank: 1, size: 2, layout: layout, mode: "sync"}
		got := w.report(at, w.runMark(ops, 3), nil, 3*time.Second)
		if !strings.Contains(got, want) || !strings.Contains(got, "rank 1 of 2 made no progress for 3s") {
			t.Errorf("layout %s: report\n%s\nwant it to contain\n%s", layout, got, want)
		}
	}
}

// TestStallReportNamesBatch: a rank stalled inside a multi-dataset call reports the batch,
// its size and its first and last transfer; a watchdog that is off marks a run or batch
// with its first operation and formats nothing.
func TestStallReportNamesBatch(t *testing.T) {
	write := func(path string) *plan.Op {
		return &plan.Op{Kind: plan.Write, Path: path, Step: 0, Transfer: &plan.Transfer{Buffer: "b"}}
	}
	ops := []*plan.Op{write("/a"), write("/b"), write("/c")}
	w := &watchdog{timeout: time.Second, rank: 0, size: 1, layout: "native", mode: "sync"}
	at := uint64(1)<<32 | uint64(stageStep)<<28 | uint64(1)<<24 | 1
	got := w.report(at, w.groupMark(ops, 3, "a batch", "in one H5Dwrite_multi call"), nil, 2*time.Second)
	want := "inside one of a batch of 3 writes in one H5Dwrite_multi call, from H5Dwrite /a (write, step 0) to H5Dwrite /c (write, step 0)"
	if !strings.Contains(got, want) {
		t.Errorf("report\n%s\nwant it to contain\n%s", got, want)
	}
	off := &watchdog{layout: "native"}
	if m := off.runMark(ops, 3); m != ops[0] {
		t.Errorf("watchdog off: run mark %+v, want the first operation", m)
	}
}
