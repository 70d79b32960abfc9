package derive

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// TestObjectOrder: a file whose group's dataset was created before the root's datasets
// (features.c's /fields/x before /state) is written with object_order in the order of its
// objects' headers; a file created in the description's own order (the group, then the
// root's datasets, then the group's) has no key.
func TestObjectOrder(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, objs ...string) string {
		path := filepath.Join(dir, name)
		f, err := h5.CreateFile(path, h5.Access{})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			if o == "/g" {
				g, err := h5.CreateGroup(f, o)
				if err != nil {
					t.Fatal(err)
				}
				if err := h5.CloseGroup(g); err != nil {
					t.Fatal(err)
				}
				continue
			}
			// each its own extent, so that none fold into a list
			d, err := h5.CreateDataset(f, o, plan.DatasetSpec{Type: plan.I32, Shape: []uint64{uint64(2 * len(o))}})
			if err != nil {
				t.Fatal(err)
			}
			if err := h5.CloseDataset(d); err != nil {
				t.Fatal(err)
			}
		}
		if err := h5.CloseFile(f); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, c := range []struct {
		objs []string
		want string
	}{
		{[]string{"/g", "/g/x", "/a", "/bb"}, "object_order: [/g, /g/x, /a, /bb]"},
		{[]string{"/g", "/a", "/bb", "/g/x"}, ""},
	} {
		files, err := Read([]string{mk("o.h5", c.objs...)})
		if err != nil {
			t.Fatal(err)
		}
		text := render(t, files, 2)
		if c.want != "" && !strings.Contains(text, c.want) || c.want == "" && strings.Contains(text, "object_order") {
			t.Errorf("created %v: want %q:\n%s", c.objs, c.want, text)
		}
	}
}
