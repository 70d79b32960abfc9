//go:build !cgo

// Package preinit initializes MPI before any Go code runs where HDF5 loads the Cache VOL or the log-based VOL;
// without cgo there is neither MPI nor HDF5, and it does nothing.
package preinit
