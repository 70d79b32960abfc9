package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// TestMacsio runs MACSio's command line on 2 ranks (MIF 1: the ranks take turns on one
// file per dump) with -verify: nothing on standard output, as MACSio; the dumps' files,
// the log and timings files next to them, the unused options named; bad input stops with
// MACSio's wording before any rank starts; h5bench's sample, with smaller parts, runs.
func TestMacsio(t *testing.T) {
	dir := t.TempDir()
	r := h5proxy(t, dir, "macsio", "-np", "2", "-verify", "--interface", "hdf5", "--parallel_file_mode", "MIF", "1", "--part_size", "10K",
		"--num_dumps", "2", "--part_type", "curvilinear", "--filebase", "m", "--plugin_args", "--compression", "gzip", "level=1")
	r.expect(t, 0, nil, []string{"--part_type is parsed and not used"})
	if strings.TrimSpace(r.stdout) != "" {
		t.Errorf("stdout: %q", r.stdout)
	}
	for _, f := range []string{"m_hdf5_00000_000.h5", "m_hdf5_00000_001.h5", "macsio-log.log", "macsio-timings.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "macsio-log.log"))
	if !strings.Contains(string(log), "Processor 000001") || !strings.Contains(string(log), "Dump 01 Stat BW:") || !strings.Contains(string(log), "Summed  BW:") {
		t.Errorf("log:\n%s", log)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--interface", "silo"}, "h5proxy models MACSio's hdf5 plugin only"},
		{[]string{"--interface", "hdf5", "--parallel_file_mode", "MIF", "0"}, "MIF file count 0"},
		{[]string{"--interface", "hdf5", "--dataset_growth", "-2"}, "negative growth"},
		{[]string{"--interface", "hdf5", "--part_size", "8072"}, "does not factor for --part_dim 2"},
		{[]string{"--interface", "hdf5", "--nope"}, "unknown argument --nope. Type macsio --help for help"},
	} {
		r := h5proxy(t, dir, append([]string{"macsio", "-np", "2"}, c.args...)...)
		r.expect(t, 2, nil, []string{c.want})
		if strings.Contains(r.stderr, "launching") {
			t.Errorf("%v: ranks launched", c.args)
		}
	}
	r = h5proxy(t, dir, "macsio", "--help")
	r.expect(t, 0, []string{"--parallel_file_mode %s %d [MIF 4]", "parsed, not used", "--no_collective"}, nil)

	data, err := os.ReadFile(filepath.Join("..", "..", "samples", "sync-macsio.json"))
	if err != nil {
		t.Fatal(err)
	}
	small := strings.Replace(string(data), `"1M"`, `"64K"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "m.json"), []byte(small), 0o644); err != nil {
		t.Fatal(err)
	}
	r = h5proxy(t, dir, "run", "m.json")
	r.expect(t, 0, []string{"MACSio log file: storage/macsio.log", "H5Fcreate 20"}, nil)
	for _, f := range []string{"storage/test_hdf5_00000_009.h5", "storage/test_hdf5_00001_009.h5", "storage/timings.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestMacsioGrowthAsMACSio runs the command line of the real MACSio run (MIF 1,
// 2 ranks, growth 1.5 over 3 dumps): rank 0 grows from the file as it handed it on to
// rank 1 (MACSio stats its files right after its hand-off), so dump 1's domain of rank 0
// holds MACSio's 19 whole expansion arrays of the part's 50 x 50 nodes and a remainder of
// 3 x 19, as the real MACSio's file does.
func TestMacsioGrowthAsMACSio(t *testing.T) {
	dir := t.TempDir()
	r := h5proxy(t, dir, "macsio", "-np", "2", "--interface", "hdf5", "--parallel_file_mode", "MIF", "1", "--part_size", "20000",
		"--avg_num_parts", "2", "--num_dumps", "3", "--dataset_growth", "1.5")
	r.expect(t, 0, nil, nil)
	out, err := exec.Command("h5ls", "-r", filepath.Join(dir, "macsio_hdf5_00000_001.h5")).CombinedOutput()
	if err != nil {
		t.Fatalf("h5ls: %v\n%s", err, out)
	}
	whole, rest := 0, ""
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[0], "/domain_0000000/expansion_") {
			continue
		}
		if shape := strings.Join(f[2:], " "); shape == "{50, 50}" {
			whole++
		} else {
			rest += f[0] + " " + shape
		}
	}
	if whole != 19 || rest != "/domain_0000000/expansion_019 {3, 19}" {
		t.Errorf("dump 1, rank 0's domain: %d whole expansion arrays and %q; MACSio writes 19 and expansion_019 {3, 19}\n%s", whole, rest, out)
	}
}

// TestMacsioDeprecatedCreates profiles MACSio's SIF and MIF runs at 2 ranks, one dump.
// Every dataset is created through H5Dcreate1 and every MIF domain group through
// H5Gcreate1(file, name, 0), as MACSio's plugin creates them (macsio_hdf5.c: main_dump_sif,
// write_mesh_part, main_dump_mif), so each H5D record carries H5D_USE_DEPRECATED (0
// before: h5proxy created them with H5Dcreate2, its groups with H5Gcreate2). SIF: all
// ranks create the 20 variables of the one file, so their records are shared and merge
// into 20, as Darshan reduces records every rank holds. MIF: each rank writes its own
// domain's 20 datasets, records no other rank holds, so they stay per rank: 40 flagged
// records, the real MACSio's H5D_USE_DEPRECATED of 40 (issue 36).
func TestMacsioDeprecatedCreates(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t)
	for _, c := range []struct {
		mode                   string
		records, shared, group int64
	}{{"SIF", 20, 20, 0}, {"MIF", 40, 0, 2}} {
		out := c.mode + ".json"
		r := h5proxy(t, dir, "profile", "-np", "2", "-lib", lib, "-noplot", "-o", out, "--", binary, "macsio",
			"--interface", "hdf5", "--parallel_file_mode", c.mode, "1", "--part_size", "10K", "--num_dumps", "1", "--filebase", c.mode)
		if r.code != 0 {
			t.Fatal(r)
		}
		p, err := profile.Load(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		var records, flagged, shared int64
		for _, rec := range p.Records {
			if rec.Module == "H5D" {
				records++
				flagged += rec.Counters["H5D_USE_DEPRECATED"]
				if rec.Rank == -1 {
					shared++
				}
			}
		}
		if records != c.records || flagged != records || shared != c.shared {
			t.Errorf("%s: %d of %d H5D records carry H5D_USE_DEPRECATED, %d shared; want all of %d, %d shared", c.mode, flagged, records, shared, c.records, c.shared)
		}
		if g1, g2 := p.Calls["H5Gcreate1"].N, p.Calls["H5Gcreate2"].N; g1 != c.group || g2 != 0 {
			t.Errorf("%s: %d H5Gcreate1 and %d H5Gcreate2 calls; want %d and 0 (MACSio's domain groups)", c.mode, g1, g2, c.group)
		}
	}
}
