package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// Session is what an application holds: a communicator (a duplicate of the host's, so the
// session's collectives never interleave with the host's), a validated configuration, the
// I/O stack (mode over layout), the buffers and the measurements of the phases it ran.
//
// A Session is used from one goroutine; Go callers should runtime.LockOSThread while
// using it (HDF5 and MPI calls are issued on the caller's thread in sync mode). Every
// method marked collective must be called by all ranks of the communicator in the same
// order.
type Session struct {
	cfg    Config
	pat    patterns.Pattern
	comm   mpi.Comm
	ioComm mpi.Comm // the layout's: comm itself in sync mode, a duplicate in background modes
	// failComm carries only the agreement on a failure (fail): nothing else may match it.
	failComm mpi.Comm
	// alone is the failure of a phase on this rank alone (ErrFailedAlone): every later
	// call returns it, and Close does nothing collective.
	alone error
	trace []time.Duration
	stack stack.Mode
	// background: the mode runs I/O on another thread; stores: the layout keeps data.
	background, stores bool
	// bufs are the named buffers of the plans' transfers (buffer), pool the scratch
	// buffers of memory selections (interior); both off the Go heap, kept across phases.
	bufs    map[string]*sessionBuf
	pool    emulate.Pool
	log     zerolog.Logger
	phase   *phaseRun
	done    []*phaseRun
	written map[string]writtenFile // files this session wrote with verifiable fills
	closed  bool
	// pendingCompute is compute done outside a phase, charged to the next phase.
	pendingCompute float64
	// rankFiles: the layout may keep a shared file as per-rank files (stack.RankFiles).
	rankFiles bool
	// checkDataset is the layout's check of the datasets a plan creates in a shared file
	// (stack.Strategy.CheckDataset; nil: none); fileRanks is how many ranks share the file
	// the plans checked so far last created or opened (plan.FileSpec.Ranks).
	checkDataset func(path string, spec *plan.DatasetSpec, ranks int) error
	fileRanks    int
	// checks: some check can refuse a dataset (the layout has one, or the loaded HDF5 a
	// known bug): else checkPlan has nothing to do, and a step's walk over its operations
	// (about 1,000 instructions) is saved.
	checks bool
	// memSpaces: the layout selects memory selections in HDF5's memory space
	// (stack.MemorySpaces); the others get them packed (packed).
	memSpaces bool
	// groups are the communicators of group files, split once each (stack.GroupComms),
	// freed with the session's (freeComms).
	groups *stack.GroupComms
	// sysIO holds /proc/self/io at the last census (takeCensus).
	sysIO []float64
	// tr records the timeline (trace_file); nil when none is asked for.
	tr *tracer
	// iterating: the phases run one iteration of the pattern's at a time (Iterate), the
	// iteration iter.
	iterating bool
	iter      int
	// rank and size in comm, asked once: a step asks them several times, and each MPI
	// query through cgo costs a call and an allocation.
	rank, size int
	// clk times the operations of the plan being executed (execute): one clock reading
	// per operation, fill and verification.
	clk lapClock
	// wd is the stall watchdog (watchdog.go): execute marks each operation in it.
	wd *watchdog
}

// writtenFile is how a session filled a file it wrote: what a later read verifies against.
type writtenFile struct {
	seed uint64
	fill emulate.FillKind
}

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
	packed    map[*plan.Transfer]*plan.Transfer
	mismatch  *firstMismatch // this rank's first, for the verdict
	failed    error
	ahead     *plan.Plan     // next step's plan: planned before the window, or submitted ahead (background reads)
	files     []string       // files created or opened, in order (noteFile)
	open      plan.OpenFiles // the files open as the operations executed so far left them
	file      string         // the file created or opened last: failures name it (fail)
	stepFiles []string       // file at the end of each step done: background failures name it
	opens     int            // file creates and opens executed so far
	shapes    map[shapeKey][]uint64
	// ownChecked and ownUnchecked: a write phase read back data it wrote and checked it, or
	// skipped some (checksOwnRead).
	ownChecked, ownUnchecked bool
	// knobs are the phase's knobs, applied to every operation (knobs.go).
	knobs *knobs
	// profStart and profEnd are the profiler's counters at the phase's start and end
	// (profile=yes under libh5proxy-profile.so; nil otherwise).
	profStart, profEnd []int64
}

// shapeKey names a dataset of the file open at a point of a read phase.
type shapeKey struct {
	opens int
	path  string
}

// shape is env.Shape of a read phase: a read-only file's extents do not change, so each is
// queried once per opened file; the real readers query them once, before their timers,
// where the plans would otherwise open and close a dataset in every step.
func (s *Session) shape(p *phaseRun) func(string) ([]uint64, error) {
	return func(path string) ([]uint64, error) {
		k := shapeKey{p.opens, path}
		if d, ok := p.shapes[k]; ok {
			return slices.Clone(d), nil
		}
		d, err := s.stack.Shape(path)
		if err != nil {
			return nil, err
		}
		if p.shapes == nil {
			p.shapes = map[shapeKey][]uint64{}
		}
		p.shapes[k] = slices.Clone(d)
		return d, nil
	}
}

// ErrClosed is returned by every method of a closed session.
var ErrClosed = errors.New("h5proxy: session is closed")

// ErrState is wrapped by errors of calls made out of order (a step outside a phase, ...).
var ErrState = errors.New("h5proxy: call out of order")

// ErrVerify is wrapped by read-verification failures.
var ErrVerify = errors.New("h5proxy: verification failed")

// NewSession validates cfg and creates a session on comm. Collective.
func NewSession(comm Comm, cfg Config) (*Session, error) {
	if !mpi.Initialized() {
		return nil, errors.New("h5proxy: MPI is not initialized (call MPI_Init in the host, or proxy.InitMPI from Go)")
	}
	unset := len(cfg.Phases) == 0
	if unset {
		cfg.Phases, _ = ParsePhases(nil)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	pat, err := cfg.NewPattern()
	if err != nil {
		return nil, err
	}
	if unset {
		cfg.Phases = pat.Phases() // a write-only kernel (the exerciser) runs its one phase
	}
	var trace []time.Duration
	if cfg.ComputeTrace != "" {
		if trace, err = emulate.LoadTrace(cfg.ComputeTrace); err != nil {
			return nil, err
		}
	}
	mode, _ := stack.LookupMode(cfg.Mode) // Validate checked both names
	layout, _ := stack.LookupLayout(cfg.Layout)
	settings, _ := cfg.Settings()
	background := mode.Has(stack.Background)
	if background {
		if err := requireThreadMultiple(modeThreads(cfg.Mode)); err != nil {
			return nil, err
		}
	}
	if layout.Has(stack.ThreadMultiple) {
		if err := requireThreadMultiple(layoutThreads(cfg.Layout)); err != nil {
			return nil, err
		}
	}
	dup, err := comm.c.Dup()
	if err != nil {
		return nil, fmt.Errorf("h5proxy: duplicating the communicator: %w", err)
	}
	// The layout gets a communicator of its own in background modes: its collectives run on
	// the executor's thread while the session's run on the caller's.
	ioComm := dup
	if background {
		if ioComm, err = dup.Dup(); err != nil {
			_ = dup.Free()
			return nil, fmt.Errorf("h5proxy: duplicating the communicator: %w", err)
		}
	}
	failComm, err := dup.Dup()
	if err != nil {
		if ioComm != dup {
			_ = ioComm.Free()
		}
		_ = dup.Free()
		return nil, fmt.Errorf("h5proxy: duplicating the communicator: %w", err)
	}
	s := &Session{cfg: cfg, pat: pat, comm: dup, ioComm: ioComm, failComm: failComm, trace: trace, written: map[string]writtenFile{},
		rank: dup.Rank(), size: dup.Size(), groups: &stack.GroupComms{}}
	s.log = newLogger(s.rank)
	s.background, s.stores, s.rankFiles = background, layout.Has(stack.StoresData), layout.Has(stack.RankFiles)
	s.checkDataset = layout.CheckDataset
	s.checks = s.checkDataset != nil || knownBugs()
	s.memSpaces = layout.Has(stack.MemorySpaces)
	env := stack.Env{Comm: ioComm, SessionComm: dup, MPIInfo: sessionHints(pat, &cfg), File: cfg.File, Settings: settings, Groups: s.groups}
	under, err := layout.NewLayout(env)
	if err == nil {
		if cfg.TraceFile != "" {
			s.tr = newTracer(s.rank, background)
			under = tracedLayout{under, s.tr}
		}
		s.stack, err = mode.NewMode(under, env)
	}
	// Creation is collective: if it failed on any rank (a cache directory, memory), every
	// rank fails, so no rank goes on alone into collective calls.
	if aerr := dup.Agree(err, "h5proxy: session creation"); aerr != nil {
		if s.stack != nil {
			s.stack.Close()
		}
		s.freeComms()
		return nil, aerr
	}
	for _, w := range cfg.Warnings {
		s.log.Warn().Msg(w)
	}
	s.wd = newWatchdog(s, cfg.StallTimeout, s.comm.Abort)
	return s, nil
}

// Config returns the session's effective configuration.
func (s *Session) Config() Config { return s.cfg }

// Pattern returns the session's pattern.
func (s *Session) Pattern() patterns.Pattern { return s.pat }

// Rank returns the calling rank in the session's communicator.
func (s *Session) Rank() int { return s.rank }

// Size returns the number of ranks of the session.
func (s *Session) Size() int { return s.size }

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

func (s *Session) check() error {
	if s == nil || s.closed {
		return ErrClosed
	}
	return s.alone
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
	p := &phaseRun{ph: ph, verify: verify, fill: fill, steps: make([]sample, n), stepFiles: make([]string, 0, n),
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
	s.log.Info().Str("phase", ph.String()).Str("file", s.cfg.File).Bool("verify", verify).Msg("phase begun")
	return nil
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

// stepPlan asks the pattern for a step's plan and checks it (checkPlan).
func (s *Session) stepPlan(p *phaseRun, step int) (plan.Plan, error) {
	pl, err := s.pat.Step(p.ph, step, p.env)
	if err == nil {
		err = s.checkPlan(&pl)
	}
	return pl, err
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

// preflight catches what would otherwise fail deep inside HDF5 on every rank: a missing
// output directory, a missing input file.
func (s *Session) preflight(ph patterns.Phase) error {
	if !s.stores {
		return nil
	}
	switch ph {
	case patterns.PhaseWrite:
		dir := filepath.Dir(s.cfg.File)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("h5proxy: write phase: output directory %q of file %q does not exist", dir, s.cfg.File)
		}
	case patterns.PhaseRead:
		if _, err := os.Stat(s.cfg.File); err != nil && !s.perRankFiles() && !s.rankFiles {
			return fmt.Errorf("h5proxy: read phase: input file %q: %w", s.cfg.File, err)
		}
	}
	return nil
}

// filterAvailable is the patterns' check of a filter: a failed query counts as missing.
func filterAvailable(id uint32) bool {
	ok, err := h5.FilterAvailable(id)
	return ok && err == nil
}

// perRankFiles reports whether the pattern writes one file per rank (not at the
// configured path itself).
func (s *Session) perRankFiles() bool {
	type perRank interface{ FilePath(patterns.Env) string }
	if p, ok := s.pat.(perRank); ok {
		return p.FilePath(patterns.Env{Rank: s.Rank(), Size: s.Size(), Path: s.cfg.File}) != s.cfg.File
	}
	return false
}

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

// removeAfter deletes, outside the step's clock, the files the pattern's program deletes
// after the step: every rank's I/O done (a barrier), then rank 0 removes them.
func (s *Session) removeAfter(p *phaseRun, step int) error {
	c, ok := s.pat.(patterns.StepCleaner)
	if !ok {
		return nil
	}
	files := c.RemoveAfter(p.ph, step, p.env)
	if len(files) == 0 {
		return nil
	}
	if err := s.stack.Wait(); err != nil {
		return err
	}
	if err := s.comm.Barrier(); err != nil {
		return err
	}
	if s.Rank() != 0 || !s.stores {
		return nil
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// progressEvery is the least time between two info-level "step done" lines.
const progressEvery = time.Second

// writes reports whether pl writes data.
func writes(pl *plan.Plan) bool {
	return slices.ContainsFunc(pl.Ops, func(op plan.Op) bool { return op.Kind == plan.Write })
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

// filesSize is what the files rank 0 created or opened in the phase take on disk once
// closed (what H5Fget_filesize reports for a native file); 0 on other ranks, for layouts
// that store nothing and for files that are not there under their own names.
func (s *Session) filesSize(p *phaseRun) float64 {
	if s.Rank() != 0 || !s.stores {
		return 0
	}
	var n float64
	for _, f := range p.files {
		if st, err := os.Stat(f); err == nil {
			n += float64(st.Size())
		}
	}
	return n
}

// cleanup removes, on rank 0 after the phase's closing barrier, the files a pattern's
// program deletes when it ends (the exerciser without keepfile).
func (s *Session) cleanup(p *phaseRun) {
	c, ok := s.pat.(interface{ Cleanup(patterns.Env) []string })
	if !ok || !s.stores || s.Rank() != 0 {
		return
	}
	for _, f := range c.Cleanup(p.env) {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.log.Warn().Err(err).Str("file", f).Msg("removing the pattern's file")
		}
	}
}

// verdict turns the ranks' mismatch counts into one error, the same on every rank.
func (s *Session) verdict(p *phaseRun) error {
	var local float64
	for i := range p.steps {
		local += p.steps[i][mMismatch]
	}
	counts, err := s.comm.AllreduceFloat64([]float64{local, b2f(local > 0)}, mpi.OpSum)
	if err != nil {
		return err
	}
	if counts[0] == 0 {
		return nil
	}
	detail := ""
	if m := p.mismatch; m != nil {
		detail = fmt.Sprintf("; first on rank %d: file %s, step %d: %s", s.Rank(), m.file, m.step, m.m)
	}
	return fmt.Errorf("%w: %s phase of %s: %.0f mismatching elements on %.0f of %d ranks%s",
		ErrVerify, p.ph, listFiles(p.files, s.cfg.File), counts[0], counts[1], s.Size(), detail)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// fail aborts the running phase: every open object and file is closed so nothing leaks
// and the host can go on; the error is returned as is.
func (s *Session) fail(err error) error {
	if p := s.phase; p != nil {
		// A failure names the phase and the file it was writing or reading (the step and
		// operation come from the caller): with several files per phase (a file per step,
		// per-rank files), the configured path alone would not say which one.
		file := p.file
		var be *BackgroundError
		if errors.As(err, &be) && be.Step >= 0 && be.Step < len(p.stepFiles) {
			file = p.stepFiles[be.Step] // the step that failed in the background is past
		}
		if file == "" {
			file = s.cfg.File
		}
		err = &PhaseError{Phase: p.ph.String(), File: file, Err: err, Free: -1}
		if p.ph == patterns.PhaseWrite {
			err.(*PhaseError).Free = freeBytes(file)
		}
		p.failed = err
		s.phase = nil
	}
	if s.failedAlone() {
		// Closing the files is collective: it would wait for ever too. They stay open;
		// the host ends the job (h5proxy run does).
		s.alone = fmt.Errorf("%w: rank %d of %d: the other ranks did not fail within %v and wait in a collective call; its files are left open: end the job (MPI_Abort): %w",
			ErrFailedAlone, s.Rank(), s.Size(), failAgreeWithin, err)
		s.log.Error().Err(err).Msg("phase failed on this rank alone")
		return s.alone
	}
	if aerr := s.stack.Abort(); aerr != nil {
		s.log.Warn().Err(aerr).Msg("closing files after a failure")
	}
	s.log.Error().Err(err).Msg("phase failed")
	return err
}

// failAgreeWithin is how long a failed rank waits for the others to fail too.
const failAgreeWithin = 10 * time.Second

// failedAlone reports whether this rank failed and the others did not follow within
// failAgreeWithin. A failure seen by one rank only (a collective write whose error only
// its aggregator saw, a file system that filled under one rank) leaves the others in the
// next collective call, where they wait for ever; a failure every rank sees (a read-only
// directory, a missing input) agrees at once.
func (s *Session) failedAlone() bool {
	if s.Size() < 2 {
		return false
	}
	all, err := s.failComm.BarrierWithin(failAgreeWithin)
	return err == nil && !all
}

// ErrFailedAlone marks the failure of a phase on some ranks only: the others wait in a
// collective call. The session can only be closed (locally, its files left open); the
// host must end the job, with MPI_Abort (Comm.Abort), as h5proxy run does.
var ErrFailedAlone = errors.New("h5proxy: the phase failed on this rank alone")

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
	for i := range pl.Ops {
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
		if op.Kind == plan.SelectFile {
			// Bookkeeping in order with the rest (after the batch of the file selected
			// before, ahead of the next operations in a background queue): no library
			// call, so no time, stamp or census count.
			if err := s.stack.Exec(op, nil); err != nil {
				return fmt.Errorf("%s %s: %w", op.Kind, op.Path, err)
			}
			if s.phase != nil {
				s.phase.open.Apply(op)
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
			s.phase.open.Apply(op)
			if op.Kind != plan.CloseFile {
				s.noteFile(op)
				s.phase.opens++
				s.phase.file = op.Path
			}
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
		s.tr.op(traceIO, op.Kind.String(), op, 0, wallAt(t0))
	}
	if err != nil {
		return fmt.Errorf("%s rank %d: %w", op.Kind, op.Baton.Peer, err)
	}
	smp.countCall(op, 0)
	return nil
}

// diskSize is patterns.Env.DiskSize: this rank's I/O completed, the ranks synchronized,
// the sizes on disk of the named files summed; ok is false when the layout keeps no file
// under these names.
func (s *Session) diskSize(paths []string) (int64, bool, error) {
	if err := s.stack.Wait(); err != nil {
		return 0, false, err
	}
	if err := s.comm.Barrier(); err != nil {
		return 0, false, err
	}
	if !s.stores {
		return 0, false, nil
	}
	var n int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return 0, false, nil
		}
		n += st.Size()
	}
	return n, true, nil
}

// checksOwnRead reports whether a read inside a write phase is checked: a kernel that reads
// back what it just wrote (the exerciser) gives the expected bytes (Transfer.Data); the
// layout must store data and verification must not be off. It notes on the phase whether
// every such read was checked, for the report's Verified.
func (s *Session) checksOwnRead(op *plan.Op) bool {
	p := s.phase
	if p.ph != patterns.PhaseWrite || op.Transfer.Data == nil || !s.stores || s.cfg.Verify == VerifyNo {
		return false
	}
	if op.Transfer.Unchecked {
		p.ownUnchecked = true
	} else {
		p.ownChecked = true
	}
	return true
}

// selRef identifies a selection by its storage (a plan does not change a selection once
// issued; the key keeps the storage alive, so its address is not reused).
type selRef struct {
	first *plan.Hyperslab
	n     int
}

// selRuns is a selection's runs in a dataspace shape and their element count.
type selRuns struct {
	shape  []uint64
	runs   []plan.Run
	points uint64
}

// pointsCacheMin is the fewest blocks of a selection the phase caches the runs of;
// runsCacheMax bounds the runs cached per phase (64 MiB).
const (
	pointsCacheMin = 64
	runsCacheMax   = 1 << 22
)

// runs returns t's selection's runs in t.FileShape and their element count. The runs of
// large selections, which plans share between transfers (E3SM writes every variable of a
// decomposition with one selection), are computed once per phase: they take a sort, which
// the measured code does not do.
func (s *Session) runs(t *plan.Transfer) selRuns {
	blocks := t.Selection.Blocks
	if s.phase == nil || len(blocks) < pointsCacheMin {
		return newSelRuns(t)
	}
	k := selRef{&blocks[0], len(blocks)}
	if c, ok := s.phase.runs[k]; ok && slices.Equal(c.shape, t.FileShape) {
		return c
	}
	c := newSelRuns(t)
	if s.phase.runs == nil {
		s.phase.runs = map[selRef]selRuns{}
	}
	if old, ok := s.phase.runs[k]; ok {
		s.phase.runsCached -= len(old.runs)
		delete(s.phase.runs, k)
	}
	if s.phase.runsCached+len(c.runs) <= runsCacheMax {
		s.phase.runs[k] = c
		s.phase.runsCached += len(c.runs)
	}
	return c
}

func newSelRuns(t *plan.Transfer) selRuns {
	c := selRuns{shape: slices.Clone(t.FileShape), runs: t.Selection.Runs(t.FileShape)}
	for _, r := range c.runs {
		c.points += r.Len
	}
	return c
}

// transferBytes is t.Bytes(): a single hyperslab's count needs no expansion (a strided
// read of 87381 blocks would otherwise expand them at every transfer, which the measured
// code never does), a union's runs come from the phase's cache.
func (s *Session) transferBytes(t *plan.Transfer) uint64 {
	if len(t.Selection.Blocks) == 1 {
		return t.Bytes()
	}
	return s.runs(t).points * t.ElemBytes()
}

// layoutsMax bounds the memory layouts a phase keeps (phaseRun.layouts).
const layoutsMax = 1024

// bufLayout maps a transfer's memory buffer to global element indices. A plan does not
// change a transfer once issued, so its layout is kept for the phase (bounded): a pattern
// that issues one transfer at every step fills it without allocating.
func (s *Session) bufLayout(t *plan.Transfer) *emulate.Layout {
	p := s.phase
	if p != nil {
		if l, ok := p.layouts[t]; ok {
			return l
		}
	}
	l := &emulate.Layout{Elem: t.MemType.Size, Fields: emulate.Fields(t.MemType, t.Variable), Runs: s.runs(t).runs}
	if p != nil && len(p.layouts) < layoutsMax {
		if p.layouts == nil {
			p.layouts = map[*plan.Transfer]*emulate.Layout{}
		}
		p.layouts[t] = l
	}
	return l
}

// packed returns op with its transfer's memory selection packed (plan.Transfer.Packed)
// for a layout without memory spaces, op itself otherwise: such a layout moves the
// selected elements' bytes from a contiguous buffer, which the session fills (and
// verifies) with the same values. The packed transfers are kept for the phase, so a
// transfer issued at every step fills one buffer layout.
func (s *Session) packed(op *plan.Op) *plan.Op {
	t := op.Transfer
	if t == nil || t.MemSelection == nil || s.memSpaces {
		return op
	}
	var p *plan.Transfer
	if s.phase != nil {
		p = s.phase.packed[t]
	}
	if p == nil {
		p = t.Packed()
		if s.phase != nil && len(s.phase.packed) < layoutsMax {
			if s.phase.packed == nil {
				s.phase.packed = map[*plan.Transfer]*plan.Transfer{}
			}
			s.phase.packed[t] = p
		}
	}
	c := *op
	c.Transfer = p
	return &c
}

// interior returns the scratch buffer that holds the elements a memory selection selects
// of t's buffer, packed: where they are filled before a write is scattered into the
// buffer, and where a read's are gathered to be verified.
func (s *Session) interior(t *plan.Transfer) ([]byte, error) {
	n := t.Selection.NPoints(t.FileShape)
	return s.pool.GetAt(t.Buffer+"\x00interior", int(n)*t.MemType.Size, 0)
}

// memRuns moves the elements of t's memory selection between buf (the memory space)
// and packed (in the selection's row-major order): into buf when scatter, else out of it.
func memRuns(t *plan.Transfer, buf, packed []byte, scatter bool) {
	size := uint64(t.MemType.Size)
	var at uint64
	for _, r := range t.MemSelection.Runs(t.MemShape) {
		b, p := buf[r.Start*size:(r.Start+r.Len)*size], packed[at:at+r.Len*size]
		if scatter {
			copy(b, p)
		} else {
			copy(p, b)
		}
		at += r.Len * size
	}
}

// sessionBuf is a named buffer of the session (Session.bufs): its memory and, for a
// write buffer, the data it holds. A write looks it up once (buffer).
type sessionBuf struct {
	mem *emulate.Buffer
	// filled is what the buffer holds if filled by phase (a buffer filled in an earlier
	// phase holds nothing a write relies on).
	phase  *phaseRun
	filled filledBuf
}

// filledBuf is what a write buffer holds: the data of a step's transfer, and that
// transfer's memory layout once a seeded fill asked for it (bufLayout; a step that fills
// the buffer for the same transfer again reuses it).
type filledBuf struct {
	step   int
	t      *plan.Transfer
	layout *emulate.Layout
}

// holds reports whether a buffer filled as f already holds op's data: the same fields,
// memory layout and selection, in the same step or, with fill=once (every step's data is
// step 0's), in any step.
func (f *filledBuf) holds(op *plan.Op, kind emulate.FillKind) bool {
	a, b := f.t, op.Transfer
	// The fields, not the variable: writes of an interleaved buffer name one member each but
	// share the whole struct. A buffer one step writes to several places (the HDF5 I/O
	// test's one array per H5Dwrite) is refilled for each.
	same := a == b || a.MemType.Equal(b.MemType) && slices.Equal(emulate.Fields(a.MemType, a.Variable), emulate.Fields(b.MemType, b.Variable)) &&
		slices.Equal(a.MemShape, b.MemShape) && slices.Equal(a.FileShape, b.FileShape) && sameSelection(a.Selection, b.Selection) &&
		(a.MemSelection == nil) == (b.MemSelection == nil) && (a.MemSelection == nil || sameSelection(*a.MemSelection, *b.MemSelection))
	if f.step == op.Step {
		// Explicit contents shared by the step's writes (h5perf's one buffer written to every
		// place) are filled once: the program copies nothing between its calls either.
		return same || sameBytes(a.Data, b.Data)
	}
	return kind == emulate.Once && a.Data == nil && b.Data == nil && same
}

// sameBytes reports whether a and b are the same non-empty bytes in memory (one slice).
func sameBytes(a, b []byte) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}

// sameSelection compares two selections block by block (shared storage first: plans share
// large selections between steps).
func sameSelection(a, b plan.Selection) bool {
	if len(a.Blocks) != len(b.Blocks) {
		return false
	}
	if len(a.Blocks) == 0 || &a.Blocks[0] == &b.Blocks[0] {
		return true
	}
	return slices.EqualFunc(a.Blocks, b.Blocks, func(x, y plan.Hyperslab) bool {
		return slices.Equal(x.Start, y.Start) && slices.Equal(x.Stride, y.Stride) && slices.Equal(x.Count, y.Count) && slices.Equal(x.Block, y.Block)
	})
}

// buffer returns the transfer's memory, filled with this step's data for writes (once
// per buffer and step: writes that share an interleaved buffer fill it once; with
// fill=once, once per phase), except as-is writes (untouched).
func (s *Session) buffer(op *plan.Op, smp *sample) ([]byte, error) {
	t := op.Transfer
	b := s.bufs[t.Buffer]
	if b == nil {
		if s.bufs == nil {
			s.bufs = map[string]*sessionBuf{}
		}
		b = &sessionBuf{}
		s.bufs[t.Buffer] = b
	}
	mem, err := b.mem.Fit(int(plan.Product(t.MemShape))*t.MemType.Size, t.BufferOffset)
	if err != nil {
		b.mem = nil // freed by Fit
		return nil, err
	}
	b.mem = mem
	buf := mem.Bytes()
	if op.Kind != plan.Write || s.phase == nil || t.AsIs {
		return buf, nil
	}
	f := &b.filled
	if b.phase == s.phase && f.holds(op, s.phase.fill) {
		return buf, nil
	}
	if b.phase != s.phase || f.t != t {
		f.layout = nil // another transfer's
	}
	b.phase, f.step, f.t = s.phase, op.Step, t
	return buf, s.fillLaid(op, buf, &f.layout, smp)
}

// refills reports whether buffer fills op's buffer with new data: a write (not as-is) of
// a phase whose buffer does not already hold its data.
func (s *Session) refills(op *plan.Op) bool {
	t := op.Transfer
	if t == nil || op.Kind != plan.Write || s.phase == nil || t.AsIs {
		return false
	}
	b := s.bufs[t.Buffer]
	return b == nil || b.phase != s.phase || !b.filled.holds(op, s.phase.fill)
}

// fill writes op's data for this step into buf, charging the time since the clock's last
// reading (s.clk: the caller's) to data preparation.
func (s *Session) fill(op *plan.Op, buf []byte, smp *sample) error {
	var l *emulate.Layout
	return s.fillLaid(op, buf, &l, smp)
}

// fillLaid is fill with the memory layout of op's transfer kept in *l: set from bufLayout
// when nil and a seeded fill needs it.
func (s *Session) fillLaid(op *plan.Op, buf []byte, l **emulate.Layout, smp *sample) error {
	t := op.Transfer
	var err error
	if t.Data != nil { // explicit contents (index datasets) whatever the fill
		copy(buf, t.Data)
	} else {
		kind := s.cfg.Fill
		if s.phase != nil {
			kind = s.phase.fill
		}
		to := buf
		if t.MemSelection != nil { // the selected elements' values, then into place
			if to, err = s.interior(t); err != nil {
				return err
			}
		}
		if *l == nil {
			*l = s.bufLayout(t)
		}
		err = emulate.Fill(kind, to, *l, s.cfg.Seed, op.Step, s.Rank())
		if t.MemSelection != nil {
			memRuns(t, buf, to, true)
		}
	}
	t0, t1 := s.clk.lap()
	smp[mPrep] += (t1 - t0).Seconds()
	if s.tr != nil {
		s.tr.op(tracePrep, "fill", op, uint64(len(buf)), wallAt(t0))
	}
	return err
}

// check1 verifies one read buffer against the seeded values, or against the transfer's
// explicit Data, charging the time since the clock's last reading (the read's end) to
// verification; Unchecked reads are not verified.
func (s *Session) check1(op *plan.Op, buf []byte, smp *sample) error {
	if op.Transfer.Unchecked {
		return nil
	}
	var bad uint64
	var first *emulate.Mismatch
	var err error
	if op.Transfer.Data != nil {
		bad, first = checkData(op.Transfer, buf)
	} else {
		step := op.Step
		if rw, ok := s.pat.(patterns.Rewriter); ok {
			step = rw.WrittenBy(step, s.phaseSteps(patterns.PhaseWrite))
		}
		got := buf
		if t := op.Transfer; t.MemSelection != nil { // the selected elements, packed
			if got, err = s.interior(t); err != nil {
				return err
			}
			memRuns(t, buf, got, false)
		}
		bad, first, err = emulate.Verify(got, s.bufLayout(op.Transfer), s.cfg.Seed, emulate.DataStep(s.phase.fill, step))
	}
	t0, t1 := s.clk.lap()
	smp[mVerify] += (t1 - t0).Seconds()
	if err != nil {
		return err
	}
	smp[mMismatch] += float64(bad)
	if first != nil && s.phase.mismatch == nil {
		m := *first
		m.Variable = op.Path + " " + m.Variable
		file := s.phase.open.Current()
		if file == "" {
			file = s.cfg.File
		}
		s.phase.mismatch = &firstMismatch{file: file, step: op.Step, m: m}
	}
	return nil
}

// firstMismatch is a rank's first mismatching element in a phase: the file it was read
// from (the file current at the read, not the configured path: per-step and per-rank
// files, restart readers of other ranks' files), the step and the dataset's element.
type firstMismatch struct {
	file string
	step int
	m    emulate.Mismatch
}

// checkData compares a read buffer with the transfer's expected Data element by element
// and returns the number of differing elements and the first of them.
func checkData(t *plan.Transfer, buf []byte) (uint64, *emulate.Mismatch) {
	if len(buf) >= len(t.Data) && bytes.Equal(buf[:len(t.Data)], t.Data) {
		return 0, nil // the common case at memcmp speed: a slow check delays the other ranks' collective calls
	}
	size := t.MemType.Size
	var bad uint64
	var first *emulate.Mismatch
	for e := 0; (e+1)*size <= len(t.Data); e++ {
		got, want := buf[e*size:(e+1)*size], t.Data[e*size:(e+1)*size]
		if string(got) == string(want) {
			continue
		}
		bad++
		if first == nil {
			first = &emulate.Mismatch{Variable: t.Variable, Index: uint64(e), Got: fmt.Sprintf("%x", got), Want: fmt.Sprintf("%x", want)}
		}
	}
	return bad, first
}

// Close ends the session: an unfinished phase is aborted (its files closed), buffers are
// released, the timeline written (trace_file; rank 0 merges the ranks' parts) and the
// communicator duplicate freed. Collective. Closing twice returns ErrClosed.
func (s *Session) Close() error {
	if s != nil && !s.closed && s.alone != nil {
		// Every clean-up below is collective; the other ranks are stuck elsewhere.
		s.closed = true
		s.wd.close()
		return nil
	}
	if err := s.check(); err != nil {
		return err
	}
	s.wd.enter(stageClose, 0, -1)
	defer s.wd.close() // after leave: the watchdog ends with the session
	defer s.wd.leave()
	var first error
	if s.phase != nil {
		first = fmt.Errorf("%w: session closed during the %s phase; its files were closed unfinished", ErrState, s.phase.ph)
		s.phase = nil
		if err := s.stack.Abort(); err != nil && first == nil {
			first = err
		}
	}
	if err := s.stack.Close(); err != nil && first == nil {
		first = err
	}
	for name, b := range s.bufs {
		if err := b.mem.Free(); err != nil && first == nil {
			first = err
		}
		delete(s.bufs, name)
	}
	if err := s.pool.Free(); err != nil && first == nil {
		first = err
	}
	if err := s.writeTrace(); err != nil && first == nil {
		first = err
	}
	if err := s.freeComms(); err != nil && first == nil {
		first = err
	}
	s.closed = true
	return first
}

// now is the wall-clock time in Unix seconds, from one monotonic reading (time.Now reads
// the wall clock and the monotonic clock: two vDSO calls).
func now() float64 { return wallSeconds(tick()) }

// wallSeconds is the wall-clock time of tick d in Unix seconds.
func wallSeconds(d time.Duration) float64 { return float64(clockBaseUnix+int64(d)) / 1e9 }

// clockBase is the wall-clock time at start-up with its monotonic reading. Operations are
// timed as ticks since it: time.Since reads the monotonic clock alone, one vDSO call,
// where time.Now reads the wall clock too (twice per operation, it was the largest part of
// a null-layout step's own cost in BenchmarkNullStep's profile). Ticks turn back into wall-clock
// time where reports compare ranks (stamp) or a trace needs it (wallAt).
var clockBase = time.Now()

// clockBaseUnix is clockBase in Unix nanoseconds.
var clockBaseUnix = clockBase.UnixNano()

// tick is the monotonic time since clockBase.
func tick() time.Duration { return time.Since(clockBase) }

// wallAt is the wall-clock time of tick d.
func wallAt(d time.Duration) time.Time { return clockBase.Add(d) }

// lapClock times consecutive pieces of work with one clock reading each: a piece runs
// from the previous reading to its own. Two readings around each piece would double the
// readings, each a vDSO call of some 20 ns (the largest part of a null-layout step's own
// cost after the census moved to the phase, by BenchmarkNullStep's profile).
type lapClock struct{ last time.Duration }

// start reads the clock: the next lap begins now.
func (c *lapClock) start() { c.last = tick() }

// lap reads the clock and returns the lap just ended: from the previous reading to now.
func (c *lapClock) lap() (from, to time.Duration) {
	to = tick()
	from, c.last = c.last, to
	return from, to
}

// stamp records when a step's first and last operations (op i of n) started and ended, in
// wall-clock seconds (compared across ranks).
func stamp(smp *sample, i, n int, t0, t1 time.Duration) {
	if i != 0 && i != n-1 {
		return
	}
	a, b := wallSeconds(t0), wallSeconds(t1)
	if i == 0 {
		smp[mFirstStart], smp[mFirstEnd] = a, b
	}
	if i == n-1 {
		smp[mLastStart], smp[mLastEnd] = a, b
	}
}

// Wait blocks until every operation issued so far has completed and returns the first
// error of a background operation (sync mode completes everything inline). Local.
func (s *Session) Wait() error {
	if err := s.check(); err != nil {
		return err
	}
	s.wd.enter(stageWait, 0, -1)
	defer s.wd.leave()
	s.wd.mark(callWait)
	return s.stack.Wait()
}

// freeComms frees the session's communicator duplicates and the group communicators
// split from them.
func (s *Session) freeComms() error {
	first := s.groups.Free() // split from ioComm
	if s.ioComm != s.comm {
		if err := s.ioComm.Free(); err != nil && first == nil {
			first = err
		}
	}
	if err := s.failComm.Free(); err != nil && first == nil {
		first = err
	}
	if err := s.comm.Free(); err != nil && first == nil {
		first = err
	}
	return first
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

// threadUser is a strategy that needs MPI_THREAD_MULTIPLE: what it does from another
// thread, and the setting that does without.
type threadUser struct{ what, instead string }

// modeThreads: background modes issue their HDF5 (and so MPI-IO) calls on a second thread.
func modeThreads(mode string) threadUser {
	return threadUser{"mode " + mode + " issues HDF5 and MPI-IO calls from a background thread", "mode=sync"}
}

// layoutThreads: a layout with stack.ThreadMultiple (subfiling-vfd) runs the I/O
// concentrator threads of HDF5's subfiling VFD, which call MPI.
func layoutThreads(layout string) threadUser {
	return threadUser{"layout " + layout + " runs HDF5's subfiling VFD, whose I/O concentrator threads call MPI,", "layout=subfiling (its model)"}
}

// requireThreadMultiple refuses a strategy that calls MPI from threads of its own unless
// MPI provides MPI_THREAD_MULTIPLE.
func requireThreadMultiple(u threadUser) error {
	level, err := mpi.QueryThread()
	if err != nil {
		return err
	}
	return checkThreadLevel(u, level)
}

func checkThreadLevel(u threadUser, level mpi.ThreadLevel) error {
	if level >= mpi.ThreadMultiple {
		return nil
	}
	return fmt.Errorf("%w: %s and needs MPI_THREAD_MULTIPLE, but MPI provides %s; initialize MPI with MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) (Go: proxy.InitMPI does), or use %s",
		ErrThreadLevel, u.what, level, u.instead)
}

// ErrUnsupported is wrapped by errors for features the environment or the build cannot
// support (a layout that needs another HDF5: stack.Strategy.Available).
var ErrUnsupported = stack.ErrUnsupported

// ErrThreadLevel is wrapped by the error of a background mode (or the subfiling-vfd
// layout) started under an MPI that
// does not provide MPI_THREAD_MULTIPLE, so callers (the C ABI) can tell the host to change
// its MPI initialisation. It wraps ErrUnsupported: the environment cannot run that mode.
var ErrThreadLevel = fmt.Errorf("%w: MPI thread level", ErrUnsupported)
