// Command appcost measures what running a description costs against the built-in pattern
// it re-expresses: VPIC-IO's 1-D write (pattern vpic: 8 variables per particle, one
// Timestep_<i> group per step, independent transfers) and the same I/O described in YAML
// (pattern app), each run by `h5proxy run` on -np ranks, interleaved with a second vpic
// run as the A/A control. It prints the medians of each write phase's observed time and
// the ratios app/vpic and vpic/vpic (the A/A band the app ratio should fall inside), and
// the planning cost of one rank of each (CPU only).
//
//	make build && go run ./bench/appcost [-np 4] [-reps 7] [-particles 1048576] [-steps 5]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/proxy"
)

// description is VPIC-IO's 1-D contiguous write as a description (the datasets in the
// order VPIC-IO creates them).
const description = `name: vpic-1d
params: {particles: 1Mi, steps: 5}
steps: steps
files:
  out:
    name: vpic.h5
    groups:
      Timestep_${step}:
        datasets:
          [x, y, z, id1, id2, px, py, pz]: {type: f32, shape: [particles * nranks]}
timeline:
  - write: out
    collective: false
`

type variant struct {
	name string
	args []string
}

func main() {
	np := flag.Int("np", 4, "ranks of every run")
	reps := flag.Int("reps", 7, "runs of each variant (interleaved)")
	bin := flag.String("bin", "bin/h5proxy", "the h5proxy binary (make build)")
	particles := flag.Int("particles", 1<<20, "particles per rank")
	steps := flag.Int("steps", 5, "timesteps")
	flag.Parse()
	if err := run(*bin, *np, *reps, *particles, *steps); err != nil {
		fmt.Fprintln(os.Stderr, "appcost:", err)
		os.Exit(1)
	}
}

func run(bin string, np, reps, n, steps int) error {
	dir, err := os.MkdirTemp("", "h5proxy-appcost-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	desc := filepath.Join(dir, "vpic-1d.yaml")
	if err := os.WriteFile(desc, []byte(description), 0o644); err != nil {
		return err
	}
	if n < 1 || steps < 1 {
		return fmt.Errorf("-particles %d -steps %d: want at least 1 each", n, steps)
	}
	particles := fmt.Sprint(n)
	cfg := filepath.Join(dir, "vpic.json")
	native := map[string]any{"pattern": "vpic", "phases": []string{"write"}, "session": map[string]any{"file": "vpic.h5"},
		"options": map[string]any{"DIM_1": fmt.Sprint(n), "TIMESTEPS": fmt.Sprint(steps)}}
	b, err := json.Marshal(native)
	if err != nil {
		return err
	}
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		return err
	}
	vs := []variant{
		{"vpic", []string{cfg}},
		{"app", []string{desc, "particles=" + particles, fmt.Sprintf("steps=%d", steps)}},
		{"vpic (A/A)", []string{cfg}},
	}
	times := make([][]float64, len(vs))
	for r := 0; r < reps; r++ {
		for k := range vs {
			i := (k + r) % len(vs) // rotate the order: no variant always runs first
			t, err := observed(bin, np, dir, fmt.Sprintf("%d-%d", r, i), vs[i].args)
			if err != nil {
				return fmt.Errorf("%s: %w", vs[i].name, err)
			}
			times[i] = append(times[i], t)
		}
	}
	fmt.Printf("write phase observed time, %d ranks, %s particles per rank, %d steps, %d runs each (interleaved), s:\n\n", np, particles, steps, reps)
	fmt.Println("| variant | median | min | max |")
	fmt.Println("|---|---|---|---|")
	med := make([]float64, len(vs))
	for i, v := range vs {
		m, lo, hi := benchstat.Summary(times[i])
		med[i] = m
		fmt.Printf("| %s | %.3f | %.3f | %.3f |\n", v.name, m, lo, hi)
	}
	fmt.Printf("\napp / vpic: %.3f; A/A band (vpic / vpic): %.3f\n", med[1]/med[0], med[2]/med[0])
	for _, v := range []struct{ name, args string }{{"vpic", "vpic DIM_1=" + fmt.Sprint(n) + fmt.Sprintf(" TIMESTEPS=%d", steps)}, {"app", desc + " particles=" + particles + fmt.Sprintf(" steps=%d", steps)}} {
		out, err := exec.Command(bin, append([]string{"plan", "-stats", "-size", "65536", "-rank", "65535"}, strings.Fields(v.args)...)...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("plan %s: %v\n%s", v.name, err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		fmt.Printf("plan of rank 65535 of 65536, %s: %s\n", v.name, lines[len(lines)-1])
	}
	return nil
}

// observed runs one variant and returns its write phase's observed time.
func observed(bin string, np int, dir, tag string, args []string) (float64, error) {
	report := filepath.Join(dir, "report-"+tag+".json")
	data := filepath.Join(dir, "data-"+tag)
	cmd := exec.Command(bin, append([]string{"run", "-quiet", "-np", fmt.Sprint(np), "-report", report, "-dir", data}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("%v\n%s", err, out)
	}
	defer os.RemoveAll(data)
	b, err := os.ReadFile(report)
	if err != nil {
		return 0, err
	}
	var rep proxy.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return 0, err
	}
	for _, p := range rep.Phases {
		if p.Phase == "write" {
			return p.ObservedTime, nil
		}
	}
	return 0, fmt.Errorf("no write phase in %s", report)
}
