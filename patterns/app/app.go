package app

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// Options declares the app pattern's own key; a description's parameters join it as
// further keys (Table).
var Options = &options.Table{Name: "app", Specs: []options.Spec{
	{Key: "description", Kind: options.String, Help: "the description file (YAML or JSON; docs/apps.md); its parameters are further keys"},
}}

// Config is the app pattern's configuration: the description, its parameters overridden.
type Config struct {
	D *desc.Description
}

// Factory builds the app pattern; package patterns/all registers it. Its option table is
// Options plus the description's parameters (Table); a description that sets compute
// makes a pattern that computes for that time after each step (patterns.Computer).
var Factory = func() patterns.Factory {
	f := patterns.Define(patterns.Def[Config, *Pattern]{Name: "app",
		Summary: "your own application's I/O from a description file (description=FILE; docs/apps.md)",
		Options: Options, Config: configOf, Init: (*Pattern).init})
	build := f.New
	f.New = func(v *options.Values) (patterns.Pattern, error) {
		p, err := build(v)
		if err != nil {
			return nil, err
		}
		return p.(*Pattern).withCompute(), nil
	}
	f.Dynamic, f.MoreHelp = Table, moreHelp
	return f
}()

// moreHelp prints the description format after the option table.
func moreHelp(w io.Writer) error {
	if _, err := fmt.Fprintln(w, "\nThe description's parameters are keys too. The description format (docs/apps.md):"); err != nil {
		return err
	}
	return desc.WriteHelp(w)
}

// descriptionOf returns the description option's value among kvs.
func descriptionOf(kvs []options.KV) string {
	for _, kv := range kvs {
		if strings.EqualFold(kv.Key, "description") {
			return kv.Value
		}
	}
	return ""
}

// Table returns the option table of the options kvs: description plus the parameters of
// the description they name, each with its default.
func Table(kvs []options.KV) (*options.Table, error) {
	path := descriptionOf(kvs)
	if path == "" {
		return Options, nil
	}
	l, err := loadFile(path)
	if err != nil {
		return nil, err
	}
	return paramTable(l.d), nil
}

func paramTable(d *desc.Description) *options.Table {
	t := &options.Table{Name: "app", Specs: append([]options.Spec(nil), Options.Specs...)}
	for _, p := range d.Params {
		def := p.Value.Text
		if p.IsList {
			var names []string
			for _, e := range p.Value.List {
				names = append(names, e.Text)
			}
			def = strings.Join(names, ",")
		}
		t.Specs = append(t.Specs, options.Spec{Key: p.Name, Kind: options.String, Default: def,
			Help: fmt.Sprintf("parameter of %s (%s)", d.Source, p.Pos)})
	}
	return t
}

// configOf reads the description and applies the parameters given as options.
func configOf(v *options.Values) (Config, error) {
	path := v.String("description")
	if path == "" {
		return Config{}, v.Invalid("description", "the app pattern needs a description file", "description=FILE (YAML or JSON; docs/apps.md)")
	}
	l, err := loadFile(path)
	if err != nil {
		return Config{}, err
	}
	var ov []desc.Override
	for _, p := range l.d.Params {
		if v.IsSet(p.Name) {
			ov = append(ov, desc.Override{Key: p.Name, Value: v.String(p.Name)})
		}
	}
	d, err := l.expand(ov)
	if err != nil {
		return Config{}, err
	}
	return Config{D: d}, nil
}

// init completes a pattern made by Define from its description.
func (p *Pattern) init(*options.Values) error { return p.setup(p.C.D) }

// withCompute returns the pattern as a patterns.Computer when its description sets
// compute.
func (p *Pattern) withCompute() patterns.Pattern {
	if p.e.d.Compute.Set {
		return &computePattern{p}
	}
	return p
}

// FromDescription builds the pattern of a parsed description (Go programs that hold one;
// the registry's Factory reads it from the options).
func FromDescription(d *desc.Description) (patterns.Pattern, error) {
	p := &Pattern{}
	if err := p.setup(d); err != nil {
		return nil, err
	}
	return p.withCompute(), nil
}

// setup checks what does not depend on the rank count: steps, types, the files actions
// name, compute.
func (p *Pattern) setup(d *desc.Description) error {
	p.C.D = d
	e := &engine{d: d, types: newTypeSet(d), decomps: map[decompKey]*decomposer{}}
	sc, err := d.Scope(1, 0)
	if err != nil {
		return err
	}
	if e.steps, err = sc.Int(d.Steps); err != nil {
		return err
	}
	if e.steps < 1 {
		return errAt(d.Steps, "%d steps", "steps >= 1", e.steps)
	}
	for _, c := range d.Types {
		if _, err := e.types.lookup(desc.Value{Text: c.Name, Pos: c.Pos, Path: "types." + c.Name}); err != nil {
			return err
		}
	}
	p.e = e
	for _, f := range d.Files {
		if err := checkHandles(f); err != nil {
			return err
		}
		if err := checkWriter(f); err != nil {
			return err
		}
		if err := checkPlacement(f); err != nil {
			return err
		}
		if err := checkSequence(f); err != nil {
			return err
		}
		if err := checkObjectOrder(f); err != nil {
			return err
		}
	}
	for _, a := range d.Timeline {
		verb, fv := a.Verb()
		if _, err := e.file(fv); err != nil {
			return err
		}
		restart := strings.EqualFold(a.At.Text, "restart")
		if restart && verb != "read" {
			return errAt(a.At, "only reads happen at restart", "at: step or end for writes and flushes")
		}
		if restart {
			p.restarts = append(p.restarts, a)
		} else {
			p.writes = true
		}
	}
	if !p.writes && len(p.restarts) == 0 {
		return &desc.Error{Pos: desc.Pos{File: d.Source, Line: 1, Col: 1}, Key: "timeline", Reason: "the timeline has no action", Allowed: "a list of {write: FILE}, {read: FILE}, {flush: FILE} actions"}
	}
	if d.Compute.Set {
		if _, err := sc.Duration(d.Compute); err != nil {
			return err
		}
	}
	return nil
}

// Pattern is the app pattern: a description's plans. Plans are made by replaying the
// whole write phase once per rank and rank count (cached), so every error shows before
// the first operation.
type Pattern struct {
	patterns.Base[Config]
	e        *engine
	writes   bool
	restarts []*desc.Action
	mu       sync.Mutex
	key      simKey
	last     *sim
	reads    readCache
}

type simKey struct {
	rank, size int
	path       string
	seed       uint64
	limit      int
}

// Description returns the description the pattern runs.
func (p *Pattern) Description() *desc.Description { return p.e.d }

// MPIHints are the description's MPI-IO hints (patterns.Hinter): the session opens its
// files with them, beneath the configuration's own.
func (p *Pattern) MPIHints() map[string]string {
	if len(p.e.d.Hints) == 0 {
		return nil
	}
	m := make(map[string]string, len(p.e.d.Hints))
	for _, h := range p.e.d.Hints {
		m[h.Name] = h.Value.Text
	}
	return m
}

// Name returns "app" (also for patterns made by FromDescription, outside the registry).
func (p *Pattern) Name() string { return "app" }

// Steps is the description's steps.
func (p *Pattern) Steps() int { return p.e.steps }

// Phases: write when the timeline writes, read when it has restart reads.
func (p *Pattern) Phases() []patterns.Phase {
	var ph []patterns.Phase
	if p.writes {
		ph = append(ph, patterns.PhaseWrite)
	}
	if len(p.restarts) > 0 {
		ph = append(ph, patterns.PhaseRead)
	}
	return ph
}

// PhaseSteps is the description's steps for the write phase, one step per restart read
// for the read phase.
func (p *Pattern) PhaseSteps(ph patterns.Phase, ranks int) int {
	if ph == patterns.PhaseRead {
		return len(p.restarts)
	}
	if n, err := p.e.stepsFor(ranks); err == nil {
		return n
	}
	return p.e.steps
}

// replay returns the write phase's replay for env, the first limit steps run (then the
// end actions and closes).
func (p *Pattern) replay(env patterns.Env, limit int) (*sim, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := simKey{env.Rank, env.Size, env.Path, env.Seed, limit}
	if p.last != nil && p.key == k {
		return p.last, nil
	}
	p.e.seed = env.Seed
	s, err := p.e.newSim(env)
	if err != nil {
		return nil, err
	}
	s.limit = limit
	if err := s.run(); err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	p.key, p.last = k, s
	return s, nil
}

func (p *Pattern) has(ph patterns.Phase) error {
	for _, x := range p.Phases() {
		if x == ph {
			return nil
		}
	}
	return fmt.Errorf("app %s: no %s phase (the timeline has no %s)", p.e.d.Source, ph, map[patterns.Phase]string{patterns.PhaseWrite: "write", patterns.PhaseRead: "restart read"}[ph])
}

// Begin plans nothing: files are created by the timeline's first actions. It replays the
// phase for this rank, so that any error of the description shows before any I/O.
func (p *Pattern) Begin(ph patterns.Phase, env patterns.Env) (plan.Plan, error) {
	if err := p.has(ph); err != nil {
		return plan.Plan{}, err
	}
	if ph == patterns.PhaseWrite {
		steps, err := p.e.stepsFor(env.Size)
		if err == nil {
			_, err = p.replay(env, steps)
		}
		return plan.Plan{}, err
	}
	for k := range p.restarts {
		if _, err := p.Step(ph, k, env); err != nil {
			return plan.Plan{}, err
		}
	}
	return plan.Plan{}, nil
}

// Step plans one step: the write phase's timeline actions that fire at step, or the read
// phase's restart read number step.
func (p *Pattern) Step(ph patterns.Phase, step int, env patterns.Env) (plan.Plan, error) {
	if err := p.has(ph); err != nil {
		return plan.Plan{}, err
	}
	if ph == patterns.PhaseRead {
		if step < 0 || step >= len(p.restarts) {
			return plan.Plan{}, fmt.Errorf("app: read step %d outside 0..%d", step, len(p.restarts)-1)
		}
		pl, err := p.readStep(step, env)
		if err == nil {
			err = pl.Validate()
		}
		return pl, err
	}
	steps, err := p.e.stepsFor(env.Size)
	if err != nil {
		return plan.Plan{}, err
	}
	if step < 0 || step >= steps {
		return plan.Plan{}, fmt.Errorf("app: step %d outside 0..%d", step, steps-1)
	}
	s, err := p.replay(env, steps)
	if err != nil {
		return plan.Plan{}, err
	}
	return s.plans[step], nil
}

// End plans the end actions and closes every file still open after the steps that ran
// (in the read phase, the file its last step left open for a read that did not run).
func (p *Pattern) End(ph patterns.Phase, steps int, env patterns.Env) (plan.Plan, error) {
	if ph == patterns.PhaseRead {
		return p.readEnd(steps, env)
	}
	all, err := p.e.stepsFor(env.Size)
	if err != nil {
		return plan.Plan{}, err
	}
	s, err := p.replay(env, min(max(steps, 0), all))
	if err != nil {
		return plan.Plan{}, err
	}
	return s.end, nil
}

// LogFiles names, for the session's log lines, the files the write phase creates or opens
// (their base names; the first and last of many), rather than the session's own file,
// which a description's run does not write.
func (p *Pattern) LogFiles(env patterns.Env) string {
	var names []string
	if p.writes {
		steps, _ := p.e.stepsFor(env.Size)
		if s, err := p.replay(env, steps); err == nil {
			for _, pl := range s.plans {
				for _, op := range pl.Ops {
					if n := filepath.Base(op.Path); (op.Kind == plan.CreateFile || op.Kind == plan.OpenFile) && !slices.Contains(names, n) {
						names = append(names, n)
					}
				}
			}
		}
	}
	switch {
	case len(names) == 0:
		return filepath.Base(env.Path)
	case len(names) > 3:
		return fmt.Sprintf("%s .. %s (%d files)", names[0], names[len(names)-1], len(names))
	}
	return strings.Join(names, ",")
}

// FilePath is the first file the phase works on (the session checks a read phase's input
// exists when it is its own file); "" when this rank opens none of the description's files.
func (p *Pattern) FilePath(env patterns.Env) string {
	if p.writes {
		steps, _ := p.e.stepsFor(env.Size)
		if s, err := p.replay(env, steps); err == nil {
			for _, pl := range s.plans {
				for _, op := range pl.Ops {
					if op.Kind == plan.CreateFile || op.Kind == plan.OpenFile {
						return op.Path
					}
				}
			}
		}
	}
	if len(p.restarts) > 0 {
		pl, err := p.e.restart(p.restarts[0], env)
		if err != nil {
			return "" // not the configured file: Begin reports the description's error
		}
		if len(pl.Ops) > 0 {
			return pl.Ops[0].Path
		}
	}
	if p.writes || len(p.restarts) > 0 {
		// This rank opens none of the description's files (a serial writer's other ranks,
		// a rank its actions' when skips): not the configured file either.
		return ""
	}
	return env.Path
}

// computePattern is a Pattern whose description sets compute: it computes after every
// write step for the time compute evaluates to at that step.
type computePattern struct{ *Pattern }

// ComputeSource says where the pattern's compute times come from and how to use the
// session's compute keys instead (the session rejects compute_time and compute_trace for a
// pattern that computes on its own, as it does for the built-in ones).
func (p *computePattern) ComputeSource() (who, fix string) {
	c := p.e.d.Compute
	return fmt.Sprintf("the description sets compute (%s: compute: %s), the time after each write step", c.Pos, c.Text),
		"no compute_time or compute_trace with this description; remove its compute (" + c.Pos.String() + ") to run the session's compute_time or compute_trace instead"
}

// ComputeAfter is the description's compute at step (write phase; none after reads).
func (p *computePattern) ComputeAfter(ph patterns.Phase, step int, env patterns.Env) time.Duration {
	if ph != patterns.PhaseWrite {
		return 0
	}
	sc, err := p.e.d.Scope(env.Size, env.Rank)
	if err != nil {
		return 0
	}
	sc.SetStep(step)
	d, _ := sc.Duration(p.e.d.Compute) // checked by FromDescription
	return d
}
