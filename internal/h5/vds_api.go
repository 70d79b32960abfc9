package h5

import "github.com/h5proxy/h5proxy/plan"

// This file holds the declarations of vds.go shared by the cgo build and the !cgo stub.

// VirtualMap is one mapping of a virtual dataset (H5Pset_virtual): the elements Virtual
// selects in the virtual dataset come, in row-major order, from the elements Source
// selects in dataset Dataset of file File. Both selections must have as many elements.
type VirtualMap struct {
	// Virtual selects elements of the virtual dataset's dataspace.
	Virtual plan.Selection
	// File is the source file name; "." is the virtual dataset's own file. HDF5 resolves a
	// relative name against the directory of the virtual dataset's file (then the working
	// directory), so relative names let the files move together.
	File string
	// Dataset is the source dataset's path in File.
	Dataset string
	// SourceShape and SourceMaxShape are the source dataspace's extents (nil max: same).
	// HDF5 keeps only the selection's bounds of a fixed-size source: VirtualMappings
	// returns those, not the source dataset's extent.
	SourceShape, SourceMaxShape []uint64
	// Source selects elements of the source dataset.
	Source plan.Selection
}

// Object is a group or dataset found by Walk.
type Object struct {
	// Path is the absolute path ("/Timestep_0/x").
	Path string
	// Dataset is true for datasets, false for groups.
	Dataset bool
	// Attrs reports that the object has attributes (the visit counts them at little cost,
	// sparing callers an attribute listing of objects without any).
	Attrs bool
}
