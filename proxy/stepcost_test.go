package proxy_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// The cost of h5proxy's own work in a step, outside HDF5: a one-element VPIC step on the
// null layout plans 26 operations (eight writes), fills the eight write buffers
// (fill=seeded, a native session's default), executes nothing and books times, bytes and
// the census. make bench-capi times
// the same step through the C ABI (examples/c/bench_calls.c); docs/metrics.md says how to
// measure it.

// nullConfig is a null-layout session of one-element VPIC phases of steps steps.
func nullConfig(tb testing.TB, steps int, extra string) proxy.Config {
	return config(tb, "layout=null;DIM_1=1;TIMESTEPS="+strconv.Itoa(steps)+extra, "")
}

// TestNullStepAllocs checks that a step allocates nothing on the Go heap: with the census
// collected per phase, no trace and nothing logged, a step's bookkeeping is fixed-size
// state made at BeginPhase.
func TestNullStepAllocs(t *testing.T) {
	const runs = 200
	for _, ph := range []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead} {
		s := session(t, nullConfig(t, runs+2, ""))
		if ph == patterns.PhaseRead {
			if err := s.RunPhase(patterns.PhaseWrite); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.BeginPhase(ph); err != nil {
			t.Fatal(err)
		}
		step := 0
		var err error
		allocs := testing.AllocsPerRun(runs, func() {
			if err == nil {
				err = s.Step(step)
				step++
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.EndPhase(); err != nil {
			t.Fatal(err)
		}
		if allocs != 0 {
			t.Errorf("%s: %v allocations per null-layout step, want 0", ph, allocs)
		}
		rep, err := s.Report()
		if err != nil {
			t.Fatal(err)
		}
		if p := rep.Phases[len(rep.Phases)-1]; p.Steps != runs+1 || len(p.PerStep) != runs+1 {
			t.Errorf("%s: %d steps, %d per-step entries; want %d", ph, p.Steps, len(p.PerStep), runs+1)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkNullStep times one null-layout step (write phase) in phases of 1000 steps,
// begin and end outside the timer.
//
//	go test -run '^$' -bench NullStep -benchtime 20000x -cpuprofile cpu.out ./proxy
func BenchmarkNullStep(b *testing.B) {
	const per = 1000
	s := session(b, nullConfig(b, per, ""))
	defer s.Close()
	b.ReportAllocs()
	b.StopTimer()
	for done := 0; done < b.N; {
		if err := s.BeginPhase(patterns.PhaseWrite); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		n := min(per, b.N-done)
		for i := 0; i < n; i++ {
			if err := s.Step(i); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		done += n
		if err := s.EndPhase(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStepCensus checks when the census reads the system-call counters: by default at
// each phase's begin and end only (the steps' census has no sys_io, the phase's counts
// every call), with census=step after every step too (each step's census has them, and
// they add up to no more than the phase's).
func TestStepCensus(t *testing.T) {
	for _, kv := range []string{"", ";census=step"} {
		cfg := nullConfig(t, 4, kv)
		cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
		p := runReport(t, cfg, "census"+kv).Phases[0]
		if p.Census.SysIO["syscr"].Sum <= 0 {
			t.Errorf("%q: the phase counted no read calls (it read /proc/self/io): %v", kv, p.Census.SysIO)
		}
		var steps float64
		for _, st := range p.PerStep {
			if got := st.Census.SysIO != nil; got != (kv != "") {
				t.Errorf("%q: step %d has sys_io %v", kv, st.Step, st.Census.SysIO)
			}
			steps += st.Census.SysIO["syscr"].Sum
			if c := callCount(st.Census, "H5Dwrite"); c.Count != 8 {
				t.Errorf("%q: step %d census counts %v H5Dwrite, want 8", kv, st.Step, c.Count)
			}
		}
		if kv != "" && (steps <= 0 || steps > p.Census.SysIO["syscr"].Sum) {
			t.Errorf("%q: steps' read calls %v, phase's %v", kv, steps, p.Census.SysIO["syscr"].Sum)
		}
	}
}

// TestStepChargesPartition checks that a step's operations, fills and verifications are
// charged the whole time from its first operation's start to its last's end, no moment
// twice and none left out: each is timed from the clock's previous reading to its own
// (one reading each), whatever the load on the machine. The stamps are Unix seconds in
// float64 (a quarter of a microsecond apart at today's dates): the tolerance is four of those.
func TestStepChargesPartition(t *testing.T) {
	for _, kv := range []string{"DIM_1=1", "DIM_1=100000"} { // fills of one element, of 3 MiB per step
		s := session(t, config(t, "layout=null;TIMESTEPS=20;"+kv, ""))
		if err := s.RunPhase(patterns.PhaseWrite); err != nil {
			t.Fatal(err)
		}
		charged, span := proxy.StepCharges(s)
		for i := range span {
			if span[i] <= 0 || math.Abs(charged[i]-span[i]) > 1e-6 {
				t.Errorf("%q step %d: %.3g s charged, %.3g s from the first operation's start to the last's end", kv, i, charged[i], span[i])
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
