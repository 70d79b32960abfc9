package launch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// EnvLauncher names the environment variable that replaces the default launcher, mpirun.
// Its value is split on white space.
const EnvLauncher = "H5PROXY_MPIEXEC"

// Launcher returns the argv prefix that launches n ranks, such as
// ["mpirun", "-np", "4"], and the "KEY=VALUE" variables to add to the launcher's
// environment. It fails if n < 1 or the launcher is not found.
func Launcher(n int) (argv []string, env []string, err error) {
	if n < 1 {
		return nil, nil, fmt.Errorf("launch: %d ranks requested, need at least 1", n)
	}
	argv = strings.Fields(os.Getenv(EnvLauncher))
	if len(argv) == 0 {
		argv = []string{"mpirun"}
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, nil, fmt.Errorf("launch: MPI launcher %q not found (install OpenMPI, e.g. apt-get install openmpi-bin, or set %s): %w",
			argv[0], EnvLauncher, err)
	}
	argv = append(argv, RankFlag(argv[0]), strconv.Itoa(n))
	env = []string{"OMPI_MCA_rmaps_base_oversubscribe=1"}
	if os.Getuid() == 0 {
		env = append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	return argv, env, nil
}

// RankFlag returns the option by which launcher (a path or name) takes the number of
// ranks: "-n" for the site launchers that reject mpirun's "-np" (Slurm's srun, Cray's
// aprun, IBM's jsrun, Flux's flux run), "-np" for mpirun and mpiexec.
func RankFlag(launcher string) string {
	switch filepath.Base(launcher) {
	case "srun", "aprun", "jsrun", "flux":
		return "-n"
	}
	return "-np"
}

// Underneath reports whether this process was started by an MPI launcher (OpenMPI, PMIx,
// MPICH/Hydra or MVAPICH set these).
func Underneath() bool {
	for _, k := range []string{"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS"} {
		if os.Getenv(k) != "" {
			return true
		}
	}
	return false
}

// Self runs this executable on n ranks under the launcher with args, sharing stdout and
// stderr, and returns the launched job's exit code (1 when it could not start).
func Self(n int, args ...string) (int, error) {
	argv, env, err := Launcher(n)
	if err != nil {
		return 1, err
	}
	self, err := os.Executable()
	if err != nil {
		return 1, err
	}
	cmd := exec.Command(argv[0], append(append(argv[1:], self), args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return max(ee.ExitCode(), 1), nil
		}
		return 1, err
	}
	return 0, nil
}

// SelfInDir is Self for programs that take a "-dir" flag shared by their ranks: when dir
// is empty it creates a temporary directory (removed afterwards), then runs this
// executable on n ranks with the program's own arguments, "-dir DIR" (the last -dir wins)
// and extra, once per entry of runs (nil runs once). Errors are printed with the
// program's name; the result is an exit code.
func SelfInDir(name string, n int, dir string, runs ...[]string) int {
	if dir == "" {
		d, err := os.MkdirTemp("", "h5proxy-"+name+"-")
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			return 1
		}
		defer os.RemoveAll(d)
		dir = d
	}
	if len(runs) == 0 {
		runs = [][]string{nil}
	}
	for _, extra := range runs {
		code, err := Self(n, append(append(append([]string(nil), os.Args[1:]...), "-dir", dir), extra...)...)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		}
		if code != 0 {
			return code
		}
	}
	return 0
}

// Counts parses a comma-separated list of rank counts (the benchmarks' -nps flag); blank
// entries are skipped. A benchmark parses it before it launches anything.
func Counts(list string) ([]int, error) {
	var ns []int
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a rank count", s)
		}
		ns = append(ns, n)
	}
	if len(ns) == 0 {
		return nil, fmt.Errorf("%q holds no rank count", list)
	}
	return ns, nil
}

// SelfPerCount runs this executable with args on each number of ranks in counts, one
// launch after another, stopping at the first that fails, and returns the lines the runs
// appended to the results file (AppendLines; removed first): how a benchmark runs its
// study at several rank counts and gathers what each run measured.
func SelfPerCount(counts []int, results string, args ...string) ([]string, error) {
	if err := os.Remove(results); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, n := range counts {
		if code, err := Self(n, args...); err != nil || code != 0 {
			return nil, fmt.Errorf("run on %d ranks failed (exit %d): %v", n, code, err)
		}
	}
	data, err := os.ReadFile(results)
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"), nil
}

// AppendLines appends lines to the results file at path (created if missing): how a
// launched run hands its results to the parent that launched it, one run per rank count
// appending in turn.
func AppendLines(path string, lines []string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(f, l); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
