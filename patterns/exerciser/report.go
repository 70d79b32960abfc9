package exerciser

import (
	"fmt"
	"math"
	"slices"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Columns are the exerciser's result columns after Bufsize, in its order: times in
// seconds, the two raw bandwidths in MiB/s (it labels them MB/s).
var Columns = []string{"H5DWrite", "RawWrBDWTH", "H5Dread", "RawRdBDWTH", "Dataset", "Group", "Attribute",
	"H5Fopen", "H5Fclose", "H5Fflush", "OtherClose"}

// Stats are the exerciser's rows per size: statistics over the iterations.
var Stats = []string{"Min", "Med", "Max", "Avg", "Std"}

// Header is the exerciser's table heading.
const Header = "Metric      Bufsize   H5DWrite    RawWrBDWTH    H5Dread    RawRdBDWTH    Dataset      Group  Attribute    H5Fopen   H5Fclose   H5Fflush OtherClose"

// columnKinds are the operation kinds each time column sums, as the exerciser's timers
// enclose the calls.
var columnKinds = map[string][]plan.OpKind{
	"H5DWrite": {plan.Write}, "H5Dread": {plan.Read},
	"Dataset": {plan.CreateDataset, plan.OpenDataset}, "Group": {plan.CreateGroup, plan.OpenGroup},
	"Attribute": {plan.WriteAttribute}, "H5Fopen": {plan.CreateFile, plan.OpenFile},
	"H5Fclose": {plan.CloseFile}, "H5Fflush": {plan.FlushFile}, "OtherClose": {plan.CloseDataset, plan.CloseGroup},
}

// Iteration is one iteration's values of every column: times are the slowest rank's,
// bandwidths the slowest rank's (the exerciser's MPI_MAX and MPI_MIN reductions).
func (p *Pattern) Iteration(st patterns.StepTimes, bufsize float64, ranks int) map[string]float64 {
	v := map[string]float64{}
	for col, kinds := range columnKinds {
		for _, k := range kinds {
			v[col] += st.Ops[k].Max
		}
	}
	rate := func(t float64) float64 {
		if t <= 0 {
			return 0
		}
		return bufsize / 1048576 / t * float64(ranks)
	}
	v["RawWrBDWTH"], v["RawRdBDWTH"] = rate(v["H5DWrite"]), rate(v["H5Dread"])
	return v
}

// Moments are the exerciser's statistics of one column over the iterations: minimum,
// median, maximum, mean and population standard deviation, in Stats order.
func Moments(x []float64) []float64 {
	n := float64(len(x))
	var sum, sq float64
	for _, v := range x {
		sum += v
	}
	avg := sum / n
	for _, v := range x {
		sq += (v - avg) * (v - avg)
	}
	s := slices.Clone(x)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return []float64{s[0], med, s[len(s)-1], avg, math.Sqrt(sq / n)}
}

// KernelReport prints what the exerciser prints: the decomposition warning, its notes and
// settings, the table heading, and for each size its file and memory selections and the
// Min, Med, Max, Avg and Std rows over the iterations. Each cell is also a CSV row "<stat> <column> <bufsize>".
func (p *Pattern) KernelReport(t patterns.PhaseTimes) []patterns.Line {
	if t.Phase != patterns.PhaseWrite {
		return nil
	}
	var out []patterns.Line
	text := func(format string, a ...any) { out = append(out, patterns.Line{Text: fmt.Sprintf(format, a...)}) }
	if g := p.C.Grid(t.Ranks); g.Fallback {
		text("WARNING!! - ndomains: %d must be: %d. Only dividing dim-0", g.Configured, t.Ranks)
	}
	b := func(on bool) int {
		if on {
			return 1
		}
		return 0
	}
	text("WARNING: Bufsize is the size of the double-type dataset (The derived-type dataset is 8x larger!).")
	text("useMetaDataCollectives: %d addDerivedTypeDataset: %d addAttributes: %d useIndependentIO: %d numDims: %d useChunked: %d rankShift: %d",
		b(p.C.MetaColl), b(p.C.DerivedType), b(p.C.AddAttr), b(p.C.IndepIO), p.C.NumDims, b(p.C.UseChunked), p.C.RShift)
	text("%s", Header)
	for s := 0; s < p.C.NSizes; s++ {
		lo, hi := s*p.C.Iterations, (s+1)*p.C.Iterations
		if hi > len(t.Steps) {
			break // the phase ended early: only whole sizes are reported
		}
		bufsize := float64(p.C.Size(s).Bytes())
		if l, err := p.C.Layout(s, 0, t.Ranks); err == nil { // Begin reported any error
			for d := range l.Block {
				text("FileSpace: Dim= %d Block= %d Stride= %d Count= %d", d, l.Block[d], l.Stride[d], l.Count[d])
			}
			text("MemSpace:  Dim= %d Block= %d Stride= %d Count= %d", 0, l.MemBlock, l.MemStride, l.MemCount)
		}
		cols := map[string][]float64{}
		for _, st := range t.Steps[lo:hi] {
			for c, v := range p.Iteration(st, bufsize, t.Ranks) {
				cols[c] = append(cols[c], v)
			}
		}
		mom := map[string][]float64{}
		for c, x := range cols {
			mom[c] = Moments(x)
		}
		for i, stat := range Stats {
			row := fmt.Sprintf("%-8s %10d", stat, int64(bufsize))
			for j, c := range Columns {
				if j == 1 || j == 3 {
					row += fmt.Sprintf("  %12.6f", mom[c][i])
				} else {
					row += fmt.Sprintf(" %10.6f", mom[c][i])
				}
			}
			text("%s", row)
			for _, c := range Columns {
				unit := "s"
				if c == "RawWrBDWTH" || c == "RawRdBDWTH" {
					unit = "MiB/s"
				}
				out = append(out, patterns.Line{Name: fmt.Sprintf("%s %s %d", stat, c, int64(bufsize)), Value: mom[c][i], Unit: unit, Quiet: true})
			}
		}
	}
	return out
}
