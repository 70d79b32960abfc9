package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDescriptionCommands: run, check, plan and help take a description; run with its
// parameters after the file on 2 ranks writes its files and verifies the restart read;
// check reports a bad description's position before any I/O.
func TestDescriptionCommands(t *testing.T) {
	dir := t.TempDir()
	ex, err := filepath.Abs("../../examples/apps/particles.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := h5proxy(t, dir, "run", "-np", "2", ex, "particles=1Ki", "steps=3", "compute=0")
	r.expect(t, 0, []string{"Total number of ranks: 2", "Verification: OK"}, nil)
	for _, f := range []string{"particles.h5", "ckpt_0000.h5", "ckpt_0002.h5", "log_0.h5", "log_1.h5"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run wrote no %s: %v", f, err)
		}
	}
	h5proxy(t, dir, "check", "-np", "4096", ex).expect(t, 0, []string{"write phase: 4 steps", "ok for 4096 ranks"}, nil)
	h5proxy(t, dir, "plan", "-rank", "1", "-size", "2", ex, "steps=1").expect(t, 0,
		[]string{"# app write plan of rank 1 of 2", "create-dataset  /Timestep_0/x [collective] type=f32 shape=[131072]", "start=[65536]"}, nil)
	h5proxy(t, dir, "help", "app").expect(t, 0, []string{"description", "files.*.datasets.*.decompose.kind", "timeline[].every"}, nil)
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("files:\n  out:\n    name: o.h5\n    datasets: {x: {type: f32, shape: [n]}}\ntimeline: [{write: out}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, dir, "check", bad).expect(t, 1, nil, []string{"bad.yaml:4:39: key files.out.datasets.x.shape[0]", "unknown name n"})
	h5proxy(t, dir, "run", ex, "particles").expect(t, 2, nil, []string{`"particles" after the description`, "want KEY=VALUE"})
}
