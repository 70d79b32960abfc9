//go:build !cgo

package h5

// DefaultConnector returns ErrNoCgo in a build without cgo.
func DefaultConnector() (Connector, error) { return Connector{}, ErrNoCgo }
