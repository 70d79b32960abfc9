package stack

import (
	"time"

	"github.com/h5proxy/h5proxy/plan"
)

// Lending is the async mode without the write copy (async.write_memcpy=NO): the Async VOL
// built without ENABLE_WRITE_MEMCPY copies nothing and leaves double buffering to the
// application. The emulated application does it with the mode's staging memory: each
// step's write data is generated directly in a lent buffer that is not reused before the
// writes reading it have run. Waiting for a free buffer is backpressure, charged to the
// caller like the copying mode's wait for staging room; there is no copy to charge.

// Lending is one plan's use of lent buffers: a buffer is filled once per step and shared
// by the writes naming it; the caller's hold ends with the last of them.
type Lending struct {
	to   Lender
	held map[string]*Lent
	uses map[string]int // writes of the plan still to submit, per buffer
}

// NewLending returns nil when mode does not lend, so copying modes pay nothing per step.
func NewLending(mode Mode, pl *plan.Plan) *Lending {
	to, ok := mode.(Lender)
	if !ok || !to.Lends() {
		return nil
	}
	ln := &Lending{to: to, held: map[string]*Lent{}, uses: map[string]int{}}
	for i := range pl.Ops {
		if op := &pl.Ops[i]; lendable(op) {
			ln.uses[op.Transfer.Buffer]++
		}
	}
	return ln
}

// lendable reports whether op's data may be generated in lent memory: writes of the
// emulated data (explicit contents are copied as given).
func lendable(op *plan.Op) bool {
	return op.Kind == plan.Write && op.Transfer != nil && op.Transfer.Data == nil
}

// Buffer returns op's lent buffer, filled by fill with the step's data once per buffer,
// or nil when the mode copies (the caller then takes the ordinary path); waited is the
// time spent waiting for a free buffer, which the caller charges to the write.
func (ln *Lending) Buffer(op *plan.Op, fill func(*plan.Op, []byte) error) (l *Lent, waited time.Duration, err error) {
	if ln == nil || !lendable(op) {
		return nil, 0, nil
	}
	t := op.Transfer
	if l := ln.held[t.Buffer]; l != nil {
		return l, 0, nil
	}
	t0 := time.Now()
	l, err = ln.to.Lend(int(plan.Product(t.MemShape)) * t.MemType.Size)
	waited = time.Since(t0)
	if l == nil || err != nil {
		return nil, waited, err
	}
	ln.held[t.Buffer] = l
	return l, waited, fill(op, l.Buf)
}

// Exec submits op and ends the caller's hold after the buffer's last write.
func (ln *Lending) Exec(op *plan.Op, l *Lent) error {
	err := ln.to.ExecLent(op, l)
	b := op.Transfer.Buffer
	if ln.uses[b]--; ln.uses[b] == 0 {
		delete(ln.held, b)
		l.Drop()
	}
	return err
}

// Done ends the holds a failed plan left.
func (ln *Lending) Done() {
	if ln == nil {
		return
	}
	for b, l := range ln.held {
		delete(ln.held, b)
		l.Drop()
	}
}
