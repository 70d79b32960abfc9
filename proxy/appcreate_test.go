package proxy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// createdByRank0 is a file per step that rank 0 creates alone (create: rank0), with a
// table it writes in the serial creation, before every rank opens it and writes x
// collectively and idx from rank 0 independently; the restart reads every dataset of the
// last file back.
const createdByRank0 = `
params: {n: 64}
steps: 2
files:
  plot:
    name: plt${step:05d}.h5
    create: {by: rank0, datasets: [table]}
    attributes: {version: "HyperCLaw-V1.1", nlevels: {type: i32, shape: [1], value: [1]}}
    groups:
      Chombo_global:
        attributes: {SpaceDim: {type: i32, shape: [1], value: [3]}}
      level_0:
        attributes: {ngrid: {type: i32, shape: [1], value: "${nranks}"}}
        datasets:
          table: {type: i32, shape: [n], decompose: rank0}
          idx: {type: i64, shape: [nranks + 1], decompose: rank0, independent: true}
          x: {type: f64, shape: [n * nranks]}
timeline:
  - write: plot
  - read: plot
    at: restart
`

// TestAppCreatedByRank0EveryLayout runs createdByRank0 at 2 ranks through every layout
// and mode: rank 0's serial creation on a per-rank file, then the ranks' open of it (the
// subfiling VFD creates it through the VFD on MPI_COMM_SELF); every value read back and
// verified. On native, the census has rank 0's serial calls on rank 0 alone.
func TestAppCreatedByRank0EveryLayout(t *testing.T) {
	dir := testDir(t)
	desc := filepath.Join(dir, "created.yaml")
	if mpitest.Run(t, 2) {
		return
	}
	if world(t).Rank() == 0 {
		if err := os.WriteFile(desc, []byte(createdByRank0), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := world(t).Barrier(); err != nil {
		t.Fatal(err)
	}
	size := world(t).Size()
	ran, census := 0, false
	for _, layout := range faultLayouts {
		if proxy.LayoutAvailable(layout) != nil {
			continue
		}
		for _, mode := range faultModes {
			name := layout + "-" + mode
			sub := filepath.Join(dir, name)
			sharedDir(t, sub)
			kv := "description=" + desc + ";layout=" + layout + ";mode=" + mode + ";cache.path=" + sub
			cfg := patternConfig(t, "app", kv, filepath.Join(sub, "run.h5"))
			rep := runReport(t, cfg, name)
			ran++
			if len(rep.Phases) != 2 {
				t.Fatalf("%s: phases %+v", name, rep.Phases)
			}
			if r := rep.Phases[1]; layout != "null" && (!r.Verified || r.Mismatches != 0 || r.Steps != 1) {
				t.Errorf("%s: restart read verified %v, mismatches %v, steps %d", name, r.Verified, r.Mismatches, r.Steps)
			}
			if layout != "native" || mode != "sync" {
				continue
			}
			census = true
			// Per file: rank 0 creates it and 2 groups, writes 4 attributes, the table,
			// closes 2 groups; every rank opens it and level_0.
			want := map[string][2]float64{"H5Fcreate": {2, 2}, "H5Fopen": {2 * float64(size), 2}, "H5Fclose": {2 + 2*float64(size), 4},
				"H5Gcreate2": {4, 4}, "H5Gopen2": {2 * float64(size), 2}, "H5Gclose": {4 + 2*float64(size), 6},
				"H5Awrite": {8, 8}, "H5Dwrite": {2 + 2 + 2*float64(size), 6}}
			for _, c := range rep.Phases[0].Census.Calls {
				if w, ok := want[c.Call]; ok && (c.Count != w[0] || c.MaxCount != w[1]) {
					t.Errorf("%s: %s count %v, most on a rank %v; want %v, %v", name, c.Call, c.Count, c.MaxCount, w[0], w[1])
				}
				delete(want, c.Call)
			}
			if len(want) > 0 {
				t.Errorf("%s: no census of %v", name, want)
			}
		}
	}
	if ran < 18 || !census {
		t.Errorf("%d layout and mode pairs ran (want 18 or more), census checked %v", ran, census)
	}
}
