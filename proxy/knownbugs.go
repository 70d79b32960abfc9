package proxy

import (
	"fmt"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// ErrHDF5Bug is wrapped by the refusal, before any I/O, of a dataset the loaded HDF5
// would write but not read back (a known bug of that release, docs/hdf5.md).
var ErrHDF5Bug = fmt.Errorf("%w: a known bug of this HDF5", ErrUnsupported)

// knownBugs reports whether the loaded HDF5 has a bug checkKnownBugs refuses datasets for.
func knownBugs() bool { return h5.ScaleOffsetFullRangeUnreadable() }

// checkKnownBugs refuses a dataset whose data the loaded HDF5 would write but fail to
// read: an integer scale-offset pipeline with the minimum bits left to the filter (or
// the type's full width) over seeded values, which span the type's whole range in
// practically every chunk, on HDF5 1.14.5 and 1.14.6 (h5.ScaleOffsetFullRangeUnreadable).
// Values the session leaves as zeros (fill=zero) pass.
func checkKnownBugs(path string, spec *plan.DatasetSpec, fill emulate.FillKind) error {
	for _, f := range spec.Filters {
		if f.ID != plan.FilterScaleOffset || len(f.CDValues) < 2 || f.CDValues[0] != 2 /* H5Z_SO_INT */ || fill == emulate.Zero {
			continue
		}
		if bits := uint32(8 * spec.Type.Size); (f.CDValues[1] == 0 || f.CDValues[1] >= bits) && h5.ScaleOffsetFullRangeUnreadable() {
			return fmt.Errorf("%w: dataset %s: HDF5 %s writes an integer scale-offset chunk whose values span the type's %d bits, then fails to read it (\"filter returned failure during read\"; HDFGroup/hdf5 issue 5861, fixed after 1.14.6 by pull request 5864), and seeded values span them; allowed: scale-offset with minbits below %d (lossy), fill=zero, or the HDF5 1.10 build",
				ErrHDF5Bug, path, h5.Version(), bits, bits)
		}
	}
	return nil
}
