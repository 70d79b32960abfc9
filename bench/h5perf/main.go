// Command h5perf compares `h5proxy h5perf` with HDF5 1.10.8's real h5perf (issue 14) and
// runs the h5perf study of docs/h5perf.md.
//
//	bench/h5perf/build-real.sh /tmp/h5perf-real                  # the real program, outside the repo
//	make build && go run ./bench/h5perf -h5perf /tmp/h5perf-real/h5perf -reps 7
//	go run ./bench/h5perf -study -reps 3                         # HDF5 vs MPI-IO vs POSIX table
//
// The comparison runs the real h5perf (under the MPI launcher, -np ranks) and
// `bin/h5proxy h5perf` (which launches itself) with the same h5perf arguments, interleaved
// (real, h5proxy, real, ...), parses each report's Average Throughput lines per transfer
// size, API and operation (Write, Write Open-Close, Read, Read Open-Close) and prints the
// medians with their [min–max] over the repetitions and the ratio h5proxy / real.
//
// -study runs only h5proxy: every API at every transfer size, for each of independent and
// collective (-C), contiguous and interleaved (-I) access, the modes interleaved per
// repetition, and prints one markdown table of the median Write and Read rates (MiB/s)
// with HDF5's rate over MPI-IO's. (Not an `h5proxy sweep`: the API and its layout change
// together, and h5perf runs every API and size in one process, which its buffer reuse
// depends on.)
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/internal/warm"
)

// ops are the operations of an API's block in h5perf's report, in its order.
var ops = []string{"Write", "Write Open-Close", "Read", "Read Open-Close"}

// apis are the report's API labels, in h5perf's order.
var apis = []string{"POSIX", "MPIO", "PHDF5"}

// key names one rate of a report: transfer size, API and operation.
type key struct {
	xfer    int64
	api, op string
}

// report is one run's Average Throughput rates (MiB/s) and the keys in report order.
type report struct {
	rates map[key]float64
	order []key
}

var (
	xferRe = regexp.MustCompile(`^Transfer Buffer Size: (\d+) bytes`)
	apiRe  = regexp.MustCompile(`^IO API = (\S+)`)
	opRe   = regexp.MustCompile(`^(Write|Write Open-Close|Read|Read Open-Close) \(\d+ iteration\(s\)\):$`)
	avgRe  = regexp.MustCompile(`^Average Throughput:\s*([0-9.]+) MB/s$`)
)

// parse reads an h5perf report (the real program's or h5proxy's; "rank 0: " prefixes and
// other lines are skipped) and returns its average rates.
func parse(out []byte) (report, error) {
	r := report{rates: map[key]float64{}}
	var k key
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		switch {
		case xferRe.MatchString(l):
			n, _ := strconv.ParseInt(xferRe.FindStringSubmatch(l)[1], 10, 64)
			k = key{xfer: n}
		case apiRe.MatchString(l):
			k.api, k.op = apiRe.FindStringSubmatch(l)[1], ""
		case opRe.MatchString(l):
			k.op = opRe.FindStringSubmatch(l)[1]
		case avgRe.MatchString(l):
			if k.xfer == 0 || k.api == "" || k.op == "" {
				return r, fmt.Errorf("average throughput outside a size, API and operation block: %q", l)
			}
			v, err := strconv.ParseFloat(avgRe.FindStringSubmatch(l)[1], 64)
			if err != nil {
				return r, err
			}
			if _, dup := r.rates[k]; dup {
				return r, fmt.Errorf("two average rates for %d bytes %s %s", k.xfer, k.api, k.op)
			}
			r.rates[k] = v
			r.order = append(r.order, k)
			k.op = ""
		}
	}
	if len(r.rates) == 0 {
		return r, fmt.Errorf("no Average Throughput lines in the output:\n%s", out)
	}
	return r, sc.Err()
}

// stats are the median, minimum and maximum of a key's rates over reports (NaN-free:
// reports missing the key are skipped); n is how many had it.
func stats(rs []report, k key) (med, lo, hi float64, n int) {
	var v []float64
	for _, r := range rs {
		if x, ok := r.rates[k]; ok {
			v = append(v, x)
		}
	}
	med, lo, hi = benchstat.Summary(v)
	return med, lo, hi, len(v)
}

// execute runs argv (under the MPI launcher with np ranks when np > 0) in dir and parses
// its report.
func execute(np int, dir string, argv ...string) (report, error) {
	out, _, err := benchmain.Launched(np, dir, nil, argv...)
	if err != nil {
		return report{}, err
	}
	return parse(out)
}

func main() {
	real := flag.String("h5perf", "/tmp/h5perf-real/h5perf", "the real h5perf (bench/h5perf/build-real.sh builds it)")
	bin := flag.String("bin", "bin/h5proxy", "the h5proxy binary")
	args := flag.String("args", "-e 32M -x 4M -X 4M -B 1M -i 3 -P 2 -p 2", "h5perf arguments, the same for both")
	np := benchmain.NP(2, "ranks of the real h5perf's job (h5proxy launches -P..-p itself)")
	reps := benchmain.Reps(7, "runs of each, interleaved")
	study := flag.Bool("study", false, "run the HDF5 vs MPI-IO vs POSIX study (h5proxy only) instead of the comparison")
	studyArgs := flag.String("study-args", "-e 16M -x 64K -X 4M -B 64K -i 3 -P 2 -p 2", "h5perf arguments of the study, without -C and -I")
	dir := flag.String("dir", os.TempDir(), "working directory of the runs (their data files go there)")
	benchmain.WarmBytes(&warmBytes, 1<<30)
	benchmain.AA(&aa, "the real h5perf on both sides (its h5proxy column is a second real h5perf)")
	flag.Parse()
	b, err := exec.LookPath(*bin)
	if err == nil && !strings.Contains(b, "/") {
		b = "./" + b
	}
	if err == nil {
		b, err = absolute(b)
	}
	if err == nil && *study {
		err = runStudy(b, *dir, strings.Fields(*studyArgs), *reps)
	} else if err == nil {
		err = compare(*real, b, *dir, strings.Fields(*args), *np, *reps)
	}
	benchmain.Exit("h5perf bench", 1, err)
}

// absolute makes a binary's path usable from the runs' working directory.
func absolute(p string) (string, error) {
	if strings.HasPrefix(p, "/") {
		return p, nil
	}
	wd, err := os.Getwd()
	return wd + "/" + strings.TrimPrefix(p, "./"), err
}

// warmBytes is how much memory is touched before each run (-warm).
var warmBytes int

// aa runs the real h5perf on both sides (-aa).
var aa bool

// compare runs the real and h5proxy's h5perf interleaved and prints the table.
func compare(real, bin, dir string, args []string, np, reps int) error {
	var rs, ps []report
	for i := 0; i < reps; i++ {
		if err := warm.Memory(warmBytes); err != nil {
			return err
		}
		r, err := execute(np, dir, append([]string{real}, args...)...)
		if err != nil {
			return err
		}
		if err := warm.Memory(warmBytes); err != nil {
			return err
		}
		second, procs := append([]string{bin, "h5perf"}, args...), 0
		if aa {
			second, procs = append([]string{real}, args...), np
		}
		p, err := execute(procs, dir, second...)
		if err != nil {
			return err
		}
		rs, ps = append(rs, r), append(ps, p)
		fmt.Fprintf(os.Stderr, "pair %d/%d done\n", i+1, reps)
	}
	if aa {
		fmt.Println("A/A check: the h5proxy column is a second real h5perf")
	}
	fmt.Printf("h5perf %s, %d interleaved pairs, medians of the average throughputs, MiB/s [min–max], h5proxy / real:\n\n", strings.Join(args, " "), reps)
	fmt.Println("| transfer | API | operation | real h5perf | h5proxy | ratio |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, k := range rs[0].order {
		rm, rl, rh, _ := stats(rs, k)
		pm, pl, ph, n := stats(ps, k)
		if n == 0 {
			return fmt.Errorf("h5proxy's report has no %d bytes %s %s rate", k.xfer, k.api, k.op)
		}
		fmt.Printf("| %s | %s | %s | %.0f [%.0f–%.0f] | %.0f [%.0f–%.0f] | %.2f |\n", size(k.xfer), k.api, k.op, rm, rl, rh, pm, pl, ph, pm/rm)
	}
	return nil
}

// studyModes are the study's access modes: h5perf's -C and -I.
var studyModes = []struct{ name, flags string }{
	{"independent contiguous", ""}, {"collective contiguous", "-C"},
	{"independent interleaved", "-I"}, {"collective interleaved", "-C -I"},
}

// runStudy runs h5proxy's h5perf in every mode, the modes interleaved per repetition, and
// prints one markdown table: a row per transfer size and mode, Write and Read per API.
func runStudy(bin, dir string, args []string, reps int) error {
	res := make([][]report, len(studyModes))
	for i := 0; i < reps; i++ {
		for m, mode := range studyModes {
			if err := warm.Memory(warmBytes); err != nil {
				return err
			}
			r, err := execute(0, dir, append(append([]string{bin, "h5perf"}, args...), strings.Fields(mode.flags)...)...)
			if err != nil {
				return err
			}
			res[m] = append(res[m], r)
		}
		fmt.Fprintf(os.Stderr, "repetition %d/%d done\n", i+1, reps)
	}
	var sizes []int64
	for _, k := range res[0][0].order {
		if !slices.Contains(sizes, k.xfer) {
			sizes = append(sizes, k.xfer)
		}
	}
	fmt.Printf("`h5proxy h5perf %s` with -C / -I, %d repetitions, medians of the average throughputs, MiB/s (Write / Read):\n\n", strings.Join(args, " "), reps)
	fmt.Println("| transfer | mode | POSIX write | POSIX read | MPIO write | MPIO read | PHDF5 write | PHDF5 read | PHDF5/MPIO write | PHDF5/MPIO read |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, x := range sizes {
		for m, mode := range studyModes {
			row := fmt.Sprintf("| %s | %s |", size(x), mode.name)
			for _, api := range apis {
				for _, op := range []string{"Write", "Read"} {
					med, _, _, n := stats(res[m], key{x, api, op})
					cell := " – |"
					if n > 0 {
						cell = fmt.Sprintf(" %.0f |", med)
					}
					row += cell
				}
			}
			for _, op := range []string{"Write", "Read"} {
				h, _, _, nh := stats(res[m], key{x, "PHDF5", op})
				p, _, _, np := stats(res[m], key{x, "MPIO", op})
				cell := " – |"
				if nh > 0 && np > 0 && p > 0 {
					cell = fmt.Sprintf(" %.2f |", h/p)
				}
				row += cell
			}
			fmt.Println(row)
		}
	}
	return nil
}

// size prints a byte count as h5perf's options write it (K, M).
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dK", n>>10)
	}
	return strconv.FormatInt(n, 10)
}
