// Command capture measures how long `h5proxy capture -from` takes to fold a long trace
// into a description (issue 33: a trace of 10^5 calls folds in under 5 s). It builds
// examples/corpus/h5md_lammps.c (LAMMPS's H5MD dump through ch5md: 12 traced HDF5 calls a
// dump, so 8400 dumps make 100,856 calls and 151,646 events), traces it at 1 rank for each
// of -dumps under `h5proxy profile -trace`, then runs `h5proxy capture -from` on each trace
// -reps times, interleaved, and prints the medians [min-max] of the capture process's CPU
// time (user + system: a loaded machine stretches its wall time far more) and wall time,
// and the ratio of the CPU medians of the largest and smallest trace (a linear fold makes
// it at most the ratio of the dumps).
//
// With -against OLD, each capture also runs with the binary OLD, interleaved with
// -h5proxy's, and the descriptions of the two must be byte-identical: a before/after
// comparison of a change to the fold.
//
//	make build && go run ./bench/capture -reps 7
//	go run ./bench/capture -reps 7 -against /tmp/h5proxy.old   # an older build side by side
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/internal/profile"
)

func main() {
	reps := benchmain.Reps(7, "captures of each trace (and binary), interleaved")
	dumps := flag.String("dumps", "840,8400", "dumps of each trace, comma-separated (12 HDF5 calls a dump)")
	h5proxy := flag.String("h5proxy", "bin/h5proxy", "the h5proxy command that traces and captures")
	against := flag.String("against", "", "another h5proxy binary whose captures run interleaved (its descriptions must be the same)")
	lib := flag.String("lib", "bin/libh5proxy-profile.so", "the profiler (make build puts it in bin/)")
	src := flag.String("src", "examples/corpus/h5md_lammps.c", "the writer traced")
	dir := benchmain.Dir()
	flag.Parse()
	benchmain.Exit("bench/capture", 1, run(*reps, *dumps, *h5proxy, *against, *lib, *src, *dir))
}

// sample is one capture's cost in seconds.
type sample struct{ cpu, wall float64 }

func run(reps int, dumpList, h5proxy, against, lib, src, dir string) error {
	var counts []int
	for _, f := range strings.Split(dumpList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-dumps %q: want positive counts, comma-separated", dumpList)
		}
		counts = append(counts, n)
	}
	bins := []string{h5proxy}
	if against != "" {
		bins = append(bins, against)
	}
	paths := append(append([]string{}, bins...), lib, src)
	for i, path := range paths {
		abs, err := filepath.Abs(path)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("%s: %w (make build)", path, err)
		}
		paths[i] = abs
	}
	bins, lib, src = paths[:len(bins)], paths[len(bins)], paths[len(bins)+1]
	dir, cleanup, err := benchmain.TempDir("bench-capture", dir)
	if err != nil {
		return err
	}
	defer cleanup()
	exe := filepath.Join(dir, "h5md_lammps")
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "hdf5-openmpi").Output()
	if err != nil {
		return fmt.Errorf("pkg-config hdf5-openmpi: %w", err)
	}
	if out, err := exec.Command("mpicc", append([]string{"-O2", "-o", exe, src}, strings.Fields(string(flags))...)...).CombinedOutput(); err != nil {
		return fmt.Errorf("mpicc: %v\n%s", err, out)
	}
	traces := make([]string, len(counts))
	for i, n := range counts {
		run := filepath.Join(dir, fmt.Sprintf("run%d", n))
		if err := os.Mkdir(run, 0o755); err != nil {
			return err
		}
		traces[i] = filepath.Join(dir, fmt.Sprintf("trace%d.json", n))
		cmd := exec.Command(bins[0], "profile", "-lib", lib, "-np", "1", "-trace", "-noplot", "-o", traces[i], "--", exe, strconv.Itoa(n))
		cmd.Dir = run
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
		}
		p, err := profile.Load(traces[i])
		if err != nil {
			return err
		}
		calls := p.HDF5Calls()
		if p.DroppedEvents != 0 {
			return fmt.Errorf("%s: %d events dropped: the fold would see less than the program did", traces[i], p.DroppedEvents)
		}
		fmt.Printf("%d dumps: %d HDF5 calls, %d events\n", n, calls, len(p.Events))
	}
	// times[trace][binary]
	times := make([][][]sample, len(traces))
	for i := range times {
		times[i] = make([][]sample, len(bins))
	}
	for r := 0; r < reps; r++ {
		for i, trace := range traces {
			var first []byte
			for b, bin := range bins {
				out := filepath.Join(dir, fmt.Sprintf("app%d-%d.yaml", i, b))
				s, err := capture(bin, trace, out)
				if err != nil {
					return err
				}
				times[i][b] = append(times[i][b], s)
				yaml, err := os.ReadFile(out)
				if err != nil {
					return err
				}
				if b == 0 {
					first = yaml
				} else if !bytes.Equal(yaml, first) {
					return fmt.Errorf("%s and %s capture %s into different descriptions (%s, %s)", bins[0], bin, trace, filepath.Join(dir, fmt.Sprintf("app%d-0.yaml", i)), out)
				}
			}
		}
	}
	for b, bin := range bins {
		fmt.Printf("%s, %d captures of each trace:\n", bin, reps)
		var cpus []float64
		for i, n := range counts {
			cpu, clo, chi := benchstat.Summary(benchstat.Of(times[i][b], func(s sample) float64 { return s.cpu }))
			wall, wlo, whi := benchstat.Summary(benchstat.Of(times[i][b], func(s sample) float64 { return s.wall }))
			fmt.Printf("  %6d dumps: CPU %.2f s [%.2f-%.2f], wall %.2f s [%.2f-%.2f]\n", n, cpu, clo, chi, wall, wlo, whi)
			cpus = append(cpus, cpu)
		}
		if len(counts) > 1 {
			lo, hi := 0, 0
			for i, n := range counts {
				if n < counts[lo] {
					lo = i
				}
				if n > counts[hi] {
					hi = i
				}
			}
			fmt.Printf("  CPU ratio %d/%d dumps: %.1f (dumps ratio %.1f)\n", counts[hi], counts[lo], cpus[hi]/cpus[lo], float64(counts[hi])/float64(counts[lo]))
		}
	}
	return nil
}

// capture runs `h5proxy capture -from trace -o out` and returns its CPU and wall seconds.
func capture(bin, trace, out string) (sample, error) {
	cmd := exec.Command(bin, "capture", "-from", trace, "-o", out)
	begin := time.Now()
	if msg, err := cmd.CombinedOutput(); err != nil {
		return sample{}, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, msg)
	}
	wall := time.Since(begin)
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return sample{cpu: cpu.Seconds(), wall: wall.Seconds()}, nil
}
