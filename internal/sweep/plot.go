package sweep

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/h5proxy/h5proxy/options"
)

// PlotSpec chooses what a plot shows: Metric against the swept key X, one line per value
// of the swept key By (none when empty). Runs that differ only in other swept keys or in
// their repetition make up each point's band.
type PlotSpec struct {
	Metric, X, By string
}

// Plot draws spec from the rows into base.png and base.svg: at each swept value the
// median of the runs there, with an error bar from their minimum to their maximum.
// Failed runs and runs without the metric are left out; a plot with no point is an error
// naming the metric. The x axis is numeric when every value of X reads as a number, a
// size (4 MiB) or a duration (250ms, plotted in seconds): ticks at the swept values, the
// medians of each line joined. Otherwise it is categorical, in the order given: the
// values are groups, not points of a scale, so each line's medians stand side by side
// within a group, unjoined. The legend stands beside the data area, never on it, and a
// title too long for the figure wraps.
func Plot(axes []Axis, rows []Row, spec PlotSpec, base string) ([]string, error) {
	f, err := newFigure(axes, rows, spec)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, ext := range []string{".png", ".svg"} {
		if err := f.save(base + ext); err != nil {
			return files, fmt.Errorf("plot %s: %w", filepath.Base(base+ext), err)
		}
		files = append(files, base+ext)
	}
	return files, nil
}

// The figure's size, and the gap between the plot's area and the legend's.
const (
	figWidth  = 20 * vg.Centimeter
	figHeight = 11 * vg.Centimeter
	figGap    = 0.4 * vg.Centimeter
)

// groupWidth is the share of the space between two categories a group's points spread
// over; lineDodge the share of the smallest space between two values of a numeric axis
// the lines' points spread over, so that their error bars do not cover each other.
const (
	groupWidth = 0.5
	lineDodge  = 0.12
)

// dodge moves a line's points by its share at (-0.5 to 0.5) of the spread: within their
// category, or, on a numeric axis, by a small part of the smallest gap between swept
// values (on a logarithmic axis, of the smallest ratio), the ticks staying at the values.
func dodge(pts plotter.XYs, xs []float64, numeric bool, scale plot.Normalizer, at float64) {
	if !numeric {
		for i := range pts {
			pts[i].X += groupWidth * at
		}
		return
	}
	s := slices.Sorted(slices.Values(xs))
	_, logScale := scale.(plot.LogScale)
	gap := math.Inf(1)
	for i := 1; i < len(s); i++ {
		if d := s[i] - s[i-1]; !logScale && d > 0 {
			gap = min(gap, d)
		} else if logScale && s[i-1] > 0 && d > 0 {
			gap = min(gap, math.Log(s[i]/s[i-1]))
		}
	}
	if math.IsInf(gap, 1) {
		return
	}
	for i := range pts {
		if logScale {
			pts[i].X *= math.Exp(lineDodge * gap * at)
		} else {
			pts[i].X += lineDodge * gap * at
		}
	}
}

// figure is a plot and its legend, kept apart so that the legend is drawn beside the data
// area (figure.areas) rather than on it, where gonum's plot puts its own.
type figure struct {
	p       *plot.Plot
	legend  plot.Legend
	title   string // unwrapped
	numeric bool   // the x axis is a scale (lines), not categories (groups)
	// lines and points are what was plotted of each line of the legend, for the tests.
	lines  []*plotter.Line
	points []*plotter.Scatter
}

// newFigure builds the figure of spec over rows.
func newFigure(axes []Axis, rows []Row, spec PlotSpec) (*figure, error) {
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

	f := &figure{p: plot.New(), legend: plot.NewLegend(), numeric: numeric}
	p := f.p
	f.title = spec.Metric + " against " + spec.X + ": median, bars from min to max over " + otherKeys(axes, xi, bi)
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
		p.X.Min, p.X.Max = -0.5, float64(len(xs))-0.5
	}
	f.legend.Left, f.legend.Top = true, true
	f.legend.Padding = vg.Points(4)
	for li, name := range lines {
		pts := summarize(samples[li], xs)
		if len(pts.XYs) == 0 {
			continue
		}
		if len(lines) > 1 {
			dodge(pts.XYs, xs, numeric, p.X.Scale, float64(li)/float64(len(lines)-1)-0.5)
		}
		c := plotutil.Color(li)
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		bars.Color = c
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = c, plotutil.Shape(li), vg.Points(3)
		p.Add(bars, sc)
		f.points = append(f.points, sc)
		thumbs := []plot.Thumbnailer{sc}
		if numeric && len(pts.XYs) > 1 {
			line, err := plotter.NewLine(pts.XYs)
			if err != nil {
				return nil, err
			}
			line.Color, line.Width = c, vg.Points(1.5)
			p.Add(line)
			f.lines = append(f.lines, line)
			thumbs = append(thumbs, line)
		}
		label := "median"
		if bi >= 0 {
			label = spec.By + "=" + name
		}
		f.legend.Add(label, thumbs...)
	}
	// A margin above and below the data, so that no bar's cap lies on the frame.
	m := 0.04 * (p.Y.Max - p.Y.Min)
	p.Y.Max += m
	p.Y.Min = max(p.Y.Min-m, min(p.Y.Min, 0))
	return f, nil
}

// areas lays the figure out on c: the legend in a column at the right, as wide as its
// widest entry and level with the top of the data area, the plot (title, axes, data) in
// the rest, its title wrapped to the plot's width.
func (f *figure) areas(c draw.Canvas) (plotArea, legendArea draw.Canvas) {
	// The entries' text is measured without the space between icon and text: an em more.
	lw := f.legend.Rectangle(c).Size().X + f.legend.TextStyle.Width("M")
	plotArea = draw.Crop(c, 0, -(lw + figGap), 0, 0)
	f.p.Title.Text = wrap(f.title, f.p.Title.TextStyle, plotArea.Size().X)
	data := f.p.DataCanvas(plotArea)
	legendArea = draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: c.Max.X - lw, Y: c.Min.Y}, Max: vg.Point{X: c.Max.X, Y: data.Max.Y}}}
	return plotArea, legendArea
}

// draw draws the figure on c.
func (f *figure) draw(c draw.Canvas) {
	pa, la := f.areas(c)
	f.p.Draw(pa)
	f.legend.Draw(la)
}

// save writes the figure as a PNG or an SVG file, by path's extension.
func (f *figure) save(path string) error {
	var c vg.CanvasWriterTo
	switch filepath.Ext(path) {
	case ".png":
		c = vgimg.PngCanvas{Canvas: vgimg.New(figWidth, figHeight)}
	case ".svg":
		c = vgsvg.New(figWidth, figHeight)
	default:
		return fmt.Errorf("unknown image format %q", filepath.Ext(path))
	}
	f.draw(draw.New(c))
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(out); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// wrap breaks text into lines no wider than width in style, at spaces.
func wrap(text string, style text.Style, width vg.Length) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && style.Width(line+" "+w) > width {
			lines, line = append(lines, line), w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}

// errPoints are medians with their distance to the minimum and maximum below and above.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
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

// summarize returns, for each x that has runs, the median and its distance to the
// minimum below and to the maximum above, in x order.
func summarize(perX [][]float64, xs []float64) errPoints {
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
	var out errPoints
	for _, q := range pts {
		out.XYs = append(out.XYs, plotter.XY{X: q.x, Y: q.med})
		out.YErrors = append(out.YErrors, struct{ Low, High float64 }{q.med - q.lo, q.hi - q.med})
	}
	return out
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
