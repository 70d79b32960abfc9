package proxy_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestMultiDatasetRefused: the HDF5 1.14 knobs name the build that has them on HDF5 1.10
// (their off values are accepted there); hdf5.multi_dataset=yes names the layout or mode
// that cannot honour it, on every build, before any I/O.
func TestMultiDatasetRefused(t *testing.T) {
	for _, kv := range []string{"hdf5.multi_dataset=no", "write.hdf5.multi_dataset=0"} {
		if _, err := knobConfig(t, kv); err != nil {
			t.Errorf("%s: %v, want it accepted by every build", kv, err)
		}
	}
	for _, c := range []struct{ kv, key string }{
		{"hdf5.multi_dataset=yes", "hdf5.multi_dataset"},
		{"read.hdf5.multi_dataset=on", "read.hdf5.multi_dataset"},
		{"hdf5.selection_io=on", "hdf5.selection_io"},
		{"write.hdf5.selection_io=default", "write.hdf5.selection_io"},
	} {
		_, err := knobConfig(t, c.kv)
		if h5.HasMultiDataset() {
			if err != nil {
				t.Errorf("%s on HDF5 %s: %v", c.kv, h5.Version(), err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), `"`+c.key+`"`) || !strings.Contains(err.Error(), "needs HDF5 1.14") ||
			!strings.Contains(err.Error(), "HDF5=1.14 make build") {
			t.Errorf("%s on HDF5 %s: %v, want a refusal naming %s, HDF5 1.14 and the build command", c.kv, h5.Version(), err, c.key)
		}
	}
	if !h5.HasMultiDataset() {
		return // the layout and mode checks below come after the build's
	}
	for _, c := range []struct{ kv, want string }{
		{"hdf5.multi_dataset=yes;layout=log", "the log layout has no multi-dataset I/O"},
		{"write.hdf5.multi_dataset=yes;layout=subfiling", "the subfiling layout has no multi-dataset I/O"},
		{"hdf5.multi_dataset=yes;mode=async", "the async mode issues each transfer on its own"},
	} {
		cfg, err := knobConfig(t, c.kv)
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "multi_dataset") {
			t.Errorf("%s: %v, want %q naming the key", c.kv, err, c.want)
		}
	}
}

// TestMultiDataset runs VPIC-IO writes and verified reads at 2 ranks with
// hdf5.multi_dataset=yes on the HDF5 1.14 build, collective and independent: every
// step's eight variables go out in one H5Dwrite_multi and come back in one H5Dread_multi
// (no H5Dwrite or H5Dread left), every element reads back equal, the census counts each
// transfer on the multi path, and the file is the one separate writes make (h5diff of
// the build's HDF5). Selection I/O off shows on the scalar path with HDF5's cause.
func TestMultiDataset(t *testing.T) {
	if !h5.HasMultiDataset() {
		t.Logf("HDF5 %s: multi-dataset I/O is refused (TestMultiDatasetRefused); nothing to run", h5.Version())
		return
	}
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	size := world(t).Size()
	run := func(kv, name string) (proxy.Config, *proxy.Report) {
		t.Helper()
		return runVPIC(t, kv+";DIM_1=2K;TIMESTEPS=2", fileOf(dir, name, size), patterns.PhaseWrite, patterns.PhaseRead)
	}
	for _, coll := range []string{"YES", "NO"} {
		name := "multi-coll" + coll
		cfg, rep := run("hdf5.multi_dataset=yes;COLLECTIVE_DATA="+coll, name)
		for i, p := range rep.Phases {
			ph, single, multi, kind := patterns.PhaseWrite, "H5Dwrite", "H5Dwrite_multi", plan.Write
			if i == 1 {
				ph, single, multi, kind = patterns.PhaseRead, "H5Dread", "H5Dread_multi", plan.Read
			}
			transfers := planned(t, cfg, ph, size, kind)
			m := callCount(p.Census, multi)
			if n := callCount(p.Census, single).Count; n != 0 || m.Count != float64(p.Steps*size) || m.Bytes != p.Bytes || transfers == 0 {
				t.Errorf("%s %s: %v %s and %v %s (%v bytes of %v); want none and one per step and rank (%d)",
					name, p.Phase, n, single, m.Count, multi, m.Bytes, p.Bytes, p.Steps*size)
			}
			if p.Census.Paths["multi"] != transfers {
				t.Errorf("%s %s: paths %v, want all %v transfers on the multi path", name, p.Phase, p.Census.Paths, transfers)
			}
			if coll == "YES" && p.Census.CollectiveTransfers != m.Count {
				t.Errorf("%s %s: %v collective calls, want the %v multi-dataset calls", name, p.Phase, p.Census.CollectiveTransfers, m.Count)
			}
		}
		if r := rep.Phases[1]; !r.Verified || r.Mismatches != 0 {
			t.Errorf("%s read: verified %v, %v mismatches", name, r.Verified, r.Mismatches)
		}
		if coll == "YES" {
			// The same configuration without multi-dataset I/O writes the same file.
			plainCfg, _ := run("COLLECTIVE_DATA=YES", "plain")
			if world(t).Rank() == 0 {
				if out, err := exec.Command("h5diff", "-r", plainCfg.File, cfg.File).CombinedOutput(); err != nil {
					t.Errorf("h5diff %s %s: %v\n%s", plainCfg.File, cfg.File, err, out)
				}
			}
		}
	}
	// Selection I/O off: every transfer on the scalar path, HDF5 saying the API disabled it.
	_, rep := run("hdf5.selection_io=off;COLLECTIVE_DATA=YES", "selection-off")
	for _, p := range rep.Phases {
		n := callCount(p.Census, map[string]string{"write": "H5Dwrite", "read": "H5Dread"}[p.Phase]).Count
		if p.Census.Paths["scalar"] != n || p.Census.NoSelectionIO["disabled by the API"] != n || n == 0 {
			t.Errorf("selection_io=off %s: %v transfers, paths %v, no selection I/O because %v", p.Phase, n, p.Census.Paths, p.Census.NoSelectionIO)
		}
	}
}
