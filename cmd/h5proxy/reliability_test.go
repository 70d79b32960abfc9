package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestRunThroughSiteLauncher: with H5PROXY_MPIEXEC naming a site launcher (here a
// stand-in srun that starts real ranks with mpirun and rejects -np as srun does), h5proxy
// run launches through it with srun's task option and the job runs on that many ranks.
func TestRunThroughSiteLauncher(t *testing.T) {
	dir := t.TempDir()
	srun, err := filepath.Abs("testdata/srun")
	if err != nil {
		t.Fatal(err)
	}
	cfg := h5benchConfig(t, dir, 2, 16, 1, nil)
	r := h5proxyEnv(t, dir, []string{"H5PROXY_MPIEXEC=" + srun + " --mpi=pmix"}, "run", cfg)
	r.expect(t, 0, []string{"Total number of ranks: 2\n"},
		[]string{fmt.Sprintf(`launching 2 ranks: %q "--mpi=pmix" "-n" "2"`, srun), "srun (stand-in): 2 tasks"})
	checkTree(t, filepath.Join(dir, "particles.h5"), 1, 32)
}

// rankPIDs returns the pids of the ranks below launcher pid (its descendants that have
// OMPI_COMM_WORLD_RANK in their environment), by rank.
func rankPIDs(t *testing.T, launcher int) map[int]int {
	t.Helper()
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after its ')'.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) > 1 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	ranks := map[int]int{}
	for pid := range parent {
		p := parent[pid]
		for p > 1 && p != launcher {
			p = parent[p]
		}
		if p != launcher {
			continue
		}
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, []byte("OMPI_COMM_WORLD_RANK=")); ok {
				r, _ := strconv.Atoi(string(v))
				ranks[r] = pid
			}
		}
	}
	return ranks
}

// TestRunKilledRank kills (SIGKILL) rank 1 of a running `h5proxy run` in the middle of its
// write phase: the job ends within 30 s, failing, and the command's error names the lost
// rank.
func TestRunKilledRank(t *testing.T) {
	dir := t.TempDir()
	cfg := h5benchConfig(t, dir, 2, 64, 100, map[string]string{"EMULATED_COMPUTE_TIME_PER_TIMESTEP": "200 ms"})
	cmd := exec.Command(binary, "run", cfg)
	cmd.Dir, cmd.Env = dir, userEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // whatever is left, if the test fails
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Wait for the write phase's steps, then kill rank 1.
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(stderr.String(), "step done") {
		if time.Now().After(deadline) {
			t.Fatalf("no step done after 60 s:\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	ranks := rankPIDs(t, cmd.Process.Pid)
	pid, ok := ranks[1]
	if !ok {
		t.Fatalf("rank 1 not found among the processes below %d: %v", cmd.Process.Pid, ranks)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	select {
	case err := <-done:
		took := time.Since(killed)
		t.Logf("exit %v %v after the kill:\n%s", err, took.Round(time.Millisecond), stderr.String())
		if err == nil {
			t.Fatalf("the run succeeded without rank 1")
		}
		if want := regexp.MustCompile(`launched run failed \(exit status \d+\): lost rank 1 on node \S+ \(signal 9, Killed\)`); !want.MatchString(stderr.String()) {
			t.Errorf("stderr does not name the lost rank (%s):\n%s", want, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the run still ran 30 s after rank 1 was killed:\n%s", stderr.String())
	}
}

// TestFaultAcrossRanks fills a 1 MiB tmpfs under a 2-rank write (the MPI-IO path through
// HDF5): the run ends within 30 s of its start with an error naming the phase, the step,
// the operation, the file and the full file system, whether both ranks saw the failure
// or one alone (then the failing rank ends the job, since the other waits in a
// collective write).
func TestFaultAcrossRanks(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	if err := os.Mkdir(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", full).CombinedOutput(); err != nil {
		t.Fatalf("mounting a tmpfs on %s, which this test needs (run as root): %v\n%s", full, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", full).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v\n%s", full, err, out)
		}
	})
	cfg := h5benchConfig(t, full, 2, 65536, 4, nil)
	begin := time.Now()
	r := h5proxy(t, dir, "run", cfg)
	if took := time.Since(begin); took > 30*time.Second {
		t.Errorf("the failed run took %v", took)
	}
	file := filepath.Join(full, "particles.h5")
	r.expect(t, 1, nil, []string{"write phase, file " + file + ": step 0: write /Timestep_0/", "is full", "launched run failed"})
}

// syncBuffer is a bytes.Buffer written by a command's output copier and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
