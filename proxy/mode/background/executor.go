package background

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// executor runs plan operations on one background goroutine locked to its own OS thread,
// in submission order, like an HDF5 event set drained by the Async VOL's background
// thread. Every rank submits the same operations in the same order, so collective HDF5
// calls match across ranks. The first failure is sticky: later operations are cancelled
// (closes still run, so handles are released) and the error surfaces at the next wait.
type executor struct {
	under stack.Layout

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []*task
	pending int // submitted, not finished
	err     error
	stopped bool
	// busy accumulates background execution time per step, for the metrics.
	busy map[int]float64
	// running is the operation the executor is inside (nil between operations), for the
	// session's stall watchdog (Running).
	running atomic.Pointer[plan.Op]
}

// task is one submitted operation.
type task struct {
	op       *plan.Op
	buf      []byte
	release  func() // returns staging memory; runs after execution, on the executor
	finished chan struct{}
	err      error
}

// errCancelled marks operations skipped after an earlier background failure.
var errCancelled = errors.New("cancelled after an earlier background failure")

func newExecutor(under stack.Layout) *executor {
	e := &executor{under: under, busy: map[int]float64{}}
	raiseProcs()
	e.cond = sync.NewCond(&e.mu)
	go e.loop()
	return e
}

// submit queues an operation and returns its task (wait on finished for its result).
func (e *executor) submit(op *plan.Op, buf []byte, release func()) *task {
	t := &task{op: op, buf: buf, release: release, finished: make(chan struct{})}
	e.mu.Lock()
	e.queue = append(e.queue, t)
	e.pending++
	e.mu.Unlock()
	e.cond.Broadcast()
	return t
}

func (e *executor) loop() {
	// HDF5 and MPI calls of the background stay on one OS thread.
	runtime.LockOSThread()
	for {
		e.mu.Lock()
		for len(e.queue) == 0 && !e.stopped {
			e.cond.Wait()
		}
		if len(e.queue) == 0 && e.stopped {
			e.mu.Unlock()
			return
		}
		t := e.queue[0]
		e.queue = e.queue[1:]
		failed := e.err != nil
		e.mu.Unlock()

		if failed && !isClose(t.op.Kind) {
			t.err = errCancelled
		} else {
			start := time.Now()
			e.running.Store(t.op)
			t.err = e.under.Exec(t.op, t.buf)
			e.running.Store(nil)
			d := time.Since(start).Seconds()
			e.mu.Lock()
			e.busy[t.op.Step] += d
			e.mu.Unlock()
		}
		if t.release != nil {
			t.release()
		}
		e.mu.Lock()
		if t.err != nil && t.err != errCancelled && e.err == nil {
			e.err = &stack.BackgroundError{Step: t.op.Step, Op: t.op.Kind.String(), Path: t.op.Path, Err: t.err}
		}
		e.pending--
		e.mu.Unlock()
		close(t.finished)
		e.cond.Broadcast()
	}
}

func isClose(k plan.OpKind) bool {
	return k == plan.CloseFile || k == plan.CloseGroup || k == plan.CloseDataset
}

// wait blocks until every submitted operation has finished and returns the sticky error.
func (e *executor) wait() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for e.pending > 0 {
		e.cond.Wait()
	}
	return e.err
}

// sticky returns the first background failure without waiting.
func (e *executor) sticky() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// reset clears the sticky error (after it has been reported) and the busy times.
func (e *executor) reset() map[int]float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.err = nil
	b := e.busy
	e.busy = map[int]float64{}
	return b
}

// stop ends the background goroutine after the queue drains.
func (e *executor) stop() {
	e.mu.Lock()
	if !e.stopped {
		defer lowerProcs()
	}
	e.stopped = true
	e.mu.Unlock()
	e.cond.Broadcast()
}

// procs counts the running executors that raised GOMAXPROCS, and old is the value
// before the first of them did (0: it was not raised).
var procs struct {
	sync.Mutex
	running, old int
}

// raiseProcs lets the executor and the caller run Go code at the same time. The Go
// runtime sets GOMAXPROCS from the CPU affinity mask, and mpirun binds each rank to one
// core by default (2 ranks or fewer), so GOMAXPROCS is 1: then the executor, returning
// from every HDF5 call, waits for the only P until the caller's Go code (data
// preparation, the staging copy) is preempted, up to the runtime's 10 ms time slice
// per operation, and the caller waits for the P the executor holds in a long HDF5
// call until the runtime's monitor retakes it. The Async VOL's background thread is a
// plain OS thread that the kernel time-shares with the application's on the same core;
// with 2 Ps the two Go threads are that again.
func raiseProcs() {
	procs.Lock()
	defer procs.Unlock()
	procs.running++
	if n := runtime.GOMAXPROCS(0); n < minProcs && procs.running == 1 {
		procs.old = runtime.GOMAXPROCS(minProcs)
	}
}

// lowerProcs restores GOMAXPROCS when the last executor stops.
func lowerProcs() {
	procs.Lock()
	defer procs.Unlock()
	procs.running--
	if procs.running == 0 && procs.old > 0 {
		runtime.GOMAXPROCS(procs.old)
		procs.old = 0
	}
}

// minProcs is the GOMAXPROCS a background mode needs: the caller's thread and the
// executor's.
const minProcs = 2
