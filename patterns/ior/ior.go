package ior

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Pattern is IOR's test: every task writes (reads) segments x blockSize bytes in
// transferSize calls, once per iteration.
type Pattern struct {
	patterns.Base[Config]
	data patternCache
}

// Factory builds the ior pattern; package patterns/all registers it. IOR's reset warnings
// (FromValues) are printed by `h5proxy ior`, which parses the command line itself.
var Factory = patterns.Define(patterns.Def[Config, *Pattern]{Name: "ior", Options: Options, Phases: patterns.WriteRead,
	Summary: "IOR: segments x blocks x transfers per task, shared file or file per process, POSIX, MPI-IO or IOR's HDF5 file; reordered and verified reads, repetitions",
	Config: func(v *options.Values) (Config, error) {
		c, _, err := FromValues(v)
		return c, err
	},
})

// Steps returns the repetitions: one step per iteration.
func (p *Pattern) Steps() int { return p.C.Repetitions }

// Iterations returns the repetitions: h5proxy ior runs them one at a time as IOR does
// (write, read, removal, then the next iteration), a phase per access and iteration.
func (p *Pattern) Iterations() int { return p.C.Repetitions }

// iteration is IOR's iteration of a phase's step: its step when a phase runs every
// iteration, the session's iteration when it runs one.
func iteration(step int, env patterns.Env) int { return env.Iteration + step }

// WrittenBy is the write step whose values a read step finds: every iteration recreates
// the file, so it holds the last write step's (the last repetition's after a phase of all
// of them, the same iteration's when they run one at a time).
func (p *Pattern) WrittenBy(readStep, writeSteps int) int { return writeSteps - 1 }

// BarrierBefore is IOR's barrier before each open (TestIoSys), outside the timers.
func (p *Pattern) BarrierBefore(patterns.Phase, int) bool { return true }

// Begin plans nothing: IOR creates (opens) its file anew at each iteration.
func (p *Pattern) Begin(ph patterns.Phase, env patterns.Env) (plan.Plan, error) {
	if ph != patterns.PhaseWrite && ph != patterns.PhaseRead {
		return plan.Plan{}, fmt.Errorf("ior: no %s phase", ph)
	}
	return plan.Plan{}, nil
}

// End plans nothing: each step closes its file.
func (p *Pattern) End(patterns.Phase, int, patterns.Env) (plan.Plan, error) { return plan.Plan{}, nil }

// ComputeAfter is -d: the delay between iterations (IOR's DelaySecs before each open).
func (p *Pattern) ComputeAfter(ph patterns.Phase, step int, env patterns.Env) time.Duration {
	return time.Duration(p.C.InterTestDelay) * time.Second
}

// FilePath is the file rank env.Rank writes: the test file, or testFile.NNNNNNNN of its
// task with -F (IOR's GetTestFileName).
func (p *Pattern) FilePath(env patterns.Env) string { return p.fileOf(env.Path, env.Rank) }

func (p *Pattern) fileOf(path string, task int) string {
	if !p.C.FilePerProc {
		return path
	}
	return fmt.Sprintf("%s.%08d", path, task)
}

// RankOffset is IOR's rankOffset of a read (ior.c: TestIoSys): the read of rank r reads
// what task (r + offset) % tasks wrote. -C: taskPerNodeOffset tasks (twice the per-node
// shift for a check of the write alone, -W without -r or -R); -Z: drawn from a generator
// seeded with rank + seed (seed < 0: -seed + the iteration). IOR shifts -C by the tasks
// of node 0 when its ranks are placed by block, which on one node makes -C no shift at
// all; h5proxy shifts by -Q tasks, as IOR does with a round-robin placement over nodes.
func (p *Pattern) RankOffset(rank, size, step int) int {
	c := p.C
	switch {
	case c.ReorderTasks && !c.ReadFile && !c.CheckRead:
		return 2 % size
	case c.ReorderTasks:
		return c.TaskPerNodeOffset % size
	case c.ReorderRandom:
		seed := c.ReorderSeed
		if seed < 0 {
			seed = -seed + step
		}
		r := rand.New(rand.NewPCG(uint64(rank+seed), 0x10e))
		return r.IntN(size)
	}
	return 0
}

// Dataset is the name of segment s's dataset (aiori-HDF5.c: SetupDataSet_HDF5,
// "Dataset-%04d.%04d" of data set 0 and the segment).
func Dataset(s int) string { return fmt.Sprintf("/Dataset-%04d.%04d", 0, s) }

// xfer is one transfer: a segment's dataset and the element where it starts.
type xfer struct {
	seg   int
	start uint64
}

// offsets are the transfers of task (the pretended rank) in IOR's order:
// GetOffsetArraySequential, or with -z a seeded shuffle as GetOffsetArrayRandom makes
// (the shared file's transfers assigned to tasks at random, every rank drawing the same
// assignment; each task's own in random order).
func (p *Pattern) offsets(task, size int, seed uint64) []xfer {
	c := p.C
	n := c.transfers()
	segElems := p.segElems(size)
	var out []xfer
	if !c.RandomOffset {
		for s := 0; s < c.Segments; s++ {
			for j := 0; j < n; j++ {
				off := uint64(j) * elems(c.TransferSize)
				if !c.FilePerProc {
					off += uint64(task) * elems(c.BlockSize)
				}
				out = append(out, xfer{s, off})
			}
		}
		return out
	}
	r := rand.New(rand.NewPCG(seed, 0x102))
	total := c.Segments * n
	if !c.FilePerProc {
		total *= size
	}
	for i := 0; i < total; i++ {
		if !c.FilePerProc && r.IntN(size) != task {
			continue
		}
		e := uint64(i) * elems(c.TransferSize)
		out = append(out, xfer{int(e / segElems), e % segElems})
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// segElems is the extent of a segment's dataset: every task's block (shared file), the
// task's own (file per process).
func (p *Pattern) segElems(size int) uint64 {
	if p.C.FilePerProc {
		return elems(p.C.BlockSize)
	}
	return uint64(size) * elems(p.C.BlockSize)
}

// Spec is the creation of a segment's dataset: H5T_NATIVE_LLONG, 1-D, contiguous (chunks
// of --hdf5.chunkSize elements), no fill with -n (aiori-HDF5.c: HDF5_Open, SetupDataSet),
// created and opened with the 1.6 API's H5Dcreate1 and H5Dopen1: IOR calls H5Dcreate and
// H5Dopen with five and two arguments, which its build (H5_USE_16_API) maps to those.
func (p *Pattern) Spec(size int) *plan.DatasetSpec {
	d := &plan.DatasetSpec{Type: plan.I64, Shape: []uint64{p.segElems(size)}, FillNever: p.C.NoFill, API1: true}
	if p.C.ChunkSize > 0 {
		d.Chunk = []uint64{p.C.ChunkSize}
	}
	return d
}

// fileSpec is the file access: MPI-IO on all tasks (shared) or the task's own file, which
// IOR's HDF5 backend opens through MPI-IO on MPI_COMM_SELF (aiori-HDF5.c: HDF5_Open);
// HDF5's alignment with -J, collective metadata reads and writes with
// --hdf5.collectiveMetadata. As IOR's backends: MPI-IO and HDF5 opens pass an info object
// (SetHints creates one, hints or not), MPI-IO opens add MPI_MODE_UNIQUE_OPEN
// (MPIIO_Open); POSIX creates open on every rank with O_CREAT|O_RDWR and mode 0664, no
// truncation, and transfers seek then write (POSIX_Create, POSIX_Xfer). Every byte a read
// reads was written by a whole block, so the raw layouts ask no file size (Complete).
func (p *Pattern) fileSpec(read bool) *plan.FileSpec {
	fs := &plan.FileSpec{Parallel: !p.C.FilePerProc, SelfMPIIO: p.C.FilePerProc && p.C.API == "HDF5", ReadOnly: read,
		CollMetadataOps: p.C.CollMetadata, CollMetadataWrite: p.C.CollMetadata, Complete: true}
	switch p.C.API {
	case "HDF5":
		fs.Hints = true
		if p.C.Alignment > 1 {
			fs.AlignThreshold, fs.AlignLen = p.C.Alignment, p.C.Alignment
		}
	case "MPIIO":
		fs.Hints, fs.UniqueOpen = true, true
	case "POSIX":
		fs.CreateEveryRank, fs.Mode, fs.Seek = true, posixMode, true
	}
	return fs
}

// posixMode is the permission bits of IOR's POSIX creates (aiori-POSIX.c: POSIX_Create).
const posixMode = 0o664

// Step plans one iteration of a phase: the file's create (open), each segment's dataset
// created (opened) before its first transfer and closed after its last, the transfers in
// IOR's order, fsyncs (-Y after each write, -e after all), and the close.
func (p *Pattern) Step(ph patterns.Phase, step int, env patterns.Env) (plan.Plan, error) {
	var pl plan.Plan
	iter := iteration(step, env)
	if step < 0 || iter >= p.Steps() {
		return pl, fmt.Errorf("ior: step %d of iteration %d outside the %d iterations", step, env.Iteration, p.Steps())
	}
	c, write := p.C, ph == patterns.PhaseWrite
	if !write && ph != patterns.PhaseRead {
		return pl, fmt.Errorf("ior: no %s phase", ph)
	}
	if n := p.segElems(env.Size); c.ChunkSize > n {
		return pl, &options.Error{Table: "ior", Key: "chunkSize", Value: fmt.Sprint(c.ChunkSize),
			Reason: fmt.Sprintf("exceeds the %d elements of a segment's dataset on %d tasks (HDF5: chunk size must be <= maximum dimension size for fixed-sized dimensions)", n, env.Size)}
	}
	task := env.Rank
	if !write {
		task = (env.Rank + p.RankOffset(env.Rank, env.Size, iter)) % env.Size
	}
	shared := !c.FilePerProc
	file := p.fileOf(env.Path, task)
	// One buffer for writes and reads, as IOR's (ior.c: TestIoSys, ioBuffers): a read
	// lands in memory the writes already touched, not in pages faulted in while timed.
	kind, open, buffer := plan.Write, plan.CreateDataset, "ior"
	fileOp := plan.Op{Kind: plan.CreateFile, Path: file, Collective: shared, Step: step, File: p.fileSpec(false)}
	if !write {
		kind, open = plan.Read, plan.OpenDataset
		fileOp.Kind, fileOp.File = plan.OpenFile, p.fileSpec(true)
	}
	if c.UseFileView {
		v := &plan.FileView{Transfer: c.TransferSize, Block: c.BlockSize, Tasks: env.Size, Task: task}
		if c.FilePerProc {
			v.Tasks, v.Task = 1, 0
		}
		fileOp.File.View = v
	}
	pl.Add(fileOp)
	spec := p.Spec(env.Size)
	dsOp := func(k plan.OpKind, s int) plan.Op {
		op := plan.Op{Kind: k, Path: Dataset(s), Collective: shared, Step: step}
		if k != plan.CloseDataset {
			// Opens carry the creation too: the raw layouts lay out another task's file
			// per process from it (they keep no metadata in the file).
			op.Dataset = spec
		}
		return op
	}
	flush := c.API != "HDF5" && write // IOR's HDF5 fsync does nothing
	seed := env.Seed ^ uint64(iter)<<32 ^ uint64(ph)<<48
	xs := p.offsets(task, env.Size, seed)
	// IOR's buffer of the test: the time-stamp pattern of the task whose data the step
	// writes or reads, the same bytes at every transfer (data.go).
	data := p.data.data(c.signature(env.Seed), task, c.TransferSize)
	if c.RandomOffset { // every dataset first: the transfers visit the segments in any order
		for s := 0; s < c.Segments; s++ {
			pl.Add(dsOp(open, s))
		}
	}
	for i, x := range xs {
		if !c.RandomOffset && (i == 0 || xs[i-1].seg != x.seg) {
			pl.Add(dsOp(open, x.seg))
		}
		variable := Dataset(x.seg)[1:]
		if c.FilePerProc { // each task's file holds its own values
			variable = fmt.Sprintf("task%d/%s", task, variable)
		}
		// IOR's file selection: one block of a transfer's elements, its stride the same
		// (aiori-HDF5.c: SeekOffset), which profilers record (H5D_ACCESS1_STRIDE).
		n := elems(c.TransferSize)
		sel := plan.Hyperslab{Start: []uint64{x.start}, Stride: []uint64{n}, Count: []uint64{1}, Block: []uint64{n}}
		t := &plan.Transfer{Variable: variable, Buffer: buffer, MemType: plan.I64, MemShape: []uint64{n},
			FileType: plan.I64, FileShape: spec.Shape, Selection: plan.Selection{Blocks: []plan.Hyperslab{sel}}, Data: data}
		pl.Add(plan.Op{Kind: kind, Path: Dataset(x.seg), Collective: c.Collective, Step: step, Transfer: t})
		if flush && c.FsyncPerWrite {
			pl.Add(plan.Op{Kind: plan.FlushFile, Path: file, Step: step})
		}
		if !c.RandomOffset && (i == len(xs)-1 || xs[i+1].seg != x.seg) {
			pl.Add(dsOp(plan.CloseDataset, x.seg))
		}
	}
	if c.RandomOffset {
		for s := 0; s < c.Segments; s++ {
			pl.Add(dsOp(plan.CloseDataset, s))
		}
	}
	if flush && c.Fsync {
		pl.Add(plan.Op{Kind: plan.FlushFile, Path: file, Step: step})
	}
	pl.Add(plan.Op{Kind: plan.CloseFile, Path: file, Collective: shared, Step: step})
	return pl, pl.Validate()
}
