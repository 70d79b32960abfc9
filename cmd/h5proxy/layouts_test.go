package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/proxy"
)

// TestReplayFuse runs an h5bench configuration with MODE=LOG (the log layout) and one with
// SUBFILING=YES (the subfiling layout) on 2 ranks, with the verified read benchmark, then
// turns the files into plain HDF5 files with `h5proxy replay` and `h5proxy fuse` and
// checks them with the independent reader.
func TestReplayFuse(t *testing.T) {
	const ranks, dim1, steps = 2, 512, 2
	for _, tc := range []struct {
		key, value, cmd string
		layoutFiles     []string // besides particles.h5
	}{
		{"MODE", "LOG", "replay", nil},
		{"SUBFILING", "YES", "fuse", []string{"particles.h5.subfile_1_of_1"}}, // one node: one subfile
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			dir := t.TempDir()
			cfg := h5benchConfig(t, dir, ranks, dim1, steps, map[string]string{tc.key: tc.value})
			r := h5proxy(t, dir, "run", cfg)
			r.expect(t, 0, []string{"Verification: OK"}, nil)
			for _, f := range append([]string{"particles.h5"}, tc.layoutFiles...) {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("layout file: %v", err)
				}
			}
			out := filepath.Join(dir, "plain.h5")
			r = h5proxy(t, dir, tc.cmd, "particles.h5", out)
			r.expect(t, 0, []string{"particles.h5 into " + out}, nil)
			checkTree(t, out, steps, dim1*ranks)
			checkValues(t, out, 0, "x", dim1*ranks, nil)
			checkValues(t, out, steps-1, "id_1", dim1*ranks, nil)
		})
	}
}

// TestReplayFuseErrors: argument and input errors name the problem.
func TestReplayFuseErrors(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.h5")
	r := h5proxy(t, dir, "run", "--np", "1", h5benchConfig(t, dir, 1, 16, 1, nil))
	r.expect(t, 0, nil, nil)
	os.Rename(filepath.Join(dir, "particles.h5"), plain)
	for _, cmd := range []string{"replay", "fuse"} {
		h5proxy(t, dir, cmd, plain).expect(t, 2, nil, []string{"need an input and an output file, got 1"})
		h5proxy(t, dir, cmd, plain, "./plain.h5").expect(t, 2, nil, []string{`the output "./plain.h5" is the input`})
		h5proxy(t, dir, cmd, "missing.h5", "out.h5").expect(t, 1, nil, []string{"missing.h5: file does not exist"})
	}
	// A plain file is not a log file; fusing one copies it.
	h5proxy(t, dir, "replay", plain, "r.h5").expect(t, 1, nil, []string{"replay " + plain + " into r.h5: ", "not a log-layout file", "_h5proxy_log"})
	h5proxy(t, dir, "fuse", plain, "f.h5").expect(t, 0, nil, nil)
	checkTree(t, filepath.Join(dir, "f.h5"), 1, 16)
	if r := h5proxy(t, dir, "help"); !strings.Contains(r.stdout, "h5proxy replay LOG.h5 OUT.h5") || !strings.Contains(r.stdout, "h5proxy fuse MASTER.h5 OUT.h5") {
		t.Errorf("usage lacks replay and fuse:\n%s", r.stdout)
	}
}

// TestPosixRun runs a native configuration on the posix layout with one file per rank at 2
// ranks: the verified read finds what the write left in each rank's file (IOR's -F names,
// each file as large as the shared file would be); a bad posix key is refused before
// anything runs, naming the key.
func TestPosixRun(t *testing.T) {
	dir := t.TempDir()
	conf := func(extra string) string {
		return writeJSON(t, filepath.Join(dir, "posix.json"), map[string]any{
			"pattern": "vpic", "phases": []string{"write", "read"},
			"session": map[string]any{"file": "p.h5", "layout": "posix", "posix.file_per_rank": true, "posix.fsync": "close", "verify": "yes", "posix.alignment": extra},
			"options": map[string]any{"TIMESTEPS": 2, "DIM_1": 64, "COLLECTIVE_DATA": true},
		})
	}
	r := h5proxy(t, dir, "run", "--np", "2", conf("4KiB"))
	r.expect(t, 0, []string{"layout posix", "Verification: OK"}, nil)
	for rank := 0; rank < 2; rank++ {
		// 2 steps x 8 variables x 2 ranks x 64 particles x 4 bytes.
		if st, err := os.Stat(filepath.Join(dir, fmt.Sprintf("p.h5.%08d", rank))); err != nil || st.Size() != 2*8*2*64*4 {
			t.Errorf("rank %d's file: %v %v", rank, st, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "p.h5")); err == nil {
		t.Error("the shared file exists")
	}
	h5proxy(t, dir, "run", "--np", "2", conf("3000")).expect(t, 1, nil, []string{`key "posix.alignment" value "3000": not a power of two`})
}

// TestFuseVFD runs a native configuration through the subfiling-vfd layout at 2 ranks with
// 2 I/O concentrators and 4 KiB stripes, then `h5proxy fuse` finds the VFD's .config and
// rebuilds the logical file (as many bytes as the subfiles hold), which the independent
// reader checks like a native file. On a build without the VFD the run is refused before
// anything runs, naming the build that has it.
func TestFuseVFD(t *testing.T) {
	dir := t.TempDir()
	const steps, dim1 = 2, 256
	conf := writeJSON(t, filepath.Join(dir, "vfd.json"), map[string]any{
		"pattern": "vpic", "phases": []string{"write", "read"},
		"session": map[string]any{"file": "v.h5", "layout": "subfiling-vfd", "verify": "yes", "subfiling_vfd.stripe_size": "4KiB", "subfiling_vfd.ioc_per_node": 2},
		"options": map[string]any{"TIMESTEPS": steps, "DIM_1": dim1, "COLLECTIVE_DATA": true},
	})
	r := h5proxy(t, dir, "run", "--np", "2", conf)
	if err := proxy.LayoutAvailable("subfiling-vfd"); err != nil {
		r.expect(t, 1, nil, []string{`key "layout" value "subfiling-vfd"`, "HDF5=1.14 make build"})
		if _, err := os.Stat(filepath.Join(dir, "v.h5")); err == nil {
			t.Error("a refused layout created v.h5")
		}
		return
	}
	r.expect(t, 0, []string{"layout subfiling-vfd", "Verification: OK"}, nil)
	subs, _ := filepath.Glob(filepath.Join(dir, "v.h5.subfile_*_of_2"))
	var total int64
	for _, s := range subs {
		st, err := os.Stat(s)
		if err != nil {
			t.Fatal(err)
		}
		total += st.Size()
	}
	if len(subs) != 2 {
		t.Fatalf("subfiles %v, want 2", subs)
	}
	out := filepath.Join(dir, "plain.h5")
	h5proxy(t, dir, "fuse", "v.h5", out).expect(t, 0, []string{"fused v.h5 into " + out}, nil)
	if st, err := os.Stat(out); err != nil || st.Size() != total {
		t.Errorf("fused file: %v (%v), want the subfiles' %d bytes", st, err, total)
	}
	checkTree(t, out, steps, dim1*2)
	checkValues(t, out, 0, "x", dim1*2, nil)
}
