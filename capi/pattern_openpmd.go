//go:build cgo

package main

// The openpmd pattern (openPMD-api's HDF5 series, h5bench's openpmd benchmark) is
// available to C and Fortran callers under the name "openpmd".
import _ "github.com/h5proxy/h5proxy/patterns/openpmd"
