// Package background holds the modes that run I/O on a background thread while the caller
// computes: async (modelled on the Async VOL) and cache (modelled on the Cache VOL with
// node-local storage). Both require MPI_THREAD_MULTIPLE.
package background

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// asyncMode is modelled on the Async VOL with its write-memcpy build: a write's buffer is
// copied into a bounded staging pool and the call returns; a background executor on its
// own OS thread issues the HDF5 calls in order while the caller computes. Wait and phase
// end drain it; a background failure is sticky and surfaces at the next wait or phase end
// naming the step, operation and object. Reads run in order (the caller waits for its
// data); read-ahead (Prefetch) lets the next step's reads run during the caller's compute.
// A write larger than the whole pool drains the queue and runs synchronously. With
// async.write_memcpy=NO (the Async VOL's default build) writes are not copied: the data is
// generated in lent staging memory instead (the Lend methods).
//
// The cache mode is the same machinery with another stager (node-local storage instead of
// memory) and a local read path.
type asyncMode struct {
	under  stack.Layout
	ex     *executor
	stager stager
	// pool stages read-ahead data; nil disables read-ahead.
	pool *stagingPool
	// local, when set, may serve a read without the layout (cache mode).
	local func(op *plan.Op, buf []byte) (bool, error)
	// ahead holds prefetched operations, by identity, until the caller Execs them; a plan
	// may repeat an operation (AMReX's restart opens a level group three times, reads a
	// dataset once per grid), so each identity holds a queue in plan order.
	ahead map[opKey][]prefetched
	// shapes caches dataset shapes per file: asking the layout would drain the queue.
	shapes map[string][]uint64
	// inFlight counts staged bytes submitted and not yet written.
	inFlight *atomic.Int64
	// hits counts reads served by local.
	hits atomic.Int64
	// lendWrites lends staging memory for write data instead of copying.
	lendWrites bool
	// memLimit is h5bench's IO_MEM_LIMIT (see WaitBeforeStep).
	memLimit uint64
	// impl says how the mode runs, for the report (Impl).
	impl string
}

// prefetched is an operation submitted ahead; release returns its staging memory after
// the caller has copied the data out.
type prefetched struct {
	t       *task
	release func()
}

type opKey struct {
	kind plan.OpKind
	path string
	step int
}

func keyOf(op *plan.Op) opKey { return opKey{op.Kind, op.Path, op.Step} }

// Options are the keys of both background modes (one table: the cache mode uses the
// async keys too).
var Options = &options.Table{Name: "background", Specs: []options.Spec{
	{Key: "async.staging_bytes", Kind: options.Size, Default: "512MiB", Min: options.Bound(1), Help: "async mode: memory for copies of write buffers in flight; when full the caller waits (backpressure, measured)"},
	{Key: "async.write_memcpy", Kind: options.Bool, Default: "YES", Help: "async mode: YES copies each write's data into staging and charges the copy to the caller (the Async VOL built with ENABLE_WRITE_MEMCPY); NO is the Async VOL's default build, which copies nothing and leaves double buffering to the application: each step's data is generated directly in a staging buffer that is not reused until its writes ran (waits for a free buffer are charged); the cache mode always copies (its copy is the node-local write)"},
	{Key: "async.event_sets", Kind: options.Enum, Default: "AUTO", Allowed: []string{"AUTO", "YES", "NO"}, Help: "mode=async: AUTO issues HDF5's event sets and _async calls where the Async VOL is loaded (HDF5_VOL_CONNECTOR names async), as h5bench does, else runs the async-model; YES always (HDF5 1.14; under the native connector each call is synchronous); NO always the model"},
	{Key: "async.settle", Kind: options.Duration, Default: connectorSettle.String(), Help: "mode=async with event sets under the Async VOL: how long the mode leaves the connector's execution stream, after waiting every set, before a call the rank waits inside (an ordinary call, a blocking H5Dset_extent_async), so that the task that ran last has ended; vol-async 1.8.1 loses the wake-up of a call queued before then (docs/modes.md); 0 waits not at all; unused under other connectors"},
	{Key: "async.mem_limit", Aliases: []string{"IO_MEM_LIMIT"}, Kind: options.Size, Default: "0", Help: "background modes: at each step start, if staged bytes in flight >= this, wait for earlier steps' I/O (h5bench IO_MEM_LIMIT; 0: always)"},
	{Key: "cache.path", Aliases: []string{"HDF5_CACHE_STORAGE_PATH"}, Kind: options.String, Help: "cache mode: node-local directory for the per-rank cache files (default: the system temporary directory; e.g. /dev/shm or an SSD)"},
	{Key: "cache.connector", Kind: options.Enum, Default: "AUTO", Allowed: []string{"AUTO", "YES", "NO"}, Help: "mode=cache: AUTO runs through the Cache VOL where HDF5_VOL_CONNECTOR loads it (cache_ext, HDF5 1.14), else the cache-model; YES requires the connector (refused without it); NO always the model"},
	{Key: "cache.capacity", Aliases: []string{"HDF5_CACHE_STORAGE_SIZE"}, Kind: options.Size, Default: "1GiB", Min: options.Bound(4096), Help: "cache mode: bytes of node-local storage per rank; full of unmigrated data, writers wait"},
}}

func init() {
	stack.RegisterMode(stack.Strategy{Name: "async-model", Caps: stack.Background, Options: Options,
		Summary: "modelled on the Async VOL: writes staged (copied, or generated in lent staging memory) and issued by h5proxy's background thread while the caller computes; event-set error semantics",
		NewMode: func(under stack.Layout, env stack.Env) (stack.Mode, error) {
			if err := modelAllowed("async-model"); err != nil {
				return nil, err
			}
			return newModel(under, env, "h5proxy's background thread (mode=async-model)"), nil
		}})
	stack.RegisterMode(stack.Strategy{Name: "async", Caps: stack.Background, Options: Options,
		Summary: "as h5bench under the Async VOL: HDF5's event sets and _async calls where the Async VOL is loaded (or async.event_sets=YES, HDF5 1.14), else the async-model, and the report says which ran",
		NewMode: func(under stack.Layout, env stack.Env) (stack.Mode, error) {
			v := env.Setting()
			use, conn, why, err := eventSetChoice(v.String("async.event_sets"), under)
			if err != nil {
				return nil, err
			}
			if !use {
				if err := modelAllowed("async"); err != nil {
					return nil, err
				}
				return newModel(under, env, "h5proxy's background thread (the async-model: "+why+")"), nil
			}
			return eventSetMode(under, conn, v), nil
		}})
}

// eventSetMode returns the event-set mode under the connector conn with the session's
// settings.
func eventSetMode(under stack.Layout, conn string, v *options.Values) *esMode {
	lend := 0
	if !v.Bool("async.write_memcpy") {
		lend = int(v.Int("async.staging_bytes"))
	}
	m := newESMode(under, conn, lend, v.Uint("async.mem_limit"))
	m.settlePause = v.Duration("async.settle")
	return m
}

// newModel returns the async model with the session's settings; impl says how it runs.
func newModel(under stack.Layout, env stack.Env, impl string) *asyncMode {
	v := env.Setting()
	m := newAsyncMode(under, int(v.Int("async.staging_bytes")))
	m.lendWrites = !v.Bool("async.write_memcpy")
	m.memLimit = v.Uint("async.mem_limit")
	m.impl = impl
	return m
}

// Impl says how the mode runs (the report's mode_impl).
func (m *asyncMode) Impl() string { return m.impl }

func newAsyncMode(under stack.Layout, staging int) *asyncMode {
	pool := newStagingPool(staging)
	return newBackground(under, pool, pool)
}

func newBackground(under stack.Layout, st stager, pool *stagingPool) *asyncMode {
	return &asyncMode{under: under, ex: newExecutor(under), stager: st, pool: pool,
		ahead: map[opKey][]prefetched{}, shapes: map[string][]uint64{}, inFlight: &atomic.Int64{}}
}

// stager holds the copies of write buffers until the background has written them.
type stager interface {
	// stage returns room for op's n bytes and the function to call once the write ran;
	// errTooBig when n can never fit.
	stage(op *plan.Op, n int) ([]byte, func(), error)
	// takeStats returns and resets the high-water mark and the time callers waited.
	takeStats() (high int, blocked time.Duration)
	// release frees what the stager holds.
	release()
}

// Exec submits op; writes return once their data is staged.
func (m *asyncMode) Exec(op *plan.Op, buf []byte) error {
	if err := m.ex.sticky(); err != nil {
		// Closes still run after a failure, as the executor runs the queued ones: the
		// handles are released whether the failure was seen before or after the close came.
		if isClose(op.Kind) {
			m.ex.submit(op, nil, nil)
		}
		return err
	}
	if q, ok := m.ahead[keyOf(op)]; ok {
		p := q[0]
		if len(q) == 1 {
			delete(m.ahead, keyOf(op))
		} else {
			m.ahead[keyOf(op)] = q[1:]
		}
		<-p.t.finished
		if op.Kind == plan.Read && p.t.err == nil {
			copy(buf, p.t.buf)
		}
		if p.release != nil {
			p.release()
		}
		return p.t.err
	}
	switch op.Kind {
	case plan.CreateFile, plan.OpenFile, plan.CloseFile, plan.SelectFile: // another current file
		clear(m.shapes)
	}
	switch op.Kind {
	case plan.Write:
		stage, release, err := m.stager.stage(op, len(buf))
		if err == errTooBig {
			if err := m.ex.wait(); err != nil {
				return err
			}
			return m.under.Exec(op, buf)
		}
		if err != nil {
			return err
		}
		copy(stage, buf)
		n := int64(len(buf))
		m.inFlight.Add(n)
		m.ex.submit(op, stage, func() { release(); m.inFlight.Add(-n) })
		return nil
	case plan.Read:
		if m.local != nil {
			if ok, err := m.local(op, buf); ok || err != nil {
				return err
			}
		}
		t := m.ex.submit(op, buf, nil)
		<-t.finished
		return t.err
	}
	m.ex.submit(op, nil, nil)
	return nil
}

// Prefetch submits a plan's operations now; reads land in staging memory and are copied
// out when the caller Execs the same operation.
func (m *asyncMode) Prefetch(pl *plan.Plan) error {
	if m.pool == nil {
		return nil
	}
	for i := range pl.Ops {
		op := &pl.Ops[i]
		var buf []byte
		var release func()
		if op.Kind == plan.Write {
			return fmt.Errorf("async prefetch: %s %s: only reads and metadata can run ahead", op.Kind, op.Path)
		}
		if op.Kind == plan.Read {
			var err error
			n := int(plan.Product(op.Transfer.MemShape)) * op.Transfer.MemType.Size
			if buf, release, err = m.pool.get(n); err != nil {
				return err // too big to stage: the step reads synchronously instead
			}
		}
		m.ahead[keyOf(op)] = append(m.ahead[keyOf(op)], prefetched{t: m.ex.submit(op, buf, nil), release: release})
	}
	return nil
}

// Shape answers from the cache, or drains the queue and asks the layout.
func (m *asyncMode) Shape(path string) ([]uint64, error) {
	if s, ok := m.shapes[path]; ok {
		return s, nil
	}
	if err := m.ex.wait(); err != nil {
		return nil, err
	}
	s, err := m.under.Shape(path)
	if err == nil {
		m.shapes[path] = s
	}
	return s, err
}

// Wait drains the queue and reports (then clears) the first background failure.
func (m *asyncMode) Wait() error {
	err := m.ex.wait()
	if err != nil {
		m.ex.reset()
	}
	return err
}

// WaitBeforeStep is h5bench's IO_MEM_LIMIT: from step 1 on, wait for the earlier steps'
// I/O when the staged bytes in flight reach the limit (at step 0 there is none: the file
// creation is left to overlap with the step).
func (m *asyncMode) WaitBeforeStep(step int) bool {
	return step > 0 && uint64(m.InFlight()) >= m.memLimit
}

// Running is the operation the background thread is inside, nil when it is idle (the
// session's stall watchdog names it).
func (m *asyncMode) Running() *plan.Op { return m.ex.running.Load() }

// InFlight is the number of staged bytes not yet written.
func (m *asyncMode) InFlight() int { return int(m.inFlight.Load()) }

// TakeStats returns and resets the phase's background statistics.
func (m *asyncMode) TakeStats() stack.Stats {
	high, blocked := m.stager.takeStats()
	m.ex.mu.Lock()
	busy := m.ex.busy
	m.ex.busy = map[int]float64{}
	m.ex.mu.Unlock()
	return stack.Stats{Busy: busy, StagingHigh: high, Blocked: blocked.Seconds(), LocalReads: int(m.hits.Swap(0))}
}

// Abort cancels what is queued, waits for the background to stop, then closes whatever
// the layout still has open.
func (m *asyncMode) Abort() error {
	m.ex.mu.Lock()
	if m.ex.err == nil {
		m.ex.err = errCancelled
	}
	m.ex.mu.Unlock()
	m.ex.wait()
	for k, q := range m.ahead {
		for _, p := range q {
			<-p.t.finished
			if p.release != nil {
				p.release()
			}
		}
		delete(m.ahead, k)
	}
	m.ex.reset()
	clear(m.shapes)
	return m.under.Abort()
}

// Close drains and stops the background goroutine and releases staging memory.
func (m *asyncMode) Close() error {
	err := m.ex.wait()
	m.ex.stop()
	m.stager.release()
	if m.pool != nil && m.pool != m.stager {
		m.pool.release()
	}
	return err
}

// Lends reports whether writes are generated in lent staging memory (no write copy).
func (m *asyncMode) Lends() bool { return m.lendWrites }

// Lend returns staging memory for n bytes of write data (nil when n can never fit).
func (m *asyncMode) Lend(n int) (*stack.Lent, error) {
	if n > m.pool.limit {
		return nil, nil
	}
	return m.pool.lend(n)
}

// ExecLent submits a write whose data is already in l.
func (m *asyncMode) ExecLent(op *plan.Op, l *stack.Lent) error {
	if err := m.ex.sticky(); err != nil {
		return err
	}
	n := int64(len(l.Buf))
	l.Hold()
	m.inFlight.Add(n)
	m.ex.submit(op, l.Buf, func() { l.Drop(); m.inFlight.Add(-n) })
	return nil
}
