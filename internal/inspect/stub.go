//go:build !(cgo && gonum)

package inspect

import "github.com/h5proxy/h5proxy/patterns"

const available = false

// Node is one group or dataset.
type Node struct {
	Path     string
	Dataset  bool
	Type     patterns.Type
	Shape    []uint64
	MaxShape []uint64
}

// Tree is unavailable in this build.
func Tree(path string) ([]Node, error) { return nil, ErrUnavailable }

// Read is unavailable in this build.
func Read(path, dataset string, data any) error { return ErrUnavailable }

// Points is unavailable in this build.
func Points(path, dataset string) (int, error) { return 0, ErrUnavailable }
