package vpic

import (
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// A phase's step plans differ only in their step number and their group's name: step s
// is step 0 with /Timestep_0 renamed /Timestep_s. So the pattern plans step 0 once per
// phase and derives the others from it in blocks of steps: one array of operations and
// one string of paths per block, made when the block's first step is asked for (the
// session asks for step 0 before the observed window). A step then allocates nothing,
// and every step's writes share step 0's transfers, which lets the session keep its
// per-transfer state (filled buffers, memory layouts) across steps.
//
// Planned afresh at every step: the modify kernels (overwrite, append: their file's
// extents change between steps) and delayed closes under async (a step closes earlier
// steps: its plan is not step 0's).
//
// A new phase plans step 0 again; when that plan equals the one the derived plans came
// from (the same phase kind and rank's environment, the same extents), they are kept: a
// session running the same phase again (bench_calls' twenty write phases, a sweep's
// repetitions) derives nothing more and leaves the collector nothing to scan, whose
// marking would otherwise run during the next phase's steps.

// blockOps bounds the operations of one block of derived plans (about 10 MiB of plans).
const blockOps = 1 << 17

// planCache holds one phase's step-0 plan for one rank's environment, and the block of
// derived plans asked for last.
type planCache struct {
	mu sync.Mutex
	cached
}

// cached is what planCache holds, reset as a whole.
type cached struct {
	valid    bool
	stale    bool // a new phase began: step 0 is planned again and compared with template
	ph       patterns.Phase
	env      cacheKey
	template plan.Plan   // step 0's plan
	first    int         // step of plans[0]
	plans    []plan.Plan // the block of derived plans
}

// cacheKey is what of patterns.Env a step plan depends on, beside the file's extents
// (constant within a read phase; Begin drops the cache at every phase).
type cacheKey struct {
	rank, size, iteration int
	path                  string
	async                 bool
}

// newPhase marks the cached plans for checking: a new phase begins.
func (c *planCache) newPhase() {
	c.mu.Lock()
	c.stale = true
	c.mu.Unlock()
}

// cachedStep returns the plan of step derived from step 0's, deriving a block of plans at
// a miss; ok is false when the phase's steps are planned afresh.
func (p *Pattern) cachedStep(ph patterns.Phase, step int, env patterns.Env) (plan.Plan, bool, error) {
	if p.C.Kernel.modify() || p.delayedClose(env) {
		return plan.Plan{}, false, nil
	}
	c := &p.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	key := cacheKey{env.Rank, env.Size, env.Iteration, env.Path, env.Async}
	if !c.valid || c.stale || c.ph != ph || c.env != key {
		t, err := p.planStep(ph, 0, env)
		if err != nil {
			return plan.Plan{}, false, err
		}
		if c.valid && c.ph == ph && c.env == key && reflect.DeepEqual(t, c.template) {
			c.stale = false // the last phase's plans still hold
		} else {
			c.cached = cached{valid: true, ph: ph, env: key, template: t}
		}
	}
	if i := step - c.first; i >= 0 && i < len(c.plans) {
		return c.plans[i], true, nil
	}
	n := min(p.C.Timesteps-step, max(1, blockOps/max(1, len(c.template.Ops))))
	c.first, c.plans = step, derive(c.template, step, n)
	return c.plans[0], true, nil
}

// derive returns the plans of steps first..first+n-1 from step 0's plan t: the same
// operations with their step and their paths under the step's group. The block's
// operations share one array and its paths one string; each plan's operations are capped
// so that a caller's append never writes into the next plan.
func derive(t plan.Plan, first, n int) []plan.Plan {
	const g0 = "/Timestep_0"
	var b strings.Builder
	type span struct{ from, to int }
	spans := make([]span, 0, n*len(t.Ops))
	for s := first; s < first+n; s++ {
		g := "/Timestep_" + strconv.Itoa(s)
		for i := range t.Ops {
			from := b.Len()
			if rest, ok := strings.CutPrefix(t.Ops[i].Path, g0); ok {
				b.WriteString(g)
				b.WriteString(rest)
			} else {
				b.WriteString(t.Ops[i].Path)
			}
			spans = append(spans, span{from, b.Len()})
		}
	}
	paths := b.String()
	ops := make([]plan.Op, n*len(t.Ops))
	plans := make([]plan.Plan, n)
	for k := range plans {
		o := ops[k*len(t.Ops) : (k+1)*len(t.Ops) : (k+1)*len(t.Ops)]
		for i := range o {
			sp := spans[k*len(t.Ops)+i]
			o[i] = t.Ops[i]
			o[i].Step, o[i].Path = first+k, paths[sp.from:sp.to]
		}
		plans[k] = plan.Plan{Ops: o}
	}
	return plans
}
