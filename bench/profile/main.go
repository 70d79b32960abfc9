// Command profile measures libh5proxy-profile.so's overhead (issue 25: at most 1 µs per
// intercepted call, at most 2 % of a VPIC run):
//
//   - per call: loop/loop.c makes -calls pwrite (1 byte) or H5Dwrite (1 int) calls in a
//     tight loop, with and without the library, -reps times interleaved; the cost per call
//     is the difference of the medians divided by the calls. With -callgrind it counts
//     instructions instead (valgrind --tool=callgrind, exact on a loaded machine): the
//     instructions per call the library adds.
//
//   - per run: `h5proxy run` of a VPIC write configuration (-config) with and without the
//     library, interleaved; the ratio of the medians with the spreads.
//
//     make build && go run ./bench/profile -reps 9                    # both, on a quiet machine
//     go run ./bench/profile -callgrind -calls 20000                  # instructions per call
//     go run ./bench/profile -skip-vpic -reps 3 -calls 100000         # a quick check
package main

import (
	"bytes"
	"flag"
	"fmt"
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
)

func main() {
	reps := benchmain.Reps(7, "repetitions of each measurement, interleaved with and without the library")
	calls := flag.Int("calls", 200000, "calls per tight loop")
	lib := flag.String("lib", "bin/libh5proxy-profile.so", "the profiler (make build puts it in bin/)")
	h5proxy := flag.String("h5proxy", "bin/h5proxy", "the h5proxy command (VPIC runs)")
	config := flag.String("config", "samples/native-vpic.json", "the VPIC configuration `h5proxy run` runs")
	np := benchmain.NP(2, "ranks of the VPIC runs")
	cg := flag.Bool("callgrind", false, "count instructions per call with valgrind --tool=callgrind instead of timing the loops")
	skipVPIC := flag.Bool("skip-vpic", false, "measure the per-call cost only")
	flag.Parse()
	benchmain.Exit("bench/profile", 1, run(*reps, *calls, *lib, *h5proxy, *config, *np, *cg, *skipVPIC))
}

func run(reps, calls int, lib, h5proxy, config string, np int, cg, skipVPIC bool) error {
	lib, err := filepath.Abs(lib)
	if err != nil {
		return err
	}
	if _, err := os.Stat(lib); err != nil {
		return fmt.Errorf("%s: %w (make build)", lib, err)
	}
	dir, err := os.MkdirTemp("", "h5proxy-bench-profile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	loop := filepath.Join(dir, "loop")
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "hdf5-openmpi").Output()
	if err != nil {
		return fmt.Errorf("pkg-config hdf5-openmpi: %w", err)
	}
	cc := exec.Command("mpicc", append([]string{"-O2", "-o", loop, "bench/profile/loop/loop.c"}, strings.Fields(string(flags))...)...)
	if out, err := cc.CombinedOutput(); err != nil {
		return fmt.Errorf("mpicc: %v\n%s", err, out)
	}
	records := filepath.Join(dir, "records")
	if err := os.Mkdir(records, 0o755); err != nil {
		return err
	}
	with := []string{"LD_PRELOAD=" + lib, "H5PROXY_PROFILE_DIR=" + records}
	for _, kind := range []string{"pwrite", "h5dwrite"} {
		if cg {
			per, err := instructionsPerCall(loop, kind, calls, dir, with)
			if err != nil {
				return err
			}
			fmt.Printf("%-8s %.0f instructions added per call (callgrind, %d calls)\n", kind, per, calls)
			continue
		}
		base, prof, err := interleaved(reps, with, func(env []string) *exec.Cmd {
			cmd := exec.Command(loop, kind, strconv.Itoa(calls), dir)
			cmd.Env = append(os.Environ(), env...)
			return cmd
		})
		if err != nil {
			return err
		}
		bm, blo, bhi := benchstat.Summary(base)
		pm, plo, phi := benchstat.Summary(prof)
		fmt.Printf("%-8s %d calls: without %.4f s (%.4f-%.4f), with %.4f s (%.4f-%.4f): %.3f µs per call\n",
			kind, calls, bm, blo, bhi, pm, plo, phi, (pm-bm)/float64(calls)*1e6)
	}
	if skipVPIC || cg {
		return nil
	}
	argv, lenv, err := launch.Launcher(np)
	if err != nil {
		return err
	}
	base, prof, err := interleaved(reps, with, func(env []string) *exec.Cmd {
		a := append([]string{}, argv...)
		for _, e := range env {
			a = append(a, "-x", e)
		}
		a = append(a, h5proxy, "run", "-quiet", "-dir", dir, "-report", filepath.Join(dir, "report.json"), config)
		cmd := exec.Command(a[0], a[1:]...)
		cmd.Env = append(os.Environ(), lenv...)
		return cmd
	})
	if err != nil {
		return err
	}
	bm, blo, bhi := benchstat.Summary(base)
	pm, plo, phi := benchstat.Summary(prof)
	fmt.Printf("VPIC (%s, %d ranks): without %.3f s (%.3f-%.3f), with %.3f s (%.3f-%.3f): overhead %+.2f %% (budget 2 %%)\n",
		config, np, bm, blo, bhi, pm, plo, phi, (pm/bm-1)*100)
	return nil
}

// interleaved runs the command reps times without and with the library (env with),
// alternating, and returns the wall-clock seconds of each side.
func interleaved(reps int, with []string, command func(env []string) *exec.Cmd) (base, prof []float64, err error) {
	for i := 0; i < reps; i++ {
		for _, env := range [][]string{nil, with} {
			cmd := command(env)
			t := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				return nil, nil, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
			}
			if s := time.Since(t).Seconds(); env == nil {
				base = append(base, s)
			} else {
				prof = append(prof, s)
			}
		}
	}
	return base, prof, nil
}

var irefs = regexp.MustCompile(`(?m)^summary:\s+(\d+)`)

// instructionsPerCall counts the program's instructions (callgrind) at calls and 2×calls,
// with and without the library: the difference of the increments is what the library adds
// to each call, free of start-up and exit costs.
func instructionsPerCall(loop, kind string, calls int, dir string, with []string) (float64, error) {
	count := func(n int, env []string) (float64, error) {
		out := filepath.Join(dir, "callgrind.out")
		cmd := exec.Command("valgrind", "--tool=callgrind", "--callgrind-out-file="+out, loop, kind, strconv.Itoa(n), dir)
		cmd.Env = append(os.Environ(), env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("valgrind: %v\n%s", err, stderr.String())
		}
		b, err := os.ReadFile(out)
		if err != nil {
			return 0, err
		}
		m := irefs.FindSubmatch(b)
		if m == nil {
			return 0, fmt.Errorf("%s: no summary line", out)
		}
		return strconv.ParseFloat(string(m[1]), 64)
	}
	var v [4]float64
	for i, c := range []struct {
		n   int
		env []string
	}{{calls, nil}, {2 * calls, nil}, {calls, with}, {2 * calls, with}} {
		x, err := count(c.n, c.env)
		if err != nil {
			return 0, err
		}
		v[i] = x
	}
	return ((v[3] - v[2]) - (v[1] - v[0])) / float64(calls), nil
}
