package sweep

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

func TestParseAxes(t *testing.T) {
	axes, err := ParseAxes([]string{"DIM_1=1 M, 2M,4 M", "mode=sync,async"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Axis{{"DIM_1", []string{"1 M", "2M", "4 M"}}, {"mode", []string{"sync", "async"}}}
	if !reflect.DeepEqual(axes, want) {
		t.Errorf("got %+v, want %+v", axes, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "no key to sweep"},
		{[]string{"DIM_1"}, `argument "DIM_1" is not KEY=v1,v2,...`},
		{[]string{"=1,2"}, `argument "=1,2" is not KEY=v1,v2,...`},
		{[]string{"DIM_1=1,,2"}, `key "DIM_1": empty value in "1,,2"`},
		{[]string{"DIM_1="}, `key "DIM_1": empty value`},
		{[]string{"DIM_1=1,2,1"}, `key "DIM_1": value "1" given twice`},
		{[]string{"mode=sync", "MODE=async"}, `key "MODE" swept twice`},
	} {
		_, err := ParseAxes(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseAxes(%q): %v, want %q", c.args, err, c.want)
		}
	}
}

// TestGrid: every combination once per repetition, repetitions interleaved, the last key
// varying fastest; runs numbered in order.
func TestGrid(t *testing.T) {
	axes := []Axis{{"a", []string{"1", "2"}}, {"b", []string{"x", "y", "z"}}}
	pts := Grid(axes, 2)
	if len(pts) != 12 {
		t.Fatalf("%d points, want 12", len(pts))
	}
	var got []string
	for i, p := range pts {
		if p.Run != i || p.Rep != i/6 {
			t.Errorf("point %d: run %d rep %d", i, p.Run, p.Rep)
		}
		got = append(got, p.Label(axes))
	}
	combos := []string{"a=1 b=x", "a=1 b=y", "a=1 b=z", "a=2 b=x", "a=2 b=y", "a=2 b=z"}
	if want := append(combos, combos...); !reflect.DeepEqual(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}

func report(phase string, rate float64) []byte {
	return []byte(`{"schema_version":1,"ranks":2,"pattern":"vpic","phases":[{"phase":"` + phase + `","bytes":64,"observed_rate":` +
		jsonNum(rate) + `,"verified":true,"raw_time":{"min":1,"max":3,"mean":2,"sum":4},"files":["f.h5"],"per_step":[{"step":0}],
		"kernel_metrics":[{"Name":"Total runtime","Value":"1.5","Unit":"s"},{"Name":"Mode","Value":"SYNC","Unit":""}]}]}`)
}

func jsonNum(f float64) string { b, _ := json.Marshal(f); return string(b) }

// TestFlatten: numbers, booleans, statistics and kernel metrics by name; phase names
// repeated over a run's reports get a suffix; text and lists are left out.
func TestFlatten(t *testing.T) {
	m, err := Flatten([][]byte{report("write", 10), report("read", 20), report("write", 30)})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"ranks": 2}
	for _, ph := range []struct {
		name string
		rate float64
	}{{"write", 10}, {"read", 20}, {"write_2", 30}} {
		p := ph.name + "."
		want[p+"bytes"], want[p+"observed_rate"], want[p+"verified"] = 64, ph.rate, 1
		want[p+"raw_time.min"], want[p+"raw_time.max"], want[p+"raw_time.mean"], want[p+"raw_time.sum"] = 1, 3, 2, 4
		want[p+"kernel.total_runtime"] = 1.5
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %v\nwant %v", m, want)
	}
	if _, err := Flatten([][]byte{[]byte("{")}); err == nil || !strings.Contains(err.Error(), "report 0") {
		t.Errorf("bad JSON: %v", err)
	}
}

// TestRunRowsOutputs runs a grid through a fake runner: one row per run with the flattened
// metrics, a failed run kept with its error (and returned), progress lines with an ETA,
// the CSV and JSON carrying every row and metric.
func TestRunRowsOutputs(t *testing.T) {
	axes := []Axis{{"a", []string{"1", "2"}}, {"b", []string{"x", "y"}}}
	pts := Grid(axes, 2)
	run := func(p Point) ([][]byte, error) {
		if p.Run == 5 {
			return nil, errors.New("boom")
		}
		return [][]byte{report("write", float64(10*p.Run))}, nil
	}
	var progress bytes.Buffer
	rows, err := Run(context.Background(), axes, pts, run, &progress, false)
	if err == nil || !strings.Contains(err.Error(), "run 5 (a=1 b=y, rep 1): boom") {
		t.Errorf("error %v", err)
	}
	if len(rows) != 8 || rows[5].Err != "boom" || rows[5].Metrics != nil || rows[6].Metrics["write.observed_rate"] != 60 {
		t.Fatalf("rows %+v", rows)
	}
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if len(lines) != 10 || !strings.HasPrefix(lines[0], "h5proxy sweep: [1/8] a=1 b=x rep 1") || !strings.Contains(lines[2], "ETA ") {
		t.Errorf("progress:\n%s", progress.String())
	}

	var c bytes.Buffer
	if err := WriteCSV(&c, axes, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(c.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 9 || !reflect.DeepEqual(recs[0][:6], []string{"run", "rep", "a", "b", "error", "seconds"}) {
		t.Fatalf("CSV head %q, %d records", recs[0], len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	if r := recs[7]; r[0] != "6" || r[1] != "1" || r[2] != "2" || r[3] != "x" || r[col["write.observed_rate"]] != "60" || r[col["ranks"]] != "2" {
		t.Errorf("CSV row 6: %q", r)
	}
	if r := recs[6]; r[col["error"]] != "boom" || r[col["write.observed_rate"]] != "" {
		t.Errorf("CSV failed row: %q", r)
	}

	gotAxes, back, err := ReadCSV(strings.NewReader(c.String()))
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].Seconds = back[i].Seconds // printed to 6 digits
	}
	if !reflect.DeepEqual(gotAxes, axes) || !reflect.DeepEqual(back, rows) {
		t.Errorf("read back axes %+v rows %+v\nwant %+v %+v", gotAxes, back, axes, rows)
	}
	if _, _, err := ReadCSV(strings.NewReader("a,b\n1,2\n")); err == nil || !strings.Contains(err.Error(), "not a sweep's") {
		t.Errorf("foreign CSV: %v", err)
	}

	var j bytes.Buffer
	if err := WriteJSON(&j, axes, rows); err != nil {
		t.Fatal(err)
	}
	var doc []jsonRow
	if err := json.Unmarshal(j.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc) != 8 || doc[6].Config["a"] != "2" || doc[6].Config["b"] != "x" || doc[6].Metrics["write.raw_time.max"] != 3 || doc[5].Error != "boom" {
		t.Errorf("JSON rows %+v", doc)
	}
}

// TestRunInterrupted: once the context ends no run starts; the rows done are returned.
func TestRunInterrupted(t *testing.T) {
	axes := []Axis{{"a", []string{"1", "2", "3"}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := 0
	run := func(p Point) ([][]byte, error) {
		ran++
		if p.Run == 1 {
			cancel()
		}
		return [][]byte{report("write", 1)}, nil
	}
	rows, err := Run(ctx, axes, Grid(axes, 2), run, io.Discard, false)
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "after 2 of 6 runs") || len(rows) != 2 || ran != 2 {
		t.Errorf("err %v, %d rows, %d runs; want interrupted after 2 of 6", err, len(rows), ran)
	}
}

func TestNumericValues(t *testing.T) {
	for _, c := range []struct {
		in      []string
		want    []float64
		numeric bool
	}{
		{[]string{"1", "2", "8"}, []float64{1, 2, 8}, true},
		{[]string{"1 M", "4MiB", "64K"}, []float64{1 << 20, 4 << 20, 64 << 10}, true},
		{[]string{"0s", "250ms", "1s"}, []float64{0, 0.25, 1}, true},
		{[]string{"YES", "NO"}, []float64{0, 1}, false},
		{[]string{"sync", "1"}, []float64{0, 1}, false},
	} {
		got, numeric := numericValues(c.in)
		if numeric != c.numeric || !reflect.DeepEqual(got, c.want) {
			t.Errorf("numericValues(%q) = %v, %v; want %v, %v", c.in, got, numeric, c.want, c.numeric)
		}
	}
}

// TestPlot draws a numeric and a categorical x axis: both files are written, the PNG
// decodes to the plot's size and the SVG is XML with the axis and legend text; asking
// for a metric no run has, or an x that was not swept, is an error naming it.
func TestPlot(t *testing.T) {
	axes := []Axis{{"DIM_1", []string{"1 M", "2 M", "4 M"}}, {"mode", []string{"sync", "async"}}}
	var rows []Row
	for _, p := range Grid(axes, 3) {
		rows = append(rows, Row{Point: p, Metrics: map[string]float64{"write.observed_rate": float64((p.Run%6+1)<<20) * float64(1+p.Rep)}})
	}
	dir := t.TempDir()
	for _, spec := range []PlotSpec{{"write.observed_rate", "DIM_1", "mode"}, {"write.observed_rate", "mode", "DIM_1"}, {"write.observed_rate", "DIM_1", ""}} {
		base := filepath.Join(dir, spec.X+"-"+spec.By)
		files, err := Plot(axes, rows, spec, base)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(files, []string{base + ".png", base + ".svg"}) {
			t.Errorf("files %q", files)
		}
		f, err := os.Open(base + ".png")
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s.png: %v", base, err)
		}
		if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 250 {
			t.Errorf("%s.png is %v", base, b)
		}
		text := svgText(t, base+".svg")
		for _, want := range []string{"MiB/s", spec.X, "repetitions"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s.svg lacks %q: %s", base, want, text)
			}
		}
		if spec.By != "" && !strings.Contains(text, spec.By+"=") {
			t.Errorf("%s.svg has no legend of %s: %s", base, spec.By, text)
		}
	}
	if _, err := Plot(axes, rows, PlotSpec{"write.nothing", "DIM_1", ""}, filepath.Join(dir, "x")); err == nil || !strings.Contains(err.Error(), `-metric "write.nothing"`) {
		t.Errorf("unknown metric: %v", err)
	}
	if _, err := Plot(axes, rows, PlotSpec{"write.observed_rate", "DIM_2", ""}, filepath.Join(dir, "x")); err == nil || !strings.Contains(err.Error(), `-x "DIM_2": not a swept key (swept: DIM_1, mode)`) {
		t.Errorf("unknown x: %v", err)
	}
}

// svgText parses an SVG file as XML and returns its character data.
func svgText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	var text strings.Builder
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = x.Name.Local
			}
		case xml.CharData:
			text.Write(x)
			text.WriteByte(' ')
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q", path, root)
	}
	return text.String()
}

// TestFigureLayout checks what each kind of x axis is drawn with (a numeric axis: medians
// joined by lines; a categorical one: each line's points side by side within a category,
// unjoined, all inside the axis) and the figure's geometry: the legend lies beside the
// data area, never over it, and every line of the title fits the figure.
func TestFigureLayout(t *testing.T) {
	axes := []Axis{{"mpiio.cb_nodes", []string{"1", "2", "3", "4"}}, {"COLLECTIVE_DATA", []string{"YES", "NO"}}, {"mode", []string{"sync", "async", "cache"}}}
	var rows []Row
	for _, p := range Grid(axes, 2) {
		rows = append(rows, Row{Point: p, Metrics: map[string]float64{"write.observed_rate": float64((p.Run%7+1)<<20) * float64(1+p.Rep)}})
	}
	for _, c := range []struct {
		spec    PlotSpec
		numeric bool
	}{
		{PlotSpec{"write.observed_rate", "mpiio.cb_nodes", "COLLECTIVE_DATA"}, true},
		{PlotSpec{"write.observed_rate", "COLLECTIVE_DATA", "mode"}, false},
		{PlotSpec{"write.observed_rate", "mode", ""}, false},
	} {
		f, err := newFigure(axes, rows, c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if f.numeric != c.numeric {
			t.Errorf("%s: numeric %v, want %v", c.spec.X, f.numeric, c.numeric)
		}
		var lines, scatters [][]float64 // x of each plotted line's and scatter's points
		for _, l := range f.lines {
			lines = append(lines, xsOf(l.XYs))
		}
		for _, sc := range f.points {
			scatters = append(scatters, xsOf(sc.XYs))
		}
		if c.numeric {
			// One line per value of By through 1..4, each moved by at most half the dodge so
			// that their error bars stand apart.
			if len(lines) != 2 || lines[0][0] == lines[1][0] {
				t.Errorf("%s: lines at %v, want two, apart", c.spec.X, lines)
			}
			for _, xs := range lines {
				for i, x := range xs {
					if len(xs) != 4 || math.Abs(x-float64(i+1)) > lineDodge/2+1e-9 {
						t.Errorf("%s: line through %v, want 1..4 within %v", c.spec.X, xs, lineDodge/2)
					}
				}
			}
		}
		if !c.numeric {
			if len(lines) != 0 {
				t.Errorf("%s: categories joined by lines %v", c.spec.X, lines)
			}
			n := len(axes[axisIndex(axes, c.spec.X)].Values)
			seen := map[float64]bool{}
			for _, xs := range scatters {
				for i, x := range xs {
					if x < float64(i)-0.5 || x > float64(i)+0.5 || seen[x] {
						t.Errorf("%s: point at %v is outside category %d or on another line's point", c.spec.X, x, i)
					}
					seen[x] = true
				}
			}
			if f.p.X.Min > -0.5 || f.p.X.Max < float64(n)-0.5 {
				t.Errorf("%s: x axis %v..%v cuts the outer groups", c.spec.X, f.p.X.Min, f.p.X.Max)
			}
		}
		// Geometry on the figure's own canvas.
		c0 := draw.New(vgimg.New(figWidth, figHeight))
		pa, la := f.areas(c0)
		data := f.p.DataCanvas(pa).Rectangle
		leg := f.legend.Rectangle(la)
		if leg.Min.X < data.Max.X || leg.Max.X > c0.Max.X || leg.Min.Y < c0.Min.Y || leg.Max.Y > data.Max.Y {
			t.Errorf("%s: legend %v is not beside the data area %v within %v", c.spec.X, leg, data, c0.Rectangle)
		}
		for _, line := range strings.Split(f.p.Title.Text, "\n") {
			if w := f.p.Title.TextStyle.Width(line); w > pa.Size().X {
				t.Errorf("%s: title line %q is %v wide, the plot %v", c.spec.X, line, w, pa.Size().X)
			}
		}
		if !strings.Contains(f.p.Title.Text, "\n") {
			t.Errorf("%s: the long title %q was not wrapped", c.spec.X, f.p.Title.Text)
		}
	}
}

func xsOf(xys plotter.XYs) []float64 {
	out := make([]float64, len(xys))
	for i, p := range xys {
		out[i] = p.X
	}
	return out
}
