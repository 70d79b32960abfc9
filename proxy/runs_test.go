package proxy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestTransferRuns: the ior pattern through the mpiio layout, its transfers made in runs
// (transfer_runs=YES) and one call each (NO), collective and independent: each step's
// reads are one run, over the dataset close and open between the segments (the mpiio
// layout makes no MPI call for them); each segment's writes are one run (every write of a
// step writes IOR's one buffer, filled once; a run of writes does not pass over the
// dataset close and open), every
// phase's and step's census counts the same calls and bytes, and the time of the
// transfers is charged (raw time within the observed time). internal/mpi's TestRun checks
// the bytes a run moves. Through the native layout (api=HDF5) each segment's reads and
// each segment's writes are one run (IOR's H5Dclose and H5Dopen1 between the segments
// call HDF5 and end a run), from one C loop each (h5.TransferRun), with the same census,
// the HDF5 transfer census (collective I/O modes) included.
func TestTransferRuns(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	for _, api := range []string{"MPIIO", "HDF5"} {
		for _, coll := range []string{"1", "0"} {
			census := map[string][][]proxy.CallCount{}
			hdf5 := map[string][]any{}
			for _, runs := range []string{"YES", "NO"} {
				layout := map[string]string{"MPIIO": "mpiio", "HDF5": "native"}[api]
				kv := "api=" + api + ";layout=" + layout + ";blockSize=64k;transferSize=16k;segmentCount=2;repetitions=2;fill=once;verify=no;collective=" + coll + ";transfer_runs=" + runs
				cfg := patternConfig(t, "ior", kv, filepath.Join(dir, "runs"+coll+runs+".dat"))
				if cfg.PerCallTransfers != (runs == "NO") {
					t.Fatalf("transfer_runs=%s: PerCallTransfers %v", runs, cfg.PerCallTransfers)
				}
				runs0, xfers0 := proxy.RunsMade()
				rep := runReport(t, cfg, kv)
				runs1, xfers1 := proxy.RunsMade()
				// Per repetition, both segments' 4 reads are one run, and each segment's 4
				// writes one (IOR's data: the same bytes at every transfer of a step).
				readRuns := 2 // per repetition: over the segments
				if api == "HDF5" {
					readRuns = 2 * 2 // per segment
				}
				if r, x := runs1-runs0, xfers1-xfers0; runs == "YES" && (r != int64(readRuns+2*2) || x != 2*2*4+2*2*4) || runs == "NO" && r != 0 {
					t.Errorf("%s: %d runs of %d transfers", kv, r, x)
				}
				if len(rep.Phases) != 2 {
					t.Fatalf("%s: phases %+v", kv, rep.Phases)
				}
				for _, p := range rep.Phases {
					if p.Bytes != 2*2*2*64<<10 || p.RawTime.Max <= 0 || p.RawTime.Max > p.ObservedTime {
						t.Errorf("%s: %s phase: %v bytes, raw time %v of observed %v", kv, p.Phase, p.Bytes, p.RawTime.Max, p.ObservedTime)
					}
					census[runs] = append(census[runs], p.Census.Calls)
					c := p.Census
					if api == "HDF5" && coll == "1" && (c.CollectiveTransfers != 2*2*2*4 || len(c.IOModes) == 0) {
						t.Errorf("%s: %s phase: %v collective transfers, I/O modes %v; want 32 with their modes", kv, p.Phase, c.CollectiveTransfers, c.IOModes)
					}
					hdf5[runs] = append(hdf5[runs], c.CollectiveTransfers, c.IOModes, c.ChunkOpts, c.BrokenBy, c.Paths, c.NoSelectionIO)
					for _, st := range p.PerStep {
						census[runs] = append(census[runs], st.Census.Calls)
					}
				}
			}
			if !reflect.DeepEqual(census["YES"], census["NO"]) || !reflect.DeepEqual(hdf5["YES"], hdf5["NO"]) {
				t.Errorf("%s collective=%s: census with runs %+v %+v\nwithout %+v %+v", api, coll, census["YES"], hdf5["YES"], census["NO"], hdf5["NO"])
			}
		}
	}
}

// TestTransferRunError: a read run that meets the end of the file in its third transfer
// (the file cut short after the write) fails the step naming that transfer's dataset,
// call, offset and bytes, as the transfer made alone does (transfer_runs=NO), after making
// the two before it; no crash, and the session closes.
func TestTransferRunError(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 1) {
		return
	}
	const kv = "api=MPIIO;layout=mpiio;blockSize=64k;transferSize=16k;segmentCount=2;fill=once;verify=no"
	file := filepath.Join(dir, "short.dat")
	runReport(t, patternConfig(t, "ior", kv, file), "write")
	if err := os.Truncate(file, 40<<10); err != nil {
		t.Fatal(err)
	}
	errs := map[string]string{}
	for _, runs := range []string{"YES", "NO"} {
		cfg := patternConfig(t, "ior", kv+";transfer_runs="+runs, file)
		cfg.Phases = []proxy.Phase{proxy.PhaseRead}
		s := session(t, cfg)
		err := s.Run()
		if err == nil {
			t.Fatalf("transfer_runs=%s: reading a file cut short succeeded", runs)
		}
		errs[runs] = err.Error()
		s.Close()
	}
	want := "MPI_File_read_at " + file + ": 8192 of 16384 bytes at offset 32768: unexpected EOF"
	if !strings.Contains(errs["YES"], want) || errs["YES"] != errs["NO"] {
		t.Errorf("error with runs:\n%s\nwithout:\n%s\nwant both to contain %q", errs["YES"], errs["NO"], want)
	}
}

// TestTransferRunsTraced: with a timeline (trace_file), reads are still made in runs, and
// the timeline records each of a run's operations as its own event: every rank's I/O
// events (name, path, step and bytes, in order) are those of the same test made one call
// each (transfer_runs=NO), the dataset close and open inside a run included, each ending
// no earlier than it starts and no later than the next one starts.
func TestTransferRunsTraced(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	events := map[string]map[int][]string{}
	for _, runs := range []string{"YES", "NO"} {
		trace := filepath.Join(dir, "traced-"+runs+".json")
		kv := "api=MPIIO;layout=mpiio;blockSize=64k;transferSize=16k;segmentCount=2;repetitions=2;fill=once;verify=no;collective=1;transfer_runs=" + runs + ";trace_file=" + trace
		runs0, _ := proxy.RunsMade()
		runReport(t, patternConfig(t, "ior", kv, filepath.Join(dir, "traced.dat")), kv)
		runs1, _ := proxy.RunsMade()
		if made := runs1 - runs0; runs == "YES" && made != 2+2*2 || runs == "NO" && made != 0 { // the reads' and the writes' (TestTransferRuns)
			t.Errorf("%s: %d runs made", kv, made)
		}
		if world(t).Rank() != 0 { // rank 0 merges the ranks' timelines
			continue
		}
		doc := loadTrace(t, trace)
		events[runs] = map[int][]string{}
		last := map[int]float64{} // each rank's last I/O event's end
		for _, e := range doc.TraceEvents {
			if e.Cat != "io" {
				continue
			}
			if e.Ts+1 < last[e.Pid] || e.Dur < 0 {
				t.Errorf("%s: rank %d's %s %v at %v µs for %v, before the event before it ended (%v)", runs, e.Pid, e.Name, e.Args["path"], e.Ts, e.Dur, last[e.Pid])
			}
			last[e.Pid] = e.Ts + e.Dur
			events[runs][e.Pid] = append(events[runs][e.Pid], fmt.Sprintf("%s %v step %v bytes %v", e.Name, e.Args["path"], e.Args["step"], e.Args["bytes"]))
		}
	}
	if world(t).Rank() != 0 {
		return
	}
	if a, b := events["YES"], events["NO"]; len(a) != 2 || len(a[0]) < 2*2*2*4 || !reflect.DeepEqual(a, b) {
		t.Errorf("the timelines' I/O events with runs (%d ranks) and without differ:\nwith:    %q\nwithout: %q", len(a), a[0], b[0])
	}
}
