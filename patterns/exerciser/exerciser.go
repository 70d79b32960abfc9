package exerciser

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Names of the exerciser's groups, dataset prefixes and attributes.
const (
	Group        = "/Data"
	DerivedGroup = "/Data/derivedData"
	Derived      = DerivedGroup + "/simulation parameters"
	// NumAttributes attributes of AttributeSize chars on /Data with addattr.
	NumAttributes = 64
	AttributeSize = 1024
)

// SimParams is the derived (compound) type of the second dataset: FLASH-IO's
// sim_params_t as the exerciser inserts its members (C layout: five ints, then two
// doubles at 24 and 32, 40 bytes).
var SimParams = plan.Struct("sim_params_t", 40,
	plan.Field("total blocks", 0, plan.I32),
	plan.Field("time", 24, plan.F64),
	plan.Field("timestep", 32, plan.F64),
	plan.Field("number of steps", 4, plan.I32),
	plan.Field("nxb", 8, plan.I32),
	plan.Field("nyb", 12, plan.I32),
	plan.Field("nzb", 16, plan.I32),
)

// simTime is the value of the time and timestep members.
const simTime = 12345.6789

// Pattern is h5bench's exerciser (h5bench_exerciser): for each buffer size, Iterations
// times: create the file, write a double dataset, close, reopen, read it back and check
// it, optionally write a compound dataset, close.
type Pattern struct {
	patterns.Base[Config]
}

// Factory builds the exerciser pattern; package patterns/all registers it. Its one phase is
// write: each iteration reads back what it just wrote (before the next iteration
// truncates the file), inside the write phase.
var Factory = patterns.Define(patterns.Def[Config, *Pattern]{Name: "exerciser", Options: Options, Config: FromValues, Phases: []patterns.Phase{patterns.PhaseWrite},
	Summary: "h5bench exerciser (h5bench_exerciser): per buffer size, repeated create/write/close/open/read-check of an n-D double dataset, optional compound dataset and attributes"})

// Steps is one step per iteration of every size: nsizes × iterations.
func (p *Pattern) Steps() int { return p.C.NSizes * p.C.Iterations }

// Grid is the rank decomposition of a run.
type Grid struct {
	// DimRanks is the ranks along each dimension; Fallback is true when the configured
	// dimranks did not multiply to the rank count (or was unset) and dimension 0 takes all.
	DimRanks   []uint64
	Fallback   bool
	Configured uint64 // the product of the configured dimranks
}

// Grid resolves dimranks for size ranks as the exerciser does.
func (c Config) Grid(ranks int) Grid {
	g := Grid{DimRanks: make([]uint64, c.NumDims), Configured: 1}
	for d := range g.DimRanks {
		g.DimRanks[d] = 1
		if c.DimRanks != nil {
			g.DimRanks[d] = c.DimRanks[d]
			g.Configured *= c.DimRanks[d]
		}
	}
	if g.Configured != uint64(ranks) {
		for d := range g.DimRanks {
			g.DimRanks[d] = 1
		}
		g.DimRanks[0] = uint64(ranks)
		g.Fallback = true
	}
	return g
}

// location is the grid position of rank (row-major, the last dimension fastest).
func (g Grid) location(rank int) []uint64 {
	loc := make([]uint64, len(g.DimRanks))
	r := uint64(rank)
	for d := len(loc) - 1; d >= 0; d-- {
		loc[d] = r % g.DimRanks[d]
		r /= g.DimRanks[d]
	}
	return loc
}

// Layout is the geometry of one buffer size on one rank.
type Layout struct {
	Size Size
	// Block, Stride, Count are the file hyperslab of the double dataset per dimension;
	// Shape its extent.
	Block, Stride, Count, Shape []uint64
	// MemBlock, MemStride, MemCount are the 1-D memory selection; MemElements the memory
	// buffer's elements (MemStride × MemCount), which names the dataset.
	MemBlock, MemStride, MemCount, MemElements uint64
	// WriteAt and ReadAt are the start of this rank's hyperslab for the write and the read
	// (they differ with rshift); DerivedAt that of the derived dataset.
	WriteAt, ReadAt, DerivedAt []uint64
	// Writer is the rank whose data this rank reads back.
	Writer int
	// Check is false when maxcheck excludes this size from the data check.
	Check bool
}

// Layout computes size s on rank of ranks. The memory block and stride carry over from one
// size to the next as the exerciser's do (a fallback to 1 at one size stays).
func (c Config) Layout(s, rank, ranks int) (Layout, error) {
	g := c.Grid(ranks)
	l := Layout{Size: c.Size(s)}
	n := len(l.Size)
	l.Block, l.Stride, l.Count, l.Shape = make([]uint64, n), make([]uint64, n), make([]uint64, n), make([]uint64, n)
	for d, e := range l.Size {
		b, st := c.FileBlocks[d], c.FileStrides[d]
		if b < 1 || e%b != 0 {
			l.Block[d], l.Stride[d], l.Count[d] = e, e, 1
		} else {
			l.Block[d], l.Stride[d], l.Count[d] = b, max(st, b), e/b
		}
		l.Shape[d] = l.Stride[d] * l.Count[d] * g.DimRanks[d]
	}
	mb, ms := c.MemBlock, c.MemStride
	for i := 0; i <= s; i++ {
		els := c.Size(i).Elements()
		if mb < 1 || els%mb != 0 {
			mb, ms = 1, 1
			l.MemCount, l.MemElements = els, els
		} else {
			ms = max(ms, mb)
			l.MemCount = els / mb
			l.MemElements = ms * l.MemCount
		}
	}
	l.MemBlock, l.MemStride = mb, ms
	shifted := func(by int) (int, error) {
		r := rank + by
		if r >= ranks {
			r -= ranks
		}
		if r >= ranks {
			return 0, &options.Error{Table: "exerciser", Key: "rshift", Value: fmt.Sprint(c.RShift),
				Reason: fmt.Sprintf("rank %d's read position %d lies outside the %d ranks", rank, rank+by, ranks), Allowed: fmt.Sprintf("0 .. %d", (ranks-1)/2)}
		}
		return r, nil
	}
	wr, err := shifted(c.RShift)
	if err != nil {
		return l, err
	}
	rd, err := shifted(2 * c.RShift)
	if err != nil {
		return l, err
	}
	l.Writer = wr
	at := func(r int, per []uint64) []uint64 {
		loc := g.location(r)
		for d := range loc {
			loc[d] *= per[d]
		}
		return loc
	}
	span := make([]uint64, n)
	for d := range span {
		span[d] = l.Stride[d] * l.Count[d]
	}
	l.WriteAt, l.ReadAt, l.DerivedAt = at(wr, span), at(rd, span), at(rank, l.Size)
	l.Check = !c.MaxCheckSet || l.Size.Bytes() <= c.MaxCheck
	return l, nil
}

// DatasetName is the double dataset of an iteration: hdf5DataSet1-iter<it>-size<elements>.
func DatasetName(it int, memElements uint64) string {
	return fmt.Sprintf("%s/hdf5DataSet1-iter%d-size%d", Group, it, memElements)
}

// AttributeName and AttributeText are attribute i's name and (NUL-padded) value.
func AttributeName(i int) string { return fmt.Sprintf("Attribute %d Name", i) }

// AttributeText is the string attribute i holds.
func AttributeText(i int) string { return fmt.Sprintf("This is my attribute string number %d", i) }

// file is the file access of a create or open: collective metadata follows the
// exerciser's property list (coll_metadata_write set on it after the initial create; the
// list replaced, with all_coll_metadata_ops only, before the first reopen).
func (p *Pattern) file(step int, open bool) *plan.FileSpec {
	fs := &plan.FileSpec{Parallel: true, FlushLocal: true}
	if p.C.MetaColl {
		fs.CollMetadataWrite = !open && step == 0
		fs.CollMetadataOps = open || step > 0
	}
	return fs
}

// Begin creates and closes the file once, outside the timed loop, as the exerciser does.
func (p *Pattern) Begin(ph patterns.Phase, env patterns.Env) (plan.Plan, error) {
	var pl plan.Plan
	if ph != patterns.PhaseWrite {
		return pl, fmt.Errorf("exerciser: no %s phase (each iteration reads back inside the write phase)", ph)
	}
	if _, err := p.C.Layout(0, env.Rank, env.Size); err != nil {
		return pl, err
	}
	pl.Add(plan.Op{Kind: plan.CreateFile, Path: env.Path, Collective: true, File: &plan.FileSpec{Parallel: true, FlushLocal: true}},
		plan.Op{Kind: plan.CloseFile, Path: env.Path, Collective: true})
	return pl, nil
}

// End has nothing left to do: the file is closed after every iteration. (The exerciser's
// unlink without keepfile is Cleanup's.)
func (p *Pattern) End(patterns.Phase, int, patterns.Env) (plan.Plan, error) { return plan.Plan{}, nil }

// Cleanup lists the files to remove after the run: the exerciser unlinks its file unless
// keepfile is set.
func (p *Pattern) Cleanup(env patterns.Env) []string {
	if p.C.KeepFile {
		return nil
	}
	return []string{env.Path}
}

// Step is iteration step%iterations of size step/iterations, in the exerciser's call order.
func (p *Pattern) Step(ph patterns.Phase, step int, env patterns.Env) (plan.Plan, error) {
	var pl plan.Plan
	if ph != patterns.PhaseWrite {
		return pl, fmt.Errorf("exerciser: no %s phase", ph)
	}
	s, it := step/p.C.Iterations, step%p.C.Iterations
	l, err := p.C.Layout(s, env.Rank, env.Size)
	if err != nil {
		return pl, err
	}
	coll := !p.C.IndepIO
	op := func(k plan.OpKind, path string) plan.Op {
		return plan.Op{Kind: k, Path: path, Collective: true, Step: step}
	}
	var chunk []uint64
	if p.C.UseChunked {
		chunk = l.Block
	}
	name := DatasetName(it, l.MemElements)
	elems := l.Size.Elements()
	data := doubles(float64(env.Rank+1), elems)
	sel := func(at []uint64) plan.Selection {
		return plan.Selection{Blocks: []plan.Hyperslab{{Start: at, Stride: l.Stride, Count: l.Count, Block: l.Block}}}
	}
	xfer := func(buffer string, at []uint64, d []byte, check bool) *plan.Transfer {
		return &plan.Transfer{Variable: "double", Buffer: buffer, MemType: plan.F64, MemShape: []uint64{elems},
			FileType: plan.F64, FileShape: l.Shape, Selection: sel(at), Data: d, Unchecked: !check}
	}

	// Write half.
	create := op(plan.CreateFile, env.Path)
	create.File = p.file(step, false)
	pl.Add(create, op(plan.CreateGroup, Group))
	if p.C.AddAttr {
		for i := 0; i < NumAttributes; i++ {
			a := op(plan.WriteAttribute, Group)
			v := make([]byte, AttributeSize)
			copy(v, AttributeText(i))
			a.Attribute = &plan.AttributeSpec{Name: AttributeName(i), Type: plan.I8, Shape: []uint64{AttributeSize}, Value: v}
			pl.Add(a)
		}
	}
	cd := op(plan.CreateDataset, name)
	cd.Dataset = &plan.DatasetSpec{Type: plan.F64, Shape: l.Shape, Chunk: chunk, FillNever: true}
	w := op(plan.Write, name)
	w.Collective, w.Transfer = coll, xfer("exerciser:data", l.WriteAt, data, true)
	pl.Add(cd, w, op(plan.CloseDataset, name), op(plan.CloseGroup, Group), op(plan.FlushFile, env.Path), op(plan.CloseFile, env.Path))

	// Read half: the file reopened, the dataset read back and checked.
	open := op(plan.OpenFile, env.Path)
	open.File = p.file(step, true)
	r := op(plan.Read, name)
	r.Collective, r.Transfer = coll, xfer("exerciser:check", l.ReadAt, doubles(float64(l.Writer+1), elems), l.Check)
	pl.Add(open, op(plan.OpenGroup, Group), op(plan.OpenDataset, name), r, op(plan.CloseDataset, name))

	if p.C.DerivedType {
		shape := make([]uint64, len(l.Size))
		g := p.C.Grid(env.Size)
		for d := range shape {
			shape[d] = l.Size[d] * g.DimRanks[d]
		}
		var dchunk []uint64
		if p.C.UseChunked {
			dchunk = l.Size
		}
		dc := op(plan.CreateDataset, Derived)
		dc.Dataset = &plan.DatasetSpec{Type: SimParams, Shape: shape, Chunk: dchunk, FillNever: true}
		dw := op(plan.Write, Derived)
		dw.Collective = coll
		dw.Transfer = &plan.Transfer{Buffer: "exerciser:sim_params", MemType: SimParams, MemShape: []uint64{elems},
			FileType: SimParams, FileShape: shape, Selection: plan.Selection{Blocks: []plan.Hyperslab{plan.Block(l.DerivedAt, l.Size)}},
			Data: SimParamsData(env.Rank, elems)}
		pl.Add(op(plan.CreateGroup, DerivedGroup), dc, dw, op(plan.CloseDataset, Derived), op(plan.CloseGroup, DerivedGroup))
	}
	pl.Add(op(plan.CloseGroup, Group), op(plan.FlushFile, env.Path), op(plan.CloseFile, env.Path))
	return pl, nil
}

// doubles returns n float64 values v (little-endian, the host's order).
func doubles(v float64, n uint64) []byte {
	b := make([]byte, 8*n)
	for i := uint64(0); i < n; i++ {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return b
}

// SimParamsData is rank's derived-type buffer: element i has every int member i+100·rank
// and time and timestep 12345.6789.
func SimParamsData(rank int, n uint64) []byte {
	b := make([]byte, uint64(SimParams.Size)*n)
	for i := uint64(0); i < n; i++ {
		e := b[uint64(SimParams.Size)*i:]
		v := uint32(int32(i) + int32(rank)*100)
		for _, off := range []int{0, 4, 8, 12, 16} {
			binary.LittleEndian.PutUint32(e[off:], v)
		}
		binary.LittleEndian.PutUint64(e[24:], math.Float64bits(simTime))
		binary.LittleEndian.PutUint64(e[32:], math.Float64bits(simTime))
	}
	return b
}
