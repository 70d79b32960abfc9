package proxy_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy/tracefile"
)

// traceDim and traceSteps size the traced VPIC writes: 1 MiB per variable and step, so
// the executor's writes of a step outlast their submission.
const (
	traceDim = 1 << 18
	// Five steps of 100 ms compute: under a loaded machine (go test runs packages side by
	// side) a step's background writes may all end before the rank starts computing, so
	// the overlap is asked of any of them.
	traceSteps = 5
)

// TestTrace writes VPIC in async mode with compute between steps at 1 and 2 ranks with
// trace_file set, and in sync mode at the same sizes. The merged timeline names a process
// per rank and the main and background tracks; every write is on the executor's track
// with its bytes, the rank's writes add up to what it wrote, and some background write
// overlaps the rank's compute in time. In sync mode the writes are on the main track and
// there is no background track.
func TestTrace(t *testing.T) {
	dir := testDir(t)
	nps := []int{1, 2}
	if mpitest.Run(t, nps...) {
		for _, np := range nps {
			checkTrace(t, traceFile(dir, "async", np), np, true)
			checkTrace(t, traceFile(dir, "sync", np), np, false)
		}
		return
	}
	size := world(t).Size()
	for _, mode := range []string{"async", "sync"} {
		cfg := config(t, fmt.Sprintf("NUM_DIMS=1;DIM_1=%d;TIMESTEPS=%d;fill=once;compute_time=100ms;mode=%s;trace_file=%s",
			traceDim, traceSteps, mode, traceFile(dir, mode, size)), fileOf(dir, "trace-"+mode, size))
		cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
		s := session(t, cfg)
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func traceFile(dir, mode string, np int) string {
	return filepath.Join(dir, fmt.Sprintf("trace-%s-np%d.json", mode, np))
}

// loadTrace reads a merged trace file.
func loadTrace(t *testing.T, file string) tracefile.File {
	t.Helper()
	doc, err := tracefile.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func checkTrace(t *testing.T, file string, np int, background bool) {
	t.Helper()
	doc := loadTrace(t, file)
	if parts, _ := filepath.Glob(file + ".rank*.part"); len(parts) > 0 {
		t.Errorf("%s: rank parts left behind: %v", file, parts)
	}
	names := map[[2]int]string{} // {pid, tid} -> thread name; {pid, -1} -> process name
	type span struct{ ts, end float64 }
	writes, computes := map[int][]span{}, map[int][]span{}
	written, fills, drains := map[int]float64{}, map[int]int{}, map[int]int{}
	for _, e := range doc.TraceEvents {
		switch {
		case e.Ph == "M" && e.Name == "process_name":
			names[[2]int{e.Pid, -1}], _ = e.Args["name"].(string)
		case e.Ph == "M" && e.Name == "thread_name":
			names[[2]int{e.Pid, e.Tid}], _ = e.Args["name"].(string)
		case e.Ph == "M": // process_sort_index
		case e.Ph != "X":
			t.Errorf("%s: event %q has phase %q", file, e.Name, e.Ph)
		case e.Ts < 0 || e.Dur < 0:
			t.Errorf("%s: event %q at %v for %v", file, e.Name, e.Ts, e.Dur)
		case e.Cat == "io" && e.Name == "write":
			if wantTid := map[bool]int{true: 1, false: 0}[background]; e.Tid != wantTid {
				t.Errorf("%s: write on track %d, want %d", file, e.Tid, wantTid)
			}
			b, _ := e.Args["bytes"].(float64)
			if b != traceDim*4 {
				t.Errorf("%s: write of %v bytes (%v), want %d", file, b, e.Args, traceDim*4)
			}
			written[e.Pid] += b
			writes[e.Pid] = append(writes[e.Pid], span{e.Ts, e.Ts + e.Dur})
		case e.Cat == "compute":
			if e.Tid != 0 || e.Dur < 50e3 {
				t.Errorf("%s: compute on track %d for %vµs, want main track, 60 ms", file, e.Tid, e.Dur)
			}
			computes[e.Pid] = append(computes[e.Pid], span{e.Ts, e.Ts + e.Dur})
		case e.Cat == "prep":
			fills[e.Pid]++
		case e.Cat == "wait" && e.Name == "wait (drain at close)":
			drains[e.Pid]++
		}
	}
	for r := 0; r < np; r++ {
		if got := names[[2]int{r, -1}]; got != fmt.Sprintf("rank %d", r) {
			t.Errorf("%s: process %d named %q", file, r, got)
		}
		if got := names[[2]int{r, 0}]; got != "main" {
			t.Errorf("%s: rank %d's track 0 named %q, want main", file, r, got)
		}
		bg, hasBg := names[[2]int{r, 1}]
		if hasBg != background || background && bg != "background executor" {
			t.Errorf("%s: rank %d's track 1 named %q (present %v), want background executor: %v", file, r, bg, hasBg, background)
		}
		// VPIC's 8 variables of 4-byte elements per particle and step.
		if want := float64(traceDim * 32 * traceSteps); written[r] != want {
			t.Errorf("%s: rank %d wrote %v bytes in its write events, want %v", file, r, written[r], want)
		}
		if len(computes[r]) != traceSteps-1 || fills[r] == 0 || drains[r] != 1 {
			t.Errorf("%s: rank %d: %d compute events (want %d), %d fills, %d drains (want 1)", file, r, len(computes[r]), traceSteps-1, fills[r], drains[r])
		}
		overlap := false
		for _, w := range writes[r] {
			for _, c := range computes[r] {
				overlap = overlap || w.ts < c.end && c.ts < w.end
			}
		}
		if overlap != background {
			t.Errorf("%s: rank %d: a write overlaps compute: %v, want %v", file, r, overlap, background)
		}
	}
}
