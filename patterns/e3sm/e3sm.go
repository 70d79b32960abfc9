package e3sm

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Pattern plans E3SM-IO's canonical HDF5 output (and its read-back) for the F, G or I
// case. Steps are records: the files of the case are written one after the other, each
// record of each file being one step (see doc.go).
type Pattern struct {
	patterns.Base[Config]
	// Map is the map file's decomposition, nil for a synthesized map (made per rank count).
	Map *Map

	mu    sync.Mutex
	hists map[int][]*History // by map processes (synthesized maps differ per rank count)
	maps  map[int]*Map
	// sels shares selections between plans (the files and steps of a phase write the
	// same decompositions): the fixed-size variables' and one record's.
	sels    map[selKey]cachedSel
	selsRec int
}

// selKey identifies a selection: a decomposition of a map, a record (-1: fixed-size
// variables), the I/O rank and the number of I/O ranks.
type selKey struct {
	m                       *Map
	decomp, rec, io, ioSize int
}

// selection returns the selection and element count of decomposition decomp (1-based)
// for record rec on I/O rank io of ioSize, from the cache when a plan built it already.
func (p *Pattern) selection(m *Map, decomp, rec, io, ioSize int) cachedSel {
	k := selKey{m, decomp, rec, io, ioSize}
	p.mu.Lock()
	c, ok := p.sels[k]
	p.mu.Unlock()
	if ok {
		return c
	}
	var reqs []Request
	if io >= 0 {
		reqs = m.Requests(decomp-1, io, ioSize, p.C.FillMode)
		if p.C.Sorted {
			dims := m.Decomps[decomp-1].Dims
			reqs = SortCoalesce(reqs, int64(dims[len(dims)-1]))
		}
	}
	c.sel, c.n = Selection(reqs, m.Decomps[decomp-1].Dims, rec)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sels == nil {
		p.sels = map[selKey]cachedSel{}
	}
	if rec >= 0 && rec != p.selsRec { // keep one record's selections
		for k := range p.sels {
			if k.rec >= 0 {
				delete(p.sels, k)
			}
		}
		p.selsRec = rec
	}
	p.sels[k] = c
	return c
}

// Factory builds the e3sm pattern; package patterns/all registers it.
var Factory = patterns.Define(patterns.Def[Config, *Pattern]{Name: "e3sm", Options: Options, Config: FromValues, Phases: patterns.WriteRead,
	Summary: "E3SM-IO F/G/I history files in the canonical HDF5 layout: hundreds of variables decomposed by real or synthesized maps",
	Init:    (*Pattern).setUp})

// New builds the pattern from parsed options (Factory.New), reading the map file when one
// is given.
func New(v *options.Values) (patterns.Pattern, error) { return Factory.New(v) }

// setUp makes the pattern's caches and reads the map file when one is given.
func (p *Pattern) setUp(v *options.Values) error {
	p.hists, p.maps = map[int][]*History{}, map[int]*Map{}
	if c := p.C; c.MapPath != "" {
		m, err := LoadMap(c.MapPath)
		if err != nil {
			return &options.Error{Table: "e3sm", Key: "map", Value: c.MapPath, Reason: err.Error()}
		}
		mc, err := m.Case()
		if err != nil {
			return &options.Error{Table: "e3sm", Key: "map", Value: c.MapPath, Reason: err.Error()}
		}
		if c.Case != "" && c.Case != mc {
			return v.Errorf("case", "contradicts map %s, which has %d decompositions (case %s)", c.MapPath, len(m.Decomps), mc)
		}
		p.C.Case, p.Map = mc, m
		// Build the histories once now: a bad map fails at configuration time.
		if _, err := p.histories(m); err != nil {
			return err
		}
	}
	return nil
}

// MPIHints are the hints E3SM-IO's set_info puts in the info object its HDF5 driver passes
// to H5Pset_fapl_mpio for every history file: ROMIO's collective writes and no
// independent I/O, and PnetCDF's variable alignment and in-place byte swap (MPI-IO keeps
// keys it does not know, as HDF5 does: they reach MPI_File_open all the same). Its
// nc_ibuf_size, set only when its estimate of the write buffer exceeds 16 MiB, is left
// out. The map file is read without them, as E3SM-IO reads its decomposition before
// set_info.
func (p *Pattern) MPIHints() map[string]string {
	return map[string]string{"romio_cb_write": "enable", "romio_no_indep_rw": "true",
		"nc_var_align_size": "1", "nc_in_place_swap": "enable"}
}

// fileNames lists the history files written: h0 and/or h1 for F and I, one for G.
func (p *Pattern) fileNames() []string {
	if p.C.Case == "G" {
		return []string{""}
	}
	switch p.C.Files {
	case 0:
		return []string{"h0"}
	case 1:
		return []string{"h1"}
	}
	return []string{"h0", "h1"}
}

// records is the record count of a history file: F h0 and I h1 always 1.
func (p *Pattern) records(hist string) int {
	if (p.C.Case == "F" && hist == "h0") || (p.C.Case == "I" && hist == "h1") {
		return 1
	}
	return p.C.Records
}

// Steps is the total number of records over the files.
func (p *Pattern) Steps() int {
	n := 0
	for _, h := range p.fileNames() {
		n += p.records(h)
	}
	return n
}

// HistoryPath is E3SM-IO's file name of a history file: _h0/_h1 inserted before a .nc,
// .h5, .nc4 or .bp extension (else appended); G uses the path as given.
func HistoryPath(path, hist string) string {
	if hist == "" {
		return path
	}
	ext := filepath.Ext(path)
	switch ext {
	case ".nc", ".h5", ".nc4", ".bp":
		return strings.TrimSuffix(path, ext) + "_" + hist + ext
	}
	return path + "_" + hist
}

// ioRank maps a session rank to its I/O rank and the I/O rank count (stride s), -1 for
// ranks that do no I/O.
func (p *Pattern) ioRank(env patterns.Env) (rank, size int) {
	s := p.C.Stride
	size = (env.Size + s - 1) / s
	if env.Rank%s != 0 {
		return -1, size
	}
	return env.Rank / s, size
}

// MapFor returns the decomposition map the run uses with the given number of I/O ranks.
func (p *Pattern) MapFor(ioSize int) (*Map, error) {
	if p.Map != nil {
		return p.Map, nil
	}
	spec := p.C.Synth
	spec.Case = p.C.Case
	if spec.NProcs == 0 {
		spec.NProcs = ioSize
	}
	return synthesizeCached(spec)
}

// HistoriesOf builds the pattern from option settings and returns its history files at
// ioSize I/O ranks: what bench/ref's reference is given as headers (History.RefHeader).
func HistoriesOf(kv []options.KV, ioSize int) ([]*History, error) {
	v, err := Options.Parse(kv)
	if err != nil {
		return nil, err
	}
	p, err := New(v)
	if err != nil {
		return nil, err
	}
	return p.(*Pattern).Histories(ioSize)
}

// Histories returns the history files (variables, dimensions, attributes) of the run with
// the given number of I/O ranks.
func (p *Pattern) Histories(ioSize int) ([]*History, error) {
	m, err := p.MapFor(ioSize)
	if err != nil {
		return nil, err
	}
	return p.histories(m)
}

func (p *Pattern) histories(m *Map) ([]*History, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if h, ok := p.hists[m.NProcs]; ok && p.maps[m.NProcs] == m {
		return h, nil
	}
	var hs []*History
	for _, name := range p.fileNames() {
		h, err := buildHistory(p.C.Case, name, m, p.C.Float, p.records(name))
		if err != nil {
			return nil, err
		}
		hs = append(hs, h)
	}
	p.hists[m.NProcs], p.maps[m.NProcs] = hs, m
	return hs, nil
}

// locate maps a step to its file and record.
func locate(hs []*History, step int) (file, rec int) {
	for i, h := range hs {
		if step < h.Records {
			return i, step
		}
		step -= h.Records
	}
	return -1, -1
}

// firstStep is the step at which file i's first record is written.
func firstStep(hs []*History, i int) int {
	s := 0
	for _, h := range hs[:i] {
		s += h.Records
	}
	return s
}

// plan is the context of one plan being built.
type rankPlan struct {
	p      *Pattern
	env    patterns.Env
	m      *Map
	hs     []*History
	io     int // I/O rank, -1 if none
	ioSize int
	out    plan.Plan
}

type cachedSel struct {
	sel plan.Selection
	n   uint64
}

func (p *Pattern) newPlan(env patterns.Env) (*rankPlan, error) {
	io, ioSize := p.ioRank(env)
	m, err := p.MapFor(ioSize)
	if err != nil {
		return nil, err
	}
	hs, err := p.histories(m)
	if err != nil {
		return nil, err
	}
	return &rankPlan{p: p, env: env, m: m, hs: hs, io: io, ioSize: ioSize}, nil
}

func path(v *Var) string { return "/" + v.Name }

// fileSpec is E3SM-IO's file access (its HDF5 driver): MPI-IO, libver LATEST, collective
// metadata writes, a 32..128 MiB metadata cache starting at 32 MiB, automatic resizing off.
func fileSpec(read bool) *plan.FileSpec {
	return &plan.FileSpec{Parallel: true, CollMetadataWrite: !read, ReadOnly: read, LibverLatest: true,
		MDCInitialSize: 32 << 20, MDCMinSize: 32 << 20, MDCMaxSize: 128 << 20, MDCEvictions: true}
}

// Begin creates (write) or opens (read) the first history file; the write defines it and
// writes its fixed-size variables.
func (p *Pattern) Begin(ph patterns.Phase, env patterns.Env) (plan.Plan, error) {
	pl, err := p.newPlan(env)
	if err != nil {
		return plan.Plan{}, err
	}
	switch ph {
	case patterns.PhaseWrite:
		pl.createFile(0, 0)
	case patterns.PhaseRead:
		pl.openFile(0, 0)
	default:
		return plan.Plan{}, fmt.Errorf("e3sm: no %s phase", ph)
	}
	return pl.out, nil
}

// Step plans one record: on a file's first record (after the first file) it closes the
// previous file and creates (opens) the next; then it extends and writes (reads) every
// record variable.
func (p *Pattern) Step(ph patterns.Phase, step int, env patterns.Env) (plan.Plan, error) {
	if step < 0 || step >= p.Steps() {
		return plan.Plan{}, fmt.Errorf("e3sm: step %d outside 0..%d", step, p.Steps()-1)
	}
	pl, err := p.newPlan(env)
	if err != nil {
		return plan.Plan{}, err
	}
	f, rec := locate(pl.hs, step)
	if rec == 0 && f > 0 {
		pl.closeFile(f-1, ph)
		if ph == patterns.PhaseWrite {
			pl.createFile(f, step)
		} else {
			pl.openFile(f, step)
		}
	}
	switch ph {
	case patterns.PhaseWrite:
		pl.writeRecord(f, rec, step)
	case patterns.PhaseRead:
		if err := pl.readRecord(f, rec, step); err != nil {
			return plan.Plan{}, err
		}
	default:
		return plan.Plan{}, fmt.Errorf("e3sm: no %s phase", ph)
	}
	return pl.out, nil
}

// End closes the file the last executed step worked on.
func (p *Pattern) End(ph patterns.Phase, steps int, env patterns.Env) (plan.Plan, error) {
	pl, err := p.newPlan(env)
	if err != nil {
		return plan.Plan{}, err
	}
	f := 0
	if steps > 0 {
		f, _ = locate(pl.hs, steps-1)
	}
	pl.closeFile(f, ph)
	return pl.out, nil
}

func (pl *rankPlan) add(op plan.Op) { pl.out.Add(op) }

// createFile creates history file i and defines it (global and -DIM_ attributes, every
// variable with its attributes), at step. The fixed-size variables are written with
// record 0 (writeRecord), as E3SM-IO writes them.
func (pl *rankPlan) createFile(i, step int) {
	h := pl.hs[i]
	file := HistoryPath(pl.env.Path, h.Name)
	pl.add(plan.Op{Kind: plan.CreateFile, Path: file, Collective: true, Step: step, File: fileSpec(false)})
	for j := range h.Globals {
		pl.add(plan.Op{Kind: plan.WriteAttribute, Path: "/", Collective: true, Step: step, Attribute: &h.Globals[j]})
	}
	for _, d := range h.Dims {
		a := DimAttr(d)
		pl.add(plan.Op{Kind: plan.WriteAttribute, Path: "/", Collective: true, Step: step, Attribute: &a})
	}
	for j := range h.Vars {
		v := &h.Vars[j]
		pl.add(plan.Op{Kind: plan.CreateDataset, Path: path(v), Collective: true, Step: step, Dataset: DatasetSpec(v)})
		for k := range v.Attrs {
			pl.add(plan.Op{Kind: plan.WriteAttribute, Path: path(v), Collective: true, Step: step, Attribute: &v.Attrs[k]})
		}
	}
}

// DatasetSpec is a variable's dataset: record variables chunked one record at a time with
// an unlimited first dimension, created empty; fixed-size ones contiguous. As E3SM-IO's
// dcpl: fill value undefined, fill time never, allocation time the default.
func DatasetSpec(v *Var) *plan.DatasetSpec {
	d := &plan.DatasetSpec{Type: v.Type, FillNever: true, FillUndefined: true}
	if !v.Record {
		d.Shape = append([]uint64(nil), v.Shape...)
		return d
	}
	d.Shape = append([]uint64{0}, v.Shape...)
	d.MaxShape = append([]uint64{plan.MaxUnlimited}, v.Shape...)
	d.Chunk = append([]uint64{1}, v.Shape...)
	return d
}

// openFile opens history file i and its datasets and reads its fixed-size variables back.
func (pl *rankPlan) openFile(i, step int) {
	h := pl.hs[i]
	pl.add(plan.Op{Kind: plan.OpenFile, Path: HistoryPath(pl.env.Path, h.Name), Collective: true, Step: step, File: fileSpec(true)})
	for j := range h.Vars {
		pl.add(plan.Op{Kind: plan.OpenDataset, Path: path(&h.Vars[j]), Collective: true, Step: step})
	}
	for j := range h.Vars {
		if v := &h.Vars[j]; !v.Record {
			pl.transfer(plan.Read, v, -1, step, 0)
		}
	}
}

// closeFile closes file i's datasets and the file.
func (pl *rankPlan) closeFile(i int, ph patterns.Phase) {
	h := pl.hs[i]
	for j := range h.Vars {
		pl.add(plan.Op{Kind: plan.CloseDataset, Path: path(&h.Vars[j]), Collective: true})
	}
	pl.add(plan.Op{Kind: plan.CloseFile, Path: HistoryPath(pl.env.Path, h.Name), Collective: true})
}

// writeRecord writes record rec of file i as E3SM-IO's var_wr_case does (since its commit
// cd9d8c7, August 2023, "write fixed-size variables before record variables"): with
// record 0 first every fixed-size variable, in definition order; then every record
// dataset is extended to rec+1 records, in definition order (expand_rec_size), and every
// record variable is written in definition order. E3SM-IO's HDF5 driver issues no
// H5Fflush (its wait is empty); flush_file adds one per record (y=1) as its log-VOL
// driver's wait does. Each write's buffer sits where E3SM-IO's pointer into its one write
// buffer stands (buffers.go).
func (pl *rankPlan) writeRecord(i, rec, step int) {
	h := pl.hs[i]
	w := pl.offsets(i)
	if rec == 0 {
		for j := range h.Vars {
			if v := &h.Vars[j]; !v.Record {
				pl.transfer(plan.Write, v, -1, step, w.bufferOffset(v, j, -1))
			}
		}
	}
	for j := range h.Vars {
		v := &h.Vars[j]
		if !v.Record {
			continue
		}
		ext := append([]uint64{uint64(rec + 1)}, v.Shape...)
		pl.add(plan.Op{Kind: plan.ExtendDataset, Path: path(v), Collective: true, Step: step, Dataset: &plan.DatasetSpec{Shape: ext}})
	}
	for j := range h.Vars {
		if v := &h.Vars[j]; v.Record {
			pl.transfer(plan.Write, v, rec, step, w.bufferOffset(v, j, rec))
		}
	}
	if pl.p.C.FlushFile && pl.p.C.Flush == 1 {
		pl.add(plan.Op{Kind: plan.FlushFile, Path: HistoryPath(pl.env.Path, h.Name), Collective: true, Step: step, File: &plan.FileSpec{}})
	}
}

// readRecord reads record rec of every record variable of file i.
func (pl *rankPlan) readRecord(i, rec, step int) error {
	h := pl.hs[i]
	for j := range h.Vars {
		if v := &h.Vars[j]; v.Record {
			pl.transfer(plan.Read, v, rec, step, 0)
		}
	}
	return nil
}

// transfer adds the write or read of variable v (record rec, or the whole fixed-size
// variable when rec < 0). Partitioned variables: collectively on every rank, with the
// rank's union of request hyperslabs (an empty selection without requests). The others
// are written as E3SM-IO's put_vara writes them: by rank 0 alone, an independent
// H5Dwrite of the block (whole variable or one record) with a memory space of the
// block's shape; the other ranks make no call. Reads of them stay collective, the data
// on rank 0 and an empty selection elsewhere. A write's buffer starts bufOff bytes past a
// page boundary, where E3SM-IO's pointer into its one write buffer stands (buffers.go).
func (pl *rankPlan) transfer(kind plan.OpKind, v *Var, rec, step, bufOff int) {
	t := &plan.Transfer{Variable: v.Name, MemType: v.Type, FileType: v.Type, BufferOffset: bufOff}
	prefix := "w:"
	if kind == plan.Read {
		prefix = "r:"
	}
	t.Buffer = prefix + v.Name
	t.FileShape = append([]uint64(nil), v.Shape...)
	if rec >= 0 {
		t.FileShape = append([]uint64{uint64(rec + 1)}, v.Shape...)
	}
	op := plan.Op{Kind: kind, Path: path(v), Step: step, Transfer: t, Collective: true}
	if v.Decomp == 0 {
		if pl.env.Rank != 0 {
			if kind == plan.Write {
				return
			}
			t.Selection, t.MemShape = plan.None(), []uint64{1}
			pl.add(op)
			return
		}
		// The whole variable, or one record of it.
		start := make([]uint64, len(t.FileShape))
		ext := append([]uint64(nil), t.FileShape...)
		if rec >= 0 {
			start[0], ext[0] = uint64(rec), 1
		}
		if len(ext) == 0 {
			t.Selection = plan.All(nil)
		} else {
			t.Selection = plan.Selection{Blocks: []plan.Hyperslab{plan.Block(start, ext)}}
		}
		if kind == plan.Write {
			op.Collective = false
			t.MemShape = ext
		} else {
			t.MemShape = []uint64{plan.Product(ext)}
		}
		if len(ext) == 0 {
			t.MemShape = nil
		}
		pl.add(op)
		return
	}
	c := pl.p.selection(pl.m, v.Decomp, rec, pl.io, pl.ioSize)
	n := c.n
	t.Selection = c.sel
	t.MemShape = []uint64{n}
	if n == 0 {
		t.MemShape = []uint64{1}
	}
	pl.add(op)
}

// FilePath is the first file a phase works on (the h0 or h1 history file of F and I, the
// path itself for G); the session checks it exists before a read.
func (p *Pattern) FilePath(env patterns.Env) string {
	return HistoryPath(env.Path, p.fileNames()[0])
}
