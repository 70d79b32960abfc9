//go:build !cgo

package h5

// Describe returns ErrNoCgo in a build without cgo.
func Describe(f ID, path string, dataset bool) (ObjectInfo, error) { return ObjectInfo{}, ErrNoCgo }

// CopyAttributes returns ErrNoCgo in a build without cgo.
func CopyAttributes(src, dst ID) error { return ErrNoCgo }

// CreateLike returns ErrNoCgo in a build without cgo.
func CreateLike(loc ID, path string, tmpl ID, o Override) (ID, error) { return 0, ErrNoCgo }

// ReadAll returns ErrNoCgo in a build without cgo.
func ReadAll(d ID, buf []byte) error { return ErrNoCgo }

// WriteRows returns ErrNoCgo in a build without cgo.
func WriteRows(d ID, row, rows uint64, collective bool, buf []byte) error { return ErrNoCgo }

// FileAccessInfo returns ErrNoCgo in a build without cgo.
func FileAccessInfo(f ID) (AccessInfo, error) { return AccessInfo{}, ErrNoCgo }

// Attributes returns ErrNoCgo in a build without cgo.
func Attributes(obj ID, path string) ([]AttrInfo, error) { return nil, ErrNoCgo }

// Probe returns ErrNoCgo in a build without cgo.
func Probe(d ID, enc []byte) ([]byte, []uint64, error) { return nil, nil, ErrNoCgo }

// ObjectStat returns ErrNoCgo in a build without cgo.
func ObjectStat(obj ID) (Stat, error) { return Stat{}, ErrNoCgo }
