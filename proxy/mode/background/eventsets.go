package background

import (
	"fmt"
	"strings"
	"time"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// esMode is mode=async through HDF5's own event sets, as h5bench issues its calls under the
// Async VOL (h5bench_write.c, commons/h5bench_util.c): each step has three event sets (its
// creates and opens, its data, its closes); groups and datasets are created, opened and
// closed and data written and read with the _async calls into them (H5Gcreate_async,
// H5Dcreate_async, H5Dwrite_async, H5Dread_async, H5Dclose_async, H5Gclose_async, ...);
// the wait before a write step (h5bench's mem_monitor_check_run) and the end of a phase
// (mem_monitor_final_run) wait for the earlier steps' sets in step order, create, data,
// close, with H5ESwait, then ask H5ESget_err_status and H5ESget_err_info: a failed
// background operation is reported naming the HDF5 call, the plan operation and its
// object, and is sticky like the model's. Files are created, flushed and closed with the
// ordinary calls (h5bench passes H5ES_NONE), after every set is waited.
//
// Every HDF5 call is the caller's, on its thread: the connector's own threads run them, so
// no call comes from a thread the Async VOL does not know. Under the native connector each
// _async call runs synchronously and nothing enters the sets (HDF5 1.14 without a
// connector: the path CI runs).
//
// A write hands HDF5 the caller's buffer (async.write_memcpy=YES: the Async VOL built with
// ENABLE_WRITE_MEMCPY, as scripts/vol-connectors.sh builds it, copies it in the call) or
// lent staging memory kept until its step's sets are waited (NO: the VOL's default build).
// Reads wait for their data set at once: the caller verifies what it read.
type esMode struct {
	under stack.Layout
	// conn names the connector in the mode's description.
	conn string
	// steps are the event sets of the steps not yet waited, by step; order their steps in
	// the order they were first used.
	steps map[int]*stepSets
	order []int
	// err is the first failure not yet reported by Wait (sticky).
	err error
	// pool lends write memory (async.write_memcpy=NO); nil when writes pass the caller's.
	pool     *stagingPool
	inFlight int64
	memLimit uint64
	// last is the step of the latest data operation (Progress polls its data set).
	last int
	// foreign is set under a connector other than the native one, whose threads know only
	// the thread that started HDF5: every operation checks it is issued from there.
	foreign bool
	// settlePause is async.settle: the pause before a call the rank waits inside, under
	// the Async VOL only (settle); sleep takes it (time.Sleep; a test records it).
	settlePause time.Duration
	sleep       func(time.Duration)
}

// The three event sets of a step, as h5bench keeps them per time step.
const (
	setCreate = iota // es_meta_create: group and dataset creates and opens
	setData          // es_data: writes, reads, extents
	setClose         // es_meta_close: dataset and group closes
	nSets
)

var setNames = [nSets]string{"create", "data", "close"}

// stepSets are one step's event sets, the plan operations put into each in order (an event
// set's failure names its operation by insertion count), and what to release once waited.
type stepSets struct {
	es      [nSets]h5.EventSet
	ops     [nSets][]opAt
	release []func()
	bytes   int64
}

// opAt is a plan operation in an event set and the set's insertion count after its calls
// (h5.EventSet.Inserted): an operation can make several (an attribute's create, write and
// close), or none (under the native connector).
type opAt struct {
	op  *plan.Op
	end uint64
}

// opOf returns the operation whose calls made insertion idx of ops, nil if none.
func opOf(ops []opAt, idx uint64) *plan.Op {
	for _, o := range ops {
		if idx < o.end {
			return o.op
		}
	}
	return nil
}

// newESMode returns the event-set mode over under.
func newESMode(under stack.Layout, conn string, lendBytes int, memLimit uint64) *esMode {
	m := &esMode{under: under, conn: conn, steps: map[int]*stepSets{}, memLimit: memLimit, foreign: conn != "native",
		settlePause: connectorSettle, sleep: time.Sleep}
	if lendBytes > 0 {
		m.pool = newStagingPool(lendBytes)
	}
	return m
}

// Impl says how the mode runs (the report's mode_impl).
func (m *esMode) Impl() string {
	return "event sets (H5EScreate, the _async calls, H5ESwait, H5ESget_err_info) under the " + m.conn + " VOL connector"
}

// setOf returns the event set op goes to, -1 for none: the ordinary call. Attributes are
// written into the create set (H5Acreate_async, H5Awrite_async, H5Aclose_async), as
// vol-async's examples write them on objects whose create is still queued: an ordinary
// H5Awrite there is the connector's implicit wait behind every queued create, the wait
// that stalled E3SM F's attributes (docs/modes.md). The calls HDF5 has no _async form for
// (H5Gcreate1, H5Dcreate1, H5Dopen1; H5Oopen and H5Oclose, whose _async form vol-async
// 1.8.1 cannot serve: it fills in the opened object's type after the call returned), a
// reference attribute or transfer (its references are made by ordinary calls on the
// targets), a variable-length transfer (staged in C memory the call frees), an attribute
// read (verified at once), links and dimension scales are ordinary calls, made once every
// set is waited (Exec).
func setOf(op *plan.Op) int {
	switch op.Kind {
	case plan.CreateGroup, plan.OpenGroup, plan.CreateDataset, plan.OpenDataset:
		if op.API1 || op.AsObject && (op.Kind == plan.OpenGroup || op.Kind == plan.OpenDataset) ||
			op.Dataset != nil && op.Dataset.API1 && (op.Kind == plan.CreateDataset || op.Kind == plan.OpenDataset) {
			return -1
		}
		return setCreate
	case plan.WriteAttribute:
		if op.Attribute != nil && op.Attribute.Type.Class == plan.Reference {
			return -1
		}
		return setCreate
	case plan.Write, plan.Read:
		if op.Transfer != nil && !h5.AsyncTransfer(op.Transfer) {
			return -1
		}
		return setData
	case plan.ExtendDataset:
		return setData
	case plan.CloseGroup, plan.CloseDataset:
		if op.AsObject {
			return -1
		}
		return setClose
	}
	return -1
}

// waitsFirst reports whether op, made as an ordinary call (setOf -1), must find every
// event set waited: every call on the file's objects. A file's create or open touches no
// object the sets hold (and goes into a set of its own under a non-native connector); a
// flush or close waits for the sets anyway (the drain); a file selection makes no call.
func waitsFirst(k plan.OpKind) bool {
	switch k {
	case plan.CreateFile, plan.OpenFile, plan.FlushFile, plan.CloseFile, plan.SelectFile:
		return false
	}
	return true
}

// sets returns step's event sets, creating them at its first operation.
func (m *esMode) sets(step int) (*stepSets, error) {
	if s := m.steps[step]; s != nil {
		return s, nil
	}
	s := &stepSets{}
	for i := range s.es {
		es, err := h5.NewEventSet()
		if err != nil {
			for _, e := range s.es[:i] {
				e.Close()
			}
			return nil, err
		}
		s.es[i] = es
	}
	m.steps[step] = s
	m.order = append(m.order, step)
	return s, nil
}

// Exec issues op: into its step's event set when it has an _async form, else (files,
// attributes, links) as the ordinary call after waiting for every set when it needs
// their operations done (a file's flush and close, as h5bench waits before them).
func (m *esMode) Exec(op *plan.Op, buf []byte) error {
	var bytes int64
	if op.Kind == plan.Write {
		bytes = int64(len(buf))
	}
	return m.exec(op, func() error { return m.under.Exec(op, buf) }, nil, bytes)
}

// exec runs call for op in op's event set; release runs once that set is waited; bytes
// are the write's, in flight until then.
func (m *esMode) exec(op *plan.Op, call func() error, release func(), bytes int64) error {
	if m.err != nil {
		if isClose(op.Kind) { // handles are released after a failure too, as in the model
			m.waitAll() // (the ordinary close of an object still pending in a set is refused)
			m.under.Exec(op, nil)
		}
		if release != nil {
			release()
		}
		return m.err
	}
	if m.foreign {
		if err := h5.CheckConnectorThread(); err != nil {
			if release != nil {
				release()
			}
			return fmt.Errorf("%s %s: %w", op.Kind, op.Path, err)
		}
	}
	k := setOf(op)
	if k < 0 {
		if release != nil { // an ordinary call is done with its memory when it returns
			defer release()
		}
		if op.Kind == plan.CloseFile || op.Kind == plan.FlushFile {
			if err := m.waitAll(); err != nil {
				m.err = nil
				if isClose(op.Kind) {
					m.under.Exec(op, nil)
				}
				return err
			}
		}
		// An ordinary call on an object whose create or open is still in a set would be,
		// under the Async VOL, an implicit wait behind everything queued (the wait that
		// loses its wake-up); h5 refuses it (h5.ErrPending). The sets are waited here
		// instead, through the waits that push what is queued first.
		if waitsFirst(op.Kind) && (len(m.order) > 0 || m.asyncVOL()) {
			if err := m.settle(); err != nil {
				if isClose(op.Kind) {
					m.under.Exec(op, nil)
				}
				return err
			}
		}
		if m.foreign && isFileCall(op.Kind) {
			return fileInSet(op, call)
		}
		return call()
	}
	if op.Kind == plan.ExtendDataset && m.asyncVOL() {
		// vol-async 1.8.1 runs H5Dset_extent_async as a blocking call (its queue type
		// BLOCKING): the caller waits inside it as in an ordinary call (settle).
		if err := m.settle(); err != nil {
			if release != nil {
				release()
			}
			return err
		}
	}
	s, err := m.sets(op.Step)
	if err != nil {
		if release != nil {
			release()
		}
		return err
	}
	if release != nil {
		s.release = append(s.release, release)
	}
	s.bytes += bytes
	m.inFlight += bytes
	if k == setData {
		m.last = op.Step
	}
	err = h5.InEventSet(s.es[k], call)
	s.ops[k] = append(s.ops[k], opAt{op, s.es[k].Inserted()})
	if err != nil {
		return err // failed in the call itself (under the native connector: every failure)
	}
	if op.Kind == plan.Read { // the caller checks the data next
		return m.waitSet(op.Step, s, setData)
	}
	return nil
}

// ExecMulti issues a step's transfers as one H5Dwrite_multi_async or H5Dread_multi_async
// in the step's data set.
func (m *esMode) ExecMulti(ops []*plan.Op, bufs [][]byte) error {
	return m.exec(ops[0], func() error { return stack.ExecMulti(m.under, ops, bufs) }, nil, 0)
}

// waitSet waits for one event set of step and records its failures (sticky); it returns
// the first.
func (m *esMode) waitSet(step int, s *stepSets, k int) error {
	err := s.es[k].WaitDone()
	return m.failures(step, s, k, err)
}

// failures asks a waited set of step for failed operations (after waitErr, its wait's
// error) and records the first (sticky); it returns it.
func (m *esMode) failures(step int, s *stepSets, k int, waitErr error) error {
	var fails []h5.EventSetFailure
	err := waitErr
	if err == nil {
		fails, err = s.es[k].Failures()
	}
	if err == nil && len(fails) > 0 {
		f := fails[0]
		kind, path := f.API, ""
		if op := opOf(s.ops[k], f.Index); op != nil {
			kind, path = f.API+" ("+op.Kind.String()+")", op.Path
		}
		err = &stack.BackgroundError{Step: step, Op: kind, Path: path, Err: fmt.Errorf("%w%s", f.Err, more(len(fails)))}
	}
	if err != nil && m.err == nil {
		m.err = err
	}
	return err
}

// more says how many further operations of the set failed.
func more(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" (and %d more failed operations in the same event set)", n-1)
}

// waitAll waits for every step's event sets, in step order, create, data, close (h5bench's
// mem_monitor_check_run and final run), closes them, releases what their writes held,
// and returns the first failure.
func (m *esMode) waitAll() error {
	for _, step := range m.order {
		s := m.steps[step]
		// Every set of the step is waited before any is asked for failures: under the
		// Async VOL a query waits for the library's lock while the connector runs the
		// next set's operation.
		var waited [nSets]error
		for k := range s.es {
			waited[k] = s.es[k].WaitDone()
		}
		for k := range s.es {
			m.failures(step, s, k, waited[k])
			if err := s.es[k].Close(); err != nil && m.err == nil {
				m.err = err
			}
		}
		for _, r := range s.release {
			r()
		}
		m.inFlight -= s.bytes
		delete(m.steps, step)
	}
	m.order = m.order[:0]
	return m.err
}

// Wait waits for every event set and reports (then clears) the first failure.
func (m *esMode) Wait() error {
	err := m.waitAll()
	m.err = nil
	return err
}

// DrainsBefore reports whether op is a file's flush or close with event sets not yet
// waited (stack.Drainer): the session waits for them first, as the drain.
func (m *esMode) DrainsBefore(op *plan.Op) bool {
	return (op.Kind == plan.CloseFile || op.Kind == plan.FlushFile) && len(m.order) > 0
}

// settle prepares a call the caller will wait inside (an ordinary call, or one the
// connector runs blocking): every set is waited, through the waits that push what is
// queued first; under the Async VOL the connector is then left settlePause to retire
// the task that ran last. vol-async 1.8.1 loses the wake-up of a blocking call queued
// right after the previous task woke the caller and before that task's thread has
// terminated (it counts it as running and pushes nothing, and nothing pushes later):
// a call made at once after a wait, or after the previous blocking call returned, is
// exactly that case, and E3SM's record variables make 435 blocking extents in a row in
// F's h0 file. With nothing running, the call pushes itself.
func (m *esMode) settle() error {
	if len(m.order) > 0 {
		if err := m.waitAll(); err != nil {
			return err
		}
	}
	if m.asyncVOL() && m.settlePause > 0 {
		m.sleep(m.settlePause)
	}
	return nil
}

// connectorSettle is the default of async.settle: how long the mode leaves the Async VOL's
// execution stream before a call the caller waits inside, so that the task that ran last has terminated: a stalled
// rank at load 6-9 had its execution stream idle and the blocking H5Dset_extent_async
// queued, never pushed, while the other rank's ran it (docs/modes.md, "The lost wake-up
// in the event-set mode's own calls").
const connectorSettle = 20 * time.Millisecond

// asyncVOL reports whether the mode runs under the Async VOL (its connector's name says
// async), whose lost wake-up the mode works around.
func (m *esMode) asyncVOL() bool { return strings.Contains(strings.ToLower(m.conn), "async") }

// StallHint is what the watchdog's report adds under the Async VOL: the connector's own
// hang, found with native stacks of both ranks (docs/modes.md, "A lost wake-up in the
// Async VOL"); "" under any other connector.
func (m *esMode) StallHint() string {
	if !m.asyncVOL() {
		return ""
	}
	return "under the Async VOL every operation runs on the connector's execution stream and the rank waits for it (H5ESwait, or the implicit wait of a call outside an event set such as H5Fcreate); vol-async 1.8.1 can leave a queued operation unpushed when such a wait begins while the previous task is still finishing (it looks twice, 1 ms apart), and a collective one then holds every other rank (docs/modes.md, \"A lost wake-up in the Async VOL\")"
}

// Progress lets the connector start what is queued while the caller computes: a wait of
// the latest step's data set with no timeout, as h5bench's async_sleep calls
// H5ESwait(es_data, 0) before its compute.
func (m *esMode) Progress() {
	if s := m.steps[m.last]; s != nil {
		s.es[setData].Poll()
	}
}

// Prefetch does nothing: the event-set mode reads when the step comes.
func (m *esMode) Prefetch(*plan.Plan) error { return nil }

// InFlight is the bytes of writes whose step's sets are not yet waited.
func (m *esMode) InFlight() int { return int(m.inFlight) }

// WaitBeforeStep is h5bench's IO_MEM_LIMIT, as in the model.
func (m *esMode) WaitBeforeStep(step int) bool {
	return step > 0 && uint64(m.InFlight()) >= m.memLimit
}

// TakeStats returns the lending pool's statistics; the mode has no thread of its own to
// time (the connector's threads run the operations).
func (m *esMode) TakeStats() stack.Stats {
	st := stack.Stats{}
	if m.pool != nil {
		high, blocked := m.pool.takeStats()
		st.StagingHigh, st.Blocked = high, blocked.Seconds()
	}
	return st
}

// Shape waits for the sets (a dataset's extent may be changing in them) and asks the
// layout.
func (m *esMode) Shape(path string) ([]uint64, error) {
	if err := m.Wait(); err != nil {
		return nil, err
	}
	return m.under.Shape(path)
}

// Abort waits for what was issued, then closes whatever the layout still has open.
func (m *esMode) Abort() error {
	m.waitAll()
	m.err = nil
	return m.under.Abort()
}

// Close waits for every set and releases the lending pool.
func (m *esMode) Close() error {
	err := m.Wait()
	if m.pool != nil {
		m.pool.release()
	}
	return err
}

// Lends reports whether writes are generated in lent memory (async.write_memcpy=NO).
func (m *esMode) Lends() bool { return m.pool != nil }

// Lend returns staging memory for n bytes of write data (nil when n can never fit). The
// memory comes back only when its step's sets are waited, on this thread: with the pool
// full the earlier steps are waited first.
func (m *esMode) Lend(n int) (*stack.Lent, error) {
	if n > m.pool.limit {
		return nil, nil
	}
	if !m.pool.fits(n) {
		if err := m.waitAll(); err != nil {
			return nil, err
		}
	}
	return m.pool.lend(n)
}

// ExecLent issues a write whose data is in l, held until its step's sets are waited.
func (m *esMode) ExecLent(op *plan.Op, l *stack.Lent) error {
	l.Hold()
	return m.exec(op, func() error { return m.under.Exec(op, l.Buf) }, l.Drop, int64(len(l.Buf)))
}

// eventSetChoice decides whether mode=async runs through event sets (async.event_sets):
// yes, or why not (the model then runs, and the report says so).
func eventSetChoice(setting string, under stack.Layout) (use bool, conn string, why string, err error) {
	c, cerr := h5.DefaultConnector()
	conn = c.Name
	if cerr != nil {
		conn = "unknown"
	}
	layoutOK := false
	if l, ok := under.(stack.EventSetter); ok && l.EventSets() {
		layoutOK = true
	}
	switch strings.ToUpper(setting) {
	case "NO":
		return false, conn, "async.event_sets=NO", nil
	case "YES":
		switch {
		case !h5.HaveEventSets():
			return false, conn, "", stack.Unsupported{Err: eventSetsError(setting, "HDF5 "+h5.Version()+" has no event sets (HDF5 1.13 and later; build HDF5=1.14)")}
		case !layoutOK:
			return false, conn, "", stack.Unsupported{Err: eventSetsError(setting, "the layout does not issue HDF5's object calls (the native layout does)")}
		}
		return true, conn, "", nil
	}
	switch { // AUTO: as h5bench, event sets when the Async VOL is loaded
	case !h5.HaveEventSets():
		return false, conn, "HDF5 " + h5.Version() + " has no event sets", nil
	case !layoutOK:
		return false, conn, "the layout does not issue HDF5's object calls", nil
	case !strings.Contains(strings.ToLower(conn), "async"):
		return false, conn, "no Async VOL loaded (HDF5_VOL_CONNECTOR; connector " + conn + ")", nil
	}
	return true, conn, "", nil
}

// eventSetsError is the error of an async.event_sets value the build or layout cannot
// honour.
func eventSetsError(value, reason string) *options.Error {
	return &options.Error{Table: "background", Key: "async.event_sets", Value: value, Reason: reason}
}

// modelAllowed refuses a model mode (its HDF5 calls come from h5proxy's executor thread)
// under the Async VOL: the connector expects every call from a thread Argobots knows and
// prints "[ASYNC VOL ERROR] get_n_running_task_in_queue with ABT_thread_self" for each
// call from another. Other connectors (a pass-through, the native one) take the model.
func modelAllowed(mode string) error {
	c, err := h5.DefaultConnector()
	if err != nil || !strings.Contains(strings.ToLower(c.Name), "async") {
		return nil
	}
	return stack.Unsupported{Err: &options.Error{Table: "session", Key: "mode", Value: mode,
		Reason: "its background thread issues HDF5 calls the Async VOL (HDF5_VOL_CONNECTOR=" + c.Name + ") cannot take from a thread Argobots does not know; under the Async VOL use mode=async (with async.event_sets=AUTO or YES: HDF5's event sets), or run the model without the connector"}}
}

// isFileCall reports whether op makes a file call (create, open, flush, close).
func isFileCall(k plan.OpKind) bool {
	return k == plan.CreateFile || k == plan.OpenFile || k == plan.FlushFile || k == plan.CloseFile
}

// fileInSet makes op's file call as its _async form in an event set of its own and waits
// for it. h5bench passes H5ES_NONE, which leaves the wait to the connector's implicit
// path: vol-async 1.8.1 can leave the queued call unpushed there (the lost wake-up in
// docs/modes.md; an implicit H5Fopen stalled a 1-rank run for good at load 24), where the
// set's wait pushes what is queued first (h5.EventSet.WaitDone). A failure names the call.
func fileInSet(op *plan.Op, call func() error) error {
	es, err := h5.NewEventSet()
	if err != nil {
		return err
	}
	defer es.Close()
	if err := h5.InEventSet(es, call); err != nil {
		return err
	}
	fails, err := es.Wait()
	if err != nil {
		return fmt.Errorf("%s %s: %w", op.Kind, op.Path, err)
	}
	if len(fails) > 0 {
		return fmt.Errorf("background %s (%s) %s: %w", fails[0].API, op.Kind, op.Path, fails[0].Err)
	}
	return nil
}
