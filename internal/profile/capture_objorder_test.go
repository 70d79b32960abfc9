package profile

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCaptureObjectOrder: a file whose group's datasets were created before the root's
// (features.c's /fields/x before /state) and a series created before another action's
// dataset is captured with object_order in the traced order; a trace in the order a
// description replays without it (groups, then the root's datasets, then the group's)
// has no key.
func TestCaptureObjectOrder(t *testing.T) {
	trace := func(order []string) *Profile {
		file := "/x/a.h5"
		p := &Profile{Ranks: 1, Traced: true, Calls: map[string]Call{}}
		p.Records = append(p.Records, Record{Module: "H5F", File: file, Rank: -1, Counters: map[string]int64{"H5F_USE_MPIIO": 1}})
		p.Events = append(p.Events, Event{Rank: 0, Module: "H5F", Call: "H5Fcreate", File: file})
		for _, o := range order {
			if o == "/g" {
				p.Events = append(p.Events, Event{Rank: 0, Module: "H5F", Call: "H5Gcreate2", File: file, Object: o})
				continue
			}
			p.Records = append(p.Records, Record{Module: "H5D", File: file, Name: o, Rank: -1,
				Info: json.RawMessage(`{"dims":[4],"maxdims":[4],"layout":1,"type_class":1,"type_size":8}`)})
			p.Events = append(p.Events, Event{Rank: 0, Module: "H5D", Call: "H5Dcreate2", File: file, Name: o})
			p.Events = append(p.Events, Event{Rank: 0, Module: "H5D", Call: "H5Dwrite", File: file, Name: o, Collective: true})
		}
		return p
	}
	for _, c := range []struct {
		order []string
		want  string
	}{
		{[]string{"/g", "/g/x", "/g/y", "/a", "/b"}, "/g /g/x /g/y /a /b"},
		{[]string{"/a", "/g", "/g/x", "/b"}, "/a /g /g/x /b"},
		{[]string{"/g", "/a", "/b", "/g/x", "/g/y"}, ""},
	} {
		got, err := Capture(trace(c.order), "h")
		if err != nil {
			t.Fatal(err)
		}
		checked(t, got)
		f := fileOf(t, got.Desc, "a")
		var names []string
		for _, v := range f.ObjectOrder {
			names = append(names, v.Text)
		}
		if g := strings.Join(names, " "); g != c.want {
			t.Errorf("traced %v: object_order %q, want %q\n%s", c.order, g, c.want, got.YAML)
		}
		if c.want != "" && !strings.Contains(got.YAML, "object_order: [") {
			t.Errorf("traced %v: the YAML lacks object_order:\n%s", c.order, got.YAML)
		}
	}
}
