package vpic

import (
	"reflect"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// TestCachedPlans checks that the plans Step derives from step 0's are the plans the
// kernel makes for each step (operations, paths, specs and transfers alike), in blocks
// that start anywhere, that every step's transfers are step 0's, and that a caller's
// append never reaches the cache.
func TestCachedPlans(t *testing.T) {
	for _, c := range []struct {
		pairs []string
		ph    patterns.Phase
		env   patterns.Env
	}{
		{[]string{"TIMESTEPS=12", "DIM_1=16"}, patterns.PhaseWrite, env(1, 2)},
		{[]string{"TIMESTEPS=12", "NUM_DIMS=3", "DIM_1=2", "DIM_2=3", "DIM_3=4", "COMPRESS=YES", "CHUNK_DIM_1=2", "CHUNK_DIM_2=3", "CHUNK_DIM_3=4"}, patterns.PhaseWrite, env(0, 2)},
		{[]string{"TIMESTEPS=12", "DIM_1=16", "MEM_PATTERN=INTERLEAVED", "FILE_PATTERN=INTERLEAVED"}, patterns.PhaseWrite, env(1, 3)},
		{[]string{"TIMESTEPS=12", "DIM_1=16", "FILE_PER_PROC=YES"}, patterns.PhaseWrite, env(1, 2)},
		{[]string{"TIMESTEPS=12", "DIM_1=16", "READ_OPTION=PARTIAL", "TO_READ_NUM_PARTICLES=8"}, patterns.PhaseRead, readEnv(1, 2, u(32))},
	} {
		p := kit.Must(t, c.pairs...)
		if _, err := p.Begin(c.ph, c.env); err != nil {
			t.Fatal(err)
		}
		first, err := p.Step(c.ph, 0, c.env)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []int{0, 1, 11, 5} {
			got, err := p.Step(c.ph, s, c.env)
			if err != nil {
				t.Fatal(err)
			}
			want, err := p.planStep(c.ph, s, c.env)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%v %s step %d: cached plan differs from the kernel's:\n got %v\nwant %v", c.pairs, c.ph, s, got.Ops, want.Ops)
			}
			for i := range got.Ops {
				if got.Ops[i].Transfer != nil && got.Ops[i].Transfer != first.Ops[i].Transfer {
					t.Errorf("%v step %d op %d: a transfer of its own, not step 0's", c.pairs, s, i)
				}
			}
		}
		// Blocks derived from any step, with a group number of another length.
		for _, b := range derive(first, 9, 3) {
			want, _ := p.planStep(c.ph, b.Ops[0].Step, c.env)
			if !reflect.DeepEqual(b, want) {
				t.Errorf("%v: derived block plan of step %d differs", c.pairs, b.Ops[0].Step)
			}
		}
		pl, _ := p.Step(c.ph, 3, c.env)
		pl.Add(plan.Op{Kind: plan.CloseFile, Path: "f"})
		if next, _ := p.Step(c.ph, 4, c.env); next.Ops[0].Kind == plan.CloseFile {
			t.Errorf("%v: an append to step 3's plan wrote into step 4's", c.pairs)
		}
	}
}

// TestCachedPlansAfresh: the modify kernels and delayed closes under async plan each step
// afresh (their steps are not step 0's renamed), and still match the kernel.
func TestCachedPlansAfresh(t *testing.T) {
	p := kit.Must(t, "TIMESTEPS=6", "DIM_1=16", "DELAYED_CLOSE_TIMESTEPS=2")
	e := env(0, 2)
	e.Async = true
	for s := range 6 {
		got, err := p.Step(patterns.PhaseWrite, s, e)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := p.planStep(patterns.PhaseWrite, s, e)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("delayed close step %d: %v, want %v", s, got.Ops, want.Ops)
		}
	}
	if p.cache.valid {
		t.Error("delayed close under async: steps were cached")
	}
}

// TestCachedPlansAcrossPhases checks that a phase whose step 0 plans as the last phase's
// did keeps that phase's derived plans (the same operations in memory: nothing derived
// again), and that a phase whose step 0 differs (other extents to read, another phase
// kind) gets plans of its own, equal to the kernel's.
func TestCachedPlansAcrossPhases(t *testing.T) {
	p := kit.Must(t, "TIMESTEPS=4", "DIM_1=16")
	step := func(ph patterns.Phase, e patterns.Env, s int) plan.Plan {
		t.Helper()
		got, err := p.Step(ph, s, e)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := p.planStep(ph, s, e); !reflect.DeepEqual(got, want) {
			t.Errorf("%s step %d: cached plan differs from the kernel's:\n got %v\nwant %v", ph, s, got.Ops, want.Ops)
		}
		return got
	}
	begin := func(ph patterns.Phase, e patterns.Env) {
		t.Helper()
		if _, err := p.Begin(ph, e); err != nil {
			t.Fatal(err)
		}
	}
	w := env(0, 2)
	begin(patterns.PhaseWrite, w)
	first := step(patterns.PhaseWrite, w, 2)
	begin(patterns.PhaseWrite, w)
	if again := step(patterns.PhaseWrite, w, 2); &again.Ops[0] != &first.Ops[0] {
		t.Error("the same write phase again derived its plans again")
	}
	for _, dims := range [][]uint64{u(32), u(32), u(64)} {
		r := readEnv(0, 2, dims)
		begin(patterns.PhaseRead, r)
		if got := step(patterns.PhaseRead, r, 3); got.Ops[0].Kind != plan.OpenGroup {
			t.Errorf("read of %v: step 3 begins with %s", dims, got.Ops[0].Kind)
		}
	}
	begin(patterns.PhaseWrite, w)
	if again := step(patterns.PhaseWrite, w, 2); &again.Ops[0] == &first.Ops[0] {
		t.Error("a write phase after read phases kept plans derived before them")
	}
}
