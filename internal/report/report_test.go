package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
	"github.com/h5proxy/h5proxy/internal/sweep"
)

// testProfile is a two-rank profile of one shared file with a dataset, traced with n
// calls spread over the ranks (reads, writes and metadata calls).
func testProfile(n int) *profile.Profile {
	p := &profile.Profile{SchemaVersion: profile.SchemaVersion, Exe: "/usr/bin/vpic_write", Ranks: 2, Elapsed: 1.5,
		HDF5Version: "1.10.8", Traced: n > 0, Command: []string{"vpic_write", "out.h5"},
		Calls: map[string]profile.Call{"pwrite": {N: 7, Time: 0.25}, "H5Dwrite": {N: 4, Time: 0.5}}}
	p.Records = []profile.Record{
		{Module: "POSIX", File: "/data/out.h5", Rank: -1, Counters: map[string]int64{"POSIX_OPENS": 4, "POSIX_WRITES": 7, "POSIX_BYTES_WRITTEN": 1 << 20,
			"POSIX_SIZE_WRITE_100K_1M": 4, "POSIX_SIZE_WRITE_0_100": 3}, FCounters: map[string]float64{"POSIX_F_WRITE_TIME": 0.25}},
		{Module: "MPIIO", File: "/data/out.h5", Rank: -1, Counters: map[string]int64{"MPIIO_COLL_OPENS": 2, "MPIIO_COLL_WRITES": 4, "MPIIO_SIZE_WRITE_AGG_100K_1M": 4}},
		{Module: "H5F", File: "/data/out.h5", Rank: -1, Counters: map[string]int64{"H5F_OPENS": 2, "H5F_USE_MPIIO": 1}},
		{Module: "H5D", File: "/data/out.h5", Name: "/Step#0/x", Rank: -1, Counters: map[string]int64{"H5D_OPENS": 2, "H5D_WRITES": 4, "H5D_BYTES_WRITTEN": 1 << 20,
			"H5D_SIZE_WRITE_AGG_100K_1M": 4}},
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < n; i++ {
		t := 1.5 * float64(i) / float64(n)
		e := profile.Event{Rank: i % 2, Module: "POSIX", File: "/data/out.h5", Offset: int64(i) * 4096, Start: t, End: t + r.Float64()*1e-5}
		switch i % 3 {
		case 0:
			e.Call, e.Length = "pwrite", 4096
		case 1:
			e.Call, e.Length = "pread", 4096
		default:
			e.Call, e.Offset = "lseek", -1
		}
		p.Events = append(p.Events, e)
	}
	return p
}

// wellFormed checks that every SVG on the page is well-formed XML and returns how many
// there are.
func wellFormed(t *testing.T, page string) int {
	t.Helper()
	svgs := regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(page, -1)
	for i, s := range svgs {
		d := xml.NewDecoder(strings.NewReader(s))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("figure %d is not well-formed SVG: %v", i+1, err)
			}
		}
	}
	return len(svgs)
}

func render(t *testing.T, pg *Page) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := pg.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	// The SVG namespace is a name, not a fetch; nothing else may point outside.
	if rest := strings.ReplaceAll(s, `xmlns="http://www.w3.org/2000/svg"`, ""); strings.Contains(rest, "http://") || strings.Contains(rest, "https://") {
		t.Fatal("the page refers to the network")
	}
	if strings.Contains(s, "<script") {
		t.Fatal("the page carries a script; pages are static")
	}
	return s
}

func TestProfilePage(t *testing.T) {
	p := testProfile(3000)
	s := render(t, ProfilePage(p, ProfileOptions{Command: "h5proxy profile -np 2 -- vpic_write out.h5"}))
	if n := wellFormed(t, s); n != 2 {
		t.Fatalf("%d figures, want 2 (access sizes, timeline)", n)
	}
	for _, want := range []string{
		"<td>POSIX_WRITES</td><td class=\"num\">7</td>",
		"<td>POSIX_BYTES_WRITTEN</td><td class=\"num\">1,048,576</td>",
		"<td>MPIIO_COLL_WRITES</td><td class=\"num\">4</td>",
		"<td>H5F_OPENS</td><td class=\"num\">2</td>",
		"/data/out.h5:/Step#0/x",
		"h5proxy profile -np 2 -- vpic_write out.h5",
		"every traced call (3000)",
		"POSIX writes 100K_1M: 4",
		"POSIX writes 0_100: 3",
		"H5D writes 100K_1M: 4",
		"<td>pwrite</td><td class=\"num\">7</td>",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Every traced call is in some bar of the timeline: the tooltips' counts add up.
	total := 0
	for _, m := range regexp.MustCompile(`rank \d+ (?:read|write|metadata): (\d+) call`).FindAllStringSubmatch(s, -1) {
		var n int
		fmt.Sscan(m[1], &n)
		total += n
	}
	if total != len(p.Events) {
		t.Fatalf("the timeline's bars hold %d calls, the trace %d", total, len(p.Events))
	}
}

func TestProfilePageUntraced(t *testing.T) {
	p := testProfile(0)
	p.Records[0].Rank = 1
	p.Records[0].FCounters["POSIX_F_WRITE_START_TIMESTAMP"] = 0.1
	p.Records[0].FCounters["POSIX_F_WRITE_END_TIMESTAMP"] = 0.9
	s := render(t, ProfilePage(p, ProfileOptions{}))
	if !strings.Contains(s, "rank 1 write: 1 call(s), 0.1-0.9 s") {
		t.Fatal("an untraced profile's timeline does not draw the record's write interval")
	}
	if !strings.Contains(s, "vpic_write out.h5") {
		t.Fatal("the profile's own command is not shown")
	}
}

func TestMergeSpansKeepsEveryCall(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	var spans []Span
	for i := 0; i < 100000; i++ {
		s := r.Float64() * 10
		spans = append(spans, Span{Row: r.Intn(16), Kind: r.Intn(3), Start: s, End: s + r.Float64()*0.001})
	}
	bars := mergeSpans(spans, 0, 10.001, timelineColumns)
	if len(bars) > 16*3*(timelineColumns/2+1) {
		t.Fatalf("%d bars: more than rows x kinds x columns/2", len(bars))
	}
	n := 0
	for _, b := range bars {
		n += b.n
		if b.c0 > b.c1 || b.c0 < 0 || b.c1 >= timelineColumns {
			t.Fatalf("bar %+v out of range", b)
		}
	}
	if n != len(spans) {
		t.Fatalf("bars hold %d spans of %d", n, len(spans))
	}
	// Spans far apart on one row stay apart; spans one free column apart merge.
	got := mergeSpans([]Span{{0, 0, 0, 1}, {0, 0, 1.15, 2}, {0, 0, 8, 9}}, 0, 10, 100)
	if len(got) != 2 || got[0].n != 2 || got[1].n != 1 {
		t.Fatalf("merge of touching and distant spans: %+v", got)
	}
}

func TestComparePageMarksDifferences(t *testing.T) {
	a, b := testProfile(30), testProfile(60)
	b.Records[0].Counters = map[string]int64{"POSIX_OPENS": 5, "POSIX_WRITES": 7, "POSIX_BYTES_WRITTEN": 1 << 20,
		"POSIX_SIZE_WRITE_100K_1M": 4, "POSIX_SIZE_WRITE_0_100": 3}
	b.Records = b.Records[:3] // no H5D record
	d := profile.Compare(a, b)
	s := render(t, ComparePage(Comparison{Real: a, Proxy: b, Diff: d,
		Real1: []float64{1, 1.1, 0.9}, Real2: []float64{1.05, 1, 1}, ProxyTimes: []float64{1.2, 1.1, 1.0},
		Verdict: "Time: proxy/real = 1.100", Command: "h5proxy compare -- a -- b"}))
	if !strings.Contains(s, `<td>POSIX_OPENS</td><td class="num mark">4</td><td class="num mark">5</td>`) {
		t.Error("the differing POSIX_OPENS is not marked with both values")
	}
	if !strings.Contains(s, `<td>POSIX_WRITES</td><td class="num">7</td><td class="num">7</td>`) {
		t.Error("an equal counter is shown marked or not at all")
	}
	if !strings.Contains(s, "real only") || !strings.Contains(s, "/Step#0/x") {
		t.Error("the record only the real profile has is not listed")
	}
	if !strings.Contains(s, `class="verdict bad">Profiles: differs in`) {
		t.Error("the profiles' verdict is missing")
	}
	if !strings.Contains(s, "A/A band 0.909-1.111 (median 1.050)") {
		t.Error("the A/A band is not computed from the repetitions")
	}
	if n := wellFormed(t, s); n != 3 {
		t.Fatalf("%d figures, want 3 (time ratios and two timelines)", n)
	}
}

func TestSweepPage(t *testing.T) {
	axes := []sweep.Axis{{Key: "compute_time", Values: []string{"0s", "1s"}}, {Key: "mode", Values: []string{"sync", "async"}}}
	var rows []sweep.Row
	for i, v := range []float64{10, 12, 20, 22, 11, 13, 21, 23} {
		pt := sweep.Point{Run: i, Rep: i / 4, Values: []string{axes[0].Values[i%4/2], axes[1].Values[i%2]}}
		rows = append(rows, sweep.Row{Point: pt, Metrics: map[string]float64{"write.observed_rate": v}})
	}
	rows = append(rows, sweep.Row{Point: sweep.Point{Run: 8, Rep: 2, Values: []string{"0s", "sync"}}, Err: "exit status 1"})
	pg, err := SweepPage(axes, rows, SweepOptions{Command: "h5proxy sweep -reps 2 c.json compute_time=0s,1s mode=sync,async"})
	if err != nil {
		t.Fatal(err)
	}
	s := render(t, pg)
	if wellFormed(t, s) != 1 {
		t.Fatal("want one figure (the one metric present)")
	}
	// compute_time=0s mode=sync ran 10 and 11: median 10.5.
	if !strings.Contains(s, `<td>compute_time=0s mode=sync</td><td class="num">2</td><td class="num">10.5</td><td class="num">10-11</td>`) {
		t.Error("the table's medians and ranges are wrong")
	}
	if !strings.Contains(s, "exit status 1") || !strings.Contains(s, "9 (1 failed)") {
		t.Error("the failed run is not reported")
	}
	if !strings.Contains(s, "mode=async at 1s: 22.5") {
		t.Error("the figure's point for mode=async at 1s is not the median 22.5")
	}
	if _, err := SweepPage(axes, rows, SweepOptions{Metrics: []string{"read.raw_rate"}}); err == nil || !strings.Contains(err.Error(), `"read.raw_rate"`) {
		t.Fatalf("a metric no run has: err %v", err)
	}
}

func TestWriteFileLeavesNothingOnError(t *testing.T) {
	dir := t.TempDir()
	pg := NewPage("x")
	if err := pg.WriteFile(filepath.Join(dir, "missing", "p.html")); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
	path := filepath.Join(dir, "p.html")
	if err := pg.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("the directory holds %d entries, want the page alone", len(ents))
	}
}
