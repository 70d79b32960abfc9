package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/internal/profile"
)

// Comparison is a real program and its proxy: their profiles, the counter-by-counter
// diff and, when they were timed, the interleaved times with the A/A band.
type Comparison struct {
	Real, Proxy *profile.Profile
	Diff        *profile.Diff
	// Times, per repetition: the real program, the real program again, and the proxy
	// (seconds). Empty when the two were not timed (h5proxy report -compare A B).
	Real1, Real2, ProxyTimes []float64
	// Verdict is the timing verdict line (h5proxy compare's); empty when not timed.
	Verdict string
	// Command made the comparison.
	Command string
}

// ComparePage builds the page of a comparison: the verdicts first, then every module's
// counters real against proxy with the differing ones marked, the records one side
// lacks, where the call sequences first differ, the timings against the A/A band, and
// both timelines.
func ComparePage(c Comparison) *Page {
	pg := NewPage(fmt.Sprintf("Real against proxy: %s and %s", filepath.Base(c.Real.Exe), filepath.Base(c.Proxy.Exe)))
	pg.Section("Verdict")
	if c.Command != "" {
		pg.Command(c.Command)
	}
	pg.Verdict("Profiles: "+c.Diff.Verdict(), c.Diff.Identical())
	if c.Verdict != "" {
		pg.Verdict(c.Verdict, strings.HasPrefix(c.Verdict, "Time: indistinguishable"))
	}
	pg.Facts([][2]string{
		{"real", strings.Join(c.Real.Command, " ")},
		{"proxy", strings.Join(c.Proxy.Command, " ")},
		{"ranks", fmt.Sprintf("%d and %d", c.Real.Ranks, c.Proxy.Ranks)},
	})

	pg.Section("Counters")
	all := append(append([]profile.CounterDiff(nil), c.Diff.Differ...), c.Diff.Equal...)
	slices.SortStableFunc(all, func(x, y profile.CounterDiff) int {
		if d := slices.Index(profile.Modules, x.Module) - slices.Index(profile.Modules, y.Module); d != 0 {
			return d
		}
		return strings.Compare(fmt.Sprint(x.File, "\x00", x.Name, "\x00", x.Rank, "\x00", x.Counter),
			fmt.Sprint(y.File, "\x00", y.Name, "\x00", y.Rank, "\x00", y.Counter))
	})
	for _, m := range profile.Modules {
		var rows [][]Cell
		differ := 0
		for _, d := range all {
			if d.Module != m {
				continue
			}
			rec := filepath.Base(d.File)
			if d.Name != "" {
				rec += ":" + d.Name
			}
			if d.Rank >= 0 {
				rec += fmt.Sprintf(" (rank %d)", d.Rank)
			}
			ne := d.A != d.B
			if ne {
				differ++
			}
			mark := "="
			if ne {
				mark = "≠"
			}
			rows = append(rows, []Cell{Str(rec), Str(d.Counter), {Text: group(d.A), Num: true, Marked: ne}, {Text: group(d.B), Num: true, Marked: ne}, {Text: mark, Marked: ne}})
		}
		if len(rows) == 0 {
			continue
		}
		// Differing counters lead, so a folded table still shows them first.
		slices.SortStableFunc(rows, func(x, y []Cell) int {
			if x[4].Marked != y[4].Marked {
				if x[4].Marked {
					return -1
				}
				return 1
			}
			return 0
		})
		pg.Table(fmt.Sprintf("%s: %d counters differ of %d compared", m, differ, len(rows)),
			[]string{"record", "counter", "real", "proxy", ""}, rows, 80)
	}
	if len(c.Diff.OnlyA)+len(c.Diff.OnlyB) > 0 {
		var rows [][]Cell
		for _, k := range c.Diff.OnlyA {
			rows = append(rows, []Cell{{Text: "real only", Marked: true}, Str(k)})
		}
		for _, k := range c.Diff.OnlyB {
			rows = append(rows, []Cell{{Text: "proxy only", Marked: true}, Str(k)})
		}
		pg.Table("Records in one profile only", []string{"side", "record"}, rows, 40)
	}
	if len(c.Diff.Sequences) > 0 {
		var rows [][]Cell
		for _, s := range c.Diff.Sequences {
			rows = append(rows, []Cell{Int(int64(s.Rank)), Int(int64(s.Index)), Str(fmt.Sprintf("%d / %d", s.LenA, s.LenB)), {Text: s.A, Marked: true}, {Text: s.B, Marked: true}})
		}
		pg.Table("Where each rank's call sequence first differs", []string{"rank", "call", "calls real / proxy", "real", "proxy"}, rows, 40)
	}

	if len(c.Real1) > 0 {
		pg.Section("Time")
		var rows [][]Cell
		var aa, ratio []float64
		for i := range c.Real1 {
			aa = append(aa, c.Real2[i]/c.Real1[i])
			ratio = append(ratio, c.ProxyTimes[i]/c.Real1[i])
			rows = append(rows, []Cell{Int(int64(i + 1)), Float("%.3f", c.Real1[i]), Float("%.3f", c.Real2[i]), Float("%.3f", c.ProxyTimes[i]), Float("%.3f", aa[i]), Float("%.3f", ratio[i])})
		}
		pg.Table("Interleaved repetitions (seconds); A/A is the real program against itself", []string{"rep", "real", "real again", "proxy", "A/A", "proxy/real"}, rows, 0)
		amed, alo, ahi := benchstat.Summary(aa)
		med, lo, hi := benchstat.Summary(ratio)
		pg.Para(fmt.Sprintf("A/A band %.3f-%.3f (median %.3f); proxy/real median %.3f (range %.3f-%.3f).", alo, ahi, amed, med, lo, hi))
		reps := make([]string, len(c.Real1))
		for i := range reps {
			reps[i] = fmt.Sprint(i + 1)
		}
		pg.Figure("Time ratios per repetition: the proxy against the real program beside the real program against itself (the A/A band).",
			LineChart("Time ratios", reps, []Series{{Name: "A/A (real again / real)", Values: aa}, {Name: "proxy / real", Values: ratio}}, "repetition", "ratio"))
	}

	pg.Section("Timelines")
	for _, side := range []struct {
		name string
		p    *profile.Profile
	}{{"real", c.Real}, {"proxy", c.Proxy}} {
		spans := profileSpans(side.p)
		if len(spans) == 0 {
			pg.Para("The " + side.name + " profile has no timestamps to draw.")
			continue
		}
		pg.Figure(fmt.Sprintf("The %s program's I/O per rank over time.", side.name),
			Timeline("I/O per rank: "+side.name, "rank", max(side.p.Ranks, 1), timelineKinds, spans, "seconds from the job's start"))
	}
	return pg
}
