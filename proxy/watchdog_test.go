package proxy_test

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestStallWatchdog makes rank 0's write of /Timestep_1/x never return (the test layout
// "stalling") at 2 ranks, with stall_timeout=2s: the job must end with MPI_Abort's code
// 124 instead of hanging, after both ranks wrote the report naming the phase, the step
// and the call. Rank 1 is inside the same collective write, waiting for rank 0. In sync
// mode the call is the caller's; in async mode the caller waits before step 2 (IO_MEM_LIMIT
// 0 waits for the earlier steps' I/O) while the background thread is inside the write.
func TestStallWatchdog(t *testing.T) {
	dir := testDir(t)
	for _, tc := range []struct {
		mode string
		want [2]string // per rank, a regular expression the report must match
	}{
		{"sync", [2]string{
			`rank 0 of 2 made no progress for [0-9.]+s \(stall_timeout 2s\): phase write, step 1, inside H5Dwrite /Timestep_1/x \(write, step 1\); ending the job \(MPI_Abort, code 124\)`,
			`rank 1 of 2 made no progress for [0-9.]+s \(stall_timeout 2s\): phase write, step 1, inside H5Dwrite /Timestep_1/x \(write, step 1\); ending the job`}},
		{"async", [2]string{
			`rank 0 of 2 made no progress for [0-9.]+s \(stall_timeout 2s\): phase write, step 2, inside waiting for the background I/O \(the mode's wait\); the background thread \(mode async\) is inside H5Dwrite /Timestep_1/x \(write, step 1\); ending the job`,
			`rank 1 of 2 made no progress for [0-9.]+s \(stall_timeout 2s\): phase write, step 2, inside waiting for the background I/O \(the mode's wait\); the background thread \(mode async\) is inside H5Dwrite /Timestep_1/x \(write, step 1\); ending the job`}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			parent, out, err := mpitest.Output(t, 2)
			if parent {
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != proxy.StallAbortCode {
					t.Fatalf("the stalled job ended with %v, want exit code %d (MPI_Abort by the watchdog); output:\n%s", err, proxy.StallAbortCode, out)
				}
				for rank, want := range tc.want {
					if !regexp.MustCompile(regexp.QuoteMeta(proxy.ErrStalled.Error()) + `: ` + want).Match(out) {
						t.Errorf("rank %d's report missing: want a line matching\n%s\noutput:\n%s", rank, want, out)
					}
				}
				return
			}
			proxy.RegisterStallingLayout("write /Timestep_1/x", 0)
			size := world(t).Size()
			cfg := config(t, fmt.Sprintf("DIM_1=512;TIMESTEPS=4;COLLECTIVE_DATA=YES;stall_timeout=2s;%s", modeKV(tc.mode)),
				fileOf(dir, "stalling-"+tc.mode, size))
			cfg.Layout = "stalling"
			cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
			s := session(t, cfg)
			err = s.Run()
			t.Fatalf("the stalled run returned (%v): the watchdog should have ended the job", err)
		})
	}
}

// TestStallInSetup makes rank 0's layout creation never return (the layout "stalling"
// with "create"), inside NewSession, before any phase or step: the set-up watchdog must
// end the job with code 124 after rank 0 named the layout's creation and rank 1, which
// went on to the ranks' agreement on the creation, named that collective.
func TestStallInSetup(t *testing.T) {
	dir := testDir(t)
	parent, out, err := mpitest.Output(t, 2)
	if parent {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != proxy.StallAbortCode {
			t.Fatalf("the stalled job ended with %v, want exit code %d (MPI_Abort by the watchdog); output:\n%s", err, proxy.StallAbortCode, out)
		}
		for rank, want := range []string{
			`rank 0 of 2 made no progress for [0-9.]+s \(stall_timeout 2s\): session set-up, inside the layout's and mode's creation \(files probed, a connector or cache set up\); ending the job \(MPI_Abort, code 124\)`,
			`rank 1 of 2 made no progress for [0-9.]+s \(stall_timeout 2s\): session set-up, inside MPI_Allreduce \(the ranks agreeing that the session was created\); ending the job`,
		} {
			if !regexp.MustCompile(regexp.QuoteMeta(proxy.ErrStalled.Error()) + `: ` + want).Match(out) {
				t.Errorf("rank %d's report missing: want a line matching\n%s\noutput:\n%s", rank, want, out)
			}
		}
		return
	}
	proxy.RegisterStallingLayout("create", 0)
	cfg := config(t, "DIM_1=512;TIMESTEPS=1;stall_timeout=2s", fileOf(dir, "stalling-create", world(t).Size()))
	cfg.Layout = "stalling"
	_, err = proxy.NewSession(proxy.World(), cfg)
	t.Fatalf("the stalled session creation returned (%v): the watchdog should have ended the job", err)
}

// TestStallTimeoutKey checks the key: its default, 0 (disabled) and a value that is no
// duration, refused naming the key.
func TestStallTimeoutKey(t *testing.T) {
	for kv, want := range map[string]string{"": "3m0s", "stall_timeout=0": "0s", "stall_timeout=90s": "1m30s"} {
		kvs, err := proxy.ParseKV("file=x.h5;" + kv)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := proxy.ParseOptions("vpic", kvs)
		if err != nil {
			t.Fatalf("%q: %v", kv, err)
		}
		if got := cfg.StallTimeout.String(); got != want {
			t.Errorf("%q: stall_timeout %s, want %s", kv, got, want)
		}
	}
	kvs, _ := proxy.ParseKV("file=x.h5;stall_timeout=soon")
	if _, err := proxy.ParseOptions("vpic", kvs); err == nil || !strings.Contains(err.Error(), "stall_timeout") || !strings.Contains(err.Error(), "soon") {
		t.Errorf("stall_timeout=soon: err = %v, want an error naming the key and the value", err)
	}
}
