package derive

import (
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// refSpec is a reference dataset's targets as Read keeps them: names padded to the
// longest.
func refSpec(region bool, targets ...string) *plan.AttributeSpec {
	w := 1
	for _, s := range targets {
		w = max(w, len(s))
	}
	v := make([]byte, len(targets)*w)
	for i, s := range targets {
		copy(v[i*w:], s)
	}
	return &plan.AttributeSpec{Type: plan.RefOf(w, region), Shape: []uint64{uint64(len(targets))}, Value: v}
}

// TestWriteRefDatasets: a dataset of references read with its targets is written as
// type ref or regref with them as value, its extent in numbers (no per-rank parameter, no
// grid: a value is written whole), and a file holding region references gets writer:
// rank0 with the reason; a dataset of references past the limit keeps a stand-in.
func TestWriteRefDatasets(t *testing.T) {
	table := ds("table", plan.I32, 4)
	regions := ds("regions", plan.RefOf(12, true), 2)
	regions.Refs = refSpec(true, "/table[0:2]", "/table[2:4]")
	objs := ds("objs", plan.RefOf(8, false), 2)
	objs.Refs = refSpec(false, "/table", "/regions")
	root := &Group{Name: "/", Path: "/", Datasets: []*Dataset{objs, regions, table}}
	text := render(t, []*File{{Path: "refs.h5", Root: root}}, 2)
	wantLines(t, text,
		"regions: {type: regref, shape: [2], value: ['/table[0:2]', '/table[2:4]']}",
		"objs: {type: ref, shape: [2], value: [/table, /regions]}",
		"# guess: a dataset of region references, which parallel HDF5 does not write",
		"writer: rank0")
	if strings.Contains(text, "not expressed") || strings.Contains(text, "n_regions") || strings.Contains(text, "n_objs") {
		t.Errorf("a dataset of references noted or given a per-rank extent:\n%s", text)
	}

	many := make([]string, maxRefs+1)
	for i := range many {
		many[i] = "/table"
	}
	big := ds("big", plan.RefOf(8, false), uint64(len(many)))
	big.Refs = refSpec(false, many...)
	text = render(t, []*File{{Path: "big.h5", Root: &Group{Name: "/", Path: "/", Datasets: []*Dataset{big, ds("table", plan.I32, 4)}}}}, 1)
	wantLines(t, text, "# not expressed: the file's datatype is an object reference of 8 bytes")
}

// TestWriteVirtual: a virtual dataset's mappings are written as virtual: a mapping of
// both dataspaces whole with no start or count, one block of each with start, count and a
// source_start off the origin, a file other than its own by name; a mapping of several
// blocks keeps the contiguous stand-in with a note.
func TestWriteVirtual(t *testing.T) {
	whole := plan.WholeSpace([]uint64{8})
	view := ds("view", plan.I32, 8)
	view.Virtual = true
	view.Mappings = []h5.VirtualMap{
		{Virtual: whole, File: ".", Dataset: "/table", Source: whole, SourceShape: []uint64{8}},
	}
	part := ds("part", plan.I32, 8)
	part.Virtual = true
	part.Mappings = []h5.VirtualMap{
		{Virtual: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{4}, []uint64{4})}}, File: "other.h5", Dataset: "/u",
			Source: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{2}, []uint64{4})}}, SourceShape: []uint64{6}},
	}
	two := ds("two", plan.I32, 8)
	two.Virtual = true
	two.Mappings = []h5.VirtualMap{
		{Virtual: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{0}, []uint64{2}), plan.Block([]uint64{4}, []uint64{2})}}, File: ".", Dataset: "/table",
			Source: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{0}, []uint64{4})}}, SourceShape: []uint64{8}},
	}
	root := &Group{Name: "/", Path: "/", Datasets: []*Dataset{part, ds("table", plan.I32, 8), two, view}}
	text := render(t, []*File{{Path: "v.h5", Root: root}}, 1)
	wantLines(t, text,
		"virtual: [{dataset: /table}]",
		"virtual: [{file: other.h5, dataset: /u, start: [4], count: [4], source_start: [2]}]",
		"# not expressed: a virtual dataset (H5Pset_virtual) whose mappings are not one block of each dataspace")
}
