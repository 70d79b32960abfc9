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
		got := w.report(at, w.runMark(ops), nil, 3*time.Second)
		if !strings.Contains(got, want) || !strings.Contains(got, "rank 1 of 2 made no progress for 3s") {
			t.Errorf("layout %s: report\n%s\nwant it to contain\n%s", layout, got, want)
		}
	}
}
