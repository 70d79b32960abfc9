package e3sm

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// caseTable is layouts.md 4.1: variables per decomposition, partitioned, not partitioned,
// fixed and record, per history file.
var caseTable = []struct {
	c, hist              string
	perDecomp            []int
	part, notPart, fixed int
	record               int
}{
	{"F", "h0", []int{1, 323, 63}, 387, 27, 15, 399},
	{"F", "h1", []int{1, 22, 1}, 24, 27, 15, 36},
	{"G", "", []int{6, 2, 25, 2, 2, 4}, 41, 11, 11, 41},
	{"I", "h0", []int{465, 75, 4, 1, 1}, 546, 14, 18, 542},
	{"I", "h1", []int{465, 69, 2, 1, 1}, 538, 14, 10, 542},
}

func synth(t *testing.T, c string, nprocs int) *Map {
	t.Helper()
	m, err := Synthesize(SynthSpec{Case: c, NProcs: nprocs, NE: 2, Lev: 5, Cells: 30, GLev: 4, Lat: 10, Lon: 16, Land: 0.41})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestVariableCounts checks every history file against layouts.md's table.
func TestVariableCounts(t *testing.T) {
	for _, row := range caseTable {
		h, err := buildHistory(row.c, row.hist, synth(t, row.c, 3), false, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := h.Counts(len(row.perDecomp))
		if fmt.Sprint(got.PerDecomp) != fmt.Sprint(row.perDecomp) || got.Partitioned != row.part ||
			got.NotPartition != row.notPart || got.Fixed != row.fixed || got.Record != row.record {
			t.Errorf("%s %s: %+v, want per decomposition %v, %d/%d partitioned/not, %d/%d fixed/record",
				row.c, row.hist, got, row.perDecomp, row.part, row.notPart, row.fixed, row.record)
		}
		seen := map[string]bool{}
		for _, v := range h.Vars {
			if seen[v.Name] {
				t.Errorf("%s %s: variable %s defined twice", row.c, row.hist, v.Name)
			}
			seen[v.Name] = true
		}
	}
}

// TestFNamesAndAttributes spot-checks transcribed F variables: names, dims, decomposition
// and attribute lists in the real header's order.
func TestFNamesAndAttributes(t *testing.T) {
	h, err := buildHistory("F", "h0", synth(t, "F", 2), false, 1)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Var{}
	for i := range h.Vars {
		byName[h.Vars[i].Name] = &h.Vars[i]
	}
	attrs := func(v *Var) string {
		var s []string
		for _, a := range v.Attrs {
			s = append(s, a.Name)
		}
		return strings.Join(s, ",")
	}
	cases := []struct {
		name, dims string
		decomp     int
		attrs      string
		typ        plan.Type
	}{
		{"lat", "ncol", 2, "long_name,units", plan.F64},
		{"area", "ncol", 1, "long_name", plan.F64},
		{"P0", "", 0, "long_name,units", plan.F64},
		{"date_written", "time,chars", 0, "", plan.I8},
		{"QRL", "time,lev,ncol", 3, "mdims,Sampling_Sequence,_FillValue,missing_value,units,long_name,cell_methods", plan.F64},
		{"AODVIS", "time,ncol", 2, "_FillValue,missing_value,long_name,standard_name,cell_methods", plan.F64},
		{"CLDICE", "time,lev,ncol", 3, "mdims,units,mixing_ratio,long_name,cell_methods", plan.F64},
		{"num_a1_SRF", "time,ncol", 2, "units,long_name,cell_methods", plan.F64},
		{"soa_c3SFWET", "time,ncol", 2, "units,long_name,cell_methods", plan.F64},
	}
	for _, c := range cases {
		v := byName[c.name]
		if v == nil {
			t.Errorf("F h0 has no %s", c.name)
			continue
		}
		if strings.Join(v.Dims, ",") != c.dims || v.Decomp != c.decomp || attrs(v) != c.attrs || !v.Type.Equal(c.typ) {
			t.Errorf("%s: dims %v D%d attrs %s type %s; want %s D%d %s %s", c.name, v.Dims, v.Decomp, attrs(v), v.Type, c.dims, c.decomp, c.attrs, c.typ)
		}
	}
	if got := string(byName["num_a1_SRF"].Attrs[0].Value); got != " 1/kg\x00" {
		t.Errorf("num_a1_SRF units %q", got)
	}
	if h.Vars[len(h.Vars)-1].Name != "soa_c3SFWET" || h.Vars[30].Name != "AEROD_v" {
		t.Errorf("definition order: var 30 %s, last %s", h.Vars[30].Name, h.Vars[len(h.Vars)-1].Name)
	}
	var globals []string
	for _, g := range h.Globals {
		globals = append(globals, g.Name)
	}
	want := "ne,np,title,source,source_id,product,realm,case,username,hostname,git_version,history,Conventions,institution_id,institution,contact,initial_file,topography_file,time_period_freq"
	if strings.Join(globals, ",") != want {
		t.Errorf("F globals %v", globals)
	}
	// j switches partitioned record variables (only) to float.
	hf, _ := buildHistory("F", "h1", synth(t, "F", 2), true, 1)
	for _, v := range hf.Vars {
		want := plan.F64
		switch {
		case v.Decomp > 0 && v.Record:
			want = plan.F32
		case v.Type.Class == plan.Int32 || v.Type.Class == plan.Int8:
			want = v.Type
		}
		if !v.Type.Equal(want) {
			t.Errorf("j=YES: %s is %s, want %s", v.Name, v.Type, want)
		}
	}
	hg, _ := buildHistory("G", "", synth(t, "G", 2), true, 1)
	for _, v := range hg.Vars {
		if v.Decomp > 0 && v.Record && !v.Type.Equal(plan.F64) {
			t.Errorf("G %s is %s: G is always double", v.Name, v.Type)
		}
	}
}

// TestAttributeEncoding checks the HDF5 encodings of text, numeric and -DIM_ attributes.
func TestAttributeEncoding(t *testing.T) {
	a := TextAttr("units", "W/m2")
	if a.Type.Class != plan.String || a.Type.Size != 5 || a.Shape != nil || string(a.Value) != "W/m2\x00" {
		t.Errorf("text attribute %+v", a)
	}
	n := NumAttr("mdims", plan.I32, 1)
	if fmt.Sprint(n.Shape) != "[1]" || len(n.Value) != 4 || n.Value[0] != 1 {
		t.Errorf("numeric attribute %+v", n)
	}
	d := DimAttr(Dim{"time", 0})
	if d.Name != "-DIM_time" || d.Shape != nil || !d.Type.Equal(plan.U64) || fmt.Sprint(d.Value) != "[255 255 255 255 255 255 255 255]" {
		t.Errorf("unlimited dimension attribute %+v", d)
	}
	if d := DimAttr(Dim{"ncol", 866}); d.Value[0] != 866%256 || d.Value[1] != 866/256 {
		t.Errorf("ncol attribute %+v", d)
	}
}

// TestFillValueTypes pins E3SM-IO's rule that a _FillValue has its variable's type (50
// double ones in F h0 and 3 in F h1, 546 in I h0 and 538 in I h1, float with j) while
// missing_value stays float (int for int variables), and that the value survives the
// conversion.
func TestFillValueTypes(t *testing.T) {
	for _, tc := range []struct {
		c, hist string
		float   bool
		want    plan.Type
		count   int
	}{
		{"F", "h0", false, plan.F64, 50},
		{"F", "h1", false, plan.F64, 3},
		{"F", "h0", true, plan.F32, 50},
		{"G", "", false, plan.F64, -1},
		{"I", "h0", false, plan.F64, 546},
		{"I", "h1", false, plan.F64, 538},
		{"I", "h0", true, plan.F32, 546},
	} {
		h, err := buildHistory(tc.c, tc.hist, synth(t, tc.c, 2), tc.float, 1)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, v := range h.Vars {
			for _, a := range v.Attrs {
				switch a.Name {
				case "_FillValue":
					if !a.Type.Equal(v.Type) || len(a.Shape) != 1 || a.Shape[0] != 1 {
						t.Errorf("%s %s %s: _FillValue %s %v, variable %s", tc.c, tc.hist, v.Name, a.Type, a.Shape, v.Type)
					}
					if v.Type.Equal(tc.want) {
						n++
					}
					fill := map[string]float64{"F": 1e20, "I": 1e36}[tc.c]
					if fill != 0 && v.Type.Class == plan.Float64 && len(a.Value) == 8 {
						if got := math.Float64frombits(binary.NativeEndian.Uint64(a.Value)); got != float64(float32(fill)) {
							t.Errorf("%s %s %s: _FillValue %g, want %gf", tc.c, tc.hist, v.Name, got, fill)
						}
					}
				case "missing_value":
					want := plan.F32
					if v.Type.Class == plan.Int32 {
						want = plan.I32
					}
					if tc.c != "G" && !a.Type.Equal(want) {
						t.Errorf("%s %s %s: missing_value %s, want %s", tc.c, tc.hist, v.Name, a.Type, want)
					}
				}
			}
		}
		if tc.count >= 0 && n != tc.count {
			t.Errorf("%s %s (j=%v): %d _FillValue of %s, want %d", tc.c, tc.hist, tc.float, n, tc.want, tc.count)
		}
	}
}

// TestCharVariablesAreSignedBytes pins E3SM-IO's NC_CHAR variables (F and I date_written,
// time_written; G xtime) to H5T_NATIVE_CHAR, a signed byte, in the histories and in the
// CreateDataset ops of the write plan.
func TestCharVariablesAreSignedBytes(t *testing.T) {
	want := map[string][]string{
		"F": {"date_written", "time_written"},
		"G": {"xtime"},
		"I": {"date_written", "time_written"},
	}
	for c, names := range want {
		p := newPattern(t, options.KV{Key: "case", Value: c})
		env := patterns.Env{Rank: 0, Size: 1, Path: "/d/out.h5"}
		var ops []plan.Op
		for s := -1; s < p.Steps(); s++ {
			var pl plan.Plan
			var err error
			if s < 0 {
				pl, err = p.Begin(patterns.PhaseWrite, env)
			} else {
				pl, err = p.Step(patterns.PhaseWrite, s, env)
			}
			if err != nil {
				t.Fatal(err)
			}
			ops = append(ops, pl.Ops...)
		}
		created := map[string]int{}
		for _, op := range ops {
			if op.Kind != plan.CreateDataset {
				continue
			}
			for _, n := range names {
				if op.Path == "/"+n {
					created[n]++
					if !op.Dataset.Type.Equal(plan.I8) {
						t.Errorf("%s %s created as %s, want i8", c, n, op.Dataset.Type)
					}
				}
			}
		}
		for _, n := range names {
			if created[n] == 0 {
				t.Errorf("%s: no dataset %s created", c, n)
			}
		}
	}
}

// attr is an attribute as the tests compare it: name, type and value.
type attr struct {
	name string
	typ  plan.Type
	val  string // text, or the number formatted with %g
}

// show renders a transcribed attribute for comparison (doubles through float32, so that a
// table can say 1e+36 for 1e36f).
func show(a plan.AttributeSpec) attr {
	ne := binary.NativeEndian
	switch a.Type.Class {
	case plan.String:
		return attr{a.Name, a.Type, strings.TrimSuffix(string(a.Value), "\x00")}
	case plan.Float32:
		return attr{a.Name, a.Type, fmt.Sprintf("%g", math.Float32frombits(ne.Uint32(a.Value)))}
	case plan.Float64:
		return attr{a.Name, a.Type, fmt.Sprintf("%g", float32(math.Float64frombits(ne.Uint64(a.Value))))}
	case plan.Int32:
		return attr{a.Name, a.Type, fmt.Sprint(int32(ne.Uint32(a.Value)))}
	}
	return attr{a.Name, a.Type, fmt.Sprintf("%x", a.Value)}
}

// str is the type of a text attribute of value s.
func str(s string) plan.Type { return plan.Str(len(s) + 1) }

// TestINamesAndAttributes pins the I case to E3SM-IO's header: definition order, a sample
// of variables with their dimensions, decomposition, type and attributes (names, types,
// values), the D2 split between levgrnd and levdcmp, the dimensions and the global
// attributes of both files, and what j changes.
func TestINamesAndAttributes(t *testing.T) {
	m := synth(t, "I", 2)
	h0, err := buildHistory("I", "h0", m, false, 1)
	if err != nil {
		t.Fatal(err)
	}
	h1, err := buildHistory("I", "h1", m, false, 1)
	if err != nil {
		t.Fatal(err)
	}
	index := func(h *History) map[string]int {
		idx := map[string]int{}
		for i, v := range h.Vars {
			idx[v.Name] = i
		}
		return idx
	}
	i0, i1 := index(h0), index(h1)
	for _, o := range []struct {
		h    *History
		idx  map[string]int
		name string
		at   int
	}{
		{h0, i0, "landmask", 0}, {h0, i0, "landfrac", 9}, {h0, i0, "ZSOI", 10}, {h0, i0, "DZLAKE", 17},
		{h0, i0, "date_written", 18}, {h0, i0, "time", 26}, {h0, i0, "ACTUAL_IMMOB", 27}, {h0, i0, "plim_m", 559},
		{h1, i1, "landfrac", 9}, {h1, i1, "date_written", 10}, {h1, i1, "ACTUAL_IMMOB", 19}, {h1, i1, "plim_m", 551},
	} {
		if got, ok := o.idx[o.name]; !ok || got != o.at {
			t.Errorf("%s: %s at %d (present %v), want %d", o.h.Name, o.name, got, ok, o.at)
		}
	}
	for _, name := range []string{"ZSOI", "DZSOI", "WATSAT", "SUCSAT", "BSW", "HKSAT", "ZLAKE", "DZLAKE"} {
		if _, ok := i1[name]; ok {
			t.Errorf("h1 defines the h0-only %s", name)
		}
	}
	fill, miss := attr{"_FillValue", plan.F64, "1e+36"}, attr{"missing_value", plan.F32, "1e+36"}
	for _, c := range []struct {
		name, dims string
		decomp     int
		typ        plan.Type
		attrs      []attr
	}{
		{"landmask", "lat,lon", 1, plan.I32, []attr{{"long_name", str("land/ocean mask (0.=ocean and 1.=land)"), "land/ocean mask (0.=ocean and 1.=land)"},
			{"_FillValue", plan.I32, "-9999"}, {"missing_value", plan.I32, "-9999"}}},
		{"levdcmp", "levdcmp", 0, plan.F64, []attr{{"long_name", str("coordinate soil levels"), "coordinate soil levels"}, {"units", str("m"), "m"}}},
		{"lat", "lat", 0, plan.F64, []attr{{"long_name", str("coordinate latitude"), "coordinate latitude"},
			{"units", str("degrees_north"), "degrees_north"}, fill, miss}},
		{"landfrac", "lat,lon", 1, plan.F64, []attr{{"long_name", str("land fraction"), "land fraction"}, fill, miss}},
		{"WATSAT", "levgrnd,lat,lon", 2, plan.F64, []attr{{"long_name", str("saturated soil water content (porosity)"), "saturated soil water content (porosity)"},
			{"units", str("mm3/mm3"), "mm3/mm3"}, fill, miss}},
		{"ZLAKE", "levlak,lat,lon", 3, plan.F64, []attr{{"long_name", str("lake layer node depth"), "lake layer node depth"}, {"units", str("m"), "m"}, fill, miss}},
		{"date_written", "time,string_length", 0, plan.I8, nil},
		{"mcsec", "time", 0, plan.I32, []attr{{"long_name", str("current seconds of current date"), "current seconds of current date"}, {"units", str("s"), "s"}}},
		{"time_bounds", "time,hist_interval", 0, plan.F64, []attr{{"long_name", str("history time interval endpoints"), "history time interval endpoints"}}},
		{"time", "time", 0, plan.F64, []attr{{"long_name", str("time"), "time"}, {"units", str("days since 0001-01-01 00:00:00"), "days since 0001-01-01 00:00:00"},
			{"calendar", str("noleap"), "noleap"}, {"bounds", str("time_bounds"), "time_bounds"}}},
		{"ACTUAL_IMMOB", "time,lat,lon", 1, plan.F64, []attr{{"long_name", str("actual N immobilization"), "actual N immobilization"},
			{"units", str("gN/m^2/s"), "gN/m^2/s"}, {"cell_methods", str("time: mean"), "time: mean"}, fill, miss}},
		{"CWDC_vr", "time,levdcmp,lat,lon", 2, plan.F64, []attr{{"long_name", str("CWD C (vertically resolved)"), "CWD C (vertically resolved)"},
			{"units", str("gC/m^3"), "gC/m^3"}, {"cell_methods", str("time: mean"), "time: mean"}, fill, miss}},
		{"TSOI", "time,levgrnd,lat,lon", 2, plan.F64, []attr{{"long_name", str("soil temperature (vegetated landunits only)"), "soil temperature (vegetated landunits only)"},
			{"standard_name", str("soil_temperature"), "soil_temperature"}, {"units", str("K"), "K"}, {"cell_methods", str("time: mean"), "time: mean"}, fill, miss}},
		{"TLAKE", "time,levlak,lat,lon", 3, plan.F64, []attr{{"long_name", str("lake temperature"), "lake temperature"},
			{"units", str("K"), "K"}, {"cell_methods", str("time: mean"), "time: mean"}, fill, miss}},
		{"PCT_LANDUNIT", "time,ltype,lat,lon", 4, plan.F64, []attr{{"long_name", str("% of each landunit on grid cell"), "% of each landunit on grid cell"},
			{"units", str("%"), "%"}, {"cell_methods", str("time: mean"), "time: mean"}, fill, miss}},
		{"PCT_NAT_PFT", "time,natpft,lat,lon", 5, plan.F64, []attr{{"long_name", str("% of each PFT on the natural vegetation (i.e., soil) landunit"), "% of each PFT on the natural vegetation (i.e., soil) landunit"},
			{"units", str("%"), "%"}, {"cell_methods", str("time: mean"), "time: mean"}, fill, miss}},
		{"TWS_MONTH_END", "time,lat,lon", 1, plan.F64, []attr{{"long_name", str("total water storage at the end of a month"), "total water storage at the end of a month"},
			{"units", str("mm"), "mm"}, {"cell_methods", str("time: point"), "time: point"}, fill, miss}},
		{"cn_scalar", "time,lat,lon", 1, plan.F64, []attr{{"long_name", str("N limitation factor"), "N limitation factor"},
			{"units", str(""), ""}, {"cell_methods", str("time: mean"), "time: mean"}, fill, miss}},
	} {
		v := &h0.Vars[i0[c.name]]
		var got []attr
		for _, a := range v.Attrs {
			got = append(got, show(a))
		}
		if strings.Join(v.Dims, ",") != c.dims || v.Decomp != c.decomp || !v.Type.Equal(c.typ) || fmt.Sprint(got) != fmt.Sprint(c.attrs) {
			t.Errorf("%s: %v D%d %s %v\nwant %s D%d %s %v", c.name, v.Dims, v.Decomp, v.Type, got, c.dims, c.decomp, c.typ, c.attrs)
		}
	}
	// D2 holds levgrnd and levdcmp variables (the same length): 19 and 56 in h0, 13 and 56 in h1.
	for _, tc := range []struct {
		h                *History
		levgrnd, levdcmp int
	}{{h0, 19, 56}, {h1, 13, 56}} {
		n := map[string]int{}
		for _, v := range tc.h.Vars {
			if v.Decomp == 2 {
				n[v.Dims[len(v.Dims)-3]]++
			}
		}
		if n["levgrnd"] != tc.levgrnd || n["levdcmp"] != tc.levdcmp || len(n) != 2 {
			t.Errorf("%s D2: %v, want levgrnd %d levdcmp %d", tc.h.Name, n, tc.levgrnd, tc.levdcmp)
		}
	}
	var dims []string
	for _, d := range h0.Dims {
		dims = append(dims, d.Name)
	}
	if want := "time,lon,lat,gridcell,topounit,landunit,column,pft,levgrnd,levurb,levlak,numrad,month,levsno,ltype,nvegwcs,natpft,string_length,levdcmp,levtrc,hist_interval"; strings.Join(dims, ",") != want {
		t.Errorf("I dimensions %v", dims)
	}
	for _, tc := range []struct {
		h           *History
		n           int
		last        attr
		texts, ints int
	}{
		{h0, 27, attr{"ltype_urban_md", plan.I32, "9"}, 18, 9},
		{h1, 29, attr{"Time_constant_3Dvars", str("ZSOI:DZSOI:WATSAT:SUCSAT:BSW:HKSAT:ZLAKE:DZLAKE"), "ZSOI:DZSOI:WATSAT:SUCSAT:BSW:HKSAT:ZLAKE:DZLAKE"}, 20, 9},
	} {
		texts, ints := 0, 0
		for _, g := range tc.h.Globals {
			switch g.Type.Class {
			case plan.String:
				texts++
			case plan.Int32:
				ints++
				if fmt.Sprint(g.Shape) != "[1]" {
					t.Errorf("%s global %s shape %v, want [1]", tc.h.Name, g.Name, g.Shape)
				}
			}
		}
		if len(tc.h.Globals) != tc.n || texts != tc.texts || ints != tc.ints || fmt.Sprint(show(tc.h.Globals[tc.n-1])) != fmt.Sprint(tc.last) {
			t.Errorf("%s: %d globals (%d text, %d int), last %v", tc.h.Name, len(tc.h.Globals), texts, ints, show(tc.h.Globals[len(tc.h.Globals)-1]))
		}
		if g := show(tc.h.Globals[0]); fmt.Sprint(g) != fmt.Sprint(attr{"title", str("ELM History file information"), "ELM History file information"}) {
			t.Errorf("%s: first global %v", tc.h.Name, g)
		}
	}
	// j makes every REC_XTYPE variable float, fixed ones and time included; the int, char
	// and double ones keep their types.
	hj, err := buildHistory("I", "h0", m, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	keep := map[string]plan.Type{"landmask": plan.I32, "pftmask": plan.I32, "date_written": plan.I8, "time_written": plan.I8,
		"mcdate": plan.I32, "mcsec": plan.I32, "mdcur": plan.I32, "mscur": plan.I32, "nstep": plan.I32, "time_bounds": plan.F64}
	for _, v := range hj.Vars {
		want, ok := keep[v.Name]
		if !ok {
			want = plan.F32
		}
		if !v.Type.Equal(want) {
			t.Errorf("j=YES: %s is %s, want %s", v.Name, v.Type, want)
		}
	}
}

// TestGNamesAndAttributes pins the G case to E3SM-IO's header_def_G_case.cpp: the 747
// global attributes (order, types, sample values), the dimension order and every
// variable's name, type, dimensions, decomposition and attributes.
func TestGNamesAndAttributes(t *testing.T) {
	for _, j := range []bool{false, true} {
		h, err := buildHistory("G", "", synth(t, "G", 2), j, 1)
		if err != nil {
			t.Fatal(err)
		}
		// name type dims decomposition, in definition order; j changes nothing in G.
		want := `salinitySurfaceRestoringTendency f64 Time,nCells 1
vertTransportVelocityTop f64 Time,nCells,nVertLevelsP1 6
vertGMBolusVelocityTop f64 Time,nCells,nVertLevelsP1 6
vertAleTransportTop f64 Time,nCells,nVertLevelsP1 6
tendSSH f64 Time,nCells 1
layerThickness f64 Time,nCells,nVertLevels 3
normalVelocity f64 Time,nEdges,nVertLevels 4
ssh f64 Time,nCells 1
maxLevelEdgeTop i32 nEdges 2
vertCoordMovementWeights f64 nVertLevels 0
edgeMask i32 nEdges,nVertLevels 4
cellMask i32 nCells,nVertLevels 3
vertexMask i32 nVertices,nVertLevels 5
refZMid f64 nVertLevels 0
refLayerThickness f64 nVertLevels 0
xtime i8 Time,StrLen 0
kineticEnergyCell f64 Time,nCells,nVertLevels 3
relativeVorticityCell f64 Time,nCells,nVertLevels 3
relativeVorticity f64 Time,nVertices,nVertLevels 5
divergence f64 Time,nCells,nVertLevels 3
areaCellGlobal f64 Time 0
areaEdgeGlobal f64 Time 0
areaTriangleGlobal f64 Time 0
volumeCellGlobal f64 Time 0
volumeEdgeGlobal f64 Time 0
CFLNumberGlobal f64 Time 0
BruntVaisalaFreqTop f64 Time,nCells,nVertLevels 3
vertVelocityTop f64 Time,nCells,nVertLevelsP1 6
velocityZonal f64 Time,nCells,nVertLevels 3
velocityMeridional f64 Time,nCells,nVertLevels 3
displacedDensity f64 Time,nCells,nVertLevels 3
potentialDensity f64 Time,nCells,nVertLevels 3
pressure f64 Time,nCells,nVertLevels 3
refBottomDepth f64 nVertLevels 0
zMid f64 Time,nCells,nVertLevels 3
bottomDepth f64 nCells 1
maxLevelCell i32 nCells 1
maxLevelEdgeBot i32 nEdges 2
columnIntegratedSpeed f64 Time,nCells 1`
		for _, tr := range []string{"HorizontalAdvection", "VerticalAdvection", "VertMix", "SurfaceFlux"} {
			want += "\ntemperature" + tr + "Tendency f64 Time,nCells,nVertLevels 3\nsalinity" + tr + "Tendency f64 Time,nCells,nVertLevels 3"
		}
		want += `
temperatureShortWaveTendency f64 Time,nCells,nVertLevels 3
temperatureNonLocalTendency f64 Time,nCells,nVertLevels 3
salinityNonLocalTendency f64 Time,nCells,nVertLevels 3
temperature f64 Time,nCells,nVertLevels 3
salinity f64 Time,nCells,nVertLevels 3`
		var got []string
		for _, v := range h.Vars {
			got = append(got, fmt.Sprintf("%s %s %s %d", v.Name, v.Type, strings.Join(v.Dims, ","), v.Decomp))
		}
		if g := strings.Join(got, "\n"); g != want {
			t.Errorf("j=%v: G variables\n%s\nwant\n%s", j, g, want)
		}
	}
	h, err := buildHistory("G", "", synth(t, "G", 2), false, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Two text attributes each: units then long_name, except the tracer tendencies and
	// temperature/salinity (long_name first) — temperatureShortWaveTendency keeps units first.
	longFirst := 0
	for _, v := range h.Vars {
		if len(v.Attrs) != 2 || v.Attrs[0].Type.Class != plan.String || v.Attrs[1].Type.Class != plan.String {
			t.Errorf("%s: attributes %v, want units and long_name text", v.Name, v.Attrs)
			continue
		}
		names := v.Attrs[0].Name + "," + v.Attrs[1].Name
		switch names {
		case "long_name,units":
			longFirst++
		case "units,long_name":
		default:
			t.Errorf("%s: attributes %s", v.Name, names)
		}
	}
	if longFirst != 12 {
		t.Errorf("%d variables with long_name first, want 12", longFirst)
	}
	byName := map[string]*Var{}
	for i := range h.Vars {
		byName[h.Vars[i].Name] = &h.Vars[i]
	}
	for name, a := range map[string][2]attr{
		"vertCoordMovementWeights": {{"units", str("unitless"), "unitless"}, {"long_name", str("Weights used for distribution of sea surface height perturbations through multiple vertical levels."), "Weights used for distribution of sea surface height perturbations through multiple vertical levels."}},
		"edgeMask":                 {{"units", str("unitless"), "unitless"}, {"long_name", str("Mask on edges that determines if computations should be done on edges."), "Mask on edges that determines if computations should be done on edges."}},
		"vertexMask":               {{"units", str("unitless"), "unitless"}, {"long_name", str("Mask on vertices that determines if computations should be done on vertices."), "Mask on vertices that determines if computations should be done on vertices."}},
		"normalVelocity":           {{"units", str("m s^{-1}"), "m s^{-1}"}, {"long_name", str("horizonal velocity, normal component to an edge"), "horizonal velocity, normal component to an edge"}},
		"kineticEnergyCell":        {{"units", str("m^2 s^{-2}"), "m^2 s^{-2}"}, {"long_name", str("kinetic energy of horizontal velocity on cells"), "kinetic energy of horizontal velocity on cells"}},
		"divergence":               {{"units", str("s^{-1}"), "s^{-1}"}, {"long_name", str("divergence of horizontal velocity"), "divergence of horizontal velocity"}},
		"xtime":                    {{"units", str("unitless"), "unitless"}, {"long_name", str("model time, with format 'YYYY-MM-DD_HH:MM:SS'"), "model time, with format 'YYYY-MM-DD_HH:MM:SS'"}},
		"salinity":                 {{"long_name", str("salinity"), "salinity"}, {"units", str("grams salt per kilogram seawater"), "grams salt per kilogram seawater"}},
	} {
		v := byName[name]
		if got := [2]attr{show(v.Attrs[0]), show(v.Attrs[1])}; fmt.Sprint(got) != fmt.Sprint(a) {
			t.Errorf("%s: %v, want %v", name, got, a)
		}
	}
	var dims []string
	for _, d := range h.Dims {
		dims = append(dims, d.Name)
	}
	if want := "Time,nCells,nEdges,nVertices,nVertLevelsP1,nVertLevels,StrLen"; strings.Join(dims, ",") != want {
		t.Errorf("G dimensions %v, want %s", dims, want)
	}

	count := map[plan.Class]int{}
	index := map[string]int{}
	for i, g := range h.Globals {
		count[g.Type.Class]++
		index[g.Name] = i
		if g.Type.Class != plan.String && fmt.Sprint(g.Shape) != "[1]" {
			t.Errorf("global %s shape %v, want [1]", g.Name, g.Shape)
		}
	}
	if len(h.Globals) != 747 || len(index) != 747 || count[plan.String] != 562 || count[plan.Int32] != 27 || count[plan.Float64] != 158 {
		t.Errorf("%d globals (%d names): %d text, %d int, %d double; want 747: 562, 27, 158",
			len(h.Globals), len(index), count[plan.String], count[plan.Int32], count[plan.Float64])
	}
	for _, c := range []struct {
		at int
		a  attr
	}{
		{0, attr{"initial_file", str("/global/cfs/cdirs/e3sm/inputdata/atm/cam/inic/homme/cami_mam3_Linoz_0000-01-ne120np4_L72_c160318.nc"), "/global/cfs/cdirs/e3sm/inputdata/atm/cam/inic/homme/cami_mam3_Linoz_0000-01-ne120np4_L72_c160318.nc"}},
		{1, attr{"ne", plan.I32, "120"}},
		{2, attr{"np", plan.I32, "9600"}},
		{4, attr{"title", str("MPAS-Ocean output file information"), "MPAS-Ocean output file information"}},
		{20, attr{"sphere_radius", plan.F64, "6.371229e+06"}},
		{23, attr{"parent_id", str("rz1tbn0bed\n555vk5hkh9\n0s1lcmezuy\n7z1uysqc5i\nwj661vqvze"), "rz1tbn0bed\n555vk5hkh9\n0s1lcmezuy\n7z1uysqc5i\nwj661vqvze"}},
		{25, attr{"config_ocean_run_mode", str("forward"), "forward"}},
		{746, attr{"file_id", str("6270j0pl9q"), "6270j0pl9q"}},
		{index["config_vert_levels"], attr{"config_vert_levels", plan.I32, "-1"}},
		{index["config_AM_waterMassCensus_region_group"], attr{"config_AM_waterMassCensus_region_group", str(""), ""}},
		{index["config_AM_timeSeriesStatsMonthlyMin_operation"], attr{"config_AM_timeSeriesStatsMonthlyMin_operation", str("min"), "min"}},
		{index["config_AM_rpnCalculator_expression_1"], attr{"config_AM_rpnCalculator_expression_1", str("a b *"), "a b *"}},
		{index["config_AM_eliassenPalm_nBuoyancyLayers"], attr{"config_AM_eliassenPalm_nBuoyancyLayers", plan.I32, "45"}},
	} {
		if got := show(h.Globals[c.at]); fmt.Sprint(got) != fmt.Sprint(c.a) {
			t.Errorf("global %d: %v, want %v", c.at, got, c.a)
		}
	}
	// Doubles keep every digit of the source.
	for name, want := range map[string]float64{
		"config_vegetation_drag_coefficient":                         1.0900000333786,
		"config_drying_min_cell_height":                              0.00100000004749745,
		"config_land_ice_cavity_freezing_temperature_coeff_pS":       -1.74e-10,
		"config_AM_zonalMean_min_bin":                                -1e+34,
		"config_AM_sedimentTransport_vertical_diffusion_coefficient": 0.01,
	} {
		g := h.Globals[index[name]]
		if got := math.Float64frombits(binary.NativeEndian.Uint64(g.Value)); g.Type.Class != plan.Float64 || got != want {
			t.Errorf("%s = %s %v, want f64 %v", name, g.Type, got, want)
		}
	}
	if got := string(h.Globals[index["institution"]].Value); !strings.HasSuffix(got, "(Sandia National Laboratories, Albuquerque,\x00") {
		t.Errorf("institution ends %q", got[len(got)-30:])
	}
}

// TestParseGlobalsErrors checks that a malformed global attribute line is an error naming it.
func TestParseGlobalsErrors(t *testing.T) {
	for _, line := range []string{"i ne=12o", "d x=", "i n=1.5", "q name=v", "t novalue", "t =v"} {
		if _, err := parseGlobals("t ok=1\n" + line + "\n"); err == nil || !strings.Contains(err.Error(), line) {
			t.Errorf("%q: %v", line, err)
		}
	}
	g, err := parseGlobals("t a=x=y\ni b=-3\nd c=2.5e-3\n")
	if err != nil || len(g) != 3 || show(g[0]).val != "x=y" || show(g[1]).val != "-3" || show(g[2]).val != "0.0025" {
		t.Errorf("parseGlobals: %v %v", g, err)
	}
}
