package dlio

import (
	"fmt"
	"math"
	"strings"

	"github.com/h5proxy/h5proxy/patterns"
)

// human is h5bench's format_human_readable (commons/h5bench_util.c): the value is taken as
// a whole number of bytes (a rate is truncated first), divided by 1024 while a whole 1024
// remains (the quotient truncated at each level but the last), up to T. The unit is the
// letter before "B" (' ' below 1 KiB).
func human(v float64) (float64, byte) {
	units := []byte{' ', 'K', 'M', 'G', 'T'}
	if !(v >= 0) || v >= math.MaxUint64 {
		return v, ' '
	}
	b := uint64(v)
	f := float64(b)
	i := 0
	if b >= 1024 {
		for ; b/1024 > 0 && i < len(units)-1; i, b = i+1, b/1024 {
			f = float64(b) / 1024
		}
	}
	return f, units[i]
}

// side is one of the two halves of the report: training or evaluation.
type side struct {
	// csv and text are the prefixes of the program's CSV names and summary lines.
	csv, text string
	// perEpoch are the epoch's measurements (zero for an epoch that did not evaluate).
	ran                                      []bool
	compute, metadata, raw, observed, thrput []float64
	total, perRank                           uint64
	samplesPerRank                           float64
}

// epochs sums each epoch's steps of one kind (training or evaluation) from the reduced
// per-step times: each quantity is the mean over the ranks, summed over the batches, as the
// program sums each rank's batches and averages the sums over the ranks.
func (p *Pattern) epochs(t patterns.PhaseTimes, eval bool) side {
	c := &p.C
	e := c.Epochs
	s := side{ran: make([]bool, e), compute: make([]float64, e), metadata: make([]float64, e), raw: make([]float64, e),
		observed: make([]float64, e), thrput: make([]float64, e)}
	ranks := t.Ranks
	if eval {
		s.csv, s.text = "eval", "evaluation"
		s.perRank = c.evalBatches(ranks) * c.BatchEval * c.RecordLength
		s.total = s.perRank * uint64(ranks)
		s.samplesPerRank = float64(c.evalBatches(ranks) * c.BatchEval)
	} else {
		s.csv, s.text = "train", "training"
		s.total = c.Batch * c.TrainSteps(ranks) * c.RecordLength
		s.perRank = s.total / uint64(ranks)
		s.samplesPerRank = float64(c.Batch) * float64(c.TrainSteps(ranks)) / float64(ranks)
	}
	for _, seg := range c.segments(ranks) {
		if seg.eval != eval {
			continue
		}
		k := seg.epoch
		s.ran[k] = true
		for i := seg.first; i < seg.first+seg.steps && i < len(t.Steps); i++ {
			st := t.Steps[i]
			s.compute[k] += st.Compute.Mean
			s.metadata[k] += st.FileOpen.Mean + st.Metadata.Mean + st.FileClose.Mean
			s.raw[k] += st.Raw.Mean
			s.observed[k] += st.Wall.Mean
		}
		s.thrput[k] = math.NaN()
		if s.observed[k] > 0 {
			s.thrput[k] = s.samplesPerRank / s.observed[k]
		}
	}
	return s
}

// lines renders one half as the program prints it (print_average_data): the summary
// lines, and its CSV rows with the per-epoch lists as one row per epoch.
func (s side) lines(epochs int, recordLength uint64) []patterns.Line {
	var l []patterns.Line
	upper := strings.ToUpper(s.text[:1]) + s.text[1:]
	sum := func(a []float64) float64 {
		var t float64
		for _, v := range a {
			t += v
		}
		return t
	}
	var rawRate, obsRate, mean float64
	for k := range epochs {
		if s.raw[k] > 0 {
			rawRate += float64(s.perRank) / s.raw[k]
		}
		if d := s.observed[k] - s.compute[k]; d != 0 {
			obsRate += float64(s.perRank) / d
		}
		mean += s.thrput[k]
	}
	rawRate /= float64(epochs)
	obsRate /= float64(epochs)
	mean /= float64(epochs)
	var dev float64
	for k := range epochs {
		dev += (s.thrput[k] - mean) * (s.thrput[k] - mean)
	}
	dev = math.Sqrt(dev / float64(epochs))
	size := func(text, name string, v float64, rate bool) patterns.Line {
		h, u := human(v)
		unit := string(u) + "B"
		if rate {
			unit += "/s"
		}
		return patterns.Line{Name: name, Value: finite(h), Unit: strings.TrimSpace(unit), Text: fmt.Sprintf("%s: %.3f %s", text, h, unit)}
	}
	secs := func(text, name string, v float64) patterns.Line {
		return patterns.Line{Name: name, Value: v, Unit: "s", Text: fmt.Sprintf("%s: %.3f s", text, v)}
	}
	samples := func(text, name string, v float64) patterns.Line {
		return patterns.Line{Name: name, Value: finite(v), Unit: "samples/s", Text: fmt.Sprintf("%s: %.3f samples/s", text, v)}
	}
	evalWord := map[bool]string{true: " avg", false: ""}[s.csv == "eval"] // the program's "Evaluation average throughput avg"
	l = append(l,
		size("Total "+s.text+" set size", s.csv+" total size", float64(s.total), false),
		size(upper+" set size per rank", s.csv+" size per rank", float64(s.perRank), false),
		secs("Total "+s.text+" emulated compute time", s.csv+" emulated compute time", sum(s.compute)),
		secs(upper+" metadata time", s.csv+" metadata time", sum(s.metadata)),
		secs(upper+" raw read time", s.csv+" total raw read time", sum(s.raw)),
		size(upper+" average raw read rate", s.csv+" avg raw read rate", rawRate, true),
		secs("Observed "+s.text+" completion time", s.csv+" observed time", sum(s.observed)),
		size("Observed average "+s.text+" rate", s.csv+" avg observed rate", obsRate, true),
		samples(upper+" average throughput"+evalWord, s.csv+" throughput avg samples per second", mean),
		samples(upper+" throughput standard deviation", s.csv+" throughput stdev samples per second", dev),
		size(upper+" average IO", s.csv+" io avg", mean*float64(recordLength), true),
		size(upper+" IO standard deviation", s.csv+" io stdev", dev*float64(recordLength), true),
	)
	// The per-epoch lists of the program's CSV, one row per epoch that ran (CSV and JSON
	// only: the program's summary does not print them).
	for k := range epochs {
		if !s.ran[k] {
			continue
		}
		n := fmt.Sprintf(" epoch %d", k+1)
		h, u := human(rate(float64(s.perRank), s.raw[k]))
		ho, uo := human(rate(float64(s.perRank), s.observed[k]-s.compute[k]))
		l = append(l,
			patterns.Line{Name: s.csv + " emulated compute time" + n, Value: s.compute[k], Unit: "s", Quiet: true},
			patterns.Line{Name: s.csv + " metadata time" + n, Value: s.metadata[k], Unit: "s", Quiet: true},
			patterns.Line{Name: s.csv + " raw read time" + n, Value: s.raw[k], Unit: "s", Quiet: true},
			patterns.Line{Name: s.csv + " raw read rate" + n, Value: finite(h), Unit: strings.TrimSpace(string(u) + "B/s"), Quiet: true},
			patterns.Line{Name: s.csv + " observed time" + n, Value: s.observed[k], Unit: "s", Quiet: true},
			patterns.Line{Name: s.csv + " observed rate" + n, Value: finite(ho), Unit: strings.TrimSpace(string(uo) + "B/s"), Quiet: true},
			patterns.Line{Name: s.csv + " throughput samples per second" + n, Value: finite(s.thrput[k]), Unit: "samples/s", Quiet: true},
		)
	}
	return l
}

// rate is bytes over seconds, 0 without time (the program's NaN, which JSON cannot hold).
func rate(bytes, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return bytes / seconds
}

// finite keeps NaN out of the report's values (JSON has no NaN): 0 stands for it.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// setup is what the program prints at start-up about its settings.
func (p *Pattern) setup(ranks int) []patterns.Line {
	c := &p.C
	var l []patterns.Line
	switch {
	case c.Chunking && c.Deflate > 0:
		l = append(l, patterns.Line{Text: fmt.Sprintf("Using chunking with the chunk shape (1, %d, %d) and compression (level %d)", c.ChunkDim, c.ChunkDim, c.Deflate)})
	case c.Chunking:
		l = append(l, patterns.Line{Text: fmt.Sprintf("Using chunking with the chunk shape (1, %d, %d)", c.ChunkDim, c.ChunkDim)})
	case c.CollectiveIO:
		l = append(l, patterns.Line{Text: "Using collective I/O mode"})
	default:
		l = append(l, patterns.Line{Text: "Using independent I/O mode"})
	}
	if c.CollectiveMeta {
		l = append(l, patterns.Line{Text: "Using collective meta-data I/O mode"})
	}
	if c.Train {
		for _, b := range []struct {
			what string
			n    uint64
		}{{"training", c.trainBatches(ranks)}, {"evaluation", c.evalBatches(ranks)}} {
			l = append(l, patterns.Line{Text: fmt.Sprintf("The number of %s batches per rank: %d", b.what, b.n)})
			if uint64(c.ReadThreads) > b.n {
				l = append(l, patterns.Line{Text: fmt.Sprintf("Warning: The number of requested read threads (%d) is greater than the number of %s batches per rank (%d)!", c.ReadThreads, b.what, b.n)})
			}
		}
	}
	return l
}

// KernelReport returns h5bench_dlio's own output: after the generation, its messages;
// after the training, its "Performance Results" (print_average_data) and the rows of its
// CSV. The mapping (docs/dlio.md): an epoch's metadata time is the file opens and closes
// and the dataset opens and closes of its batches, its raw read time their H5Dread calls,
// its observed time the batches' wall time with their compute, each summed over the
// batches and averaged over the ranks; the compute time is the emulated compute measured.
func (p *Pattern) KernelReport(t patterns.PhaseTimes) []patterns.Line {
	c := &p.C
	var l []patterns.Line
	if len(t.Earlier) == 0 {
		l = append(l, p.setup(t.Ranks)...)
	}
	if t.Phase == patterns.PhaseWrite {
		return append(l, patterns.Line{Text: "Starting data generation"},
			patterns.Line{Text: fmt.Sprintf("Number of files for training dataset: %d", c.FilesTrain)},
			patterns.Line{Text: fmt.Sprintf("Number of files for evaluation dataset: %d", c.FilesEval)},
			patterns.Line{Text: "Generation done"})
	}
	l = append(l, patterns.Line{Text: "--- h5bench_dlio: Performance Results ---"},
		patterns.Line{Name: "ranks", Value: float64(t.Ranks), Text: fmt.Sprintf("Total number of ranks: %d", t.Ranks)},
		patterns.Line{Name: "read threads", Value: float64(c.ReadThreads), Text: fmt.Sprintf("The number of read threads per rank: %d", c.ReadThreads)})
	l = append(l, p.epochs(t, false).lines(c.Epochs, c.RecordLength)...)
	if c.Eval {
		l = append(l, p.epochs(t, true).lines(c.Epochs, c.RecordLength)...)
	}
	return l
}
