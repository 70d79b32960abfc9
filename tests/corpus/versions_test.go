package corpus

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// A program that links Debian's HDF5 1.10 through a library (netCDF, h5py, PETSc) keeps
// it on the 1.14 build, where the replay runs on HDF5 1.14.5. Two of the differences
// between their outputs are the libraries', not h5proxy's, and the comparison allows
// exactly these two, for exactly that pair of versions, and says so in the verdict:
//
//   - hints at every view: HDF5 1.14's MPI-IO driver passes an info object at every
//     MPI_File_set_view where 1.10 passes MPI_INFO_NULL (both pass the driver's info
//     there; 1.10's is MPI_INFO_NULL when the program gave none), so Darshan's
//     MPIIO_HINTS, 0 in the program's profile, equals MPIIO_VIEWS in the replay's;
//   - REFERENCE_LIST dimension unsigned: 1.14's H5DSattach_scale declares the
//     REFERENCE_LIST compound's dimension member H5T_NATIVE_UINT where 1.10's declared
//     H5T_NATIVE_INT, so h5dump prints H5T_STD_U32LE for the program's H5T_STD_I32LE.
//
// Any other difference, or these two in another shape, still fails.

// versionPair is the HDF5 release (major.minor) of the program and of the replay.
type versionPair struct{ program, replay string }

// libraryPair is the one pair whose differences are allowed.
var libraryPair = versionPair{"1.10", "1.14"}

// note is the verdict's parenthesis for a pass that applied the named differences.
func (v versionPair) note(what string) string {
	return fmt.Sprintf("pass (%s program, %s replay: %s)", v.program, v.replay, what)
}

const (
	hintsNote = "hints at every view"
	dimNote   = "REFERENCE_LIST dimension unsigned"
)

var releaseRe = regexp.MustCompile(`^(\d+\.\d+)\.\d+`)

// release is a version's major.minor ("" when v is no HDF5 version).
func release(v string) string {
	if m := releaseRe.FindStringSubmatch(strings.TrimSpace(v)); m != nil {
		return m[1]
	}
	return ""
}

var versionLineRe = regexp.MustCompile(`(?m)^HDF5 (\d+\.\d+\.\d+)`)

// buildHDF5 is the HDF5 version the h5proxy under test runs on (`h5proxy version`), the
// library of its replays and derived runs.
func buildHDF5() string {
	out, _ := exec.Command(filepath.Join(bin, "h5proxy"), "version").Output()
	if m := versionLineRe.FindSubmatch(out); m != nil {
		return string(m[1])
	}
	return ""
}

// libraryDiffers reports whether the program's and the replay's HDF5 versions are the
// pair whose differences are allowed.
func libraryDiffers(program, replay string) (versionPair, bool) {
	v := versionPair{release(program), release(replay)}
	return v, v == libraryPair
}

// hintsAtViews takes out of diffs the MPIIO_HINTS differences that are 1.14's info at
// every view: the program's count 0 and the replay's its record's MPIIO_VIEWS (and not
// 0). It returns the differences left and whether it took any.
func hintsAtViews(diffs []profile.CounterDiff, replay *profile.Profile) (left []profile.CounterDiff, took bool) {
	for _, c := range diffs {
		if c.Module == "MPIIO" && c.Counter == "MPIIO_HINTS" && c.Name == "" && c.A == 0 && c.B > 0 {
			if r, err := replay.Find("MPIIO", c.File, "", c.Rank); err == nil && r.Counters["MPIIO_VIEWS"] == c.B {
				took = true
				continue
			}
		}
		left = append(left, c)
	}
	return left, took
}

// dumpDiff is the first difference of two masked dumps ("" when none) of files written
// by the releases v, allowing the unsigned dimension when v is libraryPair (took: it did).
func dumpDiff(a, b string, v versionPair) (diff string, took bool) {
	if v == libraryPair {
		return unsignedDimension(a, b)
	}
	return firstDiff(a, b), false
}

var attrRe = regexp.MustCompile(`^ATTRIBUTE "([^"]*)" \{$`)

// unsignedDimension compares two masked dumps allowing, and only there, the dimension
// member of a REFERENCE_LIST attribute's type: H5T_STD_I32LE in a (the program's),
// H5T_STD_U32LE in b. It returns the first other difference ("" when none) and whether
// it allowed any.
func unsignedDimension(a, b string) (diff string, took bool) {
	attr := ""
	diff = diffLines(a, b, func(x, y string) bool {
		if m := attrRe.FindStringSubmatch(x); m != nil {
			attr = m[1]
		}
		if x == y {
			return true
		}
		if attr == "REFERENCE_LIST" && x == `H5T_STD_I32LE "dimension";` && y == `H5T_STD_U32LE "dimension";` {
			took = true
			return true
		}
		return false
	})
	return diff, took
}
