package desc

import (
	"strings"
	"testing"
)

// TestDatasetValue: a dataset's value parses as a literal list (or one value) and is
// written back as given; beside extend, virtual mappings, written: false or a
// decomposition that splits it, it is refused at file:line:col naming the key.
func TestDatasetValue(t *testing.T) {
	base := `files:
  f:
    name: f.h5
    writer: rank0
    datasets:
      table: {type: i32, shape: [4], value: [1, 2, 3, 4]}
      regions: {type: regref, shape: [2], value: ["/table[0:2]", "/table[2:4]"]}
timeline: [{write: f}]
`
	d, err := Parse("d.yaml", []byte(base), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := d.Files[0].Datasets[1]
	if !r.Value.Set || len(r.Value.List) != 2 || r.Value.List[1].Text != "/table[2:4]" || r.Value.List[1].Pos.Line != 7 {
		t.Fatalf("regions' value %+v", r.Value)
	}
	text, err := Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "value: ['/table[0:2]', '/table[2:4]']") {
		t.Errorf("the value is not written back:\n%s", text)
	}
	for _, c := range []struct{ old, new, want string }{
		{"value: [1, 2, 3, 4]", "value: [1, 2, 3, 4], extend: 0", `d.yaml:6:67: key files.f.datasets.table.extend value "0": a dataset with a literal value does not grow`},
		{"value: [1, 2, 3, 4]", "value: [1, 2, 3, 4], written: false", `d.yaml:6:68: key files.f.datasets.table.written value "false": a dataset with a literal value is written`},
		{"value: [1, 2, 3, 4]", "value: [1, 2, 3, 4], decompose: block", `d.yaml:6:70: key files.f.datasets.table.decompose.kind value "block": a dataset with a literal value is written whole; allowed: value on a dataset written whole`},
		{"value: [1, 2, 3, 4]", "value: [1, 2, 3, 4], virtual: [{dataset: /x}]", `d.yaml:6:45: key files.f.datasets.table.value: a virtual dataset has no contents of its own`},
		{"value: [1, 2, 3, 4]", "value: {a: [1]}", `key files.f.datasets.table.value`},
	} {
		_, err := Parse("d.yaml", []byte(strings.Replace(base, c.old, c.new, 1)), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant %s", c.new, err, c.want)
		}
	}
	ok := strings.Replace(base, "value: [1, 2, 3, 4]", "value: [1, 2, 3, 4], decompose: replicated", 1)
	if _, err := Parse("d.yaml", []byte(ok), nil); err != nil {
		t.Errorf("decompose: replicated with a value: %v", err)
	}
}
