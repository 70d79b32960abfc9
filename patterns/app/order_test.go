package app

import (
	"fmt"
	"strings"
	"testing"

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
	want := []string{"file links=3 attrs=3", "/g &{LinkOrder:1 AttrOrder:0}", "/plain <nil>", "/x attrs=1", "/y attrs=0"}
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
