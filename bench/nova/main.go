// Command nova measures the NOvA concatenation (issue 15): it generates a NOvA-like input
// set once with the nova pattern's write phase (`h5proxy run`), then times concatenations
// of it run by run, the variants of a comparison interleaved (A B A B ...), each under the
// MPI launcher, deleting the output after each run, and prints per variant the medians of
// the paper's time breakdown (metadata read, dataset create, data read, write, close,
// total) with the total's spread, the job's CPU time and the output's size, and the ratio
// of the medians of the totals.
//
//	make build && go run ./bench/nova -reps 7            # or: make bench
//	go run ./bench/nova -study -reps 5 -files 32         # the study of docs/nova.md
//	go run ./bench/nova -tool                            # time `h5proxy concat` instead
//
// The bench compares (issue 15's acceptance): 1 rank against 2 ranks with HDF5's
// defaults, then, at -np ranks, HDF5's defaults against the tuned settings (compact
// zero-size datasets, fixed 128 MiB metadata cache, inputs read through the core driver).
// -study instead varies one tuning key at a time from the defaults (chunk, deflate,
// create, empty_layout, mdc, meta_block, input_driver, partition, fill_time).
//
// By default the concatenation is the nova pattern's read phase (`h5proxy run` of a
// configuration with phases ["read"], its report's breakdown lines); with -tool it is
// `h5proxy concat` with the same settings as flags (its -json breakdown).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/patterns/nova"
)

// parts are the breakdown's columns: the pattern report's line names and the tool's
// JSON keys.
var parts = []struct{ label, line, key string }{
	{"metadata read", "concat-metadata-read", "metadata_read_s"},
	{"dataset create", "concat-dataset-create", "create_s"},
	{"data read", "concat-data-read", "data_read_s"},
	{"write", "concat-write", "write_s"},
	{"close", "concat-close", "close_s"},
	{"total", "concat-total", "total_s"},
}

// sample is one run's breakdown, in the order of parts, then the output file's size in
// bytes (deterministic, unlike the times on a loaded machine) and the CPU time of the
// whole job (user + system of the launcher and the ranks: the work done, less sensitive
// than the times to other jobs on the machine).
type sample []float64

// Indices of the extra columns of a sample.
var (
	sizeCol = len(parts)
	cpuCol  = len(parts) + 1
)

func (s sample) total() float64 { return s[len(parts)-1] }

// variant is one configuration of a comparison: ranks and tuning keys.
type variant struct {
	name  string
	ranks int
	tune  map[string]string
}

type bench struct {
	bin, dir string
	tool     bool
	scale    map[string]string
	inputs   string // the list of inputs, for the tool
	files    int
}

func main() {
	np := benchmain.NP(2, "ranks of the tuned comparison and of the study")
	reps := benchmain.Reps(7, "runs of each variant (interleaved)")
	bin := flag.String("bin", "bin", "directory holding h5proxy (make build)")
	dir := benchmain.Dir()
	tool := flag.Bool("tool", false, "time `h5proxy concat` instead of the nova pattern's concatenation phase")
	study := flag.Bool("study", false, "vary each tuning key in turn from the defaults instead of the acceptance comparisons")
	files := flag.Int("files", 64, "input files")
	groups := flag.Int("groups", 200, "groups per file")
	perGroup := flag.Int("datasets", 20, "datasets per group")
	empty := flag.Float64("empty", 0.8, "fraction of empty datasets")
	rows := flag.Int("rows", 200, "mean rows of a non-empty table per file")
	flag.Parse()
	b := &bench{bin: *bin, dir: *dir, tool: *tool, files: *files, scale: map[string]string{
		"files": fmt.Sprint(*files), "groups": fmt.Sprint(*groups), "datasets_per_group": fmt.Sprint(*perGroup),
		"empty_fraction": fmt.Sprint(*empty), "rows_mean": fmt.Sprint(*rows)}}
	benchmain.Exit("nova", 1, b.run(*np, *reps, *study))
}

func (b *bench) run(np, reps int, study bool) error {
	dir, done, err := benchmain.TempDir("bench-nova", b.dir)
	if err != nil {
		return err
	}
	defer done()
	b.dir = dir
	if err := b.generate(np); err != nil {
		return err
	}
	tuned := map[string]string{"empty_layout": "compact", "mdc": "fixed", "input_driver": "core"}
	if !study {
		one, two := b.compare(reps, variant{"1 rank", 1, nil}, variant{fmt.Sprintf("%d ranks", np), np, nil})
		b.verdict(fmt.Sprintf("%d ranks vs 1 rank (defaults): speedup", np), one, two, 1.6)
		def, tun := b.compare(reps, variant{"defaults", np, nil}, variant{"tuned", np, tuned})
		b.verdict(fmt.Sprintf("tuned vs defaults at %d ranks: speedup", np), def, tun, 1)
		return nil
	}
	for _, k := range []struct {
		key    string
		values []string
	}{
		{"chunk", []string{"0", "65536", "1048576", "16777216"}},
		{"deflate", []string{"-1", "1", "0"}},
		{"create", []string{"collective", "rank0"}},
		{"empty_layout", []string{"contiguous", "chunked", "compact"}},
		{"mdc", []string{"auto", "fixed"}},
		{"meta_block", []string{"0", "1048576"}},
		{"input_driver", []string{"sec2", "core"}},
		{"partition", []string{"file", "dataset"}},
		{"fill_time", []string{"ifset", "never", "alloc"}},
	} {
		var vs []variant
		for _, v := range k.values {
			vs = append(vs, variant{k.key + "=" + v, np, map[string]string{k.key: v}})
		}
		b.compare(reps, vs...)
	}
	return nil
}

// generate writes the inputs with the nova pattern's write phase.
func (b *bench) generate(np int) error {
	opts := map[string]any{}
	for k, v := range b.scale {
		opts[k] = v
	}
	cfg, err := b.config("generate", []string{"write"}, opts)
	if err != nil {
		return err
	}
	if _, _, err := b.execute(np, []string{filepath.Join(b.bin, "h5proxy"), "run", "-quiet", cfg}); err != nil {
		return fmt.Errorf("generating the inputs: %w", err)
	}
	list := strings.Join(nova.Config{Files: b.files}.Inputs(filepath.Join(b.dir, "in")), "\n") + "\n"
	b.inputs = filepath.Join(b.dir, "inputs.txt")
	fmt.Printf("inputs: %s files in %s (groups %s x datasets %s, empty %s, rows mean %s)\n", b.scale["files"],
		filepath.Join(b.dir, "in"), b.scale["groups"], b.scale["datasets_per_group"], b.scale["empty_fraction"], b.scale["rows_mean"])
	return os.WriteFile(b.inputs, []byte(list), 0o644)
}

// config writes a nova configuration for the input directory and returns its path.
func (b *bench) config(name string, phases []string, opts map[string]any) (string, error) {
	doc := map[string]any{"pattern": "nova", "phases": phases, "options": opts,
		"session": map[string]any{"file": filepath.Join(b.dir, "in"), "verify": "no"}}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(b.dir, name+".json")
	return path, os.WriteFile(path, data, 0o644)
}

// execute runs argv under the MPI launcher with np ranks and returns its output and the
// CPU seconds of the job (the launcher's and its waited-for descendants'); a failure names
// the command line and holds the output (benchmain.Launched).
func (b *bench) execute(np int, argv []string) ([]byte, float64, error) {
	out, st, err := benchmain.Launched(np, "", nil, argv...)
	var cpu float64
	if st != nil {
		cpu = (st.UserTime() + st.SystemTime()).Seconds()
	}
	return out, cpu, err
}

// once runs one concatenation of variant v and returns its breakdown.
func (b *bench) once(v variant, i int) (sample, error) {
	out := filepath.Join(b.dir, "in", "concat.h5")
	report := filepath.Join(b.dir, fmt.Sprintf("report-%d.json", i))
	defer os.Remove(out)
	defer os.Remove(report)
	var argv []string
	if b.tool {
		argv = []string{filepath.Join(b.bin, "h5proxy"), "concat", "-quiet", "-f", "-o", out, "-inputs", b.inputs, "-json", report}
		for k, val := range v.tune {
			argv = append(argv, "-"+strings.ReplaceAll(k, "_", "-")+"="+val)
		}
	} else {
		opts := map[string]any{"output": "concat.h5"}
		for k, val := range b.scale {
			opts[k] = val
		}
		for k, val := range v.tune {
			opts[k] = val
		}
		cfg, err := b.config("concat", []string{"read"}, opts)
		if err != nil {
			return nil, err
		}
		argv = []string{filepath.Join(b.bin, "h5proxy"), "run", "-quiet", "-report", report, cfg}
	}
	_, cpu, err := b.execute(v.ranks, argv)
	if err != nil {
		return nil, err // names the command line and holds its output
	}
	data, err := os.ReadFile(report)
	if err != nil {
		return nil, err
	}
	smp, err := b.parse(data)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(out)
	if err != nil {
		return nil, err
	}
	return append(smp, float64(st.Size()), cpu), nil
}

// parse reads the breakdown from the pattern's JSON report or the tool's JSON.
func (b *bench) parse(data []byte) (sample, error) {
	s := make(sample, len(parts))
	if b.tool {
		var m map[string]any // the times and counts are numbers, "options" an object
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, err
		}
		for i, p := range parts {
			v, ok := m[p.key].(float64)
			if !ok {
				return nil, fmt.Errorf("tool JSON lacks %s", p.key)
			}
			s[i] = v
		}
		return s, nil
	}
	var rep struct {
		Phases []struct {
			Kernel []struct {
				Name  string  `json:"name"`
				Value float64 `json:"value"`
			} `json:"kernel"`
		} `json:"phases"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, err
	}
	if len(rep.Phases) == 0 {
		return nil, fmt.Errorf("report without phases")
	}
	found := 0
	for _, l := range rep.Phases[len(rep.Phases)-1].Kernel {
		for i, p := range parts {
			if l.Name == p.line {
				s[i] = l.Value
				found++
			}
		}
	}
	if found != len(parts) {
		return nil, fmt.Errorf("report has %d of the %d breakdown lines", found, len(parts))
	}
	return s, nil
}

// compare runs the variants interleaved reps times and prints their medians; it returns
// every variant's samples (a failed run stops the comparison with its error printed).
func (b *bench) compare(reps int, vs ...variant) (first, second []sample) {
	runs := make([][]sample, len(vs))
	for r := 0; r < reps; r++ {
		for i, v := range vs {
			s, err := b.once(v, r)
			if err != nil {
				fmt.Fprintf(os.Stderr, "nova: %s run %d: %v\n", v.name, r, err)
				return nil, nil
			}
			runs[i] = append(runs[i], s)
		}
	}
	what := "pattern"
	if b.tool {
		what = "h5proxy concat"
	}
	fmt.Printf("\n%s, medians of %d interleaved runs (s; total min-max):\n", what, reps)
	fmt.Printf("  %-26s", "variant")
	for _, p := range parts {
		fmt.Printf(" %14s", p.label)
	}
	fmt.Println("  total spread   job CPU  output MiB")
	for i, v := range vs {
		fmt.Printf("  %-26s", v.name)
		for j := range parts {
			fmt.Printf(" %14.3f", benchstat.Median(benchstat.Of(runs[i], func(s sample) float64 { return s[j] })))
		}
		_, lo, hi := benchstat.Summary(benchstat.Of(runs[i], sample.total))
		fmt.Printf("  %6.3f-%-6.3f %8.2f %11.2f\n", lo, hi, benchstat.Median(benchstat.Of(runs[i], func(s sample) float64 { return s[cpuCol] })), runs[i][0][sizeCol]/(1<<20))
	}
	if len(vs) >= 2 {
		return runs[0], runs[1]
	}
	return runs[0], nil
}

// verdict prints the ratio of the medians of the totals (a over b) and the median of the
// paired ratios, against the goal.
func (b *bench) verdict(what string, a, c []sample, goal float64) {
	if len(a) == 0 || len(c) == 0 {
		fmt.Printf("%s: no measurement\n", what)
		return
	}
	ratio := benchstat.Median(benchstat.Of(a, sample.total)) / benchstat.Median(benchstat.Of(c, sample.total))
	var paired []float64
	for i := range min(len(a), len(c)) {
		paired = append(paired, a[i].total()/c[i].total())
	}
	status := "met"
	if ratio < goal || (goal == 1 && ratio <= 1) {
		status = "MISSED"
	}
	fmt.Printf("%s %.2fx (median of paired ratios %.2fx); goal %s %.1fx: %s\n", what, ratio, benchstat.Median(paired),
		map[bool]string{true: ">", false: ">="}[goal == 1], goal, status)
}
