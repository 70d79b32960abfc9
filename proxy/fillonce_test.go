package proxy_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestFillOnce writes with fill=once at 1, 2 and 4 ranks and reads back in the same session:
// the read verifies element by element against step 0's values; the whole preparation
// happens before the write's observed window (none inside it, none in any step); a later
// session verifies the file with fill=once and finds every step after 0 wrong when told the
// file was written with per-step seeded data. The CSV's h5bench rows mean what h5bench's do.
func TestFillOnce(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, rankCounts...) {
		return
	}
	size := world(t).Size()
	for _, c := range []combo{combos[0], combos[5], combos[9]} { // cc1d, ic1d (interleaved buffer), cs1d
		t.Run(c.name, func(t *testing.T) {
			file := fileOf(dir, "once-"+c.name, size)
			cfg := config(t, c.kv+";fill=once;TIMESTEPS=3;compute_time=20ms", file)
			cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
			if c.read {
				cfg.Phases = append(cfg.Phases, patterns.PhaseRead)
			}
			cfg.CSVFile = file + ".csv"
			s := session(t, cfg)
			if err := s.Run(); err != nil {
				t.Fatal(err)
			}
			rep, err := s.WriteReports(nil)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			w := rep.Phases[0]
			if w.Fill != "once" || w.PrepTime.Min <= 0 || w.PrepWindowTime.Max != 0 {
				t.Errorf("write: fill %s, prep %+v, in window %+v; want once, prep > 0 on every rank, none in the window", w.Fill, w.PrepTime, w.PrepWindowTime)
			}
			for _, st := range w.PerStep {
				if st.PrepTime.Max != 0 {
					t.Errorf("write step %d: preparation %v inside the window", st.Step, st.PrepTime.Max)
				}
			}
			if c.read {
				r := rep.Phases[1]
				if !r.Verified || r.Mismatches != 0 || r.Fill != "once" {
					t.Errorf("read: verified %v, mismatches %v, fill %s", r.Verified, r.Mismatches, r.Fill)
				}
			}
			if world(t).Rank() == 0 {
				checkCSVRows(t, cfg.CSVFile, rep.Phases[len(rep.Phases)-1])
			}
			if !c.read {
				return
			}
			// Another session knows the file only from its configuration.
			for _, fill := range []string{"once", "seeded"} {
				r := config(t, c.kv+";TIMESTEPS=3;verify=yes;fill="+fill, file)
				r.Phases = []patterns.Phase{patterns.PhaseRead}
				s := session(t, r)
				err := s.Run()
				s.Close()
				if fill == "once" && err != nil {
					t.Errorf("read with fill=once: %v", err)
				}
				if fill == "seeded" && !errors.Is(err, proxy.ErrVerify) {
					t.Errorf("read with fill=seeded of a fill=once file: %v, want ErrVerify (steps 1 and 2 hold step 0's data)", err)
				}
			}
		})
	}
}

// TestFillSeededPrepInWindow is the contrast: per-step seeded fills happen inside the
// window, step by step, and are reported as such.
func TestFillSeededPrepInWindow(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	cfg := config(t, combos[0].kv+";TIMESTEPS=3", filepath.Join(dir, "seeded-window.h5"))
	cfg.Phases = []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}
	s := session(t, cfg)
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Report()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	w := rep.Phases[0]
	if w.Fill != "seeded" || w.PrepWindowTime.Min <= 0 || w.PrepWindowTime.Max != w.PrepTime.Max {
		t.Errorf("seeded write: fill %s, prep %+v, in window %+v", w.Fill, w.PrepTime, w.PrepWindowTime)
	}
	for _, st := range w.PerStep {
		if st.PrepTime.Min <= 0 {
			t.Errorf("seeded write step %d: no preparation", st.Step)
		}
	}
	if r := rep.Phases[1]; !r.Verified || r.Mismatches != 0 {
		t.Errorf("read: verified %v, mismatches %v", r.Verified, r.Mismatches)
	}
}

// checkCSVRows parses the CSV and checks h5bench's rows against h5bench's definitions
// computed from the report: observed time is the window, observed rate is the size over the
// window less compute, raw rate the size over the raw time; h5proxy's own rows follow.
func checkCSVRows(t *testing.T, path string, p proxy.PhaseReport) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][2]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		f := strings.Split(l, ", ")
		if len(f) != 3 {
			t.Fatalf("%s: bad line %q", path, l)
		}
		rows[f[0]] = [2]string{f[1], strings.TrimSpace(f[2])}
	}
	num := func(k string) float64 {
		v, err := strconv.ParseFloat(rows[k][0], 64)
		if err != nil {
			t.Fatalf("%s: row %q: %v", path, k, err)
		}
		return v
	}
	// Rates in the row's unit.
	inUnit := func(k string, bps float64) float64 {
		scale := map[string]float64{"B/s": 1, "KB/s": 1 << 10, "MB/s": 1 << 20, "GB/s": 1 << 30}[rows[k][1]]
		if scale == 0 {
			t.Fatalf("%s: row %q unit %q", path, k, rows[k][1])
		}
		return bps / scale
	}
	close3 := func(k string, got, want float64) {
		if d := got - want; d > 0.0015 || d < -0.0015 {
			t.Errorf("%s: %q = %.4f, want %.4f", path, k, got, want)
		}
	}
	obs := num("observed time")
	close3("observed time", obs, p.ObservedTime)
	close3("raw time", num("raw time"), p.RawTime.Max)
	close3("total compute time", num("total compute time"), p.ComputeTime.Max)
	if p.ComputeTime.Min < 0.02*2-0.001 || obs < p.ComputeTime.Min {
		t.Errorf("compute %+v, observed %v: compute between the 3 steps is inside the window", p.ComputeTime, obs)
	}
	close3("observed rate", num("observed rate"), inUnit("observed rate", p.Bytes/(p.ObservedTime-p.ComputeTime.Min)))
	close3("raw rate", num("raw rate"), inUnit("raw rate", p.Bytes/p.RawTime.Max))
	close3("observed io rate", num("observed io rate"), inUnit("observed io rate", p.ObservedIORate))
	close3("data preparation time", num("data preparation time"), p.PrepTime.Max)
	close3("data preparation in window time", num("data preparation in window time"), p.PrepWindowTime.Max)
	close3("verification time", num("verification time"), p.VerifyTime.Max)
	if rows["fill"][0] != p.Fill {
		t.Errorf("%s: fill row %q, want %q", path, rows["fill"][0], p.Fill)
	}
}
