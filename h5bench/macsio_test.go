package h5bench_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/h5bench"
)

// TestMacsio: h5bench's macsio entry becomes MACSio's command line as h5bench's runner
// builds it (keys in the file's order, falsy values and filebase/interface left out, then
// the runner's options), and its sample loads as MIF 8 with 1 MiB parts, the dumps only.
func TestMacsio(t *testing.T) {
	conf := map[string]any{"part_size": "1M", "parallel_file_mode": "MIF 8", "interface": "silo", "num_dumps": float64(0), "avg_num_parts": "2", "debug_level": false}
	got := h5bench.MacsioArgs("out", "test.h5", []string{"part_size", "parallel_file_mode", "interface", "num_dumps", "avg_num_parts", "debug_level"}, conf)
	want := strings.Fields("--part_size 1M --parallel_file_mode MIF 8 --avg_num_parts 2 --interface hdf5 --filebase out/test --log_file_name out/macsio.log --timings_file_name out/timings.log")
	if !slices.Equal(got, want) {
		t.Errorf("argv %q\nwant %q", got, want)
	}
	f, err := h5bench.Parse([]byte(`{"mpi": {"command": "mpirun", "configuration": "-np 2"}, "directory": "d",
		"benchmarks": [{"benchmark": "macsio", "file": "x.h5", "configuration": {"parallel_file_mode": "MIF 8", "part_size": "1M"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.Runs[0].Config
	if cfg.Pattern != "macsio" || cfg.File != "d/x" || len(cfg.Phases) != 1 {
		t.Errorf("config %+v", cfg)
	}
	eff := cfg.Effective()
	for k, v := range map[string]string{"parallel_file_mode": "MIF 8", "part_size": "1048576", "log_file_name": "d/macsio.log", "timings_file_name": "d/timings.log"} {
		if eff[k] != v {
			t.Errorf("%s = %q, want %q", k, eff[k], v)
		}
	}
	_, err = h5bench.Parse([]byte(`{"benchmarks": [{"benchmark": "macsio", "file": "x.h5", "configuration": {"parallel_file_mode": "MIF 0"}}]}`))
	if err == nil || !strings.Contains(err.Error(), "--parallel_file_mode MIF 0") || !strings.Contains(err.Error(), "h5bench_macsio --parallel_file_mode MIF 0") {
		t.Errorf("MIF 0: %v", err)
	}
}
