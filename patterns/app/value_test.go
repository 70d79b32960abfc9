package app

import (
	"strings"
	"testing"
)

// TestValueErrors: a dataset's literal value is refused, naming file:line:col and the key,
// with as many values as elements missing, with region references in a file the ranks
// share through MPI-IO (parallel HDF5 writes none), a target no write creates, a dataset
// of references without its targets, and a read of references; a dataset of references
// naming another is written after it whatever the order listed.
func TestValueErrors(t *testing.T) {
	base := `files:
  f:
    name: f.h5
    writer: rank0
    datasets:
      objs: {type: ref, shape: [2], value: [/table, /regions]}
      regions: {type: regref, shape: [2], value: ["/table[0:2]", "/table[2:4]"]}
      table: {type: i32, shape: [4], value: [1, 2, 3, 4]}
timeline: [{write: f}]
`
	if err := planErr(t, base, 2); err != nil {
		t.Fatalf("the base description: %v", err)
	}
	for _, c := range []struct{ old, new, want string }{
		{"value: [1, 2, 3, 4]", "value: [1, 2, 3]", `d.yaml:8:45: key files.f.datasets.table.value: 3 values for the 4 elements of table; allowed: one value per element`},
		{"    writer: rank0\n", "", `d.yaml:6:50: key files.f.datasets.regions.value: dataset /regions of region references in file`},
		{"/table, /regions]", "/table, /nothing]", `key files.f.datasets.objs.value: dataset /objs's reference to /nothing: no write of file`},
		{`value: ["/table[0:2]", "/table[2:4]"]`, "", `d.yaml:7:23: key files.f.datasets.regions.type value "regref": a dataset of references without its targets; allowed: value: the targets' paths`},
		{"timeline: [{write: f}]", "timeline: [{write: f}, {read: f, at: restart}]", `key files.f.datasets.objs.value: a read of /objs, a dataset of references`},
	} {
		err := planErr(t, strings.Replace(base, c.old, c.new, 1), 2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q -> %q: got %v\nwant %s", c.old, c.new, err, c.want)
		}
	}
}
