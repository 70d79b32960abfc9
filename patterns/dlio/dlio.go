package dlio

import (
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Pattern is h5bench's DLIO emulation (h5bench_dlio): the write phase generates the train
// and valid files, the read phase trains for epochs of batches read sample by sample, each
// sample with its own file open, evaluating every epochs-between-evals epochs.
type Pattern struct {
	patterns.Base[Config]

	mu        sync.Mutex
	schedules map[[2]int]*schedule // by rank and size
	lastEnded patterns.Phase
}

// Factory builds the dlio pattern; package patterns/all registers it.
var Factory = patterns.Define(patterns.Def[Config, *Pattern]{Name: "dlio", Options: Options, Config: FromValues,
	Summary: "h5bench DLIO emulation (h5bench_dlio): generates <prefix>_<i>_of_<n>.h5 train and valid files (uint8 records, int64 labels), then trains epoch by epoch, one file open and H5Dread per sample, compute after each batch"})

// Phases lists the configured phases: write with generate-data, read with train.
func (p *Pattern) Phases() []patterns.Phase {
	var ph []patterns.Phase
	if p.C.Generate {
		ph = append(ph, patterns.PhaseWrite)
	}
	if p.C.Train {
		ph = append(ph, patterns.PhaseRead)
	}
	return ph
}

// Steps is the first phase's number of steps on one rank (PhaseSteps gives each phase's).
func (p *Pattern) Steps() int { return p.PhaseSteps(p.Phases()[0], 1) }

// PhaseSteps: the write phase has a step per round of files (each rank generates file
// rank, rank + size, ...: the train files, then the valid files); the read phase a step per
// batch, training then evaluation, epoch after epoch.
func (p *Pattern) PhaseSteps(ph patterns.Phase, ranks int) int {
	if ph == patterns.PhaseWrite {
		return int(rounds(p.C.FilesTrain, ranks) + rounds(p.C.FilesEval, ranks))
	}
	n := 0
	for _, s := range p.C.segments(ranks) {
		n += s.steps
	}
	return n
}

func rounds(files uint64, ranks int) uint64 { return (files + uint64(ranks) - 1) / uint64(ranks) }

// FileName is the program's name of file i (from 1) of n in folder sub of the data
// directory dir.
func (c Config) FileName(dir, sub string, i, n uint64) string {
	return filepath.Join(dir, sub, fmt.Sprintf("%s_%d_of_%d.h5", c.Prefix, i, n))
}

// RecordsShape is the records dataset's extent: samples x DIM x DIM.
func (c Config) RecordsShape() []uint64 { return []uint64{c.Samples, c.Dim, c.Dim} }

// variable names a file's records in the seeded fill: each file holds its own values, so a
// read of the wrong file or sample fails verification.
func variable(sub string, i uint64, records string) string {
	return fmt.Sprintf("%s/%d/%s", sub, i, records)
}

// fileSpec is the program's file access: a file of one rank (sec2 here; the program uses
// MPI-IO on MPI_COMM_SELF unless chunking), collective metadata with collective-meta.
func (c Config) fileSpec(create bool) *plan.FileSpec {
	return &plan.FileSpec{ReadOnly: !create, MakeDirs: create, CollMetadataOps: c.CollectiveMeta, CollMetadataWrite: c.CollectiveMeta}
}

// collective is the program's transfer mode: collective only with collective-data on
// unchunked datasets (it turns collective off with chunking).
func (c Config) collective() bool { return c.CollectiveIO && !c.Chunking }

// Begin plans nothing: the program opens each file where it uses it.
func (p *Pattern) Begin(ph patterns.Phase, env patterns.Env) (plan.Plan, error) {
	return plan.Plan{}, nil
}

// End plans nothing and notes the phase, for Cleanup.
func (p *Pattern) End(ph patterns.Phase, steps int, env patterns.Env) (plan.Plan, error) {
	p.mu.Lock()
	p.lastEnded = ph
	p.mu.Unlock()
	return plan.Plan{}, nil
}

// Step plans one step: a round of generated files, or a batch of sample reads.
func (p *Pattern) Step(ph patterns.Phase, step int, env patterns.Env) (plan.Plan, error) {
	if ph == patterns.PhaseWrite {
		return p.generate(step, env), nil
	}
	s := p.schedule(env.Rank, env.Size)
	if step < 0 || step >= len(s.steps) {
		return plan.Plan{}, fmt.Errorf("dlio: read step %d outside 0..%d", step, len(s.steps)-1)
	}
	var pl plan.Plan
	for _, r := range s.steps[step].reads {
		pl.Add(p.readSample(r, env)...)
	}
	return pl, nil
}

// generate is the write of the file of this rank in a round: the train files' rounds
// first, then the valid files'.
func (p *Pattern) generate(step int, env patterns.Env) plan.Plan {
	c := &p.C
	sub, n, first := c.TrainFolder, c.FilesTrain, uint64(0)
	if tr := rounds(c.FilesTrain, env.Size); uint64(step) >= tr {
		sub, n, first = c.EvalFolder, c.FilesEval, tr
	}
	i := (uint64(step)-first)*uint64(env.Size) + uint64(env.Rank)
	if i >= n {
		return plan.Plan{}
	}
	// The program seeds its bytes per file (srand(random-seed + i)); here the file's data
	// come from the session's seeded fill under a name of the file's own.
	wstep := step
	path := c.FileName(env.Path, sub, i+1, n)
	shape := c.RecordsShape()
	records := &plan.DatasetSpec{Type: plan.U8, Shape: shape, Deflate: c.Deflate}
	if c.Chunking {
		records.Chunk = []uint64{1, c.ChunkDim, c.ChunkDim}
	}
	labels := []uint64{c.Samples}
	var pl plan.Plan
	pl.Add(plan.Op{Kind: plan.CreateFile, Path: path, Step: wstep, File: c.fileSpec(true)},
		plan.Op{Kind: plan.CreateDataset, Path: "/" + c.Records, Step: wstep, Dataset: records},
		plan.Op{Kind: plan.Write, Path: "/" + c.Records, Step: wstep, Collective: c.collective(), Transfer: &plan.Transfer{
			Variable: variable(sub, i+1, c.Records), Buffer: "records", MemType: plan.U8, MemShape: shape,
			FileType: plan.U8, FileShape: shape, Selection: plan.All(shape)}},
		plan.Op{Kind: plan.CloseDataset, Path: "/" + c.Records, Step: wstep},
		plan.Op{Kind: plan.CreateDataset, Path: "/" + c.Labels, Step: wstep, Dataset: &plan.DatasetSpec{Type: plan.I64, Shape: labels}},
		plan.Op{Kind: plan.Write, Path: "/" + c.Labels, Step: wstep, Collective: c.collective(), Transfer: &plan.Transfer{
			Variable: c.Labels, Buffer: "labels", MemType: plan.I64, MemShape: labels,
			FileType: plan.I64, FileShape: labels, Selection: plan.All(labels), Data: make([]byte, 8*c.Samples)}},
		plan.Op{Kind: plan.CloseDataset, Path: "/" + c.Labels, Step: wstep},
		plan.Op{Kind: plan.CloseFile, Path: path, Step: wstep})
	return pl
}

// writeStep is the write step in which file i (from 1) of a folder was generated, by as
// many ranks as read it: its seeded values are that step's.
func (c Config) writeStep(eval bool, i uint64, ranks int) int {
	s := (i - 1) / uint64(ranks)
	if eval {
		s += rounds(c.FilesTrain, ranks)
	}
	return int(s)
}

// readSample is the program's read_sample: open the file and the records dataset, read one
// DIM x DIM record, close both.
func (p *Pattern) readSample(r sampleRef, env patterns.Env) []plan.Op {
	c := &p.C
	sub, n := c.TrainFolder, c.FilesTrain
	if r.eval {
		sub, n = c.EvalFolder, c.FilesEval
	}
	path := c.FileName(env.Path, sub, r.file, n)
	shape := c.RecordsShape()
	ws := c.writeStep(r.eval, r.file, env.Size)
	return []plan.Op{
		{Kind: plan.OpenFile, Path: path, Step: ws, File: c.fileSpec(false)},
		{Kind: plan.OpenDataset, Path: "/" + c.Records, Step: ws},
		{Kind: plan.Read, Path: "/" + c.Records, Step: ws, Collective: c.collective(), Transfer: &plan.Transfer{
			Variable: variable(sub, r.file, c.Records), Buffer: "sample", MemType: plan.U8, MemShape: []uint64{1, c.Dim, c.Dim},
			FileType: plan.U8, FileShape: shape,
			Selection: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{r.sample, 0, 0}, []uint64{1, c.Dim, c.Dim})}}}},
		{Kind: plan.CloseDataset, Path: "/" + c.Records, Step: ws},
		{Kind: plan.CloseFile, Path: path, Step: ws},
	}
}

// ComputeAfter is the compute the program does for a batch: its preprocess draw per
// sample (done here after the batch's reads) and its computation or evaluation draw.
func (p *Pattern) ComputeAfter(ph patterns.Phase, step int, env patterns.Env) time.Duration {
	if ph != patterns.PhaseRead {
		return 0
	}
	s := p.schedule(env.Rank, env.Size)
	if step < 0 || step >= len(s.steps) {
		return 0
	}
	return time.Duration(s.steps[step].preprocessUS+s.steps[step].computeUS) * time.Microsecond
}

// Files lists every file the configuration names in the data directory dir, train first.
func (c Config) Files(dir string) []string {
	var f []string
	for i := uint64(1); i <= c.FilesTrain; i++ {
		f = append(f, c.FileName(dir, c.TrainFolder, i, c.FilesTrain))
	}
	for i := uint64(1); i <= c.FilesEval; i++ {
		f = append(f, c.FileName(dir, c.EvalFolder, i, c.FilesEval))
	}
	return f
}

// Cleanup is the program's end without keep-files: rank 0 deletes the data directory.
// Here its files, then its folders when they are empty, after the last phase.
func (p *Pattern) Cleanup(env patterns.Env) []string {
	p.mu.Lock()
	last := p.lastEnded
	p.mu.Unlock()
	ph := p.Phases()
	if p.C.KeepFiles || last != ph[len(ph)-1] {
		return nil
	}
	return append(p.C.Files(env.Path), filepath.Join(env.Path, p.C.TrainFolder), filepath.Join(env.Path, p.C.EvalFolder), env.Path)
}
