// Command e3sm measures the E3SM-IO F case write (h0 and h1 history files, E3SM-IO's
// real 16-process map) through h5proxy's layouts in one run: canonical (the native
// layout: one collective H5Dwrite of a union of single-element hyperslabs per variable),
// log and subfiling, at 2 and 4 ranks, and prints the write times and the ratio
// log/canonical. Layouts not in this build are reported as not available.
//
//	go run ./bench/e3sm                      # -nps 2,4 -reps 1 -r 1
//	go run ./bench/e3sm -nps 2 -reps 3 -map data/e3sm/map_f_case_16p.h5
//
// The time is the write phase's observed time (file create to close, over all ranks).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/e3sm"
	"github.com/h5proxy/h5proxy/proxy"
)

// layouts are the strategies compared, with E3SM-IO's names.
var layouts = []struct{ name, layout string }{{"canonical", "native"}, {"log", "log"}, {"subfiling", "subfiling"}}

func main() {
	nps := benchmain.NPs("2,4")
	reps := benchmain.Reps(1, "runs per layout and rank count (the median is reported)")
	records := flag.Int("r", 1, "records of the h1 file (E3SM-IO -r)")
	mapFile := flag.String("map", "", "F-case map file (default: the repository's data/e3sm/map_f_case_16p.h5)")
	dir, out := benchmain.Dir(), benchmain.Results()
	flag.Parse()
	if *mapFile == "" {
		d, err := e3sm.FindMapDir(".")
		benchmain.Check(name, 1, err)
		*mapFile = filepath.Join(d, "map_f_case_16p.h5")
	}
	benchmain.Split(name, func() int { return parent(*nps, *mapFile, *dir, *records, *reps) },
		func() error { return child(*mapFile, *dir, *out, *records, *reps) })
}

// name prefixes the bench's errors.
const name = "e3sm bench"

// parent launches one MPI run per rank count and prints the table.
func parent(nps, mapFile, dir string, records, reps int) int {
	counts, err := launch.Counts(nps)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: -nps: %v\n", name, err)
		return 2
	}
	dir, done, err := benchmain.TempDir("e3sm-bench", dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		return 1
	}
	defer done()
	abs, err := filepath.Abs(mapFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		return 1
	}
	res := filepath.Join(dir, "results.txt")
	var times map[string]float64
	lines, err := launch.SelfPerCount(counts, res, "-map", abs, "-dir", dir, "-results", res, "-r", strconv.Itoa(records), "-reps", strconv.Itoa(reps))
	if err == nil {
		times, err = parseResults(lines)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		return 1
	}
	fmt.Printf("E3SM-IO F case write (h0 + h1, r=%d), map %s, median of %d; seconds from file create to close, without data generation\n", records, filepath.Base(mapFile), reps)
	fmt.Printf("%-6s %-12s %-12s %-12s %s\n", "ranks", "canonical", "log", "subfiling", "log/canonical")
	for _, n := range counts {
		row := fmt.Sprintf("%-6d", n)
		for _, l := range layouts {
			if t, ok := times[key(n, l.name)]; ok {
				row += fmt.Sprintf(" %-12.3f", t)
			} else {
				row += fmt.Sprintf(" %-12s", "n/a")
			}
		}
		c, okc := times[key(n, "canonical")]
		lg, okl := times[key(n, "log")]
		if okc && okl && c > 0 {
			row += fmt.Sprintf(" %.4f (1/%.1f)", lg/c, c/lg)
		} else {
			row += " not available"
		}
		fmt.Println(row)
	}
	for _, l := range layouts {
		if !slices.Contains(proxy.Layouts(), l.layout) {
			fmt.Printf("n/a: layout %s is not available in this build\n", l.layout)
		}
	}
	return 0
}

func key(n int, layout string) string { return fmt.Sprintf("%d %s", n, layout) }

// parseResults reads the results lines of the launched runs: "ranks layout seconds".
func parseResults(lines []string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, l := range lines {
		var n int
		var layout string
		var t float64
		if _, err := fmt.Sscanf(l, "%d %s %g", &n, &layout, &t); err != nil {
			return nil, fmt.Errorf("results line %q: %w", l, err)
		}
		out[key(n, layout)] = t
	}
	return out, nil
}

// child runs under MPI: every available layout, reps times, and rank 0 appends the
// medians to the results file.
func child(mapFile, dir, out string, records, reps int) error {
	world, finalize, err := benchmain.Ranks()
	if err != nil {
		return err
	}
	defer finalize()
	var lines []string
	for _, l := range layouts {
		if !slices.Contains(proxy.Layouts(), l.layout) {
			continue
		}
		var ts []float64
		for rep := 0; rep < reps; rep++ {
			file := filepath.Join(dir, fmt.Sprintf("f-%s-np%d-%d.h5", l.name, world.Size(), rep))
			s, err := benchmain.Session(world, "e3sm", fmt.Sprintf("map=%s;r=%d;file=%s;layout=%s", mapFile, records, file, l.layout), patterns.PhaseWrite)
			if err != nil {
				return err
			}
			if err := s.Run(); err != nil {
				s.Close()
				return fmt.Errorf("%s: %w", l.name, err)
			}
			rep, err := s.Report()
			if err != nil {
				return err
			}
			// E3SM-IO times its writes, not the generation of its buffers: take data
			// preparation (identical for every layout) and emulated compute out of the window.
			p := rep.Phases[0]
			ts = append(ts, p.ObservedTime-p.PrepTime.Max-p.ComputeTime.Max)
			if err := s.Close(); err != nil {
				return err
			}
			for _, h := range []string{"h0", "h1"} {
				os.RemoveAll(e3sm.HistoryPath(file, h))
			}
		}
		lines = append(lines, fmt.Sprintf("%d %s %g", world.Size(), l.name, benchstat.Median(ts)))
	}
	if world.Rank() != 0 {
		return nil
	}
	return launch.AppendLines(out, lines)
}
