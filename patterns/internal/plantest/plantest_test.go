package plantest

import (
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// stub plans one create-dataset per step; a step equal to bad fails, a step equal to
// invalid plans a dataset without a type (an invalid plan).
type stub struct {
	patterns.Base[int]
	bad, invalid int
}

func (p *stub) Steps() int { return p.C }
func (p *stub) Begin(patterns.Phase, patterns.Env) (plan.Plan, error) {
	return plan.Plan{}, nil
}
func (p *stub) End(patterns.Phase, int, patterns.Env) (plan.Plan, error) { return plan.Plan{}, nil }
func (p *stub) Step(_ patterns.Phase, s int, _ patterns.Env) (plan.Plan, error) {
	var pl plan.Plan
	switch s {
	case p.bad:
		return pl, &options.Error{Key: "steps", Value: "x", Reason: "bad step"}
	case p.invalid:
		pl.Add(plan.Op{Kind: plan.CreateDataset, Path: "/d", Dataset: &plan.DatasetSpec{Shape: []uint64{1}}})
	default:
		pl.Add(plan.Op{Kind: plan.CreateDataset, Path: "/d", Dataset: &plan.DatasetSpec{Type: plan.U8, Shape: []uint64{1}}})
	}
	return pl, nil
}

var stubFactory = patterns.Define(patterns.Def[int, *stub]{Name: "stub", Summary: "test", Phases: patterns.WriteRead,
	Options: &options.Table{Name: "stub", Specs: []options.Spec{{Key: "steps", Kind: options.Int, Default: "3", Min: options.Bound(0)},
		{Key: "old", Kind: options.Int, Ignored: true}}},
	Config: func(v *options.Values) (int, error) { return int(v.Int("steps")), nil },
	Init: func(p *stub, _ *options.Values) error {
		p.bad, p.invalid = -1, -1
		return nil
	}})

// TestBuilder: pairs go through the table (warnings returned, errors naming the key) and
// the factory.
func TestBuilder(t *testing.T) {
	kit := For[*stub](stubFactory)
	p, warns, err := kit.Build("steps=4", "old=1")
	if err != nil || p.Steps() != 4 || p.Name() != "stub" || len(warns) != 1 || !strings.Contains(warns[0], "old") {
		t.Errorf("build: %v steps, warnings %v, %v", p, warns, err)
	}
	_, _, err = kit.Build("steps=-1")
	CheckOptionsError(t, "steps=-1", err, `"steps"`, `"-1"`)
	if p := kit.Must(t); p.Steps() != 3 {
		t.Errorf("default: %d steps", p.Steps())
	}
}

// TestPhase: Begin, every step and End in order; a failing or invalid step is an error
// naming the step.
func TestPhase(t *testing.T) {
	p := For[*stub](stubFactory).Must(t)
	plans := MustPhase(t, p, patterns.PhaseWrite, patterns.Env{Size: 1})
	if len(plans) != 5 || len(plans[0].Ops) != 0 || len(plans[1].Ops) != 1 || len(plans[4].Ops) != 0 {
		t.Errorf("plans %v", plans)
	}
	p.bad = 1
	if _, err := Phase(p, patterns.PhaseWrite, 3, patterns.Env{}); err == nil || !strings.HasPrefix(err.Error(), "Step 1: ") {
		t.Errorf("failing step: %v", err)
	}
	p.bad, p.invalid = -1, 2
	if _, err := Phase(p, patterns.PhaseWrite, 3, patterns.Env{}); err == nil || !strings.HasPrefix(err.Error(), "Step 2: plan op 0") {
		t.Errorf("invalid step: %v", err)
	}
}
