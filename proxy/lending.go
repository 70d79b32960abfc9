package proxy

import (
	"sync/atomic"
	"time"

	"github.com/h5proxy/h5proxy/plan"
)

// Lending is the async mode without the write copy (async.write_memcpy=no): the Async VOL
// built without ENABLE_WRITE_MEMCPY copies nothing and leaves double buffering to the
// application. The emulated application does it with the staging pool: each step's write
// data is generated directly in a pool buffer that is not reused before the writes reading
// it have run. Waiting for a free buffer is backpressure, charged to the caller like the
// copying mode's wait for staging room; there is no copy to charge.

// lender is implemented by modes that can lend write buffers.
type lender interface {
	// lends reports whether the mode lends at all (it may be configured to copy).
	lends() bool
	// lend returns staging memory for n bytes of write data, waiting while the pool is
	// full; nil (and no error) when n can never fit.
	lend(n int) (*lentBuf, error)
	// execLent submits a write whose data is already in l.
	execLent(op *plan.Op, l *lentBuf) error
}

// lentBuf is staging memory shared by the caller (until its last write of the step is
// submitted) and by every submitted write reading it; the last one to let go returns it.
type lentBuf struct {
	buf     []byte
	refs    atomic.Int32
	release func()
}

func (l *lentBuf) drop() {
	if l.refs.Add(-1) == 0 {
		l.release()
	}
}

func (m *asyncMode) lends() bool { return m.lendWrites }

func (m *asyncMode) lend(n int) (*lentBuf, error) {
	if n > m.pool.limit {
		return nil, nil
	}
	buf, release, err := m.pool.get(n)
	if err != nil {
		return nil, err
	}
	l := &lentBuf{buf: buf, release: release}
	l.refs.Store(1)
	return l, nil
}

func (m *asyncMode) execLent(op *plan.Op, l *lentBuf) error {
	if err := m.ex.sticky(); err != nil {
		return err
	}
	n := int64(len(l.buf))
	l.refs.Add(1)
	m.inFlight.Add(n)
	m.ex.submit(op, l.buf, func() { l.drop(); m.inFlight.Add(-n) })
	return nil
}

// lending is one plan's use of lent buffers: a buffer is filled once per step and shared
// by the writes naming it; the caller's hold ends with the last of them.
type lending struct {
	to   lender
	held map[string]*lentBuf
	uses map[string]int // writes of the plan still to submit, per buffer
}

// newLending returns nil when mode does not lend, so copying modes pay nothing per step.
func newLending(mode Mode, pl *plan.Plan) *lending {
	to, ok := mode.(lender)
	if !ok || !to.lends() {
		return nil
	}
	ln := &lending{to: to, held: map[string]*lentBuf{}, uses: map[string]int{}}
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

// buffer returns op's lent buffer, filled by fill with the step's data once per buffer,
// or nil when the mode copies (the caller then takes the ordinary path). The wait for a free buffer is charged
// to the write.
func (ln *lending) buffer(op *plan.Op, smp *sample, fill func(*plan.Op, []byte, *sample) error) (*lentBuf, error) {
	if ln == nil || !lendable(op) {
		return nil, nil
	}
	t := op.Transfer
	if l := ln.held[t.Buffer]; l != nil {
		return l, nil
	}
	t0 := time.Now()
	l, err := ln.to.lend(int(plan.Product(t.MemShape)) * t.MemType.Size)
	smp.charge(op.Kind, time.Since(t0).Seconds())
	if l == nil || err != nil {
		return nil, err
	}
	ln.held[t.Buffer] = l
	return l, fill(op, l.buf, smp)
}

// exec submits op and ends the caller's hold after the buffer's last write.
func (ln *lending) exec(op *plan.Op, l *lentBuf) error {
	err := ln.to.execLent(op, l)
	b := op.Transfer.Buffer
	if ln.uses[b]--; ln.uses[b] == 0 {
		delete(ln.held, b)
		l.drop()
	}
	return err
}

// done ends the holds a failed plan left.
func (ln *lending) done() {
	if ln == nil {
		return
	}
	for b, l := range ln.held {
		delete(ln.held, b)
		l.drop()
	}
}
