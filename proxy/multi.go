package proxy

import (
	"fmt"

	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// Multi-dataset I/O (hdf5.multi_dataset=yes, HDF5 1.14): a step's consecutive transfers
// are posted to a batch, as E3SM-IO's hdf5_md driver posts its varn requests, and flushed
// as one H5Dwrite_multi or H5Dread_multi when the run of transfers ends (the next
// operation is no transfer, a transfer of the other kind, collective flag or tuning, or
// one whose buffer a posted transfer still needs), then booked and verified one by one as
// separate transfers would be. VPIC-IO's eight variable writes of a timestep become one
// call; the file is the same.

// multiBatch is the batch of posted transfers: their indices in the plan, the operations
// (knobs applied) and their buffers.
type multiBatch struct {
	idx  []int
	ops  []*plan.Op
	bufs [][]byte
}

// batchable reports whether op can be posted: a write or read of a dataset.
func batchable(op *plan.Op) bool {
	return op.Transfer != nil && (op.Kind == plan.Write || op.Kind == plan.Read)
}

// accepts reports whether op may be issued with the batch pending: an empty batch accepts
// anything; otherwise op must be a transfer of the same kind, collective flag and tuning
// (one transfer list), whose buffer holds nothing a posted transfer still needs: a write
// that refills a posted write's buffer, or a read into the place a posted read fills.
func (b *multiBatch) accepts(op *plan.Op, refill bool) bool {
	if len(b.ops) == 0 {
		return true
	}
	first := b.ops[0]
	if !batchable(op) || op.Kind != first.Kind || op.Collective != first.Collective || op.Transfer.Tuning != first.Transfer.Tuning {
		return false
	}
	t := op.Transfer
	for _, p := range b.ops {
		if p.Transfer.Buffer != t.Buffer {
			continue
		}
		if op.Kind == plan.Write && refill || op.Kind == plan.Read && p.Transfer.BufferOffset == t.BufferOffset {
			return false
		}
	}
	return true
}

// add posts op (plan index i) with its buffer.
func (b *multiBatch) add(i int, op *plan.Op, buf []byte) {
	b.idx = append(b.idx, i)
	b.ops = append(b.ops, op)
	b.bufs = append(b.bufs, buf)
}

// flushMulti issues the batch as one multi-dataset call through the stack, charges its
// time to the transfers' kind (and to the step's first and last operation stamps when it
// holds them), counts the call for the census, then books and verifies each transfer.
// n is the plan's length, step whether it is a step's plan.
func (s *Session) flushMulti(b *multiBatch, smp *sample, n int, step bool) error {
	if len(b.ops) == 0 {
		return nil
	}
	ops, bufs, idx := b.ops, b.bufs, b.idx
	b.ops, b.bufs, b.idx = nil, nil, nil
	var bytes uint64
	for _, op := range ops {
		nb := s.transferBytes(op.Transfer)
		bytes += nb
		if s.tr != nil {
			s.tr.note(op, nb)
		}
	}
	// A stall report names the batch, its first transfer and its last.
	s.wd.mark(s.wd.groupMark(ops, len(ops), "a batch", fmt.Sprintf("in one %s_multi call", hdf5Calls[ops[0].Kind])))
	err := stack.ExecMulti(s.stack, ops, bufs)
	t0, t1 := s.clk.lap() // from the last transfer's buffer (execute's clock)
	kind := ops[0].Kind
	smp.charge(kind, (t1 - t0).Seconds())
	if step {
		for _, i := range idx {
			stamp(smp, i, n, t0, t1)
		}
	}
	if err != nil {
		return fmt.Errorf("%s_multi %s and %d more datasets: %w", kind, ops[0].Path, len(ops)-1, err)
	}
	smp.countMulti(kind, bytes)
	for i, op := range ops {
		if err := s.transferred(op, bufs[i], s.transferBytes(op.Transfer), smp); err != nil {
			return err
		}
	}
	return nil
}
