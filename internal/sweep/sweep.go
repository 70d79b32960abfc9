// Package sweep runs a parameter study: one configuration run over the grid of some keys'
// values, every grid point repeated, repetitions interleaved (A B C A B C ...: a drift of
// the machine's load during the study then spreads over every point instead of biasing
// the ones run last). It collects every metric of each run's JSON report into one row,
// writes the rows as CSV and JSON, and plots a metric against a swept key (plot.go).
//
// The package knows nothing of MPI or HDF5: the front end (cmd/h5proxy) validates the
// grid against the option tables and runs each point (Runner).
package sweep

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Axis is one swept key and its values, in the order given.
type Axis struct {
	Key    string
	Values []string
}

// ParseAxes reads KEY=v1,v2,... arguments. A key given twice, an empty key, a value list
// with an empty item or repeating a value is an error naming the argument.
func ParseAxes(args []string) ([]Axis, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no key to sweep: give KEY=v1,v2,... (e.g. compute_time=0s,1s)")
	}
	var axes []Axis
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("argument %q is not KEY=v1,v2,...", a)
		}
		for _, prev := range axes {
			if strings.EqualFold(prev.Key, k) {
				return nil, fmt.Errorf("key %q swept twice: give all its values in one KEY=v1,v2,...", k)
			}
		}
		ax := Axis{Key: k}
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				return nil, fmt.Errorf("key %q: empty value in %q", k, v)
			}
			if slices.Contains(ax.Values, item) {
				return nil, fmt.Errorf("key %q: value %q given twice", k, item)
			}
			ax.Values = append(ax.Values, item)
		}
		axes = append(axes, ax)
	}
	return axes, nil
}

// Point is one run of the study: its index in run order, its repetition (from 0) and the
// value of each axis (in axis order).
type Point struct {
	Run, Rep int
	Values   []string
}

// Settings returns the point's KEY=VALUE pairs.
func (p Point) Settings(axes []Axis) [][2]string {
	out := make([][2]string, len(axes))
	for i, ax := range axes {
		out[i] = [2]string{ax.Key, p.Values[i]}
	}
	return out
}

// Label is the point's settings as text: "KEY=v KEY=v".
func (p Point) Label(axes []Axis) string {
	parts := make([]string, len(axes))
	for i, kv := range p.Settings(axes) {
		parts[i] = kv[0] + "=" + kv[1]
	}
	return strings.Join(parts, " ")
}

// Combinations returns every combination of the axes' values, the last axis varying
// fastest.
func Combinations(axes []Axis) [][]string {
	out := [][]string{{}}
	for _, ax := range axes {
		var next [][]string
		for _, prefix := range out {
			for _, v := range ax.Values {
				next = append(next, append(slices.Clone(prefix), v))
			}
		}
		out = next
	}
	return out
}

// Grid returns the runs of the study in order: every combination once per repetition,
// repetitions interleaved.
func Grid(axes []Axis, reps int) []Point {
	combos := Combinations(axes)
	var pts []Point
	for rep := 0; rep < reps; rep++ {
		for _, c := range combos {
			pts = append(pts, Point{Run: len(pts), Rep: rep, Values: c})
		}
	}
	return pts
}

// Row is one run's result: its point, the metrics of its reports and its error, if any.
type Row struct {
	Point
	Metrics map[string]float64
	Err     string
	Seconds float64 // the run's wall time, launch included
}

// Runner runs one point and returns the JSON reports it wrote (one per benchmark of the
// configuration).
type Runner func(p Point) (reports [][]byte, err error)

// Run runs every point in order, showing progress on progress (a terminal gets one line
// rewritten in place, anything else a line per run). A failed run is kept as a row with
// its error and the study goes on; the error returned is the first run's failure, if
// any, after all ran. When ctx ends (an interrupt), no further run starts: the rows of
// the runs done are returned with ErrInterrupted.
func Run(ctx context.Context, axes []Axis, pts []Point, run Runner, progress io.Writer, tty bool) ([]Row, error) {
	rows := make([]Row, 0, len(pts))
	begin := time.Now()
	var first error
	for i, p := range pts {
		if ctx.Err() != nil {
			if tty {
				fmt.Fprintln(progress)
			}
			return rows, fmt.Errorf("%w after %d of %d runs", ErrInterrupted, i, len(pts))
		}
		showProgress(progress, tty, i, len(pts), time.Since(begin), p.Label(axes), p.Rep)
		t := time.Now()
		reports, err := run(p)
		row := Row{Point: p, Seconds: time.Since(t).Seconds()}
		if err == nil {
			row.Metrics, err = Flatten(reports)
		}
		if err != nil {
			row.Err = err.Error()
			if first == nil {
				first = fmt.Errorf("run %d (%s, rep %d): %w", p.Run, p.Label(axes), p.Rep, err)
			}
			if tty {
				fmt.Fprintln(progress)
			}
			fmt.Fprintf(progress, "h5proxy sweep: run %d (%s) failed: %v\n", p.Run, p.Label(axes), err)
		}
		rows = append(rows, row)
	}
	elapsed := time.Since(begin).Round(time.Second)
	if tty {
		fmt.Fprintf(progress, "\r\033[K")
	}
	fmt.Fprintf(progress, "h5proxy sweep: %d runs in %v\n", len(pts), elapsed)
	return rows, first
}

// ErrInterrupted is returned by Run when its context ended before every run was done.
var ErrInterrupted = errors.New("sweep interrupted")

// showProgress prints "[i/n] settings rep r  elapsed  ETA": the ETA is the mean time per
// finished run times the runs left.
func showProgress(w io.Writer, tty bool, done, n int, elapsed time.Duration, label string, rep int) {
	eta := "?"
	if done > 0 {
		eta = (elapsed / time.Duration(done) * time.Duration(n-done)).Round(time.Second).String()
	}
	line := fmt.Sprintf("[%d/%d] %s rep %d  elapsed %v  ETA %s", done+1, n, label, rep+1, elapsed.Round(time.Second), eta)
	if tty {
		fmt.Fprintf(w, "\r\033[K%s", line)
		return
	}
	fmt.Fprintln(w, "h5proxy sweep: "+line)
}

// IsTerminal reports whether f is a character device (a terminal): progress is then
// rewritten in place.
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// MetricNames returns every metric name of the rows, sorted.
func MetricNames(rows []Row) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		for k := range r.Metrics {
			seen[k] = true
		}
	}
	names := make([]string, 0, len(seen))
	for k := range seen {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// WriteCSV writes one line per run: run, rep, each swept key, error, seconds, then every
// metric (empty where a run lacks it).
func WriteCSV(w io.Writer, axes []Axis, rows []Row) error {
	names := MetricNames(rows)
	cw := csv.NewWriter(w)
	head := []string{"run", "rep"}
	for _, ax := range axes {
		head = append(head, ax.Key)
	}
	head = append(head, "error", "seconds")
	if err := cw.Write(append(head, names...)); err != nil {
		return err
	}
	for _, r := range rows {
		rec := append([]string{strconv.Itoa(r.Run), strconv.Itoa(r.Rep)}, r.Values...)
		rec = append(rec, r.Err, strconv.FormatFloat(r.Seconds, 'g', 6, 64))
		for _, n := range names {
			v, ok := r.Metrics[n]
			if !ok {
				rec = append(rec, "")
				continue
			}
			rec = append(rec, strconv.FormatFloat(v, 'g', -1, 64))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV reads rows written by WriteCSV back, with the swept axes: the columns between
// rep and error, their values in order of first appearance (the grid's order, as the
// first repetition runs every combination in the order given). A study can so be plotted
// again, with another metric or keys, without running it again.
func ReadCSV(r io.Reader) ([]Axis, []Row, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, nil, err
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("empty: no header")
	}
	head := recs[0]
	errCol := slices.Index(head, "error")
	if len(head) < 4 || head[0] != "run" || head[1] != "rep" || errCol < 2 || errCol+1 >= len(head) || head[errCol+1] != "seconds" {
		return nil, nil, fmt.Errorf("header %q: not a sweep's (run, rep, KEY..., error, seconds, METRIC...)", head)
	}
	axes := make([]Axis, errCol-2)
	for i := range axes {
		axes[i].Key = head[2+i]
	}
	rows := make([]Row, 0, len(recs)-1)
	for n, rec := range recs[1:] {
		var row Row
		var err error
		if row.Run, err = strconv.Atoi(rec[0]); err == nil {
			row.Rep, err = strconv.Atoi(rec[1])
		}
		if err == nil {
			row.Seconds, err = strconv.ParseFloat(rec[errCol+1], 64)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("row %d: %w", n+1, err)
		}
		row.Values = slices.Clone(rec[2:errCol])
		for i, v := range row.Values {
			if !slices.Contains(axes[i].Values, v) {
				axes[i].Values = append(axes[i].Values, v)
			}
		}
		row.Err = rec[errCol]
		if row.Err == "" {
			row.Metrics = map[string]float64{}
		}
		for i := errCol + 2; i < len(rec); i++ {
			if rec[i] == "" {
				continue
			}
			f, err := strconv.ParseFloat(rec[i], 64)
			if err != nil {
				return nil, nil, fmt.Errorf("row %d, %s: %w", n+1, head[i], err)
			}
			if row.Metrics == nil {
				row.Metrics = map[string]float64{}
			}
			row.Metrics[head[i]] = f
		}
		rows = append(rows, row)
	}
	return axes, rows, nil
}

// jsonRow is a row of sweep.json.
type jsonRow struct {
	Run     int                `json:"run"`
	Rep     int                `json:"rep"`
	Config  map[string]string  `json:"config"`
	Error   string             `json:"error,omitempty"`
	Seconds float64            `json:"seconds"`
	Metrics map[string]float64 `json:"metrics"`
}

// WriteJSON writes the rows as a JSON array: run, rep, the swept keys' values (config),
// error, seconds and metrics.
func WriteJSON(w io.Writer, axes []Axis, rows []Row) error {
	out := make([]jsonRow, len(rows))
	for i, r := range rows {
		cfg := map[string]string{}
		for _, kv := range r.Settings(axes) {
			cfg[kv[0]] = kv[1]
		}
		m := r.Metrics
		if m == nil {
			m = map[string]float64{}
		}
		out[i] = jsonRow{Run: r.Run, Rep: r.Rep, Config: cfg, Error: r.Err, Seconds: r.Seconds, Metrics: m}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
