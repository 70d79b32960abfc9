package proxy_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/openpmd"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
)

// opmdCase is one openPMD configuration written and read back end to end. The expected
// structure is written out here from layouts.md section 3, independently of the pattern.
type opmdCase struct {
	name   string
	kv     string
	dim    int
	global []uint64
	n      uint64 // particles
	enc    string // v, g, f
	steps  int
	// reads is the number of bytes all ranks read per processed iteration (iterations 1,
	// 6, 11, ...) given the rank count.
	reads func(R int) uint64
}

var opmdCases = []opmdCase{
	// The h5bench sample's shape, smaller: 3-D variable-based, rho slices along y.
	{"v3", "dim=3;minBlock=2 3 4;grid=4 4 2;pattern=sy", 3, []uint64{8, 12, 8}, 768, "v", 1,
		func(R int) uint64 { return uint64(R) * 8 * 8 * 8 }},
	// 2-D group-based, 6 iterations, unbalanced, one chunk per mini block, ratio 2.
	{"g2u", "dim=2;minBlock=3 2;grid=4 4;encoding=g;steps=6;balanced=false;rankBlocks=false;ratio=2;pattern=sx", 2, []uint64{12, 8}, 192, "g", 6,
		func(R int) uint64 { return uint64(R) * 8 * 8 }},
	// 3-D file-based, collective transfers, unbalanced, slices of B along z.
	{"f3c", "dim=3;minBlock=2 2 2;grid=4 2 2;encoding=f;steps=2;balanced=false;OPENPMD_HDF5_INDEPENDENT=OFF;pattern=fz", 3, []uint64{8, 4, 4}, 128, "f", 2,
		func(R int) uint64 { return uint64(R) * 3 * 8 * 4 * 8 }},
	// 1-D group-based, ratio 3: the slice of a 1-D mesh is the whole mesh.
	{"g1", "dim=1;minBlock=5;grid=8;encoding=g;steps=2;ratio=3;pattern=sx", 1, []uint64{40}, 120, "g", 2,
		func(R int) uint64 { return uint64(R) * 40 * 8 }},
}

func opmdConfig(t *testing.T, kv, file string) proxy.Config {
	t.Helper()
	kvs, err := proxy.ParseKV(kv + ";file=" + file)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := proxy.ParseOptions("openpmd", kvs)
	if err != nil {
		t.Fatalf("%s: %v", kv, err)
	}
	return cfg
}

// writtenBytes is what all ranks write per iteration: every mesh element once (3
// components of E and B per dimension, and rho) and charge, id, position/x per particle.
func (c opmdCase) writtenBytes() uint64 {
	return (uint64(2*c.dim+1)*plan.Product(c.global) + 3*c.n) * 8
}

// files lists the series' files and the iterations each holds.
func (c opmdCase) files(series string) map[string][]int {
	out := map[string][]int{}
	for it := 1; it <= c.steps; it++ {
		f := series
		if c.enc == "f" {
			f = strings.TrimSuffix(series, ".h5") + fmt.Sprintf("_%07d.h5", it)
		}
		out[f] = append(out[f], it)
	}
	return out
}

func (c opmdCase) iterPath(it int) string {
	if c.enc == "v" {
		return "/data"
	}
	return fmt.Sprintf("/data/%d", it)
}

// TestOpenPMDWriteRead writes openPMD series at 1, 2 and 4 ranks under every mode, reads
// them back through the proxy with the 8b patterns and element-by-element verification,
// checks the reduced byte counts, then (in the parent) re-reads every file independently:
// structure and values with gonum.org/v1/hdf5, attributes with a serial HDF5 open.
func TestOpenPMDWriteRead(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, rankCounts...) {
		for _, np := range rankCounts {
			for _, mode := range modes {
				for _, c := range opmdCases {
					checkOpenPMD(t, c, filepath.Join(dir, fmt.Sprintf("%s-%s-np%d.h5", c.name, mode, np)))
				}
			}
		}
		return
	}
	size := world(t).Size()
	for _, mode := range modes {
		for _, c := range opmdCases {
			runOpenPMD(t, c, "mode="+mode, filepath.Join(dir, fmt.Sprintf("%s-%s-np%d.h5", c.name, mode, size)), size)
		}
	}
}

// TestOpenPMDLayouts runs every openPMD case under the posix, log and subfiling layouts in
// sync and async mode at 1, 2 and 4 ranks: writes, then 8b reads verified element by
// element.
func TestOpenPMDLayouts(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, rankCounts...) {
		return
	}
	size := world(t).Size()
	for _, layout := range append([]string{"posix"}, strategyLayouts...) {
		for _, mode := range []string{"sync", "async"} {
			for _, c := range opmdCases {
				file := filepath.Join(dir, fmt.Sprintf("%s-%s-%s-np%d.h5", c.name, layout, mode, size))
				runOpenPMD(t, c, "mode="+mode+layoutKV(layout, size), file, size)
			}
		}
	}
}

// runOpenPMD writes and reads one case with extra session options and checks the report:
// byte counts of both phases, verified reads, metadata time.
func runOpenPMD(t *testing.T, c opmdCase, extra, file string, size int) {
	t.Helper()
	cfg := opmdConfig(t, c.kv+";"+extra, file)
	cfg.Phases = []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}
	rep := runReport(t, cfg, c.name+" "+extra)
	processed := uint64((c.steps + 4) / 5)
	w, r := rep.Phases[0], rep.Phases[1]
	if want := float64(c.writtenBytes() * uint64(c.steps)); w.Bytes != want {
		t.Errorf("%s %s: wrote %v bytes, want %v", c.name, extra, w.Bytes, want)
	}
	if want := float64(c.reads(size) * processed); r.Bytes != want {
		t.Errorf("%s %s: read %v bytes, want %v", c.name, extra, r.Bytes, want)
	}
	if !r.Verified || r.Mismatches != 0 || len(r.PerStep) != c.steps {
		t.Errorf("%s %s read: verified=%v mismatches=%v steps=%d", c.name, extra, r.Verified, r.Mismatches, len(r.PerStep))
	}
	if w.MetadataTime.Max <= 0 {
		t.Errorf("%s %s: no metadata time", c.name, extra)
	}
	// the attribute writes' objects are opened with H5Oopen and closed with H5Oclose
	objects := plannedWhere(t, cfg, patterns.PhaseWrite, size, func(op plan.Op) bool {
		return op.AsObject && (op.Kind == plan.OpenGroup || op.Kind == plan.OpenDataset)
	})
	if o, cl := callCount(w.Census, "H5Oopen"), callCount(w.Census, "H5Oclose"); objects == 0 || o.Count != objects || cl.Count != objects {
		t.Errorf("%s %s: census H5Oopen %v, H5Oclose %v, want the %v planned", c.name, extra, o.Count, cl.Count, objects)
	}
}

// TestOpenPMDOtherRankCount reads with 1 and 2 ranks series written by 4: the read takes
// the extents from the file and the values depend on global indices only.
func TestOpenPMDOtherRankCount(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 4) {
		mpitest.Run(t, 1, 2)
		return
	}
	size := world(t).Size()
	for _, c := range opmdCases[:3] {
		file := filepath.Join(dir, c.name+"-shared.h5")
		if size == 4 {
			cfg := opmdConfig(t, c.kv, file)
			cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
			s := session(t, cfg)
			if err := s.Run(); err != nil {
				t.Fatal(err)
			}
			s.Close()
			continue
		}
		// The reader knows the encoding, steps and pattern, not the mesh.
		var keep []string
		for _, kv := range strings.Split(c.kv, ";") {
			if k, _, _ := strings.Cut(kv, "="); k == "encoding" || k == "steps" || k == "pattern" || k == "OPENPMD_HDF5_INDEPENDENT" {
				keep = append(keep, kv)
			}
		}
		cfg := opmdConfig(t, strings.Join(keep, ";")+";verify=yes", file)
		cfg.Phases = []patterns.Phase{patterns.PhaseRead}
		s := session(t, cfg)
		if err := s.Run(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		rep, err := s.Report()
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if r := rep.Phases[0]; !r.Verified || r.Mismatches != 0 || r.Bytes != float64(c.reads(size)*uint64((c.steps+4)/5)) {
			t.Errorf("%s at %d ranks: verified=%v mismatches=%v bytes=%v", c.name, size, r.Verified, r.Mismatches, r.Bytes)
		}
	}
}

// wantNodes is the expected tree of a file holding iterations its (gonum's view: paths,
// types, shapes; groups have no type).
func (c opmdCase) wantNodes(its []int) []inspect.Node {
	ds := func(p string, t plan.Type, shape []uint64) inspect.Node {
		return inspect.Node{Path: p, Dataset: true, Type: t, Shape: shape, MaxShape: shape}
	}
	nodes := []inspect.Node{{Path: "/data"}}
	for _, it := range its {
		ip := c.iterPath(it)
		if ip != "/data" {
			nodes = append(nodes, inspect.Node{Path: ip})
		}
		nodes = append(nodes, inspect.Node{Path: ip + "/fields"})
		for _, rec := range []string{"B", "E"} {
			nodes = append(nodes, inspect.Node{Path: ip + "/fields/" + rec})
			for _, ax := range []string{"x", "y", "z"}[:c.dim] {
				nodes = append(nodes, ds(ip+"/fields/"+rec+"/"+ax, plan.F64, c.global))
			}
		}
		sp := ip + "/particles/ion"
		nodes = append(nodes, ds(ip+"/fields/rho", plan.F64, c.global), inspect.Node{Path: ip + "/particles"}, inspect.Node{Path: sp},
			ds(sp+"/charge", plan.F64, []uint64{c.n}), ds(sp+"/id", plan.U64, []uint64{c.n}),
			inspect.Node{Path: sp + "/position"}, ds(sp+"/position/x", plan.F64, []uint64{c.n}),
			inspect.Node{Path: sp + "/positionOffset"}, inspect.Node{Path: sp + "/positionOffset/x"})
	}
	return nodes
}

// checkOpenPMD re-reads the files of one run with the independent readers.
func checkOpenPMD(t *testing.T, c opmdCase, series string) {
	t.Helper()
	cfg := opmdConfig(t, c.kv, series)
	pat, err := cfg.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	for file, its := range c.files(series) {
		tree, err := inspect.Tree(file)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		want := c.wantNodes(its)
		gotPaths, wantPaths := map[string]inspect.Node{}, map[string]inspect.Node{}
		for _, n := range tree {
			gotPaths[n.Path] = n
		}
		for _, n := range want {
			wantPaths[n.Path] = n
		}
		for p, w := range wantPaths {
			g, ok := gotPaths[p]
			if !ok {
				t.Errorf("%s: %s missing", file, p)
				continue
			}
			if g.Dataset != w.Dataset || !g.Type.Equal(w.Type) || !reflect.DeepEqual(g.Shape, w.Shape) || !reflect.DeepEqual(g.MaxShape, w.MaxShape) {
				t.Errorf("%s %s: %+v, want %+v", file, p, g, w)
			}
		}
		for p := range gotPaths {
			if _, ok := wantPaths[p]; !ok {
				t.Errorf("%s: unexpected object %s", file, p)
			}
		}
		for _, it := range its {
			checkOpenPMDValues(t, c, file, it, cfg.Seed)
		}
		checkOpenPMDAttributes(t, c, pat.(*openpmd.Pattern), file, its)
	}
}

// checkOpenPMDValues compares every element of every dataset of an iteration with the
// seeded value of its record (variable = path below the iteration, step = iteration - 1).
func checkOpenPMDValues(t *testing.T, c opmdCase, file string, it int, seed uint64) {
	t.Helper()
	ip := c.iterPath(it)
	var recs []string
	for _, rec := range []string{"B", "E"} {
		for _, ax := range []string{"x", "y", "z"}[:c.dim] {
			recs = append(recs, "fields/"+rec+"/"+ax)
		}
	}
	recs = append(recs, "fields/rho", "particles/ion/charge", "particles/ion/position/x")
	for _, v := range recs {
		var got []float64
		n := plan.Product(c.global)
		if strings.HasPrefix(v, "particles") {
			n = c.n
		}
		got = make([]float64, n)
		if err := inspect.Read(file, ip+"/"+v, &got); err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		for g := range got {
			if want := emulate.Value(plan.Float64, seed, v, it-1, uint64(g)); got[g] != want {
				t.Errorf("%s %s/%s element %d = %v, want %v", file, ip, v, g, got[g], want)
				break
			}
		}
	}
	ids := make([]uint64, c.n)
	if err := inspect.Read(file, ip+"/particles/ion/id", &ids); err != nil {
		t.Errorf("%s: %v", file, err)
		return
	}
	for g := range ids {
		if want := emulate.Bits(seed, "particles/ion/id", it-1, uint64(g)); ids[g] != want {
			t.Errorf("%s %s id %d = %d, want %d", file, ip, g, ids[g], want)
			break
		}
	}
}

// wantAttr is an expected attribute: type notation, shape (nil: scalar) and value
// (string, []string, float64, []float64, float32, int32, uint32, uint64, []uint64; nil
// skips the value).
type wantAttr struct {
	typ   string
	shape []uint64
	value any
}

func attrValue(a plan.AttributeSpec) any {
	le := binary.LittleEndian
	n := int(plan.Product(a.Shape))
	switch a.Type.Class {
	case plan.String:
		var ss []string
		for i := 0; i < n; i++ {
			ss = append(ss, strings.TrimRight(string(a.Value[i*a.Type.Size:(i+1)*a.Type.Size]), "\x00"))
		}
		if a.Shape == nil {
			return ss[0]
		}
		return ss
	case plan.Float64:
		var fs []float64
		for i := 0; i < n; i++ {
			fs = append(fs, math.Float64frombits(le.Uint64(a.Value[8*i:])))
		}
		if a.Shape == nil {
			return fs[0]
		}
		return fs
	case plan.Uint64:
		var us []uint64
		for i := 0; i < n; i++ {
			us = append(us, le.Uint64(a.Value[8*i:]))
		}
		if a.Shape == nil {
			return us[0]
		}
		return us
	case plan.Float32:
		return math.Float32frombits(le.Uint32(a.Value))
	case plan.Int32:
		return int32(le.Uint32(a.Value))
	case plan.Uint32:
		return le.Uint32(a.Value)
	}
	return nil
}

// checkOpenPMDAttributes reads the attributes layouts.md 3.1/3.3/3.4 require through a
// serial HDF5 open and compares type, shape and value (not date and software strings).
func checkOpenPMDAttributes(t *testing.T, c opmdCase, p *openpmd.Pattern, file string, its []int) {
	t.Helper()
	f, err := h5.OpenFile(file, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Errorf("%s: %v", file, err)
		return
	}
	defer h5.CloseFile(f)
	check := func(obj string, group bool, want map[string]wantAttr) {
		loc := f
		if obj != "/" {
			open, cl := h5.OpenDataset, h5.CloseDataset
			if group {
				open, cl = h5.OpenGroup, h5.CloseGroup
			}
			id, err := open(f, obj)
			if err != nil {
				t.Errorf("%s %s: %v", file, obj, err)
				return
			}
			defer cl(id)
			loc = id
		}
		for name, w := range want {
			a, err := h5.ReadAttribute(loc, name)
			if err != nil {
				t.Errorf("%s %s @%s: %v", file, obj, name, err)
				continue
			}
			if a.Type.String() != w.typ || !reflect.DeepEqual(a.Shape, w.shape) {
				t.Errorf("%s %s @%s: %s %v, want %s %v", file, obj, name, a.Type, a.Shape, w.typ, w.shape)
				continue
			}
			if v := attrValue(a); w.value != nil && !reflect.DeepEqual(v, w.value) {
				t.Errorf("%s %s @%s = %#v, want %#v", file, obj, name, v, w.value)
			}
		}
	}
	enc := map[string]string{"v": "variableBased", "g": "groupBased", "f": "fileBased"}[c.enc]
	format := map[string]string{"v": "/data", "g": "/data/%T/", "f": strings.TrimSuffix(filepath.Base(file), fmt.Sprintf("_%07d.h5", its[0])) + "_%07T"}[c.enc]
	str := func(s string) wantAttr { return wantAttr{fmt.Sprintf("str(%d)", len(s)+1), nil, s} }
	check("/", true, map[string]wantAttr{
		"openPMD": str("1.1.0"), "openPMDextension": {"u32", nil, uint32(0)}, "basePath": str("/data/%T/"),
		"meshesPath": str("fields/"), "particlesPath": str("particles/"), "iterationEncoding": str(enc), "iterationFormat": str(format),
		"date": {"str(26)", nil, nil}, "software": {"str(12)", nil, nil}, "softwareVersion": {"str(7)", nil, nil},
	})
	f64 := func(x float64) wantAttr { return wantAttr{"f64", nil, x} }
	f64s := func(xs ...float64) wantAttr { return wantAttr{"f64", []uint64{uint64(len(xs))}, xs} }
	f32z := wantAttr{"f32", nil, float32(0)}
	mesh := map[string]wantAttr{
		"geometry": str("cartesian"), "dataOrder": str("C"), "axisLabels": {"str(2)", []uint64{1}, []string{"x"}},
		"gridSpacing": f64s(1), "gridGlobalOffset": f64s(0), "gridUnitSI": f64(1), "timeOffset": f32z, "unitDimension": f64s(0, 0, 0, 0, 0, 0, 0),
	}
	comp := map[string]wantAttr{"position": f64s(0), "unitSI": f64(1)}
	for _, it := range its {
		ip := c.iterPath(it)
		iter := map[string]wantAttr{"dt": f64(1), "time": f64(0), "timeUnitSI": f64(1)}
		if c.enc == "v" {
			iter["snapshot"] = wantAttr{"u64", nil, uint64(it)}
		}
		check(ip, true, iter)
		for _, rec := range []string{"B", "E"} {
			check(ip+"/fields/"+rec, true, mesh)
			for _, ax := range []string{"x", "y", "z"}[:c.dim] {
				check(ip+"/fields/"+rec+"/"+ax, false, comp)
			}
		}
		rho := map[string]wantAttr{}
		for k, v := range mesh {
			rho[k] = v
		}
		for k, v := range comp {
			rho[k] = v
		}
		check(ip+"/fields/rho", false, rho)
		sp := ip + "/particles/ion"
		ratio := int32(c.n / plan.Product(c.global))
		check(sp, true, map[string]wantAttr{"particleSmoothing": str("none"), "openPMD_STEP": {"i32", nil, int32(it)}, "p2mRatio": {"i32", nil, ratio}})
		dimless := map[string]wantAttr{"unitSI": f64(1), "timeOffset": f32z, "unitDimension": f64s(0, 0, 0, 0, 0, 0, 0)}
		check(sp+"/charge", false, dimless)
		check(sp+"/id", false, dimless)
		length := map[string]wantAttr{"timeOffset": f32z, "unitDimension": f64s(1, 0, 0, 0, 0, 0, 0)}
		check(sp+"/position", true, length)
		check(sp+"/positionOffset", true, length)
		check(sp+"/position/x", false, map[string]wantAttr{"unitSI": f64(1)})
		check(sp+"/positionOffset/x", true, map[string]wantAttr{"value": f64(0), "shape": {"u64", []uint64{1}, []uint64{c.n}}, "unitSI": f64(1)})
		// Chunking and fill time as the plan says (openPMD-api's automatic chunks).
		pl, err := p.Step(patterns.PhaseWrite, it-1, patterns.Env{Rank: 0, Size: 1, Path: file})
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range pl.Ops {
			if op.Kind != plan.CreateDataset {
				continue
			}
			d, err := h5.OpenDataset(f, op.Path)
			if err != nil {
				t.Errorf("%s: %v", op.Path, err)
				continue
			}
			info, err := h5.DatasetInfo(d)
			h5.CloseDataset(d)
			if err != nil || !reflect.DeepEqual(info.Chunk, op.Dataset.Chunk) || info.Chunk == nil || !info.FillNever || info.Deflate != 0 {
				t.Errorf("%s %s: chunk %v fill-never %v deflate %d (%v), want chunk %v", file, op.Path, info.Chunk, info.FillNever, info.Deflate, err, op.Dataset.Chunk)
			}
		}
	}
}
