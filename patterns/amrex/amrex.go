package amrex

import (
	"fmt"
	"path/filepath"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Pattern is h5bench's AMReX benchmark (amrex/Tests/HDF5Benchmark): plotfiles, then
// particle checkpoints, one file per step, and the restart read-back.
type Pattern struct {
	patterns.Base[Config]
}

// Factory builds the amrex pattern; package patterns/all registers it.
var Factory = patterns.Define(patterns.Def[Config, *Pattern]{Name: "amrex", Options: Options, Config: FromValues, Phases: patterns.WriteRead,
	Summary: "h5bench AMReX benchmark: plotfiles pltNNNNN.h5 and particle checkpoints pltNNNNN/particle0/particle0.h5, with the restart read-back"})

// Steps is nplotfile + nparticlefile: one file per step, the plotfiles first (the
// benchmark's two loops in order). The phases are write and read (the restart check);
// PhaseSteps gives the read phase's own count.
func (p *Pattern) Steps() int { return p.C.NPlotfile + p.C.NParticlefile }

// PhaseSteps: the write phase writes Steps files. The read phase is the benchmark's
// restart check, which reads back plt00000/particle0 alone and only when particle files
// were written (one step or none); read_back=all reads every file, one per step.
func (p *Pattern) PhaseSteps(ph patterns.Phase, _ int) int {
	switch {
	case ph == patterns.PhaseWrite || p.C.ReadAll:
		return p.Steps()
	case p.C.NParticlefile > 0:
		return 1
	}
	return 0
}

// InputFile is the benchmark's inputs file: amrex::Initialize hands it to ParmParse, which
// reads it on the I/O rank with ParallelDescriptor::ReadAndBcastFile.
func (p *Pattern) InputFile() (string, patterns.InputRead) {
	return p.C.InputFile, patterns.InputWholeOnRoot
}

// Dir is the output directory: the directory key, or the session's file.
func (p *Pattern) Dir(env patterns.Env) string {
	if p.C.Directory != "" {
		return p.C.Directory
	}
	return env.Path
}

// PlotfilePath is plotfile i: <dir>/plt%05d.h5.
func (p *Pattern) PlotfilePath(env patterns.Env, i int) string {
	return filepath.Join(p.Dir(env), fmt.Sprintf("plt%05d.h5", i))
}

// ParticlePath is particle file i: <dir>/plt%05d/particle0/particle0.h5.
func (p *Pattern) ParticlePath(env patterns.Env, i int) string {
	return filepath.Join(p.Dir(env), fmt.Sprintf("plt%05d", i), "particle0", "particle0.h5")
}

// FileOf returns the file a step works on: plotfile step (step < nplotfile), else particle
// file step-nplotfile.
func (p *Pattern) FileOf(env patterns.Env, step int) (path string, plotfile bool) {
	if step < p.C.NPlotfile {
		return p.PlotfilePath(env, step), true
	}
	return p.ParticlePath(env, step-p.C.NPlotfile), false
}

// Begin plans nothing: every step creates (or opens) and closes its own file.
func (p *Pattern) Begin(ph patterns.Phase, _ patterns.Env) (plan.Plan, error) {
	return plan.Plan{}, p.CheckPhase(ph)
}

// End plans nothing: the last step closed its file.
func (p *Pattern) End(ph patterns.Phase, _ int, _ patterns.Env) (plan.Plan, error) {
	return plan.Plan{}, p.CheckPhase(ph)
}

// Step plans one file: writing a plotfile or particle checkpoint, or reading it back.
func (p *Pattern) Step(ph patterns.Phase, step int, env patterns.Env) (plan.Plan, error) {
	if err := p.CheckPhase(ph); err != nil {
		return plan.Plan{}, err
	}
	if n := p.PhaseSteps(ph, env.Size); step < 0 || step >= n {
		return plan.Plan{}, fmt.Errorf("amrex: %s step %d outside 0..%d", ph, step, n-1)
	}
	if env.Size < 1 || env.Rank < 0 || env.Rank >= env.Size {
		return plan.Plan{}, fmt.Errorf("amrex: rank %d of %d", env.Rank, env.Size)
	}
	file := step // the write step of the file this step works on
	if ph == patterns.PhaseRead && !p.C.ReadAll {
		file = p.C.NPlotfile // the restart check's plt00000/particle0
	}
	b := &builder{step: file, rank: env.Rank, size: env.Size}
	path, plot := p.FileOf(env, file)
	switch {
	case ph == patterns.PhaseWrite && plot:
		p.writePlotfile(b, path)
	case ph == patterns.PhaseWrite:
		p.writeParticles(b, path)
	case plot:
		p.readPlotfile(b, path)
	default:
		p.readParticles(b, path)
	}
	return b.plan, b.plan.Validate()
}

// builder appends the operations of one step.
type builder struct {
	plan       plan.Plan
	step       int
	rank, size int
}

func (b *builder) op(kind plan.OpKind, path string, coll bool) *plan.Op {
	b.plan.Add(plan.Op{Kind: kind, Path: path, Collective: coll, Step: b.step})
	return &b.plan.Ops[len(b.plan.Ops)-1]
}

func (b *builder) attr(path string, a plan.AttributeSpec) {
	b.op(plan.WriteAttribute, path, false).Attribute = &a
}

func (b *builder) dataset(path string, d plan.DatasetSpec) {
	b.op(plan.CreateDataset, path, true).Dataset = &d
}

func (b *builder) transfer(kind plan.OpKind, path string, coll bool, t plan.Transfer) {
	b.op(kind, path, coll).Transfer = &t
}

// ParallelAccess is AMReX's SetHDF5fapl at the h5bench pin: MPI-IO, H5Pset_alignment(16
// MiB, 16 MiB), H5Pset_meta_block_size(4 MiB), collective metadata writes and operations,
// and the metadata cache at 16 MiB without evictions or resizing.
func ParallelAccess(readOnly bool) *plan.FileSpec {
	return &plan.FileSpec{Parallel: true, ReadOnly: readOnly, CollMetadataOps: true, CollMetadataWrite: true,
		AlignThreshold: 16 << 20, AlignLen: 16 << 20, MetaBlockSize: 4 << 20, MDCInitialSize: 16 << 20}
}

// serialCreate is rank 0's H5Fcreate with the default file access (the header is written
// before the parallel part), creating the directories first as AMReX's I/O processor does;
// every rank opens the file next (SharedLater).
func serialCreate() *plan.FileSpec { return &plan.FileSpec{MakeDirs: true, SharedLater: true} }

func levelGroup(l int) string { return fmt.Sprintf("/level_%d", l) }

// whole is a transfer of a whole 1-D dataset of n elements with explicit contents.
func whole(variable, buffer string, t plan.Type, n uint64, data []byte) plan.Transfer {
	shape := []uint64{n}
	return plan.Transfer{Variable: variable, Buffer: buffer, MemType: t, MemShape: shape, FileType: t,
		FileShape: shape, Selection: plan.All(shape), Data: data}
}

// wholeSpace is t with its file selection issued as H5S_ALL, as RestartHDF5 reads the
// boxes and nparticles_grid (AMReX_ParticleHDF5.H: H5Dread(..., H5S_ALL, H5S_ALL, ...)):
// Darshan counts no hyperslab selection for it, where a hyperslab of the whole extent
// counts as H5D_REGULAR_HYPERSLAB_SELECTS.
func wholeSpace(t plan.Transfer) plan.Transfer {
	t.Selection = plan.WholeSpace(t.FileShape)
	return t
}

// rangeOf is a transfer of count elements from start of a 1-D dataset of n elements, or an
// empty selection (a rank with nothing takes part in the collective call).
func rangeOf(variable, buffer string, t plan.Type, n, start, count uint64) plan.Transfer {
	tr := plan.Transfer{Variable: variable, Buffer: buffer, MemType: t, FileType: t, FileShape: []uint64{n}}
	if count == 0 {
		tr.MemShape, tr.Selection = []uint64{1}, plan.None()
		return tr
	}
	tr.MemShape = []uint64{count}
	tr.Selection = plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{start}, []uint64{count})}}
	return tr
}

// rootAttributes are the plotfile's root attributes in AMReX's order
// (WriteGenericPlotfileHeaderHDF5).
func (p *Pattern) rootAttributes() []plan.AttributeSpec {
	c := p.C
	a := []plan.AttributeSpec{strAttr("version_name", PlotfileVersion), strAttr("plotfile_type", PlotfileType),
		i32Attr("num_components", int32(c.NComp))}
	for i := 0; i < c.NComp; i++ {
		n := fmt.Sprintf("component_%d", i)
		a = append(a, strAttr(n, n))
	}
	return append(a, i32Attr("dim", 3), f64Attr("time", 0), i32Attr("finest_level", int32(len(c.Levels)-1)),
		i32Attr("coordinate_system", 0), i32Attr("num_levels", int32(len(c.Levels))))
}

// levelAttributes are the attributes of a plotfile's level_<l> group, in AMReX's order.
func (p *Pattern) levelAttributes(l int) []plan.AttributeSpec {
	lev := p.C.Levels[l]
	ratio := int32(1)
	if l < len(p.C.Levels)-1 {
		ratio = int32(lev.Ratio)
	}
	var dx [3]float64
	for d := 0; d < 3; d++ {
		dx[d] = 1.0 / float64(lev.Domain.Size(d))
	}
	return []plan.AttributeSpec{
		i32Attr("ref_ratio", ratio), f64Attr("Vec_dx", dx[:]...), f64Attr("dx", dx[0]),
		f64Attr("prob_lo", 0, 0, 0), f64Attr("prob_hi", 1, 1, 1), boxAttr("prob_domain", lev.Domain),
		i32Attr("domain_type", 0, 0, 0), i32Attr("steps", 0), i32Attr("ngrid", int32(len(lev.Boxes))),
		f64Attr("time", 0), i32Attr("ngrow", 0),
	}
}

// writePlotfile plans WriteMultiLevelPlotfileHDF5SingleDset: rank 0 writes the header
// serially, then every rank reopens the file through MPI-IO and, per level, creates the
// box, offset and centre datasets (rank 0 fills them, independently) and the data dataset
// (each rank writes its boxes, collectively).
func (p *Pattern) writePlotfile(b *builder, path string) {
	c := p.C
	if b.rank == 0 {
		b.op(plan.CreateFile, path, false).File = serialCreate()
		for _, a := range p.rootAttributes() {
			b.attr("/", a)
		}
		b.op(plan.CreateGroup, "/Chombo_global", false)
		b.attr("/Chombo_global", i32Attr("SpaceDim", 3))
		b.op(plan.CloseGroup, "/Chombo_global", false)
		for l := range c.Levels {
			g := levelGroup(l)
			b.op(plan.CreateGroup, g, false)
			for _, a := range p.levelAttributes(l) {
				b.attr(g, a)
			}
			b.op(plan.CloseGroup, g, false)
		}
		b.op(plan.CloseFile, path, false)
	}
	b.op(plan.OpenFile, path, true).File = ParallelAccess(false)
	owners := Owners(c.Levels, b.size, c.NComp)
	for l, lev := range c.Levels {
		g := levelGroup(l)
		lay := NewLevelLayout(lev.Boxes, owners[l], b.size, c.NComp)
		n := uint64(len(lev.Boxes))
		b.op(plan.OpenGroup, g, true)
		b.dataset(g+"/boxes", plan.DatasetSpec{Type: BoxType, Shape: []uint64{n}})
		b.dataset(g+"/data:offsets=0", plan.DatasetSpec{Type: plan.I64, Shape: []uint64{n + 1}})
		b.dataset(g+"/boxcenter", plan.DatasetSpec{Type: CenterType, Shape: []uint64{n}})
		if b.rank == 0 {
			sorted := make([]Box, n)
			for i, bi := range lay.Order {
				sorted[i] = lev.Boxes[bi]
			}
			b.transfer(plan.Write, g+"/data:offsets=0", false,
				whole(g+"/data:offsets=0", "plt"+g+"/offsets", plan.I64, n+1, u64Bytes(lay.Offsets)))
			b.transfer(plan.Write, g+"/boxcenter", false,
				whole(g+"/boxcenter", "plt"+g+"/boxcenter", CenterType, n, make([]byte, 12*n)))
			b.transfer(plan.Write, g+"/boxes", false, whole(g+"/boxes", "plt"+g+"/boxes", BoxType, n, boxBytes(sorted)))
		}
		total := lay.Offsets[n]
		b.dataset(g+"/data:datatype=0", plan.DatasetSpec{Type: plan.F64, Shape: []uint64{total}, FillNever: true,
			Chunk: c.Compression.chunkFor(total), Deflate: c.Compression.Level})
		b.transfer(plan.Write, g+"/data:datatype=0", true,
			rangeOf(g+"/data:datatype=0", "plt"+g+"/data", plan.F64, total, lay.RankStart[b.rank], lay.RankCount[b.rank]))
		for _, d := range []string{"data:datatype=0", "data:offsets=0", "boxcenter", "boxes"} {
			b.op(plan.CloseDataset, g+"/"+d, true)
		}
		b.op(plan.CloseGroup, g, true)
	}
	b.op(plan.CloseFile, path, true)
}

// readPlotfile plans the read-back of a plotfile: every rank reopens it and reads, per
// level, the range of data:datatype=0 its boxes occupy (collectively), mirroring the write.
func (p *Pattern) readPlotfile(b *builder, path string) {
	c := p.C
	b.op(plan.OpenFile, path, true).File = ParallelAccess(true)
	owners := Owners(c.Levels, b.size, c.NComp)
	for l, lev := range c.Levels {
		g := levelGroup(l)
		lay := NewLevelLayout(lev.Boxes, owners[l], b.size, c.NComp)
		total := lay.Offsets[len(lev.Boxes)]
		b.op(plan.OpenGroup, g, true)
		b.op(plan.OpenDataset, g+"/data:datatype=0", true)
		b.transfer(plan.Read, g+"/data:datatype=0", true,
			rangeOf(g+"/data:datatype=0", "read:plt"+g+"/data", plan.F64, total, lay.RankStart[b.rank], lay.RankCount[b.rank]))
		b.op(plan.CloseDataset, g+"/data:datatype=0", true)
		b.op(plan.CloseGroup, g, true)
	}
	b.op(plan.CloseFile, path, true)
}

// particleRootAttributes are the particle file's root attributes after version_name (the
// Chombo_global group comes between), in WriteHDF5ParticleDataSync's order. Components are
// numbered from 0, as the AMReX h5bench builds names them (real_component_<i> and
// int_component_<i> for the i-th written component); later AMReX releases start the real
// ones at AMREX_SPACEDIM and the int ones at 2.
func (p *Pattern) particleRootAttributes(size int) []plan.AttributeSpec {
	a := []plan.AttributeSpec{i32Attr("num_component", NumRealComps+NumIntComps), i32Attr("num_component_real", NumRealComps)}
	for i := 0; i < NumRealComps; i++ {
		a = append(a, strAttr(fmt.Sprintf("real_component_%d", i), fmt.Sprintf("particle_real_component_%d", i)))
	}
	a = append(a, i32Attr("num_component_int", NumIntComps))
	for i := 0; i < NumIntComps; i++ {
		a = append(a, strAttr(fmt.Sprintf("int_component_%d", i), fmt.Sprintf("particle_int_component_%d", i)))
	}
	total := p.C.Particles()
	return append(a, i64Attr("nparticles", int64(total)), i64Attr("maxnextid", MaxNextID(total, size)),
		i32Attr("finest_level", int32(len(p.C.Levels)-1)))
}

// writeParticles plans CheckpointHDF5 (WriteHDF5ParticleDataSync in checkpoint mode):
// rank 0 writes the header and each level's boxes serially; then every rank reopens the
// file and, per level with particles, writes each of its non-empty grids' int and real
// records collectively (padding with empty writes up to the largest grid count of any
// rank), then its per-grid counts into nparticles_grid.
func (p *Pattern) writeParticles(b *builder, path string) {
	c := p.C
	if b.rank == 0 {
		b.op(plan.CreateFile, path, false).File = serialCreate()
		b.attr("/", strAttr("version_name", CheckpointVersion))
		b.op(plan.CreateGroup, "/Chombo_global", false)
		b.attr("/Chombo_global", i32Attr("SpaceDim", 3))
		b.op(plan.CloseGroup, "/Chombo_global", false)
		for _, a := range p.particleRootAttributes(b.size) {
			b.attr("/", a)
		}
		for l, lev := range c.Levels {
			g := levelGroup(l)
			n := uint64(len(lev.Boxes))
			b.op(plan.CreateGroup, g, false)
			b.attr(g, i32Attr("ngrids", int32(n)))
			b.op(plan.CreateDataset, g+"/boxes", false).Dataset = &plan.DatasetSpec{Type: BoxType, Shape: []uint64{n}, FillNever: true}
			b.transfer(plan.Write, g+"/boxes", false, whole(g+"/boxes", "part"+g+"/boxes", BoxType, n, boxBytes(lev.Boxes)))
			b.op(plan.CloseDataset, g+"/boxes", false)
			b.op(plan.CloseGroup, g, false)
		}
		b.op(plan.CloseFile, path, false)
	}
	b.op(plan.OpenFile, path, true).File = ParallelAccess(false)
	owners := Owners(c.Levels, b.size, c.NComp)
	counts := ParticleCounts(c.Levels, c.Particles())
	for l := range c.Levels {
		g := levelGroup(l)
		b.op(plan.OpenGroup, g, true)
		lay := NewParticleLayout(counts[l], owners[l], b.size)
		if lay.Total > 0 {
			ni, nr := lay.Total*IntsPerParticle, lay.Total*RealsPerParticle
			ints, reals := g+"/data:datatype=0", g+"/data:datatype=1"
			b.dataset(ints, plan.DatasetSpec{Type: plan.I32, Shape: []uint64{ni}, Chunk: c.Compression.chunkFor(ni), Deflate: c.Compression.Level})
			b.dataset(reals, plan.DatasetSpec{Type: plan.F64, Shape: []uint64{nr}, Chunk: c.Compression.chunkFor(nr), Deflate: c.Compression.Level})
			mine := lay.Grids[b.rank]
			for _, grid := range mine {
				s, n := lay.Start[grid], counts[l][grid]
				b.transfer(plan.Write, ints, true, rangeOf(ints, fmt.Sprintf("part%s/int/%d", g, grid), plan.I32, ni, s*IntsPerParticle, n*IntsPerParticle))
				b.transfer(plan.Write, reals, true, rangeOf(reals, fmt.Sprintf("part%s/real/%d", g, grid), plan.F64, nr, s*RealsPerParticle, n*RealsPerParticle))
			}
			for k := len(mine); k < lay.MaxGrids; k++ {
				b.transfer(plan.Write, ints, true, rangeOf(ints, "part"+g+"/int/none", plan.I32, ni, 0, 0))
				b.transfer(plan.Write, reals, true, rangeOf(reals, "part"+g+"/real/none", plan.F64, nr, 0, 0))
			}
			b.op(plan.CloseDataset, reals, true)
			b.op(plan.CloseDataset, ints, true)
			npg := g + "/nparticles_grid"
			ng := uint64(len(lay.NParticlesGrid))
			b.dataset(npg, plan.DatasetSpec{Type: plan.I32, Shape: []uint64{ng}})
			t := rangeOf(npg, "part"+g+"/nparticles_grid", plan.I32, ng, uint64(lay.GridOffset[b.rank]), uint64(len(mine)))
			if len(mine) > 0 {
				off := lay.GridOffset[b.rank]
				t.Data = i32Bytes(lay.NParticlesGrid[off : off+len(mine)])
			}
			b.transfer(plan.Write, npg, true, t)
			b.op(plan.CloseDataset, npg, true)
		}
		b.op(plan.CloseGroup, g, true)
	}
	b.op(plan.CloseFile, path, true)
}

// readAttr reads the attribute a of the object at path as AMReX's ReadHDF5Attr does
// (H5Aopen, H5Aread with a's type, H5Aclose), verified against what the writer wrote.
func (b *builder) readAttr(path string, a plan.AttributeSpec) {
	b.op(plan.ReadAttribute, path, true).Attribute = &a
}

// readParticles plans RestartHDF5: every rank opens the file and reads its header as
// AMReX does: version_name with its stored type (H5Aopen, H5Aget_type, H5Aread), SpaceDim
// in Chombo_global, then num_component_real, num_component_int, nparticles, maxnextid and
// finest_level; then each level's boxes through the box compound (checked: they are in
// BoxArray order), the levels again for their ngrids attribute, then per level
// nparticles_grid whole and, for each grid it owns, the int and real records AMReX's
// restart computes for that grid (independent reads). Every attribute but maxnextid (the
// writer's rank count sets it) is verified against the writer's value. nparticles_grid is
// stored in the writer's rank order, so it is read without verification; the particle
// records are verified whatever rank count wrote them.
func (p *Pattern) readParticles(b *builder, path string) {
	c := p.C
	b.op(plan.OpenFile, path, true).File = ParallelAccess(true)
	version := strAttr("version_name", CheckpointVersion)
	version.Stored = true
	b.readAttr("/", version)
	b.op(plan.OpenGroup, "/Chombo_global", true)
	b.readAttr("/Chombo_global", i32Attr("SpaceDim", 3))
	b.op(plan.CloseGroup, "/Chombo_global", true)
	root := map[string]plan.AttributeSpec{}
	for _, a := range p.particleRootAttributes(b.size) {
		root[a.Name] = a
	}
	for _, n := range []string{"num_component_real", "num_component_int", "nparticles", "maxnextid", "finest_level"} {
		a := root[n]
		if n == "maxnextid" {
			a.Value = nil // it depends on the writer's rank count, which a read phase may not share
		}
		b.readAttr("/", a)
	}
	for l, lev := range c.Levels {
		g := levelGroup(l)
		n := uint64(len(lev.Boxes))
		b.op(plan.OpenGroup, g, true)
		b.op(plan.OpenDataset, g+"/boxes", true)
		b.transfer(plan.Read, g+"/boxes", false, wholeSpace(whole(g+"/boxes", "read:part"+g+"/boxes", BoxType, n, boxBytes(lev.Boxes))))
		b.op(plan.CloseDataset, g+"/boxes", true)
		b.op(plan.CloseGroup, g, true)
	}
	for l, lev := range c.Levels {
		b.op(plan.OpenGroup, levelGroup(l), true)
		b.readAttr(levelGroup(l), i32Attr("ngrids", int32(len(lev.Boxes))))
		b.op(plan.CloseGroup, levelGroup(l), true)
	}
	owners := Owners(c.Levels, b.size, c.NComp)
	counts := ParticleCounts(c.Levels, c.Particles())
	for l, lev := range c.Levels {
		lay := NewParticleLayout(counts[l], owners[l], b.size)
		if lay.Total == 0 {
			continue // no particle datasets on this level
		}
		g := levelGroup(l)
		ni, nr := lay.Total*IntsPerParticle, lay.Total*RealsPerParticle
		ints, reals, npg := g+"/data:datatype=0", g+"/data:datatype=1", g+"/nparticles_grid"
		b.op(plan.OpenGroup, g, true)
		b.op(plan.OpenDataset, npg, true)
		t := wholeSpace(whole(npg, "read:part"+g+"/nparticles_grid", plan.I32, uint64(len(lay.NParticlesGrid)), nil))
		t.Unchecked = true
		b.transfer(plan.Read, npg, false, t)
		b.op(plan.CloseDataset, npg, true)
		b.op(plan.OpenDataset, ints, true)
		b.op(plan.OpenDataset, reals, true)
		start, count := lay.RestartRanges(len(lev.Boxes))
		for grid, o := range owners[l] {
			if o != b.rank || count[grid] == 0 {
				continue
			}
			b.transfer(plan.Read, ints, false, rangeOf(ints, fmt.Sprintf("read:part%s/int/%d", g, grid), plan.I32, ni,
				start[grid]*IntsPerParticle, count[grid]*IntsPerParticle))
			b.transfer(plan.Read, reals, false, rangeOf(reals, fmt.Sprintf("read:part%s/real/%d", g, grid), plan.F64, nr,
				start[grid]*RealsPerParticle, count[grid]*RealsPerParticle))
		}
		b.op(plan.CloseDataset, ints, true)
		b.op(plan.CloseDataset, reals, true)
		b.op(plan.CloseGroup, g, true)
	}
	b.op(plan.CloseFile, path, true)
}
