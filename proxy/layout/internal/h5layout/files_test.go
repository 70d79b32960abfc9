package h5layout

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// TestOpenInParent: a create with plan.Op.InParent goes through its parent group, which
// the table holds open, by its last name (openPMD-api's createPath and createDataset), and
// lands at its full path; without the parent open it is refused, naming the parent, and
// nothing is created.
func TestOpenInParent(t *testing.T) {
	f, err := h5.CreateFile(filepath.Join(t.TempDir(), "p.h5"), h5.Access{})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	o := NewObjTable()
	must := func(op plan.Op) {
		t.Helper()
		if err := o.Open(f, &op); err != nil {
			t.Fatalf("%s %s: %v", op.Kind, op.Path, err)
		}
	}
	spec := &plan.DatasetSpec{Type: plan.F64, Shape: []uint64{4, 3}}
	must(plan.Op{Kind: plan.CreateGroup, Path: "/a"})
	must(plan.Op{Kind: plan.CreateGroup, Path: "/a/b", InParent: true})
	must(plan.Op{Kind: plan.CreateDataset, Path: "/a/x", InParent: true, Dataset: spec})
	if got, err := o.Shape(f, "/a/x"); err != nil || !reflect.DeepEqual(got, spec.Shape) {
		t.Errorf("/a/x through the table: %v, %v; want %v", got, err, spec.Shape)
	}
	for _, p := range []string{"/a/x", "/a/b", "/a"} {
		if err := o.Close(p); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := OpenShape(f, "/a/x"); err != nil || !reflect.DeepEqual(got, spec.Shape) {
		t.Errorf("/a/x by its full path: %v, %v; want %v", got, err, spec.Shape)
	}
	// /a/b is a group: a dataset created in it by name lands at /a/b/y
	must(plan.Op{Kind: plan.OpenGroup, Path: "/a/b"})
	must(plan.Op{Kind: plan.CreateDataset, Path: "/a/b/y", InParent: true, Dataset: spec})
	o.CloseAll()
	if _, err := OpenShape(f, "/a/b/y"); err != nil {
		t.Errorf("/a/b/y: %v", err)
	}

	err = o.Open(f, &plan.Op{Kind: plan.CreateDataset, Path: "/a/z", InParent: true, Dataset: spec})
	if err == nil || !strings.Contains(err.Error(), "group /a is not open") {
		t.Errorf("create in a parent not open: %v, want the parent named", err)
	}
	if _, err := OpenShape(f, "/a/z"); err == nil {
		t.Errorf("/a/z was created though its create was refused")
	}
}
