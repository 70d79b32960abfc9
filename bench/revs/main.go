// Command revs measures two revisions of h5proxy side by side: it builds the h5proxy
// command of a base revision (in a temporary git worktree) and of the working tree, then
// runs each configuration with both, interleaved (base, tree, tree, base, ...), and prints
// per phase the medians and min-max of observed and raw time and the ratio tree/base.
// Used to show that a change (a refactoring) leaves the measured cost unchanged.
//
//	go run ./bench/revs -base 8be606c -reps 7 samples/sync-write-read-1d-contig.json
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/internal/warm"
)

func main() {
	base := flag.String("base", "", "base revision (required), e.g. a commit before the change")
	reps := benchmain.Reps(7, "runs of each configuration per revision")
	var warmBytes int
	benchmain.WarmBytes(&warmBytes, 512<<20)
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go run ./bench/revs -base REV [-reps N] CONFIG.json...\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *base == "" || flag.NArg() == 0 || *reps < 1 {
		flag.Usage()
		os.Exit(2)
	}
	tmp, done, err := benchmain.TempDir("revs", "")
	check(err)
	defer done()
	bins := map[string]string{"base": filepath.Join(tmp, "h5proxy-base"), "tree": filepath.Join(tmp, "h5proxy-tree")}
	wt := filepath.Join(tmp, "base")
	run(".", "git", "worktree", "add", "--detach", "-f", wt, *base)
	defer run(".", "git", "worktree", "remove", "--force", wt)
	run(wt, "go", "build", "-o", bins["base"], "./cmd/h5proxy")
	run(".", "go", "build", "-o", bins["tree"], "./cmd/h5proxy")
	for _, cfg := range flag.Args() {
		times := map[string]map[string][][2]float64{"base": {}, "tree": {}}
		var order []string
		for r := 0; r < *reps; r++ {
			pair := []string{"base", "tree"}
			if r%2 == 1 {
				pair = []string{"tree", "base"}
			}
			for _, which := range pair {
				check(warm.Memory(warmBytes))
				out := filepath.Join(tmp, "report.json")
				run(".", bins[which], "run", "-quiet", "--report", out, cfg)
				for i, f := range reportFiles(out) {
					rep, err := benchmain.ReadReport(f)
					check(err)
					os.Remove(f)
					for _, p := range rep.Phases {
						key := fmt.Sprintf("benchmark %d %s", i, p.Phase)
						if _, ok := times[which][key]; !ok && which == "base" {
							order = append(order, key)
						}
						times[which][key] = append(times[which][key], [2]float64{p.ObservedTime, p.RawTime.Max})
					}
				}
			}
		}
		fmt.Printf("%s (%d runs each, interleaved)\n", cfg, *reps)
		fmt.Printf("  %-22s %-9s %-22s %-22s %s\n", "phase", "revision", "observed s med [min-max]", "raw s med [min-max]", "tree/base obs raw")
		for _, key := range order {
			var med [2][2]float64
			for i, which := range []string{"base", "tree"} {
				mo, lo, ho := benchstat.Summary(benchstat.Of(times[which][key], func(t [2]float64) float64 { return t[0] }))
				mr, lr, hr := benchstat.Summary(benchstat.Of(times[which][key], func(t [2]float64) float64 { return t[1] }))
				med[i] = [2]float64{mo, mr}
				fmt.Printf("  %-22s %-9s %6.3f [%6.3f-%6.3f]  %6.3f [%6.3f-%6.3f]", key, which, mo, lo, ho, mr, lr, hr)
				if i == 1 {
					fmt.Printf("  %.3f %.3f", med[1][0]/med[0][0], med[1][1]/med[0][1])
				}
				fmt.Println()
			}
		}
	}
}

// reportFiles lists the reports one run wrote: out, or out.0, out.1, ... for several
// benchmarks.
func reportFiles(out string) []string {
	if _, err := os.Stat(out); err == nil {
		return []string{out}
	}
	m, _ := filepath.Glob(out + ".*")
	sort.Strings(m)
	if len(m) == 0 {
		check(fmt.Errorf("no report %s written", out))
	}
	return m
}

func run(dir, name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	if out, err := cmd.Output(); err != nil {
		check(fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out))
	}
}

func check(err error) { benchmain.Check("revs", 1, err) }
