package desc

import (
	"strings"
	"testing"
)

// TestDiff: positions, key paths and unwritten values do not count; a written value, a
// note or a list's length that differs is named by its path.
func TestDiff(t *testing.T) {
	mk := func() *Description {
		d := &Description{Name: V("x"), Files: []*File{{ID: "f", Name: V("f.h5"), Content: Content{
			Datasets: []*Dataset{{Name: "a", Type: V("f64"), Shape: Vs("n")}}}}}}
		d.Comment("files.f", "a note")
		return d
	}
	a, b := mk(), mk()
	b.Files[0].Pos, b.Files[0].Content.Datasets[0].Type.Pos = Pos{File: "b.yaml", Line: 3}, Pos{Line: 9}
	b.Files[0].Content.Datasets[0].Type.Path = "files.f.datasets.a.type"
	b.Steps = Value{Text: "1"} // the schema's default, not written
	if d := Diff(a, b); d != "" {
		t.Errorf("equal descriptions differ at %s", d)
	}
	for name, change := range map[string]func(*Description){
		"Type":   func(d *Description) { d.Files[0].Content.Datasets[0].Type = V("f32") },
		"Shape":  func(d *Description) { d.Files[0].Content.Datasets[0].Shape = Vs("n", "2") },
		"Notes":  func(d *Description) { d.Comment("files.f", "another") },
		"Steps":  func(d *Description) { d.Steps = V("4") },
		"Groups": func(d *Description) { d.Files[0].Content.Groups = []*Group{{Name: V("g")}} },
	} {
		c := mk()
		change(c)
		if d := Diff(a, c); !strings.Contains(d, name) {
			t.Errorf("%s changed: Diff says %q", name, d)
		}
	}
}
