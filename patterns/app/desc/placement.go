package desc

import "strings"

// Attribute placement: when an attribute is written in its file's life, how many times at
// that place, and when a dataset becomes a dimension scale. HDF5 lays an object's header
// out in the order its messages arrive, and a flush writes what changed since the last:
// where an attribute is written (before or after the other definitions, a flush, a
// dataset's writes) decides the metadata a file's writes move, not only its contents.

// The values of an attribute's at key.
const (
	// AtCreate writes the attribute right after its object's creation (the default).
	AtCreate = "create"
	// AtScale writes it right after its dataset is made a dimension scale.
	AtScale = "scale"
	// AtDefined writes it once the creations of the action (or of a define: upfront)
	// are done: after its links, reference attributes, scales and attachments, before
	// the define's flush and the action's closes.
	AtDefined = "defined"
	// AtEachWrite writes it after each write of its dataset, once any flush right after
	// the write is done: created the first time, opened and written again after that.
	AtEachWrite = "each_write"
	// AtClose writes it right before its file closes.
	AtClose = "close"
)

// atNode declares attributes.NAME.at.
var atNode = &Node{Key: "at", Kind: Enum, Allowed: []string{AtCreate, AtScale, AtDefined, AtEachWrite, AtClose}, Default: AtCreate,
	Help:    "when the attribute is written: create, right after its object's creation (in the list's order); scale, right after its dataset is made a dimension scale (CLASS and NAME), as netCDF-4 writes _Netcdf4Dimid and a coordinate variable's attributes; defined, once the creations of the action that creates its object (or of define: upfront) are done, after the links, scales and attachments, before the define's flush, as netCDF-4 writes _NCProperties at nc_enddef; each_write (a dataset's), after each write of its dataset and any flush right after it, created the first time and opened and written again (H5Aopen, H5Awrite) after that, through H5Oopen and H5Oclose of the dataset when it is not open, as PETSc's HDF5 viewer writes timestepping after each VecView; close, right before its file closes",
	Example: `_NCProperties: {type: str34, value: "version=2,netcdf=4.9.0,hdf5=1.10.8", at: defined}`}

// writesNode declares attributes.NAME.writes.
var writesNode = &Node{Key: "writes", Kind: Expr, Default: "1",
	Help:    "how many times the attribute is written where at places it: the first creates it, each further write opens it and writes it again (H5Aopen, H5Awrite, H5Aclose), as netCDF-4 writes a dimension's _Netcdf4Dimid twice",
	Example: `_Netcdf4Dimid: {type: i32, value: 1, at: scale, writes: 2}`}

// scaleAtNode declares datasets.NAME.scale_at.
var scaleAtNode = &Node{Key: "scale_at", Kind: Enum, Allowed: []string{AtCreate, AtDefined}, Default: AtDefined,
	Help:    "when a dataset with scale becomes a dimension scale: defined, at the end of the write action (or define: upfront) that creates it, with the other scales, before the attachments; create, right after its creation and its attributes written at: create, before those written at: scale, as netCDF-4 makes each dimension a scale when it creates its dataset; not copied by like",
	Example: `time: {type: f64, shape: [1], extend: 0, scale: time, scale_at: create}`}

// dimsAtNode declares datasets.NAME.dims_at.
var dimsAtNode = &Node{Key: "dims_at", Kind: Enum, Allowed: []string{AtCreate, AtDefined}, Default: AtDefined,
	Help:    "when the dataset's dims are attached (H5DSattach_scale): defined, at the end of the write action (or define: upfront) that creates it, with the other attachments, once its scales exist; create, right after its creation (its attributes and a scale_at: create scale first), to the scales that exist then (the others at the action's end), as a code that attaches a variable's coordinate as it creates it; not copied by like",
	Example: `rho: {type: f64, shape: [1, n], extend: 0, dims: ["", /fields/x], dims_at: create}`}

// Placement returns an attribute's at key in lower case (AtCreate when not given).
func (a *Attribute) Placement() string {
	if !a.At.Set || a.At.Text == "" {
		return AtCreate
	}
	return strings.ToLower(a.At.Text)
}
