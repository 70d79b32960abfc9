package app

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// orderSrc asks for creation order on the file's root group, a group (links alone) and a
// dataset (its attributes), and nothing on another group.
const orderSrc = `
files:
  f:
    name: f.h5
    creation_order: indexed
    datasets:
      x: {type: f64, shape: [4 * nranks], creation_order: tracked}
      y: {type: f64, shape: [4 * nranks]}
    groups:
      g: {creation_order: {links: tracked}}
      plain: {}
timeline: [{write: f}]
`

// TestCreationOrderPlanned: the file's create carries its root group's orders, each
// group's create its own (none: no group properties), each dataset's create its
// attributes'; a bad value is an error naming file:line:col, key and value.
func TestCreationOrderPlanned(t *testing.T) {
	var got []string
	for _, pl := range planSrc(t, orderSrc, 2) {
		for _, op := range pl.Ops {
			switch op.Kind {
			case plan.CreateFile:
				got = append(got, fmt.Sprintf("file links=%d attrs=%d", op.File.LinkOrder, op.File.AttrOrder))
			case plan.CreateGroup:
				got = append(got, fmt.Sprintf("%s %+v", op.Path, op.Group))
			case plan.CreateDataset:
				got = append(got, fmt.Sprintf("%s attrs=%d", op.Path, op.Dataset.AttrOrder))
			}
		}
	}
	want := []string{"file links=3 attrs=3", "/g &{LinkOrder:1 AttrOrder:0 NoTimes:false}", "/plain <nil>", "/x attrs=1", "/y attrs=0"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("creates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range []struct{ from, to, want string }{
		{"creation_order: indexed", "creation_order: sorted", `d.yaml:5:21: key files.f.creation_order value "sorted": not allowed; allowed: none, tracked, indexed`},
		{"{links: tracked}", "{links: trackd}", `key files.f.groups.g.creation_order.links value "trackd": not allowed (did you mean tracked?)`},
		{"creation_order: tracked}", "creation_order: {links: tracked}}", `key files.f.datasets.x.creation_order: want one of none, tracked, indexed here is a map`},
	} {
		err := planErr(t, strings.Replace(orderSrc, c.from, c.to, 1), 2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.to, err, c.want)
		}
	}
}

// virtualSrc is features.c's serial file: a compact table and a virtual view of it, and a
// view of half of another file's dataset.
const virtualSrc = `
files:
  s:
    name: s.h5
    writer: rank0
    datasets:
      table: {type: i32, shape: [4], layout: compact}
      view: {type: i32, shape: [6], virtual: [{dataset: /table, count: [4]}, {file: other.h5, dataset: /u, start: [4], count: [2], source_start: [2]}, {file: w.h5, dataset: /w}]}
timeline: [{write: s}, {write: s}, {read: s, at: restart}]
`

// TestVirtualPlanned: a virtual dataset is created once with its mappings (defaults: the
// whole shape from 0, and with no block given, both dataspaces selected whole), never written nor read back; bad mappings are errors naming
// file:line:col, key and value.
func TestVirtualPlanned(t *testing.T) {
	p, dir, err := patternFrom(t, virtualSrc)
	if err != nil {
		t.Fatal(err)
	}
	env := patterns.Env{Rank: 0, Size: 2, Path: filepath.Join(dir, "run.h5")}
	var creates, touches []string
	for _, ph := range p.Phases() {
		for _, pl := range all(t, p, ph, env) {
			for _, op := range pl.Ops {
				switch {
				case op.Kind == plan.CreateDataset && op.Path == "/view":
					creates = append(creates, fmt.Sprintf("%+v", op.Dataset.Virtual))
				case op.Path == "/view" && op.Kind != plan.CloseDataset:
					touches = append(touches, op.Kind.String())
				}
			}
		}
	}
	// the third mapping says no block: both dataspaces whole (All)
	want := "[{File:. Dataset:/table Start:[0] Count:[4] SourceStart:[0] All:false} {File:other.h5 Dataset:/u Start:[4] Count:[2] SourceStart:[2] All:false} {File:w.h5 Dataset:/w Start:[0] Count:[6] SourceStart:[0] All:true}]"
	if len(creates) != 1 || creates[0] != want || len(touches) != 0 {
		t.Errorf("view created %v, other operations %v; want one create with %s", creates, touches, want)
	}
	for _, c := range []struct{ from, to, want string }{
		{"{dataset: /table, count: [4]}", "{file: x.h5}", `key files.s.datasets.view.virtual[0].dataset: a mapping needs its source dataset`},
		{"{dataset: /table, count: [4]}", "{dataset: /table, start: [4], count: [4]}", `key files.s.datasets.view.virtual[0].dataset value "/table": the block at [4] of [4] passes view's extent [6]`},
		{"{dataset: /table, count: [4]}", "{dataset: /table, start: [0, 0]}", `key files.s.datasets.view.virtual[0].start[0] value "0": start has 2 entries, view has 1 dimensions`},
	} {
		err := planErr(t, strings.Replace(virtualSrc, c.from, c.to, 1), 2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.to, err, c.want)
		}
	}
}
