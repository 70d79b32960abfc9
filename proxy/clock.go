package proxy

// The clock: monotonic ticks, wall-clock conversions and the lap clock that times a plan's
// operations with one reading each.

import (
	"time"
)

// now is the wall-clock time in Unix seconds, from one monotonic reading (time.Now reads
// the wall clock and the monotonic clock: two vDSO calls).
func now() float64 { return wallSeconds(tick()) }

// wallSeconds is the wall-clock time of tick d in Unix seconds.
func wallSeconds(d time.Duration) float64 { return float64(clockBaseUnix+int64(d)) / 1e9 }

// clockBase is the wall-clock time at start-up with its monotonic reading. Operations are
// timed as ticks since it: time.Since reads the monotonic clock alone, one vDSO call,
// where time.Now reads the wall clock too (twice per operation, it was the largest part of
// a null-layout step's own cost in BenchmarkNullStep's profile). Ticks turn back into wall-clock
// time where reports compare ranks (stamp) or a trace needs it (wallAt).
var clockBase = time.Now()

// clockBaseUnix is clockBase in Unix nanoseconds.
var clockBaseUnix = clockBase.UnixNano()

// tick is the monotonic time since clockBase.
func tick() time.Duration { return time.Since(clockBase) }

// wallAt is the wall-clock time of tick d.
func wallAt(d time.Duration) time.Time { return clockBase.Add(d) }

// lapClock times consecutive pieces of work with one clock reading each: a piece runs
// from the previous reading to its own. Two readings around each piece would double the
// readings, each a vDSO call of some 20 ns (the largest part of a null-layout step's own
// cost after the census moved to the phase, by BenchmarkNullStep's profile).
type lapClock struct{ last time.Duration }

// start reads the clock: the next lap begins now.
func (c *lapClock) start() { c.last = tick() }

// lap reads the clock and returns the lap just ended: from the previous reading to now.
func (c *lapClock) lap() (from, to time.Duration) {
	to = tick()
	from, c.last = c.last, to
	return from, to
}

// stamp records when a step's first and last operations (op i of n) started and ended, in
// wall-clock seconds (compared across ranks).
func stamp(smp *sample, i, n int, t0, t1 time.Duration) {
	if i != 0 && i != n-1 {
		return
	}
	a, b := wallSeconds(t0), wallSeconds(t1)
	if i == 0 {
		smp[mFirstStart], smp[mFirstEnd] = a, b
	}
	if i == n-1 {
		smp[mLastStart], smp[mLastEnd] = a, b
	}
}
