package sweep

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/h5proxy/h5proxy/options"
)

// PlotSpec chooses what a plot shows: Metric against the swept key X, one line per value
// of the swept key By (none when empty). Runs that differ only in other swept keys or in
// their repetition make up each point's band.
type PlotSpec struct {
	Metric, X, By string
}

// Plot draws spec from the rows into base.png and base.svg: the median of each point over
// its runs as a line, the minimum to maximum as a band around it. Failed runs and runs
// without the metric are left out; a plot with no point is an error naming the metric.
// The x axis is numeric (ticks at the swept values) when every value of X reads as a
// number, a size (4 MiB) or a duration (250ms, plotted in seconds), else categorical in
// the order given.
func Plot(axes []Axis, rows []Row, spec PlotSpec, base string) ([]string, error) {
	if err := spec.Check(axes); err != nil {
		return nil, err
	}
	xi, bi := axisIndex(axes, spec.X), axisIndex(axes, spec.By)
	xs, numeric := numericValues(axes[xi].Values)
	scale, unit := metricUnit(spec.Metric)
	// samples[line][x value index] = metric values of the runs at that point.
	lines := []string{""}
	if bi >= 0 {
		lines = axes[bi].Values
	}
	samples := make([][][]float64, len(lines))
	for i := range samples {
		samples[i] = make([][]float64, len(xs))
	}
	n := 0
	for _, r := range rows {
		v, ok := r.Metrics[spec.Metric]
		if r.Err != "" || !ok {
			continue
		}
		li := 0
		if bi >= 0 {
			li = slices.Index(lines, r.Values[bi])
		}
		x := slices.Index(axes[xi].Values, r.Values[xi])
		samples[li][x] = append(samples[li][x], v/scale)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("-metric %q: no successful run has it (choose a column of sweep.csv)", spec.Metric)
	}

	p := plot.New()
	p.Title.Text = spec.Metric + " against " + spec.X
	if others := otherKeys(axes, xi, bi); others != "" {
		p.Title.Text += " (band over " + others + ")"
	}
	p.X.Label.Text = spec.X
	p.Y.Label.Text = spec.Metric
	if unit != "" {
		p.Y.Label.Text += " (" + unit + ")"
	}
	p.Add(plotter.NewGrid())
	if numeric {
		ticks := make([]plot.Tick, len(xs))
		for i, x := range xs {
			ticks[i] = plot.Tick{Value: x, Label: axes[xi].Values[i]}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		lo, hi := slices.Min(xs), slices.Max(xs)
		if lo > 0 && hi/lo >= 16 {
			p.X.Scale = plot.LogScale{}
		}
	} else {
		p.NominalX(axes[xi].Values...)
	}
	for li, name := range lines {
		med, band := summarize(samples[li], xs)
		if len(med) == 0 {
			continue
		}
		c := plotutil.Color(li)
		if len(med) > 1 {
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, err
			}
			r, g, b, _ := c.RGBA()
			poly.Color = color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 70}
			poly.LineStyle.Width = 0
			p.Add(poly)
		}
		line, pts, err := plotter.NewLinePoints(med)
		if err != nil {
			return nil, err
		}
		line.Color, pts.Color = c, c
		line.Width = vg.Points(1.5)
		p.Add(line, pts)
		if bi >= 0 {
			p.Legend.Add(spec.By+"="+name, line, pts)
		}
	}
	p.Legend.Top = true
	var files []string
	for _, ext := range []string{".png", ".svg"} {
		f := base + ext
		if err := p.Save(16*vg.Centimeter, 10*vg.Centimeter, f); err != nil {
			return files, fmt.Errorf("plot %s: %w", filepath.Base(f), err)
		}
		files = append(files, f)
	}
	return files, nil
}

// Check reports an x or line key that is not a swept key (before a study runs).
func (spec PlotSpec) Check(axes []Axis) error {
	xi, bi := axisIndex(axes, spec.X), axisIndex(axes, spec.By)
	switch {
	case xi < 0:
		return fmt.Errorf("-x %q: not a swept key (swept: %s)", spec.X, axisKeys(axes))
	case spec.By != "" && bi < 0:
		return fmt.Errorf("-by %q: not a swept key (swept: %s)", spec.By, axisKeys(axes))
	case spec.By != "" && bi == xi:
		return fmt.Errorf("-by %q: the same key as -x", spec.By)
	}
	return nil
}

// summarize returns the median at each x that has runs, and the band polygon: the
// maxima left to right, then the minima right to left.
func summarize(perX [][]float64, xs []float64) (plotter.XYs, plotter.XYs) {
	type pt struct{ x, lo, med, hi float64 }
	var pts []pt
	for i, v := range perX {
		if len(v) == 0 {
			continue
		}
		s := slices.Sorted(slices.Values(v))
		med := s[len(s)/2]
		if len(s)%2 == 0 {
			med = (s[len(s)/2-1] + s[len(s)/2]) / 2
		}
		pts = append(pts, pt{xs[i], s[0], med, s[len(s)-1]})
	}
	slices.SortFunc(pts, func(a, b pt) int { return cmp.Compare(a.x, b.x) })
	med := make(plotter.XYs, len(pts))
	band := make(plotter.XYs, 0, 2*len(pts))
	for i, q := range pts {
		med[i] = plotter.XY{X: q.x, Y: q.med}
		band = append(band, plotter.XY{X: q.x, Y: q.hi})
	}
	for i := len(pts) - 1; i >= 0; i-- {
		band = append(band, plotter.XY{X: pts[i].x, Y: pts[i].lo})
	}
	return med, band
}

// numericValues returns the values as numbers when every one reads as a plain number, a
// size or a duration (in seconds), all of the same kind; otherwise their positions
// 0, 1, 2, ... and false.
func numericValues(vals []string) ([]float64, bool) {
	parsers := []func(string) (float64, error){
		func(s string) (float64, error) { return strconv.ParseFloat(s, 64) },
		func(s string) (float64, error) { n, err := options.ParseSize(s); return float64(n), err },
		func(s string) (float64, error) { d, err := options.ParseDuration(s); return d.Seconds(), err },
	}
	for _, parse := range parsers {
		out := make([]float64, len(vals))
		ok := true
		for i, v := range vals {
			f, err := parse(v)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				ok = false
				break
			}
			out[i] = f
		}
		if ok {
			return out, true
		}
	}
	out := make([]float64, len(vals))
	for i := range out {
		out[i] = float64(i)
	}
	return out, false
}

// metricUnit returns the divisor and unit a metric is plotted in: rates in MiB/s, byte
// counts in MiB, times in seconds (reports store SI base units).
func metricUnit(name string) (float64, string) {
	leaf := name[strings.LastIndex(name, ".")+1:]
	if i := strings.LastIndex(name, "."); i > 0 && slices.Contains([]string{"min", "max", "mean", "sum"}, leaf) {
		leaf = name[strings.LastIndex(name[:i], ".")+1 : i]
	}
	switch {
	case strings.HasSuffix(leaf, "_rate"):
		return 1 << 20, "MiB/s"
	case leaf == "bytes" || strings.HasSuffix(leaf, "_bytes") || leaf == "staging_high_water":
		return 1 << 20, "MiB"
	case strings.HasSuffix(leaf, "_time"):
		return 1, "s"
	}
	return 1, ""
}

func axisIndex(axes []Axis, key string) int {
	if key == "" {
		return -1
	}
	return slices.IndexFunc(axes, func(a Axis) bool { return strings.EqualFold(a.Key, key) })
}

func axisKeys(axes []Axis) string {
	keys := make([]string, len(axes))
	for i, a := range axes {
		keys[i] = a.Key
	}
	return strings.Join(keys, ", ")
}

// otherKeys names what a point's band spreads over besides the x and line keys.
func otherKeys(axes []Axis, xi, bi int) string {
	var out []string
	for i, a := range axes {
		if i != xi && i != bi && len(a.Values) > 1 {
			out = append(out, a.Key)
		}
	}
	out = append(out, "repetitions")
	return strings.Join(out, ", ")
}
