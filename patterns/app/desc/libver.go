package desc

import "slices"

// LibverNames spell the library version bounds a file's libver key takes, oldest first;
// latest is the library's newest (v110 in HDF5 1.10, v114 in 1.14).
var LibverNames = []string{"earliest", "v18", "v110", "latest"}

// Libver is a file's library version bounds (H5Pset_libver_bounds) as indices into
// LibverNames; Set false leaves HDF5's defaults (earliest, latest).
type Libver struct {
	Set       bool
	Low, High int
}

// Latest reports latest/latest: the newest object formats for everything.
func (l Libver) Latest() bool { return l.Set && l.Low == len(LibverNames)-1 }

// LibverOf reads a file's libver key: `default` (or absent), `latest` (latest/latest), or
// a list [LOW, HIGH] of LibverNames with LOW not after HIGH.
func LibverOf(v Value) (Libver, error) {
	const allowed = "default, latest, or [LOW, HIGH] of earliest, v18, v110, latest (e.g. [v18, latest] as netCDF-4 sets)"
	latest := len(LibverNames) - 1
	if len(v.List) == 0 {
		switch {
		case !v.Set || v.Text == "default":
			return Libver{}, nil
		case v.Text == "latest":
			return Libver{Set: true, Low: latest, High: latest}, nil
		}
		return Libver{}, errAt(v, "not a library version bound pair", allowed)
	}
	if len(v.List) != 2 {
		return Libver{}, errAt(v, "a list of %d bounds (want LOW and HIGH)", allowed, len(v.List))
	}
	var b [2]int
	for i, e := range v.List {
		if b[i] = slices.Index(LibverNames, e.Text); b[i] < 0 {
			return Libver{}, errAt(e, "not a library version", allowed)
		}
	}
	if b[0] > b[1] {
		return Libver{}, errAt(v.List[0], "the low bound is after the high bound %s", allowed, v.List[1].Text)
	}
	return Libver{Set: true, Low: b[0], High: b[1]}, nil
}
