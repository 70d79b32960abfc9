//go:build !cgo

package h5

// DefaultConnector returns ErrNoCgo in a build without cgo.
func DefaultConnector() (Connector, error) { return Connector{}, ErrNoCgo }

// HaveEventSets reports false in a build without cgo.
func HaveEventSets() bool { return false }

// EventSet is an HDF5 event set; without cgo there are none.
type EventSet struct{}

// EventSetFailure is an operation of an event set that failed in the background.
type EventSetFailure struct {
	API, Args string
	Index     uint64
	Err       *Error
}

// NewEventSet returns ErrNoCgo in a build without cgo.
func NewEventSet() (EventSet, error) { return EventSet{}, ErrNoCgo }

// InEventSet runs fn (no HDF5 without cgo).
func InEventSet(_ EventSet, fn func() error) error { return fn() }

// Wait returns ErrNoCgo in a build without cgo.
func (EventSet) Wait() ([]EventSetFailure, error) { return nil, ErrNoCgo }

// WaitDone returns ErrNoCgo in a build without cgo.
func (EventSet) WaitDone() error { return ErrNoCgo }

// Failures returns ErrNoCgo in a build without cgo.
func (EventSet) Failures() ([]EventSetFailure, error) { return nil, ErrNoCgo }

// Close returns nil in a build without cgo.
func (EventSet) Close() error { return nil }

// Poll does nothing in a build without cgo.
func (EventSet) Poll() {}

// CheckConnectorThread returns nil in a build without cgo (no HDF5 calls at all).
func CheckConnectorThread() error { return nil }

// LoadConnector returns ErrNoCgo in a build without cgo.
func LoadConnector(string) error { return ErrNoCgo }

// SetCacheWrite does nothing in a build without cgo (no files are opened).
func SetCacheWrite(bool) {}

// Inserted returns 0 in a build without cgo.
func (EventSet) Inserted() uint64 { return 0 }
