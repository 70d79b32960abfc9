// Command ior compares `h5proxy ior` with the real IOR (issue 14): for each IOR argument
// set it runs the real ior and `bin/h5proxy ior` with the same arguments, interleaved
// (A B A B ...), each under the MPI launcher at -np ranks, parses both outputs'
// "Summary of all tests:" rows and prints per set and operation the medians over the runs
// of each program's Mean(MiB) (and of its Max(MiB)), their min–max spreads, and the
// ratio h5proxy / real of the medians, marked when it is outside ±5 %.
//
//	make build && go run ./bench/ior -ior /tmp/ior-real/ior -np 2 -reps 7   # or: IOR=... make bench-ior
//	go run ./bench/ior -ior $IOR -sets '-a HDF5 -b 16m -t 1m -s 4 -w -r -i 3;-a HDF5 -F -b 16m -t 1m -s 4 -w -r -i 3'
//
// A/B (-ab, -base) adds a third program to the same interleaving, "h5proxy B": h5proxy
// with session keys of its own (-ab 'transfer_runs=NO', passed as h5proxy ior -set), or
// another h5proxy binary (-base, e.g. one built from an earlier commit); -band adds a
// second real IOR, so that the A/A band is measured in the same runs, under the same
// load. Each round runs every program once, in an order rotated by one each round. Every
// program is then reported against the real IOR, and h5proxy against h5proxy B:
//
//	go run ./bench/ior -ior $IOR -np 2 -reps 7 -band -ab transfer_runs=NO -sets '-a MPIIO -c -b 128m -t 4m -s 2 -w -r -i 3 -k'
//
// It is a bench, not a test: it needs a real IOR binary (docs/ior.md says how one was
// built for this comparison) and fails without one. Each run writes its files under its
// own directory of -dir and removes them (neither program is given -k).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/internal/warm"
)

// defaultSets are the argument sets compared by default: each API, with collective
// transfers where the API has them, fsync at the end of each write where it does (IOR
// resets -e with a warning under HDF5), 3 iterations of write and read.
var defaultSets = []string{
	"-a POSIX -b 64m -t 4m -s 2 -w -r -i 3 -e",
	"-a MPIIO -b 64m -t 4m -s 2 -w -r -i 3 -e",
	"-a MPIIO -c -b 64m -t 4m -s 2 -w -r -i 3 -e",
	"-a HDF5 -b 64m -t 4m -s 2 -w -r -i 3",
	"-a HDF5 -c -b 64m -t 4m -s 2 -w -r -i 3",
}

// tolerance is issue 14's bound on the ratio of the medians.
const tolerance = 0.05

func main() {
	ior := flag.String("ior", os.Getenv("IOR"), "the real IOR binary (default: $IOR)")
	bin := flag.String("bin", "bin", "directory holding h5proxy (make build)")
	np := flag.Int("np", 2, "ranks of every run")
	reps := flag.Int("reps", 5, "runs of each program per argument set (interleaved)")
	sets := flag.String("sets", strings.Join(defaultSets, ";"), "IOR argument sets, separated by ';' (-o is added)")
	dir := flag.String("dir", "", "directory for the files (default: a new temporary directory, removed at the end)")
	flag.IntVar(&warmBytes, "warm", 1<<30, "bytes of memory to touch before each run: "+warm.FlagUsage)
	flag.BoolVar(&aa, "aa", false, "A/A check: the real IOR on both sides (its h5proxy columns are a second real IOR): the spread of the ratio when nothing differs, the comparison's noise floor")
	flag.BoolVar(&band, "band", false, "also run a second real IOR in the same interleaving (\"real 2\"): the A/A band of the same runs")
	flag.StringVar(&abSets, "ab", "", "also run h5proxy with these session keys (KEY=VALUE, comma-separated; h5proxy ior -set) in the same interleaving (\"h5proxy B\")")
	flag.StringVar(&base, "base", "", "also run this h5proxy binary (e.g. one built from an earlier commit) in the same interleaving (\"h5proxy B\"); with -ab, it gets the keys")
	flag.Parse()
	if err := run(*ior, *bin, *dir, *sets, *np, *reps); err != nil {
		fmt.Fprintln(os.Stderr, "bench/ior:", err)
		os.Exit(2)
	}
}

// program is one side of the comparison: its name and its command before IOR's arguments.
type program struct {
	name string
	argv []string
}

// warmBytes is how much memory is touched before each run (-warm).
var warmBytes int

// aa runs the real IOR on both sides (-aa).
var aa bool

// band adds a second real IOR (-band); abSets and base make the third program (-ab, -base).
var (
	band         bool
	abSets, base string
)

// The programs' names in the results.
const (
	nameReal, nameReal2, nameA, nameB = "real", "real 2", "h5proxy", "h5proxy B"
)

func run(ior, bin, dir, sets string, np, reps int) error {
	if ior == "" {
		return errors.New("no real IOR: give -ior PATH or set IOR (docs/ior.md: building the real IOR for the comparison)")
	}
	if st, err := os.Stat(ior); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("the real IOR %q is not an executable file (%v)", ior, err)
	}
	h5p, err := filepath.Abs(filepath.Join(bin, "h5proxy"))
	if err != nil {
		return err
	}
	if _, err := os.Stat(h5p); err != nil && !aa {
		return fmt.Errorf("%w (run make build)", err)
	}
	if np < 1 || reps < 1 {
		return fmt.Errorf("-np %d -reps %d: both must be at least 1", np, reps)
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "h5proxy-ior-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	progs := []program{{nameReal, []string{ior}}, {nameA, []string{h5p, "ior"}}}
	if aa {
		progs[1].argv = []string{ior}
		fmt.Println("A/A check: the h5proxy columns are a second real IOR")
	}
	if abSets != "" || base != "" {
		b := program{nameB, []string{h5p, "ior"}}
		if base != "" {
			if _, err := os.Stat(base); err != nil {
				return fmt.Errorf("-base: %w", err)
			}
			b.argv[0] = base
		}
		for _, kv := range strings.Split(abSets, ",") {
			if kv = strings.TrimSpace(kv); kv == "" {
				continue
			}
			if !strings.Contains(kv, "=") {
				return fmt.Errorf("-ab %q: %q is no KEY=VALUE", abSets, kv)
			}
			b.argv = append(b.argv, "-set", kv)
		}
		progs = append(progs, b)
		fmt.Printf("A/B: h5proxy B is %s\n", strings.Join(b.argv, " "))
	}
	if band {
		progs = append(progs, program{nameReal2, []string{ior}})
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "arguments\top\tA\tB\tB mean MiB/s\t(min–max)\tA mean MiB/s\t(min–max)\tratio A/B\tpaired\tB max MiB/s\tA max MiB/s\tratio\t\n")
	for _, set := range strings.Split(sets, ";") {
		args := strings.Fields(set)
		if len(args) == 0 {
			continue
		}
		fmt.Fprintf(os.Stderr, "bench/ior: %s: %d runs of each program\n", set, reps)
		got := map[string]map[string][]rates{} // program, operation: one per run
		for i := 0; i < reps; i++ {
			for k := range progs {
				p := progs[(i+k)%len(progs)] // rotated: no program always follows the same one
				if err := warm.Memory(warmBytes); err != nil {
					return err
				}
				r, err := once(p, args, dir, np)
				if err != nil {
					return fmt.Errorf("%s %s (run %d): %w", p.name, set, i+1, err)
				}
				if got[p.name] == nil {
					got[p.name] = map[string][]rates{}
				}
				for op, v := range r {
					got[p.name][op] = append(got[p.name][op], v)
				}
			}
		}
		// Every program against the real IOR, then h5proxy against h5proxy B.
		var pairs [][2]string
		for _, p := range progs[1:] {
			pairs = append(pairs, [2]string{p.name, nameReal})
		}
		if _, ok := got[nameB]; ok {
			pairs = append(pairs, [2]string{nameA, nameB})
		}
		for _, op := range []string{"write", "read"} {
			for _, pr := range pairs {
				if err := compare(tw, set, op, pr[0], pr[1], got[pr[0]][op], got[pr[1]][op], reps); err != nil {
					return err
				}
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Printf("\nratio: A / B of the medians over %d interleaved runs at %d ranks; * outside ±%.0f %%; paired: median of the runs' own ratios (A and B of the same round)\n", reps, np, 100*tolerance)
	return nil
}

// compare prints one row: program a's runs against program b's for one operation.
func compare(tw *tabwriter.Writer, set, op, a, b string, as, bs []rates, reps int) error {
	if len(as) == 0 && len(bs) == 0 {
		return nil
	}
	if len(as) != reps || len(bs) != reps {
		return fmt.Errorf("%s: %s rows in %d %s and %d %s runs of %d", set, op, len(as), a, len(bs), b, reps)
	}
	mean := func(r rates) float64 { return r.Mean }
	best := func(r rates) float64 { return r.Max }
	bm, blo, bhi := benchstat.Summary(benchstat.Of(bs, mean))
	am, alo, ahi := benchstat.Summary(benchstat.Of(as, mean))
	bb, ab := benchstat.Median(benchstat.Of(bs, best)), benchstat.Median(benchstat.Of(as, best))
	// paired: the median of each round's a / b, the two run in the same round, so that a
	// load that drifts over the whole bench cancels out.
	pairs := make([]float64, reps)
	for i := range pairs {
		pairs[i] = as[i].Mean / bs[i].Mean
	}
	_, err := fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f\t(%.1f–%.1f)\t%.1f\t(%.1f–%.1f)\t%s\t%.2f\t%.1f\t%.1f\t%s\t\n", set, op, a, b, bm, blo, bhi, am, alo, ahi,
		ratio(am, bm), benchstat.Median(pairs), bb, ab, ratio(ab, bb))
	return err
}

// once runs one program on one argument set in a fresh directory and returns its summary.
func once(p program, args []string, dir string, np int) (map[string]rates, error) {
	runDir, err := os.MkdirTemp(dir, p.name+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(runDir)
	pre, env, err := launch.Launcher(np)
	if err != nil {
		return nil, err
	}
	argv := append(append(append(pre, p.argv...), args...), "-o", filepath.Join(runDir, "testFile"))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = runDir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, out)
	}
	r, err := parseSummary(string(out))
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, out)
	}
	return r, nil
}

// ratio is a/b with two decimals, starred when outside the tolerance.
func ratio(a, b float64) string {
	if b <= 0 {
		return "-"
	}
	r := a / b
	mark := ""
	if r < 1-tolerance || r > 1+tolerance {
		mark = "*"
	}
	return fmt.Sprintf("%.2f%s", r, mark)
}
