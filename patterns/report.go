package patterns

import "github.com/h5proxy/h5proxy/plan"

// Timing is one quantity measured on every rank, reduced over the ranks (seconds).
type Timing struct {
	Min, Max, Mean float64
}

// StepTimes is one step of a finished phase, reduced over the ranks.
type StepTimes struct {
	Step int
	// Bytes is what all ranks moved in the step.
	Bytes float64
	// Wall is each rank's time from the step's start to its end.
	Wall, Raw, Metadata        Timing
	FileOpen, Flush, FileClose Timing
	// Compute is each rank's emulated compute after the step.
	Compute Timing
	// OpsSpan is each rank's time from the start of the step's first operation to the end
	// of its last, Inner from the end of the first to the start of the last, both less
	// h5proxy's data preparation and verification in between: what a kernel whose timers
	// enclose its file's open and close (or the I/O between them) reads on its clock, as
	// h5perf's Open-Close and Write timers do.
	OpsSpan, Inner Timing
	// FirstStart and FirstEnd are the wall-clock times (Unix seconds) at which each rank's
	// first operation of the step started and ended; LastStart and LastEnd those of its last
	// operation, moved earlier by the data preparation and verification h5proxy did in
	// between. Min is the earliest rank's, Max the latest's: what a kernel that reduces its
	// own timestamps over the ranks (IOR: the earliest open to the latest close) reads.
	FirstStart, FirstEnd, LastStart, LastEnd Timing
	// Ops holds each rank's time in the operations of one kind (a write's H5Dwrite calls, a
	// dataset create's H5Dcreate calls, ...): a kernel that prints a column per call, as
	// the exerciser does, splits the categories by it. Each kind is reduced on its own: the
	// maximum of two kinds' sum over ranks is at most the sum of their maxima.
	Ops map[plan.OpKind]Timing
}

// PhaseTimes is what the session measured in a finished phase, reduced over the ranks: the
// input of a kernel's own report. Times are per-rank sums of the operations of their
// category (raw: dataset reads and writes; metadata: group, dataset and attribute
// operations; file: create or open, flush, close), as h5proxy's reports charge them.
type PhaseTimes struct {
	Phase Phase
	Ranks int
	// Bytes is what all ranks moved.
	Bytes float64
	// Observed is h5bench's observed window: the earliest start to the latest end.
	Observed float64
	// Wall is each rank's own time from the phase's first operation to its last.
	Wall                                      Timing
	Raw, Metadata, FileOpen, Flush, FileClose Timing
	Compute                                   Timing
	// Opens is each rank's time in file creates or opens and group and dataset creates and
	// opens (closes and attribute writes left out).
	Opens Timing
	// Span is each rank's own time from before its file create or open to after its last
	// operation, before the phase's closing barrier (a read's open, done before h5bench's
	// window, included), less the data preparation and verification h5proxy does inside
	// it, which the real programs do not do.
	Span Timing
	// Start and End are the earliest start and the latest end of the observed window over
	// the ranks (Unix seconds).
	Start, End float64
	// FileBytes is what the files rank 0 created or opened take on disk after the phase
	// (the file's H5Fget_filesize under the native layout); 0 when nothing is stored.
	FileBytes float64
	Steps     []StepTimes
	// Earlier are the session's phases that finished before this one, in order.
	Earlier []PhaseTimes
	// ByIteration is set when the phase ran one iteration, Iteration, of the pattern's
	// (Iterator, run one at a time): the test's other iterations are Earlier phases (the
	// ones before) or phases to come. A report of the whole test gathers them.
	ByIteration bool
	Iteration   int
}

// Line is one line of a kernel's own report. The summary prints Text when it is set, else
// "Name: Value Unit" unless Quiet; the CSV gets a row "Name, Value, Unit" unless Name is
// empty (a Text-only line, such as a table heading).
type Line struct {
	Name  string  `json:"name,omitempty"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
	Text  string  `json:"text,omitempty"`
	// Quiet keeps a named line out of the summary, whose Text lines already show its value
	// (one cell of the exerciser's table); the CSV and the JSON keep it.
	Quiet bool `json:"-"`
}

// Reporter is implemented by patterns whose real program prints results of its own (the
// HDF5 I/O test's per-phase times, the exerciser's per-size rates): the session calls it
// once per finished phase, on every rank with the same reduced input, and adds the lines
// to the summary, the CSV and the JSON report after h5bench's rows.
type Reporter interface {
	KernelReport(t PhaseTimes) []Line
}
