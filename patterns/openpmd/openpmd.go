package openpmd

import (
	"fmt"
	pathpkg "path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Pattern is openPMD-api's 8a write benchmark and 8b read benchmark as h5bench's openpmd
// entries run them, through openPMD-api 0.15's HDF5 backend.
type Pattern struct {
	patterns.Base[Config]
	// Date is the series' date attribute, taken when the pattern is built (openPMD-api
	// takes it when the series is created).
	Date string
}

// Factory builds the openpmd pattern; package patterns/all registers it.
var Factory = patterns.Define(patterns.Def[Config, *Pattern]{Name: "openpmd", Options: Options, Config: FromValues, Phases: patterns.WriteRead,
	Summary: "openPMD 1.1.0 series as openPMD-api's HDF5 backend writes them: h5bench openpmd (8a meshes E, B, rho and species ion; 8b metadata and slice reads)",
	Init: func(p *Pattern, _ *options.Values) error {
		p.Date = time.Now().Format(DateFormat)
		return nil
	}})

// Steps returns the configured number of iterations.
func (p *Pattern) Steps() int { return p.C.Steps }

// InputFile is 8a's input file: parseArgs reads it on every rank, a line at a time.
func (p *Pattern) InputFile() (string, patterns.InputRead) {
	return p.C.InputFile, patterns.InputLinesOnEveryRank
}

// ProcStatus is the file 8a's MemoryProfiler reads on rank 0 at each Timer's start and
// end (examples/8a_benchmark_write_parallel.cpp, Display: a std::ifstream read with
// getline).
const ProcStatus = "/proc/self/status"

// PhaseReads are 8a's MemoryProfiler reads around its write: Timer g's constructor in
// main (after parseArgs) and Timer kk's in AbstractPattern::run, both before the series
// is created; kk's destructor after the series is closed (its block ends after the
// Series'). g's destructor runs after MPI_Finalize, outside Darshan's and the profiler's
// window, and h5proxy does not make it. 8b's timers read nothing (its MemoryProfiler
// calls are commented out).
func (p *Pattern) PhaseReads(ph patterns.Phase) (before, after []string) {
	if ph != patterns.PhaseWrite {
		return nil, nil
	}
	return []string{ProcStatus, ProcStatus}, []string{ProcStatus}
}

// Axes are the component names of vector meshes, in order; a mesh of dimension d has
// the first d.
var Axes = []string{"x", "y", "z"}

// VectorMeshes are 8a's vector meshes in the order openPMD-api flushes them (sorted by
// name); Rho is its scalar mesh.
var (
	VectorMeshes = []string{"B", "E"}
	Rho          = "rho"
	// Species is 8a's particle species.
	Species = "ion"
)

// timeT matches openPMD-api's iteration placeholder in file names: %T or %0<N>T.
var timeT = regexp.MustCompile(`%(0[0-9]+)?T`)

// fileTemplate is the file-based series' name with its iteration placeholder: the
// session file when it has one, else the file with _%07T before its extension (8a's
// naming).
func fileTemplate(path string) string {
	if timeT.MatchString(path) {
		return path
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "_%07T" + ext
}

// expand substitutes iteration it for the placeholder, zero-padded to its width.
func expand(tmpl string, it int) string {
	return timeT.ReplaceAllStringFunc(tmpl, func(m string) string {
		w := 0
		if len(m) > 2 {
			w, _ = strconv.Atoi(m[1 : len(m)-1])
		}
		return fmt.Sprintf("%0*d", w, it)
	})
}

// iterFile is the file of iteration it for the file-based encoding, else the series file.
func (p *Pattern) iterFile(env patterns.Env, it int) string {
	if p.C.Encoding != FileBased {
		return env.Path
	}
	return expand(fileTemplate(env.Path), it)
}

// FilePath is the first file a rank opens: the series file, or iteration 1's file for
// the file-based encoding.
func (p *Pattern) FilePath(env patterns.Env) string { return p.iterFile(env, 1) }

// IterationFormat is the series' iterationFormat attribute: basePath for group-based,
// /data for variable-based, and for file-based the file name pattern without directory
// and extension (openPMD-api's series name).
func (p *Pattern) IterationFormat(env patterns.Env) string {
	switch p.C.Encoding {
	case GroupBased:
		return BasePath
	case VariableBased:
		return "/data"
	}
	base := filepath.Base(fileTemplate(env.Path))
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// IterationPath is the group of iteration it: /data/<it>, or /data itself for the
// variable-based encoding.
func (p *Pattern) IterationPath(it int) string {
	if p.C.Encoding == VariableBased {
		return "/data"
	}
	return fmt.Sprintf("/data/%d", it)
}

// check validates what depends on the run: the file name and, for writes, the
// decomposition (reads take the mesh from the file, as 8b does).
func (p *Pattern) check(ph patterns.Phase, env patterns.Env) (*Mesh, error) {
	if loc := p.C.FileLocation; loc != "" && filepath.Clean(filepath.Dir(env.Path)) != filepath.Clean(loc) {
		return nil, &options.Error{Table: "openpmd", Key: "fileLocation", Value: loc,
			Reason:  fmt.Sprintf("the series file %s is not in it", env.Path),
			Allowed: "the directory of the session file (h5bench: <fileLocation>/" + p.C.SeriesName() + ")"}
	}
	if p.C.Encoding != FileBased && timeT.MatchString(env.Path) {
		return nil, &options.Error{Table: "openpmd", Key: "encoding", Value: p.C.Encoding.String(),
			Reason: fmt.Sprintf("file %s has an iteration placeholder: openPMD-api makes it a file-based series", env.Path), Allowed: "encoding=f, or a file name without %T"}
	}
	if ph != patterns.PhaseWrite {
		return nil, nil
	}
	return NewMesh(p.C, env.Size)
}

// fileSpec is openPMD-api's parallel file access: MPI-IO, collective metadata, the
// deferred metadata cache and alignment as configured.
func (p *Pattern) fileSpec(read bool) *plan.FileSpec {
	c := p.C
	fs := &plan.FileSpec{Parallel: true, ReadOnly: read, CollMetadataOps: c.CollectiveMetadata, CollMetadataWrite: c.CollectiveMetadata}
	if c.DeferMetadata {
		fs.MDCInitialSize = c.DeferMetadataSize
	}
	if c.Alignment > 1 {
		fs.AlignThreshold, fs.AlignLen = c.Threshold, c.Alignment
	}
	return fs
}

// Begin creates (write) or opens (read) the series file; file-based writes create each
// iteration's file in its step, file-based reads open iteration 1's file here.
func (p *Pattern) Begin(ph patterns.Phase, env patterns.Env) (plan.Plan, error) {
	var pl plan.Plan
	if _, err := p.check(ph, env); err != nil {
		return pl, err
	}
	switch ph {
	case patterns.PhaseWrite:
		if p.C.Encoding != FileBased {
			pl.Add(plan.Op{Kind: plan.CreateFile, Path: env.Path, Collective: true, File: p.fileSpec(false)})
		}
	case patterns.PhaseRead:
		pl.Add(plan.Op{Kind: plan.OpenFile, Path: p.iterFile(env, 1), Collective: true, File: p.fileSpec(true)})
	default:
		return pl, fmt.Errorf("openpmd: no %s phase", ph)
	}
	return pl, nil
}

// Step plans iteration step+1 (8a numbers iterations from 1).
func (p *Pattern) Step(ph patterns.Phase, step int, env patterns.Env) (plan.Plan, error) {
	var pl plan.Plan
	if step < 0 || step >= p.C.Steps {
		return pl, fmt.Errorf("openpmd: step %d outside 0..%d", step, p.C.Steps-1)
	}
	m, err := p.check(ph, env)
	if err != nil {
		return pl, err
	}
	b := &builder{plan: &pl, step: step, collMeta: p.C.CollectiveMetadata}
	switch ph {
	case patterns.PhaseWrite:
		p.writeStep(b, m, env)
	case patterns.PhaseRead:
		err = p.readStep(b, env)
	default:
		err = fmt.Errorf("openpmd: no %s phase", ph)
	}
	if err == nil {
		err = pl.Validate()
	}
	return pl, err
}

// End closes the series file; a file-based read closes the file a step opened ahead when
// the phase ends before the last iteration.
func (p *Pattern) End(ph patterns.Phase, steps int, env patterns.Env) (plan.Plan, error) {
	var pl plan.Plan
	switch {
	case p.C.Encoding != FileBased:
		pl.Add(plan.Op{Kind: plan.CloseFile, Path: env.Path, Collective: true})
	case ph == patterns.PhaseRead && steps < p.C.Steps:
		pl.Add(plan.Op{Kind: plan.CloseFile, Path: p.iterFile(env, steps+1), Collective: true})
	}
	return pl, nil
}

// builder appends the HDF5 calls openPMD-api's HDF5 backend makes for its IO tasks.
type builder struct {
	plan *plan.Plan
	step int
	// collMeta is OPENPMD_HDF5_COLLECTIVE_METADATA: the access lists of the backend's
	// opens of parent groups and of attributes' objects ask for collective metadata reads.
	collMeta bool
}

func (b *builder) op(kind plan.OpKind, path string, coll bool) *plan.Op {
	b.plan.Add(plan.Op{Kind: kind, Path: path, Collective: coll, Step: b.step})
	return &b.plan.Ops[len(b.plan.Ops)-1]
}

// parent opens the group path is created in, as HDF5IOHandlerImpl's createPath and
// createDataset open it (H5Gopen with a group access list asking for collective metadata
// reads when they are on), and returns its path for the close.
func (b *builder) parent(path string) string {
	par := pathpkg.Dir(path)
	b.op(plan.OpenGroup, par, true).CollMetadata = b.collMeta
	return par
}

// group is CREATE_PATH: the parent group opened, the group created in it by its name
// (H5Gcreate(parent, name)), then closed, then the parent. (openPMD-api asks H5Lexists
// before each H5Gcreate, which the plan vocabulary does not express.)
func (b *builder) group(path string) {
	par := b.parent(path)
	b.op(plan.CreateGroup, path, true).InParent = true
	b.op(plan.CloseGroup, path, true)
	b.op(plan.CloseGroup, par, true)
}

// dataset is CREATE_DATASET: the parent group opened, the dataset created in it by its
// name (H5Dcreate(parent, name): under Darshan a record "FILE:/parentname" of its own,
// beside the full path's that writeDataset's H5Dopen(file, path) and writeAttribute's
// H5Oopen give) and closed, then the parent closed.
func (b *builder) dataset(path string, spec *plan.DatasetSpec) {
	par := b.parent(path)
	o := b.op(plan.CreateDataset, path, true)
	o.Dataset, o.InParent = spec, true
	b.op(plan.CloseDataset, path, true)
	b.op(plan.CloseGroup, par, true)
}

// attrs is one WRITE_ATT per attribute, as HDF5IOHandlerImpl::writeAttribute makes it: the
// object is opened with H5Oopen (a link access list with collective metadata reads when
// they are on), the attribute created and written, the object closed with H5Oclose; so a
// profiler counts no dataset open for it (H5D_OPENS: the create and one H5Dopen per
// storeChunk). The series' attributes on "/" too: writeAttribute opens the root group with
// H5Oopen(file, "/") like any object.
func (b *builder) attrs(path string, isGroup bool, as ...plan.AttributeSpec) {
	open, cl := plan.OpenDataset, plan.CloseDataset
	if isGroup {
		open, cl = plan.OpenGroup, plan.CloseGroup
	}
	for i := range as {
		a := as[i]
		o := b.op(open, path, true)
		o.AsObject, o.CollMetadata = true, b.collMeta
		b.op(plan.WriteAttribute, path, true).Attribute = &a
		b.op(cl, path, true).AsObject = true
	}
}

// write is one WRITE_DATASET (a storeChunk): the dataset is opened, written and closed,
// by this rank alone with independent transfers.
func (b *builder) write(path string, t *plan.Transfer, collective bool) {
	b.op(plan.OpenDataset, path, collective)
	b.op(plan.Write, path, collective).Transfer = t
	b.op(plan.CloseDataset, path, collective)
}

// dsSpec is the creation property list of a record component: chunked as openPMD-api
// chooses (unless OPENPMD_HDF5_CHUNKS=none), fill time never.
func (p *Pattern) dsSpec(t plan.Type, shape []uint64) *plan.DatasetSpec {
	d := &plan.DatasetSpec{Type: t, Shape: shape, FillNever: true}
	if p.C.Chunks && plan.Product(shape) > 0 {
		d.Chunk = ChunkDims(shape, t.Size)
	}
	return d
}

// writeStep plans 8a's store() of one iteration and the flush at iteration close, in
// openPMD-api's flush order: the iteration group, meshes sorted by name (each component:
// create, chunks, attributes; then the record's attributes), the species' records sorted
// by name, the species', the iteration's and (first flush of a file) the series'
// attributes.
func (p *Pattern) writeStep(b *builder, m *Mesh, env patterns.Env) {
	c := p.C
	it := b.step + 1
	ip := p.IterationPath(it)
	first := b.step == 0 || c.Encoding == FileBased
	if c.Encoding == FileBased {
		b.op(plan.CreateFile, p.iterFile(env, it), true).File = p.fileSpec(false)
	}
	if first {
		b.group("/data")
	}
	// The variable-based iteration is /data itself: Iteration::flushVariableBased's
	// setAttribute("snapshot") is flushed with the iteration's other attributes, after its
	// members (iterationAttrs).
	if c.Encoding != VariableBased {
		b.group(ip)
	}
	fields := ip + "/fields"
	b.group(fields)
	perRank := c.RankBlocks || !c.Independent
	blocks := m.Blocks(env.Rank, it, c.Balanced, perRank)
	if perRank {
		blocks = merge(blocks)
	}
	meshComponent := func(path, variable string) {
		b.dataset(path, p.dsSpec(plan.F64, m.Global))
		for _, t := range p.meshTransfers(variable, m.Global, blocks) {
			b.write(path, t, !c.Independent)
		}
	}
	for _, rec := range VectorMeshes {
		rp := fields + "/" + rec
		b.group(rp)
		for _, ax := range Axes[:m.Dim()] {
			meshComponent(rp+"/"+ax, "fields/"+rec+"/"+ax)
			b.attrs(rp+"/"+ax, false, meshComponentAttrs()...)
		}
		b.attrs(rp, true, meshAttrs()...)
	}
	rho := fields + "/" + Rho
	meshComponent(rho, "fields/"+Rho)
	b.attrs(rho, false, append(meshComponentAttrs(), meshAttrs()...)...)

	parts := ip + "/particles"
	sp := parts + "/" + Species
	if first {
		b.attrs("/", true, particlesPathAttr())
	}
	b.group(parts)
	b.group(sp)
	// Container<Record>::flush (ParticleSpecies::flush) writes the species' attributes
	// right after creating its group, before its records.
	b.attrs(sp, true, speciesAttrs(it, c.Ratio)...)
	n := m.Particles()
	particleComponent := func(path, variable string, t plan.Type) {
		b.dataset(path, p.dsSpec(t, []uint64{n}))
		for _, tr := range p.particleTransfers(variable, t, n, blocks) {
			b.write(path, tr, !c.Independent)
		}
	}
	vp := "particles/" + Species + "/"
	particleComponent(sp+"/charge", vp+"charge", plan.F64)
	b.attrs(sp+"/charge", false, append(componentAttrs(), recordAttrs(zeros7)...)...)
	particleComponent(sp+"/id", vp+"id", plan.U64)
	b.attrs(sp+"/id", false, append(componentAttrs(), recordAttrs(zeros7)...)...)
	b.group(sp + "/position")
	particleComponent(sp+"/position/x", vp+"position/x", plan.F64)
	b.attrs(sp+"/position/x", false, componentAttrs()...)
	b.attrs(sp+"/position", true, recordAttrs(unitL)...)
	b.group(sp + "/positionOffset")
	b.group(sp + "/positionOffset/x")
	b.attrs(sp+"/positionOffset/x", true, constantAttrs(0, n)...)
	b.attrs(sp+"/positionOffset", true, recordAttrs(unitL)...)

	b.attrs(ip, true, iterationAttrs(c.Encoding, it)...)
	if first {
		b.attrs("/", true, rootAttrs(c.Encoding, p.IterationFormat(env), p.Date)...)
	}
	if c.Encoding == FileBased {
		b.op(plan.CloseFile, p.iterFile(env, it), true)
	}
}

// meshTransfers are a rank's writes of one mesh component: with independent transfers
// one per block (storeChunk); with collective ones a single write of the union of its
// boxes, or of nothing, so that every rank makes the call.
func (p *Pattern) meshTransfers(variable string, global []uint64, blocks []Block) []*plan.Transfer {
	mk := func(buffer string, sel plan.Selection, mem []uint64) *plan.Transfer {
		return &plan.Transfer{Variable: variable, Buffer: buffer, MemType: plan.F64, MemShape: mem,
			FileType: plan.F64, FileShape: global, Selection: sel}
	}
	if !p.C.Independent {
		var sel plan.Selection
		for _, bl := range blocks {
			sel.Blocks = append(sel.Blocks, plan.Block(bl.Offset, bl.Extent))
		}
		mem := []uint64{sel.NPoints(global)}
		switch {
		case len(blocks) == 0:
			mem = []uint64{1}
		case len(blocks) == 1:
			mem = blocks[0].Extent
		}
		return []*plan.Transfer{mk(variable, sel, mem)}
	}
	var out []*plan.Transfer
	for k, bl := range blocks {
		out = append(out, mk(bufferName(variable, k), plan.Selection{Blocks: []plan.Hyperslab{plan.Block(bl.Offset, bl.Extent)}}, bl.Extent))
	}
	return out
}

// particleTransfers are a rank's writes of one particle record component (1-D, n
// particles), block by block like the mesh's.
func (p *Pattern) particleTransfers(variable string, t plan.Type, n uint64, blocks []Block) []*plan.Transfer {
	mk := func(buffer string, off, cnt uint64) *plan.Transfer {
		sel, mem := plan.None(), []uint64{1}
		if cnt > 0 {
			sel, mem = plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{off}, []uint64{cnt})}}, []uint64{cnt}
		}
		return &plan.Transfer{Variable: variable, Buffer: buffer, MemType: t, MemShape: mem,
			FileType: t, FileShape: []uint64{n}, Selection: sel}
	}
	if !p.C.Independent {
		var off, cnt uint64
		if len(blocks) > 0 {
			off = blocks[0].POffset
		}
		for _, bl := range blocks {
			cnt += bl.PCount // consecutive ranges
		}
		return []*plan.Transfer{mk(variable, off, cnt)}
	}
	var out []*plan.Transfer
	for k, bl := range blocks {
		out = append(out, mk(bufferName(variable, k), bl.POffset, bl.PCount))
	}
	return out
}

// bufferName names the memory of a rank's k-th chunk of a variable: 8a allocates one
// buffer per storeChunk and keeps it until the flush.
func bufferName(variable string, k int) string {
	if k == 0 {
		return variable
	}
	return fmt.Sprintf("%s#%d", variable, k)
}

// readStep plans 8b's handling of one iteration of readIterations(): the iteration is
// opened and parsed (its groups and datasets opened), every 5th iteration (1, 6, 11, ...)
// gets the pattern's reads, then everything is closed; with the file-based encoding the
// iteration's file is closed and the next one opened (the iterator's advance).
func (p *Pattern) readStep(b *builder, env patterns.Env) error {
	if env.Shape == nil {
		return fmt.Errorf("openpmd read: the plan needs the file's dataset shapes (env.Shape)")
	}
	it := b.step + 1
	ip := p.IterationPath(it)
	fields := ip + "/fields"
	rho := fields + "/" + Rho
	shape, err := env.Shape(rho)
	if err != nil {
		return fmt.Errorf("openpmd read: extent of %s: %w", rho, err)
	}
	if len(shape) < 1 || len(shape) > 3 {
		return fmt.Errorf("openpmd read: %s has rank %d, want 1 to 3", rho, len(shape))
	}
	axes := Axes[:len(shape)]
	sp := ip + "/particles/" + Species
	type obj struct {
		path  string
		group bool
	}
	objs := []obj{{ip, true}, {fields, true}}
	for _, rec := range VectorMeshes {
		objs = append(objs, obj{fields + "/" + rec, true})
		for _, ax := range axes {
			objs = append(objs, obj{fields + "/" + rec + "/" + ax, false})
		}
	}
	objs = append(objs, obj{rho, false}, obj{ip + "/particles", true}, obj{sp, true},
		obj{sp + "/charge", false}, obj{sp + "/id", false}, obj{sp + "/position", true}, obj{sp + "/position/x", false},
		obj{sp + "/positionOffset", true}, obj{sp + "/positionOffset/x", true})
	for _, o := range objs {
		if o.group {
			b.op(plan.OpenGroup, o.path, true)
		} else {
			b.op(plan.OpenDataset, o.path, true)
		}
	}
	if b.step%5 == 0 {
		if err := p.reads(b, env, fields, shape); err != nil {
			return err
		}
	}
	for i := len(objs) - 1; i >= 0; i-- {
		if objs[i].group {
			b.op(plan.CloseGroup, objs[i].path, true)
		} else {
			b.op(plan.CloseDataset, objs[i].path, true)
		}
	}
	if p.C.Encoding == FileBased {
		b.op(plan.CloseFile, p.iterFile(env, it), true)
		if it < p.C.Steps {
			b.op(plan.OpenFile, p.iterFile(env, it+1), true).File = p.fileSpec(true)
		}
	}
	return nil
}

// Slice returns 8b's slice of a mesh of the given shape perpendicular to axis for rank:
// index rank mod extent along axis, everything along the others. A 1-D mesh is read
// whole. ok is false when the mesh has no such axis (8b reads nothing then).
func Slice(shape []uint64, axis, rank int) (sel plan.Selection, mem []uint64, ok bool) {
	if axis >= len(shape) {
		return sel, nil, false
	}
	start := make([]uint64, len(shape))
	ext := append([]uint64(nil), shape...)
	if len(shape) > 1 {
		start[axis] = uint64(rank) % shape[axis]
		ext[axis] = 1
	}
	return plan.Selection{Blocks: []plan.Hyperslab{plan.Block(start, ext)}}, ext, true
}

// reads adds the pattern's reads of an iteration: a slice of rho (s<axis>) or the same
// slice of B/x, B/y and B/z (f<axis>, 3-D meshes only).
func (p *Pattern) reads(b *builder, env patterns.Env, fields string, rhoShape []uint64) error {
	pat := p.C.Pattern
	if pat == "m" {
		return nil
	}
	axis := strings.IndexByte("xyz", pat[1])
	var recs []string
	shape := rhoShape
	if pat[0] == 's' {
		recs = []string{Rho}
	} else {
		if len(rhoShape) != 3 {
			return nil
		}
		for _, ax := range Axes {
			recs = append(recs, "B/"+ax)
		}
		var err error
		if shape, err = env.Shape(fields + "/B/x"); err != nil {
			return fmt.Errorf("openpmd read: extent of %s/B/x: %w", fields, err)
		}
	}
	sel, mem, ok := Slice(shape, axis, env.Rank)
	if !ok {
		return nil
	}
	for _, r := range recs {
		v := "fields/" + r
		t := &plan.Transfer{Variable: v, Buffer: "read:" + v, MemType: plan.F64, MemShape: mem,
			FileType: plan.F64, FileShape: shape, Selection: sel}
		b.op(plan.Read, fields+"/"+r, !p.C.Independent).Transfer = t
	}
	return nil
}
