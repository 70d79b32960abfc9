package plantest

import (
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

func ops(kinds ...any) plan.Plan {
	var p plan.Plan
	for i := 0; i < len(kinds); i += 2 {
		p.Ops = append(p.Ops, plan.Op{Kind: kinds[i].(plan.OpKind), Path: kinds[i+1].(string)})
	}
	return p
}

// TestCheckLifecycle: a well-formed phase passes; each kind of mistake is named.
func TestCheckLifecycle(t *testing.T) {
	good := ops(plan.CreateFile, "f.h5", plan.CreateGroup, "/g", plan.CreateDataset, "/g/d", plan.Write, "/g/d",
		plan.WriteAttribute, "/g", plan.CloseDataset, "/g/d", plan.CloseGroup, "/g", plan.CloseFile, "f.h5")
	if err := CheckLifecycle(patterns.PhaseWrite, []plan.Plan{good}, Lifecycle{OneFile: true, CreateOnly: true}); err != nil {
		t.Errorf("good plan: %v", err)
	}
	for _, tc := range []struct {
		ph    patterns.Phase
		plans []plan.Plan
		rules Lifecycle
		want  string
	}{
		{patterns.PhaseWrite, []plan.Plan{ops(plan.CreateFile, "f", plan.CreateDataset, "/g/d")}, Lifecycle{}, "parent group /g not open"},
		{patterns.PhaseWrite, []plan.Plan{ops(plan.CreateFile, "f", plan.CloseGroup, "/g")}, Lifecycle{}, "group not open"},
		{patterns.PhaseWrite, []plan.Plan{ops(plan.CreateFile, "f", plan.CreateGroup, "/g", plan.CreateGroup, "/g/h", plan.CloseGroup, "/g")}, Lifecycle{}, "child /g/h still open"},
		{patterns.PhaseWrite, []plan.Plan{ops(plan.CreateFile, "f", plan.CreateGroup, "/g", plan.CloseFile, "f")}, Lifecycle{}, "still open at file close"},
		{patterns.PhaseWrite, []plan.Plan{ops(plan.Read, "/d")}, Lifecycle{}, "read in a write phase"},
		{patterns.PhaseWrite, []plan.Plan{ops(plan.OpenFile, "f")}, Lifecycle{CreateOnly: true}, "open/read in a write phase"},
		{patterns.PhaseRead, []plan.Plan{ops(plan.OpenFile, "f", plan.WriteAttribute, "/")}, Lifecycle{}, "create/write in a read phase"},
		{patterns.PhaseRead, []plan.Plan{ops(plan.OpenFile, "f", plan.CloseFile, "f"), ops(plan.OpenFile, "f", plan.CloseFile, "f")}, Lifecycle{OneFile: true}, "after the phase's file"},
		{patterns.PhaseRead, []plan.Plan{ops(plan.OpenFile, "f")}, Lifecycle{}, "at the end"},
		{patterns.PhaseWrite, []plan.Plan{ops(plan.OpenFile, "f", plan.ExtendDataset, "/d")}, Lifecycle{}, "dataset not open"},
		{patterns.PhaseRead, []plan.Plan{ops(plan.OpenFile, "f", plan.OpenDataset, "/d", plan.ExtendDataset, "/d")}, Lifecycle{}, "create/write in a read phase"},
	} {
		err := CheckLifecycle(tc.ph, tc.plans, tc.rules)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.plans, err, tc.want)
		}
	}
}
