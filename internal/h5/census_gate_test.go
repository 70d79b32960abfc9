//go:build cgo && linux

package h5

import (
	"testing"
	"time"
)

// TestTakeCensusWhileGateHeld: the session takes a step's census on the caller's thread
// while a background mode's executor may be inside a long H5Dwrite, holding the gate. The
// tally has its own lock, so taking it does not wait for the write: here the gate is held
// for the whole test, as by a write that never ends, and the tally noted before comes back.
// (With the gate, the caller's compute began only when a background write ended: the
// issue 35 trace in docs/modes.md.) The minute is a guard against hanging, not a timing.
func TestTakeCensusWhileGateHeld(t *testing.T) {
	TakeCensus() // start from an empty tally
	var n Census
	n.Collective, n.Modes[1], n.Paths[PathMulti] = 3, 2, 1
	censusMu.Lock()
	census.add(&n)
	tallied.Store(true)
	censusMu.Unlock()

	gate.Lock() // the executor inside H5Dwrite
	done := make(chan Census, 1)
	go func() {
		c, ok := TakeCensus()
		if !ok {
			c.Collective = -1
		}
		done <- c
	}()
	select {
	case c := <-done:
		gate.Unlock()
		if c != n {
			t.Errorf("TakeCensus gave %+v, want the noted %+v", c, n)
		}
	case <-time.After(time.Minute):
		gate.Unlock()
		<-done
		t.Fatal("TakeCensus waited for the gate, which a background write holds for as long as it runs")
	}
	if c, ok := TakeCensus(); ok {
		t.Errorf("a second TakeCensus gave %+v: the tally was not reset", c)
	}
}
