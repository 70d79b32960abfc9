// Package null is the layout that performs no I/O, for measuring the proxy's own
// overhead and for tests that need no files.
package null

import (
	"fmt"

	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// nullLayout performs no I/O: it measures the proxy's own overhead (like ADIOS2's null
// engine and IOR's DUMMY backend). It remembers dataset shapes so read plans can be made.
type nullLayout struct {
	open   int
	shapes map[string][]uint64
}

func init() {
	stack.RegisterLayout(stack.Strategy{Name: "null",
		Summary:   "no I/O: measures the proxy's own overhead (ADIOS2's null engine, IOR's DUMMY)",
		NewLayout: func(stack.Env) (stack.Layout, error) { return &nullLayout{shapes: shapes}, nil }})
}

// shapes outlive one phase so a read after a write in the same process finds them.
var shapes = map[string][]uint64{}

func (l *nullLayout) Exec(op *plan.Op, buf []byte) error {
	switch op.Kind {
	case plan.CreateFile, plan.OpenFile:
		l.open++
	case plan.CloseFile:
		l.open--
	case plan.CreateDataset, plan.ExtendDataset:
		l.shapes[op.Path] = op.Dataset.Shape
	case plan.Write, plan.Read:
		if need := op.Transfer.Selection.NPoints(op.Transfer.FileShape) * uint64(op.Transfer.MemType.Size); uint64(len(buf)) < need {
			return fmt.Errorf("null layout: buffer of %d bytes, transfer needs %d", len(buf), need)
		}
	}
	return nil
}

func (l *nullLayout) Shape(path string) ([]uint64, error) {
	if s, ok := l.shapes[path]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("null layout: no dataset %s was written in this process", path)
}

func (l *nullLayout) Abort() error { l.open = 0; return nil }
