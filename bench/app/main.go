// Command app compares what a description costs with what the built-in pattern it
// re-expresses costs (issue 23): for each pair of samples/apps' table (apps.Pairs, the one
// cmd/h5proxy's TestAppSamples checks for equal files and censuses) it runs `bin/h5proxy
// run` on the built-in's configuration (A) and on the description (B) at the same size,
// under the MPI launcher at -np ranks, interleaved with a second run of the built-in (A')
// in the same loop, so the A/A ratio measures the noise floor of this very run. Memory is
// warmed before each run and each run's files are deleted after it, outside its time.
//
//	make build && go run ./bench/app -np 2 -reps 7
//	go run ./bench/app -cases vpic-1d-contig,bd-cats-full -n 1M -reps 5
//	go run ./bench/app -callgrind -n 64K         # instruction counts, one rank
//	go run ./bench/app -cases nova,e3sm-f -reps 7  # pairs that do not scale: default sizes
//
// It prints per case, for two times (wall: the whole `h5proxy run` process, launcher,
// description parsing and planning included; window: the sum of the phases' observed times
// from the JSON report) the median [min–max] of A, B and A', the ratio B/A of the medians,
// the ratio A'/A and the A/A band (the least and greatest per-repetition A'/A, widened to
// include 1), and the verdict "within the A/A band" when B/A lies inside it.
//
// -callgrind instead runs each side once on one rank (h5proxy run -no-launch, no MPI
// launcher: no peer to wait for, whose polling would count) under valgrind
// --tool=callgrind and prints the instructions executed by each side (and by a second
// built-in run, A', unless -aa=false) and their ratios: a cost measure that a loaded
// machine does not distort.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/internal/warm"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/samples/apps"
)

// config is the command line.
type config struct {
	np, reps  int
	n         uint64 // elements per rank and variable
	cases     []apps.Pair
	aa        bool
	callgrind bool
	warm      int
	bin, dir  string
}

func main() {
	var c config
	np, reps := benchmain.NP(2, "ranks of every run"), benchmain.Reps(7, "runs of each side per case (interleaved)")
	size := flag.String("n", "4M", "elements per rank and variable (K, M: ×1024, ×1024²); each pair's Scale turns it into its sizes")
	cases := flag.String("cases", "", "pairs to run, comma-separated (default: every pair that scales)")
	flag.BoolVar(&c.aa, "aa", true, "run the built-in twice per repetition (A and A') for the A/A band and the verdict")
	flag.BoolVar(&c.callgrind, "callgrind", false, "count instructions instead: each side once on one rank under valgrind --tool=callgrind")
	benchmain.WarmBytes(&c.warm, 1<<30)
	flag.StringVar(&c.bin, "bin", "bin", "directory holding h5proxy (make build)")
	dir := benchmain.Dir()
	flag.Parse()
	c.np, c.reps, c.dir = *np, *reps, *dir
	err := c.resolve(*size, *cases)
	if err == nil {
		err = run(c, os.Stdout)
	}
	benchmain.Exit("app", 1, err)
}

// resolve checks the flags and picks the pairs.
func (c *config) resolve(size, cases string) error {
	if c.np < 1 || c.reps < 1 {
		return fmt.Errorf("-np %d -reps %d: both must be positive", c.np, c.reps)
	}
	n, err := options.ParseSize(size)
	if err != nil || n < 1 {
		return fmt.Errorf("-n %q: want a positive count such as 4M", size)
	}
	c.n = n
	var scaled, known []string
	for _, p := range apps.Pairs {
		if p.Scale != nil {
			scaled = append(scaled, p.Name())
		}
		known = append(known, p.Name())
	}
	if cases == "" {
		cases = strings.Join(scaled, ",")
	}
	for _, name := range strings.Split(cases, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, p := range apps.Pairs {
			if p.Name() == name { // a pair that does not scale runs at its default sizes
				c.cases, found = append(c.cases, p), true
			}
		}
		if !found {
			return fmt.Errorf("-cases: %q is not a pair (known: %s; these scale with -n: %s)", name, strings.Join(known, ", "), strings.Join(scaled, ", "))
		}
	}
	return nil
}

// sample is one run's times in seconds.
type sample struct{ wall, window float64 }

// side is one program of a case: h5proxy run with these arguments in a fresh directory
// holding the input file (and the pair's data files).
type side struct {
	name  string
	input string // file name written into each run's directory
	text  []byte // its content
	data  map[string][]byte
	args  []string
}

// prepare makes a run's directory holding the side's input and data files.
func (s side) prepare(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, b := range s.data {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, s.input), s.text, 0o644)
}

// sizes are the keys that size a pair's sides at c's size: its Scale's, or for a pair that
// does not scale none for the built-in and its Args for the description (its defaults).
func (c config) sizes(p apps.Pair) (builtin, desc []string) {
	if p.Scale == nil {
		return nil, p.Args
	}
	return p.Scale(c.n, c.np)
}

// sides returns the built-in's and the description's sides of a pair at c's size.
func (c config) sides(p apps.Pair) (a, b side, err error) {
	src, err := apps.Source(p.Desc)
	if err != nil {
		return side{}, side{}, err
	}
	data := map[string][]byte{}
	for _, f := range p.Data { // repository paths: the benchmark runs from the repository root
		if data[filepath.Base(f)], err = os.ReadFile(f); err != nil {
			return side{}, side{}, fmt.Errorf("%s: %w (run from the repository root)", p.Name(), err)
		}
	}
	bset, dkv := c.sizes(p)
	a = side{name: "built-in", input: "builtin.json", text: []byte(p.Builtin), data: data}
	for _, kv := range bset {
		a.args = append(a.args, "-set", kv)
	}
	a.args = append(a.args, a.input)
	b = side{name: "description", input: p.Desc, text: src, data: data, args: append([]string{p.Desc}, dkv...)}
	return a, b, nil
}

func run(c config, w io.Writer) error {
	bin, err := filepath.Abs(filepath.Join(c.bin, "h5proxy"))
	if err != nil {
		return err
	}
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("-bin %s: %w (run make build)", c.bin, err)
	}
	dir, done, err := benchmain.TempDir("benchapp", c.dir)
	if err != nil {
		return err
	}
	defer done()
	c.dir = dir
	if c.callgrind {
		return countAll(c, bin, w)
	}
	fmt.Fprintf(w, "app: %d ranks, %d interleaved runs per side, n=%d elements per rank and variable; seconds (median [min–max])\n", c.np, c.reps, c.n)
	for _, p := range c.cases {
		a, b, err := c.sides(p)
		if err != nil {
			return err
		}
		// A B A', then B A' A, then A' A B: no side always follows the same other one.
		order := []int{0, 1}
		if c.aa {
			order = append(order, 2)
		}
		runs := make([][]sample, 3)
		for i := 0; i < c.reps; i++ {
			for k := range order {
				who := order[(k+i)%len(order)]
				s := a
				if who == 1 {
					s = b
				}
				if err := warm.Memory(c.warm); err != nil {
					return err
				}
				smp, err := c.time(bin, s, fmt.Sprintf("%s-%d-%d", p.Name(), who, i))
				if err != nil {
					return fmt.Errorf("%s %s run %d: %w", p.Name(), s.name, i, err)
				}
				runs[who] = append(runs[who], smp)
			}
		}
		bk, dk := c.sizes(p)
		fmt.Fprintf(w, "\n%s: built-in -set %s; description %s\n", p.Name(), strings.Join(bk, " "), strings.Join(dk, " "))
		report(w, runs[0], runs[1], runs[2])
	}
	return nil
}

// time runs a side once under the launcher in a fresh directory dir/name, removed after.
func (c config) time(bin string, s side, name string) (sample, error) {
	dir := filepath.Join(c.dir, name)
	defer os.RemoveAll(dir)
	if err := s.prepare(dir); err != nil {
		return sample{}, err
	}
	start := time.Now()
	_, _, err := benchmain.Launched(c.np, dir, nil, append([]string{bin, "run", "-quiet", "-report", "report.json"}, s.args...)...)
	wall := time.Since(start).Seconds()
	if err != nil {
		return sample{}, err
	}
	window, err := windowTime(filepath.Join(dir, "report.json"))
	return sample{wall: wall, window: window}, err
}

// windowTime is the sum of the observed times of the phases of an h5proxy JSON report.
func windowTime(path string) (float64, error) {
	r, err := benchmain.ReadReport(path)
	if err != nil {
		return 0, err
	}
	var t float64
	for _, p := range r.Phases {
		t += p.ObservedTime
	}
	return t, nil
}

// band is the A/A band of per-repetition ratios A'/A: their least and greatest, widened to
// include 1 (nothing differs).
func band(a, a2 []float64) (lo, hi float64) {
	lo, hi = 1, 1
	for i := range min(len(a), len(a2)) {
		if a[i] > 0 {
			r := a2[i] / a[i]
			lo, hi = min(lo, r), max(hi, r)
		}
	}
	return lo, hi
}

// report prints the rows of a case: A (built-in), B (description) and, when measured, A'.
func report(w io.Writer, a, b, a2 []sample) {
	fmt.Fprintf(w, "  %-7s %-24s %-24s %-24s %-8s %-8s %s\n", "time", "built-in A", "description B", "built-in A'", "B/A", "A'/A", "A/A band")
	for _, row := range []struct {
		name string
		get  func(sample) float64
	}{
		{"wall", func(s sample) float64 { return s.wall }},
		{"window", func(s sample) float64 { return s.window }},
	} {
		av, bv, a2v := benchstat.Of(a, row.get), benchstat.Of(b, row.get), benchstat.Of(a2, row.get)
		cell := func(v []float64) string {
			if len(v) == 0 {
				return "-"
			}
			m, lo, hi := benchstat.Summary(v)
			return fmt.Sprintf("%.3f [%.3f–%.3f]", m, lo, hi)
		}
		ratio := func(x, y []float64) float64 {
			if len(x) == 0 || benchstat.Median(y) <= 0 {
				return math.NaN()
			}
			return benchstat.Median(x) / benchstat.Median(y)
		}
		ba := ratio(bv, av)
		verdict, bandText := "(no A/A band: -aa=false)", "-"
		if len(a2v) > 0 {
			lo, hi := band(av, a2v)
			bandText = fmt.Sprintf("[%.3f–%.3f]", lo, hi)
			verdict = "within the A/A band"
			if len(a2v) < 3 {
				verdict = "(no verdict: under 3 repetitions)"
			} else if ba < lo || ba > hi {
				verdict = "NOT within the A/A band"
			}
		}
		fmt.Fprintf(w, "  %-7s %-24s %-24s %-24s %-8.3f %-8.3f %s  %s\n", row.name, cell(av), cell(bv), cell(a2v), ba, ratio(a2v, av), bandText, verdict)
	}
}

// reTotal finds the instruction total in a callgrind output file.
var reTotal = regexp.MustCompile(`(?m)^(?:summary|totals): (\d+)`)

// countAll prints the instructions each side of each case executes on one rank.
func countAll(c config, bin string, w io.Writer) error {
	if _, err := exec.LookPath("valgrind"); err != nil {
		return fmt.Errorf("-callgrind: %w", err)
	}
	fmt.Fprintf(w, "app: instructions (valgrind --tool=callgrind, Ir) of h5proxy run on one rank, n=%d elements per variable\n", c.n)
	fmt.Fprintf(w, "  %-22s %-14s %-14s %-14s %-8s %s\n", "case", "built-in A", "description B", "built-in A'", "B/A", "A'/A")
	c.np = 1
	for _, p := range c.cases {
		a, b, err := c.sides(p)
		if err != nil {
			return err
		}
		sides := []side{a, b}
		if c.aa {
			sides = append(sides, a)
		}
		ir := make([]float64, len(sides))
		for k, s := range sides {
			n, err := c.count(bin, s, fmt.Sprintf("%s-cg-%d", p.Name(), k))
			if err != nil {
				return fmt.Errorf("%s %s: %w", p.Name(), s.name, err)
			}
			ir[k] = float64(n)
		}
		aa, aaRatio := "-", "-"
		if c.aa {
			aa, aaRatio = fmt.Sprintf("%.0f", ir[2]), fmt.Sprintf("%.4f", ir[2]/ir[0])
		}
		fmt.Fprintf(w, "  %-22s %-14.0f %-14.0f %-14s %-8.4f %s\n", p.Name(), ir[0], ir[1], aa, ir[1]/ir[0], aaRatio)
	}
	return nil
}

// count runs a side on one rank in this process's MPI singleton under callgrind and
// returns the instructions executed.
func (c config) count(bin string, s side, name string) (uint64, error) {
	dir := filepath.Join(c.dir, name)
	defer os.RemoveAll(dir)
	if err := s.prepare(dir); err != nil {
		return 0, err
	}
	_, env, err := launch.Launcher(1)
	if err != nil {
		return 0, err
	}
	argv := append([]string{"valgrind", "--tool=callgrind", "--callgrind-out-file=callgrind.out",
		bin, "run", "-no-launch", "-quiet"}, s.args...)
	// Go's asynchronous preemption signals trip callgrind's signal bookkeeping
	// (threads.c: "sigNum == current_state.sig" fails): preempt at safe points only.
	if _, _, err := benchmain.Launched(0, dir, append(env, "GODEBUG=asyncpreemptoff=1"), argv...); err != nil {
		return 0, err
	}
	out, err := os.ReadFile(filepath.Join(dir, "callgrind.out"))
	if err != nil {
		return 0, err
	}
	m := reTotal.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("callgrind.out: no summary or totals line")
	}
	return strconv.ParseUint(string(m[1]), 10, 64)
}
