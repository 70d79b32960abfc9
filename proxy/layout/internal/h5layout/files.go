package h5layout

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// File is a layout's open file as its stack knows it: by the plan path it was opened at.
type File interface{ FilePath() string }

// Files is a layout's stack of open files: object operations apply to the innermost one,
// the current file. Opening a file pushes it; plan.SelectFile raises an open file to the
// top (Select) and a close removes the file it names wherever it is (Named, Remove), so a
// plan can keep several files open and write to each in turn, as a program holding
// their handles does.
type Files[F File] struct{ open []F }

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

// find returns the index of the innermost open file at path, -1 when none is.
func (s *Files[F]) find(path string) int {
	for i := len(s.open) - 1; i >= 0; i-- {
		if s.open[i].FilePath() == path {
			return i
		}
	}
	return -1
}

// notOpen is the error for a file path that names no open file.
func (s *Files[F]) notOpen(path string) error {
	if len(s.open) == 0 {
		return fmt.Errorf("file %s: %w", path, ErrNoFile)
	}
	names := make([]string, len(s.open))
	for i, f := range s.open {
		names[i] = f.FilePath()
	}
	return fmt.Errorf("file %s is not open (open: %s)", path, strings.Join(names, ", "))
}

// Select makes the open file at path the innermost (plan.SelectFile), the others keeping
// their order; it opens and closes nothing.
func (s *Files[F]) Select(path string) error {
	i := s.find(path)
	if i < 0 {
		return s.notOpen(path)
	}
	f := s.open[i]
	s.open = append(slices.Delete(s.open, i, i+1), f)
	return nil
}

// Named returns the open file at path (a plan.CloseFile's), current or not; an empty
// path names the current file.
func (s *Files[F]) Named(path string) (F, error) {
	if path == "" {
		return s.Current()
	}
	if i := s.find(path); i >= 0 {
		return s.open[i], nil
	}
	var zero F
	return zero, s.notOpen(path)
}

// Remove forgets the open file at path (the innermost of that name; its caller closes
// it): the files opened or selected before it keep their order.
func (s *Files[F]) Remove(path string) {
	if i := s.find(path); i >= 0 {
		s.open = slices.Delete(s.open, i, i+1)
	}
}

// FileOp carries out op when it is a plan.SelectFile or a plan.CloseFile, the operations
// that name their file: close closes the file a close names (and forgets it, Remove); ok
// reports whether op was one of them.
func (s *Files[F]) FileOp(op *plan.Op, close func(F) error) (ok bool, err error) {
	switch op.Kind {
	case plan.SelectFile:
		return true, s.Select(op.Path)
	case plan.CloseFile:
		f, err := s.Named(op.Path)
		if err != nil {
			return true, err
		}
		return true, close(f)
	}
	return false, nil
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
		if op.Dataset != nil && op.Dataset.API1 {
			id, err = h5.OpenDataset1(file, op.Path)
			break
		}
		id, err = h5.OpenDatasetColl(file, op.Path, op.CollMetadata)
	default:
		err = fmt.Errorf("%s %s: not an object to open", op.Kind, op.Path)
	}
	return id, err
}
