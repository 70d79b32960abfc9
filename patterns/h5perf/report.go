package h5perf

import (
	"fmt"
	"strings"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// MaxInfoVal is OpenMPI's MPI_MAX_INFO_VAL, which h5perf's MPI info dump names.
const MaxInfoVal = 256

// indent is h5perf's print_indent: four spaces per level.
func indent(level int) string { return strings.Repeat(" ", 4*level) }

// sizeText is h5perf's recover_size_and_print: the largest unit that divides the value.
func sizeText(v int64) string {
	switch {
	case v >= GB && v%GB == 0:
		return fmt.Sprintf("%dGB", v/GB)
	case v >= MB && v%MB == 0:
		return fmt.Sprintf("%dMB", v/MB)
	case v >= KB && v%KB == 0:
		return fmt.Sprintf("%dKB", v/KB)
	}
	return fmt.Sprint(v)
}

// Out is one line of h5perf's report and where h5perf prints it: its version line and
// MPI info dump go to standard output even with -o (printf instead of the output file).
type Out struct {
	// Prefix goes to the output before Text ("rank 0: " before the info dump's heading).
	Prefix, Text string
	Stdout       bool
}

// Parameters is h5perf's report_parameters block as rank prints it, with the HDF5 version
// (major.minor.release) and HDF5_PARAPREFIX ("" when unset).
func (a Args) Parameters(rank int, hdf5Version, paraprefix string) []Out {
	var out []Out
	add := func(format string, v ...any) { out = append(out, Out{Text: fmt.Sprintf(format, v...)}) }
	pre := fmt.Sprintf("rank %d: ", rank)
	out = append(out, Out{Text: "HDF5 Library: Version " + hdf5Version, Stdout: true})
	add("%s==== Parameters ====", pre)
	var apis string
	for _, api := range APIs {
		if a.APIs&api.Bit != 0 {
			apis += api.Name + " "
		}
	}
	add("%sIO API=%s", pre, apis)
	add("%sNumber of files=%d", pre, a.NumFiles)
	add("%sNumber of datasets=%d", pre, a.NumDsets)
	add("%sNumber of iterations=%d", pre, a.NumIters)
	add("%sNumber of processes=%d:%d", pre, a.MinProcs, a.MaxProcs)
	lo, hi := a.NumBPP*int64(a.MinProcs), a.NumBPP*int64(a.MaxProcs)
	if a.Dim2D {
		add("%sNumber of bytes per process per dataset=%s:%s", pre, sizeText(a.NumBPP*a.NumBPP*int64(a.MinProcs)), sizeText(a.NumBPP*a.NumBPP*int64(a.MaxProcs)))
		add("%sSize of dataset(s)=%sx%s:%sx%s", pre, sizeText(lo), sizeText(lo), sizeText(hi), sizeText(hi))
		add("%sFile size=%s:%s", pre, sizeText(lo*lo*a.NumDsets), sizeText(hi*hi*a.NumDsets))
		if a.Interleaved {
			add("%sTransfer buffer size=%sx%s:%sx%s", pre, sizeText(a.MinXfer), sizeText(a.BlkSize), sizeText(a.MaxXfer), sizeText(a.BlkSize))
		} else {
			add("%sTransfer buffer size=%sx%s:%sx%s", pre, sizeText(a.BlkSize), sizeText(a.MinXfer), sizeText(a.BlkSize), sizeText(a.MaxXfer))
		}
		add("%sBlock size=%sx%s", pre, sizeText(a.BlkSize), sizeText(a.BlkSize))
	} else {
		add("%sNumber of bytes per process per dataset=%s", pre, sizeText(a.NumBPP))
		add("%sSize of dataset(s)=%s:%s", pre, sizeText(lo), sizeText(hi))
		add("%sFile size=%s:%s", pre, sizeText(lo*a.NumDsets), sizeText(hi*a.NumDsets))
		add("%sTransfer buffer size=%s:%s", pre, sizeText(a.MinXfer), sizeText(a.MaxXfer))
		add("%sBlock size=%s", pre, sizeText(a.BlkSize))
	}
	pick := func(on bool, yes, no string) string {
		if on {
			return yes
		}
		return no
	}
	add("%sBlock Pattern in Dataset=%s", pre, pick(a.Interleaved, "Interleaved", "Contiguous"))
	add("%sI/O Method for MPI and HDF5=%s", pre, pick(a.Collective, "Collective", "Independent"))
	add("%sGeometry=%s", pre, pick(a.Dim2D, "2D", "1D"))
	add("%sVFL used for HDF5 I/O=MPI-IO driver", pre)
	add("%sData storage method in HDF5=%s", pre, pick(a.Chunk, "Chunked", "Contiguous"))
	add("%sEnv HDF5_PARAPREFIX=%s", pre, pick(paraprefix != "", paraprefix, "not set"))
	// "rank N: " goes to the output, the dump itself to standard output.
	out = append(out, Out{Prefix: pre, Text: fmt.Sprintf("Dumping MPI Info Object (up to %d bytes per item):", MaxInfoVal), Stdout: true},
		Out{Text: "object is MPI_INFO_NULL", Stdout: true})
	add("%s==== End of Parameters ====", pre)
	add("")
	return out
}

// SizeHeader is what h5perf prints before the APIs of one transfer size on procs processes.
func (a Args) SizeHeader(procs int, xfer int64) []string {
	side := a.NumBPP * int64(procs)
	if a.Dim2D {
		bytes := side * side
		x, y := a.BlkSize, xfer
		if a.Interleaved {
			x, y = xfer, a.BlkSize
		}
		return []string{fmt.Sprintf("Transfer Buffer Size: %dx%d bytes, File size: %.2f MB", x, y, float64(a.NumDsets)*float64(bytes)/MB),
			indent(1) + fmt.Sprintf("  # of files: %d, # of datasets: %d, dataset size: %.2fx%.2f KB", a.NumFiles, a.NumDsets, float64(side)/KB, float64(side)/KB)}
	}
	return []string{fmt.Sprintf("Transfer Buffer Size: %d bytes, File size: %.2f MB", xfer, float64(a.NumDsets)*float64(side)/MB),
		indent(1) + fmt.Sprintf("  # of files: %d, # of datasets: %d, dataset size: %.2f MB", a.NumFiles, a.NumDsets, float64(side)/MB)}
}

// Sizes are the transfer sizes h5perf runs: from -x to -X, doubling (once if -x is 0).
func (a Args) Sizes() []int64 {
	var out []int64
	for x := a.MinXfer; x <= a.MaxXfer; x <<= 1 {
		out = append(out, x)
		if x == 0 || x > a.MaxXfer/2 { // once (h5perf's buf_size == 0), or the next would pass -X (or overflow)
			break
		}
	}
	return out
}

// Procs are the process counts h5perf runs: from -P down to -p, halving.
func (a Args) Procs() []int {
	var out []int
	for n := a.MaxProcs; n >= a.MinProcs && n > 0; n >>= 1 {
		out = append(out, n)
	}
	return out
}

// minmax is one iteration of a timer: its minimum and maximum over the ranks (h5perf's
// get_minmax).
type minmax struct{ min, max float64 }

// timers are one run's per-iteration timers, in h5perf's names.
type timers struct {
	write, gross, raw, open, close                []minmax
	read, readGross, readRaw, readOpen, readClose []minmax
}

// collect sums each iteration's timers over its files: h5perf's timers accumulate over the
// files of an iteration on each rank before the reduction; here each file's time is the
// slowest rank's, so with several files the sum can exceed h5perf's by the ranks' imbalance.
func (p *Pattern) collect(t patterns.PhaseTimes) timers {
	var tm timers
	per := p.C.NumFiles * p.Halves()
	for it := 0; it < p.C.NumIters; it++ {
		var w [5]minmax
		var r [5]minmax
		for f := 0; f < p.C.NumFiles; f++ {
			for h := 0; h < p.Halves(); h++ {
				i := it*per + f*p.Halves() + h
				if i >= len(t.Steps) {
					continue
				}
				st := t.Steps[i]
				dst := &w
				if h == 1 {
					dst = &r
				}
				kind := plan.Write
				if h == 1 {
					kind = plan.Read
				}
				for j, v := range []patterns.Timing{st.Inner, st.OpsSpan, st.Ops[kind], st.FileOpen, st.FileClose} {
					dst[j].min += v.Min
					dst[j].max += v.Max
				}
			}
		}
		tm.write, tm.gross, tm.raw, tm.open, tm.close = append(tm.write, w[0]), append(tm.gross, w[1]), append(tm.raw, w[2]), append(tm.open, w[3]), append(tm.close, w[4])
		tm.read, tm.readGross, tm.readRaw, tm.readOpen, tm.readClose = append(tm.read, r[0]), append(tm.readGross, r[1]), append(tm.readRaw, r[2]), append(tm.readOpen, r[3]), append(tm.readClose, r[4])
	}
	return tm
}

// accumulate is h5perf's accumulate_minmax_stuff: the minimum, mean and maximum over the
// iterations of each iteration's slowest rank.
func accumulate(x []minmax) (lo, avg, hi float64) {
	if len(x) == 0 {
		return 0, 0, 0
	}
	lo, hi = x[0].max, x[0].max
	for _, v := range x {
		avg += v.max
		lo, hi = min(lo, v.max), max(hi, v.max)
	}
	return lo, avg / float64(len(x)), hi
}

// rate is h5perf's MB_PER_SEC (MiB/s; 0 for a zero time).
func rate(bytes, t float64) float64 {
	if t == 0 {
		return 0
	}
	return bytes / MB / t
}

// KernelReport prints h5perf's block of one API at one transfer size: "IO API = ...",
// then for the writes and (unless write-only) the reads the maximum, average and minimum
// throughput over the iterations, of the time between the file's open and close and from
// before the open to after the close, with -D r, t and 3 the raw-data rates, the open and
// close times and the per-iteration details. Each rate is also a CSV row.
func (p *Pattern) KernelReport(t patterns.PhaseTimes) []patterns.Line {
	if t.Phase != patterns.PhaseWrite {
		return nil
	}
	g, err := p.C.Geometry(t.Ranks)
	if err != nil {
		return nil
	}
	tm := p.collect(t)
	rawSize := float64(p.C.NumFiles) * float64(p.C.NumDsets) * float64(g.Bytes)
	var out []patterns.Line
	text := func(level int, format string, a ...any) {
		out = append(out, patterns.Line{Text: indent(level) + fmt.Sprintf(format, a...)})
	}
	label := p.C.API
	for _, a := range APIs {
		if a.Name == p.C.API {
			label = a.Label
		}
	}
	text(2, "IO API = %s", label)
	details := func(name string, x []minmax) {
		if p.C.Debug < 3 {
			return
		}
		text(3, "%s details:", name)
		for i, v := range x {
			text(4, "Iteration %d:", i+1)
			text(5, "Minimum Time: %.2fs", v.min)
			text(5, "Maximum Time: %.2fs", v.max)
		}
	}
	results := func(name string, x []minmax) {
		details(name, x)
		lo, avg, hi := accumulate(x)
		text(3, "%s (%d iteration(s)):", name, len(x))
		for _, r := range []struct {
			what string
			t    float64
		}{{"Maximum", lo}, {"Average", avg}, {"Minimum", hi}} {
			line := fmt.Sprintf("%s Throughput: %6.2f MB/s", r.what, rate(rawSize, r.t))
			if p.C.Times {
				line += fmt.Sprintf(" (%7.3f s)", r.t)
			}
			text(4, "%s", line)
			out = append(out, patterns.Line{Name: fmt.Sprintf("%s %s throughput", name, strings.ToLower(r.what)), Value: rate(rawSize, r.t), Unit: "MiB/s", Quiet: true})
		}
	}
	times := func(name string, x []minmax) {
		if !p.C.Times {
			return
		}
		lo, avg, hi := accumulate(x)
		text(3, "%s (%d iteration(s)):", name, len(x))
		text(4, "Minimum Accumulated Time using %d file(s): %7.5f s", p.C.NumFiles, lo)
		text(4, "Average Accumulated Time using %d file(s): %7.5f s", p.C.NumFiles, avg)
		text(4, "Maximum Accumulated Time using %d file(s): %7.5f s", p.C.NumFiles, hi)
	}
	zero := make([]minmax, p.C.NumIters) // h5perf's MPI timers, never set without TIME_MPI
	half := func(Dir string, raw, mpi, fine, gross, open, closeT []minmax) {
		if p.C.Raw {
			results("Raw Data "+Dir, raw)
		}
		details("MPI "+Dir, mpi)
		results(Dir, fine)
		results(Dir+" Open-Close", gross)
		times(Dir+" File Open", open)
		times(Dir+" File Close", closeT)
		details(Dir+" file open", open)
		details(Dir+" file close", closeT)
	}
	half("Write", tm.raw, zero, tm.write, tm.gross, tm.open, tm.close)
	if !p.C.WriteOn {
		half("Read", tm.readRaw, zero, tm.read, tm.readGross, tm.readOpen, tm.readClose)
	}
	return out
}
