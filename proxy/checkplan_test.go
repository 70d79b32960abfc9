package proxy_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/vpic"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestDatasetChecksOnce writes VPIC-IO at 2 ranks through a layout whose dataset check
// counts its calls, in the sync and async modes: every dataset of every step is checked
// exactly once on each rank (the first step's too, which is checked before the phase's
// first operation); a dataset the check refuses in the first step stops the phase before
// any I/O (no file), and one refused in a later step stops it before any operation of that
// step (the file holds the earlier steps and nothing of the refused one).
func TestDatasetChecksOnce(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	var refuse string
	checks := proxy.RegisterCheckingLayout("checking", &refuse)
	vars := vpic.Variables
	const steps = 3
	for _, mode := range []string{"sync", "async"} {
		run := func(name string) (file string, err error) {
			t.Helper()
			clear(checks)
			file = fileOf(dir, "checked-"+name+"-"+mode, 2)
			cfg := config(t, fmt.Sprintf("DIM_1=64;TIMESTEPS=%d;COLLECTIVE_DATA=YES;mode=%s", steps, mode), file)
			cfg.Layout = "checking"
			cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
			s := session(t, cfg)
			err = s.Run()
			if cerr := s.Close(); cerr != nil {
				t.Errorf("%s %s: close: %v", mode, name, cerr)
			}
			if err := world(t).Barrier(); err != nil {
				t.Fatal(err)
			}
			return file, err
		}

		refuse = ""
		if _, err := run("all"); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		for step := 0; step < steps; step++ {
			for _, v := range vars {
				if p := fmt.Sprintf("/Timestep_%d/%s", step, v); checks[p] != 1 {
					t.Errorf("%s: %s checked %d times, want once", mode, p, checks[p])
				}
			}
		}
		if len(checks) != steps*len(vars) {
			t.Errorf("%s: checked %v, want the %d datasets of %d steps", mode, checks, len(vars), steps)
		}

		refuse = "/Timestep_0/px"
		file, err := run("first")
		if !errors.Is(err, proxy.ErrCheckRefused) || !strings.Contains(err.Error(), refuse) {
			t.Errorf("%s: refused %s: got %v", mode, refuse, err)
		}
		if _, serr := os.Stat(file); !errors.Is(serr, os.ErrNotExist) {
			t.Errorf("%s: refused %s in the first step, yet %s exists (%v)", mode, refuse, file, serr)
		}

		refuse = "/Timestep_1/y"
		file, err = run("later")
		if !errors.Is(err, proxy.ErrCheckRefused) || !strings.Contains(err.Error(), "step 1") || !strings.Contains(err.Error(), refuse) {
			t.Errorf("%s: refused %s: got %v, want it at step 1", mode, refuse, err)
		}
		if checks["/Timestep_0/x"] != 1 || checks[refuse] != 1 {
			t.Errorf("%s: refused %s: checked %v", mode, refuse, checks)
		}
		if world(t).Rank() != 0 || !inspect.Available() {
			continue
		}
		tree, err := inspect.Tree(file)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		var got []string
		for _, n := range tree {
			got = append(got, n.Path)
		}
		if len(got) != 1+len(vars) || got[0] != "/Timestep_0" {
			t.Errorf("%s: refused %s at step 1: the file holds %v, want /Timestep_0 and its %d datasets only", mode, refuse, got, len(vars))
		}
	}
}
