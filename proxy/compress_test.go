package proxy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
	logl "github.com/h5proxy/h5proxy/proxy/layout/log"
)

// sampleRuns loads h5bench's chunked write/read sample (h5bench/testdata/samples) with its
// file placed in dir; the read entry verifies what the write entry wrote, as h5proxy run
// does.
func sampleRuns(t *testing.T, sample, file string) (write, read proxy.Config) {
	t.Helper()
	f, err := h5bench.Load(filepath.Join("..", "h5bench", "testdata", "samples", sample))
	if err != nil {
		t.Fatal(err)
	}
	write, read = f.Runs[0].Config, f.Runs[1].Config
	write.File, write.CSVFile = file, ""
	read.File, read.CSVFile = file, ""
	read.Verify, read.Fill = proxy.VerifyYes, write.Fill
	return write, read
}

// runVerified runs each configuration's phases in turn; read phases must verify.
func runVerified(t *testing.T, cfgs ...proxy.Config) {
	t.Helper()
	for _, cfg := range cfgs {
		s := session(t, cfg)
		if err := s.Run(); err != nil {
			t.Fatalf("%s: %v", cfg.File, err)
		}
		rep, err := s.WriteReports(nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		for _, p := range rep.Phases {
			if p.Phase == "read" && (!p.Verified || p.Mismatches != 0 || p.Bytes == 0) {
				t.Errorf("%s read: verified=%v mismatches=%v bytes=%v", cfg.File, p.Verified, p.Mismatches, p.Bytes)
			}
		}
	}
}

// checkPipeline opens file and checks the chunking and filters of two datasets of the
// VPIC file: deflate level, then the filter identifiers beyond deflate.
func checkPipeline(t *testing.T, file string, chunk []uint64, deflate int, filters ...uint32) {
	t.Helper()
	f, err := h5.OpenFile(file, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	for _, path := range []string{"/Timestep_0/x", "/Timestep_4/id_1"} {
		d, err := h5.OpenDataset(f, path)
		if err != nil {
			t.Fatal(err)
		}
		info, err := h5.DatasetInfo(d)
		h5.CloseDataset(d)
		if err != nil {
			t.Fatal(err)
		}
		var ids []uint32
		for _, fl := range info.Filters {
			ids = append(ids, fl.ID)
		}
		if !slices.Equal(info.Chunk, chunk) || info.Deflate != deflate || !slices.Equal(ids, filters) {
			t.Errorf("%s %s: chunk %v deflate %d filters %v, want chunk %v deflate %d filters %v", file, path, info.Chunk, info.Deflate, ids, chunk, deflate, filters)
		}
	}
}

// TestCompressFilterSamples runs h5bench's chunked samples at 2 ranks with each built-in
// COMPRESS_FILTER, reads the data back with verification and checks the files' pipelines:
// GZIP (1-D), N_BIT (3-D) and SZIP (2-D, shared and per-rank files) as given; SZIP
// again under the log layout, whose replay applies the filter; SZ3, whose plugin is not
// installed, stops before any I/O.
func TestCompressFilterSamples(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	rank0 := world(t).Rank() == 0
	for _, c := range []struct {
		sample  string
		chunk   []uint64
		deflate int
		filters []uint32
	}{
		{"sync-write-read-chunked-1d-GZIP.json", []uint64{64}, 9, nil},
		{"sync-write-read-chunked-3d-N_BIT.json", []uint64{8, 8, 8}, 0, []uint32{plan.FilterNBit}},
	} {
		file := filepath.Join(dir, strings.TrimSuffix(c.sample, ".json")+".h5")
		w, r := sampleRuns(t, c.sample, file)
		runVerified(t, w, r)
		if rank0 {
			checkPipeline(t, file, c.chunk, c.deflate, c.filters...)
		}
	}

	// SZIP as the sample gives it, through MPI-IO, and through per-rank files.
	for _, perRank := range []bool{false, true} {
		file := filepath.Join(dir, fmt.Sprintf("szip-%v.h5", perRank))
		w, r := sampleRuns(t, "sync-write-read-chunked-2d-SZIP.json", file)
		check := file
		if perRank {
			for _, cfg := range []*proxy.Config{&w, &r} {
				if err := cfg.Set("FILE_PER_PROC", "YES"); err != nil {
					t.Fatal(err)
				}
			}
			check = filepath.Join(dir, fmt.Sprintf("rank_0_szip-%v.h5", perRank))
		}
		runVerified(t, w, r)
		if rank0 {
			checkPipeline(t, check, []uint64{16, 16}, 0, plan.FilterSZIP)
		}
	}

	// The log layout records the filter on its anchors; the replayed file has it.
	file := filepath.Join(dir, "szip-log.h5")
	w, r := sampleRuns(t, "sync-write-read-chunked-2d-SZIP.json", file)
	for _, cfg := range []*proxy.Config{&w, &r} {
		if err := cfg.Set("layout", "log"); err != nil {
			t.Fatal(err)
		}
	}
	runVerified(t, w, r)
	if rank0 {
		plain := filepath.Join(dir, "szip-log-plain.h5")
		if err := logl.Replay(file, plain); err != nil {
			t.Fatal(err)
		}
		checkPipeline(t, plain, []uint64{16, 16}, 0, plan.FilterSZIP)
	}

	if os.Getenv("HDF5_PLUGIN_PATH") != "" {
		return // a plugin directory might provide SZ3
	}
	file = filepath.Join(dir, "sz3.h5")
	w, _ = sampleRuns(t, "sync-write-read-chunked-1d-SZ3.json", file)
	w.Phases = []patterns.Phase{patterns.PhaseWrite}
	s := session(t, w)
	err := s.Run()
	s.Close()
	if err == nil || !strings.Contains(err.Error(), `key "COMPRESS_FILTER" value "SZ3"`) || !strings.Contains(err.Error(), "filter 32024") ||
		!strings.Contains(err.Error(), "SZ3's H5Z filter plugin") || !strings.Contains(err.Error(), "HDF5_PLUGIN_PATH") {
		t.Errorf("SZ3 without its plugin: %v", err)
	}
	if _, serr := os.Stat(file); !os.IsNotExist(serr) {
		t.Errorf("%s exists after the SZ3 failure (%v): I/O started", file, serr)
	}
}
