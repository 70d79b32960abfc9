package app

import (
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// flashFamilies is FLASH's three families (examples/corpus/flash_amr.c): checkpoints
// every 10 steps numbered by checkpoint, plot files every 5 numbered by plot, a forced
// plot file at the end continuing the plot count; the checkpoints carry FLASH's hints in
// their own access list, and a restart reads the forced plot file back.
const flashFamilies = `
params: {n: 8}
steps: 13
files:
  chk:
    name: "sod_hdf5_chk_${count:04d}"
    hints: {access_style: write_once, cb_buffer_size: "4194304"}
    datasets: {dens: {type: f64, shape: [n * nranks]}}
  plt:
    name: "sod_hdf5_plt_cnt_${count:04d}"
    datasets: {dens: {type: f32, shape: [n * nranks]}}
  forced:
    name: "sod_hdf5_forced_plt_cnt_${count:04d}"
    counter: plt
    attributes: {number: {type: i32, value: "${count}"}}
    datasets: {dens: {type: f32, shape: [n * nranks]}}
  own:
    name: "own_${rank}_${count}.h5"
    ranks: 1
    hints: {cb_nodes: "1"}
    datasets: {x: {type: i32, shape: [n]}}
timeline:
  - {write: chk, every: 10}
  - {write: plt, every: 5}
  - {write: own, every: 6}
  - {write: forced, at: end}
  - {read: forced, at: restart}
`

// created lists the files a phase's plans create or open, "step name" each, and their
// MPI-IO hints by name.
func created(pls []plan.Plan, kinds ...plan.OpKind) (files []string, hints map[string]map[string]string) {
	hints = map[string]map[string]string{}
	for _, pl := range pls {
		for _, op := range pl.Ops {
			for _, k := range kinds {
				if op.Kind == k {
					files = append(files, fmt.Sprintf("%d %s", op.Step, filepath.Base(op.Path)))
					hints[filepath.Base(op.Path)] = op.File.Info
				}
			}
		}
	}
	return files, hints
}

// TestFileFamilies: each family numbers its own files by the steps it is written at
// (count), a file naming another's counter continues its numbering, an attribute's
// ${count} is the file's number; per-file hints ride on that file's MPI-IO opens only;
// the restart read opens the forced plot file the end action wrote.
func TestFileFamilies(t *testing.T) {
	p, dir, err := patternFrom(t, flashFamilies)
	if err != nil {
		t.Fatal(err)
	}
	env := patterns.Env{Rank: 1, Size: 2, Path: filepath.Join(dir, "run.h5")}
	files, hints := created(all(t, p, patterns.PhaseWrite, env), plan.CreateFile)
	want := []string{"0 sod_hdf5_chk_0000", "0 sod_hdf5_plt_cnt_0000", "0 own_1_0.h5", "5 sod_hdf5_plt_cnt_0001",
		"6 own_1_1.h5", "10 sod_hdf5_chk_0001", "10 sod_hdf5_plt_cnt_0002", "12 own_1_2.h5", "12 sod_hdf5_forced_plt_cnt_0003"}
	if strings.Join(files, "\n") != strings.Join(want, "\n") {
		t.Errorf("files created:\n%s\nwant:\n%s", strings.Join(files, "\n"), strings.Join(want, "\n"))
	}
	chkHints := map[string]string{"access_style": "write_once", "cb_buffer_size": "4194304"}
	for name, h := range hints {
		wantH := map[string]string(nil)
		if strings.HasPrefix(name, "sod_hdf5_chk_") {
			wantH = chkHints
		}
		if !maps.Equal(h, wantH) { // own_*: a file per rank opens without MPI-IO: no hints
			t.Errorf("%s: hints %v, want %v", name, h, wantH)
		}
	}
	var number []byte
	for _, pl := range all(t, p, patterns.PhaseWrite, env) {
		for _, op := range pl.Ops {
			if op.Kind == plan.WriteAttribute && op.Attribute.Name == "number" {
				number = op.Attribute.Value
			}
		}
	}
	if len(number) != 4 || number[0] != 3 {
		t.Errorf("attribute number of the forced plot file: %v, want the i32 3", number)
	}
	reads, _ := created(all(t, p, patterns.PhaseRead, env), plan.OpenFile)
	if len(reads) != 1 || !strings.HasSuffix(reads[0], " sod_hdf5_forced_plt_cnt_0003") {
		t.Errorf("restart read opens %v, want sod_hdf5_forced_plt_cnt_0003", reads)
	}
}

// TestFileFamiliesSameStep: two families written at the same steps, one every step
// (snap) and one every second (restart), as examples/corpus/features.c; a family whose
// two actions run in one step takes one number for both (the file stays open between
// them); count is a reserved name.
func TestFileFamiliesSameStep(t *testing.T) {
	src := `
steps: 4
files:
  snap: {name: "snap_${count:04d}.h5", datasets: {u: {type: f64, shape: [8 * nranks]}, v: {type: f64, shape: [8 * nranks]}}}
  restart: {name: "restart_${count:04d}.h5", datasets: {u: {type: f64, shape: [8 * nranks]}}}
timeline:
  - {write: snap, datasets: [u]}
  - {write: snap, datasets: [v]}
  - {write: restart, every: 2}
`
	files, _ := created(planSrc(t, src, 2), plan.CreateFile, plan.OpenFile)
	want := []string{"0 snap_0000.h5", "0 restart_0000.h5", "1 snap_0001.h5", "2 snap_0002.h5", "2 restart_0001.h5", "3 snap_0003.h5"}
	if strings.Join(files, "\n") != strings.Join(want, "\n") {
		t.Errorf("files opened:\n%s\nwant:\n%s", strings.Join(files, "\n"), strings.Join(want, "\n"))
	}
	err := planErr(t, "params: {count: 3}\n"+src, 2)
	if err == nil || !strings.Contains(err.Error(), "d.yaml:1:10: key params.count: not a parameter name") {
		t.Errorf("a parameter named count: %v, want the reserved name refused at d.yaml:1:10", err)
	}
}
