package proxy

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// Runs of transfers (transfer_runs=YES): a step's consecutive writes or reads that need no
// Go work between them go to the layout in one call (stack.RunExec), which makes their
// library calls from one C loop. The calls, their order and arguments are those of the
// transfers made one by one; what changes is the number of calls from Go into C. A Go
// thread bound to one core (mpirun binds each of two ranks) pays about one context switch
// per blocking C call longer than the runtime's 20 µs tick, on the core that copies the
// data (bench/cgocall; docs/metrics.md, "Speed figures (issue 32)"): one call per run pays
// it once.
//
// A run of reads passes over the operations between them that the layout makes without a
// library call (stack.RunExec.Runs: the mpiio layout's dataset opens and closes, IOR's
// between its segments), which the layout makes in order inside the run; each is charged,
// stamped and counted as when made alone. A run ends before any other operation that is
// no transfer (a flush, a file selection, a dataset open that calls HDF5), that the
// layout cannot make in a run, whose read
// is verified (the check runs between reads), whose write refills a buffer (the fill runs
// between writes), or whose named buffer has another size or place than an earlier one of
// the run (it would be mapped anew under the earlier transfer). Each transfer is charged,
// stamped, counted and booked as if made alone, from the times the layout measured.

// runsMade counts the runs this process made and the transfers in them (the tests check
// that transfer_runs takes effect).
var runsMade, transfersInRuns atomic.Int64

// runner is the stack's run executor when this plan's transfers may go in runs: sync
// execution (no lending, no multi-dataset batch, no background queue) and
// transfer_runs=YES. A timeline (trace_file) records a run's operations one by one
// (tracedLayout.ExecRun).
func (s *Session) runner(ln *stack.Lending, batch *multiBatch) stack.RunExec {
	if s.cfg.PerCallTransfers || ln != nil || batch != nil || s.background {
		return nil
	}
	rx, _ := s.stack.(stack.RunExec)
	return rx
}

// runnable reports whether op (knobs applied) may be made in a run.
func (s *Session) runnable(rx stack.RunExec, op *plan.Op) bool {
	if op.Transfer == nil || op.Kind != plan.Write && op.Kind != plan.Read || !rx.Runs(op) {
		return false
	}
	return op.Kind != plan.Read || s.phase == nil || !s.phase.verify && !s.checksOwnRead(op)
}

// sameBuffer reports whether a and b may share their named buffer in a run: another
// name, or the same size at the same place (buffer then returns the same memory).
func sameBuffer(a, b *plan.Transfer) bool {
	return a.Buffer != b.Buffer || a.BufferOffset == b.BufferOffset &&
		plan.Product(a.MemShape)*uint64(a.MemType.Size) == plan.Product(b.MemShape)*uint64(b.MemType.Size)
}

// execRun makes the run of transfers that starts at plan operation i (op, knobs applied)
// when one of at least two can, and returns the index of the first operation after it;
// i when there is none (the caller makes op alone). lo and n are stampRange's.
func (s *Session) execRun(rx stack.RunExec, pl *plan.Plan, i int, op *plan.Op, kn *knobs, smp *sample, lo, n int, step bool) (int, error) {
	if !s.runnable(rx, op) {
		return i, nil
	}
	ops := []*plan.Op{op}
	xfers := 1 // the transfers in ops
	for j := i + 1; j < len(pl.Ops); j++ {
		next := &pl.Ops[j]
		if next.Transfer == nil && !passable(next, op.Kind) || next.Transfer != nil && next.Kind != op.Kind {
			break
		}
		o, err := kn.apply(next)
		if err != nil {
			break // made alone, which reports it
		}
		o = s.packed(o)
		if o.Transfer == nil {
			if !rx.Runs(o) {
				break
			}
			ops = append(ops, o)
			continue
		}
		if !s.runnable(rx, o) || !compatible(ops, o) || s.refillsAfter(ops, o) {
			break
		}
		ops = append(ops, o)
		xfers++
	}
	for ops[len(ops)-1].Transfer == nil { // a run ends with a transfer
		ops = ops[:len(ops)-1]
	}
	if xfers < 2 {
		return i, nil
	}
	// The buffers, in order (the first write's may be filled here); a write whose buffer
	// is refilled after all (refillsAfter's guess was wrong) ends the run.
	bufs := make([][]byte, 0, len(ops))
	xfers = 0 // counted again: the run may end early here
	for k, o := range ops {
		if o.Transfer == nil { // made by the layout without a buffer
			bufs = append(bufs, nil)
			continue
		}
		if k > 0 && s.refills(o) {
			ops = ops[:k]
			break
		}
		buf, err := s.buffer(o, smp)
		if err != nil {
			if k == 0 {
				return i, err
			}
			ops = ops[:k] // the earlier ones are made; o, made alone, reports it
			break
		}
		bufs = append(bufs, buf)
		xfers++
	}
	bytes := make([]uint64, len(ops))
	for k, o := range ops {
		if o.Transfer != nil {
			bytes[k] = s.transferBytes(o.Transfer)
			if s.tr != nil {
				s.tr.note(o, bytes[k])
			}
		}
	}
	s.wd.mark(s.wd.runMark(ops, xfers)) // a stall report names the run, from its first transfer to its last
	runsMade.Add(1)
	transfersInRuns.Add(int64(xfers))
	took := make([]time.Duration, len(ops))
	done, err := rx.ExecRun(ops, bufs, took)
	t0, t1 := s.clk.lap()
	tried := done
	if err != nil && done < len(ops) {
		tried++
	}
	ends := runEnds(t0, t1, took[:tried])
	from := t0
	for k := 0; k < tried; k++ {
		smp.charge(ops[k].Kind, (ends[k] - from).Seconds())
		if step {
			stamp(smp, i+k-lo, n, from, ends[k])
		}
		from = ends[k]
	}
	for k := 0; k < done; k++ {
		smp.countCall(ops[k], bytes[k])
		if ops[k].Transfer == nil {
			continue
		}
		if terr := s.transferred(ops[k], bufs[k], bytes[k], smp); terr != nil {
			return i + k, terr
		}
	}
	if err != nil {
		o := ops[min(done, len(ops)-1)]
		return i + done, fmt.Errorf("%s %s: %w", o.Kind, o.Path, err)
	}
	return i + len(ops), nil
}

// passable reports whether op, no transfer, may sit inside a run of transfers of kind
// kind, should the layout make it without a library call (stack.RunExec.Runs decides
// that): a dataset open or close between reads. Only reads pass over operations: a
// write's buffer may be filled from the layout's view of its dataset (fillLaid), which
// must then be the view after the operations before it, not before the run.
func passable(op *plan.Op, kind plan.OpKind) bool {
	return kind == plan.Read && (op.Kind == plan.OpenDataset || op.Kind == plan.CloseDataset)
}

// runEnds places the operations of a run made from t0 to t1 by the times the layout
// measured (took, as stack.RunExec gives them): each ends where they put it, counted back
// from the run's end, and the first starts at the run's start (it holds the call's way
// into C). It returns each operation's end.
func runEnds(t0, t1 time.Duration, took []time.Duration) []time.Duration {
	ends := make([]time.Duration, len(took))
	e := t1
	for k := len(took) - 1; k >= 0; k-- {
		ends[k] = e
		e = max(e-took[k], t0)
	}
	return ends
}

// compatible reports whether o may join the run ops: a transfer of the same kind whose
// buffer is compatible with every earlier transfer's (sameBuffer).
func compatible(ops []*plan.Op, o *plan.Op) bool {
	if o.Kind != ops[0].Kind {
		return false
	}
	for _, p := range ops {
		if p.Transfer != nil && !sameBuffer(p.Transfer, o.Transfer) {
			return false
		}
	}
	return true
}

// refillsAfter reports whether buffer would fill o's buffer anew once the writes ops
// have theirs: after the last of them that shares it, the buffer holds that write's data
// (filledBuf.holds decides as buffer does); with none, as it holds now (refills). A
// write as-is in ops leaves the buffer as it was, which this does not follow: it answers
// yes.
func (s *Session) refillsAfter(ops []*plan.Op, o *plan.Op) bool {
	t := o.Transfer
	if o.Kind != plan.Write || s.phase == nil || t.AsIs {
		return false
	}
	for k := len(ops) - 1; k >= 0; k-- {
		if p := ops[k].Transfer; p != nil && p.Buffer == t.Buffer {
			f := filledBuf{step: ops[k].Step, t: p}
			return p.AsIs || !f.holds(o, s.phase.fill)
		}
	}
	return s.refills(o)
}
