package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// FileHandle is what a FileStack holds: anything that knows the plan path its file was
// created or opened at (a layout's open file, or the path alone: OpenFiles).
type FileHandle interface{ FilePath() string }

// FileStack is the ordered set of the files a run of plans holds open, as SelectFile
// defines it: object operations apply to the innermost one, the current file. Creating or
// opening a file pushes it (Push); SelectFile raises the open file it names to the top,
// the others keeping their order (Select); a close removes the file it names wherever it
// is (Named, Remove), so the file opened or selected before it is current again. A plan
// can so keep several files open and write to each in turn, as a program holding their
// handles does. An empty path names the current file.
//
// Layouts keep their file handles in one (by handle); callers that hold no handles (a
// mode's cache, the session naming the file a read came from) follow the paths alone with
// OpenFiles, so both keep the same order by construction.
type FileStack[F FileHandle] struct{ open []F }

// ErrNoFile is returned for an operation on the current file when no file is open.
var ErrNoFile = errors.New("no file is open")

// Push makes f the innermost open file.
func (s *FileStack[F]) Push(f F) { s.open = append(s.open, f) }

// Current returns the innermost open file; ErrNoFile when none is open.
func (s *FileStack[F]) Current() (F, error) {
	if len(s.open) == 0 {
		var zero F
		return zero, ErrNoFile
	}
	return s.open[len(s.open)-1], nil
}

// find returns the index of the innermost open file at path (the current file for an
// empty path), -1 when none is.
func (s *FileStack[F]) find(path string) int {
	if path == "" {
		return len(s.open) - 1
	}
	for i := len(s.open) - 1; i >= 0; i-- {
		if s.open[i].FilePath() == path {
			return i
		}
	}
	return -1
}

// notOpen is the error for a file path that names no open file.
func (s *FileStack[F]) notOpen(path string) error {
	if len(s.open) == 0 {
		return fmt.Errorf("file %s: %w", path, ErrNoFile)
	}
	names := make([]string, len(s.open))
	for i, f := range s.open {
		names[i] = f.FilePath()
	}
	return fmt.Errorf("file %s is not open (open: %s)", path, strings.Join(names, ", "))
}

// Select makes the open file at path the innermost (SelectFile), the others keeping
// their order; it opens and closes nothing. A path that names no open file is an error
// listing the open ones.
func (s *FileStack[F]) Select(path string) error {
	i := s.find(path)
	if i < 0 {
		return s.notOpen(path)
	}
	s.raise(i)
	return nil
}

// raise makes the open file at index i the innermost.
func (s *FileStack[F]) raise(i int) {
	f := s.open[i]
	s.open = append(slices.Delete(s.open, i, i+1), f)
}

// Named returns the open file at path (a CloseFile's), current or not; an empty path
// names the current file.
func (s *FileStack[F]) Named(path string) (F, error) {
	if i := s.find(path); i >= 0 {
		return s.open[i], nil
	}
	var zero F
	if path == "" {
		return zero, ErrNoFile
	}
	return zero, s.notOpen(path)
}

// Remove forgets the open file at path (the innermost of that name; its caller closes
// it): the files opened or selected before it keep their order. A path that names no
// open file changes nothing.
func (s *FileStack[F]) Remove(path string) {
	if i := s.find(path); i >= 0 {
		s.open = slices.Delete(s.open, i, i+1)
	}
}

// FileOp carries out op when it is a SelectFile or a CloseFile, the operations that name
// their file: close closes the file a close names (and forgets it, Remove); ok reports
// whether op was one of them.
func (s *FileStack[F]) FileOp(op *Op, close func(F) error) (ok bool, err error) {
	switch op.Kind {
	case SelectFile:
		return true, s.Select(op.Path)
	case CloseFile:
		f, err := s.Named(op.Path)
		if err != nil {
			return true, err
		}
		return true, close(f)
	}
	return false, nil
}

// Pop forgets the innermost open file (its caller closes it).
func (s *FileStack[F]) Pop() {
	if len(s.open) > 0 {
		s.open = s.open[:len(s.open)-1]
	}
}

// Len is the number of open files.
func (s *FileStack[F]) Len() int { return len(s.open) }

// All returns the open files, outermost first.
func (s *FileStack[F]) All() []F { return s.open }

// Reset forgets every file (closing none), keeping the storage.
func (s *FileStack[F]) Reset() {
	clear(s.open)
	s.open = s.open[:0]
}

// Abort closes every open file with release, innermost first, after a failure; it
// returns the first error and forgets every file whatever happens.
func (s *FileStack[F]) Abort(release func(F) error) error {
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

// OpenFiles follows, by path, which files a run of plans holds open and which one is
// current: a FileStack of paths, for callers that hold no handles. Apply takes every
// operation; a select of a file that is not open changes nothing.
type OpenFiles struct{ s FileStack[filePath] }

// filePath is an open file known by its path alone.
type filePath string

// FilePath returns the path.
func (p filePath) FilePath() string { return string(p) }

// Apply follows op when it opens, creates, selects or closes a file; other operations
// change nothing.
func (f *OpenFiles) Apply(op *Op) {
	switch op.Kind {
	case CreateFile, OpenFile:
		f.s.Push(filePath(op.Path))
	case SelectFile:
		if i := f.s.find(op.Path); i >= 0 {
			f.s.raise(i)
		}
	case CloseFile:
		f.s.Remove(op.Path)
	}
}

// Current returns the current file's path, "" when no file is open.
func (f *OpenFiles) Current() string {
	p, _ := f.s.Current()
	return string(p)
}

// Len is the number of open files.
func (f *OpenFiles) Len() int { return f.s.Len() }

// Reset forgets every file.
func (f *OpenFiles) Reset() { f.s.Reset() }
