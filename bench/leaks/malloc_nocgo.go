//go:build !cgo

package main

// oneArena does nothing without cgo (no session can run either).
func oneArena() {}

// mallocInUse is 0 without cgo.
func mallocInUse() int64 { return 0 }
