package report

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strings"
)

// palette are the series colours (colour-blind safe, Okabe and Ito's).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}

// color returns series i's colour.
func color(i int) string { return palette[i%len(palette)] }

// Series is one named row of values of a bar or line chart.
type Series struct {
	Name   string
	Values []float64
}

// svgOpen starts an SVG of width w and height h (pixels) with an accessible title.
func svgOpen(b *strings.Builder, w, h int, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img"><title>%s</title>`+"\n",
		w, h, w, h, html.EscapeString(title))
	fmt.Fprintf(b, `<rect x="0" y="0" width="%d" height="%d" fill="#fff"/>`+"\n", w, h)
}

// text writes a label at (x, y) anchored as given ("start", "middle", "end").
func text(b *strings.Builder, x, y float64, anchor string, size int, s string) {
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="%s" font-size="%d" fill="#333">%s</text>`+"\n", x, y, anchor, size, html.EscapeString(s))
}

// niceMax rounds v up to 1, 2 or 5 times a power of ten, so an axis ends on a round tick.
func niceMax(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// tickLabel prints an axis value compactly (1.5k, 2M).
func tickLabel(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return trimZeros(fmt.Sprintf("%.2f", v/1e9)) + "G"
	case a >= 1e6:
		return trimZeros(fmt.Sprintf("%.2f", v/1e6)) + "M"
	case a >= 1e3:
		return trimZeros(fmt.Sprintf("%.2f", v/1e3)) + "k"
	case a == math.Trunc(a):
		return fmt.Sprintf("%.0f", v)
	case a >= 1:
		return trimZeros(fmt.Sprintf("%.2f", v))
	}
	return trimZeros(fmt.Sprintf("%.3g", v))
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// legend draws the series names as coloured squares in a row from (x, y).
func legend(b *strings.Builder, x, y float64, names []string) {
	for i, n := range names {
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="10" height="10" fill="%s"/>`+"\n", x, y-9, color(i))
		text(b, x+14, y, "start", 12, n)
		x += 24 + 7*float64(len(n))
	}
}

// yAxis draws a left axis from 0 to top over the plot area's height with grid lines.
func yAxis(b *strings.Builder, left, top, width, height, ymax float64, label string) {
	for i := 0; i <= 4; i++ {
		v := ymax * float64(i) / 4
		y := top + height - height*float64(i)/4
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", left, y, left+width, y)
		text(b, left-6, y+4, "end", 11, tickLabel(v))
	}
	fmt.Fprintf(b, `<text x="14" y="%.1f" text-anchor="middle" font-size="12" fill="#333" transform="rotate(-90 14 %.1f)">%s</text>`+"\n",
		top+height/2, top+height/2, html.EscapeString(label))
}

// chartFrame starts a chart of series: the SVG, its title, a y axis from 0 to a round
// maximum above every value (NaN left out) with its label, and the legend. It returns
// the axis's maximum.
func chartFrame(b *strings.Builder, w, h int, left, top, pw, ph float64, title, ylabel string, series []Series) float64 {
	var ymax float64
	names := make([]string, len(series))
	for i, s := range series {
		names[i] = s.Name
		for _, v := range s.Values {
			if !math.IsNaN(v) {
				ymax = math.Max(ymax, v)
			}
		}
	}
	ymax = niceMax(ymax)
	svgOpen(b, w, h, title)
	text(b, float64(w)/2, 18, "middle", 14, title)
	yAxis(b, left, top, pw, ph, ymax, ylabel)
	legend(b, left, top-10, names)
	return ymax
}

// BarChart draws grouped bars: one group per category, one bar per series, with a
// y label. Bars of zero height are left out; every bar has a tooltip with its value.
func BarChart(title string, categories []string, series []Series, ylabel string) string {
	const w, h, left, right, top, bottom = 900, 320, 70, 20, 40, 60
	pw, ph := float64(w-left-right), float64(h-top-bottom)
	var b strings.Builder
	ymax := chartFrame(&b, w, h, left, top, pw, ph, title, ylabel, series)
	gw := pw / float64(max(len(categories), 1))
	bw := gw * 0.8 / float64(max(len(series), 1))
	for c, cat := range categories {
		x0 := left + gw*float64(c) + gw*0.1
		for i, s := range series {
			if c >= len(s.Values) || s.Values[c] <= 0 {
				continue
			}
			bh := ph * s.Values[c] / ymax
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
				x0+bw*float64(i), top+ph-bh, math.Max(bw-1, 1), math.Max(bh, 1), color(i),
				html.EscapeString(s.Name), html.EscapeString(cat), trimZeros(fmt.Sprintf("%.6g", s.Values[c])))
		}
		text(&b, left+gw*(float64(c)+0.5), top+ph+16, "middle", 11, cat)
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>`+"\n", left, top+ph, left+pw, top+ph)
	b.WriteString("</svg>")
	return b.String()
}

// Span is one busy interval of a timeline row: a traced call, or a record's first to
// last access. Kind picks its colour (an index into the timeline's kinds).
type Span struct {
	Row        int
	Kind       int
	Start, End float64
}

// timelineColumns is how finely a timeline keeps its spans: the run's length is cut into
// one column per pixel of the drawn width, and the spans of one row and kind that share a
// column or leave at most one free column between them are drawn as one bar. Every call
// stays visible (a bar is at least one column wide) and a trace of millions of calls
// draws at most rows x kinds x columns/2 bars, so the page opens as fast as a short one.
const timelineColumns = timelineWidth

const timelineWidth = 900

// Timeline draws rows (ranks) over time: each kind's spans as bars of its colour, merged
// where they touch at the drawing's resolution (timelineColumns). Each bar's tooltip says
// how many spans it holds and its time range.
func Timeline(title string, rowLabel string, rows int, kinds []string, spans []Span, xlabel string) string {
	const left, right, top, bottom = 70, 20, 46, 44
	rowH := 18.0
	if rows > 32 {
		rowH = math.Max(4, 576/float64(rows))
	}
	h := int(top + bottom + rowH*float64(max(rows, 1)))
	w := timelineWidth + left + right
	pw := float64(timelineWidth)
	t0, t1 := math.Inf(1), math.Inf(-1)
	for _, s := range spans {
		t0, t1 = math.Min(t0, s.Start), math.Max(t1, s.End)
	}
	if len(spans) == 0 {
		t0, t1 = 0, 1
	}
	t0 = math.Min(t0, 0)
	if t1 <= t0 {
		t1 = t0 + 1e-6
	}
	var b strings.Builder
	svgOpen(&b, w, h, title)
	text(&b, float64(w)/2, 18, "middle", 14, title)
	legend(&b, left, 36, kinds)
	// The x axis: five ticks.
	for i := 0; i <= 5; i++ {
		x := left + pw*float64(i)/5
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#eee"/>`+"\n", x, top, x, top+rowH*float64(rows))
		text(&b, x, top+rowH*float64(rows)+16, "middle", 11, tickLabel(t0+(t1-t0)*float64(i)/5))
	}
	text(&b, left+pw/2, float64(h)-6, "middle", 12, xlabel)
	fmt.Fprintf(&b, `<text x="14" y="%.1f" text-anchor="middle" font-size="12" fill="#333" transform="rotate(-90 14 %.1f)">%s</text>`+"\n",
		top+rowH*float64(rows)/2, top+rowH*float64(rows)/2, html.EscapeString(rowLabel))
	step := max(1, int(math.Ceil(float64(rows)/24)))
	for r := 0; r < rows; r += step {
		text(&b, left-6, top+rowH*(float64(r)+0.5)+4, "end", 11, fmt.Sprint(r))
	}
	for _, bar := range mergeSpans(spans, t0, t1, timelineColumns) {
		x0 := left + pw*float64(bar.c0)/timelineColumns
		x1 := left + pw*float64(bar.c1+1)/timelineColumns
		y := top + rowH*float64(bar.row) + 1
		fmt.Fprintf(&b, `<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s"><title>rank %d %s: %d call(s), %s-%s s</title></rect>`+"\n",
			x0, y, x1-x0, rowH-2, color(bar.kind), bar.row, html.EscapeString(kinds[bar.kind]), bar.n,
			trimZeros(fmt.Sprintf("%.6f", bar.start)), trimZeros(fmt.Sprintf("%.6f", bar.end)))
	}
	b.WriteString("</svg>")
	return b.String()
}

// bar is a run of adjacent busy columns of one row and kind.
type bar struct {
	row, kind  int
	c0, c1     int // first and last column
	n          int // spans merged
	start, end float64
}

// mergeSpans maps spans onto columns columns over [t0, t1] and merges, per row and
// kind, the spans whose columns overlap or lie at most one free column apart.
func mergeSpans(spans []Span, t0, t1 float64, columns int) []bar {
	col := func(t float64) int {
		c := int((t - t0) / (t1 - t0) * float64(columns))
		return min(max(c, 0), columns-1)
	}
	sorted := make([]Span, len(spans))
	copy(sorted, spans)
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.Row != b.Row {
			return a.Row < b.Row
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Start < b.Start
	})
	var out []bar
	for _, s := range sorted {
		c0, c1 := col(s.Start), col(s.End)
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.row == s.Row && last.kind == s.Kind && c0 <= last.c1+2 {
				last.c1 = max(last.c1, c1)
				last.n++
				last.end = math.Max(last.end, s.End)
				continue
			}
		}
		out = append(out, bar{row: s.Row, kind: s.Kind, c0: c0, c1: c1, n: 1, start: s.Start, end: s.End})
	}
	return out
}

// LineChart draws series over the x values xs (given as labels, evenly spaced when not
// numeric), each point marked and carrying a tooltip. Lines join a series' points in x
// order; a NaN value leaves a gap.
func LineChart(title string, xs []string, series []Series, xlabel, ylabel string) string {
	const w, h, left, right, top, bottom = 900, 340, 70, 20, 46, 50
	pw, ph := float64(w-left-right), float64(h-top-bottom)
	var b strings.Builder
	ymax := chartFrame(&b, w, h, left, top, pw, ph, title, ylabel, series)
	xAt := func(i int) float64 {
		if len(xs) == 1 {
			return left + pw/2
		}
		return left + pw*0.05 + pw*0.9*float64(i)/float64(len(xs)-1)
	}
	for i, x := range xs {
		text(&b, xAt(i), top+ph+16, "middle", 11, x)
	}
	text(&b, left+pw/2, float64(h)-8, "middle", 12, xlabel)
	for si, s := range series {
		var path []string
		for i, v := range s.Values {
			if i >= len(xs) || math.IsNaN(v) {
				continue
			}
			path = append(path, fmt.Sprintf("%.1f,%.1f", xAt(i), top+ph-ph*v/ymax))
		}
		if len(path) > 1 {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", color(si), strings.Join(path, " "))
		}
		for i, v := range s.Values {
			if i >= len(xs) || math.IsNaN(v) {
				continue
			}
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s at %s: %s</title></circle>`+"\n",
				xAt(i), top+ph-ph*v/ymax, color(si), html.EscapeString(s.Name), html.EscapeString(xs[i]), trimZeros(fmt.Sprintf("%.6g", v)))
		}
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>`+"\n", left, top+ph, left+pw, top+ph)
	b.WriteString("</svg>")
	return b.String()
}
