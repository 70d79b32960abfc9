package proxy_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	logl "github.com/h5proxy/h5proxy/proxy/layout/log"
	"github.com/h5proxy/h5proxy/proxy/layout/subfiling"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/amrex"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
)

// amrexExample is layouts.md 2.1's example (16^3, max_grid_size 8, ncomp 2) with two
// plotfiles and two particle files of nppc=1, every file read back (read_back=all) so every
// write is verified.
const amrexExample = "ncells=16;max_grid_size=8;nlevs=1;ncomp=2;nppc=1;nplotfile=2;nparticlefile=2;read_back=all"

// amrexLevels: two levels from box lists (uneven level-0 boxes), 3 components, 2
// particles per cell, ZLIB compression.
const amrexLevels = "ncells=16;max_grid_size=8;nlevs=2;ncomp=3;nppc=2;nplotfile=1;nparticlefile=1;grids_from_file=1;ref_ratio_file=2;hdf5compression=ZLIB@3;read_back=all"

var amrexGrids = []string{
	"((0,0,0) (15,15,15) (0,0,0))\n(2 0\n((0,0,0) (5,15,15) (0,0,0))\n((6,0,0) (15,15,15) (0,0,0))\n)\n",
	"((0,0,0) (31,31,31) (0,0,0))\n(2 0\n((8,8,8) (15,23,23) (0,0,0))\n((16,8,8) (23,23,23) (0,0,0))\n)\n",
}

func amrexOut(dir, name string, np int) string {
	return filepath.Join(dir, fmt.Sprintf("amrex-%s-np%d", name, np))
}

func amrexConfig(t *testing.T, kv, out string, phases ...patterns.Phase) proxy.Config {
	t.Helper()
	kvs, err := proxy.ParseKV(kv + ";file=" + out)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := proxy.ParseOptions("amrex", kvs)
	if err != nil {
		t.Fatalf("%s: %v", kv, err)
	}
	cfg.Phases = phases
	return cfg
}

// amrexBytes is what all ranks move in a phase, from the pattern's plans.
func amrexBytes(t *testing.T, cfg proxy.Config, ph patterns.Phase, size int) float64 {
	t.Helper()
	pat, err := cfg.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for r := 0; r < size; r++ {
		for s := 0; s < pat.Steps(); s++ {
			pl, err := pat.Step(ph, s, patterns.Env{Rank: r, Size: size, Path: cfg.File})
			if err != nil {
				t.Fatal(err)
			}
			n += pl.RawBytes()
		}
	}
	return float64(n)
}

// runAMReX runs the configured phases and checks the report: bytes, per-step entries and a
// clean verification of every read.
func runAMReX(t *testing.T, cfg proxy.Config) {
	t.Helper()
	s := session(t, cfg)
	if err := s.Run(); err != nil {
		t.Fatalf("%s (%s): %v", cfg.File, cfg.Mode, err)
	}
	rep, err := s.Report()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	size := world(t).Size()
	if len(rep.Phases) != len(cfg.Phases) {
		t.Fatalf("%s: %d phases reported", cfg.File, len(rep.Phases))
	}
	for i, p := range rep.Phases {
		if want := amrexBytes(t, cfg, cfg.Phases[i], size); p.Bytes != want {
			t.Errorf("%s %s %s: report bytes %v, want %v", cfg.File, cfg.Mode, p.Phase, p.Bytes, want)
		}
		if len(p.PerStep) != s.Steps() {
			t.Errorf("%s %s: %d per-step entries, want %d", cfg.File, p.Phase, len(p.PerStep), s.Steps())
		}
		if p.Phase == "read" && (!p.Verified || p.Mismatches != 0) {
			t.Errorf("%s %s read: verified=%v mismatches=%v", cfg.File, cfg.Mode, p.Verified, p.Mismatches)
		}
		// The restart's attribute reads (RestartHDF5's ReadHDF5Attr), each verified by the
		// layout against the writer's value, are in the census as H5Aread.
		reads := planned(t, cfg, cfg.Phases[i], size, plan.ReadAttribute)
		if got := callCount(p.Census, "H5Aread").Count; got != reads || (p.Phase == "read" && reads == 0) {
			t.Errorf("%s %s %s: census H5Aread %v, the plans read %v attributes", cfg.File, cfg.Mode, p.Phase, got, reads)
		}
	}
}

// TestAMReXWriteReadVerify writes the example's plotfiles and particle checkpoints at 1, 2
// and 4 ranks under every mode, reads them back through the proxy with element-by-element
// verification (and reads the previous rank count's files: any reader count verifies),
// runs a two-level compressed case, then (in the parent) checks every file with gonum's
// reader and HDF5's attributes against layouts.md.
func TestAMReXWriteReadVerify(t *testing.T) {
	dir := testDir(t)
	if !mpitest.Child() {
		if err := os.MkdirAll(filepath.Join(dir, "grids"), 0o755); err != nil {
			t.Fatal(err)
		}
		for l, g := range amrexGrids {
			if err := os.WriteFile(filepath.Join(dir, "grids", fmt.Sprintf("Level_%d", l)), []byte(g), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if mpitest.Run(t, rankCounts...) {
		if !inspect.Available() {
			t.Skip("independent reader not built (gonum tag)")
		}
		for _, np := range rankCounts {
			for _, mode := range modes {
				checkAMReXExample(t, amrexOut(dir, mode, np), np)
			}
			checkAMReXLevels(t, dir, amrexOut(dir, "levels", np), np)
		}
		return
	}
	size := world(t).Size()
	both := []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}
	for _, mode := range modes {
		cfg := amrexConfig(t, amrexExample+";mode="+mode+";verify=yes", amrexOut(dir, mode, size), both...)
		runAMReX(t, cfg)
	}
	// The files the previous rank count wrote, read back and verified at this one.
	for i, np := range rankCounts {
		if np == size && i > 0 {
			runAMReX(t, amrexConfig(t, amrexExample+";verify=yes", amrexOut(dir, "sync", rankCounts[i-1]), patterns.PhaseRead))
		}
	}
	t.Chdir(dir) // grids/Level_<l>
	runAMReX(t, amrexConfig(t, amrexLevels+";verify=yes", amrexOut(dir, "levels", size), both...))
}

// node is an expected group (typ zero) or dataset.
type node struct {
	typ   plan.Type
	shape []uint64
}

var (
	boxCompound = plan.Struct("", 24,
		plan.Field("lo_i", 0, plan.I32), plan.Field("lo_j", 4, plan.I32), plan.Field("lo_k", 8, plan.I32),
		plan.Field("hi_i", 12, plan.I32), plan.Field("hi_j", 16, plan.I32), plan.Field("hi_k", 20, plan.I32))
	centerCompound = plan.Struct("", 12,
		plan.Field("i", 0, plan.I32), plan.Field("j", 4, plan.I32), plan.Field("k", 8, plan.I32))
)

// checkTree compares a file's groups and datasets with the expected ones.
func checkTree(t *testing.T, file string, want map[string]node) {
	t.Helper()
	tree, err := inspect.Tree(file)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, n := range tree {
		got[n.Path] = true
		w, ok := want[n.Path]
		switch {
		case !ok:
			t.Errorf("%s: unexpected %s", file, n)
		case n.Dataset != (w.typ.Class != 0):
			t.Errorf("%s: %s is a dataset=%v", file, n.Path, n.Dataset)
		case n.Dataset && (!n.Type.Equal(w.typ) || !reflect.DeepEqual(n.Shape, w.shape)):
			t.Errorf("%s %s: %s %v, want %s %v", file, n.Path, n.Type, n.Shape, w.typ, w.shape)
		}
	}
	for p := range want {
		if !got[p] {
			t.Errorf("%s: missing %s", file, p)
		}
	}
}

// attr is an expected attribute value: scalar when shape is nil.
type attr struct {
	typ   plan.Type
	shape []uint64
	value []byte
}

func le32(v ...int32) []byte {
	b := []byte{}
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

func le64(v ...int64) []byte {
	b := []byte{}
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

func f64s(v ...float64) []byte {
	b := []byte{}
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

func str(s string) attr   { return attr{plan.Str(len(s) + 1), nil, append([]byte(s), 0)} }
func i32(v ...int32) attr { return attr{plan.I32, []uint64{uint64(len(v))}, le32(v...)} }
func i64(v ...int64) attr { return attr{plan.I64, []uint64{uint64(len(v))}, le64(v...)} }
func f64(v ...float64) attr {
	return attr{plan.F64, []uint64{uint64(len(v))}, f64s(v...)}
}

// checkAttrs reads attributes through HDF5 on a serial open (gonum cannot list them) and
// compares type, shape and value; absent names must not exist.
func checkAttrs(t *testing.T, file, object string, want map[string]attr, absent ...string) {
	t.Helper()
	f, err := h5.OpenFile(file, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	loc := f
	if object != "/" {
		g, err := h5.OpenGroup(f, object)
		if err != nil {
			t.Fatal(err)
		}
		defer h5.CloseGroup(g)
		loc = g
	}
	for name, w := range want {
		a, err := h5.ReadAttribute(loc, name)
		if err != nil {
			t.Errorf("%s %s@%s: %v", file, object, name, err)
			continue
		}
		if !a.Type.Equal(w.typ) || !reflect.DeepEqual(a.Shape, w.shape) || string(a.Value) != string(w.value) {
			t.Errorf("%s %s@%s: %s %v %x, want %s %v %x", file, object, name, a.Type, a.Shape, a.Value, w.typ, w.shape, w.value)
		}
	}
	for _, name := range absent {
		if _, err := h5.ReadAttribute(loc, name); err == nil {
			t.Errorf("%s %s@%s exists; AMReX does not write it", file, object, name)
		}
	}
}

// boxRow is the box compound as gonum reads it.
type boxRow struct {
	LoI int32 `hdf5:"lo_i"`
	LoJ int32 `hdf5:"lo_j"`
	LoK int32 `hdf5:"lo_k"`
	HiI int32 `hdf5:"hi_i"`
	HiJ int32 `hdf5:"hi_j"`
	HiK int32 `hdf5:"hi_k"`
}

func readBoxes(t *testing.T, file, dset string, n int) []amrex.Box {
	t.Helper()
	rows := make([]boxRow, n)
	if err := inspect.Read(file, dset, &rows); err != nil {
		t.Fatal(err)
	}
	out := make([]amrex.Box, n)
	for i, r := range rows {
		out[i] = amrex.NewBox(int(r.LoI), int(r.LoJ), int(r.LoK), int(r.HiI), int(r.HiJ), int(r.HiK))
	}
	return out
}

// checkSeeded compares a whole dataset with the seeded fill of its variable (its path).
func checkSeeded(t *testing.T, file, dset string, class plan.Class, step, n int) {
	t.Helper()
	var get func(i int) float64
	switch class {
	case plan.Float64:
		v := make([]float64, n)
		if err := inspect.Read(file, dset, &v); err != nil {
			t.Fatal(err)
		}
		get = func(i int) float64 { return v[i] }
	case plan.Int32:
		v := make([]int32, n)
		if err := inspect.Read(file, dset, &v); err != nil {
			t.Fatal(err)
		}
		get = func(i int) float64 { return float64(v[i]) }
	}
	for i := 0; i < n; i++ {
		if want := emulate.Value(class, proxy.DefaultSeed, dset, step, uint64(i)); get(i) != want {
			t.Fatalf("%s %s[%d] = %v, want %v", file, dset, i, get(i), want)
		}
	}
}

// exampleBoxes are the example's 8 boxes in BoxArray order (x fastest, then y, then z).
func exampleBoxes() []amrex.Box {
	var b []amrex.Box
	for k := 0; k < 2; k++ {
		for j := 0; j < 2; j++ {
			for i := 0; i < 2; i++ {
				b = append(b, amrex.NewBox(8*i, 8*j, 8*k, 8*i+7, 8*j+7, 8*k+7))
			}
		}
	}
	return b
}

// checkAMReXExample checks the example's four files as layouts.md 2.1 and 2.4 describe
// them. At 1, 2 and 4 ranks the Morton buckets keep BoxArray order, so the file order of
// the boxes is the BoxArray order.
func checkAMReXExample(t *testing.T, out string, np int) {
	t.Helper()
	for i := 0; i < 2; i++ {
		plt := filepath.Join(out, fmt.Sprintf("plt%05d.h5", i))
		checkTree(t, plt, map[string]node{
			"/Chombo_global": {}, "/level_0": {},
			"/level_0/boxes":           {boxCompound, []uint64{8}},
			"/level_0/boxcenter":       {centerCompound, []uint64{8}},
			"/level_0/data:offsets=0":  {plan.I64, []uint64{9}},
			"/level_0/data:datatype=0": {plan.F64, []uint64{8192}},
		})
		root := map[string]attr{
			"version_name": str("HyperCLaw-V1.1"), "plotfile_type": str("VanillaHDF5"), "num_components": i32(2),
			"component_0": str("component_0"), "component_1": str("component_1"), "dim": i32(3), "time": f64(0),
			"finest_level": i32(0), "coordinate_system": i32(0), "num_levels": i32(1),
		}
		checkAttrs(t, plt, "/", root, "component_2", "outputGhost", "comps")
		checkAttrs(t, plt, "/Chombo_global", map[string]attr{"SpaceDim": i32(3)})
		checkAttrs(t, plt, "/level_0", map[string]attr{
			"ref_ratio": i32(1), "Vec_dx": f64(0.0625, 0.0625, 0.0625), "dx": f64(0.0625),
			"prob_lo": f64(0, 0, 0), "prob_hi": f64(1, 1, 1), "prob_domain": {boxCompound, nil, le32(0, 0, 0, 15, 15, 15)},
			"domain_type": i32(0, 0, 0), "steps": i32(0), "ngrid": i32(8), "time": f64(0), "ngrow": i32(0),
		}, "data:datatype=0")
		if got := readBoxes(t, plt, "/level_0/boxes", 8); !reflect.DeepEqual(got, exampleBoxes()) {
			t.Errorf("%s boxes %v", plt, got)
		}
		offsets := make([]int64, 9)
		centers := make([]struct {
			I int32 `hdf5:"i"`
			J int32 `hdf5:"j"`
			K int32 `hdf5:"k"`
		}, 8)
		if err := inspect.Read(plt, "/level_0/data:offsets=0", &offsets); err != nil {
			t.Fatal(err)
		}
		if err := inspect.Read(plt, "/level_0/boxcenter", &centers); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(offsets, []int64{0, 1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192}) {
			t.Errorf("%s offsets %v", plt, offsets)
		}
		for _, c := range centers {
			if c.I != 0 || c.J != 0 || c.K != 0 {
				t.Errorf("%s boxcenter %v", plt, centers)
			}
		}
		checkSeeded(t, plt, "/level_0/data:datatype=0", plan.Float64, i, 8192)
		checkChunking(t, plt, "/level_0/data:datatype=0", nil, 0, true)

		part := filepath.Join(out, fmt.Sprintf("plt%05d", i), "particle0", "particle0.h5")
		checkTree(t, part, map[string]node{
			"/Chombo_global": {}, "/level_0": {},
			"/level_0/boxes":           {boxCompound, []uint64{8}},
			"/level_0/data:datatype=0": {plan.I32, []uint64{4096 * 6}},
			"/level_0/data:datatype=1": {plan.F64, []uint64{4096 * 15}},
			"/level_0/nparticles_grid": {plan.I32, []uint64{8}},
		})
		proot := map[string]attr{
			"version_name": str("Version_Two_Dot_One_double"), "num_component": i32(16), "num_component_real": i32(12),
			"num_component_int": i32(4), "nparticles": i64(4096), "maxnextid": i64(int64(4096/np + 4096%np + 1)), "finest_level": i32(0),
		}
		for c := 0; c < 12; c++ {
			proot[fmt.Sprintf("real_component_%d", c)] = str(fmt.Sprintf("particle_real_component_%d", c))
		}
		for c := 0; c < 4; c++ {
			proot[fmt.Sprintf("int_component_%d", c)] = str(fmt.Sprintf("particle_int_component_%d", c))
		}
		checkAttrs(t, part, "/", proot, "real_component_12", "int_component_4")
		checkAttrs(t, part, "/Chombo_global", map[string]attr{"SpaceDim": i32(3)})
		checkAttrs(t, part, "/level_0", map[string]attr{"ngrids": i32(8)})
		if got := readBoxes(t, part, "/level_0/boxes", 8); !reflect.DeepEqual(got, exampleBoxes()) {
			t.Errorf("%s boxes %v", part, got)
		}
		counts := make([]int32, 8)
		if err := inspect.Read(part, "/level_0/nparticles_grid", &counts); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(counts, []int32{512, 512, 512, 512, 512, 512, 512, 512}) {
			t.Errorf("%s nparticles_grid %v", part, counts)
		}
		checkSeeded(t, part, "/level_0/data:datatype=0", plan.Int32, 2+i, 4096*6)
		checkSeeded(t, part, "/level_0/data:datatype=1", plan.Float64, 2+i, 4096*15)
		checkChunking(t, part, "/level_0/boxes", nil, 0, true)
	}
}

// checkAMReXLevels checks the two-level compressed files against the pattern's plans and
// the box lists: level datasets, chunking, attributes and every value.
func checkAMReXLevels(t *testing.T, dir, out string, np int) {
	t.Helper()
	t.Chdir(dir)
	cfg := amrexConfig(t, amrexLevels, out)
	pat, err := cfg.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	ap := pat.(*amrex.Pattern)
	plt := filepath.Join(out, "plt00000.h5")
	fine := amrex.NewBox(0, 0, 0, 31, 31, 31)
	checkAttrs(t, plt, "/", map[string]attr{"finest_level": i32(1), "num_levels": i32(2), "num_components": i32(3)})
	checkAttrs(t, plt, "/level_0", map[string]attr{"ref_ratio": i32(2), "ngrid": i32(2), "dx": f64(1.0 / 16)})
	checkAttrs(t, plt, "/level_1", map[string]attr{"ref_ratio": i32(1), "ngrid": i32(2), "dx": f64(1.0 / 32),
		"prob_domain": {boxCompound, nil, le32(0, 0, 0, 31, 31, 31)}})
	want := map[string]node{"/Chombo_global": {}}
	for l, cells := range []int{16 * 16 * 16, 2 * 8 * 16 * 16} {
		g := fmt.Sprintf("/level_%d", l)
		want[g] = node{}
		want[g+"/boxes"] = node{boxCompound, []uint64{2}}
		want[g+"/boxcenter"] = node{centerCompound, []uint64{2}}
		want[g+"/data:offsets=0"] = node{plan.I64, []uint64{3}}
		want[g+"/data:datatype=0"] = node{plan.F64, []uint64{uint64(cells * 3)}}
		checkChunking(t, plt, g+"/data:datatype=0", []uint64{1024}, 3, true)
		checkSeeded(t, plt, g+"/data:datatype=0", plan.Float64, 0, cells*3)
	}
	checkTree(t, plt, want)
	if got := readBoxes(t, plt, "/level_1/boxes", 2); len(got) != 2 || !fine.Contains(got[0]) || got[0].NumPts() != 2048 {
		t.Errorf("level 1 boxes %v", got)
	}
	part := filepath.Join(out, "plt00000", "particle0", "particle0.h5")
	counts := amrex.ParticleCounts(ap.C.Levels, ap.C.Particles())
	pwant := map[string]node{"/Chombo_global": {}}
	for l := range counts {
		g := fmt.Sprintf("/level_%d", l)
		var n uint64
		for _, c := range counts[l] {
			n += c
		}
		pwant[g] = node{}
		pwant[g+"/boxes"] = node{boxCompound, []uint64{2}}
		pwant[g+"/data:datatype=0"] = node{plan.I32, []uint64{n * 6}}
		pwant[g+"/data:datatype=1"] = node{plan.F64, []uint64{n * 15}}
		pwant[g+"/nparticles_grid"] = node{plan.I32, []uint64{2}}
		checkChunking(t, part, g+"/data:datatype=1", []uint64{1024}, 3, false)
		checkChunking(t, part, g+"/nparticles_grid", nil, 0, false)
		checkSeeded(t, part, g+"/data:datatype=1", plan.Float64, 1, int(n*15))
		if got := readBoxes(t, part, g+"/boxes", 2); !reflect.DeepEqual(got, ap.C.Levels[l].Boxes) {
			t.Errorf("%s %s boxes %v, want %v", part, g, got, ap.C.Levels[l].Boxes)
		}
	}
	checkTree(t, part, pwant)
	checkAttrs(t, part, "/", map[string]attr{"finest_level": i32(1), "nparticles": i64(2 * 16 * 16 * 16),
		"maxnextid": i64(int64(8192/np + 8192%np + 1))})
}

// checkChunking checks a dataset's chunk shape, deflate level and fill time through HDF5
// (gonum cannot see them).
func checkChunking(t *testing.T, file, dset string, chunk []uint64, deflate int, fillNever bool) {
	t.Helper()
	info := datasetInfo(t, file, dset)
	if !reflect.DeepEqual(info.Chunk, chunk) || info.Deflate != deflate || info.FillNever != fillNever {
		t.Errorf("%s %s: chunk %v deflate %d fill-never %v, want %v %d %v", file, dset, info.Chunk, info.Deflate, info.FillNever, chunk, deflate, fillNever)
	}
}

// TestAMReXLayouts runs the example (plotfiles whose header rank 0 creates alone before
// every rank reopens them) under the mpiio, posix, log and subfiling layouts in sync and async
// mode at 1, 2 and 4 ranks (and the subfiling VFD in sync mode where built), reading everything back verified; rank 0 then turns the log
// and subfiled files into plain ones (replay, fuse), which the parent checks like native
// files: structure, attributes and values.
func TestAMReXLayouts(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, rankCounts...) {
		if !inspect.Available() {
			t.Skip("independent reader not built (gonum tag)")
		}
		for _, np := range rankCounts {
			for _, layout := range strategyLayouts {
				checkAMReXExample(t, amrexOut(dir, layout+"-plain", np), np)
			}
		}
		return
	}
	size := world(t).Size()
	both := []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}
	for _, layout := range append([]string{"mpiio", "posix"}, strategyLayouts...) {
		for _, mode := range []string{"sync", "async"} {
			out := amrexOut(dir, layout+"-"+mode, size)
			runAMReX(t, amrexConfig(t, amrexExample+";verify=yes;mode="+mode+layoutKV(layout, size), out, both...))
		}
	}
	if proxy.LayoutAvailable("subfiling-vfd") == nil { // the headers go through the VFD on rank 0 alone
		runAMReX(t, amrexConfig(t, amrexExample+";verify=yes;layout=subfiling-vfd", amrexOut(dir, "subfiling-vfd-sync", size), both...))
	}
	if world(t).Rank() != 0 {
		return
	}
	for _, layout := range strategyLayouts {
		convert := logl.Replay
		if layout == "subfiling" {
			convert = subfiling.Fuse
		}
		in, out := amrexOut(dir, layout+"-sync", size), amrexOut(dir, layout+"-plain", size)
		for i := 0; i < 2; i++ {
			for _, f := range []string{fmt.Sprintf("plt%05d.h5", i), filepath.Join(fmt.Sprintf("plt%05d", i), "particle0", "particle0.h5")} {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(out, f)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := convert(filepath.Join(in, f), filepath.Join(out, f)); err != nil {
					t.Fatalf("%s %s: %v", layout, f, err)
				}
			}
		}
	}
}

// TestAMReXInputFile: the launcher's input file (Config.Inputs, as the h5bench adapter sets
// it) is written by rank 0 with its text and read before the write (input_file); a missing
// input file fails every rank before any I/O, naming the key and the path.
func TestAMReXInputFile(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	size := world(t).Size()
	ini := filepath.Join(dir, fmt.Sprintf("amrex-np%d.ini", size))
	text := "ncells = 16\nmax_grid_size = 8\n"
	cfg := amrexConfig(t, amrexExample+";input_file="+ini, amrexOut(dir, "input", size), patterns.PhaseWrite)
	cfg.Inputs = []proxy.InputFile{{Path: ini, Text: text}}
	runAMReX(t, cfg)
	if got, err := os.ReadFile(ini); err != nil || string(got) != text {
		t.Errorf("%s: %q, %v; want %q", ini, got, err, text)
	}
	missing := filepath.Join(dir, "none.ini")
	s := session(t, amrexConfig(t, amrexExample+";input_file="+missing, amrexOut(dir, "missing", size), patterns.PhaseWrite))
	err := s.Run()
	if err == nil || !strings.Contains(err.Error(), "input_file="+missing) {
		t.Errorf("input_file of a missing file: %v, want an error naming input_file=%s", err, missing)
	}
	if _, serr := os.Stat(filepath.Join(amrexOut(dir, "missing", size), "plt00000.h5")); serr == nil {
		t.Errorf("a plotfile was written after the input file failed")
	}
	s.Close()
}
