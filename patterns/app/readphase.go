package app

import (
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// readCache holds the restart reads' plans of one rank and rank count, each with its
// file's open and close: a read step looks at its neighbours' to join them.
type readCache struct {
	mu    sync.Mutex
	key   simKey
	plans map[int]plan.Plan
}

// restartPlan is restart read k's plan for env, its file opened and closed (cached).
func (p *Pattern) restartPlan(k int, env patterns.Env) (plan.Plan, error) {
	c := &p.reads
	c.mu.Lock()
	defer c.mu.Unlock()
	key := simKey{env.Rank, env.Size, env.Path, env.Seed, -1}
	if c.plans == nil || c.key != key {
		c.key, c.plans = key, map[int]plan.Plan{}
	}
	if pl, ok := c.plans[k]; ok {
		return pl, nil
	}
	pl, err := p.e.restart(p.restarts[k], env)
	if err == nil {
		c.plans[k] = pl
	}
	return pl, err
}

// readStep plans the read phase's step k, restart read k. A file stays open while
// consecutive restart reads read it, as it does while consecutive write-phase actions
// name it: read k leaves out its open when read k-1 read the same file (same path, same
// access) and its close when read k+1 reads it on, so that a read phase of one file
// opens it once (BD-CATS: H5Fopen, per step the Timestep_N group and its datasets,
// H5Fclose after the last). A file with reopen: true (evaluated at the step read) opens
// and closes at each read.
func (p *Pattern) readStep(k int, env patterns.Env) (plan.Plan, error) {
	cur, err := p.restartPlan(k, env)
	if err != nil {
		return plan.Plan{}, err
	}
	ops := slices.Clone(cur.Ops)
	if k > 0 {
		prev, err := p.restartPlan(k-1, env)
		if err != nil {
			return plan.Plan{}, err
		}
		if ok, err := p.joins(k, prev, cur, env); err != nil {
			return plan.Plan{}, err
		} else if ok {
			ops = ops[1:]
		}
	}
	if k+1 < len(p.restarts) {
		next, err := p.restartPlan(k+1, env)
		if err != nil {
			return plan.Plan{}, err
		}
		if ok, err := p.joins(k+1, cur, next, env); err != nil {
			return plan.Plan{}, err
		} else if ok {
			ops = ops[:len(ops)-1]
		}
	}
	return plan.Plan{Ops: ops}, nil
}

// joins reports whether the file plan a closes last stays open for plan b, restart read
// k, which opens it first: the same path opened the same way, its file not reopened at
// each read.
func (p *Pattern) joins(k int, a, b plan.Plan, env patterns.Env) (bool, error) {
	if len(a.Ops) == 0 || len(b.Ops) == 0 {
		return false, nil
	}
	last, first := a.Ops[len(a.Ops)-1], b.Ops[0]
	if last.Kind != plan.CloseFile || first.Kind != plan.OpenFile || last.Path != first.Path ||
		last.Collective != first.Collective {
		return false, nil
	}
	// The open a's close ends is its last OpenFile of that path.
	var open *plan.Op
	for i := len(a.Ops) - 1; i >= 0; i-- {
		if o := &a.Ops[i]; o.Kind == plan.OpenFile && o.Path == last.Path {
			open = o
			break
		}
	}
	if open == nil || !reflect.DeepEqual(open.File, first.File) {
		return false, nil
	}
	_, fv := p.restarts[k].Verb()
	f, err := p.e.file(fv)
	if err != nil {
		return false, err
	}
	sc, err := p.e.d.Scope(env.Size, env.Rank)
	if err != nil {
		return false, err
	}
	sc.SetStep(first.Step)
	reopen, err := sc.Bool(f.Reopen)
	return !reopen, err
}

// readEnd closes the file that the read phase's last step run, of steps, left open for a
// next read that did not run (a phase ended early).
func (p *Pattern) readEnd(steps int, env patterns.Env) (plan.Plan, error) {
	if steps <= 0 || steps >= len(p.restarts) {
		return plan.Plan{}, nil
	}
	cur, err := p.restartPlan(steps-1, env)
	if err != nil {
		return plan.Plan{}, err
	}
	next, err := p.restartPlan(steps, env)
	if err != nil {
		return plan.Plan{}, err
	}
	ok, err := p.joins(steps, cur, next, env)
	if err != nil || !ok {
		return plan.Plan{}, err
	}
	return plan.Plan{Ops: slices.Clone(cur.Ops[len(cur.Ops)-1:])}, nil
}

// collMetadata reports whether an open of file f (for reading only when readOnly) asks
// for collective metadata operations: collective_metadata true on every open, read on
// the opens for reading only.
func collMetadata(f *desc.File, readOnly bool) bool {
	v := f.CollectiveMetadata.Text
	return strings.EqualFold(v, "true") || readOnly && strings.EqualFold(v, "read")
}
