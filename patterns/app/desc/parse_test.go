package desc

import (
	"strings"
	"testing"
)

// TestJSONPositions: JSON parses as YAML, and errors still point at line and column.
func TestJSONPositions(t *testing.T) {
	src := `{
  "params": {"n": 4},
  "files": {"out": {"name": "o.h5",
    "datasets": {"x": {"type": "f32", "shape": ["n"], "chunck": [2]}}}},
  "timeline": [{"write": "out"}]
}`
	_, err := Parse("d.json", []byte(src), nil)
	if err == nil || !strings.Contains(err.Error(), "d.json:4:55: key files.out.datasets.x.chunck: unknown key (did you mean chunk?)") {
		t.Fatalf("error %v", err)
	}
	d, err := Parse("d.json", []byte(strings.Replace(src, "chunck", "chunk", 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	x := d.Files[0].Datasets[0]
	if x.Name != "x" || x.Type.Text != "f32" || x.Shape[0].Pos.Line != 4 || len(x.Chunk) != 1 {
		t.Fatalf("dataset %+v", x)
	}
}

// TestListKeysLikeAndOverrides: "${list}" and [a, b] keys make one dataset per name,
// like: copies what is not given (across files too), overrides replace defaults (lists
// comma-separated), an unknown override names the parameters.
func TestListKeysLikeAndOverrides(t *testing.T) {
	src := `
params: {vars: [a, b], n: 8}
files:
  chk:
    name: c.h5
    datasets:
      ${vars}: {type: f64, shape: [n], chunk: [4], attributes: {units: m}}
      [p, q]: {like: a, type: i32}
  plt:
    name: p.h5
    groups:
      g:
        datasets:
          a: {like: chk.a, type: f32}
timeline: [{write: chk}, {write: plt}]
`
	d, err := Parse("d.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ds := range d.Files[0].Datasets {
		names = append(names, ds.Name+":"+ds.Type.Text+":"+ds.Shape[0].Text)
	}
	if got := strings.Join(names, " "); got != "a:f64:n b:f64:n p:i32:n q:i32:n" {
		t.Fatalf("datasets %s", got)
	}
	pa := d.Files[1].Groups[0].Datasets[0]
	if pa.Type.Text != "f32" || len(pa.Chunk) != 1 || pa.Chunk[0].Text != "4" || len(pa.Attributes) != 1 {
		t.Fatalf("like: chk.a gave %+v", pa)
	}
	// Overridden, the list names u, v, w; p and q are like a, which is no more.
	_, err = Parse("d.yaml", []byte(src), []Override{{Key: "VARS", Value: "u, v,w"}})
	if err == nil || !strings.Contains(err.Error(), `d.yaml:8:22: key files.chk.datasets.[p, q].like value "a": no such dataset`) {
		t.Fatalf("error %v", err)
	}
	d, err = Parse("d.yaml", []byte(strings.Replace(src, "a: {like: chk.a", "a: {like: chk.u", 1)[:strings.Index(src, "      [p, q]")]+"timeline: []\n"), []Override{{Key: "vars", Value: "u,v"}})
	if err != nil || len(d.Files[0].Datasets) != 2 || d.Files[0].Datasets[1].Name != "v" {
		t.Fatalf("overridden list: %v", err)
	}
	_, err = Parse("d.yaml", []byte(src), []Override{{Key: "nn", Value: "3"}})
	if err == nil || !strings.Contains(err.Error(), `key nn value "3": not a parameter of d.yaml (did you mean n?); allowed: vars, n`) {
		t.Fatalf("error %v", err)
	}
}

// TestExpressions: literals with units, integer checks, templates with formats.
func TestExpressions(t *testing.T) {
	d, err := Parse("d.yaml", []byte("params: {n: 8Mi, t: 1.5s, m: n / 1024, name: run}\nfiles: {}\ntimeline: []\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Scope(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	s.SetStep(7)
	v := func(text string) Value { return Value{Text: text, Path: "k", Set: true} }
	if n, err := s.Int(v("m * nranks + rank")); err != nil || n != 8192*4+3 {
		t.Errorf("m * nranks + rank = %d, %v", n, err)
	}
	if d, err := s.Duration(v("t * 2")); err != nil || d.Seconds() != 3 {
		t.Errorf("t * 2 = %v, %v", d, err)
	}
	if n, err := s.Int(v("div(7, 2) + cdiv(7, 2)")); err != nil || n != 7 {
		t.Errorf("div + cdiv = %d, %v", n, err)
	}
	if txt, err := s.Text(v("${name}_${step:04d}_${rank % 2 == 1 ? 'odd' : 'even'}.h5")); err != nil || txt != "run_0007_odd.h5" {
		t.Errorf("template = %q, %v", txt, err)
	}
	if _, err := s.Int(v("n / 3")); err == nil || !strings.Contains(err.Error(), "not an integer") {
		t.Errorf("n / 3: %v", err)
	}
}
