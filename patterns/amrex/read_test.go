package amrex

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// TestPlotfileReadExample: every rank reopens the plotfile read-only with AMReX's fapl and
// reads back, collectively, exactly the range it wrote.
func TestPlotfileReadExample(t *testing.T) {
	p := kit.Must(t, append(exampleKeys, "read_back=all")...)
	path := testDir + "/plt00000.h5"
	for r := 0; r < 2; r++ {
		pl := stepPlan(t, p, patterns.PhaseRead, 0, r, 2)
		checkOps(t, fmt.Sprintf("rank %d", r), pl.Ops, []opWant{
			ow(plan.OpenFile, path, true), ow(plan.OpenGroup, "/level_0", true),
			ow(plan.OpenDataset, "/level_0/data:datatype=0", true), ow(plan.Read, "/level_0/data:datatype=0", true),
			ow(plan.CloseDataset, "/level_0/data:datatype=0", true), ow(plan.CloseGroup, "/level_0", true),
			ow(plan.CloseFile, path, true),
		})
		if !reflect.DeepEqual(pl.Ops[0].File, fapl(true)) {
			t.Errorf("open %+v", pl.Ops[0].File)
		}
		rd := pl.Ops[3]
		w := transfers(stepPlan(t, p, patterns.PhaseWrite, 0, r, 2), plan.Write, "/level_0/data:datatype=0")[0]
		if spanOf(t, rd) != spanOf(t, w) || rd.Transfer.Variable != w.Transfer.Variable || rd.Step != w.Step ||
			rd.Transfer.Buffer == w.Transfer.Buffer || rd.Transfer.Data != nil || rd.Transfer.Unchecked {
			t.Errorf("rank %d: read %+v does not mirror the write %+v", r, *rd.Transfer, *w.Transfer)
		}
	}
}

// TestParticleReadExample mirrors RestartHDF5 at 2 ranks: the header's attributes
// (version_name with its stored type, SpaceDim in Chombo_global, the five root counts),
// boxes (verified against their BoxArray order), the ngrids pass, nparticles_grid
// (unverified), then each owned grid's int and real records, all independent.
func TestParticleReadExample(t *testing.T) {
	p := kit.Must(t, append(exampleKeys, "read_back=all")...)
	path := testDir + "/plt00000/particle0/particle0.h5"
	for r := 0; r < 2; r++ {
		pl := stepPlan(t, p, patterns.PhaseRead, 1, r, 2)
		want := []opWant{ow(plan.OpenFile, path, true), ow(plan.ReadAttribute, "/", true),
			ow(plan.OpenGroup, "/Chombo_global", true), ow(plan.ReadAttribute, "/Chombo_global", true), ow(plan.CloseGroup, "/Chombo_global", true)}
		for i := 0; i < 5; i++ {
			want = append(want, ow(plan.ReadAttribute, "/", true))
		}
		want = append(want,
			ow(plan.OpenGroup, "/level_0", true), ow(plan.OpenDataset, "/level_0/boxes", true),
			ow(plan.Read, "/level_0/boxes", false), ow(plan.CloseDataset, "/level_0/boxes", true), ow(plan.CloseGroup, "/level_0", true),
			ow(plan.OpenGroup, "/level_0", true), ow(plan.ReadAttribute, "/level_0", true), ow(plan.CloseGroup, "/level_0", true),
			ow(plan.OpenGroup, "/level_0", true), ow(plan.OpenDataset, "/level_0/nparticles_grid", true),
			ow(plan.Read, "/level_0/nparticles_grid", false), ow(plan.CloseDataset, "/level_0/nparticles_grid", true),
			ow(plan.OpenDataset, "/level_0/data:datatype=0", true), ow(plan.OpenDataset, "/level_0/data:datatype=1", true))
		for g := 0; g < 4; g++ {
			want = append(want, ow(plan.Read, "/level_0/data:datatype=0", false), ow(plan.Read, "/level_0/data:datatype=1", false))
		}
		want = append(want, ow(plan.CloseDataset, "/level_0/data:datatype=0", true), ow(plan.CloseDataset, "/level_0/data:datatype=1", true),
			ow(plan.CloseGroup, "/level_0", true), ow(plan.CloseFile, path, true))
		checkOps(t, fmt.Sprintf("rank %d", r), pl.Ops, want)
		if !reflect.DeepEqual(pl.Ops[0].File, fapl(true)) {
			t.Errorf("open %+v", pl.Ops[0].File)
		}
		checkAttributeReads(t, fmt.Sprintf("rank %d", r), pl, stepPlan(t, p, patterns.PhaseWrite, 1, 0, 2))
		boxes := pl.Ops[12].Transfer
		if string(boxes.Data) != string(wantBoxes(NestedLevels(16, 8)[0].Boxes...)) || boxes.Unchecked ||
			!reflect.DeepEqual(boxes.Selection, plan.WholeSpace(u(8))) { // H5S_ALL, as RestartHDF5
			t.Errorf("rank %d: boxes read %+v", r, *boxes)
		}
		npg := pl.Ops[20].Transfer
		if !npg.Unchecked || npg.Data != nil || !reflect.DeepEqual(npg.Selection, plan.WholeSpace(u(8))) {
			t.Errorf("rank %d: nparticles_grid read %+v", r, *npg)
		}
		// Rank r owns grids 4r..4r+3, 512 particles each, stored in that order.
		for k, op := range transfers(pl, plan.Read, "/level_0/data:datatype=0") {
			g := uint64(4*r + k)
			if s := spanOf(t, op); s != (span{g * 512 * 6, 512 * 6}) {
				t.Errorf("rank %d grid %d: ints %v", r, g, s)
			}
		}
	}
}

// TestReadPartitions: whatever the reader's rank count, the data reads of every file cover
// each dataset exactly once (so every element is verified), for the example, an uneven
// grid and h5bench's sample.
func TestReadPartitions(t *testing.T) {
	pats := map[string]*Pattern{
		"example": kit.Must(t, append(exampleKeys, "read_back=all")...),
		"uneven":  kit.Must(t, "ncells=20", "max_grid_size=8", "nlevs=1", "ncomp=3", "nppc=3", "read_back=all"),
		"sample":  kit.Must(t, append(sampleKeys, "read_back=all")...),
	}
	for name, p := range pats {
		for _, R := range []int{1, 2, 3, 4, 7} {
			for s := 0; s < p.Steps(); s++ {
				spans := map[string][]span{}
				totals := map[string]uint64{}
				for r := 0; r < R; r++ {
					pl := stepPlan(t, p, patterns.PhaseRead, s, r, R)
					for _, op := range pl.Ops {
						if op.Kind != plan.Read || op.Transfer.Data != nil || op.Transfer.Unchecked {
							continue
						}
						spans[op.Path] = append(spans[op.Path], spanOf(t, op))
						totals[op.Path] = op.Transfer.FileShape[0]
					}
				}
				if len(spans) == 0 {
					t.Fatalf("%s R=%d step %d: nothing read", name, R, s)
				}
				for ds, sp := range spans {
					checkPartition(t, fmt.Sprintf("%s R=%d step %d %s", name, R, s, ds), sp, totals[ds])
				}
			}
		}
	}
}

// TestReadMirrorsWriteShapes: the read plans' file shapes are the written datasets'.
func TestReadMirrorsWriteShapes(t *testing.T) {
	p := kit.Must(t, "ncells=20", "max_grid_size=8", "nlevs=1", "ncomp=3", "nppc=3", "read_back=all")
	for s := 0; s < p.Steps(); s++ {
		shapes := map[string][]uint64{}
		for _, op := range stepPlan(t, p, patterns.PhaseWrite, s, 0, 3).Ops {
			if op.Kind == plan.CreateDataset {
				shapes[op.Path] = op.Dataset.Shape
			}
		}
		for r := 0; r < 2; r++ {
			for _, op := range stepPlan(t, p, patterns.PhaseRead, s, r, 2).Ops {
				if op.Kind == plan.Read && !reflect.DeepEqual(op.Transfer.FileShape, shapes[op.Path]) {
					t.Errorf("step %d rank %d %s: read shape %v, written %v", s, r, op.Path, op.Transfer.FileShape, shapes[op.Path])
				}
			}
		}
	}
}

// TestRestartRead: by default the read phase is h5bench's restart check, one step reading
// plt00000/particle0 alone (the plan of read_back=all's first particle step, verified
// against the step that wrote it); without particle files it has no step.
func TestRestartRead(t *testing.T) {
	keys := append(exampleKeys, "nplotfile=2", "nparticlefile=2")
	p, all := kit.Must(t, keys...), kit.Must(t, append(keys, "read_back=all")...)
	if n, w := patterns.StepsOf(p, patterns.PhaseRead, 2), patterns.StepsOf(p, patterns.PhaseWrite, 2); n != 1 || w != 4 {
		t.Fatalf("read steps %d, write steps %d; want 1 and 4", n, w)
	}
	if n := patterns.StepsOf(all, patterns.PhaseRead, 2); n != 4 {
		t.Fatalf("read_back=all: %d read steps, want 4", n)
	}
	for r := 0; r < 2; r++ {
		got, want := stepPlan(t, p, patterns.PhaseRead, 0, r, 2), stepPlan(t, all, patterns.PhaseRead, 2, r, 2)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("rank %d: restart read differs from read_back=all's plt00000/particle0 step", r)
		}
		if got.Ops[0].Path != testDir+"/plt00000/particle0/particle0.h5" || got.Ops[0].Step != 2 {
			t.Errorf("rank %d: opens %s at step %d, want plt00000/particle0 written at step 2", r, got.Ops[0].Path, got.Ops[0].Step)
		}
	}
	if _, err := p.Step(patterns.PhaseRead, 1, env(0, 2)); err == nil || !strings.Contains(err.Error(), "read step 1 outside 0..0") {
		t.Errorf("read step 1: %v", err)
	}
	none := kit.Must(t, append(exampleKeys, "nparticlefile=0")...)
	if n := patterns.StepsOf(none, patterns.PhaseRead, 2); n != 0 {
		t.Errorf("nparticlefile=0: %d read steps, want 0 (the restart check needs a particle file)", n)
	}
	if _, _, err := kit.Build(append(exampleKeys, "read_back=some")...); err == nil || !strings.Contains(err.Error(), `"read_back"`) || !strings.Contains(err.Error(), `"some"`) {
		t.Errorf("read_back=some: %v", err)
	}
}

// checkAttributeReads: the read plan reads, in RestartHDF5's order, the attributes the
// writer (rank 0's write plan w) wrote on the same objects, each with the writer's type
// and shape and verified against its value, but maxnextid (unverified: the writer's rank
// count sets it); version_name with its stored type (H5Aget_type), the others with AMReX's
// memory types.
func checkAttributeReads(t *testing.T, who string, rd, w plan.Plan) {
	t.Helper()
	written := map[string]*plan.AttributeSpec{}
	for _, op := range w.Ops {
		if op.Kind == plan.WriteAttribute {
			written[op.Path+"@"+op.Attribute.Name] = op.Attribute
		}
	}
	var order []string
	for _, op := range rd.Ops {
		if op.Kind != plan.ReadAttribute {
			continue
		}
		a := op.Attribute
		key := op.Path + "@" + a.Name
		order = append(order, key)
		wa := written[key]
		if wa == nil {
			t.Errorf("%s: reads %s, which the writer did not write", who, key)
			continue
		}
		wantValue := wa.Value
		if a.Name == "maxnextid" {
			wantValue = nil
		}
		if !reflect.DeepEqual(a.Type, wa.Type) || !reflect.DeepEqual(a.Shape, wa.Shape) || !reflect.DeepEqual(a.Value, wantValue) ||
			a.Stored != (a.Name == "version_name") {
			t.Errorf("%s: read %s = %+v; the writer wrote %+v", who, key, *a, *wa)
		}
	}
	want := []string{"/@version_name", "/Chombo_global@SpaceDim", "/@num_component_real", "/@num_component_int",
		"/@nparticles", "/@maxnextid", "/@finest_level", "/level_0@ngrids"}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("%s: attribute reads %v, RestartHDF5 reads %v", who, order, want)
	}
}
