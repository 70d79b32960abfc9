package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/proxy/tracefile"
)

// TestTraceFigures: one rank, two steps. Step 1's compute (1000-2000 us) is half covered
// by a background write (1500-2500 us) and starts 500 us after the last submission; step
// 2's compute (5000-6000 us) starts 1000 us after its submission and 200 us after a
// background write ended, inside that pause: the pause a lock held by the executor makes.
func TestTraceFigures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.json")
	ev := []tracefile.Event{
		{Name: "process_name", Ph: "M", Pid: 0},
		{Cat: "submit", Ph: "X", Ts: 400, Dur: 100},
		{Cat: "io", Ph: "X", Tid: 1, Ts: 1500, Dur: 1000},
		{Cat: "compute", Ph: "X", Ts: 1000, Dur: 1000},
		{Cat: "submit", Ph: "X", Ts: 3900, Dur: 100},
		{Cat: "io", Ph: "X", Tid: 1, Ts: 4000, Dur: 800},
		{Cat: "compute", Ph: "X", Ts: 5000, Dur: 1000},
	}
	if err := tracefile.Write(path, tracefile.File{TraceEvents: ev}); err != nil {
		t.Fatal(err)
	}
	got, err := traceFigures(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"covered by background HDF5 calls 0.25", "median 0.8 ms", "max 1.0 ms", "1 of 2 ended within 2 ms"} {
		if !strings.Contains(got, want) {
			t.Errorf("traceFigures: %q, want %q in it", got, want)
		}
	}
	if _, err := traceFigures(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("traceFigures of a missing trace: no error")
	}
}
