package launch

import (
	"os"
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
