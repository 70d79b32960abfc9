package app

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// compoundAttrs declares compound attributes with literal values: a scalar, an array,
// a nested compound with a string member and an expression.
const compoundAttrs = `params: {n: 4, dt: 0.5}
types:
  box: {lo: i32, hi: i32}
  cell: {b: box, w: f64, tag: str4}
files:
  out:
    name: out.h5
    attributes:
      domain: {type: box, value: {lo: 0, hi: "${n * nranks - 1}"}}
      boxes: {type: box, value: [{lo: 0, hi: 3}, {hi: 7, lo: 4}]}
    datasets:
      x:
        shape: [n * nranks]
        attributes:
          cell: {type: cell, value: {b: {lo: -1, hi: 1}, w: "${dt * 3}", tag: abc}}
timeline: [{write: out}]
`

// TestCompoundAttributeLiterals: a compound attribute's value is a map of its members by
// name (in any order), nested compounds nested, expressions evaluated; a list of maps is
// an array; the bytes planned are the C struct's.
func TestCompoundAttributeLiterals(t *testing.T) {
	p := buildSrc(t, compoundAttrs)
	got := map[string]*plan.AttributeSpec{}
	for _, pl := range all(t, p, patterns.PhaseWrite, patterns.Env{Rank: 0, Size: 2, Path: "/o/run.h5"}) {
		for _, op := range pl.Ops {
			if op.Kind == plan.WriteAttribute {
				got[op.Attribute.Name] = op.Attribute
			}
		}
	}
	ne := binary.NativeEndian
	i32s := func(v ...int32) []byte {
		var b []byte
		for _, x := range v {
			b = ne.AppendUint32(b, uint32(x))
		}
		return b
	}
	if a := got["domain"]; a == nil || a.Type.Class != plan.Compound || a.Shape != nil || !bytes.Equal(a.Value, i32s(0, 7)) {
		t.Errorf("domain: %+v", a)
	}
	if a := got["boxes"]; a == nil || len(a.Shape) != 1 || a.Shape[0] != 2 || !bytes.Equal(a.Value, i32s(0, 3, 4, 7)) {
		t.Errorf("boxes: %+v", a)
	}
	want := append(i32s(-1, 1), ne.AppendUint64(nil, math.Float64bits(1.5))...)
	want = append(want, 'a', 'b', 'c', 0, 0, 0, 0, 0) // str4, padded to the struct's 8-byte alignment
	if a := got["cell"]; a == nil || a.Type.Size != 24 || !bytes.Equal(a.Value, want) {
		t.Errorf("cell: %+v, want value %v", a, want)
	}
}

// TestCompoundAttributeErrors: a missing or unknown member, a map without a type, a map
// for an atomic type, a list inside a member map each name file:line:col, key, value
// and what is allowed.
func TestCompoundAttributeErrors(t *testing.T) {
	cases := []struct {
		old, new string
		want     []string
	}{
		{"value: {lo: 0, hi: \"${n * nranks - 1}\"}", "value: {lo: 0}",
			[]string{"d.yaml:9:34: key files.out.attributes.domain.value", "no value for member hi of box", "allowed: every member given: {lo: i32, hi: i32}"}},
		{"{hi: 7, lo: 4}", "{hi: 7, lo: 4, mid: 5}",
			[]string{"d.yaml:10:70: key files.out.attributes.boxes.value[1].mid", `value "5"`, "type box has no member mid", "allowed: lo, hi"}},
		{"domain: {type: box, value:", "domain: {value:", []string{"d.yaml:9:23: key files.out.attributes.domain.value", "a map of member values needs the attribute's type", "allowed: type: NAME"}},
		{"cell: {type: cell, value: {b: {lo: -1, hi: 1}", "cell: {type: cell, value: {b: 3",
			[]string{"d.yaml:15:41: key files.out.datasets.x.attributes.cell.value.b", `value "3"`, "a compound value of box here is not a map of members", "allowed: a map of member values: {lo: i32, hi: i32}"}},
		{"{lo: 0, hi: 3}, {hi", "{lo: [0, 1], hi: 3}, {hi", []string{"d.yaml:10:39: key files.out.attributes.boxes.value[0].lo", "a list inside a member map"}},
		{"domain: {type: box,", "domain: {type: f64,", []string{"d.yaml:9:34: key files.out.attributes.domain.value", "an element or member of type f64 given a map or list", "allowed: a number or a string"}},
	}
	for _, c := range cases {
		src := strings.Replace(compoundAttrs, c.old, c.new, 1)
		if src == compoundAttrs {
			t.Fatalf("%q not in the description", c.old)
		}
		wantErr(t, c.new, planErr(t, src, 2), c.want)
	}
}

// TestFeaturesExampleInDocs: docs/apps.md shows examples/apps/features.yaml word for word
// (the proxy's tests run the file), and it plans on 1 and 4 ranks.
func TestFeaturesExampleInDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/apps.md")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile("../../examples/apps/features.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```yaml\n"+string(ex)+"```\n") {
		t.Error("docs/apps.md does not show examples/apps/features.yaml as it is")
	}
	p := load(t, "../../../examples/apps/features.yaml")
	for _, size := range []int{1, 4} {
		for _, ph := range p.Phases() {
			all(t, p, ph, patterns.Env{Rank: size - 1, Size: size, Path: "/out/run.h5"})
		}
	}
}

// TestVarLenStringErrors: a fill value on a vstr dataset, a fixed-string memory type for
// a vstr dataset, and a vstr dataset or a compound with a vstr member in a file the ranks
// share are errors naming file:line:col, key, value and what is allowed; vstr and vstrN
// plan as variable-length strings of 16 and N bytes per element, alone or as a compound's
// members (laid out at a pointer's alignment, as the C struct's char * is).
func TestVarLenStringErrors(t *testing.T) {
	cases := []struct {
		old, new string
		size     int
		want     []string
	}{
		{"x: {type: f64, shape: [n * nranks]}", "x: {type: rec, shape: [n * nranks]}\ntypes: {rec: {id: i32, name: vstr}}", 2,
			[]string{"d.yaml:7:17: key files.out.datasets.x.type", `value "rec"`, "dataset /x of variable-length strings in file ", "out.h5, which 2 ranks share through MPI-IO",
				"allowed: ranks: 1 (a file per rank: HDF5's serial driver, as for a shared file on one rank), a fixed-length strN (in a compound too)"}},
		{"x: {type: f64, shape: [n * nranks]}", "x: {type: rec, shape: [n * nranks], fill: 0}\ntypes: {rec: {id: i32, name: vstr}}", 1,
			[]string{"key files.out.datasets.x.fill", "a dataset of (or with members of) variable-length strings takes no fill value here"}},
		{"{type: f64, shape: [n * nranks]}", "{type: vstr, shape: [n * nranks], fill: x}", 1,
			[]string{"d.yaml:7:50: key files.out.datasets.x.fill", `value "x"`, "a dataset of (or with members of) variable-length strings takes no fill value here"}},
		{"{type: f64, shape: [n * nranks]}", "{type: vstr, shape: [n * nranks], memory: {type: str8}}", 1,
			[]string{"d.yaml:7:59: key files.out.datasets.x.memory.type", "HDF5 converts no fixed-length string to a variable-length one"}},
		{"{type: f64, shape: [n * nranks]}", "{type: vstr, shape: [n * nranks]}", 2,
			[]string{"d.yaml:7:17: key files.out.datasets.x.type", "which 2 ranks share through MPI-IO", "allowed: ranks: 1"}},
	}
	for _, c := range cases {
		src := strings.Replace(base, c.old, c.new, 1)
		wantErr(t, c.new, planErr(t, src, c.size), c.want)
	}
	// On one rank the shared file is opened serially and holds the strings.
	p := buildSrc(t, strings.Replace(base, "{type: f64, shape: [n * nranks]}", "{type: vstr, shape: [n * nranks]}\n      y: {type: vstr5, shape: [2]}\n      z: {type: rec, shape: [2]}\ntypes: {rec: {id: i32, name: vstr}}", 1))
	var types []plan.Type
	for _, pl := range all(t, p, patterns.PhaseWrite, patterns.Env{Rank: 0, Size: 1, Path: "/o/run.h5"}) {
		for _, op := range pl.Ops {
			switch {
			case op.Kind == plan.CreateFile && op.File.Parallel:
				t.Errorf("the file of vstr datasets is opened through MPI-IO on one rank")
			case op.Kind == plan.CreateDataset:
				types = append(types, op.Dataset.Type)
			}
		}
	}
	rec := plan.Struct("rec", 24, plan.Field("id", 0, plan.I32), plan.Field("name", 8, plan.VStr(VStrLen)))
	if len(types) != 3 || !types[0].Equal(plan.VStr(VStrLen)) || !types[1].Equal(plan.VStr(5)) || !types[2].Equal(rec) {
		t.Errorf("dataset types %v, want vstr(16), vstr(5) and %v", types, rec)
	}
}
