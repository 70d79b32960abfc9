package main

import (
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/proxy"
)

// TestRunMPIIOImpl: mpiio.impl=romio launches the ranks with ROMIO, which the report and
// the summary name; the summary carries the census and the HDF5 of the build.
func TestRunMPIIOImpl(t *testing.T) {
	dir := t.TempDir()
	cfg := writeJSON(t, filepath.Join(dir, "romio.json"), map[string]any{
		"pattern": "vpic", "phases": []string{"write"},
		"session": map[string]any{"file": filepath.Join(dir, "romio.h5"), "mpiio.impl": "romio", "mpiio.cb_nodes": 1},
		"options": map[string]any{"TIMESTEPS": 1, "DIM_1": 1000},
	})
	report := filepath.Join(dir, "report.json")
	r := h5proxy(t, dir, "run", "-np", "1", "--report", report, cfg)
	r.expect(t, 0, []string{"MPI-IO implementation: romio\n", "HDF5 calls (all ranks): H5Fcreate 1, ", "H5Dwrite 8 (31.250 KB)",
		"\nHDF5: " + proxy.HDF5Version() + " (build HDF5=" + wantHDF5Build() + ")\n"}, nil)
	rep := readReport(t, report)
	if rep.MPIIO != "romio" || rep.HDF5Build != wantHDF5Build() || rep.Config["mpiio.impl"] != "romio" || rep.Config["mpiio.cb_nodes"] != "1" || len(rep.Warnings) != 0 {
		t.Errorf("report: mpiio_impl %q, config %v, warnings %v", rep.MPIIO, rep.Config, rep.Warnings)
	}
}
