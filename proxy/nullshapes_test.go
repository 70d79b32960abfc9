package proxy_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestSessionNullShapesFreed: the null layout's dataset extents go with their session.
// Many sessions in one process, each writing and reading its own file, do not grow the
// heap by what their extents take (the extents are kept per session, not in a
// process-wide map); and a closed session its host still holds (a C handle not yet
// dropped, a Go caller's variable) keeps none of them: Close lets its layout go.
func TestSessionNullShapesFreed(t *testing.T) {
	var dropped, freed atomic.Int64
	proxy.RegisterWatchedLayout("null-dropped", "null", &dropped)
	proxy.RegisterWatchedLayout("null-held", "null", &freed)
	const (
		sessions = 20
		steps    = 400 // 8 datasets a step: 3,200 extents a session
	)
	dir := t.TempDir()
	run := func(layout string, i int) *proxy.Session {
		cfg := config(t, fmt.Sprintf("DIM_1=10;TIMESTEPS=%d;layout=null", steps), filepath.Join(dir, fmt.Sprintf("s%d.h5", i)))
		cfg.Layout = layout
		cfg.Phases = []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}
		s := session(t, cfg)
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}

	// Sessions dropped after their close: the heap comes back to where it was. The
	// extents alone take more than 60 bytes each (a path, a one-element shape, the
	// index a read builds): 20 sessions would keep some 4 MB.
	run("null-dropped", -1) // the process's one-time state (MPI, option tables, loggers)
	before := heap()
	for i := range sessions {
		run("null-dropped", i)
	}
	const extentBytes = 60
	kept := int64(heap()) - int64(before)
	if leak := int64(sessions * steps * 8 * extentBytes); kept > leak/4 {
		t.Errorf("%d sessions dropped after their close left %d bytes on the heap; keeping their extents would be %d", sessions, kept, leak)
	}

	// Closed sessions still held: every one's layout is reclaimed all the same.
	held := make([]*proxy.Session, 0, sessions)
	for i := range sessions {
		held = append(held, run("null-held", i))
	}
	for deadline := time.Now().Add(10 * time.Second); freed.Load() < sessions && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := freed.Load(); n != sessions {
		t.Errorf("%d of %d closed sessions still held let their null layout (and its extents) go, want all", n, sessions)
	}
	runtime.KeepAlive(held)
}
