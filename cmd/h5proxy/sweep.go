package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/internal/sweep"
	"github.com/h5proxy/h5proxy/options"
)

// defaultMetric is what a sweep plots unless told: the write phase's observed rate,
// h5bench's headline figure.
const defaultMetric = "write.observed_rate"

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sweep", "sweep [flags] CONFIG.json KEY=v1,v2,... [KEY=...]", stderr)
	reps := fs.Int("reps", 3, "repetitions of every grid point (interleaved: A B C A B C ...)")
	out := fs.String("out", "sweep-out", "directory of sweep.csv, sweep.json, the plots and each run's report and log")
	metric := fs.String("metric", defaultMetric, "metric to plot (a column of sweep.csv, e.g. write.raw_rate, read.observed_time); by default the first phase's observed rate when there is no write phase")
	x := fs.String("x", "", "swept key on the x axis (default: the first)")
	by := fs.String("by", "", "swept key drawn as one line per value (default: the next key with several values, if any)")
	np := fs.Int("np", 0, "number of ranks of every run (default: the configuration's)")
	keep := fs.Bool("keep", false, "keep each run's data files (default: removed after the run)")
	dry := fs.Bool("n", false, "check the grid and print each run's command line; run nothing")
	replot := fs.String("replot", "", "plot the sweep.csv of this directory again (with -metric, -x, -by); run nothing")
	htmlOut := fs.String("html", "", "also write the study as one self-contained HTML page: its figures, its table and the command (h5proxy report DIR)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	metricSet := false
	fs.Visit(func(f *flag.Flag) { metricSet = metricSet || f.Name == "metric" })
	if *replot != "" {
		if fs.NArg() > 0 {
			return usageError{error: fmt.Errorf("-replot %s takes no CONFIG.json nor keys, got %q", *replot, fs.Args())}
		}
		f, err := os.Open(filepath.Join(*replot, "sweep.csv"))
		if err != nil {
			return err
		}
		axes, rows, err := sweep.ReadCSV(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name(), err)
		}
		if err := plotSweep(stdout, *replot, axes, rows, plotSpec(axes, rows, *metric, metricSet, *x, *by)); err != nil {
			return err
		}
		return sweepHTML(stdout, *htmlOut, *replot)
	}
	if fs.NArg() < 2 {
		return usageError{error: errors.New("need CONFIG.json and at least one KEY=v1,v2,...")}
	}
	for _, a := range fs.Args()[1:] {
		if strings.HasPrefix(a, "-") {
			return usageError{error: fmt.Errorf("flag %s after CONFIG.json: flags go first, as in: h5proxy sweep -reps 3 %s KEY=v1,v2", a, fs.Arg(0))}
		}
	}
	if *reps < 1 {
		return usageError{error: fmt.Errorf("-reps %d: at least 1", *reps)}
	}
	if *np < 0 {
		return usageError{error: fmt.Errorf("-np %d: the number of ranks must be at least 1", *np)}
	}
	if launch.Underneath() {
		return errors.New("sweep launches every run itself: start it outside mpirun")
	}
	axes, err := sweep.ParseAxes(fs.Args()[1:])
	if err != nil {
		return usageError{error: err}
	}
	if err := plotSpec(axes, nil, *metric, true, *x, *by).Check(axes); err != nil {
		return usageError{error: err}
	}
	benchmarks, err := checkGrid(fs.Arg(0), axes)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r := &sweepRunner{self: self, config: fs.Arg(0), out: *out, np: *np, keep: *keep, benchmarks: benchmarks, axes: axes}
	pts := sweep.Grid(axes, *reps)
	if *dry {
		for _, p := range pts {
			args, _, _ := r.args(p)
			fmt.Fprintln(stdout, shellJoin(append([]string{self}, args...)))
		}
		return nil
	}
	for _, d := range []string{"reports", "logs", "data"} {
		if err := os.MkdirAll(filepath.Join(*out, d), 0o755); err != nil {
			return fmt.Errorf("-out %s: %w", *out, err)
		}
	}
	if err := os.WriteFile(filepath.Join(*out, sweepCommandFile), []byte(shellJoin(append([]string{"h5proxy", "sweep"}, args...))+"\n"), 0o644); err != nil {
		return fmt.Errorf("-out %s: %w", *out, err)
	}
	// An interrupt (or SIGTERM) reaches the running run's ranks too; the sweep then starts
	// no further run and writes the rows of the runs done.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rows, runErr := sweep.Run(ctx, axes, pts, r.run, stderr, sweep.IsTerminal(os.Stderr) && stderr == io.Writer(os.Stderr))
	if err := writeSweep(*out, axes, rows); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n%s\n", filepath.Join(*out, "sweep.csv"), filepath.Join(*out, "sweep.json"))
	perr := plotSweep(stdout, *out, axes, rows, plotSpec(axes, rows, *metric, metricSet, *x, *by))
	if runErr != nil {
		return runErr
	}
	if perr != nil {
		return perr
	}
	return sweepHTML(stdout, *htmlOut, *out)
}

// sweepHTML writes the study's page when -html was given.
func sweepHTML(stdout io.Writer, path, dir string) error {
	if path == "" {
		return nil
	}
	pg, err := studyPage(filepath.Join(dir, "sweep.csv"), dir, nil)
	if err != nil {
		return err
	}
	return writePage(stdout, pg, path)
}

// plotSpec applies the plot's defaults: x is the first swept key, the lines are the next
// key with several values (a key with one value is a setting, not a line), the metric is
// the observed rate (observedRate) unless -metric was given.
func plotSpec(axes []sweep.Axis, rows []sweep.Row, metric string, metricSet bool, x, by string) sweep.PlotSpec {
	spec := sweep.PlotSpec{Metric: metric, X: x, By: by}
	if !metricSet {
		spec.Metric = observedRate(rows)
	}
	if spec.X == "" && len(axes) > 0 {
		spec.X = axes[0].Key
	}
	if spec.By == "" {
		for _, ax := range axes {
			if !strings.EqualFold(ax.Key, spec.X) && len(ax.Values) > 1 {
				spec.By = ax.Key
				break
			}
		}
	}
	return spec
}

// plotSweep draws the plot into dir and prints the files written.
func plotSweep(stdout io.Writer, dir string, axes []sweep.Axis, rows []sweep.Row, spec sweep.PlotSpec) error {
	files, err := sweep.Plot(axes, rows, spec, filepath.Join(dir, plotName(spec)))
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return err
}

// checkGrid validates every combination of the swept values against the configuration
// (each KEY and VALUE through the option tables, as run -set does) before anything runs,
// and returns the configuration's number of benchmarks.
func checkGrid(config string, axes []sweep.Axis) (int, error) {
	j, err := loadJob(config)
	if err != nil {
		return 0, err
	}
	for _, combo := range sweep.Combinations(axes) {
		j, err := loadJob(config)
		if err != nil {
			return 0, err
		}
		sets := make([]options.KV, len(axes))
		for i, ax := range axes {
			sets[i] = options.KV{Key: ax.Key, Value: combo[i]}
		}
		if err := applySettings(j, sets, ""); err != nil {
			return 0, fmt.Errorf("sweep point %s: %w", sweep.Point{Values: combo}.Label(axes), err)
		}
	}
	return len(j.runs), nil
}

// sweepRunner runs one point as 'h5proxy run' (which launches the ranks), with its own
// data directory, report and log.
type sweepRunner struct {
	self, config, out string
	np                int
	keep              bool
	benchmarks        int
	axes              []sweep.Axis
}

// args returns the run command's arguments of a point, its data directory and the
// reports it writes (run suffixes them by benchmark when there are several).
func (r *sweepRunner) args(p sweep.Point) (args []string, data string, reports []string) {
	name := fmt.Sprintf("run-%03d", p.Run)
	data = filepath.Join(r.out, "data", name)
	report := filepath.Join(r.out, "reports", name+".json")
	reports = []string{report}
	if r.benchmarks > 1 {
		reports = reports[:0]
		for i := 0; i < r.benchmarks; i++ {
			reports = append(reports, fmt.Sprintf("%s.%d", report, i))
		}
	}
	args = []string{"run", "-quiet", "-report", report, "-dir", data}
	if r.np > 0 {
		args = append(args, "-np", strconv.Itoa(r.np))
	}
	for _, kv := range p.Settings(r.axes) {
		args = append(args, "-set", kv[0]+"="+kv[1])
	}
	return append(args, r.config), data, reports
}

func (r *sweepRunner) run(p sweep.Point) ([][]byte, error) {
	args, data, reports := r.args(p)
	for _, f := range reports {
		_ = os.Remove(f) // a report left by an earlier sweep is not this run's
	}
	logPath := filepath.Join(r.out, "logs", fmt.Sprintf("run-%03d.log", p.Run))
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "# %s\n", shellJoin(append([]string{r.self}, args...)))
	var tail bytes.Buffer
	cmd := exec.Command(r.self, args...)
	cmd.Stdout, cmd.Stderr = logf, io.MultiWriter(logf, &tail)
	err = cmd.Run()
	// The h5bench CSV files (CSV_FILE, moved into data by run -dir) are results: kept
	// beside the reports as run-NNN.NAME.csv.
	csvs, _ := filepath.Glob(filepath.Join(data, "*.csv"))
	for _, f := range csvs {
		_ = os.Rename(f, filepath.Join(r.out, "reports", fmt.Sprintf("run-%03d.%s", p.Run, filepath.Base(f))))
	}
	if !r.keep {
		_ = os.RemoveAll(data)
	}
	if err != nil {
		return nil, fmt.Errorf("%v (log: %s)%s", err, logPath, lastLines(tail.String(), 3))
	}
	var out [][]byte
	for _, f := range reports {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		out = append(out, b)
	}
	return out, nil
}

// lastLines returns the last n lines of s, each on a line of its own after ": ".
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	return ":\n  " + strings.Join(lines, "\n  ")
}

// writeSweep writes sweep.csv and sweep.json into out.
func writeSweep(out string, axes []sweep.Axis, rows []sweep.Row) error {
	for _, w := range []struct {
		name  string
		write func(io.Writer, []sweep.Axis, []sweep.Row) error
	}{{"sweep.csv", sweep.WriteCSV}, {"sweep.json", sweep.WriteJSON}} {
		f, err := os.Create(filepath.Join(out, w.name))
		if err != nil {
			return err
		}
		err = w.write(f, axes, rows)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", w.name, err)
		}
	}
	return nil
}

// observedRate is the metric plotted unless told: the write phase's observed rate, or,
// for a configuration without a write phase, the first phase's.
func observedRate(rows []sweep.Row) string {
	names := sweep.MetricNames(rows)
	if slices.Contains(names, defaultMetric) {
		return defaultMetric
	}
	for _, n := range names {
		if strings.HasSuffix(n, ".observed_rate") {
			return n
		}
	}
	return defaultMetric
}

// plotName is the plots' base name: the metric against x, by the line key.
func plotName(spec sweep.PlotSpec) string {
	name := spec.Metric + "-vs-" + spec.X
	if spec.By != "" {
		name += "-by-" + spec.By
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == os.PathSeparator {
			return '_'
		}
		return r
	}, name)
}
