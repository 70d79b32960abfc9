package null

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

func op(k plan.OpKind, path string, shape ...uint64) *plan.Op {
	o := &plan.Op{Kind: k, Path: path}
	if shape != nil {
		o.Dataset = &plan.DatasetSpec{Shape: shape}
	}
	return o
}

func exec(t *testing.T, l *nullLayout, ops ...*plan.Op) {
	t.Helper()
	for _, o := range ops {
		if err := l.Exec(o, nil); err != nil {
			t.Fatalf("%s %s: %v", o.Kind, o.Path, err)
		}
	}
}

func wantShape(t *testing.T, l *nullLayout, path string, want []uint64) {
	t.Helper()
	got, err := l.Shape(path)
	if want == nil {
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("Shape(%s) = %v, %v; want an error naming it", path, got, err)
		}
		return
	}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Shape(%s) = %v, %v; want %v", path, got, err, want)
	}
}

// TestShapes checks what the null layout remembers: a session's datasets per file, the
// latest extent of each, forgotten when the file is created again, and nothing of another
// session's.
func TestShapes(t *testing.T) {
	l := newLayout()
	exec(t, l, op(plan.CreateFile, "a.h5"), op(plan.CreateDataset, "/x", 4), op(plan.ExtendDataset, "/x", 8),
		op(plan.CreateDataset, "/y", 2, 3), op(plan.CloseFile, "a.h5"))
	wantShape(t, l, "/x", []uint64{8}) // after the close: a read phase plans before it opens
	wantShape(t, l, "/y", []uint64{2, 3})
	exec(t, l, op(plan.CreateFile, "b.h5"), op(plan.CreateDataset, "/z", 5))
	wantShape(t, l, "/z", []uint64{5})
	wantShape(t, l, "/x", nil) // a.h5's, not b.h5's
	exec(t, l, op(plan.CloseFile, "b.h5"), op(plan.OpenFile, "a.h5"))
	wantShape(t, l, "/x", []uint64{8})
	wantShape(t, l, "/z", nil)
	exec(t, l, op(plan.ExtendDataset, "/x", 9)) // indexed, then extended
	wantShape(t, l, "/x", []uint64{9})
	exec(t, l, op(plan.CloseFile, "a.h5"), op(plan.CreateFile, "a.h5"), op(plan.CreateDataset, "/w", 1))
	wantShape(t, l, "/x", nil) // the file was created anew
	wantShape(t, l, "/w", []uint64{1})
	if l.open != 1 {
		t.Errorf("%d files open, want 1", l.open)
	}

	other := newLayout() // another session
	wantShape(t, other, "/w", nil)
	exec(t, other, op(plan.OpenFile, "a.h5"))
	wantShape(t, other, "/w", nil)
	if err := other.Exec(op(plan.CreateDataset, "/v", 1), nil); err != nil {
		t.Errorf("a dataset created in an opened file: %v", err)
	}
	if err := newLayout().Exec(op(plan.CreateDataset, "/v", 1), nil); err == nil || !strings.Contains(err.Error(), "no file is open") {
		t.Errorf("a dataset created with no file open: %v", err)
	}
}

// TestShapesReuse checks that a phase writing the file again keeps no more than the file
// holds and allocates nothing: the memory of the earlier phase's datasets is reused.
func TestShapesReuse(t *testing.T) {
	const n = 1000
	l := newLayout()
	ops := []*plan.Op{op(plan.CreateFile, "a.h5")}
	for i := range n {
		ops = append(ops, op(plan.CreateDataset, "/Timestep_"+strconv.Itoa(i)+"/x", uint64(i+1)))
	}
	ops = append(ops, op(plan.CloseFile, "a.h5"))
	exec(t, l, ops...)
	wantShape(t, l, "/Timestep_7/x", []uint64{8})
	allocs := testing.AllocsPerRun(5, func() { exec(t, l, ops...) })
	if allocs != 0 {
		t.Errorf("%v allocations per phase writing the file again, want 0", allocs)
	}
	if f := l.files["a.h5"]; len(f.sets) != n || len(l.files) != 1 {
		t.Errorf("%d datasets kept in %d files, want %d in 1", len(f.sets), len(l.files), n)
	}
	wantShape(t, l, "/Timestep_999/x", []uint64{1000})
}
