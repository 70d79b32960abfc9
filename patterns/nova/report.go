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
// slowest rank's (seconds): metadata read (input file opens and dataset opens: the type
// and size queries), data read (H5Dread of the pieces, decompression included), dataset
// create (the output's create step), write (the collective H5Dwrite calls: compression
// and MPI-IO included, as HDF5 does both inside the call) and close (the inputs' and the
// output's closes).
type Breakdown struct {
	MetadataRead, DataRead, Create, Write, Close float64
}

// BreakdownOf computes the breakdown of a finished concatenation phase.
func BreakdownOf(t patterns.PhaseTimes) (Breakdown, bool) {
	if t.Phase != patterns.PhaseRead || len(t.Steps) < concatSteps {
		return Breakdown{}, false
	}
	in := t.Steps[StepInputs].Ops
	return Breakdown{
		MetadataRead: in[plan.OpenFile].Max + in[plan.OpenDataset].Max,
		DataRead:     in[plan.Read].Max,
		Create:       t.Steps[StepCreate].Wall.Max,
		Write:        t.Steps[StepWrite].Wall.Max,
		Close:        in[plan.CloseDataset].Max + in[plan.CloseFile].Max + t.Steps[StepClose].Wall.Max,
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
		line("concat-total", "observed", t.Observed),
	}
}
