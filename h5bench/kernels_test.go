package h5bench_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
)

// kernelSamples are h5bench's samples of the VPIC-family kernels (testdata: DIM_1 shrunk;
// like h5bench's, they say mpi.ranks 4 with -np 2, and -np wins), the benchmarks of their entries and the patterns those run.
var kernelSamples = []struct {
	sample   string
	benches  []string
	patterns []string
}{
	{"sync-write-unlimited-contig-1d-small.json", []string{"write-unlimited"}, []string{"vpic-unlimited"}},
	{"sync-append.json", []string{"write-unlimited", "append"}, []string{"vpic-unlimited", "vpic-append"}},
	{"sync-overwrite.json", []string{"overwrite"}, []string{"vpic-overwrite"}},
	{"sync-write-1d-contig-contig-write-full_var_normal_dist.json", []string{"write_var_normal_dist"}, []string{"vpic-normal-dist"}},
}

// TestKernelSamples: each kernel sample maps every entry onto its pattern's write phase on
// the directory's file, with the entry's keys. proxy's TestVPICKernels runs them.
func TestKernelSamples(t *testing.T) {
	for _, tc := range kernelSamples {
		f, err := h5bench.Load(filepath.Join("testdata", tc.sample))
		if err != nil {
			t.Errorf("%s: %v", tc.sample, err)
			continue
		}
		if len(f.Runs) != len(tc.benches) || f.MPI.Ranks != 2 || f.MPI.IgnoredRanks != 4 {
			t.Fatalf("%s: %d runs, mpi %+v: want 2 ranks from -np 2 and mpi.ranks 4 ignored", tc.sample, len(f.Runs), f.MPI)
		}
		for i, r := range f.Runs {
			c := r.Config
			if r.Benchmark != tc.benches[i] || c.Pattern != tc.patterns[i] || c.File != filepath.Join("storage", "test.h5") ||
				!slices.Equal(c.Phases, []patterns.Phase{patterns.PhaseWrite}) || c.CSVFile != filepath.Join("storage", "output.csv") {
				t.Errorf("%s run %d: %s pattern %s file %s phases %v csv %s", tc.sample, i, r.Benchmark, c.Pattern, c.File, c.Phases, c.CSVFile)
			}
			p, err := c.NewPattern()
			if err != nil {
				t.Fatalf("%s run %d: %v", tc.sample, i, err)
			}
			if p.Name() != tc.patterns[i] || p.Steps() != 5 {
				t.Errorf("%s run %d: pattern %s steps %d", tc.sample, i, p.Name(), p.Steps())
			}
			if tc.benches[i] == "write_var_normal_dist" && !slices.Contains(c.Options, options.KV{Key: "STDEV_DIM_1", Value: "16"}) {
				t.Errorf("STDEV_DIM_1 not passed on: %v", c.Options)
			}
		}
	}
	// h5bench's own sample names the kernel write_normal_dist, which its runner skips.
	_, err := h5bench.Load(filepath.Join("testdata", "sync-write-1d-contig-contig-normal-dist.json"))
	if err == nil || !strings.Contains(err.Error(), "skips it as unsupported") || !strings.Contains(err.Error(), `"write_var_normal_dist"`) {
		t.Errorf("write_normal_dist: %v", err)
	}
}
