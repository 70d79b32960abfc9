package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/internal/launch"
)

// TestIORReexec: a rank of h5proxy ior started by the user's own launcher (mpirun -np 2
// h5proxy ior ...) re-executes itself with asyncpreemptoff=1 added to its GODEBUG before
// MPI starts, so the Go runtime of every rank starts with it; a GODEBUG the user set is
// kept, one naming asyncpreemptoff is left alone, and a rank that finds the marker of a
// re-execution never re-executes again. Each rank says, from inside (its debug line),
// the GODEBUG its runtime started with, once (one process per rank: the exec keeps it);
// the report still reaches the launcher's stdout.
func TestIORReexec(t *testing.T) {
	argv, lenv, err := launch.Launcher(2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		env    []string // added to the user's environment, GODEBUG removed
		want   string   // each rank's GODEBUG
		reexec bool     // each rank carries the marker
	}{
		{"unset", nil, "asyncpreemptoff=1", true},
		{"user's kept", []string{"GODEBUG=gctrace=0"}, "gctrace=0,asyncpreemptoff=1", true},
		{"user's choice", []string{"GODEBUG=asyncpreemptoff=0"}, "asyncpreemptoff=0", false},
		{"no loop", []string{iorReexecEnv + "=1"}, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			args := append(argv[1:], binary, "ior", "-a", "MPIIO", "-b", "8k", "-t", "4k", "-w", "-r", "-o", filepath.Join(dir, "f"))
			cmd := exec.CommandContext(ctx, argv[0], args...)
			cmd.Dir = dir
			for _, kv := range userEnv() {
				if !strings.HasPrefix(kv, "GODEBUG=") && !strings.HasPrefix(kv, iorReexecEnv+"=") && !strings.HasPrefix(kv, "H5PROXY_LOG_") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			cmd.Env = append(append(append(cmd.Env, lenv...), c.env...),
				"H5PROXY_LOG_LEVEL=debug", "H5PROXY_LOG_RANKS=all", "H5PROXY_LOG_FORMAT=json")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), "Max Read:  ") {
				t.Errorf("stdout lacks the report's Max Read line:\n%s", stdout.String())
			}
			seen := map[int]bool{}
			sc := bufio.NewScanner(&stderr)
			for sc.Scan() {
				var l struct {
					Message    string `json:"message"`
					Rank       int    `json:"rank"`
					GODEBUG    string `json:"godebug"`
					Reexecuted bool   `json:"reexecuted"`
				}
				if json.Unmarshal(sc.Bytes(), &l) != nil || l.Message != "ior rank" {
					continue
				}
				if seen[l.Rank] {
					t.Errorf("rank %d logged its start twice: %s", l.Rank, sc.Text())
				}
				seen[l.Rank] = true
				if l.GODEBUG != c.want || l.Reexecuted != c.reexec {
					t.Errorf("rank %d started with GODEBUG %q, marker %v; want %q, %v", l.Rank, l.GODEBUG, l.Reexecuted, c.want, c.reexec)
				}
			}
			if !seen[0] || !seen[1] {
				t.Errorf("ranks that logged their start: %v, want 0 and 1\nstderr:\n%s", seen, stderr.String())
			}
		})
	}
}
