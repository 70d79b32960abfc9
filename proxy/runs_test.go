package proxy_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestTransferRuns: the ior pattern through the mpiio layout, its transfers made in runs
// (transfer_runs=YES) and one call each (NO), collective and independent: each segment's
// reads are one run (each write refills the buffer, so writes stay one by one), every
// phase's and step's census counts the same calls and bytes, and the time of the
// transfers is charged (raw time within the observed time). internal/mpi's TestRun checks
// the bytes a run moves.
func TestTransferRuns(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	for _, coll := range []string{"1", "0"} {
		census := map[string][][]proxy.CallCount{}
		for _, runs := range []string{"YES", "NO"} {
			kv := "api=MPIIO;layout=mpiio;blockSize=64k;transferSize=16k;segmentCount=2;repetitions=2;fill=once;verify=no;collective=" + coll + ";transfer_runs=" + runs
			cfg := patternConfig(t, "ior", kv, filepath.Join(dir, "runs"+coll+runs+".dat"))
			if cfg.PerCallTransfers != (runs == "NO") {
				t.Fatalf("transfer_runs=%s: PerCallTransfers %v", runs, cfg.PerCallTransfers)
			}
			runs0, xfers0 := proxy.RunsMade()
			rep := runReport(t, cfg, kv)
			runs1, xfers1 := proxy.RunsMade()
			// Per repetition, each segment's 4 reads are one run; each write refills the
			// buffer with its own data (fill=once: a transfer's values are its
			// elements'), so writes are made one by one.
			if r, x := runs1-runs0, xfers1-xfers0; runs == "YES" && (r != 2*2 || x != 2*2*4) || runs == "NO" && r != 0 {
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
				for _, st := range p.PerStep {
					census[runs] = append(census[runs], st.Census.Calls)
				}
			}
		}
		if !reflect.DeepEqual(census["YES"], census["NO"]) {
			t.Errorf("collective=%s: census with runs %+v\nwithout %+v", coll, census["YES"], census["NO"])
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
