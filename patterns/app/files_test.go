package app

import (
	"fmt"
	"slices"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// replayFiles replays ops on a model of a layout's open files (an open pushes, a select
// raises, a close removes the file it names) and returns, per object operation, the file
// it applies to: the current one. It fails on a select of a file that is not open or is
// current already (the engine selects only when it must) and on a close of a file that
// is not open.
func replayFiles(t *testing.T, ops []plan.Op) (files []string, selects int) {
	t.Helper()
	var open []string
	for i, op := range ops {
		switch op.Kind {
		case plan.CreateFile, plan.OpenFile:
			open = append(open, op.Path)
		case plan.SelectFile:
			j := slices.Index(open, op.Path)
			switch {
			case j < 0:
				t.Fatalf("op %d selects %s, which is not open (%v)", i, op.Path, open)
			case j == len(open)-1:
				t.Errorf("op %d selects %s, which is current already", i, op.Path)
			}
			open = append(slices.Delete(open, j, j+1), op.Path)
			selects++
		case plan.CloseFile:
			j := slices.Index(open, op.Path)
			if j < 0 {
				t.Fatalf("op %d closes %s, which is not open (%v)", i, op.Path, open)
			}
			open = slices.Delete(open, j, j+1)
		default:
			if len(open) == 0 {
				t.Fatalf("op %d (%s %s) with no file open", i, op.Kind, op.Path)
			}
			files = append(files, open[len(open)-1])
		}
	}
	if len(open) > 0 {
		t.Errorf("files left open: %v", open)
	}
	return files, selects
}

// checkTargets replays ops and checks each object operation reaches the file that holds
// its object (owner).
func checkTargets(t *testing.T, ops []plan.Op, owner func(op plan.Op) string) int {
	t.Helper()
	files, selects := replayFiles(t, ops)
	k := 0
	for _, op := range ops {
		switch op.Kind {
		case plan.CreateFile, plan.OpenFile, plan.SelectFile, plan.CloseFile:
			continue
		}
		if want := owner(op); files[k] != want {
			t.Errorf("%s %s (step %d) applies to %s, want %s", op.Kind, op.Path, op.Step, files[k], want)
		}
		k++
	}
	return selects
}

// Two files that both stay open, written in turn at every step.
const alternating = `
files:
  shared: {name: shared.h5, datasets: {x: {shape: [8 * nranks]}}}
  own: {name: "own_${rank}.h5", ranks: 1, datasets: {y: {shape: [8]}}}
steps: 3
timeline: [{write: shared}, {write: own}]
`

// TestAlternatingOpenFiles: each file is created once and closed once, never reopened; at
// steps 1 and 2 each write is preceded by a select of its file (the other one was
// written last), except the last step's second: closing the shared file after its last
// write makes the other current. Every operation reaches its file.
func TestAlternatingOpenFiles(t *testing.T) {
	for rank := range 2 {
		ops := opsOf(t, alternating, rank, 2)
		own := fmt.Sprintf("/o/own_%d.h5", rank)
		owner := map[string]string{"/x": "/o/shared.h5", "/y": own}
		if n := checkTargets(t, ops, func(op plan.Op) string { return owner[op.Path] }); n != 3 {
			t.Errorf("rank %d: %d selects, want 3 (steps 1 and 2, both files, but own at step 2)", rank, n)
		}
		for _, path := range []string{"/o/shared.h5", own} {
			if c, o, x := len(find(ops, plan.CreateFile, path)), len(find(ops, plan.OpenFile, path)), len(find(ops, plan.CloseFile, path)); c != 1 || o != 0 || x != 1 {
				t.Errorf("rank %d %s: %d creates, %d opens, %d closes; want 1, 0, 1", rank, path, c, o, x)
			}
		}
		for _, op := range find(ops, plan.SelectFile, "/o/shared.h5") {
			if op.Collective || op.Step < 1 {
				t.Errorf("rank %d: select %+v: want a local operation at step 1 or 2", rank, op)
			}
		}
		pl := plan.Plan{Ops: ops}
		if err := pl.Validate(); err != nil {
			t.Error(err)
		}
	}
}

// A history file kept open, a checkpoint opened and closed at every other step between
// its writes, and a log file per rank kept open: closing the checkpoint makes history
// current again (no select needed); history and the log alternate.
const historyCheckpointLog = `
files:
  history: {name: hist.h5, datasets: {e: {shape: [nranks]}}}
  checkpoint: {name: "ckpt_${step}.h5", datasets: {rho: {shape: [4 * nranks]}}}
  log: {name: "log_${rank}.h5", ranks: 1, datasets: {l: {shape: [2]}}}
steps: 4
timeline:
  - write: history
  - write: checkpoint
    every: 2
  - flush: history
  - write: log
`

// TestSelectsOnlyWhenNeeded: with three files, one reopened under a new name at every
// other step, every operation reaches its file and a select comes only where another
// file was opened or selected since (replayFiles rejects the others): at steps 1 to 3
// the history's write (the log was written last), at steps 1 and 2 the log's write (the
// history was flushed last; at step 3 it is closed after its flush).
func TestSelectsOnlyWhenNeeded(t *testing.T) {
	ops := opsOf(t, historyCheckpointLog, 1, 2)
	selects := checkTargets(t, ops, func(op plan.Op) string {
		switch {
		case op.Kind == plan.FlushFile || op.Path == "/e":
			return "/o/hist.h5"
		case op.Path == "/rho":
			return fmt.Sprintf("/o/ckpt_%d.h5", op.Step)
		}
		return "/o/log_1.h5"
	})
	if selects != 5 {
		t.Errorf("%d selects, want 5 (history at steps 1 to 3, log at steps 1 and 2)", selects)
	}
}
