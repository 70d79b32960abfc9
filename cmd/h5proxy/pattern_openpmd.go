package main

// The openpmd pattern (openPMD-api's HDF5 series, h5bench's openpmd benchmark) is part of
// the command: `h5proxy plan openpmd`, `h5proxy help openpmd` and h5bench configurations
// with openpmd entries (package h5bench imports it too).
import _ "github.com/h5proxy/h5proxy/patterns/openpmd"
