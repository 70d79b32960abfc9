package profile

import (
	"path"
	"slices"
	"strings"
)

// defineOf reads rank 0's trace of file f for when the program creates its datasets:
// upfront when every H5Dcreate of the file comes before its first H5Dwrite and there are
// at least two (netCDF-4 creates every variable at nc_enddef, then writes), and flush
// when an H5Fflush comes between the last create and the first write (nc_enddef syncs the
// file). A trace without events, or with one create, says lazy: the engine's default
// creates each dataset at its first write, which is the same order then.
func defineOf(p *Profile, f string) (upfront, flush bool) {
	creates, lastCreate, firstWrite, flushAt := 0, -1, -1, -1
	for i, e := range p.Events {
		if e.Rank != 0 || e.File != f {
			continue
		}
		switch {
		case e.Module == "H5D" && strings.HasPrefix(e.Call, "H5Dcreate"):
			if firstWrite >= 0 {
				return false, false // created after a write: lazy
			}
			creates++
			lastCreate = i
		case e.Call == "H5Dwrite" && firstWrite < 0:
			firstWrite = i
		case e.Call == "H5Fflush" && firstWrite < 0 && lastCreate >= 0:
			flushAt = i
		}
	}
	if creates < 2 || firstWrite < 0 {
		return false, false
	}
	return true, flushAt > lastCreate
}

// flushedWrites reads rank 0's trace of file f for a flush after each dataset's write, as
// PETSc's VecView flushes the file at the end of each Vec it writes: when every H5Dwrite
// is followed by an H5Fflush before the next, it returns the datasets' base names in
// the order of the first step's writes (until a name comes again), else nil.
func flushedWrites(p *Profile, f string) []string {
	var names []string
	pending, repeated := false, false
	for _, e := range p.Events {
		if e.Rank != 0 || e.File != f {
			continue
		}
		switch e.Call {
		case "H5Dwrite":
			if pending {
				return nil // two writes with no flush between
			}
			pending = true
			n := path.Base(e.Name)
			repeated = repeated || slices.Contains(names, n)
			if !repeated {
				names = append(names, n)
			}
		case "H5Fflush":
			pending = false
		}
	}
	if pending {
		return nil
	}
	return names
}
