package macsio

import (
	"fmt"
	"slices"
	"sync"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// batonTag is the MPI tag of MACSio's MIF baton in the HDF5 plugin (MACSIO_MIF_Init's 3).
const batonTag = 3

// Pattern is one MACSio run of its HDF5 plugin: num_dumps dumps, each one file (SIF) or
// one per group of ranks (MIF), then, in the read phase, every dump read back and checked.
type Pattern struct {
	patterns.Base[Config]

	mu     sync.Mutex
	meshes map[meshKey]*Mesh
	growth map[int]*rankGrowth // by rank
	// filebase is the session's file (the file base), kept from Begin for the report.
	filebase string
}

// base is the file base the phases ran on.
func (p *Pattern) base() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.filebase
}

type meshKey struct {
	ranks int
	seed  uint64
}

// rankGrowth is one rank's --dataset_growth: the variables added after each dump.
type rankGrowth struct {
	g Growth
}

// Factory builds the macsio pattern; package patterns/all registers it. Its phases are the
// dumps, then their read-back.
var Factory = patterns.Define(patterns.Def[Config, *Pattern]{Name: "macsio",
	Summary: "LLNL's MACSio proxy app, its HDF5 plugin: mesh parts of 8 kinds of variables dumped to one shared file per dump (SIF, MPI-IO, collective) or one file per group of ranks taking turns (MIF, baton passing), optional growth and compression",
	Options: Options, Config: FromValues, Phases: patterns.WriteRead})

// Steps is one step per dump.
func (p *Pattern) Steps() int { return p.C.NumDumps }

// BarrierBefore is true for every dump: the plugin's main_dump starts with MPI_Barrier.
func (p *Pattern) BarrierBefore(patterns.Phase, int) bool { return true }

// ReportsPerRank marks the pattern's report as per rank (MACSio's log and timings files).
func (p *Pattern) ReportsPerRank() {}

// Mesh is the time-zero mesh on ranks ranks with the session's seed.
func (p *Pattern) Mesh(ranks int, seed uint64) (*Mesh, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := meshKey{ranks, seed}
	if m, ok := p.meshes[k]; ok {
		return m, nil
	}
	m, err := NewMesh(&p.C, ranks, seed)
	if err != nil {
		return nil, err
	}
	if p.meshes == nil {
		p.meshes = map[meshKey]*Mesh{}
	}
	p.meshes[k] = m
	return m, nil
}

// Group is MACSio's MIF grouping (MACSIO_MIF_Init): files groups of contiguous ranks, the
// first size mod files groups one rank larger; more files than ranks make every rank a
// group. It returns rank's group and the ranks before and after it in the group (-1: none).
func Group(rank, size, files int) (group, before, after int) {
	gs := size / files
	extra := size % files
	split := extra * (gs + 1)
	var inGroup int
	before, after = -1, -1
	if rank < split {
		group, inGroup = rank/(gs+1), rank%(gs+1)
		if inGroup < gs {
			after = rank + 1
		}
	} else {
		group, inGroup = extra+(rank-split)/gs, (rank-split)%gs
		if inGroup < gs-1 {
			after = rank + 1
		}
	}
	if inGroup > 0 {
		before = rank - 1
	}
	return group, before, after
}

// FileName is the file of a dump a rank writes: <filebase>_hdf5_<dump %03d>.<ext> (SIF) or
// <filebase>_hdf5_<group %05d>_<dump %03d>.<ext> (MIF).
func (c *Config) FileName(filebase string, rank, size, dump int) string {
	if c.SIF {
		return fmt.Sprintf("%s_hdf5_%03d.%s", filebase, dump, c.FileExt)
	}
	g, _, _ := Group(rank, size, c.NumFiles)
	return fmt.Sprintf("%s_hdf5_%05d_%03d.%s", filebase, g, dump, c.FileExt)
}

// FilePath is the rank's first dump's file (the session's file is the file base).
func (p *Pattern) FilePath(env patterns.Env) string {
	return p.C.FileName(env.Path, env.Rank, env.Size, 0)
}

// Begin checks the run on the session's ranks before any I/O: the mesh, the compression
// filter.
func (p *Pattern) Begin(ph patterns.Phase, env patterns.Env) (plan.Plan, error) {
	if err := p.CheckPhase(ph); err != nil {
		return plan.Plan{}, err
	}
	p.mu.Lock()
	p.filebase = env.Path
	p.mu.Unlock()
	if _, err := p.Mesh(env.Size, env.Seed); err != nil {
		return plan.Plan{}, err
	}
	if id, name := p.C.Compression.filter(); id != 0 && env.FilterAvailable != nil && !env.FilterAvailable(id) {
		return plan.Plan{}, fmt.Errorf("--compression %s: HDF5 has no %s filter here (MACSio: \"%s compressor not available in this build\"); h5proxy stops rather than write the datasets uncompressed", p.C.Compression.Alg, name, p.C.Compression.Alg)
	}
	return plan.Plan{}, nil
}

// End has nothing to do: every dump closes its files.
func (p *Pattern) End(patterns.Phase, int, patterns.Env) (plan.Plan, error) { return plan.Plan{}, nil }

// filter is the compression's HDF5 filter beyond the built-in deflate and shuffle.
func (c Compression) filter() (uint32, string) {
	switch c.Alg {
	case "szip":
		return plan.FilterSZIP, "SZIP"
	case "zfp":
		return plan.FilterZFP, "H5Z-ZFP (32013, a plugin on HDF5_PLUGIN_PATH)"
	}
	return 0, ""
}

// filterShuffle is HDF5's byte shuffle filter (H5Z_FILTER_SHUFFLE).
const filterShuffle uint32 = 2

// dataset is a variable's creation properties (make_dcpl): contiguous, or with a
// compression and at least minsize elements, one chunk of the whole dataset with the
// shuffle and the compressor.
func (c *Config) dataset(v Var, shape []uint64) *plan.DatasetSpec {
	// MACSio's plugin creates every dataset with the 1.6 API's H5Dcreate1 (macsio_hdf5.c:
	// main_dump_sif and write_mesh_part), which Darshan counts in H5D_USE_DEPRECATED.
	d := &plan.DatasetSpec{Type: plan.F64, Shape: shape, API1: true}
	if v.Int {
		d.Type = plan.I32
	}
	cp := c.Compression
	if cp.Alg == "" || int64(plan.Product(shape)) < cp.MinSize {
		return d
	}
	d.Chunk = slices.Clone(shape)
	if cp.Shuffle && cp.Alg != "zfp" {
		d.Filters = append(d.Filters, plan.Filter{ID: filterShuffle})
	}
	switch cp.Alg {
	case "gzip":
		d.Deflate = cp.Level
	case "szip":
		mask := plan.SZIPNearestNeighbour
		if cp.SzipEC {
			mask = 4 // H5_SZIP_EC_OPTION_MASK
		}
		d.Filters = append(d.Filters, plan.Filter{ID: plan.FilterSZIP, CDValues: []uint32{mask, uint32(cp.SzipBlock)}})
	case "zfp":
		// H5Pset_zfp_rate_cdata(0.0): rate mode with ZFP's default rate.
		d.Filters = append(d.Filters, plan.Filter{ID: plan.FilterZFP, CDValues: []uint32{1, 0, 0, 0}})
	}
	return d
}

// vars are the variables of a rank's parts at a dump: every part's, and on the first part
// those added by growth in the dumps before. Names repeated by MACSio's growth are
// dropped: MACSio's second create of the name fails.
func (p *Pattern) vars(env patterns.Env, m *Mesh, dump int) (base, first []Var, err error) {
	base = Vars(p.C.VarsPerPart)
	first = slices.Clone(base)
	if p.C.Growth <= 1 || dump == 0 {
		return base, first, nil
	}
	g, err := p.grow(env, m, dump)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	for _, v := range base {
		seen[v.Name] = true
	}
	for _, added := range g.Added[:dump] {
		for _, v := range added {
			if !seen[v.Name] {
				seen[v.Name] = true
				first = append(first, v)
			}
		}
	}
	return base, first, nil
}

// grow evolves the rank's data set up to the dump: after each earlier dump, by the size on
// disk of the files the rank wrote in it (MACSIO_UTILS_StatFiles), times growth - 1.
// Without sizes on disk (no session, a layout that keeps none), the dump's raw bytes stand
// in for them.
func (p *Pattern) grow(env patterns.Env, m *Mesh, dump int) (*Growth, error) {
	p.mu.Lock()
	rg, ok := p.growth[env.Rank]
	if !ok {
		rg = &rankGrowth{}
		if p.growth == nil {
			p.growth = map[int]*rankGrowth{}
		}
		p.growth[env.Rank] = rg
	}
	p.mu.Unlock()
	for e := len(rg.g.Added); e < dump; e++ {
		size, ok := int64(0), false
		if env.DiskSize != nil {
			var err error
			if size, ok, err = env.DiskSize([]string{p.C.FileName(env.Path, env.Rank, env.Size, e)}); err != nil {
				return nil, fmt.Errorf("--dataset_growth: size of dump %d's file: %w", e, err)
			}
		}
		if !ok {
			size = p.rawBytes(env, m, e)
		}
		rg.g.Evolve(m, GrowthBytes(size, p.C.Growth))
	}
	return &rg.g, nil
}

// rawBytes is the data a dump puts in the rank's file: the whole shared file's (SIF) or
// its group's (MIF); the growth added before it included.
func (p *Pattern) rawBytes(env patterns.Env, m *Mesh, dump int) int64 {
	var n int64
	ranks := []int{env.Rank}
	if p.C.SIF {
		ranks = nil
		for r := 0; r < env.Size; r++ {
			ranks = append(ranks, r)
		}
	} else {
		g, _, _ := Group(env.Rank, env.Size, p.C.NumFiles)
		for r := 0; r < env.Size; r++ {
			if h, _, _ := Group(r, env.Size, p.C.NumFiles); h == g && r != env.Rank {
				ranks = append(ranks, r)
			}
		}
	}
	for _, r := range ranks {
		parts := m.Parts(r)
		for i := range parts {
			for _, v := range Vars(p.C.VarsPerPart) {
				n += int64(plan.Product(m.PartShape(v))) * elemSize(v)
			}
			if i == 0 && r == env.Rank && dump > 0 {
				for _, added := range p.growth[r].g.Added[:dump] {
					for _, v := range added {
						n += int64(plan.Product(m.PartShape(v))) * 8
					}
				}
			}
		}
	}
	return n
}

func elemSize(v Var) int64 {
	if v.Int {
		return 4
	}
	return 8
}

// Step is one dump: its write (SIF or MIF) or its read-back.
func (p *Pattern) Step(ph patterns.Phase, dump int, env patterns.Env) (plan.Plan, error) {
	if err := p.CheckPhase(ph); err != nil {
		return plan.Plan{}, err
	}
	m, err := p.Mesh(env.Size, env.Seed)
	if err != nil {
		return plan.Plan{}, err
	}
	base, first, err := p.vars(env, m, dump)
	if err != nil {
		return plan.Plan{}, err
	}
	read := ph == patterns.PhaseRead
	if p.C.SIF {
		return p.sif(env, m, dump, base, first, read), nil
	}
	return p.mif(env, m, dump, base, first, read), nil
}

// transfer is one variable's write or read of a part.
func transfer(name string, v Var, mem, file []uint64, sel plan.Selection) *plan.Transfer {
	t := plan.F64
	if v.Int {
		t = plan.I32
	}
	return &plan.Transfer{Variable: name, Buffer: name, MemType: t, MemShape: mem, FileType: t, FileShape: file, Selection: sel}
}

// sif is one shared file's dump: every rank opens it through MPI-IO with the plugin's
// metadata cache settings; per variable one root dataset of the whole mesh, written by
// every rank with one call per part (ceil(avg_num_parts) calls: empty selections for the
// parts a rank lacks).
func (p *Pattern) sif(env patterns.Env, m *Mesh, dump int, base, first []Var, read bool) plan.Plan {
	var pl plan.Plan
	path := p.C.FileName(env.Path, env.Rank, env.Size, dump)
	fs := &plan.FileSpec{Parallel: true, ReadOnly: read,
		MDCAdjust: &plan.MDCAdjust{Initial: 16 << 10, Min: 8 << 10, EpochLength: 3000, LowerHitRate: 0.95}}
	if !p.C.MACSioCache {
		fs.MDCAdjust = nil
	}
	if p.C.MetaBlock >= 0 {
		fs.MetaBlockSize = uint64(p.C.MetaBlock)
		if p.C.SmallBlock >= 0 {
			fs.Tuning.SmallDataBlockSize = uint64(p.C.MetaBlock) // MACSio passes the meta block size
		}
	}
	if p.C.SieveBuf >= 0 {
		fs.Tuning.SieveBufSize = uint64(p.C.SieveBuf)
	}
	fk, dk, xk := plan.CreateFile, plan.CreateDataset, plan.Write
	if read {
		fk, dk, xk = plan.OpenFile, plan.OpenDataset, plan.Read
	}
	pl.Add(plan.Op{Kind: fk, Path: path, Collective: true, Step: dump, File: fs})
	parts := m.Parts(env.Rank)
	nparts := m.MaxParts()
	coll := !p.C.NoCollective
	for _, v := range first {
		name := "/" + v.Name
		shape := m.GlobalShape(v)
		if v.Expansion {
			shape = m.GlobalShape(Var{Centering: Node})
		}
		op := plan.Op{Kind: dk, Path: name, Collective: true, Step: dump}
		if !read {
			op.Dataset = p.C.dataset(v, shape)
		}
		pl.Add(op)
		calls := nparts
		if v.Expansion {
			calls = 1 // MACSio's writes of the other parts find no buffer and fail
		}
		for i := 0; i < calls; i++ {
			sel, mem := plan.None(), []uint64(nil)
			if i < len(parts) {
				vv := v
				if v.Expansion {
					vv = Var{Centering: Node}
				}
				start, count := m.PartBlock(parts[i], vv)
				sel, mem = plan.Selection{Blocks: []plan.Hyperslab{plan.Block(start, count)}}, count
			}
			pl.Add(plan.Op{Kind: xk, Path: name, Collective: coll, Step: dump,
				Transfer: transfer(fmt.Sprintf("%s#%d", name, i), v, mem, shape, sel)})
		}
		pl.Add(plan.Op{Kind: plan.CloseDataset, Path: name, Collective: true, Step: dump})
	}
	pl.Add(plan.Op{Kind: plan.CloseFile, Path: path, Collective: true, Step: dump})
	return pl
}

// mif is a rank's turn at its group's file: wait for the baton from the rank before,
// create (first of the group) or open read-write, one group domain_%07d per part with its
// variables (sec2, whole datasets), close, pass the baton on. The read-back opens the
// file read-only on every rank at once.
func (p *Pattern) mif(env patterns.Env, m *Mesh, dump int, base, first []Var, read bool) plan.Plan {
	var pl plan.Plan
	path := p.C.FileName(env.Path, env.Rank, env.Size, dump)
	_, before, after := Group(env.Rank, env.Size, p.C.NumFiles)
	fs := &plan.FileSpec{CloseSemi: true, ReadOnly: read}
	switch {
	case read:
		pl.Add(plan.Op{Kind: plan.OpenFile, Path: path, Step: dump, File: fs})
	case before >= 0:
		pl.Add(plan.Op{Kind: plan.WaitBaton, Step: dump, Baton: &plan.Baton{Peer: before, Tag: batonTag}},
			plan.Op{Kind: plan.OpenFile, Path: path, Step: dump, File: fs})
	default:
		pl.Add(plan.Op{Kind: plan.CreateFile, Path: path, Step: dump, File: fs})
	}
	gk, dk, xk := plan.CreateGroup, plan.CreateDataset, plan.Write
	if read {
		gk, dk, xk = plan.OpenGroup, plan.OpenDataset, plan.Read
	}
	for i, part := range m.Parts(env.Rank) {
		group := fmt.Sprintf("/domain_%07d", part.Chunk)
		// MACSio's plugin creates each domain group with the 1.6 API's H5Gcreate1(file,
		// name, 0) (macsio_hdf5.c: main_dump_mif).
		pl.Add(plan.Op{Kind: gk, Path: group, Step: dump, API1: !read})
		vars := base
		if i == 0 {
			vars = first
		}
		for _, v := range vars {
			name := group + "/" + v.Name
			shape := m.PartShape(v)
			op := plan.Op{Kind: dk, Path: name, Step: dump}
			if !read {
				op.Dataset = p.C.dataset(v, shape)
			}
			pl.Add(op)
			if plan.Product(shape) > 0 {
				pl.Add(plan.Op{Kind: xk, Path: name, Step: dump, Transfer: transfer(name, v, shape, shape, plan.All(shape))})
			}
			pl.Add(plan.Op{Kind: plan.CloseDataset, Path: name, Step: dump})
		}
		pl.Add(plan.Op{Kind: plan.CloseGroup, Path: group, Step: dump})
	}
	pl.Add(plan.Op{Kind: plan.CloseFile, Path: path, Step: dump})
	if after >= 0 && !read {
		// MACSio stats its dump's files right after its hand-off (MACSIO_UTILS_StatFiles
		// in main_write), while the next rank of the group takes its turn: the file as
		// this rank left it is what its growth starts from.
		pl.Add(plan.Op{Kind: plan.PassBaton, Step: dump, Baton: &plan.Baton{Peer: after, Tag: batonTag, Stat: path}})
	}
	return pl
}

// DumpFiles are the files of a dump a rank records (MACSIO_UTILS_RecordOutputFiles).
func (p *Pattern) DumpFiles(filebase string, rank, size, dump int) []string {
	return []string{p.C.FileName(filebase, rank, size, dump)}
}
