package proxy

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// RegisterFaultyLayout registers the test layout "faulty": the native layout, except that
// the operation named fail (e.g. "write /Timestep_2/y") fails as a full disk would.
func RegisterFaultyLayout(fail string) {
	native, err := stack.LookupLayout("native")
	if err != nil {
		panic(err)
	}
	stack.RegisterLayout(stack.Strategy{Name: "faulty", Caps: native.Caps, Summary: "test: native with one failing operation",
		NewLayout: func(env stack.Env) (stack.Layout, error) {
			l, err := native.NewLayout(env)
			return &faultyLayout{Layout: l, fail: fail}, err
		}})
}

type faultyLayout struct {
	stack.Layout
	fail string
}

func (f *faultyLayout) Exec(op *plan.Op, buf []byte) error {
	if op.Kind.String()+" "+op.Path == f.fail {
		return fmt.Errorf("injected: %w", syscall.ENOSPC)
	}
	return f.Layout.Exec(op, buf)
}

// WrapPattern replaces a new session's pattern with wrap(pattern): tests of the optional
// pattern interfaces (patterns.Reporter) wrap a built-in pattern.
func WrapPattern(s *Session, wrap func(patterns.Pattern) patterns.Pattern) { s.pat = wrap(s.pat) }

// StepCharges returns, for each step of the session's last finished phase on this rank,
// the time charged to its operations, fills and verifications, and the time from its
// first operation's start to its last operation's end (seconds).
func StepCharges(s *Session) (charged, span []float64) {
	p := s.done[len(s.done)-1]
	for i := range p.steps {
		st := &p.steps[i]
		c := st[mPrep] + st[mVerify]
		for m := mKind; m < mCalls; m++ {
			c += st[m]
		}
		charged, span = append(charged, c), append(span, st[mLastEnd]-st[mFirstStart])
	}
	return charged, span
}

// ErrCheckRefused is the refusal of the test layout "checking" (RegisterCheckingLayout).
var ErrCheckRefused = errors.New("test: refused by the checking layout")

// RegisterCheckingLayout registers the test layout name: the native layout whose dataset
// check (stack.Strategy.CheckDataset) counts, in checks, how often each dataset path was
// checked, and refuses the dataset whose path is *refuse.
func RegisterCheckingLayout(name string, refuse *string) (checks map[string]int) {
	native, err := stack.LookupLayout("native")
	if err != nil {
		panic(err)
	}
	checks = map[string]int{}
	stack.RegisterLayout(stack.Strategy{Name: name, Caps: native.Caps, Summary: "test: native counting its dataset checks",
		NewLayout: native.NewLayout,
		CheckDataset: func(path string, _ *plan.DatasetSpec, _ int) error {
			checks[path]++
			if path == *refuse {
				return fmt.Errorf("dataset %s: %w", path, ErrCheckRefused)
			}
			return nil
		}})
	return checks
}

// GroupSplits is the number of communicator splits the session made for group files.
func GroupSplits(s *Session) int { return s.groups.Splits() }

// CommsMade is the number of communicators of kind ("self", "subfiling") the session
// made for its files (stack.GroupComms.Made).
func CommsMade(s *Session, kind string) int { return s.groups.Made(kind) }

// RegisterWatchedLayout registers the test layout name: the layout under, each of whose
// instances adds one to freed once the garbage collector has reclaimed it (and with it
// everything the layout kept: the null layout's dataset extents).
func RegisterWatchedLayout(name, under string, freed *atomic.Int64) {
	u, err := stack.LookupLayout(under)
	if err != nil {
		panic(err)
	}
	stack.RegisterLayout(stack.Strategy{Name: name, Caps: u.Caps, Summary: "test: " + under + " counting its instances reclaimed",
		NewLayout: func(env stack.Env) (stack.Layout, error) {
			l, err := u.NewLayout(env)
			if err == nil {
				runtime.SetFinalizer(l, func(any) { freed.Add(1) })
			}
			return l, err
		}})
}

// RunsMade returns the runs of transfers this process made (runs.go) and the transfers in
// them.
func RunsMade() (runs, transfers int64) { return runsMade.Load(), transfersInRuns.Load() }
