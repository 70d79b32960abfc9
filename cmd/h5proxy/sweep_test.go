package main

import (
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/proxy"
)

// tinyVPIC writes a native one-rank VPIC write configuration into dir.
func tinyVPIC(t *testing.T, dir string) string {
	t.Helper()
	return writeJSON(t, filepath.Join(dir, "vpic.json"), map[string]any{
		"pattern": "vpic", "phases": []string{"write"},
		"session": map[string]any{"file": filepath.Join(dir, "orig", "particles.h5"), "csv_file": "particles.csv"},
		"options": map[string]any{"NUM_DIMS": 1, "DIM_1": 64, "TIMESTEPS": 1, "COLLECTIVE_DATA": "YES"},
	})
}

// TestSweep runs two keys (three values x two) x 3 repetitions of a tiny VPIC write at one
// rank: 18 CSV rows in interleaved order, each with the bytes its own DIM_1 writes and
// the mode its report names; the runs' data files are gone, their reports, CSV files and
// logs kept;
// the plots decode as PNG and parse as SVG.
func TestSweep(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyVPIC(t, dir)
	out := filepath.Join(dir, "study")
	r := h5proxyWithin(t, 300*time.Second, dir, "sweep", "-np", "1", "-out", out, "-metric", "write.raw_rate", cfg, "DIM_1=64,128,256", "mode=sync,async")
	png1 := filepath.Join(out, "write.raw_rate-vs-DIM_1-by-mode.png")
	svg1 := filepath.Join(out, "write.raw_rate-vs-DIM_1-by-mode.svg")
	r.expect(t, 0, []string{filepath.Join(out, "sweep.csv"), filepath.Join(out, "sweep.json"), png1, svg1},
		[]string{"h5proxy sweep: [1/18] DIM_1=64 mode=sync rep 1", "[18/18] DIM_1=256 mode=async rep 3", "18 runs in"})

	f, err := os.Open(filepath.Join(out, "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 19 {
		t.Fatalf("sweep.csv has %d rows, want 18 and a header", len(recs)-1)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"run", "rep", "DIM_1", "mode", "error", "write.bytes", "write.raw_rate", "write.observed_time", "ranks"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("sweep.csv lacks column %q: %q", h, recs[0])
		}
	}
	dims, modes := []string{"64", "128", "256"}, []string{"sync", "async"}
	for i, rec := range recs[1:] {
		dim, mode := dims[i%6/2], modes[i%2]
		if rec[col["run"]] != strconv.Itoa(i) || rec[col["rep"]] != strconv.Itoa(i/6) || rec[col["DIM_1"]] != dim || rec[col["mode"]] != mode || rec[col["error"]] != "" {
			t.Errorf("row %d: %q, want run %d rep %d DIM_1=%s mode=%s", i, rec, i, i/6, dim, mode)
			continue
		}
		n, _ := strconv.Atoi(dim)
		if got := rec[col["write.bytes"]]; got != strconv.Itoa(32*n) {
			t.Errorf("row %d (DIM_1=%s): write.bytes %s, want %d", i, dim, got, 32*n)
		}
		if rate, err := strconv.ParseFloat(rec[col["write.raw_rate"]], 64); err != nil || rate <= 0 {
			t.Errorf("row %d: write.raw_rate %q", i, rec[col["write.raw_rate"]])
		}
		var rep proxy.Report
		data, err := os.ReadFile(filepath.Join(out, "reports", "run-"+leftPad(i)+".json"))
		if err == nil {
			err = json.Unmarshal(data, &rep)
		}
		if err != nil || len(rep.Phases) != 1 {
			t.Fatalf("run %d's report: %v (%d phases)", i, err, len(rep.Phases))
		}
		if _, err := os.Stat(filepath.Join(out, "reports", "run-"+leftPad(i)+".particles.csv")); err != nil {
			t.Errorf("run %d's CSV file: %v", i, err)
		}
		if rep.ModeEffective != mode || !strings.HasPrefix(rep.Phases[0].File, filepath.Join(out, "data", "run-"+leftPad(i))) {
			t.Errorf("run %d: report mode %s, file %s; want %s in its own data directory", i, rep.ModeEffective, rep.Phases[0].File, mode)
		}
	}
	if left := dirFiles(t, filepath.Join(out, "data")); len(left) != 0 {
		t.Errorf("data files left after the runs: %v", left)
	}
	if logs := dirFiles(t, filepath.Join(out, "logs")); len(logs) != 18 {
		t.Errorf("%d logs, want 18", len(logs))
	}

	// The same study plotted again with another metric and keys, from its CSV alone.
	r = h5proxy(t, dir, "sweep", "-replot", out, "-metric", "write.observed_time", "-x", "mode", "-by", "DIM_1")
	r.expect(t, 0, []string{filepath.Join(out, "write.observed_time-vs-mode-by-DIM_1.png"), filepath.Join(out, "write.observed_time-vs-mode-by-DIM_1.svg")}, nil)
	h5proxy(t, dir, "sweep", "-replot", out, "-metric", "write.nothing").expect(t, 1, nil, []string{`-metric "write.nothing": no successful run has it`})

	pf, err := os.Open(png1)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if _, err := png.Decode(pf); err != nil {
		t.Errorf("%s: %v", png1, err)
	}
	sf, err := os.Open(svg1)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	dec := xml.NewDecoder(sf)
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", svg1, err)
		}
	}
}

func leftPad(i int) string { return strings.Repeat("0", 3-len(strconv.Itoa(i))) + strconv.Itoa(i) }

// TestSweepErrors: bad keys and values are refused before anything runs, naming the key
// and value (and the nearest key); so are bad grids and flags.
func TestSweepErrors(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyVPIC(t, dir)
	out := filepath.Join(dir, "study")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{cfg, "DIM1=64,128"}, 1, `key "DIM1" value "64": unknown key (did you mean DIM_1?)`},
		{[]string{cfg, "DIM_1=64,lots"}, 1, `sweep point DIM_1=lots: config (vpic): key "DIM_1" value "lots": not a valid size`},
		{[]string{cfg, "DIM_1=64", "mode=sync,asinc"}, 1, `key "mode" value "asinc": not an allowed value`},
		{[]string{cfg, "compute_time=1s,soon"}, 1, `key "compute_time" value "soon"`},
		{[]string{cfg, "DIM_1=64,64"}, 2, `key "DIM_1": value "64" given twice`},
		{[]string{cfg, "DIM_1"}, 2, `argument "DIM_1" is not KEY=v1,v2,...`},
		{[]string{cfg}, 2, "need CONFIG.json and at least one KEY=v1,v2,..."},
		{[]string{"-reps", "0", cfg, "DIM_1=64"}, 2, "-reps 0: at least 1"},
		{[]string{"-x", "DIM_2", cfg, "DIM_1=64,128"}, 2, `-x "DIM_2": not a swept key (swept: DIM_1)`},
		{[]string{"-by", "DIM_1", cfg, "DIM_1=64,128"}, 2, `-by "DIM_1": the same key as -x`},
		{[]string{cfg, "DIM_1=64", "-reps", "2"}, 2, "flag -reps after CONFIG.json"},
		{[]string{filepath.Join(dir, "none.json"), "DIM_1=64"}, 1, "none.json: no such file"},
	} {
		r := h5proxy(t, dir, append([]string{"sweep", "-out", out}, c.args...)...)
		r.expect(t, c.code, nil, []string{c.want})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output directory created by refused sweeps: %v", err)
	}
	// The same settings through run -set.
	r := h5proxy(t, dir, "run", "-no-launch", "-set", "DIM_1=many", cfg)
	r.expect(t, 1, nil, []string{`key "DIM_1" value "many": not a valid size`})
}
