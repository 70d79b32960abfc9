package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/internal/inspect"
)

// TestSimulation builds the example, starts it outside any launcher with -np 2 so that
// it relaunches itself under mpirun, and checks its per-step lines, the verified read and
// the file it leaves in -dir.
func TestSimulation(t *testing.T) {
	tmp := t.TempDir()
	exe := filepath.Join(tmp, "simulation")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := filepath.Join(tmp, "out") // created by the ranks
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-np", "2", "-dir", dir, "-compute", "20ms")
	// A user's shell: not inside a launcher, default launcher.
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "H5PROXY_MPIEXEC" && !strings.HasPrefix(k, "OMPI_COMM_WORLD") && !strings.HasPrefix(k, "PMIX_") && !strings.HasPrefix(k, "PMI_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	err := cmd.Run()
	out := stdout.String()
	t.Logf("ran in %v", time.Since(begin).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("simulation: %v\n--- stdout:\n%s\n--- stderr:\n%s", err, out, stderr.String())
	}

	if !strings.Contains(out, "simulation: 2 ranks, 262144 particles per rank, 4 timesteps, file "+filepath.Join(dir, "particles.h5")) {
		t.Errorf("no banner for 2 ranks:\n%s", out)
	}
	// One line per step, from rank 0 only, computing before every step but the first.
	steps := regexp.MustCompile(`(?m)^step (\d): computed (\S+), wrote Timestep_(\d) \(8\.0 MiB per rank\)`).FindAllStringSubmatch(out, -1)
	if len(steps) != 4 {
		t.Fatalf("%d step lines, want 4:\n%s", len(steps), out)
	}
	for i, m := range steps {
		if m[1] != fmt.Sprint(i) || m[3] != fmt.Sprint(i) {
			t.Errorf("step line %d: %q", i, m[0])
		}
		d, err := time.ParseDuration(m[2])
		if err != nil || (i == 0) != (d == 0) || (i > 0 && d < 20*time.Millisecond) {
			t.Errorf("step %d computed %q, want 0 before the first step and 20ms before the others", i, m[2])
		}
	}
	for _, want := range []string{"Mode: SYNC", "Total number of ranks: 2", "Total write size: 64.000 MB", "Total read size: 64.000 MB", "Verification: OK"} {
		if strings.Count(out, want) < 1 {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !inspect.Available() {
		t.Skip("independent reader not built (needs -tags gonum): file not checked")
	}
	tree, err := inspect.Tree(filepath.Join(dir, "particles.h5"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range tree {
		got = append(got, n.String())
	}
	var want []string
	for s := 0; s < 4; s++ {
		want = append(want, fmt.Sprintf("/Timestep_%d group", s))
		for _, v := range []string{"x", "y", "z", "px", "py", "pz", "id_1", "id_2"} {
			typ := "f32"
			if v == "id_1" {
				typ = "i32"
			}
			want = append(want, fmt.Sprintf("/Timestep_%d/%s dataset %s [524288]", s, v, typ))
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("file structure:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
