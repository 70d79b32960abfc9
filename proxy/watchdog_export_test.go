package proxy

import (
	"time"

	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// RegisterStallingLayout registers the test layout "stalling": the native layout, except
// that on rank rank the operation named stall (e.g. "write /Timestep_1/x") never returns,
// as a call stuck in a connector or a file system does not. stall "create" stalls the
// layout's creation itself (NewLayout), as a connector's set-up can.
func RegisterStallingLayout(stall string, rank int) {
	native, err := stack.LookupLayout("native")
	if err != nil {
		panic(err)
	}
	stack.RegisterLayout(stack.Strategy{Name: "stalling", Caps: native.Caps, Summary: "test: native with one operation that never returns",
		NewLayout: func(env stack.Env) (stack.Layout, error) {
			if stall == "create" && env.Comm.Rank() == rank {
				time.Sleep(time.Hour) // the set-up watchdog ends the job long before
			}
			l, err := native.NewLayout(env)
			return &stallingLayout{Layout: l, stall: stall, here: env.Comm.Rank() == rank}, err
		}})
	hdf5Layouts["stalling"] = true // its calls are the native layout's
}

type stallingLayout struct {
	stack.Layout
	stall string
	here  bool
}

func (l *stallingLayout) Exec(op *plan.Op, buf []byte) error {
	if l.here && op.Kind.String()+" "+op.Path == l.stall {
		time.Sleep(time.Hour) // the watchdog ends the job long before
	}
	return l.Layout.Exec(op, buf)
}
