// Package syncmode is the sync mode: every operation runs inline on the caller's thread,
// directly on the layout (HDF5's native behaviour, h5bench's MODE=SYNC).
package syncmode

import (
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
