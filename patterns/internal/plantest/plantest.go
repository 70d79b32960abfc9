// Package plantest holds what the pattern packages' tests share: option pairs from
// "KEY=VALUE" strings, building a pattern from them through its factory, planning a
// rank's phase, checking an options error and a phase's object lifecycle.
package plantest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// KV turns "KEY=VALUE" strings into option pairs; a string without '=' is a mistake in
// the test's data and panics.
func KV(pairs ...string) []options.KV {
	out := make([]options.KV, len(pairs))
	for i, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			panic("plantest: bad pair " + p)
		}
		out[i] = options.KV{Key: k, Value: v}
	}
	return out
}

// Builder builds a pattern's instances as P (its package's *Pattern) through its factory,
// as a session does: the option table parses, the factory builds. A pattern's tests keep
// one: var kit = plantest.For[*Pattern](Factory).
type Builder[P patterns.Pattern] struct {
	Factory patterns.Factory
}

// For returns the Builder of f's patterns.
func For[P patterns.Pattern](f patterns.Factory) Builder[P] { return Builder[P]{Factory: f} }

// Build parses the "KEY=VALUE" pairs and builds the pattern, returning the parse warnings
// too.
func (b Builder[P]) Build(pairs ...string) (P, []string, error) { return b.BuildKV(KV(pairs...)) }

// BuildKV is Build from option pairs (a command line's, as ior.ParseArgs gives them).
func (b Builder[P]) BuildKV(kvs []options.KV) (P, []string, error) {
	var zero P
	table, err := b.Factory.OptionsFor(kvs) // the app pattern's holds its description's parameters
	if err != nil {
		return zero, nil, err
	}
	v, err := table.Parse(kvs)
	if err != nil {
		return zero, nil, err
	}
	p, err := b.Factory.New(v)
	if err != nil {
		return zero, v.Warnings, err
	}
	return p.(P), v.Warnings, nil
}

// Must is Build that fails the test on an error.
func (b Builder[P]) Must(t testing.TB, pairs ...string) P {
	t.Helper()
	p, _, err := b.Build(pairs...)
	if err != nil {
		t.Fatalf("build %s %v: %v", b.Factory.Name, pairs, err)
	}
	return p
}

// Phase plans one rank's phase as the session does: Begin, steps 0..steps-1, End (with
// steps as its count), each plan valid (plan.Plan.Validate). Errors name the call that
// failed.
func Phase(p patterns.Pattern, ph patterns.Phase, steps int, env patterns.Env) ([]plan.Plan, error) {
	var plans []plan.Plan
	add := func(what string, pl plan.Plan, err error) error {
		if err == nil {
			err = pl.Validate()
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		plans = append(plans, pl)
		return nil
	}
	b, err := p.Begin(ph, env)
	if err := add("Begin", b, err); err != nil {
		return nil, err
	}
	for s := 0; s < steps; s++ {
		pl, err := p.Step(ph, s, env)
		if err := add(fmt.Sprintf("Step %d", s), pl, err); err != nil {
			return nil, err
		}
	}
	end, err := p.End(ph, steps, env)
	if err := add("End", end, err); err != nil {
		return nil, err
	}
	return plans, nil
}

// MustPhase is Phase over the pattern's steps of the phase on env.Size ranks
// (patterns.StepsOf) that fails the test on an error.
func MustPhase(t testing.TB, p patterns.Pattern, ph patterns.Phase, env patterns.Env) []plan.Plan {
	t.Helper()
	plans, err := Phase(p, ph, patterns.StepsOf(p, ph, env.Size), env)
	if err != nil {
		t.Fatalf("%s phase of rank %d of %d: %v", ph, env.Rank, env.Size, err)
	}
	return plans
}

// CheckOptionsError reports, for the test case named what, an err that is not an
// *options.Error or whose text lacks one of want (the key, the value, what is allowed).
func CheckOptionsError(t testing.TB, what any, err error, want ...string) {
	t.Helper()
	var oe *options.Error
	if !errors.As(err, &oe) {
		t.Errorf("%v: error %v (%T), want an options.Error", what, err, err)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%v: error %q lacks %q", what, err, w)
		}
	}
}
