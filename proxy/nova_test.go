package proxy_test

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns/nova"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
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
		return
	}
	np := world(t).Size()
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

// checkNovaOutput reads the concatenated file of the data directory dir and compares every
// dataset with the inputs' rows in file order, and the zero-size datasets' layout with the
// tuning's.
func checkNovaOutput(t *testing.T, dir, tune string) {
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
	c := p.(*nova.Pattern).C
	s := p.(*nova.Pattern).Schema(11)
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
			var want []byte
			for f := 0; f < c.Files; f++ {
				want = append(want, s.Piece(f, g, d)...)
			}
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
