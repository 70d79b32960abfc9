package mpitest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rankEnv returns the rank and size the launcher gives a child (OpenMPI, else Hydra's PMI).
func rankEnv(t *testing.T) (rank, size int) {
	t.Helper()
	get := func(names ...string) int {
		for _, name := range names {
			if v, ok := os.LookupEnv(name); ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					t.Fatalf("%s=%q: %v", name, v, err)
				}
				return n
			}
		}
		t.Fatalf("none of %v is set: not launched by an MPI launcher?", names)
		return 0
	}
	return get("OMPI_COMM_WORLD_RANK", "PMI_RANK"), get("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")
}

// TestRunRanks checks that every rank of every count runs the body exactly once: each
// child rank leaves a file named after its size and rank, and the parent counts them.
func TestRunRanks(t *testing.T) {
	nps := []int{1, 2, 4}
	if !Child() {
		t.Setenv("MPITEST_OUT_DIR", t.TempDir())
	}
	dir := os.Getenv("MPITEST_OUT_DIR")
	if Run(t, nps...) {
		for _, n := range nps {
			for r := range n {
				if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("%d-%d", n, r))); err != nil {
					t.Errorf("np=%d: rank %d left no trace: %v", n, r, err)
				}
			}
		}
		entries, _ := os.ReadDir(dir)
		if want := 1 + 2 + 4; len(entries) != want {
			t.Errorf("%d rank traces, want %d", len(entries), want)
		}
		return
	}
	if os.Getenv("OMPI_MCA_rmaps_base_oversubscribe") != "1" {
		t.Error("oversubscription not allowed in the child")
	}
	rank, size := rankEnv(t)
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%d-%d", size, rank)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestChildFails fails on every rank when launched by TestRunReportsFailure; run directly,
// it does nothing.
func TestChildFails(t *testing.T) {
	if Child() && os.Getenv("MPITEST_WANT_FAIL") == "1" {
		rank, _ := rankEnv(t)
		t.Fatalf("deliberate failure on rank %d", rank)
	}
}

func TestRunReportsFailure(t *testing.T) {
	t.Setenv("MPITEST_WANT_FAIL", "1")
	out, err := run("TestChildFails", 2, 60*time.Second)
	if err == nil {
		t.Fatalf("a failing child run reported success:\n%s", out)
	}
	if !strings.Contains(string(out), "deliberate failure on rank") {
		t.Errorf("the child's output is missing from the report of %v:\n%s", err, out)
	}
}

// TestChildHangs hangs when launched by TestRunTimeout; run directly, it does nothing.
func TestChildHangs(t *testing.T) {
	if Child() && os.Getenv("MPITEST_WANT_HANG") == "1" {
		time.Sleep(time.Hour)
	}
}

func TestRunTimeout(t *testing.T) {
	t.Setenv("MPITEST_WANT_HANG", "1")
	begin := time.Now()
	out, err := run("TestChildHangs", 1, 2*time.Second)
	if err == nil {
		t.Fatalf("a hanging child run reported success:\n%s", out)
	}
	if !strings.Contains(string(out), "test timed out") {
		t.Errorf("no timeout report in the output of %v:\n%s", err, out)
	}
	if d := time.Since(begin); d > 2*time.Second+killGrace {
		t.Errorf("the hanging run took %v", d)
	}
}

func TestPattern(t *testing.T) {
	if got, want := pattern("TestA/np=2.x"), `^TestA$/^np=2\.x$`; got != want {
		t.Errorf("pattern = %q, want %q", got, want)
	}
}

func TestQuote(t *testing.T) {
	if got, want := quote([]byte("=== RUN   TestX\n--- PASS: TestX\n")), "| === RUN   TestX\n| --- PASS: TestX"; got != want {
		t.Errorf("quote = %q, want %q", got, want)
	}
}

// TestSweep: without SweepEnv a sweep is every count; with it, the named count alone when
// the sweep has it, else every count; a value that is not a rank count panics naming it.
func TestSweep(t *testing.T) {
	t.Setenv(SweepEnv, "")
	if got := Sweep(1, 2, 4); !slices.Equal(got, []int{1, 2, 4}) {
		t.Errorf("unset: Sweep(1, 2, 4) = %v", got)
	}
	t.Setenv(SweepEnv, "2")
	if got := Sweep(1, 2, 4); !slices.Equal(got, []int{2}) {
		t.Errorf("%s=2: Sweep(1, 2, 4) = %v, want [2]", SweepEnv, got)
	}
	if got := Sweep(1, 4); !slices.Equal(got, []int{1, 4}) {
		t.Errorf("%s=2: Sweep(1, 4) = %v, want [1 4]", SweepEnv, got)
	}
	for _, bad := range []string{"two", "0", "-2"} {
		t.Setenv(SweepEnv, bad)
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, SweepEnv+`="`+bad+`"`) {
					t.Errorf("%s=%q: recovered %v, want a panic naming the value", SweepEnv, bad, r)
				}
			}()
			Sweep(1, 2, 4)
		}()
	}
}
