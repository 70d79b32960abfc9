package background

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// fakeLayout records the operations it executes; gate, when set, blocks every write until
// a value arrives; failAt makes one operation fail.
type fakeLayout struct {
	mu      sync.Mutex
	ops     []string
	data    map[string][]byte
	gate    chan struct{}
	failAt  string
	aborted bool
}

func (f *fakeLayout) Exec(op *plan.Op, buf []byte) error {
	if op.Kind == plan.Write && f.gate != nil {
		<-f.gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	name := op.Kind.String() + " " + op.Path
	f.ops = append(f.ops, name)
	if name == f.failAt {
		return errors.New("No space left on device")
	}
	switch op.Kind {
	case plan.Write:
		f.data[op.Path] = append([]byte(nil), buf...)
	case plan.Read:
		copy(buf, f.data[op.Path])
	}
	return nil
}

func (f *fakeLayout) Shape(string) ([]uint64, error) { return []uint64{4}, nil }
func (f *fakeLayout) Abort() error                   { f.aborted = true; return nil }

func (f *fakeLayout) executed() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ops...)
}

func writeOp(path string, step, n int) *plan.Op {
	return &plan.Op{Kind: plan.Write, Path: path, Step: step, Transfer: &plan.Transfer{
		MemType: plan.U8, MemShape: []uint64{uint64(n)}, FileShape: []uint64{uint64(n)}, Selection: plan.All([]uint64{uint64(n)})}}
}

// TestAsyncCopiesAndOrders: a write returns before it is executed, the caller may reuse
// its buffer at once, and operations run in submission order.
func TestAsyncCopiesAndOrders(t *testing.T) {
	f := &fakeLayout{data: map[string][]byte{}, gate: make(chan struct{})}
	m := newAsyncMode(f, 1<<20)
	defer m.Close()
	buf := []byte("abcd")
	if err := m.Exec(&plan.Op{Kind: plan.CreateGroup, Path: "/g"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := m.Exec(writeOp("/g/a", 0, 4), buf); err != nil {
		t.Fatal(err)
	}
	copy(buf, "zzzz") // the caller reuses its buffer before the write ran
	if got := m.InFlight(); got != 4 {
		t.Errorf("in flight %d bytes, want 4", got)
	}
	f.gate <- struct{}{}
	if err := m.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := string(f.data["/g/a"]); got != "abcd" {
		t.Errorf("written %q, want the bytes at submission time", got)
	}
	if got := strings.Join(f.executed(), ","); got != "create-group /g,write /g/a" {
		t.Errorf("order %s", got)
	}
	if m.InFlight() != 0 {
		t.Errorf("in flight %d after wait", m.InFlight())
	}
}

// TestAsyncBackpressure: with room for one write, the second waits until the first ran,
// the wait is measured, and the high-water mark stays within the limit.
func TestAsyncBackpressure(t *testing.T) {
	f := &fakeLayout{data: map[string][]byte{}, gate: make(chan struct{})}
	m := newAsyncMode(f, 4)
	defer m.Close()
	if err := m.Exec(writeOp("/a", 0, 4), []byte("1111")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- m.Exec(writeOp("/b", 0, 4), []byte("2222")) }()
	select {
	case <-done:
		t.Fatal("second write returned while the staging pool was full")
	case <-time.After(50 * time.Millisecond):
	}
	f.gate <- struct{}{} // first write runs, frees its staging
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	f.gate <- struct{}{}
	if err := m.Wait(); err != nil {
		t.Fatal(err)
	}
	st := m.TakeStats()
	if st.StagingHigh != 4 || st.Blocked < 0.04 {
		t.Errorf("high-water %d (want 4), blocked %.3fs (want >= 0.04)", st.StagingHigh, st.Blocked)
	}
	if string(f.data["/b"]) != "2222" {
		t.Errorf("second write lost: %q", f.data["/b"])
	}
	// A write larger than the whole pool runs synchronously instead of deadlocking.
	f.gate = nil
	if err := m.Exec(writeOp("/big", 1, 8), []byte("bigwrite")); err != nil {
		t.Fatal(err)
	}
	if string(f.data["/big"]) != "bigwrite" {
		t.Errorf("oversized write not executed synchronously")
	}
}

// TestAsyncStickyFailure: a background failure surfaces at the next Exec and Wait with the
// step, operation, object and message; later operations are cancelled but closes run.
func TestAsyncStickyFailure(t *testing.T) {
	f := &fakeLayout{data: map[string][]byte{}, failAt: "write /Timestep_2/y"}
	m := newAsyncMode(f, 1<<20)
	defer m.Close()
	for _, op := range []*plan.Op{writeOp("/Timestep_2/x", 2, 4), writeOp("/Timestep_2/y", 2, 4), writeOp("/Timestep_2/z", 2, 4),
		{Kind: plan.CloseGroup, Path: "/Timestep_2", Step: 2}} {
		_ = m.Exec(op, []byte("data"))
	}
	err := m.Wait()
	var be *stack.BackgroundError
	if !errors.As(err, &be) || be.Step != 2 || be.Path != "/Timestep_2/y" || !strings.Contains(err.Error(), "No space left on device") {
		t.Fatalf("Wait: %v", err)
	}
	if got := strings.Join(f.executed(), ","); got != "write /Timestep_2/x,write /Timestep_2/y,close-group /Timestep_2" {
		t.Errorf("executed %s: z must be cancelled, the close must run", got)
	}
	if err := m.Wait(); err != nil {
		t.Errorf("error not cleared after being reported: %v", err)
	}
}

// TestAsyncCloseAfterKnownFailure: a close that comes after the failure is already known
// still runs (and reports the failure), as a queued one does.
func TestAsyncCloseAfterKnownFailure(t *testing.T) {
	f := &fakeLayout{data: map[string][]byte{}, failAt: "write /g/y"}
	m := newAsyncMode(f, 1<<20)
	defer m.Close()
	_ = m.Exec(writeOp("/g/y", 1, 4), []byte("data"))
	deadline := time.Now().Add(5 * time.Second)
	for m.ex.sticky() == nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if err := m.Exec(&plan.Op{Kind: plan.CloseGroup, Path: "/g", Step: 1}, nil); err == nil {
		t.Fatal("a close after a known failure must report it")
	}
	if err := m.Exec(writeOp("/g/z", 1, 4), []byte("data")); err == nil {
		t.Fatal("a write after a known failure must report it")
	}
	var be *stack.BackgroundError
	if err := m.Wait(); !errors.As(err, &be) || be.Path != "/g/y" {
		t.Fatalf("Wait: %v", err)
	}
	if got := strings.Join(f.executed(), ","); got != "write /g/y,close-group /g" {
		t.Errorf("executed %s: the close must run, the later write must not", got)
	}
}

// TestAsyncPrefetch: a prefetched read runs before the caller asks and is served from
// staging when the caller Execs the same operation.
func TestAsyncPrefetch(t *testing.T) {
	f := &fakeLayout{data: map[string][]byte{"/d": []byte("wxyz")}}
	m := newAsyncMode(f, 1<<20)
	defer m.Close()
	read := plan.Op{Kind: plan.Read, Path: "/d", Step: 1, Transfer: writeOp("/d", 1, 4).Transfer}
	pl := plan.Plan{Ops: []plan.Op{{Kind: plan.OpenDataset, Path: "/d", Step: 1}, read}}
	if err := m.Prefetch(&pl); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for len(f.executed()) < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if len(f.executed()) != 2 {
		t.Fatalf("prefetch did not run ahead: %v", f.executed())
	}
	buf := make([]byte, 4)
	if err := m.Exec(&pl.Ops[0], nil); err != nil {
		t.Fatal(err)
	}
	if err := m.Exec(&pl.Ops[1], buf); err != nil {
		t.Fatal(err)
	}
	if string(buf) != "wxyz" || len(f.executed()) != 2 {
		t.Errorf("read %q after %v: want the prefetched data and no second execution", buf, f.executed())
	}
	if err := m.Prefetch(&plan.Plan{Ops: []plan.Op{*writeOp("/w", 0, 1)}}); err == nil {
		t.Error("prefetching a write must be refused")
	}
}

// TestAsyncLendsWrites: with async.write_memcpy=NO a step's data is generated once per
// buffer directly in staging memory shared by the writes naming it; the memory returns to
// the pool only after those writes ran, and a full pool makes the next step wait.
func TestAsyncLendsWrites(t *testing.T) {
	f := &fakeLayout{data: map[string][]byte{}, gate: make(chan struct{})}
	m := newAsyncMode(f, 8)
	m.lendWrites = true
	defer m.Close()
	write := func(path, buffer string, step int) plan.Op {
		op := *writeOp(path, step, 4)
		op.Transfer.Buffer = buffer
		return op
	}
	fills := 0
	fill := func(op *plan.Op, buf []byte) error {
		fills++
		copy(buf, strings.Repeat(op.Transfer.Buffer, 4))
		return nil
	}
	run := func(pl *plan.Plan) error {
		ln := stack.NewLending(m, pl)
		defer ln.Done()
		for i := range pl.Ops {
			op := &pl.Ops[i]
			l, _, err := ln.Buffer(op, fill)
			if err != nil || l == nil {
				return fmt.Errorf("lend %s: %v (lent %v)", op.Path, err, l != nil)
			}
			if err := ln.Exec(op, l); err != nil {
				return err
			}
		}
		return nil
	}
	// Step 0: /a and /b share buffer p (one fill), /c has its own: the pool is full.
	step0 := &plan.Plan{Ops: []plan.Op{write("/a", "p", 0), write("/b", "p", 0), write("/c", "q", 0)}}
	if err := run(step0); err != nil {
		t.Fatal(err)
	}
	if fills != 2 || m.pool.inUse != 8 || m.InFlight() != 12 {
		t.Errorf("after step 0: %d fills (want 2), %d bytes lent (want 8), %d in flight (want 12)", fills, m.pool.inUse, m.InFlight())
	}
	done := make(chan error)
	go func() { done <- run(&plan.Plan{Ops: []plan.Op{write("/d", "r", 1)}}) }()
	select {
	case err := <-done:
		t.Fatalf("step 1 got a buffer from a full pool (%v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	f.gate <- struct{}{} // /a ran, but /b still reads buffer p
	select {
	case err := <-done:
		t.Fatalf("buffer p returned while /b still needed it (%v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	f.gate <- struct{}{} // /b ran: p is free
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for range 2 {
		f.gate <- struct{}{}
	}
	if err := m.Wait(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/a": "pppp", "/b": "pppp", "/c": "qqqq", "/d": "rrrr"} {
		if got := string(f.data[path]); got != want {
			t.Errorf("%s holds %q, want %q", path, got, want)
		}
	}
	if m.pool.inUse != 0 || m.InFlight() != 0 {
		t.Errorf("after wait: %d bytes lent, %d in flight", m.pool.inUse, m.InFlight())
	}
	if _, blocked := m.pool.takeStats(); blocked < 90*time.Millisecond {
		t.Errorf("waiting for a free buffer not measured: %v", blocked)
	}
	// A failed write still returns its buffer, and so do the writes cancelled after it.
	f.gate, f.failAt = nil, "write /e"
	// The failure may surface already at a later write's submission (sticky error).
	if err := run(&plan.Plan{Ops: []plan.Op{write("/e", "s", 2), write("/f", "s", 2), write("/g", "t", 2)}}); err != nil && !strings.Contains(err.Error(), "/e") {
		t.Fatal(err)
	}
	if err := m.Wait(); err == nil || !strings.Contains(err.Error(), "/e") {
		t.Errorf("wait after the failed write: %v", err)
	}
	if m.pool.inUse != 0 || m.InFlight() != 0 {
		t.Errorf("after the failure: %d bytes lent, %d in flight", m.pool.inUse, m.InFlight())
	}
	// Copying mode lends nothing: the caller takes the ordinary path.
	m.lendWrites = false
	if ln := stack.NewLending(m, step0); ln != nil {
		t.Error("copying mode set up lending")
	}
}

// TestExecutorRaisesProcs: under a one-core binding (GOMAXPROCS 1) a background mode
// raises GOMAXPROCS to 2 while any executor runs, so the caller's Go code and the
// executor's run side by side, and restores it when the last one stops.
func TestExecutorRaisesProcs(t *testing.T) {
	orig := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(orig)
	a := newAsyncMode(&fakeLayout{data: map[string][]byte{}}, 1<<20)
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Fatalf("GOMAXPROCS %d with an executor running, want 2", got)
	}
	b := newAsyncMode(&fakeLayout{data: map[string][]byte{}}, 1<<20)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil { // a second Close must not lower it again
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Fatalf("GOMAXPROCS %d with one executor still running, want 2", got)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS %d after the last executor stopped, want the original 1", got)
	}
	// More than two cores: left alone.
	runtime.GOMAXPROCS(4)
	c := newAsyncMode(&fakeLayout{data: map[string][]byte{}}, 1<<20)
	got := runtime.GOMAXPROCS(0)
	c.Close()
	if got != 4 || runtime.GOMAXPROCS(0) != 4 {
		t.Fatalf("GOMAXPROCS %d while running, %d after, want 4 and 4", got, runtime.GOMAXPROCS(0))
	}
}
