package iotest

import (
	"fmt"

	"github.com/h5proxy/h5proxy/patterns"
)

// mib is the program's rate unit: MiB/s.
const mib = 1024 * 1024

// rule is the program's separator line.
const rule = "---------------------------------------------"

// KernelReport returns the HDF5 I/O test's own results as the program prints them at its
// end, with its CSV columns as the lines' names: the wall clock, the file size, then the
// minimum and maximum over ranks of each phase's time, creation time, transfer time and
// rate. The write phase's lines come with every later phase (the CSV holds the last
// phase's lines: all of them after a write and a read, as the program's CSV row).
//
// The mapping (docs/metrics.md): a phase's time is each rank's span from its file create
// or open to its last operation (patterns.PhaseTimes.Span); the create time is the file
// create plus the dataset (and group) creates and opens (Opens); the write and read times
// are the H5Dwrite and H5Dread sums (Raw); a rate is one rank's bytes over a time, in MiB/s
// (the minimum rate over the maximum time), 0 when the time is 0.
func (p *Pattern) KernelReport(t patterns.PhaseTimes) []patterns.Line {
	first, write := t, (*patterns.PhaseTimes)(nil)
	if len(t.Earlier) > 0 {
		first = t.Earlier[0]
	}
	for i := range t.Earlier {
		if t.Earlier[i].Phase == patterns.PhaseWrite {
			write = &t.Earlier[i]
		}
	}
	if t.Phase == patterns.PhaseWrite {
		write = &t
	}
	wall := t.End - first.Start
	if first.Phase == patterns.PhaseRead {
		wall += first.FileOpen.Max // the program's read phase starts before its H5Fopen
	}
	lines := []patterns.Line{
		{Text: fmt.Sprintf("--- HDF5 I/O test (hdf5_iotest) after the %s phase ---", t.Phase)},
		{Name: "wall", Value: wall, Unit: "s", Text: fmt.Sprintf("Wall clock [s]:\t\t%.2f", wall)},
		{Name: "fsize", Value: t.FileBytes, Unit: "B", Text: fmt.Sprintf("File size [B]:\t\t%.0f", t.FileBytes)},
		{Text: rule}, {Text: "Measurement:\t\t_MIN (over MPI ranks)"}, {Text: "\t\t\t^MAX (over MPI ranks)"}, {Text: rule},
	}
	if write != nil {
		lines = append(lines, minMax("Write phase [s]:\t", "write-phase", "s", write.Span)...)
		lines = append(lines, minMax("Create time [s]:\t", "creat", "s", write.Opens)...)
		lines = append(lines, minMax("Write time [s]:\t\t", "write", "s", write.Raw)...)
		lines = append(lines, minMax("Write rate [MiB/s]:\t", "write-rate", "MiB/s", rates(*write))...)
	}
	if t.Phase == patterns.PhaseRead {
		lines = append(lines, minMax("Read phase [s]:\t\t", "read-phase", "s", t.Span)...)
		lines = append(lines, minMax("Read time [s]:\t\t", "read", "s", t.Raw)...)
		lines = append(lines, minMax("Read rate [MiB/s]:\t", "read-rate", "MiB/s", rates(t))...)
	}
	return lines
}

// minMax is one of the program's two-line measurements: _min, then ^max.
func minMax(label, name, unit string, v patterns.Timing) []patterns.Line {
	return []patterns.Line{
		{Name: name + "-min", Value: v.Min, Unit: unit, Text: fmt.Sprintf("%s_%.2f", label, v.Min)},
		{Name: name + "-max", Value: v.Max, Unit: unit, Text: fmt.Sprintf("\t\t\t^%.2f", v.Max)},
	}
}

// rates is one rank's bytes (every rank moves the same) over the slowest and the fastest
// rank's transfer time: the minimum and maximum rate.
func rates(t patterns.PhaseTimes) patterns.Timing {
	bytes := t.Bytes / float64(max(t.Ranks, 1)) / mib
	rate := func(s float64) float64 {
		if s <= 0 {
			return 0
		}
		return bytes / s
	}
	return patterns.Timing{Min: rate(t.Raw.Max), Max: rate(t.Raw.Min), Mean: rate(t.Raw.Mean)}
}
