package proxy

// The phase lifecycle: a phase begun (its file created or opened, its first step planned
// before the observed window), its steps run, and ended (closed, drained, measured).

import (
	"fmt"
	"os"
	"time"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// phaseRun is the state and measurements of one phase.
type phaseRun struct {
	ph         patterns.Phase
	env        patterns.Env // env.Iteration: the iteration the phase runs (byIteration)
	byIter     bool         // the phase ran one iteration of the pattern's (Iterate)
	verify     bool
	modify     bool // a write phase into an existing file (h5bench's overwrite and append)
	begin      sample
	end        sample
	steps      []sample
	stepsDone  int
	progress   float64            // when the last "step done" line was logged at info level (Unix seconds)
	fill       emulate.FillKind   // how the phase's data was (write) or is assumed (read) filled
	runs       map[selRef]selRuns // the runs of large selections (see Session.runs)
	runsCached int                // runs held in runs
	// layouts are the memory layouts of the transfers filled so far (Session.bufLayout), at
	// most layoutsMax: patterns that share a transfer between steps fill without allocating.
	layouts map[*plan.Transfer]*emulate.Layout
	// packed are the packed forms of transfers with a memory selection (Session.packed).
	packed   map[*plan.Transfer]*plan.Transfer
	mismatch *firstMismatch // this rank's first, for the verdict
	failed   error
	ahead    *plan.Plan // next step's plan: planned before the window, or submitted ahead (background reads)
	// phaseFiles are the files the phase created, opened and left open (files.go).
	phaseFiles
	// ownChecked and ownUnchecked: a write phase read back data it wrote and checked it, or
	// skipped some (checksOwnRead).
	ownChecked, ownUnchecked bool
	// knobs are the phase's knobs, applied to every operation (knobs.go).
	knobs *knobs
	// profStart and profEnd are the profiler's counters at the phase's start and end
	// (profile=yes under libh5proxy-profile.so; nil otherwise).
	profStart, profEnd []int64
}

// Run runs every configured phase: each step's I/O with emulated compute between steps
// (h5bench computes after every step but the last). Collective.
func (s *Session) Run() error {
	for _, ph := range s.cfg.Phases {
		if err := s.RunPhase(ph); err != nil {
			return err
		}
	}
	return nil
}

// RunPhase runs one phase from begin to end. Collective.
func (s *Session) RunPhase(ph patterns.Phase) error {
	if err := s.BeginPhase(ph); err != nil {
		return err
	}
	_, own := s.pat.(patterns.Computer) // the kernel computes after its last step too
	n := len(s.phase.steps)
	for step := 0; step < n; step++ {
		if err := s.Step(step); err != nil {
			return err
		}
		if step < n-1 || own {
			s.ComputeStep()
		}
	}
	return s.EndPhase()
}

// BeginPhase starts a phase: checks the file system, then creates or opens the file as the
// pattern plans. Collective.
func (s *Session) BeginPhase(ph patterns.Phase) error {
	if err := s.check(); err != nil {
		return err
	}
	if s.phase != nil {
		return fmt.Errorf("%w: phase %s is still running; end it before beginning %s", ErrState, s.phase.ph, ph)
	}
	s.wd.enter(stageBegin, ph, -1)
	defer s.wd.leave()
	supported := false
	for _, p := range s.pat.Phases() {
		supported = supported || p == ph
	}
	if !supported {
		return fmt.Errorf("%w: pattern %s has no %s phase", ErrState, s.pat.Name(), ph)
	}
	if err := s.preflight(ph); err != nil {
		return err
	}
	if err := s.readInput(); err != nil {
		return err
	}
	s.phaseReads(ph, false)
	verify, fill := false, s.cfg.Fill
	if ph == patterns.PhaseRead && s.stores {
		w, wrote := s.written[s.cfg.File]
		if wrote {
			fill = w.fill // verify what this session wrote, whatever the read's fill says
		}
		verify = s.cfg.Verify == VerifyYes || (s.cfg.Verify == VerifyAuto && wrote && w.seed == s.cfg.Seed)
	}
	kn, err := s.cfg.knobsFor(ph, s.Size())
	if err != nil {
		return err
	}
	n := s.phaseSteps(ph)
	p := &phaseRun{ph: ph, verify: verify, fill: fill, steps: make([]sample, n), phaseFiles: phaseFiles{stepFiles: make([]string, 0, n)},
		knobs: kn, byIter: s.iterating}
	p.env = patterns.Env{Rank: s.Rank(), Size: s.Size(), Path: s.cfg.File, Async: s.background, Shape: s.stack.Shape, Seed: s.cfg.Seed,
		FilterAvailable: filterAvailable, DiskSize: s.diskSize}
	if s.iterating {
		p.env.Iteration = s.iter
	}
	if ph == patterns.PhaseRead {
		p.env.Shape = s.shape(p)
	}
	s.stack.TakeStats()     // start the phase's background statistics afresh
	s.takeCensus(nil, true) // and its census
	p.profStart = profileTotals(s.cfg.Profile)
	p.begin[mCompute] = s.pendingCompute
	s.pendingCompute = 0
	s.phase = p
	// What h5bench does before its timer starts happens before the observed window: the
	// plans of the file create/open and of the first step are built here; fill=once fills
	// every write buffer of both; a read opens its file and queries the extents there.
	pl, err := s.pat.Begin(ph, p.env)
	if err == nil {
		err = s.checkPlan(&pl)
	}
	if err != nil {
		return s.fail(fmt.Errorf("begin: %w", err))
	}
	// A write phase that opens an existing file (h5bench's overwrite and append) opens it
	// and takes its extents before the window, as those kernels and the readers do.
	p.modify = ph == patterns.PhaseWrite && len(pl.Ops) > 0 && pl.Ops[0].Kind == plan.OpenFile
	if p.modify {
		if _, err := os.Stat(s.cfg.File); err != nil && s.stores {
			return s.fail(fmt.Errorf("h5proxy: file %q to modify: %w", s.cfg.File, err))
		}
		p.env.Shape = s.shape(p)
		if err := s.execute(&pl, &p.begin, false); err != nil {
			return s.fail(fmt.Errorf("begin: %w", err))
		}
		if err := s.prepare(&plan.Plan{}, p); err != nil {
			return s.fail(fmt.Errorf("begin: %w", err))
		}
	} else if ph == patterns.PhaseWrite {
		if err := s.prepare(&pl, p); err != nil {
			return s.fail(fmt.Errorf("begin: %w", err))
		}
	} else {
		if err := s.execute(&pl, &p.begin, false); err != nil {
			return s.fail(fmt.Errorf("begin: %w", err))
		}
		if len(p.steps) > 0 && !s.background {
			step0, err := s.stepPlan(p, 0)
			if err != nil {
				return s.fail(fmt.Errorf("begin: %w", err))
			}
			p.ahead = &step0
		}
	}
	s.wd.mark(callBarrier)
	if err := s.comm.Barrier(); err != nil {
		return s.fail(fmt.Errorf("begin: %w", err))
	}
	p.begin[mStart] = now()
	if ph == patterns.PhaseWrite && !p.modify {
		if err := s.execute(&pl, &p.begin, false); err != nil {
			return s.fail(fmt.Errorf("begin: %w", err))
		}
	}
	p.begin[mEnd] = now()
	s.takeCensus(&p.begin, true)
	file := s.cfg.File
	if lf, ok := s.pat.(interface{ LogFiles(patterns.Env) string }); ok { // a description's files
		file = lf.LogFiles(p.env)
	}
	s.log.Info().Str("phase", ph.String()).Str("file", file).Bool("verify", verify).Msg("phase begun")
	return nil
}

// prepare plans a write phase's first step ahead and, with fill=once, fills the write
// buffers of the begin plan and of that step: outside the observed window, as h5bench
// prepares its data before its timer starts. Later steps reuse the buffers (buffer).
func (s *Session) prepare(begin *plan.Plan, p *phaseRun) error {
	if len(p.steps) == 0 {
		return nil
	}
	step0, err := s.stepPlan(p, 0)
	if err != nil {
		return err
	}
	p.ahead = &step0
	if p.fill != emulate.Once {
		return nil
	}
	var smp sample
	defer func() { p.begin[mPrep], p.begin[mPrepBefore] = p.begin[mPrep]+smp[mPrep], smp[mPrep] }()
	s.clk.start() // each fill's lap (buffer)
	for _, pl := range []*plan.Plan{begin, &step0} {
		for i := range pl.Ops {
			if op := &pl.Ops[i]; op.Kind == plan.Write && op.Transfer != nil {
				if _, err := s.buffer(op, &smp); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// EndPhase closes what the phase left open and the file, waits for pending I/O and, for
// verified reads, fails if any rank found a mismatch. Collective.
func (s *Session) EndPhase() error {
	if err := s.check(); err != nil {
		return err
	}
	p := s.phase
	if p == nil {
		return fmt.Errorf("%w: EndPhase called with no phase running", ErrState)
	}
	s.wd.enter(stageEnd, p.ph, p.stepsDone)
	defer s.wd.leave()
	p.end[mStart] = now()
	pl, err := s.pat.End(p.ph, p.stepsDone, p.env)
	if err != nil {
		return s.fail(err)
	}
	if err := s.checkPlan(&pl); err != nil {
		return s.fail(fmt.Errorf("end after step %d: %w", p.stepsDone-1, err))
	}
	if err := s.execute(&pl, &p.end, false); err != nil {
		return s.fail(fmt.Errorf("end after step %d: %w", p.stepsDone-1, err))
	}
	t := time.Now()
	s.wd.mark(callWait)
	werr := s.stack.Wait() // the drain at close
	p.end[mWait] += time.Since(t).Seconds()
	s.tr.drained(t)
	s.phaseReads(p.ph, true)
	s.collectStats(p)
	s.takeCensus(&p.end, true)
	p.profEnd = profileTotals(s.cfg.Profile)
	if werr != nil {
		return s.fail(fmt.Errorf("end after step %d: %w", p.stepsDone-1, werr))
	}
	p.end[mDone] = now()
	s.wd.mark(callBarrier)
	if err := s.comm.Barrier(); err != nil {
		return s.fail(err)
	}
	p.end[mEnd] = now()
	p.end[mFileSize] = s.filesSize(p)
	p.steps = p.steps[:p.stepsDone]
	s.done = append(s.done, p)
	s.phase = nil
	if p.ph == patterns.PhaseWrite && p.fill.Verifiable() && p.stepsDone > 0 {
		s.written[s.cfg.File] = writtenFile{seed: s.cfg.Seed, fill: p.fill}
	}
	s.cleanup(p)
	if p.verify || p.ownChecked {
		return s.verdict(p)
	}
	return nil
}

// collectStats books the background mode's measurements of the phase: background time per
// step, the staging high-water mark and the time callers waited for staging room.
func (s *Session) collectStats(p *phaseRun) {
	st := s.stack.TakeStats()
	for step, sec := range st.Busy {
		if step >= 0 && step < len(p.steps) {
			p.steps[step][mBackground] += sec
		} else {
			p.end[mBackground] += sec
		}
	}
	p.end[mStaged] = float64(st.StagingHigh)
	p.end[mBlocked] += st.Blocked
	p.end[mLocalReads] += float64(st.LocalReads)
}

// Iterate makes the phases begun from now on run iteration i of the pattern's iterations
// (patterns.Iterator) instead of all of them: each phase runs that iteration's steps,
// numbered from 0, the pattern plans them knowing the iteration (patterns.Env.Iteration)
// and its own report covers the earlier iterations' phases too. A driver that repeats a
// whole test as the real program does (IOR: the write, the read, the file's removal,
// then the next iteration) calls it before each iteration's phases. Local; not within a
// phase.
func (s *Session) Iterate(i int) error {
	if err := s.check(); err != nil {
		return err
	}
	if s.phase != nil {
		return fmt.Errorf("%w: Iterate(%d) within the %s phase; end it first", ErrState, i, s.phase.ph)
	}
	it, ok := s.pat.(patterns.Iterator)
	if !ok {
		return fmt.Errorf("%w: pattern %s has no iterations to run one at a time", ErrState, s.pat.Name())
	}
	if n := it.Iterations(); i < 0 || i >= n {
		return fmt.Errorf("%w: iteration %d out of range: pattern %s has %d (0..%d)", ErrState, i, s.pat.Name(), n, n-1)
	}
	s.iterating, s.iter = true, i
	return nil
}

// Steps returns the configured number of steps of the pattern (of one iteration's, once
// Iterate runs them one at a time); for a pattern whose count depends on the phase and
// the ranks (patterns.Stepper), that of the running phase, else of the first configured
// phase (a closed session has no ranks left to ask: Steps).
func (s *Session) Steps() int {
	if _, ok := s.pat.(patterns.Stepper); !ok || s.closed {
		return s.pat.Steps() / s.iterations()
	}
	if s.phase != nil {
		return len(s.phase.steps)
	}
	return s.phaseSteps(s.cfg.Phases[0])
}

// iterations is the number of parts a phase's steps are divided into: the pattern's
// iterations while they run one at a time (Iterate), else 1.
func (s *Session) iterations() int {
	if it, ok := s.pat.(patterns.Iterator); ok && s.iterating {
		return it.Iterations()
	}
	return 1
}

// phaseSteps is the number of steps a phase ph runs: all of the pattern's, or one
// iteration's.
func (s *Session) phaseSteps(ph patterns.Phase) int {
	return patterns.StepsOf(s.pat, ph, s.Size()) / s.iterations()
}

// filterAvailable is the patterns' check of a filter: a failed query counts as missing.
func filterAvailable(id uint32) bool {
	ok, err := h5.FilterAvailable(id)
	return ok && err == nil
}
