package amrex

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// fapl is the file access AMReX's SetHDF5fapl sets up at the h5bench pin (layouts.md 2.3).
func fapl(readOnly bool) *plan.FileSpec {
	return &plan.FileSpec{Parallel: true, ReadOnly: readOnly, CollMetadataOps: true, CollMetadataWrite: true,
		AlignThreshold: 16 * 1024 * 1024, AlignLen: 16 * 1024 * 1024, MetaBlockSize: 4 * 1024 * 1024, MDCInitialSize: 16 * 1024 * 1024}
}

// opWant is one expected operation; attr is set for attributes.
type opWant struct {
	kind plan.OpKind
	path string
	coll bool
	attr *attrWant
}

func ow(kind plan.OpKind, path string, coll bool) opWant {
	return opWant{kind: kind, path: path, coll: coll}
}
func aw(path string, a attrWant) opWant {
	return opWant{kind: plan.WriteAttribute, path: path, attr: &a}
}

// checkOps compares kinds, paths, collectiveness and attributes in order.
func checkOps(t *testing.T, what string, got []plan.Op, want []opWant) {
	t.Helper()
	n := max(len(got), len(want))
	for i := 0; i < n; i++ {
		switch {
		case i >= len(got):
			t.Fatalf("%s: op %d missing: want %s %s", what, i, want[i].kind, want[i].path)
		case i >= len(want):
			t.Fatalf("%s: op %d extra: %s", what, i, got[i])
		}
		g, w := got[i], want[i]
		if w.attr != nil {
			if err := checkAttr(g, w.path, *w.attr); err != nil {
				t.Fatalf("%s: op %d: %v", what, i, err)
			}
			continue
		}
		if g.Kind != w.kind || g.Path != w.path || g.Collective != w.coll {
			t.Fatalf("%s: op %d = %s %s collective=%v, want %s %s collective=%v", what, i, g.Kind, g.Path, g.Collective, w.kind, w.path, w.coll)
		}
	}
}

// examplePlotHeader is rank 0's serial header of the example plotfile (layouts.md 2.1).
func examplePlotHeader(path string) []opWant {
	return []opWant{
		ow(plan.CreateFile, path, false),
		aw("/", sAttr("version_name", "HyperCLaw-V1.1")), aw("/", sAttr("plotfile_type", "VanillaHDF5")),
		aw("/", iAttr("num_components", 2)), aw("/", sAttr("component_0", "component_0")), aw("/", sAttr("component_1", "component_1")),
		aw("/", iAttr("dim", 3)), aw("/", fAttr("time", 0)), aw("/", iAttr("finest_level", 0)),
		aw("/", iAttr("coordinate_system", 0)), aw("/", iAttr("num_levels", 1)),
		ow(plan.CreateGroup, "/Chombo_global", false), aw("/Chombo_global", iAttr("SpaceDim", 3)), ow(plan.CloseGroup, "/Chombo_global", false),
		ow(plan.CreateGroup, "/level_0", false),
		aw("/level_0", iAttr("ref_ratio", 1)), aw("/level_0", fAttr("Vec_dx", 1.0/16, 1.0/16, 1.0/16)), aw("/level_0", fAttr("dx", 1.0/16)),
		aw("/level_0", fAttr("prob_lo", 0, 0, 0)), aw("/level_0", fAttr("prob_hi", 1, 1, 1)),
		aw("/level_0", attrWant{"prob_domain", boxWant, nil, wantI32(0, 0, 0, 15, 15, 15)}),
		aw("/level_0", iAttr("domain_type", 0, 0, 0)), aw("/level_0", iAttr("steps", 0)), aw("/level_0", iAttr("ngrid", 8)),
		aw("/level_0", fAttr("time", 0)), aw("/level_0", iAttr("ngrow", 0)),
		ow(plan.CloseGroup, "/level_0", false),
		ow(plan.CloseFile, path, false),
	}
}

// examplePlotBody is every rank's parallel part of the example plotfile.
func examplePlotBody(path string, rank0 bool) []opWant {
	w := []opWant{
		ow(plan.OpenFile, path, true), ow(plan.OpenGroup, "/level_0", true),
		ow(plan.CreateDataset, "/level_0/boxes", true), ow(plan.CreateDataset, "/level_0/data:offsets=0", true),
		ow(plan.CreateDataset, "/level_0/boxcenter", true),
	}
	if rank0 {
		w = append(w, ow(plan.Write, "/level_0/data:offsets=0", false), ow(plan.Write, "/level_0/boxcenter", false),
			ow(plan.Write, "/level_0/boxes", false))
	}
	return append(w, ow(plan.CreateDataset, "/level_0/data:datatype=0", true), ow(plan.Write, "/level_0/data:datatype=0", true),
		ow(plan.CloseDataset, "/level_0/data:datatype=0", true), ow(plan.CloseDataset, "/level_0/data:offsets=0", true),
		ow(plan.CloseDataset, "/level_0/boxcenter", true), ow(plan.CloseDataset, "/level_0/boxes", true),
		ow(plan.CloseGroup, "/level_0", true), ow(plan.CloseFile, path, true))
}

// TestPlotfileExample is layouts.md 2.1/2.2's worked example, operation by operation.
func TestPlotfileExample(t *testing.T) {
	p := kit.Must(t, exampleKeys...)
	path := testDir + "/plt00000.h5"
	exampleBoxes := []Box{
		box(0, 0, 0, 7, 7, 7), box(8, 0, 0, 15, 7, 7), box(0, 8, 0, 7, 15, 7), box(8, 8, 0, 15, 15, 7),
		box(0, 0, 8, 7, 7, 15), box(8, 0, 8, 15, 7, 15), box(0, 8, 8, 7, 15, 15), box(8, 8, 8, 15, 15, 15),
	}
	for r := 0; r < 2; r++ {
		pl := stepPlan(t, p, patterns.PhaseWrite, 0, r, 2)
		want := examplePlotBody(path, r == 0)
		if r == 0 {
			want = append(examplePlotHeader(path), want...)
		}
		checkOps(t, fmt.Sprintf("rank %d", r), pl.Ops, want)
		for _, op := range pl.Ops {
			if op.Step != 0 {
				t.Fatalf("rank %d: %s %s has step %d", r, op.Kind, op.Path, op.Step)
			}
			switch op.Kind {
			case plan.CreateFile:
				if !reflect.DeepEqual(op.File, &plan.FileSpec{MakeDirs: true, SharedLater: true}) {
					t.Errorf("serial create %+v: want the default fapl, the file shared later", op.File)
				}
			case plan.OpenFile:
				if !reflect.DeepEqual(op.File, fapl(false)) {
					t.Errorf("open %+v, want %+v", op.File, fapl(false))
				}
			}
		}
		specs := map[string]plan.DatasetSpec{
			"/level_0/boxes":           {Type: boxWant, Shape: u(8)},
			"/level_0/data:offsets=0":  {Type: plan.I64, Shape: u(9)},
			"/level_0/boxcenter":       {Type: centerWant, Shape: u(8)},
			"/level_0/data:datatype=0": {Type: plan.F64, Shape: u(8192), FillNever: true},
		}
		for name, w := range specs {
			d := datasetSpec(t, pl, name)
			if !d.Type.Equal(w.Type) || !reflect.DeepEqual(d.Shape, w.Shape) || d.Chunk != nil || d.Deflate != 0 || d.FillNever != w.FillNever || d.MaxShape != nil {
				t.Errorf("rank %d %s: %+v, want %+v", r, name, *d, w)
			}
		}
		data := transfers(pl, plan.Write, "/level_0/data:datatype=0")
		if len(data) != 1 {
			t.Fatalf("rank %d: %d data writes", r, len(data))
		}
		tr := data[0].Transfer
		if s := spanOf(t, data[0]); s != (span{uint64(4096 * r), 4096}) || !tr.MemType.Equal(plan.F64) || tr.Data != nil || tr.Variable != "/level_0/data:datatype=0" {
			t.Errorf("rank %d data write: span %v type %s variable %q", r, s, tr.MemType, tr.Variable)
		}
		if r == 0 {
			for name, w := range map[string][]byte{
				"/level_0/data:offsets=0": wantI64(0, 1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192),
				"/level_0/boxcenter":      make([]byte, 12*8),
				"/level_0/boxes":          wantBoxes(exampleBoxes...),
			} {
				ws := transfers(pl, plan.Write, name)
				if len(ws) != 1 || string(ws[0].Transfer.Data) != string(w) || !reflect.DeepEqual(ws[0].Transfer.Selection, plan.All(ws[0].Transfer.FileShape)) {
					t.Errorf("%s: rank 0 writes %v", name, ws)
				}
			}
		}
		if got := pl.RawBytes(); got != 4096*8+map[bool]uint64{true: 9*8 + 8*12 + 8*24}[r == 0] {
			t.Errorf("rank %d: raw bytes %d", r, got)
		}
	}
}

// TestPlotfileRankOrder: with 3 ranks the file lists boxes grouped by owner (rank 0 owns
// boxes 2,3,4), offsets follow that order, and ranks' data ranges tile the dataset.
func TestPlotfileRankOrder(t *testing.T) {
	p := kit.Must(t, exampleKeys...)
	var spans []span
	for r := 0; r < 3; r++ {
		pl := stepPlan(t, p, patterns.PhaseWrite, 0, r, 3)
		spans = append(spans, spanOf(t, transfers(pl, plan.Write, "/level_0/data:datatype=0")[0]))
		if r != 0 {
			continue
		}
		boxes := DecodeBoxes(transfers(pl, plan.Write, "/level_0/boxes")[0].Transfer.Data)
		want := []Box{box(0, 8, 0, 7, 15, 7), box(8, 8, 0, 15, 15, 7), box(0, 0, 8, 7, 7, 15), box(8, 0, 8, 15, 7, 15),
			box(0, 8, 8, 7, 15, 15), box(8, 8, 8, 15, 15, 15), box(0, 0, 0, 7, 7, 7), box(8, 0, 0, 15, 7, 7)}
		if !reflect.DeepEqual(boxes, want) {
			t.Errorf("file order %v, want %v", boxes, want)
		}
	}
	if !reflect.DeepEqual(spans, []span{{0, 3072}, {3072, 3072}, {6144, 2048}}) {
		t.Errorf("rank ranges %v", spans)
	}
}

// TestPlotfileSample: h5bench's sample (64^3, mgs 8, ncomp 6) at 4 ranks.
func TestPlotfileSample(t *testing.T) {
	p := kit.Must(t, sampleKeys...)
	const total = 64 * 64 * 64 * 6
	var spans []span
	for r := 0; r < 4; r++ {
		pl := stepPlan(t, p, patterns.PhaseWrite, 1, r, 4)
		if pl.Ops[0].Path != testDir+"/plt00001.h5" {
			t.Fatalf("step 1 writes %s", pl.Ops[0].Path)
		}
		if d := datasetSpec(t, pl, "/level_0/data:datatype=0"); !reflect.DeepEqual(d.Shape, u(total)) {
			t.Errorf("data shape %v", d.Shape)
		}
		if d := datasetSpec(t, pl, "/level_0/data:offsets=0"); !reflect.DeepEqual(d.Shape, u(513)) {
			t.Errorf("offsets shape %v", d.Shape)
		}
		spans = append(spans, spanOf(t, transfers(pl, plan.Write, "/level_0/data:datatype=0")[0]))
		if r == 0 {
			var comps []string
			for _, op := range pl.Ops {
				if op.Attribute != nil && strings.HasPrefix(op.Attribute.Name, "component_") {
					comps = append(comps, string(op.Attribute.Value[:len(op.Attribute.Value)-1]))
				}
			}
			if !reflect.DeepEqual(comps, []string{"component_0", "component_1", "component_2", "component_3", "component_4", "component_5"}) {
				t.Errorf("components %v", comps)
			}
		}
	}
	checkPartition(t, "sample data", spans, total)
	for r, s := range spans {
		if s.n != total/4 {
			t.Errorf("rank %d writes %d elements", r, s.n)
		}
	}
}

// TestCompressedPlotfile: ZLIB chunks the data datasets in 1-D chunks of 1024 elements,
// capped at the dataset length, and deflates them; the index datasets stay contiguous.
func TestCompressedPlotfile(t *testing.T) {
	p := kit.Must(t, "ncells=8", "max_grid_size=4", "nlevs=1", "ncomp=1", "nppc=1", "hdf5compression=ZLIB@4")
	pl := stepPlan(t, p, patterns.PhaseWrite, 0, 0, 2)
	if d := datasetSpec(t, pl, "/level_0/data:datatype=0"); !reflect.DeepEqual(d.Chunk, u(512)) || d.Deflate != 4 || !d.FillNever {
		t.Errorf("512-element data: %+v, want chunk [512] deflate 4", *d)
	}
	if d := datasetSpec(t, pl, "/level_0/boxes"); d.Chunk != nil || d.Deflate != 0 {
		t.Errorf("boxes: %+v", *d)
	}
	pl = stepPlan(t, p, patterns.PhaseWrite, 1, 0, 2)
	for name, n := range map[string]uint64{"/level_0/data:datatype=0": 512 * 6, "/level_0/data:datatype=1": 512 * 15} {
		if d := datasetSpec(t, pl, name); !reflect.DeepEqual(d.Chunk, u(1024)) || d.Deflate != 4 || !reflect.DeepEqual(d.Shape, u(n)) {
			t.Errorf("%s: %+v", name, *d)
		}
	}
	if d := datasetSpec(t, pl, "/level_0/nparticles_grid"); d.Chunk != nil || d.Deflate != 0 {
		t.Errorf("nparticles_grid: %+v", *d)
	}
}

// exampleParticleHeader is rank 0's serial part of the example's particle file.
func exampleParticleHeader(path string, ranks int) []opWant {
	w := []opWant{ow(plan.CreateFile, path, false), aw("/", sAttr("version_name", "Version_Two_Dot_One_double")),
		ow(plan.CreateGroup, "/Chombo_global", false), aw("/Chombo_global", iAttr("SpaceDim", 3)), ow(plan.CloseGroup, "/Chombo_global", false),
		aw("/", iAttr("num_component", 16)), aw("/", iAttr("num_component_real", 12))}
	for i := 0; i < 12; i++ {
		w = append(w, aw("/", sAttr(fmt.Sprintf("real_component_%d", i), fmt.Sprintf("particle_real_component_%d", i))))
	}
	w = append(w, aw("/", iAttr("num_component_int", 4)))
	for i := 0; i < 4; i++ {
		w = append(w, aw("/", sAttr(fmt.Sprintf("int_component_%d", i), fmt.Sprintf("particle_int_component_%d", i))))
	}
	return append(w, aw("/", lAttr("nparticles", 4096)), aw("/", lAttr("maxnextid", int64(4096/ranks+4096%ranks+1))),
		aw("/", iAttr("finest_level", 0)),
		ow(plan.CreateGroup, "/level_0", false), aw("/level_0", iAttr("ngrids", 8)),
		ow(plan.CreateDataset, "/level_0/boxes", false), ow(plan.Write, "/level_0/boxes", false),
		ow(plan.CloseDataset, "/level_0/boxes", false), ow(plan.CloseGroup, "/level_0", false),
		ow(plan.CloseFile, path, false))
}

// TestParticleFileExample: the example's particle checkpoint at 3 ranks (3, 3 and 2 grids
// of 512 particles): header, per-grid collective writes padded to 3 per rank, counts.
func TestParticleFileExample(t *testing.T) {
	p := kit.Must(t, exampleKeys...)
	path := testDir + "/plt00000/particle0/particle0.h5"
	if got, plot := p.FileOf(env(0, 3), 1); got != path || plot {
		t.Fatalf("step 1 file %s plotfile=%v", got, plot)
	}
	grids := [][]int{{2, 3, 4}, {5, 6, 7}, {0, 1}}
	var ints, reals []span
	for r := 0; r < 3; r++ {
		pl := stepPlan(t, p, patterns.PhaseWrite, 1, r, 3)
		var want []opWant
		if r == 0 {
			want = exampleParticleHeader(path, 3)
		}
		want = append(want, ow(plan.OpenFile, path, true), ow(plan.OpenGroup, "/level_0", true),
			ow(plan.CreateDataset, "/level_0/data:datatype=0", true), ow(plan.CreateDataset, "/level_0/data:datatype=1", true))
		for k := 0; k < 3; k++ {
			want = append(want, ow(plan.Write, "/level_0/data:datatype=0", true), ow(plan.Write, "/level_0/data:datatype=1", true))
		}
		want = append(want, ow(plan.CloseDataset, "/level_0/data:datatype=1", true), ow(plan.CloseDataset, "/level_0/data:datatype=0", true),
			ow(plan.CreateDataset, "/level_0/nparticles_grid", true), ow(plan.Write, "/level_0/nparticles_grid", true),
			ow(plan.CloseDataset, "/level_0/nparticles_grid", true), ow(plan.CloseGroup, "/level_0", true), ow(plan.CloseFile, path, true))
		checkOps(t, fmt.Sprintf("rank %d", r), pl.Ops, want)

		if r == 0 {
			b := transfers(pl, plan.Write, "/level_0/boxes")[0].Transfer
			if string(b.Data) != string(wantBoxes(NestedLevels(16, 8)[0].Boxes...)) {
				t.Error("particle boxes are not in BoxArray order")
			}
			if d := datasetSpec(t, pl, "/level_0/boxes"); !d.FillNever || !d.Type.Equal(boxWant) {
				t.Errorf("particle boxes dataset %+v", *d)
			}
		}
		for name, w := range map[string]plan.DatasetSpec{
			"/level_0/data:datatype=0": {Type: plan.I32, Shape: u(4096 * 6)},
			"/level_0/data:datatype=1": {Type: plan.F64, Shape: u(4096 * 15)},
			"/level_0/nparticles_grid": {Type: plan.I32, Shape: u(8)},
		} {
			if d := datasetSpec(t, pl, name); !d.Type.Equal(w.Type) || !reflect.DeepEqual(d.Shape, w.Shape) || d.Chunk != nil || d.FillNever {
				t.Errorf("%s: %+v", name, *d)
			}
		}
		iw, rw := transfers(pl, plan.Write, "/level_0/data:datatype=0"), transfers(pl, plan.Write, "/level_0/data:datatype=1")
		for k := range iw {
			si, sr := spanOf(t, iw[k]), spanOf(t, rw[k])
			if k >= len(grids[r]) {
				if si.n != 0 || sr.n != 0 {
					t.Errorf("rank %d write %d: padding selects %v %v", r, k, si, sr)
				}
				continue
			}
			if si.n != 512*6 || sr.n != 512*15 || si.start/6 != sr.start/15 || !strings.HasSuffix(iw[k].Transfer.Buffer, fmt.Sprintf("/%d", grids[r][k])) {
				t.Errorf("rank %d grid %d: int %v real %v buffer %s", r, grids[r][k], si, sr, iw[k].Transfer.Buffer)
			}
			ints, reals = append(ints, si), append(reals, sr)
		}
		npg := transfers(pl, plan.Write, "/level_0/nparticles_grid")[0]
		if s := spanOf(t, npg); s != (span{uint64(3 * r), uint64(len(grids[r]))}) {
			t.Errorf("rank %d nparticles_grid span %v", r, s)
		}
		if w := wantI32(512, 512, 512)[:4*len(grids[r])]; string(npg.Transfer.Data) != string(w) {
			t.Errorf("rank %d nparticles_grid data %x", r, npg.Transfer.Data)
		}
	}
	checkPartition(t, "particle ints", ints, 4096*6)
	checkPartition(t, "particle reals", reals, 4096*15)
	// Rank 0's grids come first in the file: grid 2 at 0.
	if ints[0] != (span{0, 512 * 6}) || ints[6] != (span{6 * 512 * 6, 512 * 6}) {
		t.Errorf("rank order in the file: %v", ints)
	}
}

// TestMultiLevelFromFiles: two levels from box lists: level attributes, one data dataset
// per level, and particles only where no finer grid covers them.
func TestMultiLevelFromFiles(t *testing.T) {
	writeGrids(t, twoLevels...)
	p := kit.Must(t, "ncells=16", "max_grid_size=8", "nlevs=2", "ncomp=1", "nppc=1", "grids_from_file=1", "ref_ratio_file=2")
	pl := stepPlan(t, p, patterns.PhaseWrite, 0, 0, 2)
	attrs := map[string]map[string]string{}
	for _, op := range pl.Ops {
		if a := op.Attribute; a != nil {
			if attrs[op.Path] == nil {
				attrs[op.Path] = map[string]string{}
			}
			attrs[op.Path][a.Name] = string(a.Value)
		}
	}
	checks := []struct {
		obj, name string
		value     []byte
	}{
		{"/", "finest_level", wantI32(1)}, {"/", "num_levels", wantI32(2)},
		{"/level_0", "ref_ratio", wantI32(2)}, {"/level_1", "ref_ratio", wantI32(1)},
		{"/level_0", "Vec_dx", wantF64(1.0/16, 1.0/16, 1.0/16)}, {"/level_1", "dx", wantF64(1.0 / 32)},
		{"/level_1", "prob_domain", wantI32(0, 0, 0, 31, 31, 31)}, {"/level_1", "ngrid", wantI32(2)},
	}
	for _, c := range checks {
		if got := attrs[c.obj][c.name]; got != string(c.value) {
			t.Errorf("%s@%s = %x, want %x", c.obj, c.name, got, c.value)
		}
	}
	for l, total := range []uint64{4096, 4096} {
		if d := datasetSpec(t, pl, fmt.Sprintf("/level_%d/data:datatype=0", l)); !reflect.DeepEqual(d.Shape, u(total)) {
			t.Errorf("level %d data shape %v", l, d.Shape)
		}
	}
	part := stepPlan(t, p, patterns.PhaseWrite, 1, 0, 2)
	for l, n := range []uint64{2 * 1792, 2 * 256} {
		if d := datasetSpec(t, part, fmt.Sprintf("/level_%d/data:datatype=1", l)); !reflect.DeepEqual(d.Shape, u(n*15)) {
			t.Errorf("level %d particle reals %v, want %d particles", l, d.Shape, n)
		}
	}
	var nparticles []byte
	for _, op := range part.Ops {
		if a := op.Attribute; a != nil && a.Name == "nparticles" {
			nparticles = a.Value
		}
	}
	if string(nparticles) != string(wantI64(4096)) {
		t.Errorf("nparticles %x", nparticles)
	}
}

// TestNoParticles: nppc=0 leaves the levels without particle datasets, as AMReX does for
// a level without particles.
func TestNoParticles(t *testing.T) {
	p := kit.Must(t, "ncells=8", "max_grid_size=8", "nlevs=1", "ncomp=1", "nppc=0")
	for ph, step := range map[patterns.Phase]int{patterns.PhaseWrite: 1, patterns.PhaseRead: 0} { // the particle file
		pl := stepPlan(t, p, ph, step, 0, 1)
		for _, op := range pl.Ops {
			if strings.Contains(op.Path, "data:datatype") || strings.Contains(op.Path, "nparticles_grid") {
				t.Errorf("%s: %s %s without particles", ph, op.Kind, op.Path)
			}
		}
	}
}

// TestStepsAndPaths: plotfiles first, then particle files numbered from 0, under the
// directory key when given.
func TestStepsAndPaths(t *testing.T) {
	p := kit.Must(t, append(exampleKeys, "nplotfile=2", "nparticlefile=3")...)
	want := []string{"plt00000.h5", "plt00001.h5", "plt00000/particle0/particle0.h5", "plt00001/particle0/particle0.h5", "plt00002/particle0/particle0.h5"}
	if p.Steps() != 5 {
		t.Fatalf("steps %d", p.Steps())
	}
	for s, w := range want {
		if got, _ := p.FileOf(env(0, 1), s); got != testDir+"/"+w {
			t.Errorf("step %d: %s, want %s", s, got, w)
		}
	}
	d := kit.Must(t, append(exampleKeys, "directory=elsewhere/out")...)
	if got, _ := d.FileOf(env(0, 1), 1); got != "elsewhere/out/plt00000/particle0/particle0.h5" {
		t.Errorf("directory key: %s", got)
	}
	for _, c := range []struct {
		ph         patterns.Phase
		step, rank int
		msg        string
	}{{patterns.PhaseWrite, 5, 0, "step 5 outside 0..4"}, {patterns.PhaseWrite, -1, 0, "outside"}, {patterns.Phase(7), 0, 0, "no phase(7) phase"}, {patterns.PhaseRead, 0, 3, "rank 3 of 1"}} {
		if _, err := p.Step(c.ph, c.step, env(c.rank, 1)); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s step %d rank %d: %v, want %q", c.ph, c.step, c.rank, err, c.msg)
		}
	}
	for _, ph := range []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead} {
		b, err := p.Begin(ph, env(0, 1))
		e, err2 := p.End(ph, 5, env(0, 1))
		if err != nil || err2 != nil || len(b.Ops) != 0 || len(e.Ops) != 0 {
			t.Errorf("%s: Begin/End plan %v %v (%v %v); every step handles its own file", ph, b.Ops, e.Ops, err, err2)
		}
	}
}

// TestAllRanksAgree: at every rank count every rank issues the same collective operations
// in the same order (the others are rank 0's serial header and index writes, and
// independent reads), so collective calls match.
func TestAllRanksAgree(t *testing.T) {
	writeGrids(t, twoLevels...)
	pats := map[string]*Pattern{
		"example": kit.Must(t, exampleKeys...),
		"uneven":  kit.Must(t, "ncells=20", "max_grid_size=8", "nlevs=1", "ncomp=3", "nppc=1"),
		"levels":  kit.Must(t, "ncells=16", "max_grid_size=8", "nlevs=2", "ncomp=1", "nppc=1", "grids_from_file=1", "ref_ratio_file=2"),
	}
	for name, p := range pats {
		for R := 1; R <= 5; R++ {
			for _, ph := range []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead} {
				for s := 0; s < patterns.StepsOf(p, ph, R); s++ {
					var ref []string
					for r := 0; r < R; r++ {
						pl := stepPlan(t, p, ph, s, r, R)
						var coll []string
						for _, op := range pl.Ops {
							if op.Collective {
								coll = append(coll, op.Kind.String()+" "+op.Path)
							}
						}
						if r == 0 {
							ref = coll
						} else if !reflect.DeepEqual(coll, ref) {
							t.Fatalf("%s R=%d %s step %d: rank %d collective ops differ from rank 0's", name, R, ph, s, r)
						}
					}
				}
			}
		}
	}
}
