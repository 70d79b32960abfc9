package h5layout

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

type named string

func (n named) FilePath() string { return string(n) }

// paths lists the open files, outermost first.
func paths(s *Files[named]) []string {
	var out []string
	for _, f := range s.All() {
		out = append(out, string(f))
	}
	return out
}

// TestFilesSelectAndCloseByPath: a select raises the file it names, keeping the others'
// order; a close removes the file it names wherever it is, the file opened or selected
// before the current one becoming current; an empty path names the current file; a path
// that names no open file is an error listing the open ones.
func TestFilesSelectAndCloseByPath(t *testing.T) {
	var s Files[named]
	if _, err := s.Current(); !errors.Is(err, ErrNoFile) {
		t.Fatalf("no file open: %v", err)
	}
	if err := s.Select("a.h5"); !errors.Is(err, ErrNoFile) {
		t.Errorf("select with no file open: %v", err)
	}
	for _, p := range []string{"a.h5", "b.h5", "c.h5"} {
		s.Push(named(p))
	}
	if err := s.Select("a.h5"); err != nil {
		t.Fatal(err)
	}
	if got := paths(&s); !slices.Equal(got, []string{"b.h5", "c.h5", "a.h5"}) {
		t.Errorf("after selecting a.h5: %v", got)
	}
	if err := s.Select("a.h5"); err != nil || paths(&s)[2] != "a.h5" {
		t.Errorf("selecting the current file: %v, %v", err, paths(&s))
	}
	f, err := s.Named("c.h5")
	if err != nil || f != "c.h5" {
		t.Fatalf("Named(c.h5) = %v, %v", f, err)
	}
	s.Remove("c.h5")
	if cur, _ := s.Current(); cur != "a.h5" || !slices.Equal(paths(&s), []string{"b.h5", "a.h5"}) {
		t.Errorf("after closing c.h5 (not current): current %s, open %v", cur, paths(&s))
	}
	if f, err := s.Named(""); err != nil || f != "a.h5" {
		t.Errorf("Named(\"\") = %v, %v; want the current file", f, err)
	}
	s.Remove("a.h5")
	if cur, _ := s.Current(); cur != "b.h5" {
		t.Errorf("after closing the current file: current %s, want b.h5", cur)
	}
	for _, err := range []error{s.Select("z.h5"), func() error { _, err := s.Named("z.h5"); return err }()} {
		if err == nil || !strings.Contains(err.Error(), "file z.h5 is not open (open: b.h5)") {
			t.Errorf("unknown file: %v", err)
		}
	}
	// FileOp: a select and a close by path; any other operation is not one of them.
	s.Push("d.h5")
	var closed []string
	closeF := func(f named) error { closed = append(closed, string(f)); s.Remove(string(f)); return nil }
	for _, op := range []plan.Op{{Kind: plan.SelectFile, Path: "b.h5"}, {Kind: plan.CloseFile, Path: "d.h5"}} {
		if ok, err := s.FileOp(&op, closeF); !ok || err != nil {
			t.Errorf("FileOp(%s %s) = %v, %v", op.Kind, op.Path, ok, err)
		}
	}
	if ok, _ := s.FileOp(&plan.Op{Kind: plan.Write, Path: "/x"}, closeF); ok {
		t.Error("FileOp took a write")
	}
	if !slices.Equal(closed, []string{"d.h5"}) || !slices.Equal(paths(&s), []string{"b.h5"}) {
		t.Errorf("after FileOp: closed %v, open %v", closed, paths(&s))
	}
	if ok, err := s.FileOp(&plan.Op{Kind: plan.CloseFile, Path: "z.h5"}, closeF); !ok || err == nil {
		t.Errorf("closing a file that is not open: %v, %v", ok, err)
	}
}
