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
// double ones in F h0 and 3 in F h1, float with j) while missing_value stays float, and
// that the value survives the conversion.
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
		{"I", "h0", false, plan.F64, -1},
		{"I", "h1", false, plan.F64, -1},
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
					if tc.c == "F" && v.Type.Class == plan.Float64 && len(a.Value) == 8 {
						if got := math.Float64frombits(binary.NativeEndian.Uint64(a.Value)); got != float64(float32(1e20)) {
							t.Errorf("F %s %s: _FillValue %g, want 1e20f", tc.hist, v.Name, got)
						}
					}
				case "missing_value":
					if tc.c == "F" && !a.Type.Equal(plan.F32) {
						t.Errorf("F %s %s: missing_value %s, want f32", tc.hist, v.Name, a.Type)
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
