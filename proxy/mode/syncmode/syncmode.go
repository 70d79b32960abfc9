// Package syncmode is the sync mode: every operation runs inline on the caller's thread,
// directly on the layout (HDF5's native behaviour, h5bench's MODE=SYNC).
package syncmode

import (
	"fmt"
	"time"

	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

func init() {
	stack.RegisterMode(stack.Strategy{Name: "sync",
		Summary: "every HDF5 call inline on the caller's thread (h5bench MODE=SYNC)",
		NewMode: func(under stack.Layout, _ stack.Env) (stack.Mode, error) { return mode{under}, nil }})
}

// mode passes every operation to the layout.
type mode struct{ stack.Layout }

func (mode) Wait() error               { return nil }
func (mode) Prefetch(*plan.Plan) error { return nil }
func (mode) InFlight() int             { return 0 }
func (mode) WaitBeforeStep(int) bool   { return false }
func (mode) TakeStats() stack.Stats    { return stack.Stats{} }
func (mode) Close() error              { return nil }

// ExecMulti passes a multi-dataset transfer to the layout (inline, like every operation).
func (m mode) ExecMulti(ops []*plan.Op, bufs [][]byte) error {
	return stack.ExecMulti(m.Layout, ops, bufs)
}

// Runs reports whether the layout can make op in a run (stack.RunExec); a layout without
// runs (or the tracer above one) gets every transfer by Exec.
func (m mode) Runs(op *plan.Op) bool {
	r, ok := m.Layout.(stack.RunExec)
	return ok && r.Runs(op)
}

// ExecRun passes a run of transfers to the layout (inline, like every operation).
func (m mode) ExecRun(ops []*plan.Op, bufs [][]byte, took []time.Duration) (int, error) {
	r, ok := m.Layout.(stack.RunExec)
	if !ok {
		return 0, fmt.Errorf("%T: no runs of transfers", m.Layout)
	}
	return r.ExecRun(ops, bufs, took)
}
