package vpic

import (
	"reflect"
	"sync"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// A phase's step plans differ only in their step number and group name, so the pattern
// plans every step of a phase once, at the phase's first step (which the session plans
// before the observed window), and returns them from then on: a step then allocates
// nothing, and steps share their transfers, which lets the session keep its per-transfer
// state (filled buffers, memory layouts) across steps. The modify kernels (overwrite,
// append) plan each step afresh: their file's extents change between steps.

// maxCachedOps bounds the operations a phase's cache holds (about 4 MiB): longer phases
// are planned step by step.
const maxCachedOps = 1 << 15

// planCache holds one phase's step plans for one rank's environment.
type planCache struct {
	mu    sync.Mutex
	ph    patterns.Phase
	env   cacheKey
	plans []plan.Plan // nil: nothing cached
}

// cacheKey is what of patterns.Env a step plan depends on, beside the file's extents
// (constant within a read phase; Begin drops the cache at every phase).
type cacheKey struct {
	rank, size int
	path       string
	async      bool
}

// drop forgets the cached plans (a new phase begins).
func (c *planCache) drop() {
	c.mu.Lock()
	c.plans = nil
	c.mu.Unlock()
}

// cachedStep returns the plan of step from the cache, filling it at a miss; ok is false
// when the phase is not cached (the modify kernels, phases too long to hold).
func (p *Pattern) cachedStep(ph patterns.Phase, step int, env patterns.Env) (pl plan.Plan, ok bool, err error) {
	if p.C.Kernel.modify() {
		return plan.Plan{}, false, nil
	}
	c := &p.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	key := cacheKey{env.Rank, env.Size, env.Path, env.Async}
	if c.plans != nil && c.ph == ph && c.env == key {
		return c.plans[step], true, nil
	}
	c.plans = nil
	plans := make([]plan.Plan, p.C.Timesteps)
	canon := map[string]*plan.Transfer{} // one transfer per variable and buffer, shared by the steps
	ops := 0
	for s := range plans {
		if plans[s], err = p.planStep(ph, s, env); err != nil {
			return plan.Plan{}, false, err
		}
		if ops += len(plans[s].Ops); ops > maxCachedOps {
			return plan.Plan{}, false, nil
		}
		for i := range plans[s].Ops {
			t := plans[s].Ops[i].Transfer
			if t == nil {
				continue
			}
			k := t.Variable + "\x00" + t.Buffer
			if first, seen := canon[k]; !seen {
				canon[k] = t
			} else if reflect.DeepEqual(*first, *t) {
				plans[s].Ops[i].Transfer = first
			}
		}
		// Callers may append to a plan they are given, never into the cache's storage.
		plans[s].Ops = plans[s].Ops[:len(plans[s].Ops):len(plans[s].Ops)]
	}
	c.ph, c.env, c.plans = ph, key, plans
	return plans[step], true, nil
}
