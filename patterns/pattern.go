package patterns

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
)

// Phase is the direction of a pattern's I/O.
type Phase int

// Phases.
const (
	PhaseWrite Phase = iota + 1
	PhaseRead
)

// String returns write or read.
func (p Phase) String() string {
	switch p {
	case PhaseWrite:
		return "write"
	case PhaseRead:
		return "read"
	}
	return fmt.Sprintf("phase(%d)", int(p))
}

// Env is what a pattern may know about the run when it plans.
type Env struct {
	Rank, Size int
	// Path is the file (or file prefix) the phase works on.
	Path string
	// Async is true under a background mode: h5bench changes its close schedule then.
	Async bool
	// Shape returns the extent of an existing dataset; read plans use it after Begin's
	// operations ran (h5bench's reader takes its dimensions from the file).
	Shape func(path string) ([]uint64, error)
	// Seed is the session's seed: patterns that draw sizes at random (h5bench's normal
	// distribution of particle counts) draw them from it, so a rerun plans the same.
	Seed uint64
	// FilterAvailable reports whether HDF5 can write with a filter (built in, or a plugin
	// found on HDF5_PLUGIN_PATH): write phases that need a filter check it in Begin, before
	// any I/O. Nil when unknown (plans made without a session): no check.
	FilterAvailable func(id uint32) bool
	// DiskSize sums the sizes on disk of files written earlier in the session (MACSio grows
	// its data set from them). Collective: every rank calls it at the same point of its
	// plans; it waits for the rank's pending I/O and synchronizes the ranks first, so the
	// files are complete. ok is false when the layout keeps nothing under those names
	// (null, log, subfiling); nil outside a session (plans printed on their own).
	DiskSize func(paths []string) (size int64, ok bool, err error)
	// Iteration is the iteration whose steps the phase runs when the session runs the
	// pattern's iterations one at a time (Iterator); 0 when a phase runs them all. The
	// phase's step s is then step Iteration*k + s of the whole test, k steps an iteration.
	Iteration int
}

// Describer is implemented by patterns whose kernel names its operation and prints rows of
// its own, known before any I/O, in h5bench's summary and CSV (h5bench_append's "append",
// the normal-distribution kernel's particle statistics). Rows computed from the phase's
// measurements come from Reporter.
type Describer interface {
	// Operation is the kernel's name of a phase's operation ("" keeps the phase's name).
	Operation(ph Phase) string
	// Metrics are the kernel's own rows for a phase, in the kernel's order.
	Metrics(ph Phase, env Env) []Metric
}

// Metric is one row of a kernel's own report lines: name, value and unit as h5bench
// prints them in its CSV.
type Metric struct {
	Name, Value, Unit string
}

// Pattern produces the plans of one application's I/O. Begin runs once before the first
// step, Step once per step, End once after the last executed step (steps = how many ran).
// Implementations are pure: the same inputs give the same plan. A plan's selections are
// never modified once returned (plans may share them across steps and files, and the
// session caches what it derives from a selection by the selection's storage).
type Pattern interface {
	Name() string
	// Steps is the configured number of steps.
	Steps() int
	// Phases lists the phases the pattern supports.
	Phases() []Phase
	Begin(ph Phase, env Env) (plan.Plan, error)
	Step(ph Phase, step int, env Env) (plan.Plan, error)
	End(ph Phase, steps int, env Env) (plan.Plan, error)
}

// Stepper is implemented by patterns whose number of steps depends on the phase and on the
// number of ranks (h5bench's DLIO: a write step per round of generated files, a read step
// per batch each rank reads). Steps is then the first phase's count on one rank.
type Stepper interface {
	PhaseSteps(ph Phase, ranks int) int
}

// StepsOf is the number of steps of phase ph of p on the given number of ranks.
func StepsOf(p Pattern, ph Phase, ranks int) int {
	if s, ok := p.(Stepper); ok {
		return s.PhaseSteps(ph, ranks)
	}
	return p.Steps()
}

// Computer is implemented by patterns whose kernel computes for times of its own after each
// step (h5bench's DLIO: a time drawn per batch): the session emulates ComputeAfter after
// every step, the last included, in place of the configured compute_time.
type Computer interface {
	ComputeAfter(ph Phase, step int, env Env) time.Duration
}

// Hinter is implemented by patterns whose program passes MPI-IO hints of its own to the
// files it opens (E3SM-IO's set_info): the session opens its files with them, beneath the
// configuration's hints (mpi_info, mpiio.*), which override them key by key.
type Hinter interface {
	MPIHints() map[string]string
}

// Synchronizer is implemented by patterns whose program synchronizes its ranks before some
// steps (h5perf's MPI_Barrier before each file's open, outside its timers): the session
// calls a barrier before such a step's clock starts.
type Synchronizer interface {
	BarrierBefore(ph Phase, step int) bool
}

// Rewriter is implemented by patterns whose write steps replace one another's data
// (IOR recreates its file every iteration): a read step then finds the values of the
// write step WrittenBy names, and the session verifies it against them. writeSteps is the
// number of steps a write phase runs (every step of the test, or one iteration's when the
// session runs the iterations one at a time).
type Rewriter interface {
	WrittenBy(readStep, writeSteps int) int
}

// Iterator is implemented by patterns whose program repeats its whole test, every phase
// of it, as iterations (IOR's repetitions: the write, the read, the file's removal, then
// the next iteration; h5perf's and MACSio's repetitions are alike). Run whole, a phase
// runs every iteration's steps. A driver may instead run the iterations one at a time
// (proxy's Session.Iterate): each phase then runs the steps of one iteration, numbered
// from 0, Env.Iteration names the iteration and PhaseTimes.ByIteration is set. Each
// phase's steps divide evenly among the iterations.
type Iterator interface {
	Iterations() int
}

// StepCleaner is implemented by patterns whose program deletes files between steps,
// outside its timers (h5perf removes each file once it has been read back): after such a
// step the session waits for the step's I/O, synchronizes the ranks and rank 0 removes the
// files.
type StepCleaner interface {
	RemoveAfter(ph Phase, step int, env Env) []string
}

// InputReader is implemented by patterns whose program reads an input file through C++
// streams before any I/O (AMReX's ParmParse on its I/O rank, openPMD-api 8a's parseArgs on
// every rank): the session reads the file once, before the first phase, with the calls
// those streams make (internal/libc's ReadWhole and ReadLines), so that a profile of the
// run counts the program's opens, filenos, seeks and reads. An empty path reads nothing.
type InputReader interface {
	InputFile() (path string, how InputRead)
}

// PhaseReader is implemented by patterns whose program reads text files on rank 0 just
// before a phase's file is created or opened and just after it is closed, outside its
// I/O: openPMD-api 8a's Timer reads /proc/self/status at each timer's start and end
// (MemoryProfiler::Display, a std::ifstream read with std::getline, on rank 0 only). The
// session makes those reads on rank 0 with the calls of that stream (internal/libc's
// ReadLines); a file that cannot be opened is skipped, as the program's is_open check
// skips it. Darshan and libh5proxy-profile.so record no /proc file, but the stream's
// descriptor is the lowest free one, which the fclose of an earlier followed stream (the
// input file's) left mapped to that file: the reads count there, as the program's do.
type PhaseReader interface {
	// PhaseReads returns the files rank 0 reads, in order, before phase ph creates or
	// opens its file and after it closes it.
	PhaseReads(ph Phase) (before, after []string)
}

// InputRead says how and where a program reads its input file.
type InputRead int

const (
	// InputWholeOnRoot: rank 0 reads the whole file at once, as AMReX's
	// ParallelDescriptor::ReadAndBcastFile reads it before broadcasting it.
	InputWholeOnRoot InputRead = iota + 1
	// InputLinesOnEveryRank: every rank reads it line by line with std::getline.
	InputLinesOnEveryRank
)

// Factory builds a pattern from its parsed option values.
type Factory struct {
	Name    string
	Summary string
	Options *options.Table
	New     func(v *options.Values) (Pattern, error)
	// Dynamic, when set, returns the table the given options are parsed with in place of
	// Options: the app pattern's keys are Options' plus its description's parameters.
	Dynamic func(kvs []options.KV) (*options.Table, error)
	// MoreHelp, when set, writes what `h5proxy help NAME` prints after the option table
	// (the app pattern: the description format).
	MoreHelp func(w io.Writer) error
}

// OptionsFor returns the table the options kvs are parsed with: Options, or the table
// Dynamic builds for them.
func (f Factory) OptionsFor(kvs []options.KV) (*options.Table, error) {
	if f.Dynamic == nil {
		return f.Options, nil
	}
	return f.Dynamic(kvs)
}

var registry = map[string]Factory{}

// Register adds a pattern factory under its lowercase name; registering a name twice
// panics (a programming error caught by any test).
func Register(f Factory) {
	name := strings.ToLower(f.Name)
	if _, dup := registry[name]; dup {
		panic("patterns: duplicate registration of " + name)
	}
	registry[name] = f
}

// Lookup returns the factory of a registered pattern.
func Lookup(name string) (Factory, error) {
	f, ok := registry[strings.ToLower(name)]
	if !ok {
		return Factory{}, fmt.Errorf("unknown pattern %q; available: %s", name, strings.Join(Names(), ", "))
	}
	return f, nil
}

// Names lists registered patterns, sorted.
func Names() []string {
	n := make([]string, 0, len(registry))
	for k := range registry {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}
