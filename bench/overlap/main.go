// Command overlap measures how much of the VPIC write I/O the background modes hide
// behind emulated compute. In one MPI run it first measures the sync I/O time per step
// (no compute), then for each compute ratio (-ratios: compute per step as a multiple of
// that) runs the chosen modes' write phases interleaved (A B C D A B C D ...) and prints
// medians: observed time; un-hidden I/O as h5bench counts it (observed time minus compute
// and data preparation: the final flush and drain stay in it) and as a share of sync's;
// the same without the final drain (the part compute could hide); the hidden fraction;
// and the background executor's time next to sync's raw write time. A second run checks
// the memory bound: both async variants with a small staging limit and no waits between
// steps, reporting the rise of peak RSS over the sync baseline.
//
// By default ranks are launched without core binding, 1 rank, spin compute (a rank's
// background thread then really competes for a core). Issue 12's case is h5bench's: 2
// ranks under mpirun's default binding (one core per rank, shared by the caller and the
// executor thread), sleep compute 1.5 times a step's sync I/O, 8 steps:
//
//	go run ./bench/overlap -np 1 -reps 5   # or: make bench
//	go run ./bench/overlap -np 2 -bind core -compute sleep -steps 8 -ratios 1.5 -modes sync,async -reps 7 -membound=false
//
// -trace DIR also writes each background mode's timeline and prints how much of the
// compute its background HDF5 calls covered and how long the caller paused before
// computing (the structure of the overlap, which load leaves alone).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/internal/warm"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

func main() {
	np := benchmain.NP(1, "ranks")
	reps := benchmain.Reps(5, "runs per mode and compute ratio (medians are reported)")
	dim1, steps := benchmain.Dim1("1048576"), benchmain.Steps(6)
	staging := flag.String("staging", "64MiB", "staging limit of the memory-bound run")
	rss := flag.Bool("rss", false, "run only the memory-bound check (used by the launcher)")
	dir := benchmain.Dir()
	flag.StringVar(&computeKind, "compute", "spin", "compute kind: spin, sleep or stream")
	benchmain.Warm(&warmUp)
	ratioList := flag.String("ratios", "0,0.5,1.2,2", "compute per step as multiples of the sync I/O time per step, comma-separated")
	modes := flag.String("modes", "sync,async,async-nocopy,cache", "modes compared (sync first: the yardstick), comma-separated")
	bind := flag.String("bind", "none", "core binding of the ranks: none, or core (mpirun's default for 2 ranks or fewer, as h5bench runs)")
	membound := flag.Bool("membound", true, "also run the memory-bound check")
	flag.StringVar(&traceDir, "trace", "", "write each background mode's timeline (trace_file) into this directory and print its overlap figures: compute covered by background HDF5 calls, the caller's pause before its compute")
	flag.DurationVar(&ioStep, "iostep", 0, "sync I/O time per step the compute ratios multiply (default: measured first, median of -reps no-compute sync runs)")
	flag.Parse()
	var err error
	if ratios, err = parseRatios(*ratioList); err == nil {
		chosen, err = pickVariants(*modes)
	}
	if err == nil && *bind != "none" && *bind != "core" {
		err = fmt.Errorf("-bind %q: want none or core", *bind)
	}
	if err == nil && traceDir != "" {
		err = os.MkdirAll(traceDir, 0o755)
	}
	benchmain.Check("overlap", 2, err)
	runBytes = benchmain.VPICBytes(*dim1, *steps)
	if !launch.Underneath() {
		// The memory-bound check runs in a fresh process: peak RSS is per process.
		if *bind == "none" {
			os.Setenv("OMPI_MCA_hwloc_base_binding_policy", "none")
		}
		runs := [][]string{nil}
		if *membound {
			runs = append(runs, []string{"-rss"})
		}
		os.Exit(launch.SelfInDir("overlap", *np, *dir, runs...))
	}
	if *rss {
		err = memoryBound(*dim1, *steps, *staging, *dir)
	} else {
		err = overlap(*reps, *dim1, *steps, *dir)
	}
	benchmain.Exit("overlap", 1, err)
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

// ioStep, when set, replaces the measured sync I/O time per step (-iostep).
var ioStep time.Duration

// traceDir, when set, holds each compared session's trace_file (-trace).
var traceDir string

// ratios are the compute ratios measured (-ratios) and chosen the variants (-modes).
var (
	ratios []float64
	chosen []variant
)

func parseRatios(list string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(list, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || r < 0 {
			return nil, fmt.Errorf("-ratios: %q is not a compute ratio (a number >= 0)", f)
		}
		out = append(out, r)
	}
	return out, nil
}

// pickVariants returns the named variants; sync must come first (the yardstick).
func pickVariants(list string) ([]variant, error) {
	var out []variant
	for _, name := range strings.Split(list, ",") {
		i := slices.IndexFunc(variants, func(v variant) bool { return v.label == strings.TrimSpace(name) })
		if i < 0 {
			return nil, fmt.Errorf("-modes: unknown mode %q (known: sync, async, async-nocopy, async-model, async-es, cache)", name)
		}
		out = append(out, variants[i])
	}
	if out[0].label != "sync" {
		return nil, fmt.Errorf("-modes %q: sync must come first (the yardstick)", list)
	}
	return out, nil
}

// variants are the strategies compared: sync, async with the write copy (the Async VOL
// built with ENABLE_WRITE_MEMCPY), async without it (the Async VOL's default build; the
// emulated application double-buffers in staging memory) and cache.
var variants = []variant{
	{"sync", []options.KV{{Key: "mode", Value: "sync"}}},
	{"async", []options.KV{{Key: "mode", Value: "async"}}},
	{"async-nocopy", []options.KV{{Key: "mode", Value: "async"}, {Key: "async.write_memcpy", Value: "NO"}}},
	// mode=async chooses between these two (async.event_sets=AUTO): the model where no
	// Async VOL is loaded, HDF5's event sets where it is (HDF5_VOL_CONNECTOR in the
	// launcher's environment).
	{"async-model", []options.KV{{Key: "mode", Value: "async-model"}}},
	{"async-es", []options.KV{{Key: "mode", Value: "async"}, {Key: "async.event_sets", Value: "YES"}}},
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

// run is one write phase's outcome: observed time; un-hidden I/O as h5bench counts it
// (observed minus compute and data preparation) and without the final drain; hidden
// fraction; background executor time; raw write time.
type run struct {
	observed, unhidden, unhiddenNoDrain, hidden, background, raw float64
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
	// Preparation inside the window (seeded fills) is the emulated application's, not I/O.
	un := max(p.ObservedTime-p.ComputeTime.Max-p.PrepWindowTime.Max, 0)
	return run{observed: p.ObservedTime, unhidden: un, unhiddenNoDrain: max(un-p.DrainTime.Max, 0),
		hidden: p.HiddenFraction, background: p.BackgroundTime.Max, raw: p.RawTime.Max}, nil
}

func overlap(reps int, dim1 string, steps int, dir string) error {
	world, finalize, err := benchmain.Ranks()
	if err != nil {
		return err
	}
	defer finalize()
	rank0 := world.Rank() == 0

	// Sync I/O time per step, no compute: the yardstick.
	ioPerStep := ioStep.Seconds()
	var ios []float64
	if ioStep == 0 {
		base, err := newSession(variants[0], dim1, steps, dir, 0)
		if err != nil {
			return err
		}
		for i := 0; i < reps; i++ {
			r, err := phase(base)
			if err != nil {
				return err
			}
			ios = append(ios, r.unhiddenNoDrain/float64(steps))
		}
		base.Close()
		ioPerStep = benchstat.Median(ios)
	}
	if rank0 {
		fmt.Printf("VPIC 1-D write, %d ranks, DIM_1=%s (%.1f MiB per rank per step), %d steps, %s compute, %d runs per cell\n",
			world.Size(), dim1, float64(benchmain.VPICBytes(dim1, 1))/(1<<20), steps, computeKind, reps)
		fmt.Printf("sync I/O time per step (no compute, final drain excluded): %.3f s (runs: %s)\n", ioPerStep, fmtList(ios))
		fmt.Printf("unhidden = observed - compute - data preparation (h5bench's observed time minus its compute); -drain: without the final flush/drain\n\n")
		fmt.Printf("%-8s %-12s %10s %10s %8s %10s %8s %7s %8s %9s\n", "compute", "mode", "observed s", "unhidden s", "/sync",
			"-drain s", "/sync", "hidden", "bg s", "sync raw")
	}
	for _, ratio := range ratios {
		compute := time.Duration(ratio * ioPerStep * float64(time.Second))
		sessions := map[string]*proxy.Session{}
		traces := map[string]string{}
		for _, v := range chosen {
			var extra []options.KV
			if traceDir != "" && v.label != "sync" {
				traces[v.label] = filepath.Join(traceDir, fmt.Sprintf("overlap-%s-%gx.trace.json", v.label, ratio))
				extra = append(extra, options.KV{Key: "trace_file", Value: traces[v.label]})
			}
			if sessions[v.label], err = newSession(v, dim1, steps, dir, compute, extra...); err != nil {
				return err
			}
		}
		res := map[string][]run{}
		for i := 0; i < reps; i++ {
			for _, v := range chosen {
				r, err := phase(sessions[v.label])
				if err != nil {
					return fmt.Errorf("%s: %w", v.label, err)
				}
				res[v.label] = append(res[v.label], r)
			}
		}
		for _, v := range chosen {
			if err := sessions[v.label].Close(); err != nil {
				return fmt.Errorf("%s: %w", v.label, err)
			}
		}
		med := func(m string, f func(run) float64) float64 { return benchstat.Median(pick(res[m], f)) }
		syncUn := med("sync", func(r run) float64 { return r.unhidden })
		syncND := med("sync", func(r run) float64 { return r.unhiddenNoDrain })
		syncRaw := med("sync", func(r run) float64 { return r.raw })
		for _, v := range chosen {
			m := v.label
			un := med(m, func(r run) float64 { return r.unhidden })
			nd := med(m, func(r run) float64 { return r.unhiddenNoDrain })
			if rank0 {
				fmt.Printf("%-8s %-12s %10.3f %10.3f %8.3f %10.3f %8.3f %7.3f %8.3f %9.3f\n", fmt.Sprintf("%.1fx", ratio), m,
					med(m, func(r run) float64 { return r.observed }), un, un/syncUn, nd, nd/syncND,
					med(m, func(r run) float64 { return r.hidden }), med(m, func(r run) float64 { return r.background }), syncRaw)
			}
		}
		if rank0 {
			s := med("sync", func(r run) float64 { return r.observed })
			fmt.Printf("%-8s observed time / sync:", "")
			for _, v := range chosen[1:] {
				fmt.Printf(" %s %.3f", v.label, med(v.label, func(r run) float64 { return r.observed })/s)
			}
			fmt.Println()
			for _, v := range chosen[1:] {
				if f, ok := traces[v.label]; ok {
					figs, err := traceFigures(f)
					if err != nil {
						return err
					}
					fmt.Printf("%-8s %s timeline (%s): %s\n", "", v.label, f, figs)
				}
			}
			fmt.Println()
		}
	}
	return nil
}

func fmtList(v []float64) string {
	if len(v) == 0 {
		return "given by -iostep"
	}
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = fmt.Sprintf("%.3f", x)
	}
	return strings.Join(out, " ")
}

func pick(rs []run, f func(run) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

// memoryBound runs a sync phase (the baseline peak RSS), then async with a small staging
// limit and no waits between steps, so staging fills and backpressure holds it.
func memoryBound(dim1 string, steps int, staging, dir string) error {
	world, finalize, err := benchmain.Ranks()
	if err != nil {
		return err
	}
	defer finalize()
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
	if world.Rank() == 0 {
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
		if world.Rank() == 0 {
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
