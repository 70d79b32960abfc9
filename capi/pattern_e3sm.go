//go:build cgo

package main

// The e3sm pattern, and its map file reader (which registers the pattern too).
import _ "github.com/h5proxy/h5proxy/proxy/e3smmap"
