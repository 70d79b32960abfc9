package proxy

import (
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/h5proxy/h5proxy/emulate"
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
	// inputRead: the program's input file was read (readInput, before the first phase).
	inputRead bool
	// alone is the failure of a phase on this rank alone (ErrFailedAlone): every later
	// call returns it, and Close does nothing collective.
	alone error
	trace []time.Duration
	stack stack.Mode
	// background: the mode runs I/O on another thread; stores: the layout keeps data.
	background, stores bool
	// modeImpl says how the mode runs (stack.Describer: mode=async's event sets or model).
	modeImpl string
	// handOffSizes are the sizes on disk of files this rank handed on to the next rank of
	// a serial group, when it handed them on (plan.Baton.Stat; files.go's diskSize).
	handOffSizes map[string]int64
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

// ErrClosed is returned by every method of a closed session.
var ErrClosed = errors.New("h5proxy: session is closed")

// ErrState is wrapped by errors of calls made out of order (a step outside a phase, ...).
var ErrState = errors.New("h5proxy: call out of order")

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
	setup := setupWatchdog(comm, cfg)
	defer setup.close()
	setup.mark(callPatternSetup)
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
	setup.mark(callCommDup)
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
	env := stack.Env{Comm: ioComm, SessionComm: dup, MPIInfo: sessionHints(pat, &cfg), UserInfo: cfg.MPIHints(), File: cfg.File, Settings: settings, Groups: s.groups}
	setup.mark(callStackSetup)
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
	setup.mark(callSetupAgree)
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
	if d, ok := s.stack.(stack.Describer); ok {
		s.modeImpl = d.Impl()
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

func (s *Session) check() error {
	if s == nil || s.closed {
		return ErrClosed
	}
	return s.alone
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
	// The stack goes with the close, with what its layout keeps (the null layout's dataset
	// extents): a host may hold a closed session for long. The phases' plans asked it for
	// extents through env.Shape; nothing plans any more.
	s.stack = nil
	for _, p := range s.done {
		p.env.Shape = nil
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
