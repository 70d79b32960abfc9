package macsio

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// MACSio's log: MACSIO_LOG_LogInit primes a file of fixed regions, one per rank (rank 0's
// longer by the extra lines), each line line_len characters ending in a newline, the
// region's first line a row of dashes with "Processor NNNNNN" centred; a message goes to
// the rank's next line (wrapping back to line 1), as severity:"file":line:message:::
// padded with spaces.

// Defaults of macsio_log.h for counts given as 0 or less.
const (
	defaultLogLines  = 64
	defaultLogExtra  = 64
	defaultLogLength = 128
)

// Log is one MACSio log file being built: every rank's region.
type Log struct {
	lineLen, lines, extra int
	buf                   []byte
	next                  []int // each rank's next line (from 1)
	logged                bool
}

// NewLog primes a log for ranks ranks (MACSIO_LOG_LogInit).
func NewLog(ranks, lineLen, lines, extra int) *Log {
	if lineLen <= 0 {
		lineLen = defaultLogLength
	}
	if lines <= 0 {
		lines = defaultLogLines
	}
	if extra <= 0 {
		extra = defaultLogExtra
	}
	l := &Log{lineLen: lineLen, lines: lines, extra: extra, next: make([]int, ranks)}
	for r := 0; r < ranks; r++ {
		n := lines
		if r == 0 {
			n += extra
		}
		region := make([]byte, lineLen*n)
		for i := range region {
			region[i] = ' '
		}
		for i := 0; i < lineLen; i++ {
			region[i] = '-'
		}
		for i := 0; i < n; i++ {
			region[(i+1)*lineLen-1] = '\n'
		}
		head := fmt.Sprintf("Processor %06d", r)
		copy(region[lineLen/2-len(head)/2:], head)
		l.buf = append(l.buf, region...)
		l.next[r] = 1
	}
	return l
}

// Msg writes a message on rank's next line (MACSIO_LOG_LogMsg): newlines become '!', the
// text is cut to line_len-2 characters and padded.
func (l *Log) Msg(rank int, text string) {
	text = strings.ReplaceAll(text, "\n", "!")
	if len(text) > l.lineLen-2 {
		text = text[:l.lineLen-2]
	}
	line := []byte(text + strings.Repeat(" ", l.lineLen-len(text)))
	line[l.lineLen-1] = '\n'
	off := rank*l.lines + l.next[rank]
	if rank > 0 {
		off += l.extra
	}
	copy(l.buf[off*l.lineLen:], line)
	l.next[rank]++
	n := l.lines
	if rank == 0 {
		n += l.extra
	}
	if l.next[rank] == n {
		l.next[rank] = 1
	}
	l.logged = true
}

// Info writes an Info message from a source line (MACSIO_LOG_MSG(Info, ...)).
func (l *Log) Info(rank int, file string, line int, text string) {
	l.Msg(rank, fmt.Sprintf("Info:%q:%d:%s:::", file, line, text))
}

// Bytes are the file's contents; nil when no rank logged anything (MACSio then removes
// the file).
func (l *Log) Bytes() []byte {
	if !l.logged {
		return nil
	}
	return l.buf
}

// Units formats MACSio's sizes, rates and times (MACSIO_UTILS_Print*): "%8.4f" then the
// unit, binary (Ki, Mi, ...) or decimal (Kb, Mb, ...) prefixes.
type Units struct{ Decimal bool }

// Bytes is MU_PrByts.
func (u Units) Bytes(v float64) string { return u.print(v, "") }

// BW is MU_PrBW: bytes per second (bytes is an unsigned long long in MACSio).
func (u Units) BW(bytes, seconds float64) string { return u.print(math.Trunc(bytes)/seconds, "/sec") }

func (u Units) print(v float64, persec string) string {
	base, names := 1024.0, []string{"Ki", "Mi", "Gi", "Ti", "Pi"}
	if u.Decimal {
		base, names = 1000.0, []string{"Kb", "Mb", "Gb", "Tb", "Pb"}
	}
	for i := len(names); i >= 1; i-- {
		if d := math.Pow(base, float64(i)); v >= d {
			return fmt.Sprintf("%8.4f %s%s", v/d, names[i-1], persec)
		}
	}
	return fmt.Sprintf("%8.4f b%s", v, persec)
}

// Secs is MU_PrSecs.
func (u Units) Secs(s float64) string {
	for _, x := range []struct {
		d    float64
		name string
	}{{7 * 86400, "wks"}, {86400, "days"}, {3600, "hrs"}, {60, "mins"}, {1, "secs"}, {1e-3, "msecs"}, {1e-6, "usecs"}, {1e-9, "nsecs"}} {
		if s >= x.d {
			return fmt.Sprintf("%8.4f %s", s/x.d, x.name)
		}
	}
	return ""
}

// Source lines of the log's messages in macsio_main.c (MACSio's example log).
const (
	lineDumpBW    = 674
	lineDumpStat  = 679
	lineOverall   = 705
	lineSummed    = 723
	lineTotal     = 727
	lineTimer     = 521
	lineTimerRed  = 534
	lineMainTimer = 848
	lineHeavyDump = 645
)

// ProblemBytes is what a rank's log counts per dump: the bytes of the variables of its
// parts at time zero. MACSio counts its in-memory JSON problem object (mesh coordinates
// and topology too, written or not), computed once.
func (p *Pattern) ProblemBytes(m *Mesh, rank int) float64 {
	var n int64
	for range m.Parts(rank) {
		for _, v := range Vars(p.C.VarsPerPart) {
			n += int64(plan.Product(m.PartShape(v))) * elemSize(v)
		}
	}
	return float64(n)
}

// LogFile builds MACSio's log from every rank's dump times (PhaseTimes.PerRank) and the
// sizes on disk of each rank's files of each dump (stat, as MACSIO_UTILS_StatFiles).
func (p *Pattern) LogFile(m *Mesh, per []patterns.RankPhase, stat func(rank, dump int) float64) []byte {
	u := Units{Decimal: p.C.Decimal}
	l := NewLog(len(per), p.C.LogLineLen, p.C.LogLines, p.C.LogExtra)
	var summedBW, summedBytes float64
	first, last := math.Inf(1), math.Inf(-1)
	for r, rp := range per {
		nbytes := p.ProblemBytes(m, r)
		var dumpBytes, dumpTime float64
		for d, st := range rp.Steps {
			dt := st.End - st.Start
			dumpTime += dt
			dumpBytes += nbytes
			l.Info(r, "macsio_main.c", lineDumpBW, fmt.Sprintf("Dump %02d BW: %s/%s = %s", d, u.Bytes(nbytes), u.Secs(dt), u.BW(nbytes, dt)))
			sb := stat(r, d)
			l.Info(r, "macsio_main.c", lineDumpStat, fmt.Sprintf("Dump %02d Stat BW: %s/%s = %s", d, u.Bytes(sb), u.Secs(dt), u.BW(sb, dt)))
		}
		l.Info(r, "macsio_main.c", lineOverall, fmt.Sprintf("Overall BW: %s/%s = %s", u.Bytes(dumpBytes), u.Secs(dumpTime), u.BW(dumpBytes, dumpTime)))
		summedBW += dumpBytes / dumpTime
		summedBytes += dumpBytes
		if n := len(rp.Steps); n > 0 {
			first, last = min(first, rp.Steps[0].Start), max(last, rp.Steps[n-1].End)
		}
	}
	if len(per) > 0 {
		span := last - first
		l.Info(0, "macsio_main.c", lineSummed, fmt.Sprintf("Summed  BW: %s", u.BW(summedBW, 1)))
		l.Info(0, "macsio_main.c", lineTotal, fmt.Sprintf("Total Bytes: %s; Last finisher - First starter = %s; BW = %s",
			u.Bytes(summedBytes), u.Secs(span), u.BW(summedBytes, span)))
	}
	return l.Bytes()
}

// Timer is one of MACSio's timers on one rank (or reduced over the ranks): its iterations'
// statistics as MACSIO_TIMING_StopTimer keeps them.
type Timer struct {
	Label, File string
	Line        int
	Total       float64
	Count       int
	Min, Max    float64
	MinRank     int
	MaxRank     int
	Mean, Var   float64
}

// add records one iteration: time x counted in min, max, mean and variance, total the
// iteration's whole time (restarts within an iteration add to the total only). The
// variance recurrence is MACSio's, which feeds the variance back in as M2.
func (t *Timer) add(x, total float64) {
	if t.Count == 0 {
		t.Min, t.Max = math.MaxFloat64, -math.MaxFloat64
	}
	n := t.Count + 1
	delta := x - t.Mean
	mean := t.Mean + delta/float64(n)
	m2 := t.Var + delta*(x-mean)
	t.Var = 0
	if n >= 2 {
		t.Var = m2 / float64(n-1)
	}
	t.Count, t.Mean, t.Total = n, mean, t.Total+total
	t.Min, t.Max = min(t.Min, x), max(t.Max, x)
}

// String is MACSio's timer line (dump_timers_to_strings).
func (t *Timer) String() string {
	dev := math.Sqrt(t.Var)
	var lo, hi float64
	if dev > 0 {
		lo, hi = (t.Mean-t.Min)/dev, (t.Max-t.Mean)/dev
	}
	return fmt.Sprintf("TOT=%10.5f,CNT=%04d,MIN=%8.5f(%4.2f):%06d,AVG=%8.5f,MAX=%8.5f(%4.2f):%06d,DEV=%8.8f:FILE=%s:LINE=%d:LAB=%s",
		t.Total, t.Count, t.Min, lo, t.MinRank, t.Mean, t.Max, hi, t.MaxRank, dev, t.File, t.Line, t.Label)
}

// reduce combines b into a as reduce_a_timerinfo does (a holds the lower ranks).
func reduce(a, b Timer) Timer {
	out := b
	out.Total = a.Total + b.Total
	if a.Min < b.Min {
		out.Min, out.MinRank = a.Min, a.MinRank
	}
	if a.Max > b.Max {
		out.Max, out.MaxRank = a.Max, a.MaxRank
	}
	ca, cb := float64(a.Count), float64(b.Count)
	cnt := ca + cb
	delta := b.Mean - a.Mean
	ratio := ca / cb
	if cb > ca {
		ratio = cb / ca
	}
	if ratio < 1.01 && ca > 1e4 {
		out.Mean = (ca*a.Mean + cb*b.Mean) / cnt
	} else {
		out.Mean = a.Mean + delta*cb/cnt
	}
	out.Var = 0
	if cnt >= 2 {
		out.Var = a.Var + b.Var + delta*delta*ca*cb/cnt
	}
	out.Count = int(cnt)
	return out
}

// Timers are one rank's timers of the dumps: heavy dump (each dump), the dump function's
// and those of its HDF5 calls, main (the run). An operation kind's time per dump is the
// iteration's total; its mean per call stands for the iteration's first call, the one
// MACSio's restarted timer counts.
func (p *Pattern) Timers(rp patterns.RankPhase) []Timer {
	mk := func(label, file string, line int) Timer { return Timer{Label: label, File: file, Line: line} }
	main := mk("main", "macsio_main.c", lineMainTimer)
	main.add(rp.End-rp.Start, rp.End-rp.Start)
	heavy := mk("heavy dump", "macsio_main.c", lineHeavyDump)
	mode := "main_dump_mif"
	if p.C.SIF {
		mode = "main_dump_sif"
	}
	dumpT := mk(mode, "macsio_hdf5.c", 0)
	type perOp struct {
		t     Timer
		kinds []plan.OpKind
		zero  bool
	}
	var ops []*perOp
	if p.C.SIF {
		ops = []*perOp{{t: mk("H5Fcreate", "macsio_hdf5.c", 0), kinds: []plan.OpKind{plan.CreateFile}},
			{t: mk("H5Dcreate", "macsio_hdf5.c", 0), kinds: []plan.OpKind{plan.CreateDataset}},
			{t: mk("H5Dwrite", "macsio_hdf5.c", 0), kinds: []plan.OpKind{plan.Write}}}
	} else {
		ops = []*perOp{{t: mk("MACSIO_MIF_INIT", "macsio_hdf5.c", 0), zero: true},
			{t: mk("write_mesh_part", "macsio_hdf5.c", 0), kinds: []plan.OpKind{plan.CreateDataset, plan.Write, plan.CloseDataset}},
			{t: mk("MACSIO_MIF_HandOffBaton", "macsio_hdf5.c", 0), kinds: []plan.OpKind{plan.CloseFile, plan.PassBaton}},
			{t: mk("MACSIO_MIF_Finish", "macsio_hdf5.c", 0), zero: true}}
	}
	for _, st := range rp.Steps {
		dt := st.End - st.Start
		heavy.add(dt, dt)
		dumpT.add(dt, dt)
		for _, o := range ops {
			var tot, calls float64
			for _, k := range o.kinds {
				tot += st.Ops[k]
				calls = max(calls, st.Calls[k])
			}
			first := tot
			if calls > 1 {
				first = tot / calls
			}
			if o.zero {
				first, tot = 0, 0
			}
			o.t.add(first, tot)
		}
	}
	// MACSio prints its timers in hash-table order, which in its example log puts heavy
	// dump before main; each region is one line short of the timers (its first line is the
	// heading), so the first timer printed is overwritten by the last, as in MACSio's.
	out := []Timer{heavy, dumpT}
	for _, o := range ops {
		out = append(out, o.t)
	}
	return append(out, main)
}

// TimingsFile builds MACSio's timings file: each rank's timers in its region, then on rank
// 0 "Reduced Timers..." and the timers reduced over the ranks (write_timings_file).
func (p *Pattern) TimingsFile(per []patterns.RankPhase) []byte {
	var all [][]Timer
	maxLen, n := 0, 0
	for _, rp := range per {
		ts := p.Timers(rp) // ranks 0: printed before the reduction sets them
		for i := range ts {
			maxLen = max(maxLen, len(ts[i].String()))
		}
		all = append(all, ts)
		n = max(n, len(ts))
	}
	var red []Timer
	for r, ts := range all {
		for i := range ts {
			t := ts[i]
			t.MinRank, t.MaxRank = r, r
			if r == 0 {
				red = append(red, t)
			} else if i < len(red) {
				red[i] = reduce(red[i], t)
			}
		}
	}
	for i := range red {
		maxLen = max(maxLen, len(red[i].String()))
	}
	l := NewLog(len(per), maxLen+32, n, len(red)+1)
	for r, ts := range all {
		for i := range ts {
			l.Info(r, "macsio_main.c", lineTimer, ts[i].String())
		}
	}
	if len(per) > 0 {
		l.Msg(0, "Reduced Timers...")
		for i := range red {
			l.Info(0, "macsio_main.c", lineTimerRed, red[i].String())
		}
	}
	return l.Bytes()
}

// KernelReport writes MACSio's log and timings files after the write phase, from rank 0
// (every rank gets every rank's measurements), and names them.
func (p *Pattern) KernelReport(t patterns.PhaseTimes) []patterns.Line {
	if t.Phase != patterns.PhaseWrite || (p.C.LogFile == "" && p.C.TimingsFile == "") || t.PerRank == nil {
		return nil
	}
	p.mu.Lock()
	var m *Mesh
	for k, mm := range p.meshes {
		if k.ranks == t.Ranks {
			m = mm
		}
	}
	p.mu.Unlock()
	if m == nil {
		return nil
	}
	var lines []patterns.Line
	write := func(what, path string, data []byte) {
		if path == "" {
			return
		}
		text := fmt.Sprintf("MACSio %s file: %s", what, path)
		if t.Rank == 0 {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				text = fmt.Sprintf("MACSio %s file %s not written: %v", what, path, err)
			}
		}
		lines = append(lines, patterns.Line{Text: text})
	}
	stat := func(rank, dump int) float64 {
		var n float64
		for _, f := range p.DumpFiles(p.base(), rank, t.Ranks, dump) {
			if st, err := os.Stat(f); err == nil {
				n += float64(st.Size())
			}
		}
		return n
	}
	if t.Rank == 0 {
		write("log", p.C.LogFile, p.LogFile(m, t.PerRank, stat))
		write("timings", p.C.TimingsFile, p.TimingsFile(t.PerRank))
	} else {
		write("log", p.C.LogFile, nil)
		write("timings", p.C.TimingsFile, nil)
	}
	return lines
}
