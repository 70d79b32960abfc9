//go:build !(cgo && gonum)

package inspect

const available = false

// Tree is unavailable in this build.
func Tree(path string) ([]Node, error) { return nil, ErrUnavailable }

// Read is unavailable in this build.
func Read(path, dataset string, data any) error { return ErrUnavailable }

// Points is unavailable in this build.
func Points(path, dataset string) (int, error) { return 0, ErrUnavailable }
