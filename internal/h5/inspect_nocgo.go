//go:build !cgo

package h5

// ListLinks returns ErrNoCgo in a build without cgo.
func ListLinks(g ID) ([]LinkInfo, error) { return nil, ErrNoCgo }

// DatasetCreation returns ErrNoCgo in a build without cgo.
func DatasetCreation(d ID) (Creation, error) { return Creation{}, ErrNoCgo }

// ReferenceNames returns ErrNoCgo in a build without cgo.
func ReferenceNames(loc ID, name string) ([][]string, bool, error) { return nil, false, ErrNoCgo }

// ObjectTimed returns ErrNoCgo in a build without cgo.
func ObjectTimed(obj ID) (bool, error) { return false, ErrNoCgo }

// CreationOrder returns ErrNoCgo in a build without cgo.
func CreationOrder(obj ID) (string, string, error) { return "", "", ErrNoCgo }
