// Command overlap measures how much of the VPIC write I/O the background modes hide
// behind emulated compute. In one MPI run it first measures the sync I/O time per step
// (no compute), then for compute per step = 0, 0.5, 1.2 and 2 times that (spin compute,
// which really occupies a core), runs sync, async (with and without the write copy, see
// docs/modes.md) and cache write phases interleaved (A B C D A B C D ...) and prints
// medians: observed time, un-hidden I/O (observed time minus compute, data preparation
// and the final drain) as a share of the sync I/O time, and the hidden fraction. A second
// run checks the memory bound: both async variants with a small staging limit and no
// waits between steps, reporting the rise of peak RSS over the sync baseline.
//
// Ranks are launched without core binding (a rank's background thread needs the second
// core): go run ./bench/overlap -np 1 -reps 5   # or: make bench
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/internal/warm"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

func main() {
	np := flag.Int("np", 1, "ranks")
	reps := flag.Int("reps", 5, "runs per mode and compute ratio (medians are reported)")
	dim1 := flag.String("dim1", "1048576", "particles per rank (DIM_1): 32 bytes each per step")
	steps := flag.Int("steps", 6, "timesteps per run")
	staging := flag.String("staging", "64MiB", "staging limit of the memory-bound run")
	rss := flag.Bool("rss", false, "run only the memory-bound check (used by the launcher)")
	dir := flag.String("dir", "", "directory for the files (default: a temporary directory)")
	flag.StringVar(&computeKind, "compute", "spin", "compute kind: spin, sleep or stream")
	flag.BoolVar(&warmUp, "warm", true, warm.FlagUsage)
	flag.Parse()
	runBytes = int(mustSize(*dim1)) * 32 * *steps
	if !launch.Underneath() {
		// The memory-bound check runs in a fresh process: peak RSS is per process. Ranks
		// are not bound to cores: a rank's background thread needs the second core.
		os.Setenv("OMPI_MCA_hwloc_base_binding_policy", "none")
		os.Exit(launch.SelfInDir("overlap", *np, *dir, nil, []string{"-rss"}))
	}
	var err error
	if *rss {
		err = memoryBound(*dim1, *steps, *staging, *dir)
	} else {
		err = overlap(*reps, *dim1, *steps, *dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "overlap:", err)
		os.Exit(1)
	}
}

// computeKind is the emulated compute of every run.
var computeKind string

// warmUp touches runBytes of memory before every run (-warm).
var (
	warmUp   bool
	runBytes int
)

// variant is a mode as compared: its label and options.
type variant struct {
	label string
	kv    []options.KV
}

// variants are the strategies compared: sync, async with the write copy (the Async VOL
// built with ENABLE_WRITE_MEMCPY), async without it (the Async VOL's default build; the
// emulated application double-buffers in staging memory) and cache.
var variants = []variant{
	{"sync", []options.KV{{Key: "mode", Value: "sync"}}},
	{"async", []options.KV{{Key: "mode", Value: "async"}}},
	{"async-nocopy", []options.KV{{Key: "mode", Value: "async"}, {Key: "async.write_memcpy", Value: "NO"}}},
	{"cache", []options.KV{{Key: "mode", Value: "cache"}}},
}

func newSession(v variant, dim1 string, steps int, dir string, compute time.Duration, extra ...options.KV) (*proxy.Session, error) {
	kv := append([]options.KV{
		{Key: "file", Value: filepath.Join(dir, "overlap-"+v.label+".h5")},
		{Key: "cache.path", Value: dir}, {Key: "compute_kind", Value: computeKind},
		{Key: "compute_time", Value: compute.String()},
		{Key: "NUM_DIMS", Value: "1"}, {Key: "DIM_1", Value: dim1}, {Key: "TIMESTEPS", Value: strconv.Itoa(steps)},
		{Key: "COLLECTIVE_DATA", Value: "YES"},
	}, append(v.kv, extra...)...)
	cfg, err := proxy.ParseOptions("vpic", kv)
	if err != nil {
		return nil, err
	}
	cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
	return proxy.NewSession(proxy.World(), cfg)
}

// run is one write phase's outcome.
type run struct {
	observed, unhidden, hidden float64
}

func phase(s *proxy.Session) (run, error) {
	if warmUp {
		// As much memory as the run writes: its page-cache pages then come warm.
		if err := warm.Memory(runBytes); err != nil {
			return run{}, err
		}
	}
	if err := s.RunPhase(patterns.PhaseWrite); err != nil {
		return run{}, err
	}
	rep, err := s.Report()
	if err != nil {
		return run{}, err
	}
	// A new file per run, as an application writes: truncating the previous run's file
	// (dropping its cached pages) would land in the next run's file creation.
	if s.Rank() == 0 {
		os.Remove(s.Config().File)
	}
	p := rep.Phases[len(rep.Phases)-1]
	un := p.ObservedTime - p.ComputeTime.Max - p.PrepTime.Max - p.DrainTime.Max
	return run{observed: p.ObservedTime, unhidden: max(un, 0), hidden: p.HiddenFraction}, nil
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func overlap(reps int, dim1 string, steps int, dir string) error {
	finalize, err := proxy.InitMPI()
	if err != nil {
		return err
	}
	defer finalize()
	runtime.LockOSThread()
	rank0 := proxy.World().Rank() == 0

	// Sync I/O time per step, no compute: the yardstick.
	base, err := newSession(variants[0], dim1, steps, dir, 0)
	if err != nil {
		return err
	}
	var ios []float64
	for i := 0; i < reps; i++ {
		r, err := phase(base)
		if err != nil {
			return err
		}
		ios = append(ios, r.unhidden)
	}
	base.Close()
	ioPerStep := median(ios) / float64(steps)
	if rank0 {
		fmt.Printf("VPIC 1-D write, %d ranks, DIM_1=%s (%.1f MiB per rank per step), %d steps, %s compute, %d runs per cell\n",
			proxy.World().Size(), dim1, float64(mustSize(dim1)*32)/(1<<20), steps, computeKind, reps)
		fmt.Printf("sync I/O time per step (median, no compute): %.3f s\n\n", ioPerStep)
		fmt.Printf("%-8s %-12s %12s %12s %14s %8s\n", "compute", "mode", "observed s", "unhidden s", "unhidden/sync", "hidden")
	}
	for _, ratio := range []float64{0, 0.5, 1.2, 2} {
		compute := time.Duration(ratio * ioPerStep * float64(time.Second))
		sessions := map[string]*proxy.Session{}
		for _, v := range variants {
			if sessions[v.label], err = newSession(v, dim1, steps, dir, compute); err != nil {
				return err
			}
		}
		res := map[string][]run{}
		for i := 0; i < reps; i++ {
			for _, v := range variants {
				r, err := phase(sessions[v.label])
				if err != nil {
					return fmt.Errorf("%s: %w", v.label, err)
				}
				res[v.label] = append(res[v.label], r)
			}
		}
		for _, v := range variants {
			sessions[v.label].Close()
		}
		syncIO := median(pick(res["sync"], func(r run) float64 { return r.unhidden }))
		for _, v := range variants {
			m := v.label
			obs := median(pick(res[m], func(r run) float64 { return r.observed }))
			un := median(pick(res[m], func(r run) float64 { return r.unhidden }))
			hid := median(pick(res[m], func(r run) float64 { return r.hidden }))
			if rank0 {
				fmt.Printf("%-8s %-12s %12.3f %12.3f %14.3f %8.3f\n", fmt.Sprintf("%.1fx", ratio), m, obs, un, un/syncIO, hid)
			}
		}
		if rank0 {
			s := median(pick(res["sync"], func(r run) float64 { return r.observed }))
			fmt.Printf("%-8s observed time / sync:", "")
			for _, v := range variants[1:] {
				fmt.Printf(" %s %.3f", v.label, median(pick(res[v.label], func(r run) float64 { return r.observed }))/s)
			}
			fmt.Print("\n\n")
		}
	}
	return nil
}

func pick(rs []run, f func(run) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

func mustSize(s string) uint64 {
	n, _ := options.ParseSize(s)
	return n
}

// memoryBound runs a sync phase (the baseline peak RSS), then async with a small staging
// limit and no waits between steps, so staging fills and backpressure holds it.
func memoryBound(dim1 string, steps int, staging, dir string) error {
	finalize, err := proxy.InitMPI()
	if err != nil {
		return err
	}
	defer finalize()
	runtime.LockOSThread()
	// Peak RSS is the measure here: the warm-up's own allocation would mask the rise.
	warmUp = false
	limit, err := options.ParseSize(staging)
	if err != nil {
		return err
	}
	s, err := newSession(variants[0], dim1, steps, dir, 0)
	if err != nil {
		return err
	}
	if _, err := phase(s); err != nil {
		return err
	}
	s.Close()
	baseline := peakRSS()
	if proxy.World().Rank() == 0 {
		fmt.Printf("memory bound (rank 0): staging limit %.0f MiB, bound on the peak RSS rise over sync 1.1 x limit + 64 MiB = %.0f MiB; peak RSS after sync %.0f MiB\n",
			float64(limit)/(1<<20), (1.1*float64(limit)+64<<20)/(1<<20), float64(baseline)/(1<<20))
	}
	// No data preparation and no waits between steps: the writer outruns the background,
	// so staging fills up and backpressure must hold it at the limit. Peak RSS only grows,
	// so each async variant's rise includes the ones before it.
	for _, v := range variants[1:3] {
		a, err := newSession(v, dim1, steps, dir, 0, options.KV{Key: "fill", Value: "zero"},
			options.KV{Key: "async.staging_bytes", Value: staging}, options.KV{Key: "async.mem_limit", Value: "1TiB"})
		if err != nil {
			return err
		}
		_, err = phase(a)
		var rep *proxy.Report
		if err == nil {
			rep, err = a.Report()
		}
		a.Close()
		if err != nil {
			return err
		}
		p := rep.Phases[0]
		rise := peakRSS() - baseline
		if proxy.World().Rank() == 0 {
			fmt.Printf("  %-12s staging high-water %.0f MiB, waited for room %.3f s, peak RSS rise %.0f MiB: %s\n",
				v.label, p.StagingHigh.Max/(1<<20), p.StagingBlocked.Max, float64(rise)/(1<<20),
				map[bool]string{true: "within", false: "EXCEEDED"}[float64(rise) <= 1.1*float64(limit)+64<<20])
		}
	}
	return nil
}

// peakRSS reads the process's peak resident set size (VmHWM) in bytes.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
