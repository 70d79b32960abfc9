package proxy

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
	"github.com/h5proxy/h5proxy/proxy/tracefile"
)

// A session's timeline (session key trace_file) is Chrome's trace-event format, which
// Perfetto (ui.perfetto.dev) and chrome://tracing open: a JSON object whose "traceEvents"
// are complete events ("ph":"X", "ts" and "dur" in microseconds), one process per rank
// ("pid" = rank, named "rank N") and one track per thread ("tid" 0: the rank's main
// thread, the caller of the session; 1: the background executor of the async and cache
// modes), named by metadata events ("ph":"M").
//
// Every rank records its events in memory; Close, which is collective, has each rank
// write them to TRACE.rankN.part next to the trace file, and rank 0, after a barrier,
// merges the parts into the trace file and removes them. The trace file's directory
// must therefore be one every rank and rank 0 see (a shared file system, as the data file
// is). Times are each rank's wall clock, shifted so the earliest event is at 0.
//
// With trace_file unset the session holds no tracer and every hook is a nil check.

// Event categories ("cat"): the tracks' kinds of work.
const (
	traceCompute = "compute" // emulated compute between steps
	tracePrep    = "prep"    // filling write buffers
	traceIO      = "io"      // one layout operation: one HDF5 call on the HDF5 layouts
	traceSubmit  = "submit"  // a background mode taking an operation (staging copy, queueing)
	traceWait    = "wait"    // waiting for background I/O
	traceStep    = "step"    // one step of a phase, from its first operation to its last
)

// Thread tracks.
const (
	tidMain       = 0
	tidBackground = 1
)

// traceEvent is one trace event in Chrome's format.
type traceEvent = tracefile.Event

// tracer records one rank's events; the background executor records from its own
// thread, hence the lock.
type tracer struct {
	rank int
	// main is the OS thread of the session's caller (Go callers lock it; C callers own
	// it); background tells whether another thread (the executor) issues I/O at all: in
	// sync mode every event is the caller's, wherever the Go scheduler ran it.
	main       int
	background bool
	mu         sync.Mutex
	ev         []traceEvent
	// bytes are the transfer sizes the caller computed for operations it issues, for the
	// layout's events on the executor, which must not use the session's caches.
	bytes map[*plan.Op]uint64
}

func newTracer(rank int, background bool) *tracer {
	return &tracer{rank: rank, main: unix.Gettid(), background: background, bytes: map[*plan.Op]uint64{}}
}

// span records an event from start to now on the calling thread's track. Nil-safe: an
// untraced session pays the nil check.
func (t *tracer) span(cat, name string, start time.Time, args map[string]any) {
	if t == nil {
		return
	}
	t.spanTo(cat, name, start, time.Now(), args)
}

// spanTo records an event from start to end on the calling thread's track.
func (t *tracer) spanTo(cat, name string, start, end time.Time, args map[string]any) {
	tid := tidMain
	if t.background && unix.Gettid() != t.main {
		tid = tidBackground
	}
	e := traceEvent{Name: name, Cat: cat, Ph: "X", Ts: float64(start.UnixNano()) / 1e3,
		Dur: float64(end.Sub(start).Nanoseconds()) / 1e3, Pid: t.rank, Tid: tid, Args: args}
	t.mu.Lock()
	t.ev = append(t.ev, e)
	t.mu.Unlock()
}

// op records one plan operation from start to now: its path, step and bytes.
func (t *tracer) op(cat, name string, op *plan.Op, bytes uint64, start time.Time) {
	if t == nil {
		return
	}
	t.opTo(cat, name, op, bytes, start, time.Now())
}

// opTo records one plan operation from start to end.
func (t *tracer) opTo(cat, name string, op *plan.Op, bytes uint64, start, end time.Time) {
	args := map[string]any{"path": op.Path, "step": op.Step}
	if op.Transfer != nil {
		args["bytes"] = bytes
	}
	if op.Baton != nil && op.Baton.Stat != "" {
		// The size on disk of the file handed on (Session.recordHandOffSize), which a
		// growth computed from it starts from.
		args["handed_on"] = op.Baton.Stat
		args["handed_on_size"] = bytes
	}
	t.spanTo(cat, name, start, end, args)
}

// took records an event of duration d that ends now (emulated compute).
func (t *tracer) took(cat, name string, d time.Duration) {
	if t == nil {
		return
	}
	t.span(cat, name, time.Now().Add(-d), nil)
}

// step records a step of a phase from its start (Unix seconds, as the samples keep it).
func (t *tracer) step(phase string, step int, start float64) {
	if t == nil {
		return
	}
	t.span(traceStep, phase+" step "+strconv.Itoa(step), time.Unix(0, int64(start*1e9)), map[string]any{"step": step})
}

// drained records the wait at a phase's end, after which the executor has taken every
// operation: sizes noted for operations served otherwise (reads run ahead) are dropped.
func (t *tracer) drained(start time.Time) {
	if t == nil {
		return
	}
	t.span(traceWait, "wait (drain at close)", start, nil)
	t.mu.Lock()
	clear(t.bytes)
	t.mu.Unlock()
}

// note keeps the caller's transfer size of op for the layout's event.
func (t *tracer) note(op *plan.Op, bytes uint64) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.bytes[op] = bytes
	t.mu.Unlock()
}

// noted returns (and forgets) the size noted for op, or fallback.
func (t *tracer) noted(op *plan.Op, fallback uint64) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if b, ok := t.bytes[op]; ok {
		delete(t.bytes, op)
		return b
	}
	return fallback
}

// tracedLayout records every operation of the layout under the mode, on the thread that
// issues it: the caller's in sync mode, the executor's in background modes.
type tracedLayout struct {
	stack.Layout
	tr *tracer
}

// EventSets passes the traced layout's answer on (the event-set mode asks it).
func (l tracedLayout) EventSets() bool {
	e, ok := l.Layout.(stack.EventSetter)
	return ok && e.EventSets()
}

func (l tracedLayout) Exec(op *plan.Op, buf []byte) error {
	t0 := time.Now()
	err := l.Layout.Exec(op, buf)
	l.tr.op(traceIO, op.Kind.String(), op, l.bytes(op, buf), t0)
	return err
}

// bytes is the size of op's transfer for its event (0 for no transfer): the caller's
// (noted), else the selection's or the buffer's.
func (l tracedLayout) bytes(op *plan.Op, buf []byte) uint64 {
	if op.Transfer == nil {
		return 0
	}
	fallback := uint64(len(buf))
	if len(op.Transfer.Selection.Blocks) == 1 {
		fallback = op.Transfer.Bytes()
	}
	return l.tr.noted(op, fallback)
}

// Runs passes the layout's answer on (stack.RunExec): a traced session makes runs too.
func (l tracedLayout) Runs(op *plan.Op) bool {
	r, ok := l.Layout.(stack.RunExec)
	return ok && r.Runs(op)
}

// ExecRun makes a run through the layout and records each of its operations as its own
// event, placed by the times the layout measured (runEnds), as if made one by one.
func (l tracedLayout) ExecRun(ops []*plan.Op, bufs [][]byte, took []time.Duration) (int, error) {
	r, ok := l.Layout.(stack.RunExec)
	if !ok {
		return 0, fmt.Errorf("%T: no runs of transfers", l.Layout)
	}
	t0 := time.Now()
	done, err := r.ExecRun(ops, bufs, took)
	t1 := time.Now()
	tried := done
	if err != nil && done < len(ops) {
		tried++
	}
	from := time.Duration(0)
	for k, end := range runEnds(0, t1.Sub(t0), took[:tried]) {
		l.tr.opTo(traceIO, ops[k].Kind.String(), ops[k], l.bytes(ops[k], bufs[k]), t0.Add(from), t0.Add(end))
		from = end
	}
	return done, err
}

// ExecMulti records a multi-dataset transfer as one operation named after its first.
func (l tracedLayout) ExecMulti(ops []*plan.Op, bufs [][]byte) error {
	t0 := time.Now()
	err := stack.ExecMulti(l.Layout, ops, bufs)
	var n uint64
	for i, op := range ops {
		n += l.tr.noted(op, uint64(len(bufs[i])))
	}
	l.tr.op(traceIO, ops[0].Kind.String()+"_multi", ops[0], n, t0)
	return err
}

func (l tracedLayout) Shape(path string) ([]uint64, error) {
	t0 := time.Now()
	s, err := l.Layout.Shape(path)
	l.tr.span(traceIO, "shape", t0, map[string]any{"path": path})
	return s, err
}

// tracePart is a rank's part file next to the trace file.
func tracePart(file string, rank int) string {
	return file + ".rank" + strconv.Itoa(rank) + ".part"
}

// writeTrace writes the rank's part, then rank 0 merges every part into the trace file.
// Collective.
func (s *Session) writeTrace() error {
	if s.tr == nil {
		return nil
	}
	s.tr.mu.Lock()
	data, err := json.Marshal(s.tr.ev)
	s.tr.mu.Unlock()
	if err == nil {
		err = os.WriteFile(tracePart(s.cfg.TraceFile, s.Rank()), data, 0o644)
	}
	if aerr := s.comm.Agree(err, "h5proxy: trace_file"); aerr != nil {
		_ = os.Remove(tracePart(s.cfg.TraceFile, s.Rank()))
		return aerr
	}
	if s.Rank() != 0 {
		return nil
	}
	return mergeTrace(s.cfg.TraceFile, s.Size(), s.background)
}

// mergeTrace joins the ranks' parts into file: metadata naming each rank and track,
// then every event shifted so the earliest starts at 0.
func mergeTrace(file string, ranks int, background bool) error {
	var all []traceEvent
	var errs []error
	for r := 0; r < ranks; r++ {
		part := tracePart(file, r)
		data, err := os.ReadFile(part)
		if err == nil {
			var ev []traceEvent
			if err = json.Unmarshal(data, &ev); err == nil {
				all = append(all, ev...)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("rank %d's part: %w", r, err))
		}
		_ = os.Remove(part)
	}
	if len(errs) > 0 {
		return fmt.Errorf("h5proxy: trace_file %s: %w", file, errors.Join(errs...))
	}
	origin := 0.0
	if len(all) > 0 {
		origin = slices.MinFunc(all, func(a, b traceEvent) int { return cmp.Compare(a.Ts, b.Ts) }).Ts
	}
	hasBackground := map[int]bool{}
	for i := range all {
		all[i].Ts -= origin
		if all[i].Tid == tidBackground {
			hasBackground[all[i].Pid] = true
		}
	}
	slices.SortStableFunc(all, func(a, b traceEvent) int { return cmp.Compare(a.Ts, b.Ts) })
	meta := make([]traceEvent, 0, 4*ranks)
	for r := 0; r < ranks; r++ {
		meta = append(meta,
			traceEvent{Name: "process_name", Ph: "M", Pid: r, Args: map[string]any{"name": "rank " + strconv.Itoa(r)}},
			traceEvent{Name: "process_sort_index", Ph: "M", Pid: r, Args: map[string]any{"sort_index": r}},
			traceEvent{Name: "thread_name", Ph: "M", Pid: r, Tid: tidMain, Args: map[string]any{"name": "main"}})
		if background || hasBackground[r] {
			meta = append(meta, traceEvent{Name: "thread_name", Ph: "M", Pid: r, Tid: tidBackground, Args: map[string]any{"name": "background executor"}})
		}
	}
	if err := tracefile.Write(file, tracefile.File{TraceEvents: append(meta, all...), DisplayTimeUnit: "ms"}); err != nil {
		return fmt.Errorf("h5proxy: trace_file: %w", err)
	}
	return nil
}
