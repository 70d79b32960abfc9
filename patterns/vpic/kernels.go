package vpic

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Kernel names the h5bench program of the VPIC family a pattern runs.
type Kernel int

// The kernels: h5bench_write/h5bench_read (the vpic pattern) and the variants of
// h5bench_patterns/ that share their file layout.
const (
	// KernelVPIC is h5bench_write and h5bench_read.
	KernelVPIC Kernel = iota
	// KernelUnlimited is h5bench_write_unlimited: chunked, deflated datasets with
	// unlimited maximum extents.
	KernelUnlimited
	// KernelNormalDist is h5bench_write_var_normal_dist: 1-D, each rank's particle count
	// drawn from a normal distribution (mean DIM_1, STDEV_DIM_1).
	KernelNormalDist
	// KernelOverwrite is h5bench_overwrite: rewrites the datasets of an existing file.
	KernelOverwrite
	// KernelAppend is h5bench_append: extends the datasets of an existing file to twice
	// DIM_1 and writes the new part.
	KernelAppend
)

// kernelNames are the pattern names, and the operation each kernel prints in its CSV.
var kernelNames = map[Kernel]struct{ pattern, operation string }{
	KernelVPIC:       {"vpic", ""},
	KernelUnlimited:  {"vpic-unlimited", "write unlimited"},
	KernelNormalDist: {"vpic-normal-dist", "write_var_normal_dist"},
	KernelOverwrite:  {"vpic-overwrite", "overwrite"},
	KernelAppend:     {"vpic-append", "append"},
}

// modify reports whether the kernel opens an existing file and writes into it.
func (k Kernel) modify() bool { return k == KernelOverwrite || k == KernelAppend }

// kernelTable derives a variant's option table from vpic's: the same keys (h5bench's
// read_config accepts every key in every kernel), with the variant's defaults, allowed
// values and the keys it ignores.
func kernelTable(k Kernel, ignored map[string]string, change func(s *options.Spec)) *options.Table {
	t := &options.Table{Name: kernelNames[k].pattern}
	for _, s := range Options.Specs {
		if why, ok := ignored[s.Key]; ok {
			s.Ignored, s.Default, s.Min, s.Max = true, "", nil, nil
			s.Help = "accepted like h5bench, no effect: " + why
		}
		if change != nil {
			change(&s)
		}
		t.Specs = append(t.Specs, s)
	}
	return t
}

// modifyIgnored are the keys h5bench_overwrite and h5bench_append read but never use.
var modifyIgnored = map[string]string{
	"COLLECTIVE_METADATA":   "the kernel always opens the file with collective metadata",
	"COMPRESS":              "the kernel writes into existing datasets",
	"COMPRESS_FILTER":       "the kernel writes into existing datasets",
	"CHUNK_DIM_1":           "the kernel writes into existing datasets",
	"CHUNK_DIM_2":           "the kernel writes into existing datasets",
	"CHUNK_DIM_3":           "the kernel writes into existing datasets",
	"STRIDE_SIZE_2":         "corner reads only",
	"BLOCK_SIZE_2":          "corner reads only",
	"FILE_PER_PROC":         "the kernel always opens the shared file through MPI-IO",
	"ALIGN":                 "the kernel opens the file without alignment",
	"ALIGN_THRESHOLD":       "the kernel opens the file without alignment",
	"ALIGN_LEN":             "the kernel opens the file without alignment",
	"TO_READ_NUM_PARTICLES": "the kernel takes DIM_1*DIM_2*DIM_3 instead",
	"IO_OPERATION":          "h5bench's runner sets it to the benchmark's operation",
}

// modifyChange restricts the keys the modify kernels use to the values they handle.
func modifyChange(s *options.Spec) {
	switch s.Key {
	case "MEM_PATTERN":
		s.Allowed, s.Help = []string{"CONTIG"}, "memory layout: the kernel writes contiguous buffers"
	case "FILE_PATTERN":
		s.Allowed, s.Help = []string{"CONTIG", "STRIDED"}, "selection in the file: each rank's block (CONTIG) or STRIDE_SIZE/BLOCK_SIZE/BLOCK_CNT blocks from its offset (STRIDED, NUM_DIMS=1)"
	case "READ_OPTION":
		s.Allowed, s.Help = []string{"FULL", "PARTIAL", "STRIDED"}, "no effect on the selection (h5bench's LDC, RDC, PRL and CS make these kernels fail)"
	case "IO_OPERATION":
		s.Allowed = []string{"READ", "WRITE", "OVERWRITE", "APPEND"}
	case "DIM_1":
		s.Help = "rows each rank writes: overwrite at r*N/R (N: the file's extent), append at DIM_1 after growing every dataset to 2*DIM_1 rows (at most N/R)"
	}
}

// Factories of the h5bench variants; package patterns/all registers them.
var (
	// UnlimitedFactory builds h5bench_write_unlimited.
	UnlimitedFactory = define(KernelUnlimited, kernelTable(KernelUnlimited, nil, func(s *options.Spec) {
		if s.Key == "COMPRESS" {
			s.Default, s.Help = "YES", "chunked datasets compressed with COMPRESS_FILTER, of unlimited maximum extents; required (h5bench_write_unlimited exits without it); forces collective data"
		}
	}), "h5bench write-unlimited: the VPIC-IO file with chunked, deflated datasets of unlimited maximum extent (read phase: BD-CATS-IO)")
	// NormalDistFactory builds h5bench_write_var_normal_dist.
	NormalDistFactory = define(KernelNormalDist, kernelTable(KernelNormalDist, nil, func(s *options.Spec) {
		switch s.Key {
		case "STDEV_DIM_1":
			s.Ignored, s.Default, s.Min = false, "1", options.Bound(0)
			s.Help = "standard deviation of the per-rank particle count, whose mean is DIM_1; the counts are drawn from the session's seed"
		case "NUM_DIMS":
			s.Max, s.Help = options.Bound(1), "dataset rank: 1 (h5bench's 2-D and 3-D setups fail with varying counts)"
		}
	}), "h5bench write_var_normal_dist: VPIC-IO 1-D writes whose per-rank particle counts follow a normal distribution (read phase: each rank reads its slice back)")
	// OverwriteFactory builds h5bench_overwrite.
	OverwriteFactory = define(KernelOverwrite, kernelTable(KernelOverwrite, modifyIgnored, modifyChange),
		"h5bench overwrite: opens a VPIC-IO file and rewrites each rank's block of the 8 datasets of every Timestep_<i> (read phase: reads the blocks back)")
	// AppendFactory builds h5bench_append.
	AppendFactory = define(KernelAppend, kernelTable(KernelAppend, modifyIgnored, modifyChange),
		"h5bench append: opens a write-unlimited file, extends the 8 datasets of every Timestep_<i> to 2*DIM_1 and writes rows DIM_1..2*DIM_1-1 (read phase: reads them back)")
)

// define declares kernel k's pattern under its name, with its option table and summary:
// write and read phases; the modify kernels make their write values once.
func define(k Kernel, table *options.Table, summary string) patterns.Factory {
	return patterns.Define(patterns.Def[Config, *Pattern]{Name: kernelNames[k].pattern, Summary: summary, Options: table, Phases: patterns.WriteRead,
		Config: func(v *options.Values) (Config, error) { return fromValues(v, k) },
		Init: func(p *Pattern, _ *options.Values) error {
			if k.modify() {
				p.ints, p.floats = p.modifyData(p.modifyMemShape())
			}
			return nil
		}})
}

// validateKernel checks what a variant adds to vpic's rules.
func (c Config) validateKernel(v *options.Values) error {
	switch c.Kernel {
	case KernelUnlimited:
		if !c.Compress {
			return v.Errorf("COMPRESS", "must be YES: h5bench_write_unlimited creates chunked, compressed datasets only (it exits otherwise)")
		}
	case KernelOverwrite, KernelAppend:
		if c.FilePattern == "STRIDED" && c.NumDims != 1 {
			return v.Errorf("NUM_DIMS", "FILE_PATTERN=STRIDED supports NUM_DIMS 1 only")
		}
	}
	return nil
}

// Operation names the kernel's operation in the summary and CSV, as h5bench's program
// prints it ("write unlimited", "append", ...); the read phases keep "read".
func (p *Pattern) Operation(ph patterns.Phase) string {
	if ph != patterns.PhaseWrite {
		return ""
	}
	return kernelNames[p.C.Kernel].operation
}

// Metrics returns the rows h5bench_write_var_normal_dist adds to its CSV: the total
// particle count in M (integer division by 1024^2), the mean count and the standard
// deviation, computed as the kernel does (integer mean and squared deviations).
func (p *Pattern) Metrics(ph patterns.Phase, env patterns.Env) []patterns.Metric {
	if p.C.Kernel != KernelNormalDist || ph != patterns.PhaseWrite {
		return nil
	}
	counts := p.counts(env)
	var total, sq int64
	for _, n := range counts {
		total += int64(n)
	}
	mean := total / int64(len(counts))
	for _, n := range counts {
		sq += (int64(n) - mean) * (int64(n) - mean)
	}
	return []patterns.Metric{
		{Name: "Total number of particles", Value: fmt.Sprintf("%dM", total/(1<<20))},
		{Name: "Final mean particles", Value: fmt.Sprint(mean)},
		{Name: "Final standard deviation", Value: fmt.Sprintf("%f", math.Sqrt(float64(sq/int64(len(counts)))))},
	}
}

// counts returns every rank's particle count. The normal-distribution kernel draws them
// with the polar method, mean DIM_1 and deviation STDEV_DIM_1, from a generator seeded
// with the session's seed (h5bench seeds rand() with the time), truncating like h5bench;
// a draw below 1 becomes 1 (h5bench would pass a negative count to HDF5). Every rank
// computes the same list, so no communication is needed to know the offsets.
func (p *Pattern) counts(env patterns.Env) []uint64 {
	out := make([]uint64, env.Size)
	P := p.C.Particles()
	if p.C.Kernel != KernelNormalDist {
		for i := range out {
			out[i] = P
		}
		return out
	}
	rng := rand.New(rand.NewPCG(env.Seed, 0x6e6f726d616c)) // "normal"
	mu, sigma := float64(P), float64(p.C.StdevDim1)
	var spare float64
	haveSpare := false
	for i := range out {
		var x float64
		if haveSpare {
			x, haveSpare = spare, false
		} else {
			for {
				u1, u2 := 2*rng.Float64()-1, 2*rng.Float64()-1
				w := u1*u1 + u2*u2
				if w >= 1 || w == 0 {
					continue
				}
				m := math.Sqrt(-2 * math.Log(w) / w)
				x, spare, haveSpare = u1*m, u2*m, true
				break
			}
		}
		out[i] = uint64(max(1, int64(mu+sigma*x)))
	}
	return out
}

// slice returns a rank's particle count, its offset in the 1-D datasets and the total:
// every rank P particles at r*P, or the normal-distribution kernel's drawn counts.
func (p *Pattern) slice(env patterns.Env) (count, offset, total uint64) {
	for r, n := range p.counts(env) {
		if r < env.Rank {
			offset += n
		}
		if r == env.Rank {
			count = n
		}
		total += n
	}
	return count, offset, total
}

// modifyBegin opens the existing file read-write as h5bench_overwrite and h5bench_append
// do: MPI-IO, collective metadata reads and writes, no other access property.
func (p *Pattern) modifyBegin(env patterns.Env) plan.Plan {
	var pl plan.Plan
	pl.Add(plan.Op{Kind: plan.OpenFile, Path: env.Path, Collective: true,
		File: &plan.FileSpec{Parallel: true, CollMetadataOps: true, CollMetadataWrite: true}})
	return pl
}

// modifyDims returns the extents of /Timestep_0/px the modify kernels plan from, checked
// as the kernels check them. Without the file (h5proxy plan), it is the file the write
// kernel makes with the same keys.
func (p *Pattern) modifyDims(ph patterns.Phase, env patterns.Env) ([]uint64, error) {
	c := p.C
	name := kernelNames[c.Kernel].pattern
	if env.Shape == nil {
		d := append([]uint64(nil), c.Dims[:c.NumDims]...)
		d[0] *= uint64(env.Size)
		return d, nil
	}
	dims, err := env.Shape("/Timestep_0/px")
	if err != nil {
		return nil, fmt.Errorf("%s: shape of /Timestep_0/px: %w", name, err)
	}
	if len(dims) != c.NumDims {
		return nil, fmt.Errorf("%s: the file's datasets have %d dimensions, NUM_DIMS=%d", name, len(dims), c.NumDims)
	}
	if c.Kernel == KernelAppend && ph == patterns.PhaseRead {
		// The read-back finds the extent the append set: 2*DIM_1 rows.
		if dims[0] < 2*c.Dims[0] {
			return nil, fmt.Errorf("%s read: /Timestep_0/px has %d rows, fewer than the 2*DIM_1 = %d an append leaves", name, dims[0], 2*c.Dims[0])
		}
	} else if c.Dims[0] > dims[0]/uint64(env.Size) {
		return nil, fmt.Errorf("%s: DIM_1=%d exceeds the file's %d rows per rank (%d over %d ranks)", name, c.Dims[0], dims[0]/uint64(env.Size), dims[0], env.Size)
	}
	for d := 1; d < c.NumDims; d++ {
		if c.Dims[d] > dims[d] {
			return nil, fmt.Errorf("%s: DIM_%d=%d exceeds the file's extent %d", name, d+1, c.Dims[d], dims[d])
		}
	}
	return dims, nil
}

// modifySelection returns the selection a modify kernel writes (and its read phase reads
// back), the memory shape and the dataset extent after the kernel's set-extent.
//
//	overwrite  1-D     start r*(N/R), block DIM_1                 (N: the file's extent)
//	           STRIDED start r*(N/R), STRIDE_SIZE, BLOCK_CNT blocks of BLOCK_SIZE
//	           2-D/3-D start [r*DIM_1, 0, 0], block [DIM_1, DIM_2, DIM_3]
//	append     every rank: extent [2*DIM_1, DIM_2, DIM_3], start [DIM_1, 0, 0], block DIMs
func (p *Pattern) modifySelection(dims []uint64, env patterns.Env) (plan.Selection, []uint64, []uint64) {
	c, nd, r := p.C, p.C.NumDims, uint64(env.Rank)
	block := append([]uint64(nil), c.Dims[:nd]...)
	start := make([]uint64, nd)
	if c.Kernel == KernelAppend {
		ext := append([]uint64(nil), block...)
		ext[0] *= 2
		start[0] = c.Dims[0]
		return plan.Selection{Blocks: []plan.Hyperslab{plan.Block(start, block)}}, block, ext
	}
	if nd == 1 {
		start[0] = r * (dims[0] / uint64(env.Size))
		if c.FilePattern == "STRIDED" {
			sel := plan.Selection{Blocks: []plan.Hyperslab{{Start: start, Stride: []uint64{c.Stride}, Count: []uint64{c.BlockCount}, Block: []uint64{c.Block}}}}
			return sel, p.modifyMemShape(), dims
		}
	} else {
		start[0] = r * c.Dims[0]
	}
	return plan.Selection{Blocks: []plan.Hyperslab{plan.Block(start, block)}}, block, dims
}

// modifyMemShape is the memory block of a modify kernel's transfers: the DIM_<n> block,
// or BLOCK_CNT*BLOCK_SIZE elements for an overwrite with FILE_PATTERN=STRIDED.
func (p *Pattern) modifyMemShape() []uint64 {
	c := p.C
	if c.Kernel == KernelOverwrite && c.FilePattern == "STRIDED" {
		return []uint64{c.Block * c.BlockCount}
	}
	return append([]uint64(nil), c.Dims[:c.NumDims]...)
}

// modifyData returns the values h5bench's modify kernels write, the same for every
// variable and step: id_1 gets the int buffer, the 7 float variables the float buffer.
// At element (i, j, k) of the memory block:
//
//	append     int i+j+k, float i/(j+1)/(k+1) (in float)
//	overwrite  int i+j+k, float i/(j+1)/(k+1) * 0.1 (the product in double)
//
// h5bench fills 2-D and 3-D buffers as arrays of row pointers and passes those to
// H5Dwrite, which writes the pointers; h5proxy writes the values they were meant to hold.
func (p *Pattern) modifyData(memShape []uint64) (ints, floats []byte) {
	shape := [3]uint64{1, 1, 1}
	copy(shape[:], memShape)
	n := plan.Product(memShape)
	ints, floats = make([]byte, 4*n), make([]byte, 4*n)
	e := 0
	for i := uint64(0); i < shape[0]; i++ {
		for j := uint64(0); j < shape[1]; j++ {
			for k := uint64(0); k < shape[2]; k++ {
				f := float32(i) / float32(j+1) / float32(k+1)
				if p.C.Kernel == KernelOverwrite {
					f = float32(float64(f) * 0.1)
				}
				binary.LittleEndian.PutUint32(ints[4*e:], uint32(int32(i+j+k)))
				binary.LittleEndian.PutUint32(floats[4*e:], math.Float32bits(f))
				e++
			}
		}
	}
	return ints, floats
}

// modifyStep plans one timestep of h5bench_overwrite or h5bench_append (write), or
// h5proxy's read-back of what it wrote (read): open the group and the 8 datasets in the
// kernel's order (x, y, z, id_1, id_2, px, py, pz), append: extend the 8 datasets, then
// one H5Dwrite (H5Dread) per dataset in the same order, then the closes.
func (p *Pattern) modifyStep(pl *plan.Plan, ph patterns.Phase, step int, env patterns.Env) error {
	dims, err := p.modifyDims(ph, env)
	if err != nil {
		return err
	}
	sel, memShape, ext := p.modifySelection(dims, env)
	if p.C.Kernel == KernelAppend && ph == patterns.PhaseRead && env.Shape != nil {
		ext = dims // the read phase finds the extended extent
	}
	ints, floats := p.ints, p.floats
	if uint64(len(ints)) != 4*plan.Product(memShape) {
		return fmt.Errorf("%s: memory block %v, values for %d elements", kernelNames[p.C.Kernel].pattern, memShape, len(ints)/4)
	}
	p.closeDelayed(pl, step, env, readOrder)
	pl.Add(plan.Op{Kind: plan.OpenGroup, Path: group(step), Collective: true, Step: step})
	for _, v := range readOrder {
		pl.Add(plan.Op{Kind: plan.OpenDataset, Path: group(step) + "/" + v, Collective: true, Step: step})
	}
	if p.C.Kernel == KernelAppend && ph == patterns.PhaseWrite {
		for _, v := range readOrder {
			pl.Add(plan.Op{Kind: plan.ExtendDataset, Path: group(step) + "/" + v, Collective: true, Step: step,
				Dataset: &plan.DatasetSpec{Shape: ext}})
		}
	}
	kind, buffer := plan.Write, ""
	if ph == patterns.PhaseRead {
		kind, buffer = plan.Read, "read:"
	}
	for _, v := range readOrder {
		data := floats
		if v == "id_1" {
			data = ints
		}
		t := &plan.Transfer{Variable: v, Buffer: buffer + v, MemType: VarType(v), MemShape: memShape,
			FileType: VarType(v), FileShape: ext, Selection: sel, Data: data}
		pl.Add(plan.Op{Kind: kind, Path: group(step) + "/" + v, Collective: p.C.CollectiveData, Step: step, Transfer: t})
	}
	if p.C.DelayedClose == 0 {
		p.closeStep(pl, step, readOrder)
	}
	return nil
}
