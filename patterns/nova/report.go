package nova

import (
	"fmt"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Operation keeps the phases' names.
func (p *Pattern) Operation(ph patterns.Phase) string { return "" }

// Metrics are the synthesized input set's figures, known before any I/O.
func (p *Pattern) Metrics(ph patterns.Phase, env patterns.Env) []patterns.Metric {
	s := p.Schema(env.Seed)
	var raw, rows uint64
	for f := range s.Rows {
		raw += s.RawBytes(f)
		for g := range s.Tables {
			rows += s.Rows[f][g]
		}
	}
	d2 := 0
	for _, t := range s.Tables {
		for _, c := range t.Columns {
			if c.Width > 1 {
				d2++
			}
		}
	}
	return []patterns.Metric{
		{Name: "Input files", Value: fmt.Sprint(p.C.Files)},
		{Name: "Groups per file", Value: fmt.Sprint(len(s.Tables))},
		{Name: "Datasets per file", Value: fmt.Sprint(s.Datasets())},
		{Name: "2-D datasets per file", Value: fmt.Sprint(d2)},
		{Name: "Empty datasets per file", Value: fmt.Sprint(s.EmptyDatasets())},
		{Name: "Table rows over all files", Value: fmt.Sprint(rows)},
		{Name: "Raw data", Value: fmt.Sprint(raw), Unit: "B"},
	}
}

// Breakdown is the concatenation's time per step as the paper reports it, each the
// slowest rank's time in the HDF5 calls of the part (seconds; each call kind reduced over
// the ranks on its own): metadata read (input file opens and dataset opens: the type and
// size queries), data read (H5Dread of the pieces, decompression included), dataset
// create (the create step's calls), write (the collective H5Dwrite calls, compression and
// MPI-IO included as HDF5 does both inside the call, and the write step's dataset closes:
// each input dataset's after its read and each output dataset's after its write, one
// kind of call in one step) and close (the empty input datasets' closes, the inputs'
// file closes and the output's). The session's own work between the calls (building the
// plans and their bytes) is in none of them.
type Breakdown struct {
	MetadataRead, DataRead, Create, Write, Close float64
}

// Total is the sum of the parts.
func (b Breakdown) Total() float64 { return b.MetadataRead + b.DataRead + b.Create + b.Write + b.Close }

// createKinds are the calls of the create step.
var createKinds = []plan.OpKind{plan.CreateFile, plan.OpenFile, plan.CreateGroup, plan.OpenGroup, plan.CreateDataset,
	plan.OpenDataset, plan.CloseDataset, plan.CloseGroup, plan.FlushFile, plan.CloseFile}

// sumMax is the sum over kinds of the slowest rank's time in the calls of each kind.
func sumMax(ops map[plan.OpKind]patterns.Timing, kinds ...plan.OpKind) float64 {
	var s float64
	for _, k := range kinds {
		s += ops[k].Max
	}
	return s
}

// BreakdownOf computes the breakdown of a finished concatenation phase.
func BreakdownOf(t patterns.PhaseTimes) (Breakdown, bool) {
	if t.Phase != patterns.PhaseRead || len(t.Steps) < concatSteps {
		return Breakdown{}, false
	}
	in, w := t.Steps[StepInputs].Ops, t.Steps[StepWrite].Ops
	return Breakdown{
		MetadataRead: sumMax(in, plan.OpenFile, plan.OpenDataset),
		DataRead:     sumMax(w, plan.Read),
		Create:       sumMax(t.Steps[StepCreate].Ops, createKinds...),
		Write:        sumMax(w, plan.Write, plan.CloseDataset),
		Close:        sumMax(in, plan.CloseDataset) + sumMax(t.Steps[StepClose].Ops, plan.CloseFile),
	}, true
}

// KernelReport returns the concatenation's breakdown lines (none for the write phase).
func (p *Pattern) KernelReport(t patterns.PhaseTimes) []patterns.Line {
	b, ok := BreakdownOf(t)
	if !ok {
		return nil
	}
	line := func(name, label string, v float64) patterns.Line {
		return patterns.Line{Name: name, Value: v, Unit: "s", Text: fmt.Sprintf("  %-16s %.3f s", label+":", v)}
	}
	return []patterns.Line{
		{Text: "Concatenation breakdown (slowest rank):"},
		line("concat-metadata-read", "metadata read", b.MetadataRead),
		line("concat-dataset-create", "dataset create", b.Create),
		line("concat-data-read", "data read", b.DataRead),
		line("concat-write", "write", b.Write),
		line("concat-close", "close", b.Close),
		line("concat-total", "total", b.Total()),
		line("concat-observed", "observed", t.Observed),
	}
}
