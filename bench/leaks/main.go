// Command leaks runs many short sessions in one process for every layout × mode and checks
// that nothing accumulates: after each close no HDF5 identifier is open
// (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0), and the process's file descriptors,
// goroutines and resident memory at the end are within the tolerance (5%) of their values
// after the warm-up sessions. Each session is the VPIC kernel at 1 rank: create, two
// written steps, a verified read (an unverified one on the null layout, which stores
// nothing), close. The figures of docs/reliability.md come from
//
//	go run ./bench/leaks -n 1000       # or: make leaks (with the C ABI's tests/leaks)
//
// Memory is sampled after runtime.GC and debug.FreeOSMemory, so what the Go heap has not
// yet returned does not count as growth, and glibc malloc runs with one arena (oneArena
// says why); the C heap in use (mallinfo2) must stay flat too. The C ABI's counterpart is tests/leaks/leaks.c.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// Sessions run on the thread that initialized MPI.
func init() { runtime.LockOSThread() }

func main() {
	n := flag.Int("n", 1000, "sessions per layout × mode")
	warmup := flag.Int("warmup", 0, "sessions before the reference sample (0: n/10, at least 1)")
	tol := flag.Float64("tolerance", 0.05, "allowed relative growth of fds, goroutines and RSS after warm-up")
	layouts := flag.String("layouts", strings.Join(availableLayouts(), ","), "layouts to run (default: every layout this build can run)")
	modes := flag.String("modes", strings.Join(proxy.Modes(), ","), "modes to run")
	dir := benchmain.Dir()
	flag.Parse()
	if !launch.Underneath() {
		os.Exit(launch.SelfInDir("leaks", 1, *dir))
	}
	oneArena()
	_, fin, err := benchmain.Ranks()
	benchmain.Check("leaks", 1, err)
	code := 0
	fmt.Println(header)
	for _, l := range strings.Split(*layouts, ",") {
		for _, m := range strings.Split(*modes, ",") {
			r, err := runCombo(*dir, l, m, *n, *warmup)
			if err == nil {
				err = r.flat(*tol, 0)
			}
			fmt.Println(r.row(err))
			if err != nil {
				fmt.Fprintf(os.Stderr, "leaks: %s × %s: %v\n", l, m, err)
				code = 1
			}
		}
	}
	if err := fin(); err != nil {
		fmt.Fprintln(os.Stderr, "leaks: MPI_Finalize:", err)
		code = 1
	}
	os.Exit(code)
}

// availableLayouts lists the layouts this build can run (subfiling-vfd needs HDF5 1.14).
func availableLayouts() []string {
	return slices.DeleteFunc(proxy.Layouts(), func(l string) bool { return proxy.LayoutAvailable(l) != nil })
}

// sample is what must stay flat.
type sample struct {
	fds, goroutines int
	rss             int64  // bytes
	malloc          int64  // C heap in use, bytes
	heap            uint64 // live Go heap bytes (not a criterion: says whether RSS growth is Go's)
}

// measure samples the process after a full collection.
func measure() (sample, error) {
	runtime.GC()
	debug.FreeOSMemory()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return sample{}, err
	}
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return sample{}, err
	}
	f := strings.Fields(string(statm))
	if len(f) < 2 {
		return sample{}, fmt.Errorf("/proc/self/statm: %q", statm)
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return sample{}, fmt.Errorf("/proc/self/statm: %w", err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return sample{fds: len(fds) - 1, goroutines: runtime.NumGoroutine(), rss: pages * int64(os.Getpagesize()),
		malloc: mallocInUse(), heap: ms.HeapAlloc}, nil // -1: ReadDir's own descriptor
}

// result is one layout × mode run.
type result struct {
	layout, mode string
	sessions     int
	warm, end    sample
}

const header = "| layout | mode | sessions | HDF5 ids open after each close | fds warm → end | goroutines warm → end | RSS MiB warm → end (growth) | C heap MiB warm → end | Go heap MiB warm → end |\n|---|---|---|---|---|---|---|---|---|"

func (r result) row(err error) string {
	verdict := "0"
	if err != nil {
		verdict = "FAIL"
	}
	mib := func(b int64) float64 { return float64(b) / (1 << 20) }
	return fmt.Sprintf("| %s | %s | %d | %s | %d → %d | %d → %d | %.1f → %.1f (%+.1f%%) | %.2f → %.2f | %.2f → %.2f |", r.layout, r.mode, r.sessions, verdict,
		r.warm.fds, r.end.fds, r.warm.goroutines, r.end.goroutines, mib(r.warm.rss), mib(r.end.rss), 100*growth(r.warm.rss, r.end.rss),
		mib(r.warm.malloc), mib(r.end.malloc), mib(int64(r.warm.heap)), mib(int64(r.end.heap)))
}

func growth(from, to int64) float64 {
	if from == 0 {
		return 0
	}
	return float64(to-from) / float64(from)
}

// flat checks the end sample against the warm one: relative growth at most tol, and at
// least one whole descriptor or goroutine tolerated (1 of 20 would be 5%). Resident memory
// may also grow by rssSlack bytes whatever tol says: a short loop's RSS moves by whole
// allocator regions (the suite's 20 sessions; the C heap stays held to tol).
func (r result) flat(tol float64, rssSlack int64) error {
	for _, c := range []struct {
		what     string
		from, to int64
	}{{"file descriptors", int64(r.warm.fds), int64(r.end.fds)}, {"goroutines", int64(r.warm.goroutines), int64(r.end.goroutines)}} {
		if c.to > c.from && growth(c.from, c.to) > tol && c.to-c.from > 1 {
			return fmt.Errorf("%s grew from %d to %d over %d sessions", c.what, c.from, c.to, r.sessions)
		}
	}
	for _, c := range []struct {
		what     string
		from, to int64
	}{{"resident memory", r.warm.rss, r.end.rss}, {"C heap in use", r.warm.malloc, r.end.malloc}} {
		if g := growth(c.from, c.to); g > tol && !(c.what == "resident memory" && c.to-c.from <= rssSlack) {
			return fmt.Errorf("%s grew %.1f%% (%d to %d bytes) over %d sessions", c.what, 100*g, c.from, c.to, r.sessions)
		}
	}
	return nil
}

// options renders the session of layout × mode (tiny sizes: the loop counts sessions,
// not bytes).
func options(dir, layout, mode string) string {
	verify := "yes"
	if layout == "null" {
		verify = "no"
	}
	return fmt.Sprintf("file=%s;layout=%s;mode=%s;verify=%s;TIMESTEPS=2;DIM_1=1024;async.staging_bytes=1MiB;cache.path=%s;cache.capacity=4MiB",
		filepath.Join(dir, "leak-"+layout+"-"+mode+".h5"), layout, mode, verify, dir)
}

// runCombo runs n sessions of layout × mode and samples after warmup of them and at the
// end. It fails at the first session that leaves an HDF5 identifier open.
func runCombo(dir, layout, mode string, n, warmup int) (result, error) {
	r := result{layout: layout, mode: mode}
	if warmup <= 0 {
		warmup = max(1, n/10)
	}
	if warmup >= n {
		return r, fmt.Errorf("warm-up of %d sessions leaves none of %d to measure", warmup, n)
	}
	kvs, err := proxy.ParseKV(options(dir, layout, mode))
	if err != nil {
		return r, err
	}
	cfg, err := proxy.ParseOptions("vpic", kvs)
	if err != nil {
		return r, err
	}
	cfg.Phases = []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}
	for i := 0; i < n; i++ {
		if err := session(proxy.World(), cfg); err != nil {
			return r, fmt.Errorf("session %d: %w", i+1, err)
		}
		r.sessions = i + 1
		switch open, err := proxy.OpenHDF5Objects(); {
		case err != nil:
			return r, err
		case open != 0:
			return r, fmt.Errorf("session %d left %d HDF5 identifiers open after close", i+1, open)
		}
		if i+1 == warmup {
			if r.warm, err = measure(); err != nil {
				return r, err
			}
		}
	}
	r.end, err = measure()
	return r, err
}

// session is one create, run (two written steps, the read), close, on comm.
func session(comm proxy.Comm, cfg proxy.Config) error {
	s, err := proxy.NewSession(comm, cfg)
	if err != nil {
		return err
	}
	err = s.Run()
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}
