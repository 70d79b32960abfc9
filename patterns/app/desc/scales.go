package desc

import "strings"

// Dimension scales as HDF5's H5DS functions make them and netCDF-4 writes its
// dimensions: a dataset marked a scale, and the scales attached to each dimension of a
// dataset.

// scaleNode declares datasets.NAME.scale.
var scaleNode = &Node{Key: "scale", Kind: Template,
	Help:    "make the dataset a dimension scale of this name (H5DSset_scale: attributes CLASS \"DIMENSION_SCALE\" and NAME; \"\" sets CLASS alone), at the end of the write action that creates it, as netCDF-4 makes each dimension (a coordinate variable's name, or \"This is a netCDF dimension but not a netCDF variable.\" and the length in ten columns for a dimension without one); not copied by like",
	Example: `datasets: {x: {type: f64, shape: [n], scale: x}, rho: {shape: [0, n], extend: 0, dims: [time, x]}}`}

// dimsNode declares datasets.NAME.dims.
var dimsNode = &Node{Key: "dims", Kind: List, Elem: &Node{Kind: Literal},
	Help: "the dimension scales attached to each dimension, slowest first (H5DSattach_scale: the dataset's DIMENSION_LIST, the scale's REFERENCE_LIST): per dimension a dataset path (relative to this dataset's group, or absolute) of the same file, a list of paths for several, or \"\" for none; attached in order, dimension 0 first, at the end of the first write action that finds the dataset and the scale created, after that action's writes (netCDF-4 attaches its dimensions to a variable so); a scale named here that the run never creates is an error; not copied by like"}

// NoScale reports whether a dims entry attaches nothing to its dimension: "" (or a YAML
// null).
func NoScale(v Value) bool {
	t := strings.TrimSpace(v.Text)
	return v.List == nil && (t == "" || t == "null" || t == "~")
}
