package plan

import "testing"

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
