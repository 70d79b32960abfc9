package profile

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plot draws base-sizes.{png,svg}, the access-size histograms of every module with I/O
// (reads and writes per Darshan bin), and base-timeline.{png,svg}, each rank's read,
// write and metadata activity over time: the traced calls when there are events, else
// each record's first-to-last read and write (as Darshan's timeline without DXT). It
// returns the files written.
func (p *Profile) Plot(base string) ([]string, error) {
	var files []string
	hist, err := p.sizePlot()
	if err != nil {
		return nil, err
	}
	tl := p.timelinePlot()
	for _, pl := range []struct {
		p    *plot.Plot
		name string
		w, h vg.Length
	}{{hist, "-sizes", 24 * vg.Centimeter, 10 * vg.Centimeter}, {tl, "-timeline", 24 * vg.Centimeter, vg.Length(4+p.Ranks) * vg.Centimeter}} {
		for _, ext := range []string{".png", ".svg"} {
			f := base + pl.name + ext
			if err := pl.p.Save(pl.w, pl.h, f); err != nil {
				return files, fmt.Errorf("plot %s: %w", filepath.Base(f), err)
			}
			files = append(files, f)
		}
	}
	return files, nil
}

func (p *Profile) sizePlot() (*plot.Plot, error) {
	pl := plot.New()
	pl.Title.Text = "Access sizes (Darshan bins, all ranks)"
	pl.Y.Label.Text = "calls"
	pl.NominalX(BinLabels...)
	pl.Legend.Top = true
	var series []struct {
		label string
		v     plotter.Values
	}
	for _, m := range []string{"POSIX", "MPIIO", "H5D"} {
		c, _, n := p.Totals(m)
		if n == 0 {
			continue
		}
		for _, write := range []bool{false, true} {
			v := make(plotter.Values, len(BinLabels))
			any := false
			for i, b := range BinLabels {
				v[i] = float64(c[binCounter(m, write, b)])
				any = any || v[i] > 0
			}
			if any {
				series = append(series, struct {
					label string
					v     plotter.Values
				}{fmt.Sprintf("%s %s", m, map[bool]string{false: "reads", true: "writes"}[write]), v})
			}
		}
	}
	w := vg.Points(40) / vg.Length(max(len(series), 1))
	for i, s := range series {
		bars, err := plotter.NewBarChart(s.v, w)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.Offset = w * vg.Length(float64(i)-float64(len(series)-1)/2)
		pl.Add(bars)
		pl.Legend.Add(s.label, bars)
	}
	return pl, nil
}

// segments is one kind of activity's horizontal bars on the timeline.
type segments struct {
	label string
	c     color.Color
	xys   []plotter.XY // pairs: start, end at y = rank
}

func (s *segments) Plot(c draw.Canvas, pl *plot.Plot) {
	trX, trY := pl.Transforms(&c)
	ls := draw.LineStyle{Color: s.c, Width: vg.Points(6)}
	for i := 0; i+1 < len(s.xys); i += 2 {
		a, b := s.xys[i], s.xys[i+1]
		x0, x1 := trX(a.X), trX(b.X)
		if x1-x0 < vg.Points(1) {
			x1 = x0 + vg.Points(1)
		}
		c.StrokeLine2(ls, x0, trY(a.Y), x1, trY(b.Y))
	}
}

// Thumbnail draws the legend's sample of the kind's color.
func (s *segments) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.c, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}})
}

func (s *segments) DataRange() (xmin, xmax, ymin, ymax float64) {
	if len(s.xys) == 0 {
		return 0, 0, 0, 0
	}
	xmin, ymin, xmax, ymax = s.xys[0].X, s.xys[0].Y, s.xys[0].X, s.xys[0].Y
	for _, p := range s.xys {
		xmin, xmax, ymin, ymax = min(xmin, p.X), max(xmax, p.X), min(ymin, p.Y), max(ymax, p.Y)
	}
	return xmin, xmax, ymin - 0.5, ymax + 0.5
}

func (p *Profile) timelinePlot() *plot.Plot {
	pl := plot.New()
	pl.Title.Text = "I/O per rank over time"
	pl.X.Label.Text = "seconds from the job's start"
	pl.Y.Label.Text = "rank"
	pl.Legend.Top = true
	kinds := []*segments{
		{label: "read", c: plotutil.Color(0)},
		{label: "write", c: plotutil.Color(1)},
		{label: "metadata", c: plotutil.Color(2)},
	}
	add := func(k int, rank int, t0, t1 float64) {
		kinds[k].xys = append(kinds[k].xys, plotter.XY{X: t0, Y: float64(rank)}, plotter.XY{X: t1, Y: float64(rank)})
	}
	if len(p.Events) > 0 {
		for _, e := range p.Events {
			k := 2
			switch {
			case e.Length > 0 && isRead(e.Call):
				k = 0
			case e.Length > 0:
				k = 1
			}
			add(k, e.Rank, e.Start, e.End)
		}
	} else {
		for _, r := range p.RankRecords {
			m := r.Module
			if t0, t1 := r.FCounters[m+"_F_READ_START_TIMESTAMP"], r.FCounters[m+"_F_READ_END_TIMESTAMP"]; t1 > 0 {
				add(0, r.Rank, t0, t1)
			}
			if t0, t1 := r.FCounters[m+"_F_WRITE_START_TIMESTAMP"], r.FCounters[m+"_F_WRITE_END_TIMESTAMP"]; t1 > 0 {
				add(1, r.Rank, t0, t1)
			}
			if t0, t1 := r.FCounters[m+"_F_OPEN_START_TIMESTAMP"], r.FCounters[m+"_F_OPEN_END_TIMESTAMP"]; t1 > 0 {
				add(2, r.Rank, t0, t1)
			}
		}
	}
	for _, k := range []*segments{kinds[2], kinds[0], kinds[1]} { // reads and writes drawn over metadata
		if len(k.xys) == 0 {
			continue
		}
		pl.Add(k)
		pl.Legend.Add(k.label, k)
	}
	ticks := make([]plot.Tick, p.Ranks)
	for r := range ticks {
		ticks[r] = plot.Tick{Value: float64(r), Label: fmt.Sprint(r)}
	}
	pl.Y.Tick.Marker = plot.ConstantTicks(ticks)
	return pl
}

func isRead(call string) bool {
	return strings.Contains(call, "read") || strings.Contains(call, "Dread")
}
