//go:build !cgo

package h5

import "github.com/h5proxy/h5proxy/plan"

// SetScale returns ErrNoCgo in a build without cgo.
func SetScale(ds ID, name string, named bool) error { return ErrNoCgo }

// AttachScale returns ErrNoCgo in a build without cgo.
func AttachScale(ds, sc ID, dim int) error { return ErrNoCgo }

// CreateGroupWith returns ErrNoCgo in a build without cgo.
func CreateGroupWith(loc ID, path string, g plan.GroupSpec) (ID, error) { return 0, ErrNoCgo }

// CreationOrderOf returns ErrNoCgo in a build without cgo.
func CreationOrderOf(obj ID) (links, attrs int, err error) { return 0, 0, ErrNoCgo }

// LinkNamesByCreation returns ErrNoCgo in a build without cgo.
func LinkNamesByCreation(g ID) ([]string, error) { return nil, ErrNoCgo }

// AttributeNamesByCreation returns ErrNoCgo in a build without cgo.
func AttributeNamesByCreation(obj ID) ([]string, error) { return nil, ErrNoCgo }

// ReadReferences returns ErrNoCgo in a build without cgo.
func ReadReferences(d ID) (plan.Type, []byte, bool, error) { return plan.Type{}, nil, false, ErrNoCgo }
