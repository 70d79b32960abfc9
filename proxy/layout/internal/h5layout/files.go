package h5layout

import (
	"errors"
	"fmt"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// Files is a layout's stack of open files: object operations apply to the innermost one.
type Files[F any] struct{ open []F }

// ErrNoFile is returned for an object operation when no file is open.
var ErrNoFile = errors.New("no file is open")

// Push makes f the innermost open file.
func (s *Files[F]) Push(f F) { s.open = append(s.open, f) }

// Current returns the innermost open file.
func (s *Files[F]) Current() (F, error) {
	if len(s.open) == 0 {
		var zero F
		return zero, ErrNoFile
	}
	return s.open[len(s.open)-1], nil
}

// Pop forgets the innermost open file (its caller closes it).
func (s *Files[F]) Pop() {
	if len(s.open) > 0 {
		s.open = s.open[:len(s.open)-1]
	}
}

// Len is the number of open files.
func (s *Files[F]) Len() int { return len(s.open) }

// All returns the open files, outermost first.
func (s *Files[F]) All() []F { return s.open }

// Abort closes every open file with release, innermost first, after a failure; it
// returns the first error and forgets every file whatever happens.
func (s *Files[F]) Abort(release func(F) error) error {
	var first error
	for len(s.open) > 0 {
		f := s.open[len(s.open)-1]
		s.Pop()
		if err := release(f); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Shape returns the extent of the dataset at path: from its open identifier when the
// table holds it, else by opening it briefly in file.
func (o ObjTable) Shape(file h5.ID, path string) ([]uint64, error) {
	if id, ok := o.IDs[path]; ok && !IsGroupKind(o.Kinds[path]) {
		return h5.DatasetShape(id)
	}
	return OpenShape(file, path)
}

// CloseForFileClose closes every object still open when its file closes. The objects
// were leaked by the plan, a bug that would change HDF5's close behaviour: the returned
// error names them (nil when none was open).
func (o ObjTable) CloseForFileClose() error {
	if leaked := o.CloseAll(); len(leaked) > 0 {
		return fmt.Errorf("plan left objects open at file close: %v", leaked)
	}
	return nil
}

// Open creates or opens, in file, the group or dataset op names (CreateGroup, OpenGroup,
// CreateDataset, OpenDataset) and records it; an open with op.AsObject goes through
// H5Oopen.
func (o ObjTable) Open(file h5.ID, op *plan.Op) error {
	if _, dup := o.IDs[op.Path]; dup {
		return fmt.Errorf("%s is already open", op.Path)
	}
	var id h5.ID
	var err error
	switch {
	case op.AsObject && (op.Kind == plan.OpenGroup || op.Kind == plan.OpenDataset):
		if id, err = h5.OpenObject(file, op.Path, op.CollMetadata); err == nil {
			o.Generic[op.Path] = true
		}
	default:
		id, err = openByKind(file, op)
	}
	if err != nil {
		return err
	}
	o.Add(op.Path, id, op.Kind)
	return nil
}

// openByKind creates or opens the object of op with the call its kind names.
func openByKind(file h5.ID, op *plan.Op) (id h5.ID, err error) {
	switch op.Kind {
	case plan.CreateGroup:
		id, err = h5.CreateGroup(file, op.Path)
	case plan.OpenGroup:
		id, err = h5.OpenGroupColl(file, op.Path, op.CollMetadata)
	case plan.CreateDataset:
		id, err = h5.CreateDataset(file, op.Path, *op.Dataset)
	case plan.OpenDataset:
		id, err = h5.OpenDatasetColl(file, op.Path, op.CollMetadata)
	default:
		err = fmt.Errorf("%s %s: not an object to open", op.Kind, op.Path)
	}
	return id, err
}
