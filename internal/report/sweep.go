package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/internal/sweep"
)

// SweepOptions says what a study's page plots and how the study was made.
type SweepOptions struct {
	// Metrics to draw, each a figure against the first swept key, one line per value of
	// the second (if any). Empty: the study's rates and times that are present
	// (DefaultSweepMetrics).
	Metrics []string
	// Command made the study (h5proxy sweep ..., go run ./bench/...).
	Command string
	// Title names the study; empty: "Parameter study".
	Title string
}

// DefaultSweepMetrics are the metrics a study's page draws when none is asked for: the
// h5bench rates and times of the write and read phases, those the rows have.
var DefaultSweepMetrics = []string{"write.observed_rate", "write.raw_rate", "write.observed_time", "read.observed_rate", "read.raw_rate", "read.observed_time"}

// SweepPage builds the page of a parameter study from its rows (sweep.ReadCSV): the
// command, the grid, a figure per metric (the median of each grid point's repetitions
// against the first swept key, one line per value of the second) and a table of every
// grid point's medians with their ranges. Failed runs are counted, never drawn.
func SweepPage(axes []sweep.Axis, rows []sweep.Row, opt SweepOptions) (*Page, error) {
	if len(axes) == 0 {
		return nil, fmt.Errorf("the study has no swept key")
	}
	metrics := opt.Metrics
	have := sweep.MetricNames(rows)
	if len(metrics) == 0 {
		for _, m := range DefaultSweepMetrics {
			if slices.Contains(have, m) {
				metrics = append(metrics, m)
			}
		}
	} else {
		for _, m := range metrics {
			if !slices.Contains(have, m) {
				return nil, fmt.Errorf("metric %q: no run of the study has it (it has %s)", m, strings.Join(have[:min(len(have), 12)], ", "))
			}
		}
	}
	title := opt.Title
	if title == "" {
		title = "Parameter study"
	}
	pg := NewPage(title)
	pg.Section("Study")
	if opt.Command != "" {
		pg.Command(opt.Command)
	}
	failed := 0
	for _, r := range rows {
		if r.Err != "" {
			failed++
		}
	}
	var grid [][2]string
	for _, ax := range axes {
		grid = append(grid, [2]string{ax.Key, strings.Join(ax.Values, ", ")})
	}
	grid = append(grid, [2]string{"runs", fmt.Sprintf("%d (%d failed)", len(rows), failed)})
	pg.Facts(grid)
	if failed > 0 {
		var frows [][]Cell
		for _, r := range rows {
			if r.Err != "" {
				frows = append(frows, []Cell{Int(int64(r.Run)), Str(r.Label(axes)), {Text: r.Err, Marked: true}})
			}
		}
		pg.Table("Failed runs", []string{"run", "point", "error"}, frows, 20)
	}

	pg.Section("Figures")
	x := axes[0]
	var by *sweep.Axis
	if len(axes) > 1 {
		by = &axes[1]
	}
	for _, m := range metrics {
		var series []Series
		lines := []string{""}
		if by != nil {
			lines = by.Values
		}
		for _, lv := range lines {
			s := Series{Name: m}
			if by != nil {
				s.Name = by.Key + "=" + lv
			}
			for _, xv := range x.Values {
				vals := values(axes, rows, m, map[string]string{x.Key: xv, keyOf(by): lv})
				if len(vals) == 0 {
					s.Values = append(s.Values, math.NaN())
					continue
				}
				med, _, _ := benchstat.Summary(vals)
				s.Values = append(s.Values, med)
			}
			series = append(series, s)
		}
		pg.Figure(fmt.Sprintf("%s against %s: the median of each point's runs.", m, x.Key),
			LineChart(m, x.Values, series, x.Key, m))
	}

	pg.Section("Table")
	head := []string{"point", "runs"}
	for _, m := range metrics {
		head = append(head, m+" median", "min-max")
	}
	var trows [][]Cell
	for _, combo := range sweep.Combinations(axes) {
		want := map[string]string{}
		var label []string
		for i, ax := range axes {
			want[ax.Key] = combo[i]
			label = append(label, ax.Key+"="+combo[i])
		}
		row := []Cell{Str(strings.Join(label, " ")), Int(int64(len(matching(axes, rows, want))))}
		for _, m := range metrics {
			vals := values(axes, rows, m, want)
			if len(vals) == 0 {
				row = append(row, Str("-"), Str("-"))
				continue
			}
			med, lo, hi := benchstat.Summary(vals)
			row = append(row, Cell{Text: tickLabel(med), Num: true}, Cell{Text: tickLabel(lo) + "-" + tickLabel(hi), Num: true})
		}
		trows = append(trows, row)
	}
	pg.Table("Every grid point: medians over its repetitions", head, trows, 60)
	return pg, nil
}

func keyOf(a *sweep.Axis) string {
	if a == nil {
		return ""
	}
	return a.Key
}

// matching returns the successful rows whose swept keys have the wanted values (a key
// "" is ignored).
func matching(axes []sweep.Axis, rows []sweep.Row, want map[string]string) []sweep.Row {
	var out []sweep.Row
next:
	for _, r := range rows {
		if r.Err != "" {
			continue
		}
		for _, kv := range r.Settings(axes) {
			if v, ok := want[kv[0]]; ok && v != kv[1] {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

// values returns metric m of the matching rows that have it.
func values(axes []sweep.Axis, rows []sweep.Row, m string, want map[string]string) []float64 {
	var out []float64
	for _, r := range matching(axes, rows, want) {
		if v, ok := r.Metrics[m]; ok && !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}
