package mpitest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/internal/launch"
)

// childEnv marks a process launched by Run.
const childEnv = "H5PROXY_MPITEST_CHILD"

const (
	// runTimeout bounds one launched run; the child gets it as -test.timeout, so a hang
	// ends with the child's goroutine dump.
	runTimeout = 120 * time.Second
	// killGrace is how long the parent waits past runTimeout before it stops the launcher,
	// and then how long it waits for the launcher to exit before killing it.
	killGrace = 15 * time.Second
)

// Child reports whether this process is a launched child.
func Child() bool { return os.Getenv(childEnv) == "1" }

// Run runs test t's body under `mpirun -np n` for each n in nps and fails t (naming n and
// including the output) if the launched run fails. It returns true in the parent (the
// caller returns immediately) and false in the child, where the caller goes on with the
// body.
func Run(t *testing.T, nps ...int) (parent bool) {
	t.Helper()
	if Child() {
		return false
	}
	if len(nps) == 0 {
		t.Fatal("mpitest.Run: no rank counts given")
	}
	if _, _, err := launch.Launcher(1); err != nil {
		t.Fatalf("mpitest: cannot launch MPI ranks: %v", err)
	}
	name := t.Name()
	for _, n := range nps {
		t.Run(fmt.Sprintf("np=%d", n), func(t *testing.T) {
			out, err := run(name, n, timeoutFor(t, n))
			if err != nil {
				t.Fatalf("np=%d: %v\n%s", n, err, quote(out))
			}
			t.Logf("np=%d output:\n%s", n, quote(out))
		})
	}
	return true
}

// Output runs test t's body under `mpirun -np n`, as Run does, for a test of how a job
// ends (a rank that aborts it): in the parent it returns the launched run's combined
// output and its error (nil when every rank exited 0) for the caller to check; in the
// child it returns parent false and the caller goes on with the body.
func Output(t *testing.T, n int) (parent bool, out []byte, err error) {
	t.Helper()
	if Child() {
		return false, nil, nil
	}
	if _, _, err := launch.Launcher(1); err != nil {
		t.Fatalf("mpitest: cannot launch MPI ranks: %v", err)
	}
	out, err = run(t.Name(), n, timeoutFor(t, n))
	return true, out, err
}

// timeoutFor bounds a launched run of n ranks: runTimeout, or less to end before t's
// deadline.
func timeoutFor(t *testing.T, n int) time.Duration {
	t.Helper()
	timeout := runTimeout
	if d, ok := t.Deadline(); ok {
		timeout = min(timeout, time.Until(d)-2*killGrace)
	}
	if timeout <= 0 {
		t.Fatalf("np=%d: no time left before the test deadline", n)
	}
	return timeout
}

// run launches test name of this binary on n ranks and returns their combined output.
func run(name string, n int, timeout time.Duration) ([]byte, error) {
	argv, env, err := launch.Launcher(n)
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locating the test binary: %w", err)
	}
	args := append(argv[1:], exe, "-test.run", pattern(name), "-test.timeout", timeout.String())
	if testing.Verbose() {
		args = append(args, "-test.v")
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+killGrace)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], args...)
	cmd.Env = append(append(os.Environ(), env...), childEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	// SIGTERM lets mpirun take its ranks down with it; SIGKILL follows if it does not exit.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = killGrace
	err = cmd.Run()
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%s: killed after %v: %w", strings.Join(cmd.Args, " "), timeout+killGrace, err)
	} else if err != nil {
		err = fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
	}
	return out.Bytes(), err
}

// pattern returns the -test.run pattern matching exactly the test (or subtest) name.
func pattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// quote prefixes each line of the child's output, so that its "=== RUN" and "--- FAIL"
// lines are not taken for the parent's own by go test's output parser.
func quote(out []byte) string {
	s := strings.TrimRight(string(out), "\n")
	if s == "" {
		return "| (no output)"
	}
	return "| " + strings.ReplaceAll(s, "\n", "\n| ")
}

// SweepEnv names the variable that narrows rank sweeps to one rank count: make test's 1.14
// suite sets it to 2, since what a sweep checks of the HDF5 build (collective and
// independent transfers over MPI-IO, files read back) shows at 2 ranks, and the default
// suite runs every count (docs/hdf5.md, "What each suite runs").
const SweepEnv = "H5PROXY_TEST_SWEEP"

// Sweep returns the rank counts a sweep over nps runs: nps, or only the count SweepEnv
// names when nps holds it. A test whose point is the rank count itself (how work is split
// among ranks) does not call Sweep. A value that is not a rank count panics (a package's
// rank counts are often a variable set before any test runs), naming the variable.
func Sweep(nps ...int) []int {
	v := os.Getenv(SweepEnv)
	if v == "" {
		return nps
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		panic(fmt.Sprintf("mpitest: %s=%q: want a rank count (a positive integer)", SweepEnv, v))
	}
	if slices.Contains(nps, n) {
		return []int{n}
	}
	return nps
}
