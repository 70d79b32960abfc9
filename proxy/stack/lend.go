package stack

import (
	"sync/atomic"

	"github.com/h5proxy/h5proxy/plan"
)

// Lender is implemented by modes that can lend write buffers: the Async VOL built without
// ENABLE_WRITE_MEMCPY copies nothing and leaves double buffering to the application, which
// the emulated application does by generating each step's write data directly in lent
// staging memory.
type Lender interface {
	// Lends reports whether the mode lends at all (it may be configured to copy).
	Lends() bool
	// Lend returns staging memory for n bytes of write data, waiting while the pool is
	// full; nil (and no error) when n can never fit.
	Lend(n int) (*Lent, error)
	// ExecLent submits a write whose data is already in l.
	ExecLent(op *plan.Op, l *Lent) error
}

// Lent is staging memory shared by the caller (until its last write of the step is
// submitted) and by every submitted write reading it; the last one to let go returns it.
type Lent struct {
	// Buf is the lent memory.
	Buf     []byte
	refs    atomic.Int32
	release func()
}

// NewLent returns lent memory held once (by the caller); release runs when the last hold
// is dropped.
func NewLent(buf []byte, release func()) *Lent {
	l := &Lent{Buf: buf, release: release}
	l.refs.Store(1)
	return l
}

// Hold adds a hold (a submitted write reading the memory).
func (l *Lent) Hold() { l.refs.Add(1) }

// Drop ends a hold; the last one returns the memory.
func (l *Lent) Drop() {
	if l.refs.Add(-1) == 0 {
		l.release()
	}
}
