package vpic

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Variables are the 8 particle variables in h5bench's dataset creation order.
var Variables = []string{"x", "y", "z", "px", "py", "pz", "id_1", "id_2"}

// readOrder is the order in which the read kernel opens and reads the datasets.
var readOrder = []string{"x", "y", "z", "id_1", "id_2", "px", "py", "pz"}

// Particle is h5bench's 32-byte `particle` compound type.
var Particle = plan.Struct("particle", 32,
	plan.Field("x", 0, plan.F32), plan.Field("y", 4, plan.F32), plan.Field("z", 8, plan.F32),
	plan.Field("px", 12, plan.F32), plan.Field("py", 16, plan.F32), plan.Field("pz", 20, plan.F32),
	plan.Field("id_1", 24, plan.I32), plan.Field("id_2", 28, plan.F32))

// BytesPerParticle is what h5bench counts per particle for every pattern.
const BytesPerParticle = 32

// VarType returns the atomic type of a particle variable.
func VarType(name string) plan.Type {
	if name == "id_1" {
		return plan.I32
	}
	return plan.F32
}

// single is the 4-byte single-member compound h5bench uses per variable.
func single(name string) plan.Type {
	return plan.Struct(name, 4, plan.Field(name, 0, VarType(name)))
}

// Pattern is the h5bench write (VPIC-IO) and read (BD-CATS-IO) kernel.
type Pattern struct {
	patterns.Base[Config]
	// ints and floats are the modify kernels' write values (modifyData), made once.
	ints, floats []byte
	// cache holds the running phase's step plans (plancache.go).
	cache planCache
}

// Factory builds the vpic pattern; package patterns/all registers it.
var Factory = define(KernelVPIC, Options, "h5bench VPIC-IO write and BD-CATS-IO read kernels (Timestep_<i> groups of particle datasets)")

// Steps returns TIMESTEPS. The phases are write and read; the name is vpic's or the
// variant's (vpic-append, ...).
func (p *Pattern) Steps() int { return p.C.Timesteps }

// FilePath is the file a rank works on: the shared path, or rank_<r>_<name> beside it
// with FILE_PER_PROC.
func (p *Pattern) FilePath(env patterns.Env) string {
	if !p.C.FilePerProc {
		return env.Path
	}
	return filepath.Join(filepath.Dir(env.Path), fmt.Sprintf("rank_%d_%s", env.Rank, filepath.Base(env.Path)))
}

func (p *Pattern) parallel() bool { return !p.C.FilePerProc }

// Begin creates (write) or opens (read) the file with h5bench's access properties.
func (p *Pattern) Begin(ph patterns.Phase, env patterns.Env) (plan.Plan, error) {
	p.cache.newPhase() // perhaps another file, other extents: step 0 is planned again
	var pl plan.Plan
	fs := &plan.FileSpec{Parallel: p.parallel(), FlushLocal: true}
	kind := plan.CreateFile
	switch ph {
	case patterns.PhaseWrite:
		if p.C.Kernel.modify() {
			return p.modifyBegin(env), nil
		}
		if err := p.C.checkFilter(env); err != nil {
			return pl, err
		}
		if p.parallel() {
			fs.CollMetadataOps, fs.CollMetadataWrite = p.C.CollectiveMetadata, p.C.CollectiveMetadata
			fs.MDCInitialSize = 16 << 20
			if p.C.Align {
				fs.AlignThreshold, fs.AlignLen = p.C.AlignThreshold, p.C.AlignLen
			}
		}
	case patterns.PhaseRead:
		if p.C.FilePattern == "INTERLEAVED" {
			return pl, fmt.Errorf("vpic read: the read kernel reads FILE_PATTERN CONTIG or STRIDED files (datasets of native f32/i32), not INTERLEAVED")
		}
		kind = plan.OpenFile
		fs.ReadOnly = true
		fs.CollMetadataOps, fs.CollMetadataWrite = p.parallel(), p.parallel()
	default:
		return pl, fmt.Errorf("vpic: no %s phase", ph)
	}
	pl.Add(plan.Op{Kind: kind, Path: p.FilePath(env), Collective: p.parallel(), File: fs})
	return pl, nil
}

// group is the path of a timestep's group.
func group(step int) string { return "/Timestep_" + strconv.Itoa(step) }

// datasets returns the dataset names of one timestep in creation order.
func (p *Pattern) datasets() []string {
	if p.C.FilePattern == "INTERLEAVED" {
		return []string{"particles"}
	}
	return Variables
}

// closeStep closes a timestep's datasets then its group, as h5bench does (collective on a
// shared file, like every object close in parallel HDF5).
func (p *Pattern) closeStep(pl *plan.Plan, step int, names []string) {
	coll := p.parallel()
	for _, n := range names {
		pl.Add(plan.Op{Kind: plan.CloseDataset, Path: group(step) + "/" + n, Collective: coll, Step: step})
	}
	pl.Add(plan.Op{Kind: plan.CloseGroup, Path: group(step), Collective: coll, Step: step})
}

// Step plans one timestep.
func (p *Pattern) Step(ph patterns.Phase, step int, env patterns.Env) (plan.Plan, error) {
	if step < 0 || step >= p.C.Timesteps {
		return plan.Plan{}, fmt.Errorf("vpic: step %d outside 0..%d", step, p.C.Timesteps-1)
	}
	if pl, ok, err := p.cachedStep(ph, step, env); ok || err != nil {
		return pl, err
	}
	return p.planStep(ph, step, env)
}

// planStep builds the plan of one timestep.
func (p *Pattern) planStep(ph patterns.Phase, step int, env patterns.Env) (plan.Plan, error) {
	var pl plan.Plan
	var err error
	switch {
	case p.C.Kernel.modify() && (ph == patterns.PhaseWrite || ph == patterns.PhaseRead):
		err = p.modifyStep(&pl, ph, step, env)
	case ph == patterns.PhaseWrite:
		err = p.writeStep(&pl, step, env)
	case ph == patterns.PhaseRead:
		err = p.readStep(&pl, step, env)
	default:
		err = fmt.Errorf("vpic: no %s phase", ph)
	}
	if err == nil {
		err = pl.Validate()
	}
	return pl, err
}

// delayedClose reports whether steps are closed late (h5bench does so only under async).
func (p *Pattern) delayedClose(env patterns.Env) bool { return p.C.DelayedClose > 0 && env.Async }

// closeDelayed adds, at the start of a step, the closes of earlier steps that h5bench's
// delayed close (both kernels) performs there: at step D the first D steps close; after
// that each step closes its predecessor.
func (p *Pattern) closeDelayed(pl *plan.Plan, step int, env patterns.Env, names []string) {
	if !p.delayedClose(env) {
		return
	}
	switch {
	case step == p.C.DelayedClose:
		for s := 0; s < step; s++ {
			p.closeStep(pl, s, names)
		}
	case step > p.C.DelayedClose:
		p.closeStep(pl, step-1, names)
	}
}

// stepNames lists the datasets of a step in the order the phase opens (and closes) them.
func (p *Pattern) stepNames(ph patterns.Phase) []string {
	if ph == patterns.PhaseRead || p.C.Kernel.modify() {
		return readOrder
	}
	return p.datasets()
}

func (p *Pattern) writeStep(pl *plan.Plan, step int, env patterns.Env) error {
	c := p.C
	names := p.datasets()
	p.closeDelayed(pl, step, env, names)
	coll := p.parallel()
	pl.Add(plan.Op{Kind: plan.CreateGroup, Path: group(step), Collective: coll, Step: step})
	fileShape, memShape, sel := p.writeSelection(env)
	collData := p.parallel() && (c.CollectiveData || c.Compress)
	for _, n := range names {
		ds := &plan.DatasetSpec{Type: p.fileType(n), Shape: fileShape}
		if c.Compress {
			ds.Chunk = append([]uint64(nil), c.ChunkDims[:c.NumDims]...)
			c.compression(ds)
		}
		if c.Kernel == KernelUnlimited {
			// h5bench_write_unlimited passes a one-element maxdims array of H5S_UNLIMITED
			// for every rank: dim 1 is unlimited, the others read past the array (in
			// practice garbage); h5proxy makes every dimension unlimited.
			ds.MaxShape = make([]uint64, len(fileShape))
			for i := range ds.MaxShape {
				ds.MaxShape[i] = plan.MaxUnlimited
			}
		}
		pl.Add(plan.Op{Kind: plan.CreateDataset, Path: group(step) + "/" + n, Collective: coll, Step: step, Dataset: ds})
	}
	// One H5Dwrite per variable, except INTERLEAVED->INTERLEAVED: one for the whole struct.
	for _, v := range p.writeVars() {
		dsName := v
		if c.FilePattern == "INTERLEAVED" {
			dsName = "particles"
		}
		t := &plan.Transfer{Variable: v, Buffer: p.bufferOf(v), MemType: p.memType(v),
			MemShape: memShape, FileType: p.fileType(dsName), FileShape: fileShape, Selection: sel}
		pl.Add(plan.Op{Kind: plan.Write, Path: group(step) + "/" + dsName, Collective: collData, Step: step, Transfer: t})
	}
	if c.DelayedClose == 0 {
		p.closeStep(pl, step, names)
	}
	return nil
}

// writeVars lists what each H5Dwrite of a step writes.
func (p *Pattern) writeVars() []string {
	if p.C.pattern() == "II" {
		return []string{"particles"}
	}
	return Variables
}

// fileType is the datatype of dataset n in the file (layouts.md 1.3).
func (p *Pattern) fileType(n string) plan.Type {
	switch p.C.pattern() {
	case "CI", "II":
		return Particle
	case "IC":
		return single(n)
	}
	return VarType(n)
}

// memType is the memory datatype of a write of variable v.
func (p *Pattern) memType(v string) plan.Type {
	switch p.C.pattern() {
	case "CI":
		return single(v)
	case "IC", "II":
		return Particle
	}
	return VarType(v)
}

// bufferOf names the memory buffer of a write: one per variable in CONTIG memory, one
// interleaved struct array shared by all writes in INTERLEAVED memory.
func (p *Pattern) bufferOf(v string) string {
	if p.C.MemPattern == "INTERLEAVED" {
		return "particles"
	}
	return v
}

// writeSelection returns the file shape, memory shape and file selection of rank r
// (layouts.md 1.4). In 1-D, FILE_OFFSET is the sum of the counts of the ranks before r:
// r*P, except in the normal-distribution kernel.
func (p *Pattern) writeSelection(env patterns.Env) (fileShape, memShape []uint64, sel plan.Selection) {
	c, r, R := p.C, uint64(env.Rank), uint64(env.Size)
	count, offset, total := p.slice(env)
	if c.pattern() == "CS" {
		fileShape = []uint64{total}
		memShape = []uint64{c.Block * c.BlockCount}
		sel = plan.Selection{Blocks: []plan.Hyperslab{{Start: []uint64{offset}, Stride: []uint64{c.Stride},
			Count: []uint64{c.BlockCount}, Block: []uint64{c.Block}}}}
		return
	}
	if c.NumDims == 1 {
		return []uint64{total}, []uint64{count}, plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{offset}, []uint64{count})}}
	}
	memShape = append([]uint64(nil), c.Dims[:c.NumDims]...)
	fileShape = append([]uint64(nil), memShape...)
	fileShape[0] *= R
	start := make([]uint64, c.NumDims)
	start[0] = r * c.Dims[0]
	return fileShape, memShape, plan.Selection{Blocks: []plan.Hyperslab{plan.Block(start, memShape)}}
}

func (p *Pattern) readStep(pl *plan.Plan, step int, env patterns.Env) error {
	if env.Shape == nil {
		return fmt.Errorf("vpic read: the plan needs the file's dataset shapes (env.Shape)")
	}
	dims, err := env.Shape("/Timestep_0/px")
	if err != nil {
		return fmt.Errorf("vpic read: shape of /Timestep_0/px: %w", err)
	}
	sel, memShape, err := p.readSelection(dims, env)
	if err != nil {
		return err
	}
	p.closeDelayed(pl, step, env, readOrder)
	coll := p.parallel()
	collData := p.parallel() && p.C.CollectiveData
	pl.Add(plan.Op{Kind: plan.OpenGroup, Path: group(step), Collective: coll, Step: step})
	for _, v := range readOrder {
		// h5bench's dataset access list asks for collective metadata reads
		pl.Add(plan.Op{Kind: plan.OpenDataset, Path: group(step) + "/" + v, Collective: coll, CollMetadata: coll, Step: step})
	}
	for _, v := range readOrder {
		t := &plan.Transfer{Variable: v, Buffer: "read:" + v, MemType: VarType(v), MemShape: memShape,
			FileType: VarType(v), FileShape: dims, Selection: sel}
		pl.Add(plan.Op{Kind: plan.Read, Path: group(step) + "/" + v, Collective: collData, Step: step, Transfer: t})
	}
	if p.C.DelayedClose == 0 {
		p.closeStep(pl, step, readOrder)
	}
	return nil
}

// readSelection returns what rank r reads (layouts.md 1.7) given the file's dims.
func (p *Pattern) readSelection(dims []uint64, env patterns.Env) (plan.Selection, []uint64, error) {
	// With FILE_PER_PROC each per-rank file holds the global dataspace with only the rank's
	// slice written, so the selections are the same.
	c, r, R := p.C, uint64(env.Rank), uint64(env.Size)
	if len(dims) != c.NumDims {
		return plan.Selection{}, nil, fmt.Errorf("vpic read: file datasets have rank %d, NUM_DIMS=%d", len(dims), c.NumDims)
	}
	perRank := plan.Product(dims) / R
	fileOffset := r * perRank
	n := c.Particles()
	if c.ToRead > 0 { // h5bench applies it whatever READ_OPTION says
		n = c.ToRead
	}
	if c.Kernel == KernelNormalDist {
		// h5bench has no reader for these files: each rank reads back its own slice.
		count, offset, total := p.slice(env)
		if total != dims[0] {
			return plan.Selection{}, nil, fmt.Errorf("vpic-normal-dist read: the file holds %d particles, the counts drawn with seed %d over %d ranks sum to %d (read with the writer's seed and rank count)", dims[0], env.Seed, R, total)
		}
		perRank, fileOffset, n = count, offset, count
	}
	var sel plan.Selection
	switch c.ReadOption {
	case "LDC", "RDC", "PRL", "CS":
		if env.Rank != 0 {
			return plan.None(), []uint64{1}, nil
		}
		d1, d2, b1, b2 := c.Dims[0], c.Dims[1], c.Block, c.Block2
		if d1 > dims[0] || d2 > dims[1] {
			return sel, nil, fmt.Errorf("vpic read: DIM_1 x DIM_2 = %dx%d exceeds the file's %v", d1, d2, dims)
		}
		switch c.ReadOption {
		case "LDC":
			sel.Blocks = []plan.Hyperslab{b2d(0, 0, b1, b2), b2d(d1-b1, d2-b2, b1, b2)}
			return sel, []uint64{2 * b1, b2}, nil
		case "RDC":
			sel.Blocks = []plan.Hyperslab{b2d(d1-b1, 0, b1, b2), b2d(0, d2-b2, b1, b2)}
			return sel, []uint64{2 * b1, b2}, nil
		case "PRL":
			sel.Blocks = []plan.Hyperslab{b2d(0, 0, d1, b2), b2d(0, d2-b2, d1, b2), b2d(0, b2, b1, d2-2*b2), b2d(d1-b1, b2, b1, d2-2*b2)}
		case "CS":
			for k := uint64(0); k*c.Stride+b1 < d1 && k*c.Stride2+b2 < d2; k++ {
				sel.Blocks = append(sel.Blocks, b2d(k*c.Stride, k*c.Stride2, b1, b2))
			}
			if len(sel.Blocks) == 0 {
				return plan.None(), []uint64{1}, nil
			}
		}
		return sel, []uint64{sel.NPoints(dims), 1}, nil
	}
	if c.FilePattern == "STRIDED" {
		sel.Blocks = []plan.Hyperslab{{Start: []uint64{fileOffset}, Stride: []uint64{c.Stride}, Count: []uint64{c.BlockCount}, Block: []uint64{c.Block}}}
		return sel, []uint64{c.Block * c.BlockCount}, sel.Validate(dims)
	}
	if c.NumDims == 1 {
		if n > perRank {
			return sel, nil, fmt.Errorf("vpic read: %d particles per rank requested, the file holds %d per rank (%d over %d ranks)", n, perRank, dims[0], R)
		}
		return plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{fileOffset}, []uint64{n})}}, []uint64{n}, nil
	}
	if c.Dims[0] > dims[0]/R {
		return sel, nil, fmt.Errorf("vpic read: DIM_1=%d exceeds the file's %d rows per rank (%d over %d ranks)", c.Dims[0], dims[0]/R, dims[0], R)
	}
	for d := 1; d < c.NumDims; d++ {
		if c.Dims[d] > dims[d] {
			return sel, nil, fmt.Errorf("vpic read: DIM_%d=%d exceeds the file's extent %d", d+1, c.Dims[d], dims[d])
		}
	}
	ext := append([]uint64(nil), c.Dims[:c.NumDims]...)
	start := make([]uint64, c.NumDims)
	start[0] = r * c.Dims[0]
	return plan.Selection{Blocks: []plan.Hyperslab{plan.Block(start, ext)}}, ext, nil
}

func b2d(s0, s1, e0, e1 uint64) plan.Hyperslab {
	return plan.Block([]uint64{s0, s1}, []uint64{e0, e1})
}

// End closes whatever the steps left open, flushes and closes the file.
func (p *Pattern) End(ph patterns.Phase, steps int, env patterns.Env) (plan.Plan, error) {
	var pl plan.Plan
	if p.C.DelayedClose > 0 {
		first := 0
		if p.delayedClose(env) && steps > p.C.DelayedClose {
			first = steps - 1 // earlier ones were closed by the steps themselves
		}
		for s := first; s < steps; s++ {
			p.closeStep(&pl, s, p.stepNames(ph))
		}
	}
	path := p.FilePath(env)
	if ph == patterns.PhaseWrite && !p.C.Kernel.modify() { // the modify kernels close without a flush
		pl.Add(plan.Op{Kind: plan.FlushFile, Path: path, Collective: p.parallel(), File: &plan.FileSpec{FlushLocal: true}})
	}
	pl.Add(plan.Op{Kind: plan.CloseFile, Path: path, Collective: p.parallel()})
	return pl, nil
}
