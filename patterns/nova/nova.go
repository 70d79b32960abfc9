package nova

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Steps of the concatenation (the read phase).
const (
	StepInputs = iota // open the inputs and every dataset (its metadata), close the empty ones
	StepCreate        // create the output file, its groups and datasets
	StepWrite         // per non-empty dataset: read its pieces from the inputs, write it collectively
	StepClose         // close the inputs, then the output
	concatSteps
)

// fixedMDC is ph5concat's output metadata cache: 128 MiB, no resizing.
const fixedMDC = 128 << 20

// Pattern synthesizes NOvA-like input files (the write phase) and concatenates them into
// one file as ph5concat does (the read phase).
type Pattern struct {
	patterns.Base[Config]

	mu      sync.Mutex
	schemas map[uint64]*Schema // by seed
}

// Factory builds the nova pattern; package patterns/all registers it. Its phases are write
// (generate the inputs) and read (concatenate them).
var Factory = patterns.Define(patterns.Def[Config, *Pattern]{Name: "nova", Options: Options, Config: FromValues, Phases: patterns.WriteRead,
	Summary: "NOvA HEP dataset concatenation (ph5concat): writes per-rank input files of one schema (thousands of mostly empty, gzip-6 chunked datasets), then concatenates them into one file with collective writes; its own time breakdown",
	Init: func(p *Pattern, _ *options.Values) error {
		p.schemas = map[uint64]*Schema{}
		return nil
	}})

// Steps is the write phase's number of steps on one rank.
func (p *Pattern) Steps() int { return p.PhaseSteps(patterns.PhaseWrite, 1) }

// PhaseSteps: the write phase has a step per round of files (rank r writes files r, r +
// P, ...); the concatenation has its four steps (inputs, create, write, close).
func (p *Pattern) PhaseSteps(ph patterns.Phase, ranks int) int {
	if ph == patterns.PhaseWrite {
		return (p.C.Files + ranks - 1) / ranks
	}
	return concatSteps
}

// Schema returns the synthesized schema and row counts for a seed.
func (p *Pattern) Schema(seed uint64) *Schema {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.schemas[seed]
	if !ok {
		s = NewSchema(p.C, seed)
		p.schemas[seed] = s
	}
	return s
}

// InputName is input file f's path in the data directory dir.
func InputName(dir string, f int) string { return filepath.Join(dir, fmt.Sprintf("nova_%05d.h5", f)) }

// Inputs lists every input file in the data directory dir, in concatenation order.
func (c Config) Inputs(dir string) []string {
	out := make([]string, c.Files)
	for f := range out {
		out[f] = InputName(dir, f)
	}
	return out
}

// Block is the contiguous block of files [lo, hi) rank concatenates: the files spread
// evenly, in order, so the ranks' rows follow one another in the output.
func (c Config) Block(rank, size int) (lo, hi int) {
	return rank * c.Files / size, (rank + 1) * c.Files / size
}

// Begin plans nothing: each step opens what it uses.
func (p *Pattern) Begin(ph patterns.Phase, env patterns.Env) (plan.Plan, error) {
	return plan.Plan{}, nil
}

// End plans nothing.
func (p *Pattern) End(ph patterns.Phase, steps int, env patterns.Env) (plan.Plan, error) {
	return plan.Plan{}, nil
}

// Step plans one step: a generated file, or a step of the concatenation.
func (p *Pattern) Step(ph patterns.Phase, step int, env patterns.Env) (plan.Plan, error) {
	s := p.Schema(env.Seed)
	if ph == patterns.PhaseWrite {
		f := step*env.Size + env.Rank
		if f >= p.C.Files {
			return plan.Plan{}, nil
		}
		return p.generate(s, f, step, env), nil
	}
	switch step {
	case StepInputs:
		return p.readInputs(s, env), nil
	case StepCreate:
		return p.createOutput(s, env), nil
	case StepWrite:
		return p.writeOutput(s, env), nil
	case StepClose: // ph5concat closes the inputs, then the output
		var pl plan.Plan
		lo, hi := p.inputFiles(env)
		for f := lo; f < hi; f++ {
			pl.Add(plan.Op{Kind: plan.CloseFile, Path: InputName(env.Path, f), Step: step})
		}
		pl.Add(plan.Op{Kind: plan.CloseFile, Path: p.outPath(env), Step: step, Collective: true})
		return pl, nil
	}
	return plan.Plan{}, fmt.Errorf("nova: concatenation step %d outside 0..%d", step, concatSteps-1)
}

func (p *Pattern) outPath(env patterns.Env) string { return filepath.Join(env.Path, p.C.Output) }

// path is the absolute path of column d of table g.
func (s *Schema) path(g, d int) string {
	return "/" + s.Tables[g].Name + "/" + s.Tables[g].Columns[d].Name
}

// variable names a column's data in reports and mismatches.
func (s *Schema) variable(g, d int) string {
	return s.Tables[g].Name + "/" + s.Tables[g].Columns[d].Name
}

// generate writes input file f as the NOvA files are: every table a group, every column a
// rows x width dataset, extensible in rows, chunked by 128 rows and gzipped at level 6,
// empty or not.
func (p *Pattern) generate(s *Schema, f, step int, env patterns.Env) plan.Plan {
	path := InputName(env.Path, f)
	var pl plan.Plan
	pl.Add(plan.Op{Kind: plan.CreateFile, Path: path, Step: step, File: &plan.FileSpec{MakeDirs: true}})
	for g, t := range s.Tables {
		pl.Add(plan.Op{Kind: plan.CreateGroup, Path: "/" + t.Name, Step: step})
		rows := s.Rows[f][g]
		for d, c := range t.Columns {
			shape := []uint64{rows, c.Width}
			pl.Add(plan.Op{Kind: plan.CreateDataset, Path: s.path(g, d), Step: step, Dataset: inputSpec(c, rows)})
			if rows > 0 {
				pl.Add(plan.Op{Kind: plan.Write, Path: s.path(g, d), Step: step, Transfer: &plan.Transfer{
					Variable: s.variable(g, d), Buffer: "column", MemType: c.Type, MemShape: shape,
					FileType: c.Type, FileShape: shape, Selection: plan.All(shape), Data: s.Piece(f, g, d)}})
			}
			pl.Add(plan.Op{Kind: plan.CloseDataset, Path: s.path(g, d), Step: step})
		}
		pl.Add(plan.Op{Kind: plan.CloseGroup, Path: "/" + t.Name, Step: step})
	}
	pl.Add(plan.Op{Kind: plan.CloseFile, Path: path, Step: step})
	return pl
}

// inputSpec is the creation of an input column of rows rows.
func inputSpec(c Column, rows uint64) *plan.DatasetSpec {
	return &plan.DatasetSpec{Type: c.Type, Shape: []uint64{rows, c.Width}, MaxShape: []uint64{plan.MaxUnlimited, c.Width},
		Chunk: []uint64{InputChunkRows, c.Width}, Deflate: InputDeflate}
}

// written lists input file f's datasets as generate creates them, for the layouts that
// keep no metadata in the file (plan.FileSpec.Written): the rank that reads a file is
// seldom the one that wrote it.
// Columns of one type, width and row count share one creation (most are empty: a
// concatenation of many files of thousands of datasets would otherwise hold a creation
// per dataset per file).
func (s *Schema) written(f int) []plan.WrittenDataset {
	type key struct {
		class plan.Class
		size  int
		width uint64
		rows  uint64
	}
	specs := map[key]*plan.DatasetSpec{}
	var out []plan.WrittenDataset
	for g, t := range s.Tables {
		for d, c := range t.Columns {
			k := key{c.Type.Class, c.Type.Size, c.Width, s.Rows[f][g]}
			if specs[k] == nil {
				specs[k] = inputSpec(c, k.rows)
			}
			out = append(out, plan.WrittenDataset{Path: s.path(g, d), Dataset: specs[k]})
		}
	}
	return out
}

// mine reports whether this rank reads and supplies dataset k (in schema order) under
// the dataset partitioning.
func mine(k int, env patterns.Env) bool { return k%env.Size == env.Rank }

// readInputs is the concatenation's first step (ph5concat's construct_metadata): each
// input file of this rank is opened (read-only, sec2 or core), every dataset opened to
// learn its type and size and the empty ones closed at once; the files and their
// non-empty datasets stay open for the write step's reads. Under the dataset
// partitioning the rank opens every file and the datasets it handles.
func (p *Pattern) readInputs(s *Schema, env patterns.Env) plan.Plan {
	lo, hi := p.inputFiles(env)
	var pl plan.Plan
	for f := lo; f < hi; f++ {
		pl.Add(plan.Op{Kind: plan.OpenFile, Path: InputName(env.Path, f), Step: StepInputs, File: &plan.FileSpec{ReadOnly: true, Tuning: plan.FileTuning{Core: p.C.Core}, Written: s.written(f)}})
		k := 0
		for g, t := range s.Tables {
			for d := range t.Columns {
				if !p.C.DatasetSplit || mine(k, env) {
					pl.Add(plan.Op{Kind: plan.OpenDataset, Path: s.path(g, d), Step: StepInputs})
					if s.Rows[f][g] == 0 {
						pl.Add(plan.Op{Kind: plan.CloseDataset, Path: s.path(g, d), Step: StepInputs})
					}
				}
				k++
			}
		}
	}
	return pl
}

// inputFiles are the input files [lo, hi) this rank opens: its block, or every file under
// the dataset partitioning.
func (p *Pattern) inputFiles(env patterns.Env) (lo, hi int) {
	if p.C.DatasetSplit {
		return 0, p.C.Files
	}
	return p.C.Block(env.Rank, env.Size)
}

// locate returns the table and column of dataset k in schema order.
func (s *Schema) locate(k int) (g, d int) {
	for g, t := range s.Tables {
		if k < len(t.Columns) {
			return g, k
		}
		k -= len(t.Columns)
	}
	return -1, -1
}

// outFile is the output file's access: MPI-IO with collective metadata reads and writes
// (ph5concat's file_create), the metadata cache and block size configured.
func (c Config) outFile() *plan.FileSpec {
	fs := &plan.FileSpec{Parallel: true, CollMetadataOps: true, CollMetadataWrite: true, MetaBlockSize: c.MetaBlock}
	if c.FixedMDC {
		fs.MDCInitialSize, fs.MDCMinSize, fs.MDCMaxSize, fs.MDCEvictions = fixedMDC, fixedMDC, fixedMDC, true
	}
	return fs
}

// OutputSpec is the creation of output dataset (g, d) with total rows: zero-size datasets
// in the configured layout; the others chunked (chunk bytes / row bytes rows, at most
// total, or the inputs' 128 rows), gzipped at the configured level (-1: the inputs'),
// with the configured fill time.
func (c Config) OutputSpec(col Column, total uint64) *plan.DatasetSpec {
	shape := []uint64{total, col.Width}
	rowBytes := col.Width * uint64(col.Type.Size)
	chunk := uint64(InputChunkRows)
	if c.ChunkBytes > 0 {
		chunk = max(1, c.ChunkBytes/rowBytes)
	}
	d := &plan.DatasetSpec{Type: col.Type, Shape: shape}
	if total == 0 {
		switch c.EmptyLayout {
		case EmptyChunked:
			d.MaxShape, d.Chunk = []uint64{plan.MaxUnlimited, col.Width}, []uint64{chunk, col.Width}
		case EmptyCompact:
			d.Compact = true
		}
		return d
	}
	d.Chunk = []uint64{min(chunk, total), col.Width}
	d.Deflate = c.Deflate
	if d.Deflate < 0 {
		d.Deflate = InputDeflate
	}
	d.FillNever = c.FillTime == "never"
	if c.FillTime == "alloc" {
		d.Tuning.FillTime = plan.FillTimeAlloc
	}
	return d
}

// createOutput is ph5concat's file_create: all ranks create the output, its groups and
// its datasets with their total sizes (the sum of the inputs', which ph5concat gets with
// MPI_Allreduce and every rank computes here from the seed), closing the zero-size ones
// at once; with create=rank0, rank 0 creates them alone through sec2, flushes and closes,
// then all ranks open the file and its non-empty datasets.
func (p *Pattern) createOutput(s *Schema, env patterns.Env) plan.Plan {
	c := &p.C
	out := p.outPath(env)
	var pl plan.Plan
	st := StepCreate
	if c.Rank0Create {
		if env.Rank == 0 {
			pl.Add(plan.Op{Kind: plan.CreateFile, Path: out, Step: st, File: &plan.FileSpec{MetaBlockSize: c.MetaBlock}})
			for g, t := range s.Tables {
				pl.Add(plan.Op{Kind: plan.CreateGroup, Path: "/" + t.Name, Step: st})
				total := s.Total(g, 0, c.Files)
				for d, col := range t.Columns {
					pl.Add(plan.Op{Kind: plan.CreateDataset, Path: s.path(g, d), Step: st, Dataset: c.OutputSpec(col, total)},
						plan.Op{Kind: plan.CloseDataset, Path: s.path(g, d), Step: st})
				}
				pl.Add(plan.Op{Kind: plan.CloseGroup, Path: "/" + t.Name, Step: st})
			}
			pl.Add(plan.Op{Kind: plan.FlushFile, Path: out, Step: st, File: &plan.FileSpec{FlushLocal: true}},
				plan.Op{Kind: plan.CloseFile, Path: out, Step: st})
		}
		// The parallel open is collective (MPI_File_open): no rank opens before rank 0,
		// which has closed the file, joins it (ph5concat adds an MPI_Barrier).
		pl.Add(plan.Op{Kind: plan.OpenFile, Path: out, Step: st, Collective: true, File: c.outFile()})
		for g, t := range s.Tables {
			if s.Total(g, 0, c.Files) == 0 {
				continue
			}
			pl.Add(plan.Op{Kind: plan.OpenGroup, Path: "/" + t.Name, Step: st, Collective: true})
			for d := range t.Columns {
				pl.Add(plan.Op{Kind: plan.OpenDataset, Path: s.path(g, d), Step: st, Collective: true})
			}
			pl.Add(plan.Op{Kind: plan.CloseGroup, Path: "/" + t.Name, Step: st, Collective: true})
		}
		return pl
	}
	pl.Add(plan.Op{Kind: plan.CreateFile, Path: out, Step: st, Collective: true, File: c.outFile()})
	for g, t := range s.Tables {
		pl.Add(plan.Op{Kind: plan.CreateGroup, Path: "/" + t.Name, Step: st, Collective: true})
		total := s.Total(g, 0, c.Files)
		for d, col := range t.Columns {
			pl.Add(plan.Op{Kind: plan.CreateDataset, Path: s.path(g, d), Step: st, Collective: true, Dataset: c.OutputSpec(col, total)})
			if total == 0 {
				pl.Add(plan.Op{Kind: plan.CloseDataset, Path: s.path(g, d), Step: st, Collective: true})
			}
		}
		pl.Add(plan.Op{Kind: plan.CloseGroup, Path: "/" + t.Name, Step: st, Collective: true})
	}
	return pl
}

// writeOutput is ph5concat's concat_datasets (its default I/O strategy): the non-empty
// datasets one after another, the 1-D ones first, then the 2-D ones; for each, the rank
// reads its piece from each of its files that has rows (the input kept open since the
// first step: a file selection, no reopening) and closes that input dataset, then writes
// the rows with one collective H5Dwrite, its files' pieces one after another at the rows
// the ranks before it hold (ph5concat's MPI_Exscan), and closes the output dataset.
// Under the dataset partitioning the dataset's rank reads and writes all its rows and the
// others join the write with empty selections.
func (p *Pattern) writeOutput(s *Schema, env patterns.Env) plan.Plan {
	c := &p.C
	out := p.outPath(env)
	var pl plan.Plan
	cur := out // the output, created or opened last, is the current file
	use := func(path string) {
		if cur != path {
			pl.Add(plan.Op{Kind: plan.SelectFile, Path: path, Step: StepWrite})
			cur = path
		}
	}
	for _, wide := range []bool{false, true} {
		k := -1
		for g, t := range s.Tables {
			total := s.Total(g, 0, c.Files)
			for d, col := range t.Columns {
				k++
				if total == 0 || (col.Width > 1) != wide {
					continue
				}
				flo, fhi := c.Block(env.Rank, env.Size)
				if c.DatasetSplit {
					flo, fhi = 0, 0
					if mine(k, env) {
						fhi = c.Files
					}
				}
				off, n := s.Total(g, 0, flo), s.Total(g, flo, fhi)
				fileShape := []uint64{total, col.Width}
				tr := &plan.Transfer{Variable: s.variable(g, d), Buffer: "rows", MemType: col.Type, MemShape: []uint64{n, col.Width},
					FileType: col.Type, FileShape: fileShape, Selection: plan.None()}
				if n > 0 {
					tr.Selection = plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{off, 0}, []uint64{n, col.Width})}}
					tr.Data = make([]byte, 0, n*col.Width*uint64(col.Type.Size))
				}
				for f := flo; f < fhi; f++ {
					rows := s.Rows[f][g]
					if rows == 0 {
						continue
					}
					piece := s.Piece(f, g, d)
					tr.Data = append(tr.Data, piece...)
					shape := []uint64{rows, col.Width}
					use(InputName(env.Path, f))
					pl.Add(plan.Op{Kind: plan.Read, Path: s.path(g, d), Step: StepWrite, Transfer: &plan.Transfer{
						Variable: s.variable(g, d), Buffer: "piece", MemType: col.Type, MemShape: shape,
						FileType: col.Type, FileShape: shape, Selection: plan.All(shape), Data: piece}},
						plan.Op{Kind: plan.CloseDataset, Path: s.path(g, d), Step: StepWrite})
				}
				use(out)
				pl.Add(plan.Op{Kind: plan.Write, Path: s.path(g, d), Step: StepWrite, Collective: true, Transfer: tr},
					plan.Op{Kind: plan.CloseDataset, Path: s.path(g, d), Step: StepWrite, Collective: true})
			}
		}
	}
	return pl
}
