package ior

import (
	"fmt"
	"math"
	"strings"

	"github.com/h5proxy/h5proxy/patterns"
)

// Units of IOR's output (iordef.h).
const (
	kibi = 1024.0
	mebi = 1024.0 * 1024
	gibi = 1024.0 * 1024 * 1024
	mega = 1e6
)

// Version is the IOR release whose output format h5proxy prints (IOR 3.3.0: the results
// table with IOPS and latency, the summary with the stonewalling columns).
const Version = "3.3.0"

// Iteration is one row of IOR's results table, from one step of a phase.
type Iteration struct {
	Access                   string // write or read
	Bytes                    float64
	BW, IOPS, Latency        float64 // bytes/s, transfers/s, seconds
	Open, WrRd, Close, Total float64 // seconds
	Iter                     int
	BlockKiB, XferKiB        float64
}

// Results are a finished phase's rows, timed as IOR's ReduceIterResults times them
// from each task's timestamps around its open, transfers and close: open from the
// earliest open start to the latest open end, wr/rd from the earliest end of an open to
// the latest start of a close (IOR: the earliest transfer start to the latest transfer
// end; its HDF5 backend creates datasets and its -e fsync runs between them), close from
// the earliest close start to the latest close end, total from the earliest open start
// to the latest close end. h5proxy's own data preparation and verification between the
// open and the close are taken out of each rank's stamps. bw is the bytes of all tasks
// over total; IOPS the transfers over wr/rd; latency the fastest rank's transfer time
// over the transfers of a block (IOR divides by blockSize/transferSize and prints rank
// 0's). A row's iteration is its step's, counted from the phase's iteration when the
// session ran the iterations one at a time (one step each).
func (p *Pattern) Results(t patterns.PhaseTimes) []Iteration {
	var out []Iteration
	perBlock := float64(p.C.transfers())
	for _, st := range t.Steps {
		it := Iteration{Access: t.Phase.String(), Bytes: st.Bytes, Iter: t.Iteration + st.Step, BlockKiB: float64(p.C.BlockSize) / kibi, XferKiB: float64(p.C.TransferSize) / kibi,
			Open: span(st.FirstStart.Min, st.FirstEnd.Max), WrRd: span(st.FirstEnd.Min, st.LastStart.Max), Close: span(st.LastStart.Min, st.LastEnd.Max),
			Total: span(st.FirstStart.Min, st.LastEnd.Max)}
		it.BW = ratio(st.Bytes, it.Total)
		it.IOPS = ratio(st.Bytes/float64(p.C.TransferSize), it.WrRd)
		it.Latency = st.Inner.Min / perBlock
		out = append(out, it)
	}
	return out
}

// span is the time from a to b, 0 when unmeasured (no stamps).
func span(a, b float64) float64 {
	if a <= 0 || b < a {
		return 0
	}
	return b - a
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// ppDouble is IOR's PPDouble: left-justified in 10 columns, 6 decimals below 1, 2 below
// 3600, none above; negative numbers print as "-".
func ppDouble(v float64, sep string) string {
	if v < 0 {
		return "   -      " + sep
	}
	prec := 0
	switch {
	case v < 1:
		prec = 6
	case v < 3600:
		prec = 2
	}
	return fmt.Sprintf("%-10.*f%s", prec, v, sep)
}

// ResultsHeader is the results table's heading (ior-output.c: PrintTableHeader), after
// "Results: ".
const ResultsHeader = "access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   total(s)   iter\n" +
	"------    ---------  ----       ----------  ---------- ---------  --------   --------   --------   --------   ----"

// Row is an iteration's line of the results table (PrintReducedResult).
func (it Iteration) Row() string {
	return fmt.Sprintf("%-10s", it.Access) + ppDouble(it.BW/mebi, " ") + ppDouble(it.IOPS, " ") + ppDouble(it.Latency, "  ") +
		ppDouble(it.BlockKiB, " ") + ppDouble(it.XferKiB, " ") + ppDouble(it.Open, " ") + ppDouble(it.WrRd, " ") +
		ppDouble(it.Close, " ") + ppDouble(it.Total, " ") + fmt.Sprintf("%-4d", it.Iter)
}

// RemoveRow is the line of the files' removal (PrintRemoveTiming).
func RemoveRow(seconds float64, iter int) string {
	return "remove    -          -          -           -          -          -          -          -          " + ppDouble(seconds, " ") + fmt.Sprintf("%-4d", iter)
}

// SummaryHeader is the heading of "Summary of all tests:" (PrintLongSummaryHeader).
var SummaryHeader = fmt.Sprintf("%-9s %10s %10s %10s %10s %10s %10s %10s %10s %10s", "Operation", "Max(MiB)", "Min(MiB)", "Mean(MiB)", "StdDev",
	"Max(OPs)", "Min(OPs)", "Mean(OPs)", "StdDev", "Mean(s)") + " Stonewall(s) Stonewall(MiB)" +
	" Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt " + fmt.Sprintf("%8s %8s %9s %5s", " blksiz", "xsize", "aggs(MiB)", "API") + " RefNum"

// stats are a sample's max, min, mean and population standard deviation (bw_ops_values).
func stats(v []float64) (mx, mn, mean, sd float64) {
	if len(v) == 0 {
		return 0, 0, 0, 0
	}
	mx, mn = v[0], v[0]
	for _, x := range v {
		mx, mn, mean = math.Max(mx, x), math.Min(mn, x), mean+x
	}
	mean /= float64(len(v))
	for _, x := range v {
		sd += (mean - x) * (mean - x)
	}
	return mx, mn, mean, math.Sqrt(sd / float64(len(v)))
}

// SummaryRow is an operation's line of "Summary of all tests:" (PrintLongSummaryOneOperation)
// over its iterations: bandwidths of each iteration's bytes over its total time, operations
// per second the same in transfers; no stonewalling (NA).
func (p *Pattern) SummaryRow(its []Iteration, tasks int) string {
	c := p.C
	bws, ops, times := make([]float64, len(its)), make([]float64, len(its)), make([]float64, len(its))
	agg := 0.0
	for i, it := range its {
		bws[i], ops[i], times[i] = ratio(it.Bytes, it.Total)/mebi, ratio(it.Bytes/float64(c.TransferSize), it.Total), it.Total
		if i == 0 {
			agg = it.Bytes
		}
	}
	bmax, bmin, bmean, bsd := stats(bws)
	omax, omin, omean, osd := stats(ops)
	_, _, tmean, _ := stats(times)
	access := "write"
	if len(its) > 0 {
		access = its[0].Access
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s ", access)
	for _, v := range []float64{bmax, bmin, bmean, bsd, omax, omin, omean, osd} {
		fmt.Fprintf(&b, "%10.2f ", v)
	}
	fmt.Fprintf(&b, "%10.5f %10s %13s ", tmean, "NA", "NA")
	fmt.Fprintf(&b, "%5d %6d %3d %4d %3d %5d %8d %9d %4d %6d %8d %8d %9.1f %3s %6d", 0, tasks, tasks, c.Repetitions, b2i(c.FilePerProc),
		b2i(c.ReorderTasks), c.TaskPerNodeOffset, b2i(c.ReorderRandom), c.ReorderSeed, c.Segments, c.BlockSize, c.TransferSize,
		agg/mebi, c.API, c.RefNum)
	return b.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// MaxLine is "Max Write:" or "Max Read:" (PrintShortSummary): the best iteration's
// bandwidth in MiB/s and MB/s.
func MaxLine(its []Iteration) string {
	best := 0.0
	for _, it := range its {
		best = math.Max(best, it.BW)
	}
	if len(its) > 0 && its[0].Access == "read" {
		return fmt.Sprintf("Max Read:  %.2f MiB/sec (%.2f MB/sec)", best/mebi, best/mega)
	}
	return fmt.Sprintf("Max Write: %.2f MiB/sec (%.2f MB/sec)", best/mebi, best/mega)
}

// KernelReport returns IOR's lines of a phase: its results rows, one per iteration, then
// its Max line and its summary row (tagged by Name "max-bw" and "mean-bw" in MiB/s, the
// rows by "iterN-bw"). When the session ran the iterations one at a time, the Max line
// and the summary cover the earlier iterations' runs of the same phase too, so the last
// iteration's are the test's. h5proxy ior interleaves the phases' rows by iteration, as
// IOR prints them.
func (p *Pattern) KernelReport(t patterns.PhaseTimes) []patterns.Line {
	rows := p.Results(t)
	its := rows
	if t.ByIteration {
		its = nil
		for _, e := range t.Earlier {
			if e.Phase == t.Phase && e.ByIteration {
				its = append(its, p.Results(e)...)
			}
		}
		its = append(its, rows...)
	}
	var lines []patterns.Line
	for _, it := range rows {
		lines = append(lines, patterns.Line{Name: fmt.Sprintf("iter%d-bw", it.Iter), Value: it.BW / mebi, Unit: "MiB/s", Text: it.Row()})
	}
	best, mean := 0.0, 0.0
	for _, it := range its {
		best, mean = math.Max(best, it.BW/mebi), mean+it.BW/mebi/float64(len(its))
	}
	lines = append(lines, patterns.Line{Name: "max-bw", Value: best, Unit: "MiB/s", Text: MaxLine(its)},
		patterns.Line{Name: "mean-bw", Value: mean, Unit: "MiB/s", Text: p.SummaryRow(its, t.Ranks)})
	return lines
}

// HumanReadable is IOR's HumanReadable(value, BASE_TWO): whole GiB or MiB as "N GiB",
// others above a MiB with two decimals, smaller values in bytes.
func HumanReadable(v uint64) string {
	f := float64(v)
	switch {
	case f >= gibi:
		if v%(1<<30) == 0 {
			return fmt.Sprintf("%d GiB", v>>30)
		}
		return fmt.Sprintf("%.2f GiB", f/gibi)
	case f >= mebi:
		if v%(1<<20) == 0 {
			return fmt.Sprintf("%d MiB", v>>20)
		}
		return fmt.Sprintf("%.2f MiB", f/mebi)
	}
	return fmt.Sprintf("%d bytes", v)
}

// kv is one "key : value" line of IOR's report (PrintKeyVal: %-20s: %s).
func kv(k string, v any) string { return fmt.Sprintf("%-20s: %v", k, v) }

// OptionsBlock is the "Options:" echo (ior-output.c: ShowSetup) of a run on tasks ranks
// of one node; apiVersion is what IOR prints after the API.
func (c Config) OptionsBlock(testFile, apiVersion string, tasks int) []string {
	access, typ, order := "single-shared-file", "independent", "sequential"
	if c.FilePerProc {
		access = "file-per-process"
	}
	if c.Collective {
		typ = "collective"
	}
	if c.RandomOffset {
		order = "random"
	}
	out := []string{"Options: ", kv("api", c.API), kv("apiVersion", apiVersion), kv("test filename", testFile), kv("access", access),
		kv("type", typ), kv("segments", c.Segments), kv("ordering in a file", order)}
	switch {
	case c.ReorderTasks:
		out = append(out, kv("ordering inter file", "constant task offset"), kv("task offset", c.TaskPerNodeOffset))
	case c.ReorderRandom:
		out = append(out, kv("ordering inter file", "random task offset"), kv("task offset", c.TaskPerNodeOffset), kv("reorder random seed", c.ReorderSeed))
	default:
		out = append(out, kv("ordering inter file", "no tasks offsets"))
	}
	agg := c.BlockSize * uint64(c.Segments) * uint64(tasks)
	return append(out, kv("nodes", 1), kv("tasks", tasks), kv("clients per node", tasks), kv("repetitions", c.Repetitions),
		kv("xfersize", HumanReadable(c.TransferSize)), kv("blocksize", HumanReadable(c.BlockSize)), kv("aggregate filesize", HumanReadable(agg)))
}

// KV is a "key : value" line of IOR's report header (Began, Command line, Machine, ...).
func KV(k, v string) string { return kv(k, v) }
