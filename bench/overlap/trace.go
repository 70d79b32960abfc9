package main

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/proxy/tracefile"
)

// traceEvent is a trace_file event (Chrome's format).
type traceEvent = tracefile.Event

// traceFigures reads a merged trace (-trace) of a background mode's runs and says, over
// every rank and step, how much of the caller's compute the executor's HDF5 calls
// covered, and how long the caller stood still between its last submission and its
// compute, with how many of those pauses ended within 2 ms of a background call's end (a
// caller waiting for a lock the executor holds: docs/modes.md, "The async model's caller
// waited for the census"). Counts and intervals from the timeline: the structure, which
// load does not change, beside the times, which it does.
func traceFigures(file string) (string, error) {
	doc, err := tracefile.Read(file)
	if err != nil {
		return "", err
	}
	byRank := map[int][]traceEvent{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			byRank[e.Pid] = append(byRank[e.Pid], e)
		}
	}
	var computeUs, coveredUs float64
	var gaps []float64
	atEnd := 0
	for _, ev := range byRank {
		slices.SortFunc(ev, func(a, b traceEvent) int { return cmp.Compare(a.Ts, b.Ts) })
		var bg []traceEvent
		for _, e := range ev {
			if e.Tid == 1 && e.Cat == "io" {
				bg = append(bg, e)
			}
		}
		last := -1.0
		for _, e := range ev {
			switch {
			case e.Tid == 0 && e.Cat == "submit":
				last = e.Ts + e.Dur
			case e.Tid == 0 && e.Cat == "compute":
				computeUs += e.Dur
				for _, b := range bg {
					coveredUs += max(0, min(e.Ts+e.Dur, b.Ts+b.Dur)-max(e.Ts, b.Ts))
				}
				if last >= 0 {
					gaps = append(gaps, (e.Ts-last)/1e3)
					if slices.ContainsFunc(bg, func(b traceEvent) bool { end := b.Ts + b.Dur; return end > last && end <= e.Ts && e.Ts-end < 2e3 }) {
						atEnd++
					}
				}
				last = -1
			}
		}
	}
	if computeUs == 0 {
		return "no compute in the trace", nil
	}
	return fmt.Sprintf("compute covered by background HDF5 calls %.2f; caller's pause from last submission to compute: median %.1f ms, max %.1f ms, %d of %d ended within 2 ms of a background call's end",
		coveredUs/computeUs, benchstat.Median(gaps), slices.Max(append(gaps, 0)), atEnd, len(gaps)), nil
}
