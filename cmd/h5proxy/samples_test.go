package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copySample copies one of h5bench's samples (h5bench/testdata/samples: sizes shrunk,
// mpi sections as h5bench's) into dir and returns its name there.
func copySample(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "h5bench", "testdata", "samples", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestRunSamples runs a few of h5bench's samples unchanged but for their sizes, launched
// with their own mpi sections: a chunked N-Bit write and verified read, the exerciser, a strided write and
// read under async, the GPU-IO write and read (from host memory, with a warning); SZ3,
// whose plugin is not installed, and QMCPACK, an external program, stop before any I/O.
func TestRunSamples(t *testing.T) {
	dir := t.TempDir()
	verified := func(r result) {
		t.Helper()
		sec := sections(r.stdout)
		if len(sec) != 2 || !strings.Contains(sec[1], "Verification: OK") {
			t.Errorf("want a write and a verified read summary:\n%s", r)
		}
	}

	// No -np in mpi.configuration: mpirun starts its default number of ranks, as under
	// h5bench's runner.
	r := h5proxy(t, dir, "run", copySample(t, dir, "sync-write-read-chunked-3d-N_BIT.json"))
	r.expect(t, 0, []string{"Mode: SYNC"}, []string{"launching mpirun's default number of ranks"})
	verified(r)

	// Every rank names the exerciser's file alike (a drawn name made the ranks hang).
	r = h5proxy(t, dir, "run", copySample(t, dir, "sync-exerciser.json"))
	r.expect(t, 0, []string{"Pattern: exerciser (write phase)", "storage/hdf5TestFile-"}, []string{"launching mpirun's default number of ranks"})

	r = h5proxy(t, dir, "run", copySample(t, dir, "async-write-1d-contig-contig-read-strided.json"))
	r.expect(t, 0, []string{"Mode: ASYNC"}, []string{`launching 2 ranks`})
	if sec := sections(r.stdout); len(sec) != 3 || !strings.Contains(sec[1], "Verification: OK") || !strings.Contains(sec[2], "Verification: OK") {
		t.Errorf("want a write and two verified reads:\n%s", r)
	}

	gpu := `benchmark "cuda_write": h5proxy has no GPU`
	r = h5proxy(t, dir, "run", copySample(t, dir, "sync-cuda-write-1d-contig-contig.json"))
	r.expect(t, 0, []string{"Total write size"}, []string{gpu, `launching 2 ranks`})
	for _, rank := range []string{"rank_0_test.h5", "rank_1_test.h5"} {
		if _, err := os.Stat(filepath.Join(dir, "storage", rank)); err != nil {
			t.Errorf("FILE_PER_PROC file: %v", err)
		}
	}
	r = h5proxy(t, dir, "run", copySample(t, dir, "sync-cuda-read-1d-contig-contig.json"))
	r.expect(t, 0, []string{"Total read size"}, []string{strings.Replace(gpu, "write", "read", 1)})

	sz3 := filepath.Join(dir, "sz3")
	if err := os.Mkdir(sz3, 0o755); err != nil {
		t.Fatal(err)
	}
	r = h5proxy(t, sz3, "run", copySample(t, sz3, "sync-write-read-chunked-1d-SZ3.json"))
	r.expect(t, 1, nil, []string{`key "COMPRESS_FILTER" value "SZ3"`, "filter 32024", "SZ3's H5Z filter plugin", `HDF5_PLUGIN_PATH ("/opt/SZ3/lib"`})
	if _, err := os.Stat(filepath.Join(sz3, "storage", "test.h5")); !os.IsNotExist(err) {
		t.Errorf("storage/test.h5 after the SZ3 failure: %v", err)
	}

	r = h5proxy(t, dir, "run", copySample(t, dir, "sync-qmcpack.json"))
	r.expect(t, 1, nil, []string{`benchmark "qmcpack"`, "external program", "QMCPACK"})
	if strings.Contains(r.stderr, "launching") {
		t.Errorf("ranks launched for qmcpack:\n%s", r)
	}
}
