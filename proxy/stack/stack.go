// Package stack is h5proxy's I/O stack: the contracts of its strategies and their
// registry. A layout is the terminal of the stack (it stores data, like an HDF5 terminal
// VOL connector); a mode is a passthrough above a layout (like a passthrough VOL
// connector). Each strategy lives in a package of its own under proxy/layout or
// proxy/mode, declares its option keys once in its own table, and registers itself here;
// package proxy imports every built-in strategy (proxy/strategies.go).
//
//	stack.RegisterLayout(stack.Strategy{Name: "null", Summary: "no I/O",
//		NewLayout: func(stack.Env) (stack.Layout, error) { return &layout{}, nil }})
package stack

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
)

// Layout is a terminal of the I/O stack: it carries out plan operations on storage.
// Implementations are not safe for concurrent use.
type Layout interface {
	// Exec performs one operation. buf holds the transfer's memory for reads and writes.
	Exec(op *plan.Op, buf []byte) error
	// Shape returns the extent of a dataset of the current file.
	Shape(path string) ([]uint64, error)
	// Abort releases every open object and file after a failure, best effort.
	Abort() error
}

// Mode is a passthrough above a layout (sync, async, cache).
type Mode interface {
	Layout
	// Wait blocks until every operation issued so far has completed and returns the first
	// error of a background operation (then cleared: event-set semantics).
	Wait() error
	// Prefetch starts a plan's operations that the caller will Exec later (read-ahead).
	Prefetch(p *plan.Plan) error
	// InFlight is the number of staged bytes not yet written.
	InFlight() int
	// WaitBeforeStep reports whether the caller must wait for the earlier steps' I/O
	// before issuing write step step (h5bench's IO_MEM_LIMIT).
	WaitBeforeStep(step int) bool
	// TakeStats returns and resets the background statistics of the phase.
	TakeStats() Stats
	// Close stops background work after draining it.
	Close() error
}

// Stats are a background mode's measurements of one phase.
type Stats struct {
	// Busy is the background execution time in seconds per step (-1: the phase's begin,
	// >= steps: its end).
	Busy map[int]float64
	// StagingHigh is the staging bytes' high-water mark.
	StagingHigh int
	// Blocked is the time in seconds callers waited for staging room.
	Blocked float64
	// LocalReads counts reads served from node-local storage (cache mode).
	LocalReads int
}

// Env is what a strategy gets from the session.
type Env struct {
	// Comm is the layout's communicator: the session's own in sync mode, a duplicate in
	// background modes (whose layouts run collectives on another thread).
	Comm mpi.Comm
	// SessionComm is the session's communicator, for agreement between ranks in modes.
	SessionComm mpi.Comm
	// MPIInfo are MPI-IO hints for file access: the program's (a pattern's or
	// description's), then the run configuration's, which win.
	MPIInfo map[string]string
	// UserInfo are the run configuration's own hints (mpi_info, mpiio.*), a subset of
	// MPIInfo: they also win over a file's own hints, which win over the program's.
	UserInfo map[string]string
	// File is the session's file (or file prefix).
	File string
	// Settings are the parsed values of every strategy key (each strategy reads its own).
	// Nil outside a session: strategies then use their tables' defaults.
	Settings *options.Values
	// Groups are the session's communicators of group files (plan.FileSpec.GroupRanks),
	// split once each and freed by the session. Nil outside a session: each open splits
	// a communicator of its own.
	Groups *GroupComms
}

// Setting returns the parsed values a strategy reads its keys from: env.Settings, or the
// defaults of every strategy table when the strategy is built outside a session.
func (env Env) Setting() *options.Values {
	if env.Settings != nil {
		return env.Settings
	}
	v, err := Options().Parse(nil)
	if err != nil {
		panic(err) // defaults are constants: a failure is a programming error
	}
	return v
}

// Caps are a strategy's capabilities, which the session asks instead of names.
type Caps uint

// Capabilities.
const (
	// Background: the mode issues I/O from a background thread (MPI_THREAD_MULTIPLE is
	// required, and the layout gets a communicator of its own).
	Background Caps = 1 << iota
	// StoresData: the layout keeps what is written (a file is required; reads verify).
	StoresData
	// Subfiles: the layout writes subfiles (h5bench's CSV reports SUBFILING=YES).
	Subfiles
	// RankFiles: the layout may keep a shared file as files of its own per rank, so the
	// configured path need not exist before a read (the layout's open names what is
	// missing).
	RankFiles
	// ThreadMultiple: the layout runs threads of its own that call MPI (the subfiling
	// VFD's I/O concentrators), so MPI must provide MPI_THREAD_MULTIPLE in any mode.
	ThreadMultiple
	// MultiDataset: the layout carries several datasets' transfers out in one call
	// (MultiExec; HDF5 1.14's H5Dwrite_multi and H5Dread_multi).
	MultiDataset
	// MemorySpaces: the layout hands HDF5 each transfer's memory space, so a memory
	// selection (plan.Transfer.MemSelection: ghost cells) is selected there; the session
	// gives the other layouts the selected elements packed (plan.Transfer.Packed).
	MemorySpaces
)

// EventSetter is implemented by layouts whose operations are HDF5's own object calls
// (group and dataset creates, opens, closes, H5Dwrite, H5Dread), which the event-set mode
// issues as their _async forms (h5.InEventSet).
type EventSetter interface {
	// EventSets reports whether the layout's operations go through those calls.
	EventSets() bool
}

// Describer is implemented by modes that can run more than one way (mode=async: event sets
// or the model): Impl says which ran, for the report.
type Describer interface {
	Impl() string
}

// Progresser is implemented by modes that let queued work start before the caller
// computes (h5bench's H5ESwait with no timeout before its compute).
type Progresser interface {
	Progress()
}

// Drainer is implemented by modes that wait for every operation issued so far before they
// issue some operations (the event-set mode before a file's flush or close, where h5bench
// waits in its mem_monitor_final_run): DrainsBefore reports whether op is one with
// something to wait for. The session then makes that wait itself first (Wait), charged to
// the drain as h5bench charges it, not to op.
type Drainer interface {
	DrainsBefore(op *plan.Op) bool
}

// MultiExec is implemented by layouts with MultiDataset and by the layers above them
// (the sync mode, the tracer), which pass it down.
type MultiExec interface {
	// ExecMulti performs the transfers ops (all writes or all reads of the current file,
	// with one collective flag and tuning), op i with buffer bufs[i], in one call.
	ExecMulti(ops []*plan.Op, bufs [][]byte) error
}

// ExecMulti passes ops to under's ExecMulti, or fails naming the layout that lacks it
// (the session checks MultiDataset before any I/O, so this is a programming error).
func ExecMulti(under Layout, ops []*plan.Op, bufs [][]byte) error {
	m, ok := under.(MultiExec)
	if !ok {
		return fmt.Errorf("%T: no multi-dataset I/O", under)
	}
	return m.ExecMulti(ops, bufs)
}

// RunExec is implemented by layouts that can make a run of consecutive transfers from one
// call into the library they drive, and by the layers above them that pass it down (the
// sync mode). The library calls are those of Exec for each transfer, in order: only the
// number of calls from Go into C changes (one per run instead of one per transfer: a Go
// thread bound to a core pays a context switch or so per blocking C call, bench/cgocall).
type RunExec interface {
	// Runs reports whether op can be made in a run: a write or read of the current file
	// whose calls need no Go between them, or an operation with no transfer (bufs[i] is
	// nil) that the layout makes without any library call. The session asks it before
	// each run, with every operation before the run done.
	Runs(op *plan.Op) bool
	// ExecRun performs ops in order, op i with buffer bufs[i], each as Exec would, and
	// stops at the first that fails: it returns the number completed and that op's error
	// (as Exec's for it). took[i] receives op i's time as the library side measured it,
	// from the end of op i-1 (op 0: from the run's start) to its own end, for every op
	// attempted (the failing one included).
	ExecRun(ops []*plan.Op, bufs [][]byte, took []time.Duration) (int, error)
}

// Strategy declares one layout or mode.
type Strategy struct {
	Name    string
	Summary string
	Caps    Caps
	// Options are the strategy's keys (namespaced, e.g. subfiling.count). Strategies of
	// one package may share a table; each table is declared once.
	Options *options.Table
	// Validate checks the settings when this strategy is selected (keys that exclude each
	// other, values this strategy cannot honour).
	Validate func(v *options.Values) error
	// ModeAlias is a value of the session key "mode" that selects this layout (h5bench's
	// MODE=LOG means the Log VOL, a layout here).
	ModeAlias string
	// SelectKey is a boolean key of Options that selects this layout when YES (h5bench's
	// SUBFILING=YES).
	SelectKey string
	// Available reports whether this build can run the strategy: nil, or an error naming
	// the build that can, wrapping ErrUnsupported (nil func: always available). A strategy
	// that needs a library version registers anyway, so that its keys, help and docs are
	// the same in every build and selecting it says what to build.
	Available func() error
	// CheckDataset, when set, checks a dataset the session is about to create in a file
	// ranks ranks share (a Parallel file), before any operation of the plan that creates
	// it runs (layouts only): a dataset the layout cannot store at that rank count is
	// refused before any I/O, naming the dataset, rather than failing inside HDF5.
	CheckDataset func(path string, spec *plan.DatasetSpec, ranks int) error
	// NewLayout builds a layout (layouts only).
	NewLayout func(env Env) (Layout, error)
	// NewMode builds a mode over a layout (modes only).
	NewMode func(under Layout, env Env) (Mode, error)
}

// ErrUnsupported is wrapped by the errors of features the build or the environment cannot
// support (proxy.ErrUnsupported is this error).
var ErrUnsupported = errors.New("h5proxy: unsupported")

// Unsupported is an option error (naming the key and value) that is also ErrUnsupported:
// a strategy's Available error.
type Unsupported struct{ Err *options.Error }

// Error is the option error's text.
func (u Unsupported) Error() string { return u.Err.Error() }

// Unwrap returns the option error and ErrUnsupported.
func (u Unsupported) Unwrap() []error { return []error{u.Err, ErrUnsupported} }

// Has reports whether the strategy has every capability of c.
func (s Strategy) Has(c Caps) bool { return s.Caps&c == c }

var (
	layouts = map[string]Strategy{}
	modes   = map[string]Strategy{}
)

// RegisterLayout adds a layout; registering a name twice panics (a programming error).
func RegisterLayout(s Strategy) { register(layouts, "layout", s) }

// RegisterMode adds a mode; registering a name twice panics.
func RegisterMode(s Strategy) { register(modes, "mode", s) }

func register(m map[string]Strategy, kind string, s Strategy) {
	if _, dup := m[s.Name]; dup {
		panic("stack: duplicate " + kind + " " + s.Name)
	}
	m[s.Name] = s
	merged.Store(nil)
}

// LookupLayout returns a registered layout.
func LookupLayout(name string) (Strategy, error) { return lookup(layouts, "layout", name) }

// LookupMode returns a registered mode.
func LookupMode(name string) (Strategy, error) { return lookup(modes, "mode", name) }

func lookup(m map[string]Strategy, kind, name string) (Strategy, error) {
	if s, ok := m[name]; ok {
		return s, nil
	}
	return Strategy{}, &options.Error{Table: "session", Key: kind, Value: name, Reason: "unknown " + kind, Allowed: strings.Join(names(m), ", ")}
}

// Layouts lists the registered layouts' names, sorted.
func Layouts() []string { return names(layouts) }

// Modes lists the registered modes' names, sorted.
func Modes() []string { return names(modes) }

// LayoutStrategies lists the registered layouts, sorted by name.
func LayoutStrategies() []Strategy { return sorted(layouts) }

// ModeStrategies lists the registered modes, sorted by name.
func ModeStrategies() []Strategy { return sorted(modes) }

func names(m map[string]Strategy) []string {
	n := make([]string, 0, len(m))
	for k := range m {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func sorted(m map[string]Strategy) []Strategy {
	var out []Strategy
	for _, n := range names(m) {
		out = append(out, m[n])
	}
	return out
}

// merged caches Options(); registration resets it.
var merged atomic.Pointer[options.Table]

// Options returns one table holding every registered strategy's keys (each shared table
// once, modes first, then layouts, by name).
func Options() *options.Table {
	if t := merged.Load(); t != nil {
		return t
	}
	t := &options.Table{Name: "session"}
	seen := map[*options.Table]bool{}
	for _, s := range append(ModeStrategies(), LayoutStrategies()...) {
		if s.Options == nil || seen[s.Options] {
			continue
		}
		seen[s.Options] = true
		t.Specs = append(t.Specs, s.Options.Specs...)
	}
	merged.Store(t)
	return t
}

// BackgroundError is a failure of an operation that ran in the background, reported at the
// next wait or close: it names the step, the operation and the object.
type BackgroundError struct {
	Step int
	Op   string
	Path string
	Err  error
}

func (b *BackgroundError) Error() string {
	return fmt.Sprintf("background %s %s (step %d): %v", b.Op, b.Path, b.Step, b.Err)
}

// Unwrap returns the failed operation's error.
func (b *BackgroundError) Unwrap() error { return b.Err }
