package proxy

// What happens in a step: its plan asked for and checked, each operation executed with its
// buffer and timed, batons and read-ahead, the step's compute.

import (
	"fmt"
	"slices"
	"time"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// Step runs the I/O of one step of the current phase. Collective.
func (s *Session) Step(step int) error {
	if err := s.check(); err != nil {
		return err
	}
	p := s.phase
	if p == nil {
		return fmt.Errorf("%w: step %d called outside a phase (call BeginPhase first)", ErrState, step)
	}
	if step >= len(p.steps) {
		return fmt.Errorf("%w: step %d called, the %s phase has %d steps (0..%d); end it with EndPhase", ErrState, step, p.ph, len(p.steps), len(p.steps)-1)
	}
	if step != p.stepsDone {
		return fmt.Errorf("%w: step %d called, next step of the %s phase is %d", ErrState, step, p.ph, p.stepsDone)
	}
	smp := &p.steps[step]
	s.wd.enter(stageStep, p.ph, step)
	defer s.wd.leave()
	if sy, ok := s.pat.(patterns.Synchronizer); ok && sy.BarrierBefore(p.ph, step) {
		s.wd.mark(callBarrier)
		if err := s.comm.Barrier(); err != nil {
			return s.fail(fmt.Errorf("step %d: barrier: %w", step, err))
		}
	}
	smp[mStart] = now()
	if p.ph == patterns.PhaseWrite && s.stack.WaitBeforeStep(step) {
		t := time.Now()
		s.wd.mark(callWait)
		err := s.stack.Wait()
		smp[mWait] += time.Since(t).Seconds()
		s.tr.span(traceWait, "wait", t, nil)
		if err != nil {
			return s.fail(fmt.Errorf("step %d: %w", step, err))
		}
	}
	pl, err := s.planStep(p, step)
	if err != nil {
		return s.fail(fmt.Errorf("step %d: %w", step, err))
	}
	if err := s.execute(&pl, smp, true); err != nil {
		return s.fail(fmt.Errorf("step %d: %w", step, err))
	}
	// Background modes read the next step ahead while the caller computes, when it only
	// reads (a read phase that writes, as NOvA's concatenation, runs such a step when it
	// comes).
	if p.ph == patterns.PhaseRead && s.background && step+1 < len(p.steps) {
		next, err := s.stepPlan(p, step+1)
		if err == nil && !writes(&next) {
			err = s.stack.Prefetch(&next)
		}
		if err != nil {
			return s.fail(fmt.Errorf("step %d read-ahead: %w", step+1, err))
		}
		p.ahead = &next
	}
	smp[mEnd] = now()
	p.stepFiles = append(p.stepFiles, p.file)
	s.takeCensus(smp, s.cfg.StepCensus)
	s.tr.step(p.ph.String(), step, smp[mStart])
	p.stepsDone++
	if err := s.removeAfter(p, step); err != nil {
		return s.fail(fmt.Errorf("step %d: %w", step, err))
	}
	// Progress at info level for the first and last steps and at most once a second in
	// between, every step at debug level: a line per step is a write to the launcher's pipe
	// inside the observed window (about half a millisecond per step at 2 ranks here), which
	// the real programs do not pay.
	ev := s.log.Debug()
	if t := smp[mEnd]; step == 0 || p.stepsDone == len(p.steps) || t-p.progress >= progressEvery.Seconds() {
		ev, p.progress = s.log.Info(), t
	}
	if ev.Enabled() { // a disabled level costs no formatting
		ev.Str("phase", p.ph.String()).Int("step", step).Int("of", len(p.steps)).
			Float64("bytes", smp[mBytes]).Float64("raw_s", logRound(smp[mRaw])).Msg("step done")
	}
	return nil
}

// planStep returns the plan of a step, checked: the one already planned or submitted
// ahead, or a new one.
func (s *Session) planStep(p *phaseRun, step int) (plan.Plan, error) {
	if p.ahead != nil {
		pl := *p.ahead
		p.ahead = nil
		return pl, nil
	}
	return s.stepPlan(p, step)
}

// stepPlan asks the pattern for a step's plan and checks it (checkPlan).
func (s *Session) stepPlan(p *phaseRun, step int) (plan.Plan, error) {
	pl, err := s.pat.Step(p.ph, step, p.env)
	if err == nil {
		err = s.checkPlan(&pl)
	}
	return pl, err
}

// checkPlan checks every dataset pl creates, with the phase's knobs applied, before any
// of its operations runs: against the known bugs of the loaded HDF5 (checkKnownBugs),
// and, in a file more than one rank shares (the session's, or a group's), with the layout
// (stack.Strategy.CheckDataset). Every rank plans the same creates, so every rank
// refuses alike.
//
// Each plan is checked once, when it is made (BeginPhase, stepPlan, EndPhase), in the
// order the plans run, since the file a create goes to is the one the plans checked
// before it last created or opened: the write phase's begin plan and first step are
// checked before the phase's first operation, a step planned ahead (a background read's
// prefetch) before its I/O is submitted.
func (s *Session) checkPlan(pl *plan.Plan) error {
	if !s.checks {
		return nil
	}
	var kn *knobs
	fill := s.cfg.Fill
	if s.phase != nil {
		kn, fill = s.phase.knobs, s.phase.fill
	}
	for i := range pl.Ops {
		op := &pl.Ops[i]
		switch {
		case (op.Kind == plan.CreateFile || op.Kind == plan.OpenFile) && op.File != nil:
			s.fileRanks = op.File.Ranks(s.Rank(), s.Size())
		case op.Kind == plan.CreateDataset && op.Dataset != nil:
			o, err := kn.apply(op)
			if err != nil {
				continue // execute reports it at the operation
			}
			err = checkKnownBugs(o.Path, o.Dataset, fill)
			if err == nil && s.checkDataset != nil && s.fileRanks > 1 {
				err = s.checkDataset(o.Path, o.Dataset, s.fileRanks)
			}
			if err != nil {
				return fmt.Errorf("%s %s: %w", op.Kind, op.Path, err)
			}
		}
	}
	return nil
}

// execute runs a plan's operations, charging time and bytes to smp. A step's writes
// generate their data in lent staging memory when the mode lends (no write copy). The
// plan was checked when it was made (checkPlan).
//
// The clock is read once when the plan starts and once after each operation, fill and
// verification: each is charged the time since the reading before it (lapClock), so an
// operation's time also holds h5proxy's bookkeeping since the previous reading (the
// census tally, the next buffer's lookup: tens of nanoseconds, beside HDF5 calls of
// microseconds), and every moment of the plan is charged to exactly one of its buckets.
func (s *Session) execute(pl *plan.Plan, smp *sample, step bool) error {
	var ln *stack.Lending
	if step {
		ln = stack.NewLending(s.stack, pl)
		defer ln.Done()
	}
	fill := func(op *plan.Op, buf []byte) error {
		// The wait for a lent buffer is charged to the write (waited, below): the fill's
		// lap starts after it.
		s.clk.start()
		return s.fill(op, buf, smp)
	}
	s.clk.start()
	var kn *knobs
	if s.phase != nil {
		kn = s.phase.knobs
	}
	// With hdf5.multi_dataset=yes, consecutive transfers gather in batch and go out as one
	// multi-dataset call (multi.go) when the run of transfers ends.
	var batch *multiBatch
	if kn.multiDataset() {
		batch = &multiBatch{}
	}
	// A step's first and last operations are stamped (stamp): those that make a library
	// call, not a file selection before or after them.
	lo, n := stampRange(pl)
	rx := s.runner(ln, batch) // runs of transfers (runs.go), nil when they cannot be used
	for i := 0; i < len(pl.Ops); i++ {
		if k := pl.Ops[i].Kind; k == plan.WaitBaton || k == plan.PassBaton {
			if err := s.baton(&pl.Ops[i], smp, step, i-lo, n); err != nil {
				return err
			}
			continue
		}
		op, err := kn.apply(&pl.Ops[i])
		if err != nil {
			return fmt.Errorf("%s %s: %w", pl.Ops[i].Kind, pl.Ops[i].Path, err)
		}
		op = s.packed(op)
		if batch != nil {
			if !batch.accepts(op, s.refills(op)) {
				if err := s.flushMulti(batch, smp, n, step); err != nil {
					return err
				}
			}
			if batchable(op) {
				buf, err := s.buffer(op, smp)
				if err != nil {
					return err
				}
				batch.add(i-lo, op, buf)
				continue
			}
		}
		if rx != nil && op.Transfer != nil {
			next, err := s.execRun(rx, pl, i, op, kn, smp, lo, n, step)
			if err != nil {
				return err
			}
			if next > i {
				i = next - 1
				continue
			}
		}
		if op.Kind == plan.SelectFile {
			// Bookkeeping in order with the rest (after the batch of the file selected
			// before, ahead of the next operations in a background queue): no library
			// call, so no time, stamp or census count.
			if err := s.stack.Exec(op, nil); err != nil {
				return fmt.Errorf("%s %s: %w", op.Kind, op.Path, err)
			}
			if s.phase != nil {
				s.phase.executed(op)
			}
			continue
		}
		var buf []byte
		lent, waited, err := ln.Buffer(op, fill)
		if waited > 0 {
			smp.charge(op.Kind, waited.Seconds())
		}
		if err != nil {
			return err
		}
		var bytes uint64 // the transfer's, for the census, the sample and the timeline
		if op.Transfer != nil {
			bytes = s.transferBytes(op.Transfer)
			if lent == nil {
				if buf, err = s.buffer(op, smp); err != nil {
					return err
				}
			}
		}
		if s.tr != nil && op.Transfer != nil {
			s.tr.note(op, bytes)
		}
		if d, ok := s.stack.(stack.Drainer); ok && d.DrainsBefore(op) {
			if err := s.drainBefore(op, smp); err != nil {
				return err
			}
		}
		s.wd.mark(op)
		if lent != nil {
			err = ln.Exec(op, lent)
		} else {
			err = s.stack.Exec(op, buf)
		}
		t0, t1 := s.clk.lap()
		smp.charge(op.Kind, (t1 - t0).Seconds())
		if step {
			stamp(smp, i-lo, n, t0, t1)
		}
		if s.tr != nil && s.background {
			s.tr.op(traceSubmit, "submit "+op.Kind.String(), op, bytes, wallAt(t0))
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", op.Kind, op.Path, err)
		}
		smp.countCall(op, bytes)
		if (op.Kind == plan.CreateFile || op.Kind == plan.OpenFile || op.Kind == plan.CloseFile) && s.phase != nil {
			s.phase.executed(op)
		}
		if op.Transfer == nil {
			continue
		}
		if err := s.transferred(op, buf, bytes, smp); err != nil {
			return err
		}
	}
	if batch != nil {
		return s.flushMulti(batch, smp, n, step)
	}
	return nil
}

// drainBefore waits for the background I/O before op, where the mode waits before issuing
// it (stack.Drainer: the event-set mode before a file's flush or close, as h5bench's
// mem_monitor_final_run precedes its H5Fflush and H5Fclose). The wait is the sample's
// (the drain, in a phase's end), not op's: op's lap starts after it. A failed wait still
// closes the file (the mode then issues the close alone) and fails naming op.
func (s *Session) drainBefore(op *plan.Op, smp *sample) error {
	t := time.Now()
	s.wd.mark(callWait)
	err := s.stack.Wait()
	smp[mWait] += time.Since(t).Seconds()
	s.tr.span(traceWait, "wait", t, nil)
	s.clk.start()
	if err != nil {
		if op.Kind == plan.CloseFile {
			_ = s.stack.Exec(op, nil)
		}
		return fmt.Errorf("%s %s: %w", op.Kind, op.Path, err)
	}
	return nil
}

// stampRange returns the index of a plan's first operation that is not a file selection
// and the number of operations from it to the last such one.
func stampRange(pl *plan.Plan) (lo, n int) {
	hi := len(pl.Ops) - 1
	for lo <= hi && pl.Ops[lo].Kind == plan.SelectFile {
		lo++
	}
	for hi >= lo && pl.Ops[hi].Kind == plan.SelectFile {
		hi--
	}
	return lo, hi - lo + 1
}

// transferred books a completed transfer's bytes and verifies a read that is checked.
func (s *Session) transferred(op *plan.Op, buf []byte, bytes uint64, smp *sample) error {
	smp[mBytes] += float64(bytes)
	if op.Kind == plan.Read && s.phase != nil && (s.phase.verify || s.checksOwnRead(op)) {
		return s.check1(op, buf, smp)
	}
	return nil
}

// baton carries out a serial group's hand-off on the session's communicator: a wait
// receives the baton from the rank before (MPI_Recv); a pass first waits for every
// operation this rank issued (a background mode's queue drained), so the next holder
// finds the file closed, then sends it on (MPI_Ssend). The time is charged to the file
// category and the census counts the messages (MPI_Recv, MPI_Ssend).
func (s *Session) baton(op *plan.Op, smp *sample, step bool, i, n int) error {
	if op.Baton == nil {
		return fmt.Errorf("%s: no baton peer", op.Kind)
	}
	var err error
	s.wd.mark(op)
	if op.Kind == plan.PassBaton {
		if err = s.stack.Wait(); err == nil {
			s.recordHandOffSize(op.Baton.Stat)
			err = s.comm.SsendInt(0, op.Baton.Peer, op.Baton.Tag)
		}
	} else {
		_, err = s.comm.RecvInt(op.Baton.Peer, op.Baton.Tag)
	}
	t0, t1 := s.clk.lap()
	smp.charge(op.Kind, (t1 - t0).Seconds())
	if step {
		stamp(smp, i, n, t0, t1)
	}
	if s.tr != nil {
		s.tr.op(traceIO, op.Kind.String(), op, uint64(s.handOffSizes[op.Baton.Stat]), wallAt(t0))
	}
	if err != nil {
		return fmt.Errorf("%s rank %d: %w", op.Kind, op.Baton.Peer, err)
	}
	smp.countCall(op, 0)
	return nil
}

// writes reports whether pl writes data.
func writes(pl *plan.Plan) bool {
	return slices.ContainsFunc(pl.Ops, func(op plan.Op) bool { return op.Kind == plan.Write })
}

// progressEvery is the least time between two info-level "step done" lines.
const progressEvery = time.Second

// ComputeStep emulates the configured compute after the current step: compute_time, or
// the trace's duration for this step (the trace repeats when shorter than the run), with
// compute_jitter applied; or, for a pattern that computes for times of its own
// (patterns.Computer: DLIO's batches, a description's compute), the time it gives for the
// step just done, compute_jitter applied too. Local.
func (s *Session) ComputeStep() time.Duration {
	if s.check() != nil {
		return 0
	}
	step := 0
	if s.phase != nil {
		step = s.phase.stepsDone
		if c, ok := s.pat.(patterns.Computer); ok {
			if step == 0 {
				return 0
			}
			d := c.ComputeAfter(s.phase.ph, step-1, s.phase.env)
			return s.Compute(emulate.Jitter(d, s.cfg.ComputeJitter, s.cfg.Seed, s.Rank(), step-1))
		}
	}
	d := s.cfg.ComputePerStep
	if len(s.trace) > 0 {
		d = s.trace[step%len(s.trace)]
	}
	return s.Compute(emulate.Jitter(d, s.cfg.ComputeJitter, s.cfg.Seed, s.Rank(), step))
}

// Compute emulates application compute for d (sleep or spin, as configured) and charges
// it to the phase's last step, or to the next phase when none is running. Local.
func (s *Session) Compute(d time.Duration) time.Duration {
	if s.check() != nil || d <= 0 {
		return 0
	}
	if p, ok := s.stack.(stack.Progresser); ok {
		p.Progress() // h5bench's H5ESwait(es_data, 0) before its compute
	}
	took := emulate.Compute(s.cfg.ComputeKind, d)
	s.tr.took(traceCompute, "compute", took)
	switch p := s.phase; {
	case p == nil:
		s.pendingCompute += took.Seconds()
	case p.stepsDone == 0:
		p.begin[mCompute] += took.Seconds()
	default:
		p.steps[p.stepsDone-1][mCompute] += took.Seconds()
		p.steps[p.stepsDone-1][mEnd] = now()
	}
	return took
}
