package launch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLauncherDefault(t *testing.T) {
	t.Setenv(EnvLauncher, "")
	argv, env, err := Launcher(3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"mpirun", "-np", "3"}; !slices.Equal(argv, want) {
		t.Errorf("argv = %q, want %q", argv, want)
	}
	if !slices.Contains(env, "OMPI_MCA_rmaps_base_oversubscribe=1") {
		t.Errorf("env %q does not allow oversubscription", env)
	}
	root := os.Getuid() == 0
	for _, v := range []string{"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"} {
		if slices.Contains(env, v) != root {
			t.Errorf("uid %d: env %q: %s present = %v, want %v", os.Getuid(), env, v, !root, root)
		}
	}
}

func TestLauncherOverride(t *testing.T) {
	t.Setenv(EnvLauncher, "  echo --bind-to   none ")
	argv, _, err := Launcher(2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"echo", "--bind-to", "none", "-np", "2"}; !slices.Equal(argv, want) {
		t.Errorf("argv = %q, want %q", argv, want)
	}
}

func TestLauncherErrors(t *testing.T) {
	t.Setenv(EnvLauncher, "/nonexistent/mpirun -v")
	if _, _, err := Launcher(2); err == nil || !strings.Contains(err.Error(), EnvLauncher) {
		t.Errorf("missing launcher: err = %v, want a hint naming %s", err, EnvLauncher)
	}
	t.Setenv(EnvLauncher, "")
	if _, _, err := Launcher(0); err == nil {
		t.Error("Launcher(0) succeeded")
	}
}

// TestLauncherKinds: site launchers get their own rank option, whatever their path.
func TestLauncherKinds(t *testing.T) {
	dir := t.TempDir()
	for name, flag := range map[string]string{"srun": "-n", "aprun": "-n", "jsrun": "-n", "flux": "-n", "mpiexec": "-np", "mpirun": "-np"} {
		exe := dir + "/" + name
		if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv(EnvLauncher, exe+" --mpi=pmix")
		argv, _, err := Launcher(4)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{exe, "--mpi=pmix", flag, "4"}; !slices.Equal(argv, want) {
			t.Errorf("%s: argv = %q, want %q", name, argv, want)
		}
	}
}

// TestCounts checks the -nps lists: counts in order, blanks skipped, and an error naming
// the entry that is not a rank count, or the list that holds none.
func TestCounts(t *testing.T) {
	if got, err := Counts(" 1, 2,,4 "); err != nil || !slices.Equal(got, []int{1, 2, 4}) {
		t.Errorf("Counts: %v, %v; want [1 2 4]", got, err)
	}
	for list, want := range map[string]string{"1,x": `"x" is not a rank count`, "2,0": `"0" is not a rank count`, " , ": `" , " holds no rank count`} {
		if _, err := Counts(list); err == nil || err.Error() != want {
			t.Errorf("Counts(%q): %v, want %s", list, err, want)
		}
	}
}

// TestSelfPerCount runs a stand-in launcher that appends "ran N" to the results file and
// fails on 3 ranks: the lines of every run in order, a stale results file removed first,
// and the first failure stops the study, naming its rank count.
func TestSelfPerCount(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-mpirun")
	// $1 -np, $2 the rank count, $3 this executable, $4 the results file (the args).
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"ran $2\" >> \"$4\"\n[ \"$2\" != 3 ]\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvLauncher, fake)
	res := filepath.Join(dir, "results.txt")
	if err := os.WriteFile(res, []byte("stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := SelfPerCount([]int{1, 2}, res, res); err != nil || !slices.Equal(got, []string{"ran 1", "ran 2"}) {
		t.Errorf("SelfPerCount: %q, %v; want the two runs' lines", got, err)
	}
	if _, err := SelfPerCount([]int{1, 3, 2}, res, res); err == nil || !strings.Contains(err.Error(), "run on 3 ranks failed (exit 1)") {
		t.Errorf("a failed run: %v", err)
	}
	if data, _ := os.ReadFile(res); string(data) != "ran 1\nran 3\n" {
		t.Errorf("results after the failure: %q, want the runs up to it", data)
	}
}
