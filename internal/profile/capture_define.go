package profile

import "strings"

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
