package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/internal/report"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// iorPage is an IOR test's page: the command line, IOR's results table (a row per access
// and iteration, read from each phase's kernel lines), the bandwidth of each iteration
// per access, and each access's maximum and mean.
func iorPage(command string, rep *proxy.Report) (*report.Page, error) {
	pg := report.NewPage("IOR test: " + command)
	pg.Section("Test")
	pg.Command(command)
	pg.Facts([][2]string{{"ranks", strconv.Itoa(rep.Ranks)}, {"layout", rep.Layout}, {"HDF5", rep.HDF5Version}, {"MPI", rep.MPIVersion}})
	head := []string{"access", "bw (MiB/s)", "IOPS", "latency (s)", "block (KiB)", "xfer (KiB)", "open (s)", "wr/rd (s)", "close (s)", "total (s)", "iter"}
	var rows [][]report.Cell
	bw := map[string]map[int]float64{} // access -> iteration -> MiB/s
	iters := 0
	for _, ph := range rep.Phases {
		for _, l := range ph.Kernel {
			var it int
			if _, err := fmt.Sscanf(l.Name, "iter%d-bw", &it); err != nil {
				continue
			}
			f := strings.Fields(l.Text)
			if len(f) != len(head) {
				return nil, fmt.Errorf("IOR results row %q: %d columns, want %d", l.Text, len(f), len(head))
			}
			row := []report.Cell{report.Str(f[0])}
			for _, v := range f[1:] {
				row = append(row, report.Cell{Text: v, Num: true})
			}
			rows = append(rows, row)
			if bw[f[0]] == nil {
				bw[f[0]] = map[int]float64{}
			}
			bw[f[0]][it] = l.Value
			iters = max(iters, it+1)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("the IOR test's report has no results rows")
	}
	pg.Section("Results")
	pg.Table("IOR's results table", head, rows, 0)
	xs := make([]string, iters)
	for i := range xs {
		xs[i] = strconv.Itoa(i)
	}
	var series []report.Series
	var summary [][]report.Cell
	for _, access := range []string{patterns.PhaseWrite.String(), patterns.PhaseRead.String()} {
		byIter, ok := bw[access]
		if !ok {
			continue
		}
		s := report.Series{Name: access}
		best, sum := 0.0, 0.0
		for i := 0; i < iters; i++ {
			v, ok := byIter[i]
			if !ok {
				v = math.NaN()
			} else {
				best, sum = math.Max(best, v), sum+v
			}
			s.Values = append(s.Values, v)
		}
		series = append(series, s)
		summary = append(summary, []report.Cell{report.Str(access), report.Float("%.2f", best), report.Float("%.2f", sum/float64(len(byIter))), report.Int(int64(len(byIter)))})
	}
	pg.Figure("Bandwidth of each iteration (MiB/s, IOR's bw: all tasks' bytes over the iteration's total time).",
		report.LineChart("Bandwidth per iteration", xs, series, "iteration", "MiB/s"))
	pg.Table("Per access", []string{"access", "max (MiB/s)", "mean (MiB/s)", "iterations"}, summary, 0)
	return pg, nil
}
