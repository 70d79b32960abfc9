package app

import (
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

const scaleRanks = 65536

// TestPlanAtScale plans the last rank of 65,536 and checks its selections: the 1-D block
// at rank × n, the 3-D block of the 64×32×32 grid MPI_Dims_create chooses, the uneven
// counts' offset (the sum of the others'), its own file. The cost is BenchmarkPlan65536's.
func TestPlanAtScale(t *testing.T) {
	p := load(t, "scale.yaml")
	r := scaleRanks - 1
	env := patterns.Env{Rank: r, Size: scaleRanks, Path: "/out/run.h5"}
	pls := all(t, p, patterns.PhaseWrite, env)
	found := map[string]plan.Selection{}
	files := map[string]bool{}
	for _, pl := range pls {
		for _, op := range pl.Ops {
			if op.Kind == plan.Write && op.Step == 0 {
				found[op.Path] = op.Transfer.Selection
			}
			if op.Kind == plan.CreateFile {
				files[op.Path] = true
			}
		}
	}
	n := uint64(1 << 20)
	if h := found["/Timestep_0/x"].Blocks[0]; h.Start[0] != uint64(r)*n || h.Block[0] != n {
		t.Errorf("x: %+v", h)
	}
	// 65536 = 2^16 over 3 dims: 64 x 32 x 32; the grid's last cell holds the last box.
	if h := found["/rho"].Blocks[0]; h.Block[0] != 32 || h.Block[1] != 32 || h.Block[2] != 32 || h.Start[0] != 63*32 || h.Start[2] != 31*32 {
		t.Errorf("rho: %+v", h)
	}
	c := found["/counts"].Blocks[0]
	if c.Start[0] < uint64(r)*900 || c.Start[0] > uint64(r)*1100 || c.Block[0] < 500 || c.Block[0] > 1500 {
		t.Errorf("counts: %+v", c)
	}
	for _, f := range []string{"/out/particles.h5", "/out/field_0.h5", "/out/field_4.h5", "/out/rank_65535.h5"} {
		if !files[f] {
			t.Errorf("no file %s among %v", f, files)
		}
	}
}

// BenchmarkPlan65536 is the cost of planning one rank of 65,536 from the description,
// parsing included (go test -bench Plan65536 ./patterns/app; issue 23 asks for under a
// second).
func BenchmarkPlan65536(b *testing.B) {
	for b.Loop() {
		p := load(b, "scale.yaml")
		env := patterns.Env{Rank: scaleRanks - 1, Size: scaleRanks, Path: "/out/run.h5"}
		all(b, p, patterns.PhaseWrite, env)
	}
}
