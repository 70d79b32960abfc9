package profile

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// TestCaptureTypes traces the kernel's types mode (tests/profile/kernel.c: datasets and
// attributes of the types the flat trace fields cannot say) on two ranks and captures
// it: the records carry each type whole (type_tree), and the description names them as
// a person would write them: f32be, an enumeration over i16be with its names and values,
// an array of 3 f64, the opaque type with its tag, a compound of a big-endian double and
// the enumeration (declared once, shared); the big-endian fill value and attribute values
// read in their order, the enumeration's fill value and attribute by name. Nothing is left unexpressed
// and the description passes check.
func TestCaptureTypes(t *testing.T) {
	data, records, out, err := runKernel(t, 2, "types", "H5PROXY_PROFILE_TRACE=1")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p := mustMerge(t, records)
	r, err := p.Find("H5D", filepath.Join(data, "types.h5"), "/rec", -1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.Info), `"type_tree":{"class":6,"size":16,"members":[{"name":"x","offset":0,"type":{"class":1,"size":8,"order":1}}`) {
		t.Errorf("/rec's record lacks its type tree: %s", r.Info)
	}
	d, err := Capture(p, "types")
	if err != nil {
		t.Fatal(err)
	}
	checked(t, d)
	if len(d.Unexpressed) > 0 {
		t.Errorf("unexpressed: %q\n%s", d.Unexpressed, d.YAML)
	}
	f := fileOf(t, d.Desc, "types")
	types := map[string]*desc.Compound{}
	for _, c := range d.Desc.Types {
		types[c.Name] = c
	}
	decl := func(ds string) string { // a declaration as its YAML flow map reads, without its name
		name := datasetOf(t, f, ds).Type.Text
		c := types[name]
		if c == nil {
			return name
		}
		var m desc.Description
		m.Types = []*desc.Compound{c}
		text := desc.String(&m)
		text = strings.TrimSpace(text[strings.Index(text, ":")+1:])
		return text[strings.Index(text, ":")+2:]
	}
	for ds, want := range map[string]string{
		"/lat":   "f32be",
		"/phase": "{enum: {LOW: 1, HIGH: 513}, base: i16be}",
		"/vel":   "{array: f64, dims: [3]}",
		"/blob":  "{opaque: 4, tag: kernel blob}",
	} {
		if got := decl(ds); got != want {
			t.Errorf("dataset %s: type %q, want %q\n%s", ds, got, want, d.YAML)
		}
	}
	rec := types[datasetOf(t, f, "/rec").Type.Text]
	if rec == nil || len(rec.Members) != 2 || rec.Members[0].Type.Text != "f64be" || rec.Members[1].Type.Text != datasetOf(t, f, "/phase").Type.Text {
		t.Errorf("/rec's compound: %+v, want x: f64be and p: the enumeration /phase has\n%s", rec, d.YAML)
	}
	if fill := datasetOf(t, f, "/lat").Fill.Text; fill != "-1.0" {
		t.Errorf("/lat's fill value %q, want -1.0 (traced big-endian)", fill)
	}
	if fill := datasetOf(t, f, "/phase").Fill.Text; fill != "HIGH" {
		t.Errorf("/phase's fill value %q, want HIGH (the enumeration's name)", fill)
	}
	attrs := map[string]string{}
	for _, a := range f.Attributes {
		attrs[a.Name] = words(a.Type.Text, texts(a.Value.List), a.Value.Text)
	}
	if want := "f32be [1.5, -2.25] "; attrs["scale"] != want {
		t.Errorf("attribute scale: %q, want %q\n%s", attrs["scale"], want, d.YAML)
	}
	if want := datasetOf(t, f, "/phase").Type.Text + " [] HIGH"; attrs["mode"] != want {
		t.Errorf("attribute mode: %q, want %q\n%s", attrs["mode"], want, d.YAML)
	}
	if n := len(slices.DeleteFunc(slices.Clone(d.Desc.Types), func(c *desc.Compound) bool { return c.Kind() != "enum" })); n != 1 {
		t.Errorf("%d enumerations declared, want 1 (shared by /phase, /rec and mode)\n%s", n, d.YAML)
	}
}

// TestCaptureRefsAndVirtual traces the kernel's refs mode (tests/profile/kernel.c: rank 0
// writes references, a hand-made DIMENSION_LIST and virtual datasets) and captures it:
// the attributes' references become ref and regref values naming their targets (the
// profiler traces H5Rcreate's target and bytes), variable-length strings their values, the DIMENSION_LIST the dims key with no
// scale on dimension 0, the unselected virtual mapping a mapping with no block and the
// hyperslab one its start and count, and the view's attribute creation order is kept.
// Nothing is left unexpressed and the description passes check.
func TestCaptureRefsAndVirtual(t *testing.T) {
	_, records, out, err := runKernel(t, 1, "refs", "H5PROXY_PROFILE_TRACE=1")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p := mustMerge(t, records)
	d, err := Capture(p, "refs")
	if err != nil {
		t.Fatal(err)
	}
	checked(t, d)
	if len(d.Unexpressed) > 0 {
		t.Errorf("unexpressed: %q\n%s", d.Unexpressed, d.YAML)
	}
	f := fileOf(t, d.Desc, "refs")
	attrs := map[string]string{}
	for _, a := range f.Attributes {
		v := a.Value.Text
		if a.Value.List != nil {
			v = texts(a.Value.List)
		}
		attrs[a.Name] = words(a.Type.Text, v)
	}
	for name, want := range map[string]string{"main": "ref /table", "parts": "regref [/table[0:2], /table[2:4]]", "notes": "vstr [made by refs, two]"} {
		if attrs[name] != want {
			t.Errorf("attribute %s: %q, want %q\n%s", name, attrs[name], want, d.YAML)
		}
	}
	if dims := texts(datasetOf(t, f, "/rho").Dims); dims != "[, /x]" {
		t.Errorf("/rho's dims %q, want none on dimension 0 and /x on 1\n%s", dims, d.YAML)
	}
	if x := datasetOf(t, f, "/x"); !x.Scale.Set {
		t.Errorf("/x is not a scale\n%s", d.YAML)
	}
	mapping := func(ds string) string {
		var s []string
		for _, m := range datasetOf(t, f, ds).Virtual {
			s = append(s, words("file", m.File.Text, m.Dataset.Text, "start", texts(m.Start), "count", texts(m.Count), "src", texts(m.SourceStart)))
		}
		return strings.Join(s, ";")
	}
	for ds, want := range map[string]string{"/view": "file  /table start [] count [] src []", "/half": "file  /table start [2] count [2] src []"} {
		if got := mapping(ds); got != want {
			t.Errorf("%s's mappings %q, want %q\n%s", ds, got, want, d.YAML)
		}
	}
	if o := datasetOf(t, f, "/view").CreationOrder.Text; o != "indexed" {
		t.Errorf("/view's attribute creation order %q, want indexed\n%s", o, d.YAML)
	}
	if o := datasetOf(t, f, "/half").CreationOrder; o.Set {
		t.Errorf("/half's attribute creation order %q, want none set\n%s", o.Text, d.YAML)
	}
}
