package app

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// typeName names an atomic, string, enum, array or opaque type for declarations: atomic
// and string types by name, the others declared under types as d<N> (decls collects them).
func typeName(decls *[]*desc.Compound) func(plan.Type) string {
	var name func(plan.Type) string
	name = func(t plan.Type) string {
		switch {
		case t.Enum != nil || t.Class == plan.Array || t.Class == plan.Opaque || t.Class == plan.Compound:
			n := fmt.Sprintf("d%d", len(*decls))
			*decls = append(*decls, nil)
			i := len(*decls) - 1
			(*decls)[i] = desc.DeclareType(n, t, name)
			return n
		case t.Class == plan.String:
			return fmt.Sprintf("str%d", t.Size)
		}
		return t.Class.String()
	}
	return name
}

// randomCompound makes a compound of 1..4 members at random non-overlapping offsets in a
// random order, a size at least their extent, members atomic, strings, enums, arrays and
// opaque types.
func randomCompound(r *rand.Rand) plan.Type {
	kinds := []plan.Type{plan.I8, plan.I32, plan.F64, plan.U16, plan.Str(5),
		plan.EnumOf(plan.I8, plan.EnumValue{Name: "A", Value: 0}, plan.EnumValue{Name: "B", Value: -3}),
		plan.ArrayOf(plan.F32, 3), plan.ArrayOf(plan.I16, 2, 2), plan.OpaqueOf(3, "t")}
	off := 0
	var ms []plan.Member
	for i := range 1 + r.Intn(4) {
		mt := kinds[r.Intn(len(kinds))]
		off += r.Intn(5)
		ms = append(ms, plan.Field(fmt.Sprintf("m%d", i), off, mt))
		off += mt.Size
	}
	r.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	return plan.Struct("", off+r.Intn(9), ms...)
}

// TestDeclareTypeRoundTrip: a type declared with DeclareType, written, parsed and laid
// out by the engine is the type it was declared from (offsets, order, size, enums, arrays,
// opaque types), for random compounds and for C-layout ones (written without @N or size).
func TestDeclareTypeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := range 200 {
		want := randomCompound(r)
		if i%10 == 0 { // a C layout: no offset nor size written
			want = plan.Struct("", 16, plan.Field("a", 0, plan.I32), plan.Field("b", 8, plan.F64))
		}
		var decls []*desc.Compound
		top := typeName(&decls)(want)
		d := &desc.Description{Types: decls, Files: []*desc.File{{ID: "f", Name: desc.V("f.h5")}}}
		text, err := desc.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 && (strings.Contains(string(text), "@") || strings.Contains(string(text), "size")) {
			t.Errorf("a C layout written with offsets or a size:\n%s", text)
		}
		parsed, err := desc.Parse("t.yaml", text, nil)
		if err != nil {
			t.Fatalf("%d: %v\n%s", i, err, text)
		}
		got, err := newTypeSet(parsed).lookup(desc.Value{Text: top})
		if err != nil {
			t.Fatalf("%d: %v\n%s", i, err, text)
		}
		want.Name, got.Name = "", ""
		if !got.Equal(want) {
			t.Fatalf("%d: laid out %s, want %s\n%s", i, got, want, text)
		}
	}
}

// TestTypeLayoutErrors: overlapping members, a size below the members' extent, an enum
// value its base cannot hold, a literal enum value that is no name, and an array of
// variable-length strings each name file:line:col, key and value.
func TestTypeLayoutErrors(t *testing.T) {
	base := `types:
  rec: {a: f64@0, b: i32@12}
  p: {enum: {A: 0, B: 1}, base: i8}
files:
  f:
    name: f.h5
    attributes: {m: {type: p, value: A}}
    datasets: {x: {type: rec, shape: [4]}}
timeline: [{write: f}]
`
	for _, c := range []struct{ old, new, want string }{
		{"b: i32@12", "b: i32@4", "d.yaml:2:3: key types.rec: compound \"rec\" member \"b\" overlaps another member"},
		{"{a: f64@0, b: i32@12}", "{members: {a: f64@0, b: i32@12}, size: 12}", `d.yaml:2:47: key types.rec.size value "12": compound rec's members end at byte 16; allowed: a size of at least 16`},
		{"B: 1", "B: 300", `d.yaml:3:23: key types.p.enum.B value "300": not a value of the enumeration's base i8`},
		{"value: A", "value: C", `d.yaml:7:38: key files.f.attributes.m.value value "C": not a name or value of the enumeration enum(i8){A=0,B=1}; allowed: A, B`},
		{"type: rec,", `type: "vstr[2]",`, `key files.f.datasets.x.type value "vstr[2]": array of vstr(16): variable-length elements are not supported here`},
	} {
		src := strings.Replace(base, c.old, c.new, 1)
		err := planErr(t, src, 2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s: got %v\nwant %s", c.old, c.new, err, c.want)
		}
	}
}
