package proxy

import (
	"fmt"
	"syscall"

	"github.com/h5proxy/h5proxy/plan"
)

// RegisterFaultyLayout registers the test layout "faulty": the native layout, except that
// the operation named fail (e.g. "write /Timestep_2/y") fails as a full disk would.
func RegisterFaultyLayout(fail string) {
	registerLayout("faulty", func(env layoutEnv) (Layout, error) {
		native, err := layouts["native"](env)
		return &faultyLayout{Layout: native, fail: fail}, err
	})
}

type faultyLayout struct {
	Layout
	fail string
}

func (f *faultyLayout) Exec(op *plan.Op, buf []byte) error {
	if op.Kind.String()+" "+op.Path == f.fail {
		return fmt.Errorf("injected: %w", syscall.ENOSPC)
	}
	return f.Layout.Exec(op, buf)
}
