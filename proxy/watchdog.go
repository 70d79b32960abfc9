package proxy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// The watchdog (session key stall_timeout) turns a silent hang into a named error. A rank
// whose session call (BeginPhase, Step, EndPhase, Wait, Close) makes no progress for the
// timeout writes one line to stderr naming its phase, step and the HDF5 or MPI call it is
// inside, then ends the job with MPI_Abort(StallAbortCode).
//
// Why MPI_Abort and not the session's collective failure path (fail, which closes the
// files and agrees on the failure with the other ranks): that path runs on the thread that
// made the call, and a stalled call never returns to it. The watchdog's own goroutine can
// neither unblock an HDF5 or MPI call in progress nor close files under it (HDF5 is not
// re-entrant); all that is left to a process whose main thread is stuck is to say where it
// is and end the job, which MPI_Abort does for every rank, as h5proxy run does for a
// failure seen by one rank alone (ErrFailedAlone).
//
// Cost on the hot path: one atomic pointer store per operation (execute marks the
// operation before handing it to the stack) and two atomic stores per session call
// (enter and leave); the watchdog goroutine reads them every tenth of the timeout (at most
// once a second). Progress is any change of the marks: a new operation, a new step or
// call, or, in background modes, the executor's operation changing.

// ErrStalled names the end of a job whose rank made no progress for stall_timeout.
var ErrStalled = errors.New("h5proxy: stalled")

// StallAbortCode is the error code the watchdog passes to MPI_Abort: mpirun exits with it
// (124, as timeout(1) exits when its command timed out).
const StallAbortCode = 124

// defaultStallTimeout is stall_timeout's default: longer than any single HDF5 call of the
// built-in patterns on a loaded node, short enough that a hung batch job ends well before
// its allocation does.
const defaultStallTimeout = 3 * time.Minute

// Session calls the watchdog tells apart (stage of watchdog.at).
const (
	stageIdle = iota
	stageBegin
	stageStep
	stageEnd
	stageWait
	stageClose
	stageSetup
)

var stageNames = [...]string{"idle", "begin", "step", "end", "wait", "close", "session set-up"}

// MPI calls the session makes between operations, marked like operations (Kind 0: the
// report names Path). Pointers, so a mark costs the same store as an operation's.
var (
	callBarrier = &plan.Op{Path: "MPI_Barrier"}
	callWait    = &plan.Op{Path: "waiting for the background I/O (the mode's wait)"}
)

// hdf5Calls name the HDF5 call the layouts of hdf5Layouts make for each operation kind;
// other layouts make calls of their own (MPI-IO, POSIX), named by their layout in the
// report.
var hdf5Calls = map[plan.OpKind]string{
	plan.CreateFile: "H5Fcreate", plan.OpenFile: "H5Fopen", plan.FlushFile: "H5Fflush", plan.CloseFile: "H5Fclose",
	plan.CreateGroup: "H5Gcreate2", plan.OpenGroup: "H5Gopen2", plan.CloseGroup: "H5Gclose",
	plan.CreateDataset: "H5Dcreate2", plan.OpenDataset: "H5Dopen2", plan.CloseDataset: "H5Dclose",
	plan.WriteAttribute: "H5Awrite", plan.Write: "H5Dwrite", plan.Read: "H5Dread",
	plan.ExtendDataset: "H5Dset_extent", plan.WaitBaton: "MPI_Recv", plan.PassBaton: "MPI_Ssend",
	plan.ReadAttribute: "H5Aread",
}

// hdf5Layouts are the layouts that carry each operation out as the HDF5 call of
// hdf5Calls (the native layout, and the subfiling VFD's, which is native HDF5 over
// another file driver).
var hdf5Layouts = map[string]bool{"native": true, "subfiling-vfd": true}

// stallHinter is a mode that knows a cause of stalls under it (the event-set mode under the
// Async VOL): StallHint is added to the report ("" for none).
type stallHinter interface{ StallHint() string }

// runner is a mode that runs operations on a thread of its own (the background modes):
// Running is the operation that thread is inside, nil when it is idle.
type runner interface{ Running() *plan.Op }

// watchdog watches one rank's session calls.
type watchdog struct {
	timeout time.Duration
	// at packs where the rank is: stage (bits 28-30), phase (24-27), step+1 (0-23) and a
	// sequence number (32-63) bumped at every enter, so that entering the same step twice
	// is progress too. Written by the session's goroutine only.
	at  atomic.Uint64
	seq uint64
	// call is the operation or MPI call last issued (the one in flight while inside it).
	call atomic.Pointer[plan.Op]
	// bg is the background mode's, when it has one.
	bg runner
	// rank, size, layout and mode are for the report.
	rank, size   int
	layout, mode string
	// hint is the mode's known cause of stalls (stallHinter), "" for none.
	hint       string
	out        io.Writer
	abort      func(code int) error
	stop, done chan struct{}
	// fired is closed once the report has been written (tests of the report without MPI).
	fired chan struct{}
}

// newWatchdog returns the session's watchdog; timeout 0 returns one whose marks are kept
// but that never fires (no goroutine).
func newWatchdog(s *Session, timeout time.Duration, abort func(int) error) *watchdog {
	w := &watchdog{timeout: timeout, rank: s.rank, size: s.size, layout: s.cfg.Layout, mode: s.cfg.Mode,
		out: os.Stderr, abort: abort, fired: make(chan struct{})}
	w.bg, _ = s.stack.(runner)
	if h, ok := s.stack.(stallHinter); ok {
		w.hint = h.StallHint()
	}
	return w.start()
}

// start starts the goroutine when there is a timeout.
func (w *watchdog) start() *watchdog {
	if w.timeout > 0 {
		w.stop, w.done = make(chan struct{}), make(chan struct{})
		go w.run()
	}
	return w
}

// Marks of NewSession's own work (setupWatchdog), before any operation exists.
var (
	callPatternSetup = &plan.Op{Path: "the pattern's set-up (an E3SM decomposition map or a description's inputs read)"}
	callCommDup      = &plan.Op{Path: "MPI_Comm_dup (the session's communicators)"}
	callStackSetup   = &plan.Op{Path: "the layout's and mode's creation (files probed, a connector or cache set up)"}
	callSetupAgree   = &plan.Op{Path: "MPI_Allreduce (the ranks agreeing that the session was created)"}
)

// setupWatchdog watches NewSession's own work, which can hang as a step can (a map read
// through a VOL connector stalled for 43 minutes on 2026-11-30 with nothing said), until
// the session's watchdog replaces it; it is in stage setup from the start, so that no
// call of the session is needed to arm it. The abort goes through the caller's
// communicator, the only one that exists yet.
func setupWatchdog(comm Comm, cfg Config) *watchdog {
	w := &watchdog{timeout: cfg.StallTimeout, rank: comm.Rank(), size: comm.Size(), layout: cfg.Layout, mode: cfg.Mode,
		out: os.Stderr, abort: comm.Abort, fired: make(chan struct{})}
	w.enter(stageSetup, 0, -1)
	return w.start()
}

// enter marks the start of a session call: stage in phase ph (0: none) at step (-1: none).
func (w *watchdog) enter(stage int, ph patterns.Phase, step int) {
	w.seq++
	w.at.Store(w.seq<<32 | uint64(stage)<<28 | uint64(ph&0xf)<<24 | uint64(step+1)&0xffffff)
}

// leave marks the end of a session call: the rank is in the host's code (compute).
func (w *watchdog) leave() { w.at.Store(w.at.Load() &^ (7 << 28)) }

// mark records the operation or MPI call about to be issued.
func (w *watchdog) mark(op *plan.Op) { w.call.Store(op) }

// groupMark is the mark of n transfers ops the layout makes in one call: a run (runs.go),
// made from one C loop, or a multi-dataset batch (multi.go), one H5Dwrite_multi or
// H5Dread_multi. The watchdog cannot look into that call, so the mark names the group
// (how: "a run", "a batch"), its size, and its first and last operation, so that a report
// says which transfers the stalled one is among (a report naming only the first sent the
// reader to a transfer that may long have completed); via is how the call makes them.
// Without a timeout nothing reads the mark: it is the first operation, and no string is
// formatted per group.
func (w *watchdog) groupMark(ops []*plan.Op, n int, how, via string) *plan.Op {
	if w.timeout <= 0 {
		return ops[0]
	}
	first, last := ops[0], ops[len(ops)-1]
	return &plan.Op{Path: fmt.Sprintf("one of %s of %d %ss %s, from %s to %s", how, n, first.Kind, via, w.callName(first), w.callName(last))}
}

// runMark is groupMark of a run of n transfers (runs.go).
func (w *watchdog) runMark(ops []*plan.Op, n int) *plan.Op {
	return w.groupMark(ops, n, "a run", "made from one C loop")
}

// period is how often the watchdog looks.
func (w *watchdog) period() time.Duration {
	return min(max(w.timeout/10, 10*time.Millisecond), time.Second)
}

// close stops the watchdog goroutine.
func (w *watchdog) close() {
	if w.stop != nil {
		close(w.stop)
		<-w.done
		w.stop = nil
	}
	// A closed session its host still holds keeps neither its stack (and the layout's
	// state) nor its last operation through the watchdog.
	w.bg = nil
	w.call.Store(nil)
}

func (w *watchdog) run() {
	defer close(w.done)
	tk := time.NewTicker(w.period())
	defer tk.Stop()
	var (
		at          uint64
		call, bgOp  *plan.Op
		since       = time.Now()
		initialized bool
	)
	for {
		select {
		case <-w.stop:
			return
		case now := <-tk.C:
			a, c := w.at.Load(), w.call.Load()
			var b *plan.Op
			if w.bg != nil {
				b = w.bg.Running()
			}
			if !initialized || a != at || c != call || b != bgOp || (a>>28)&7 == stageIdle {
				at, call, bgOp, since, initialized = a, c, b, now, true
				continue
			}
			if stalled := now.Sub(since); stalled >= w.timeout {
				w.fire(a, c, b, stalled)
				return
			}
		}
	}
}

// report is the line the watchdog writes: rank, how long, where, and the call.
func (w *watchdog) report(at uint64, call, bg *plan.Op, stalled time.Duration) string {
	stage, ph, step := int(at>>28&7), patterns.Phase(at>>24&0xf), int(at&0xffffff)-1
	var b strings.Builder
	fmt.Fprintf(&b, "%v: rank %d of %d made no progress for %v (stall_timeout %v): ", ErrStalled, w.rank, w.size,
		stalled.Round(time.Millisecond), w.timeout)
	if ph != 0 {
		fmt.Fprintf(&b, "phase %s, ", ph)
	}
	fmt.Fprintf(&b, "%s", stageNames[stage])
	if step >= 0 {
		fmt.Fprintf(&b, " %d", step)
	}
	fmt.Fprintf(&b, ", inside %s", w.callName(call))
	if bg != nil {
		fmt.Fprintf(&b, "; the background thread (mode %s) is inside %s", w.mode, w.callName(bg))
	}
	if w.hint != "" {
		fmt.Fprintf(&b, "; %s", w.hint)
	}
	fmt.Fprintf(&b, "; ending the job (MPI_Abort, code %d)", StallAbortCode)
	return b.String()
}

// callName names an operation as the report does: the HDF5 call where the layout makes
// it (hdf5Layouts), the operation and the layout's name elsewhere.
func (w *watchdog) callName(op *plan.Op) string {
	switch {
	case op == nil:
		return "no HDF5 or MPI call yet (h5proxy's own work)"
	case op.Kind == 0:
		return op.Path
	case op.Kind == plan.WaitBaton || op.Kind == plan.PassBaton:
		return fmt.Sprintf("%s (%s with rank %d)", hdf5Calls[op.Kind], op.Kind, op.Baton.Peer)
	case hdf5Layouts[w.layout] && api1Call(op) >= 0:
		return fmt.Sprintf("%s %s (%s, step %d)", api1Calls[api1Call(op)], op.Path, op.Kind, op.Step)
	case hdf5Layouts[w.layout] && hdf5Calls[op.Kind] != "":
		return fmt.Sprintf("%s %s (%s, step %d)", hdf5Calls[op.Kind], op.Path, op.Kind, op.Step)
	}
	return fmt.Sprintf("%s %s (layout %s, step %d)", op.Kind, op.Path, w.layout, op.Step)
}

// fire writes the report, waits for the other ranks' watchdogs to write theirs (a rank
// blocked in a collective call with this one stalls within a period of it), then ends the
// job.
func (w *watchdog) fire(at uint64, call, bg *plan.Op, stalled time.Duration) {
	fmt.Fprintln(w.out, w.report(at, call, bg, stalled))
	close(w.fired)
	if w.abort == nil {
		return
	}
	time.Sleep(w.grace())
	_ = w.abort(StallAbortCode)
	os.Exit(StallAbortCode) // MPI_Abort returned: end this rank at least
}

// grace is how long a rank that reported waits before MPI_Abort: ranks that stalled up to
// this much later than it (the others of a collective it never entered) report too.
func (w *watchdog) grace() time.Duration {
	return min(w.timeout, 30*time.Second) + 2*w.period()
}
