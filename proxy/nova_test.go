package proxy_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns/nova"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
	logl "github.com/h5proxy/h5proxy/proxy/layout/log"
	"github.com/h5proxy/h5proxy/proxy/layout/subfiling"
	"github.com/h5proxy/h5proxy/proxy/layout/subfilingvfd"
)

// novaKV is a small NOvA input set: 5 files (uneven over 2 ranks) of 12 tables x 6
// columns, half of them empty, 2 of them 2-D.
const novaKV = "files=5;groups=12;datasets_per_group=6;datasets_2d=2;empty_fraction=0.5;rows_mean=40;seed=11"

// novaTunings are the concatenations TestNova runs: HDF5's defaults, the paper's tuned
// settings with rank 0 creating the file and the dataset partitioning, and the defaults in
// the async mode (a read phase whose write step cannot be read ahead).
var novaTunings = map[string]string{
	"default": "",
	"tuned":   ";empty_layout=compact;mdc=fixed;input_driver=core;create=rank0;partition=dataset;chunk=1K;fill_time=alloc",
	"async":   ";mode=async",
}

// TestNova generates the inputs and concatenates them in one session at 1 and 2 ranks,
// with the defaults and the tuned settings: every input piece read is verified, the
// report carries the concatenation's breakdown; the parent then reads every output
// dataset and compares it with the inputs' rows one after another, and checks the
// zero-size datasets' layout.
func TestNova(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 1, 2) {
		for _, np := range []int{1, 2} {
			for name, tune := range novaTunings {
				checkNovaOutput(t, filepath.Join(dir, fmt.Sprintf("%s-np%d", name, np)), tune)
			}
		}
		for _, lm := range novaLayoutRuns() {
			sub := filepath.Join(dir, "layouts", strings.Join(lm[:], "-"))
			switch lm[0] {
			case "log", "subfiling", "subfiling-vfd": // rank 0 turned the file into a plain one
				checkNovaOutput(t, filepath.Join(sub, "plain"), "")
			case "mpiio", "posix":
				checkRawNovaOutput(t, sub, novaTunings[lm[2]])
			case "native":
				checkNovaOutput(t, sub, "")
			}
		}
		return
	}
	np := world(t).Size()
	if np == 2 {
		runNovaLayouts(t, filepath.Join(dir, "layouts"))
	}
	// Every rank must run the same session at a time: map order differs per process.
	for _, name := range slices.Sorted(maps.Keys(novaTunings)) {
		tune := novaTunings[name]
		cfg := patternConfig(t, "nova", novaKV+tune, filepath.Join(dir, fmt.Sprintf("%s-np%d", name, np)))
		rep := runReport(t, cfg, name)
		if len(rep.Phases) != 2 {
			t.Fatalf("%s: phases %+v", name, rep.Phases)
		}
		r := rep.Phases[1]
		if !r.Verified || r.Mismatches != 0 || r.Steps != 4 {
			t.Errorf("%s: concatenation verified %v, mismatches %v, steps %d", name, r.Verified, r.Mismatches, r.Steps)
		}
		lines := map[string]float64{}
		for _, l := range r.Kernel {
			lines[l.Name] = l.Value
		}
		var sum float64
		for _, k := range []string{"concat-metadata-read", "concat-dataset-create", "concat-data-read", "concat-write", "concat-close"} {
			v, ok := lines[k]
			if !ok || v <= 0 {
				t.Errorf("%s: line %s = %v (present %v)", name, k, v, ok)
			}
			sum += v
		}
		// The total is the parts' sum; each part is one rank's time in calls inside the
		// observed window, so on one rank the sum is within the window.
		if tot, obs := lines["concat-total"], lines["concat-observed"]; math.Abs(tot-sum) > 1e-9 || (np == 1 && sum > obs) {
			t.Errorf("%s: parts sum %v, total %v, observed %v", name, sum, tot, obs)
		}
	}
}

// novaLayoutRuns are the (layout, mode, tuning) runs TestNova makes at 2 ranks: every
// layout this build has under every mode with the defaults, and the raw layouts with the
// tuned settings too (each rank opening a subset of every input's datasets, the output
// created by rank 0 alone).
func novaLayoutRuns() [][3]string {
	var out [][3]string
	for _, layout := range []string{"native", "null", "log", "subfiling", "subfiling-vfd", "mpiio", "posix"} {
		if proxy.LayoutAvailable(layout) != nil {
			continue
		}
		for _, mode := range []string{"sync", "async", "cache"} {
			out = append(out, [3]string{layout, mode, "default"})
		}
		if layout == "mpiio" || layout == "posix" {
			out = append(out, [3]string{layout, "sync", "tuned"})
		}
	}
	return out
}

// runNovaLayouts writes the inputs and concatenates them under every layout and mode
// (novaLayoutRuns), each in its own directory under dir: the concatenation's reads of the
// other rank's inputs are verified (except under null, which stores nothing); rank 0
// turns the log and subfiled outputs into plain files for the parent to compare.
func runNovaLayouts(t *testing.T, dir string) {
	if proxy.LayoutAvailable("subfiling-vfd") == nil {
		// The VFD writes independently and HDF5 writes filtered chunks in parallel only
		// collectively: the gzipped output is refused before the concatenation's I/O.
		sub := filepath.Join(dir, "subfiling-vfd-refused")
		sharedDir(t, sub)
		s := session(t, patternConfig(t, "nova", novaKV+";layout=subfiling-vfd", sub))
		err := s.Run()
		s.Close()
		if !errors.Is(err, subfilingvfd.ErrFiltered) || !strings.Contains(err.Error(), "has the filter deflate (level 6), at 2 ranks") {
			t.Errorf("subfiling-vfd with the gzipped output: %v, want the refusal of the filtered datasets", err)
		}
	}
	for _, lm := range novaLayoutRuns() {
		layout, mode := lm[0], lm[1]
		name := strings.Join(lm[:], "-")
		sub := filepath.Join(dir, name)
		sharedDir(t, sub)
		tune := novaTunings[lm[2]]
		if layout == "subfiling-vfd" {
			tune += ";deflate=0" // the output unfiltered (above)
		}
		rep := runReport(t, patternConfig(t, "nova", novaKV+tune+";mode="+mode+layoutKV(layout, 2), sub), name)
		if len(rep.Phases) != 2 {
			t.Fatalf("%s: phases %+v", name, rep.Phases)
		}
		if r := rep.Phases[1]; r.Mismatches != 0 || r.Steps != 4 || r.Verified != (layout != "null") {
			t.Errorf("%s: concatenation verified %v, mismatches %v, steps %d", name, r.Verified, r.Mismatches, r.Steps)
		}
		if world(t).Rank() != 0 {
			continue
		}
		_, c := novaSchema(t, "")
		out := filepath.Join(sub, c.Output)
		var err error
		switch layout {
		case "log", "subfiling", "subfiling-vfd":
			if err := os.MkdirAll(filepath.Join(sub, "plain"), 0o755); err != nil {
				t.Fatal(err)
			}
			plain := filepath.Join(sub, "plain", c.Output)
			switch layout {
			case "log":
				err = logl.Replay(out, plain)
			case "subfiling":
				err = subfiling.Fuse(out, plain)
			default:
				err = subfilingvfd.Fuse(out, plain, "")
			}
		}
		if err != nil {
			t.Fatalf("%s: converting the output: %v", name, err)
		}
	}
}

// checkRawNovaOutput compares the raw output file of the data directory dir (mpiio,
// posix: no metadata) with the inputs' rows: every output dataset's region follows the
// one before in creation order (schema order, the empty ones taking no bytes), each the
// inputs' rows one after another.
func checkRawNovaOutput(t *testing.T, dir, tune string) {
	t.Helper()
	s, c := novaSchema(t, tune)
	got, err := os.ReadFile(filepath.Join(dir, c.Output))
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for g, tb := range s.Tables {
		for d := range tb.Columns {
			want = append(want, novaRows(s, c, g, d)...)
		}
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: the raw output (%d bytes) is not the inputs' rows in creation order (%d bytes)", dir, len(got), len(want))
	}
}

// checkNovaOutput reads the concatenated file of the data directory dir and compares every
// dataset with the inputs' rows in file order, and the zero-size datasets' layout with the
// tuning's.
func checkNovaOutput(t *testing.T, dir, tune string) {
	t.Helper()
	s, c := novaSchema(t, tune)
	f, err := h5.OpenFile(filepath.Join(dir, c.Output), h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	for g, tb := range s.Tables {
		total := s.Total(g, 0, c.Files)
		for d, col := range tb.Columns {
			path := "/" + tb.Name + "/" + col.Name
			id, err := h5.OpenDataset(f, path)
			if err != nil {
				t.Fatal(err)
			}
			info, err := h5.DatasetInfo(id)
			if err != nil || info.Shape[0] != total || info.Shape[1] != col.Width || (total == 0 && info.Compact != (c.EmptyLayout == nova.EmptyCompact)) {
				t.Errorf("%s %s: %+v (%v), want %d rows", dir, path, info, err, total)
			}
			want := novaRows(s, c, g, d)
			got := make([]byte, len(want))
			if total > 0 {
				shape := []uint64{total, col.Width}
				err = h5.Read(id, &plan.Transfer{MemType: col.Type, MemShape: shape, FileType: col.Type, FileShape: shape, Selection: plan.All(shape)}, false, got)
			}
			h5.CloseDataset(id)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s %s: output differs from the inputs' rows (%v)", dir, path, err)
			}
		}
	}
}

// novaRows is output dataset (g, d): the inputs' rows one after another.
func novaRows(s *nova.Schema, c nova.Config, g, d int) []byte {
	var out []byte
	for f := 0; f < c.Files; f++ {
		out = append(out, s.Piece(f, g, d)...)
	}
	return out
}

// novaSchema is TestNova's configuration with the tuning and its schema.
func novaSchema(t *testing.T, tune string) (*nova.Schema, nova.Config) {
	t.Helper()
	kvs, err := proxy.ParseKV(novaKV + tune)
	if err != nil {
		t.Fatal(err)
	}
	var patKV []options.KV
	for _, kv := range kvs {
		if kv.Key != "seed" && kv.Key != "mode" { // session keys
			patKV = append(patKV, kv)
		}
	}
	v, err := nova.Options.Parse(patKV)
	if err != nil {
		t.Fatal(err)
	}
	p, err := nova.Factory.New(v)
	if err != nil {
		t.Fatal(err)
	}
	return p.(*nova.Pattern).Schema(11), p.(*nova.Pattern).C
}
