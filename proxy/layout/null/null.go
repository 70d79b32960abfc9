// Package null is the layout that performs no I/O, for measuring the proxy's own
// overhead and for tests that need no files.
package null

import (
	"fmt"

	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// nullLayout performs no I/O: it measures the proxy's own overhead (like ADIOS2's null
// engine and IOR's DUMMY backend). It remembers the dataset shapes of the files its
// session created, so that a read phase after a write phase can be planned.
//
// The shapes belong to the session (one layout per session: a process's sessions do not
// see each other's, and they go with the session at its close) and to a file (creating
// the file again forgets what it held, as a truncating H5Fcreate does).
type nullLayout struct {
	open  int
	files map[string]*fileShapes // by file path
	cur   *fileShapes            // the file created or opened last
}

// fileShapes are the dataset extents of one file, in the order they were set: a step
// appends to a slice (no hashing, no allocation once its capacity is reached: a phase
// that writes the file again reuses it), and Shape indexes them when asked (read phases
// ask once per dataset and opened file).
type fileShapes struct {
	sets    []dataset
	index   map[string][]uint64 // path -> extent, of sets[:indexed]
	indexed int
}

// dataset is a dataset's extent as set by a create or an extend.
type dataset struct {
	path  string
	shape []uint64
}

func init() {
	stack.RegisterLayout(stack.Strategy{Name: "null",
		Summary:   "no I/O: measures the proxy's own overhead (ADIOS2's null engine, IOR's DUMMY)",
		NewLayout: func(stack.Env) (stack.Layout, error) { return newLayout(), nil }})
}

func newLayout() *nullLayout { return &nullLayout{files: map[string]*fileShapes{}} }

func (l *nullLayout) Exec(op *plan.Op, buf []byte) error {
	switch op.Kind {
	case plan.CreateFile, plan.OpenFile:
		l.open++
		f := l.files[op.Path]
		if f == nil { // opened: a file of another session or process, whose datasets Shape does not know
			f = &fileShapes{}
			l.files[op.Path] = f
		}
		if op.Kind == plan.CreateFile {
			f.reset()
		}
		l.cur = f
	case plan.CloseFile:
		l.open--
	case plan.CreateDataset, plan.ExtendDataset:
		if l.cur == nil {
			return fmt.Errorf("null layout: %s %s: no file is open", op.Kind, op.Path)
		}
		l.cur.sets = append(l.cur.sets, dataset{op.Path, op.Dataset.Shape})
	case plan.Write, plan.Read:
		if need := op.Transfer.Selection.NPoints(op.Transfer.FileShape) * uint64(op.Transfer.MemType.Size); uint64(len(buf)) < need {
			return fmt.Errorf("null layout: buffer of %d bytes, transfer needs %d", len(buf), need)
		}
	}
	return nil
}

// reset forgets the file's datasets, keeping the memory for the next writer.
func (f *fileShapes) reset() {
	clear(f.sets) // drop the references to earlier plans' paths and shapes
	f.sets = f.sets[:0]
	clear(f.index)
	f.indexed = 0
}

func (l *nullLayout) Shape(path string) ([]uint64, error) {
	f := l.cur
	if f == nil {
		return nil, fmt.Errorf("null layout: no dataset %s: no file is open", path)
	}
	if f.indexed < len(f.sets) {
		if f.index == nil {
			f.index = make(map[string][]uint64, len(f.sets))
		}
		for _, d := range f.sets[f.indexed:] {
			f.index[d.path] = d.shape
		}
		f.indexed = len(f.sets)
	}
	if s, ok := f.index[path]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("null layout: no dataset %s was written to this file in this session", path)
}

func (l *nullLayout) Abort() error { l.open = 0; return nil }
