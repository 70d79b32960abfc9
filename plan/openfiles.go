package plan

import "slices"

// OpenFiles follows, by path, which files a run of plans holds open and which one is
// current (the one object operations apply to), as SelectFile defines it: creating or
// opening a file makes it current, SelectFile makes the open file it names current, and a
// close forgets the file it names (the current one when it names none), so the file
// opened or selected before it is current again. A layout keeps the same order of its
// file handles; callers that hold no handles (a mode's cache, the session naming the
// file a read came from) follow the paths with this.
type OpenFiles struct{ paths []string }

// Apply follows op when it opens, creates, selects or closes a file; other operations
// change nothing.
func (f *OpenFiles) Apply(op *Op) {
	switch op.Kind {
	case CreateFile, OpenFile:
		f.paths = append(f.paths, op.Path)
	case SelectFile:
		if i := f.at(op.Path); i >= 0 {
			f.paths = append(slices.Delete(f.paths, i, i+1), op.Path)
		}
	case CloseFile:
		if i := f.at(op.Path); i >= 0 {
			f.paths = slices.Delete(f.paths, i, i+1)
		}
	}
}

// Current returns the current file's path, "" when no file is open.
func (f *OpenFiles) Current() string {
	if len(f.paths) == 0 {
		return ""
	}
	return f.paths[len(f.paths)-1]
}

// Len is the number of open files.
func (f *OpenFiles) Len() int { return len(f.paths) }

// Reset forgets every file.
func (f *OpenFiles) Reset() { f.paths = f.paths[:0] }

// at returns the index of the innermost open file at path (the current file for an empty
// path), -1 when none is.
func (f *OpenFiles) at(path string) int {
	if path == "" {
		return len(f.paths) - 1
	}
	for i := len(f.paths) - 1; i >= 0; i-- {
		if f.paths[i] == path {
			return i
		}
	}
	return -1
}
