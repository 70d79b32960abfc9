package plan

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestOpenFiles: opens and creates make their file current, a select makes the open file
// it names current (a file not open changes nothing), a close forgets the file it names
// or the current one, and the file opened or selected before it is current again.
func TestOpenFiles(t *testing.T) {
	var f OpenFiles
	steps := []struct {
		op   Op
		want string
		open int
	}{
		{Op{Kind: CreateFile, Path: "a.h5"}, "a.h5", 1},
		{Op{Kind: OpenFile, Path: "b.h5"}, "b.h5", 2},
		{Op{Kind: Write, Path: "/x"}, "b.h5", 2},
		{Op{Kind: SelectFile, Path: "a.h5"}, "a.h5", 2},
		{Op{Kind: SelectFile, Path: "c.h5"}, "a.h5", 2},
		{Op{Kind: CreateFile, Path: "c.h5"}, "c.h5", 3},
		{Op{Kind: CloseFile, Path: "b.h5"}, "c.h5", 2},
		{Op{Kind: CloseFile}, "a.h5", 1},
		{Op{Kind: CloseFile, Path: "a.h5"}, "", 0},
		{Op{Kind: CloseFile}, "", 0},
	}
	for i, s := range steps {
		f.Apply(&s.op)
		if f.Current() != s.want || f.Len() != s.open {
			t.Errorf("after %d %s %s: current %q of %d, want %q of %d", i, s.op.Kind, s.op.Path, f.Current(), f.Len(), s.want, s.open)
		}
	}
	f.Apply(&Op{Kind: OpenFile, Path: "d.h5"})
	f.Reset()
	if f.Current() != "" || f.Len() != 0 {
		t.Errorf("after Reset: current %q of %d", f.Current(), f.Len())
	}
}

// handle is a layout's open file in these tests: its path and which open it was (two
// opens of one path are two handles).
type handle struct {
	path string
	n    int
}

func (h *handle) FilePath() string { return h.path }

// pathsOf lists the open files, outermost first.
func pathsOf(s *FileStack[*handle]) []string {
	var out []string
	for _, f := range s.All() {
		out = append(out, f.path)
	}
	return out
}

// TestFileStackSelectAndCloseByPath: a select raises the file it names, keeping the
// others' order; a close removes the file it names wherever it is, the file opened or
// selected before the current one becoming current; an empty path names the current
// file; a path that names no open file is an error listing the open ones.
func TestFileStackSelectAndCloseByPath(t *testing.T) {
	var s FileStack[*handle]
	if _, err := s.Current(); !errors.Is(err, ErrNoFile) {
		t.Fatalf("no file open: %v", err)
	}
	if err := s.Select("a.h5"); !errors.Is(err, ErrNoFile) {
		t.Errorf("select with no file open: %v", err)
	}
	if _, err := s.Named(""); !errors.Is(err, ErrNoFile) {
		t.Errorf("the current file with no file open: %v", err)
	}
	for i, p := range []string{"a.h5", "b.h5", "c.h5"} {
		s.Push(&handle{p, i})
	}
	if err := s.Select("a.h5"); err != nil {
		t.Fatal(err)
	}
	if got := pathsOf(&s); !slices.Equal(got, []string{"b.h5", "c.h5", "a.h5"}) {
		t.Errorf("after selecting a.h5: %v", got)
	}
	if err := s.Select("a.h5"); err != nil || pathsOf(&s)[2] != "a.h5" {
		t.Errorf("selecting the current file: %v, %v", err, pathsOf(&s))
	}
	f, err := s.Named("c.h5")
	if err != nil || f.path != "c.h5" || f.n != 2 {
		t.Fatalf("Named(c.h5) = %v, %v", f, err)
	}
	s.Remove("c.h5")
	if cur, _ := s.Current(); cur.path != "a.h5" || !slices.Equal(pathsOf(&s), []string{"b.h5", "a.h5"}) {
		t.Errorf("after closing c.h5 (not current): current %v, open %v", cur, pathsOf(&s))
	}
	if f, err := s.Named(""); err != nil || f.path != "a.h5" {
		t.Errorf("Named(\"\") = %v, %v; want the current file", f, err)
	}
	s.Remove("a.h5")
	if cur, _ := s.Current(); cur.path != "b.h5" {
		t.Errorf("after closing the current file: current %v, want b.h5", cur)
	}
	for _, err := range []error{s.Select("z.h5"), func() error { _, err := s.Named("z.h5"); return err }()} {
		if err == nil || !strings.Contains(err.Error(), "file z.h5 is not open (open: b.h5)") {
			t.Errorf("unknown file: %v", err)
		}
	}
	s.Remove("z.h5") // names no open file: nothing changes
	if !slices.Equal(pathsOf(&s), []string{"b.h5"}) {
		t.Errorf("removing a file that is not open: %v", pathsOf(&s))
	}
	// FileOp: a select and a close by path; any other operation is not one of them.
	s.Push(&handle{"d.h5", 3})
	var closed []string
	closeF := func(f *handle) error { closed = append(closed, f.path); s.Remove(f.path); return nil }
	for _, op := range []Op{{Kind: SelectFile, Path: "b.h5"}, {Kind: CloseFile, Path: "d.h5"}} {
		if ok, err := s.FileOp(&op, closeF); !ok || err != nil {
			t.Errorf("FileOp(%s %s) = %v, %v", op.Kind, op.Path, ok, err)
		}
	}
	if ok, _ := s.FileOp(&Op{Kind: Write, Path: "/x"}, closeF); ok {
		t.Error("FileOp took a write")
	}
	if !slices.Equal(closed, []string{"d.h5"}) || !slices.Equal(pathsOf(&s), []string{"b.h5"}) {
		t.Errorf("after FileOp: closed %v, open %v", closed, pathsOf(&s))
	}
	if ok, err := s.FileOp(&Op{Kind: CloseFile, Path: "z.h5"}, closeF); !ok || err == nil {
		t.Errorf("closing a file that is not open: %v, %v", ok, err)
	}
}

// TestFileStackSamePathTwice: a path opened twice is two handles; a select, a close and
// a lookup by path take the innermost, the outer one staying open.
func TestFileStackSamePathTwice(t *testing.T) {
	var s FileStack[*handle]
	s.Push(&handle{"a.h5", 0})
	s.Push(&handle{"b.h5", 1})
	s.Push(&handle{"a.h5", 2})
	if f, _ := s.Named("a.h5"); f.n != 2 {
		t.Errorf("Named(a.h5) = open %d, want the innermost (2)", f.n)
	}
	s.Remove("a.h5")
	if f, _ := s.Named("a.h5"); f.n != 0 || s.Len() != 2 {
		t.Errorf("after closing the inner a.h5: Named = open %d of %d files, want 0 of 2", f.n, s.Len())
	}
}

// TestFileStackAbort: Abort releases every open file innermost first, returns the first
// error, and forgets every file even when a release fails; Pop and Reset forget without
// releasing.
func TestFileStackAbort(t *testing.T) {
	var s FileStack[*handle]
	for i, p := range []string{"a.h5", "b.h5", "c.h5"} {
		s.Push(&handle{p, i})
	}
	var released []string
	first, second := errors.New("first"), errors.New("second")
	err := s.Abort(func(f *handle) error {
		released = append(released, f.path)
		switch f.path {
		case "b.h5":
			return first
		case "a.h5":
			return second
		}
		return nil
	})
	if !errors.Is(err, first) || !slices.Equal(released, []string{"c.h5", "b.h5", "a.h5"}) || s.Len() != 0 {
		t.Errorf("Abort = %v, released %v, %d left open", err, released, s.Len())
	}
	s.Push(&handle{"a.h5", 0})
	s.Push(&handle{"b.h5", 1})
	s.Pop()
	if cur, _ := s.Current(); cur.path != "a.h5" || s.Len() != 1 {
		t.Errorf("after Pop: current %v of %d", cur, s.Len())
	}
	s.Pop()
	s.Pop() // none open: nothing to forget
	s.Push(&handle{"c.h5", 2})
	s.Reset()
	if _, err := s.Current(); !errors.Is(err, ErrNoFile) || s.Len() != 0 {
		t.Errorf("after Reset: %v, %d open", err, s.Len())
	}
}

// TestOpenFilesFollowsLayoutStack: a session or a mode's cache, following a run of plans
// by path (OpenFiles), names the same current file, after every operation, as a layout
// that holds the handles (FileStack with FileOp), including selects and closes of files
// that are not current and closes of the current file without a path.
func TestOpenFilesFollowsLayoutStack(t *testing.T) {
	ops := []Op{
		{Kind: CreateFile, Path: "a.h5"}, {Kind: CreateFile, Path: "b.h5"}, {Kind: OpenFile, Path: "c.h5"},
		{Kind: Write, Path: "/x"}, {Kind: SelectFile, Path: "a.h5"}, {Kind: SelectFile, Path: "b.h5"},
		{Kind: CloseFile, Path: "c.h5"}, {Kind: OpenFile, Path: "c.h5"}, {Kind: SelectFile, Path: "a.h5"},
		{Kind: CloseFile}, {Kind: CreateFile, Path: "d.h5"}, {Kind: SelectFile, Path: "c.h5"},
		{Kind: CloseFile, Path: "b.h5"}, {Kind: CloseFile}, {Kind: CloseFile, Path: "d.h5"},
	}
	var paths OpenFiles
	var layout FileStack[*handle]
	for i := range ops {
		op := &ops[i]
		paths.Apply(op)
		switch op.Kind {
		case CreateFile, OpenFile:
			layout.Push(&handle{op.Path, i})
		default:
			if _, err := layout.FileOp(op, func(f *handle) error { layout.Remove(f.path); return nil }); err != nil {
				t.Fatalf("op %d %s %s: %v", i, op.Kind, op.Path, err)
			}
		}
		cur, _ := layout.Current()
		want := ""
		if cur != nil {
			want = cur.path
		}
		if paths.Current() != want || paths.Len() != layout.Len() {
			t.Errorf("after op %d %s %s: OpenFiles %q of %d, layout %q of %d", i, op.Kind, op.Path, paths.Current(), paths.Len(), want, layout.Len())
		}
	}
	if layout.Len() != 0 {
		t.Errorf("%d files left open: %v", layout.Len(), pathsOf(&layout))
	}
}
