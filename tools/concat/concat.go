package concat

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/plan"
)

// fixedMDC is the metadata cache size of Options.FixedMDC (the NOvA study's fixed cache).
const fixedMDC = 128 << 20

// defaultChunkBytes is the chunk size given to datasets that need a chunk shape the inputs
// do not provide (empty datasets laid out chunked, contiguous inputs compressed): 1 MiB,
// the best 1-D size of the NOvA study.
const defaultChunkBytes = 1 << 20

// keepOpen bounds the input datasets a rank leaves open from the schema check to the data
// pass: HDF5 holds about 20 KiB for each open dataset (measured with 1.10.8 on the bench's
// inputs), so at most about 330 MiB; the pieces beyond are opened again when read.
const keepOpen = 16384

// holdHeap is the freed C heap a run keeps (h5.HoldHeap): measured on 8 of the bench's
// inputs at 1 rank, glibc's default returned and faulted in again about 50,000 pages
// (of 140,000) per run.
const holdHeap = 256 << 20

// inputMDC is the metadata cache of every input, fixed: a rank holds all its inputs open
// (as ph5_concat does), and HDF5's default cache (2 MiB accounted) takes about 20 MiB of
// memory per input once every object of it was opened. Each object is read about once, so
// a small cache loses little: on 8 of the bench's inputs at 1 rank, 256 KiB caches halved
// the memory faulted in (66,000 pages against 117,000) for 12,000 more reads of the file
// and 1 % fewer instructions.
const inputMDC = 256 << 10

// afterCreate, when set (by tests), sees each rank's job once the output is created.
var afterCreate func(j *job)

// column is one output dataset: an input dataset, or a group's partition key.
type column struct {
	path  string
	ref   int    // index in the reference schema: the dataset, or the key's template
	group string // the key's group; "" for input datasets
	// members are the reference indices of the datasets a key's rows follow.
	members  []int
	rowBytes uint64
	total    uint64 // rows in the output
	offset   uint64 // this rank's first output row (file partition)
	owner    int    // the rank reading it (dataset partition)
}

// job is one rank's state of a concatenation.
type job struct {
	comm   mpi.Comm
	fcomm  int
	rank   int
	size   int
	inputs []string
	output string
	o      Options
	lo, hi int     // this rank's block of inputs
	in     []h5.ID // open inputs by index (0: not open)
	ref    []object
	// children[g] is the number of groups and datasets in group g of the reference.
	children map[string]int
	cols     []column
	rows     [][]uint64 // rows[i-lo][c]: rows of column c in own input i
	// kept[i-lo][c] is own input i's dataset of column c, left open by the schema check
	// for the data pass (non-empty datasets under the file partition; else 0 or nil).
	kept    [][]h5.ID
	nkept   int // datasets kept open so far (at most keepOpen)
	out     h5.ID
	outDS   []h5.ID
	created bool // the output exists because of this run
	scratch []byte
	b       Breakdown
}

// Run concatenates inputs into output on the ranks of the communicator with Fortran handle
// fcomm (collective: every rank passes the same arguments). Every output dataset holds the
// rows of the inputs' dataset of the same path, in the inputs' order. The inputs must share
// one schema, checked before the output is created; on failure the output is removed and
// every rank returns the same error. The Breakdown holds the maximum over ranks of each
// step's time. Run keeps up to 256 MiB of freed C heap in the process (h5.HoldHeap).
func Run(fcomm int, inputs []string, output string, o Options) (Breakdown, error) {
	if err := o.validate(); err != nil {
		return Breakdown{}, err
	}
	if err := h5.HoldHeap(holdHeap); err != nil {
		return Breakdown{}, err
	}
	comm, err := mpi.FromFortran(fcomm)
	if err != nil {
		return Breakdown{}, err
	}
	if len(inputs) == 0 {
		return Breakdown{}, errors.New("concat: no input files")
	}
	j := &job{comm: comm, fcomm: fcomm, rank: comm.Rank(), size: comm.Size(), inputs: inputs, output: output, o: o}
	j.lo, j.hi = j.block(j.rank)
	j.in = make([]h5.ID, len(inputs))
	j.b.Options = map[string]string{}
	for _, kv := range o.KVs() {
		j.b.Options[kv.Key] = kv.Value
	}
	t0 := mpi.Wtime()
	err = j.run()
	j.b.Total = mpi.Wtime() - t0
	if cerr := j.closeAll(); err == nil {
		err = j.agree(cerr, int64(len(inputs)))
	}
	if err != nil {
		if j.created && j.rank == 0 {
			os.Remove(output)
		}
		return Breakdown{}, err
	}
	return j.b, j.reduce()
}

// block returns the inputs [lo, hi) of rank r: F files spread evenly over P ranks.
func (j *job) block(r int) (lo, hi int) {
	f := len(j.inputs)
	return r * f / j.size, (r + 1) * f / j.size
}

// agree turns local outcomes into one error on every rank: that of the rank with the
// smallest key (a failing input's index, so that the first differing file is named), ties
// going to the lower rank; nil when no rank failed.
func (j *job) agree(local error, key int64) error {
	const none = int64(1) << 62
	v := none
	if local != nil {
		v = key*int64(j.size) + int64(j.rank)
	}
	res, err := j.comm.AllreduceInt64([]int64{v}, mpi.OpMin)
	if err != nil {
		return err
	}
	if res[0] == none {
		return nil
	}
	root := int(res[0] % int64(j.size))
	var msg []byte
	if j.rank == root {
		msg = []byte(local.Error())
	}
	if msg, err = j.comm.BcastBytes(msg, root); err != nil {
		return err
	}
	if j.rank == root {
		return local
	}
	return errors.New(string(msg))
}

func (j *job) run() error {
	if err := j.agree(j.checkPaths(), 0); err != nil {
		return err
	}
	t := mpi.Wtime()
	key, err := j.readMetadata()
	if err = j.agree(err, key); err != nil {
		return err
	}
	if err := j.sizes(); err != nil {
		return err
	}
	j.b.MetadataRead = mpi.Wtime() - t
	t = mpi.Wtime()
	if err := j.agree(j.create(), int64(len(j.inputs))); err != nil {
		return err
	}
	j.b.Create = mpi.Wtime() - t
	if afterCreate != nil {
		afterCreate(j)
	}
	if err := j.agree(j.copyData(), int64(len(j.inputs))); err != nil {
		return err
	}
	t = mpi.Wtime()
	err = j.closeAll()
	j.b.Close = mpi.Wtime() - t
	return j.agree(err, int64(len(j.inputs)))
}

// checkPaths refuses, on rank 0, an existing output (unless Overwrite) or one that is also
// an input, before anything is read.
func (j *job) checkPaths() error {
	if j.rank != 0 {
		return nil
	}
	outAbs, _ := filepath.Abs(j.output)
	for _, in := range j.inputs {
		if a, _ := filepath.Abs(in); a == outAbs {
			return fmt.Errorf("concat: output %s is also an input", j.output)
		}
	}
	if _, err := os.Stat(j.output); err == nil && !j.o.Overwrite {
		return fmt.Errorf("concat: output %s exists (-f replaces it)", j.output)
	}
	if st, err := os.Stat(filepath.Dir(j.output)); err != nil || !st.IsDir() {
		return fmt.Errorf("concat: output directory %s does not exist", filepath.Dir(j.output))
	}
	return nil
}

// openInput opens input i read-only with the chosen driver, once.
func (j *job) openInput(i int) (h5.ID, error) {
	if j.in[i] > 0 {
		return j.in[i], nil
	}
	name := j.inputs[i]
	st, err := os.Stat(name)
	if err != nil {
		return 0, fmt.Errorf("concat: input %s: %w", name, errors.Unwrap(err))
	}
	if st.IsDir() {
		return 0, fmt.Errorf("concat: input %s is a directory", name)
	}
	f, err := h5.OpenFile(name, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true, Tuning: plan.FileTuning{Core: j.o.CoreInputs},
		MDCInitialSize: inputMDC, MDCMinSize: inputMDC, MDCMaxSize: inputMDC, MDCEvictions: true}})
	if err != nil {
		return 0, fmt.Errorf("concat: input %s is not a readable HDF5 file: %w", name, err)
	}
	j.in[i] = f
	return f, nil
}

// readMetadata reads the first input's schema (every rank: it is the template of the
// output) and checks this rank's inputs against it, recording their row counts. It returns
// the index of the input an error is about, for agree.
func (j *job) readMetadata() (int64, error) {
	f, err := j.openInput(0)
	if err != nil {
		return 0, err
	}
	if j.ref, err = readSchema(f); err != nil {
		return 0, fmt.Errorf("concat: input %s: %w", j.inputs[0], err)
	}
	if err := checkReference(j.ref, j.o.PartitionKey); err != nil {
		return 0, fmt.Errorf("concat: input %s: %w", j.inputs[0], err)
	}
	j.columns()
	j.children = map[string]int{}
	for _, o := range j.ref[1:] {
		j.children[path.Dir(o.path)]++
	}
	for i := j.lo; i < j.hi; i++ {
		f, err := j.openInput(i)
		if err != nil {
			return int64(i), err
		}
		got, open := j.ref, []h5.ID(nil)
		if i != 0 {
			if got, open, err = j.checkInput(i, f); err != nil {
				return int64(i), err
			}
		}
		order := inOrder(j.ref, got)
		rows, err := j.fileRows(got, order)
		j.rows = append(j.rows, rows)
		j.kept = append(j.kept, nil)
		if open != nil {
			kept := make([]h5.ID, len(j.cols))
			for c, col := range j.cols {
				if col.group == "" {
					kept[c], open[order[col.ref]] = open[order[col.ref]], 0
				}
			}
			j.kept[len(j.kept)-1] = kept
			closeDatasets(open) // none: every dataset is a column
		}
		if err != nil {
			return int64(i), fmt.Errorf("concat: input %s: %w", j.inputs[i], err)
		}
		if j.o.ByDataset && !j.o.CoreInputs && i != 0 {
			// The dataset partition reopens inputs as their datasets' owners need them:
			// keep no more files open than that needs.
			if err := h5.CloseFile(f); err != nil {
				return int64(i), err
			}
			j.in[i] = 0
		}
	}
	return 0, nil
}

// checkInput checks input i (not the first), open as f, against the reference, cheaply
// (probeSchema), and returns its schema and the datasets it leaves open for the data pass.
// On a difference it reads the input's full description to name the first difference as
// compareSchema does with the types described.
func (j *job) checkInput(i int, f h5.ID) ([]object, []h5.ID, error) {
	budget := keepOpen - j.nkept
	if j.o.ByDataset {
		budget = 0 // the dataset partition reads other inputs than the rank checks
	}
	got, open, err := probeSchema(f, j.ref, j.children, budget)
	if err != nil {
		return nil, nil, fmt.Errorf("concat: input %s: %w", j.inputs[i], err)
	}
	diff := compareSchema(j.ref, got)
	if diff == nil {
		for _, d := range open {
			if d > 0 {
				j.nkept++
			}
		}
		return got, open, nil
	}
	closeDatasets(open)
	full, err := readSchema(f)
	if err != nil {
		return nil, nil, fmt.Errorf("concat: input %s: %w", j.inputs[i], err)
	}
	if d := compareSchema(j.ref, full); d != nil {
		diff = d // the same difference, described
	}
	return nil, nil, fmt.Errorf("concat: input %s differs from the first input %s: %w", j.inputs[i], j.inputs[0], diff)
}

// inOrder returns for each object of the reference the index of the object of the same
// path in got (compareSchema found the same paths).
func inOrder(ref, got []object) []int {
	order := make([]int, len(ref))
	var at map[string]int
	for k, r := range ref {
		if k < len(got) && got[k].path == r.path {
			order[k] = k
			continue
		}
		if at == nil {
			at = make(map[string]int, len(got))
			for i, o := range got {
				at[o.path] = i
			}
		}
		order[k] = at[r.path]
	}
	return order
}

// columns lists the output datasets: the reference's datasets, then one partition key per
// group holding datasets.
func (j *job) columns() {
	groups := map[string][]int{}
	var order []string
	for i, o := range j.ref {
		if !o.dataset {
			continue
		}
		size := uint64(o.info.Type.Size)
		for _, d := range o.info.Dims[1:] {
			size *= d
		}
		j.cols = append(j.cols, column{path: o.path, ref: i, rowBytes: size})
		g := path.Dir(o.path)
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], i)
	}
	if !j.o.PartitionKey {
		return
	}
	for _, g := range order {
		m := groups[g]
		j.cols = append(j.cols, column{path: path.Join(g, KeyName), ref: m[0], group: g, members: m, rowBytes: 4})
	}
}

// fileRows returns the rows of every column in one input (schema got, order from inOrder):
// a dataset's first extent, a key's the common first extent of its group's datasets.
func (j *job) fileRows(got []object, order []int) ([]uint64, error) {
	s := func(k int) object { return got[order[k]] } // the input's object of j.ref[k]
	rows := make([]uint64, len(j.cols))
	for c, col := range j.cols {
		if col.group == "" {
			rows[c] = s(col.ref).info.Dims[0]
			continue
		}
		n := s(col.members[0]).info.Dims[0]
		for _, m := range col.members[1:] {
			if d := s(m).info.Dims[0]; d != n {
				return nil, fmt.Errorf("-partition-key: group %s has datasets of different lengths (%s: %d rows, %s: %d)",
					col.group, s(col.members[0]).path, n, s(m).path, d)
			}
		}
		rows[c] = n
	}
	return rows, nil
}

// sizes sums the row counts over ranks: every rank learns each column's total and its own
// offset in it, and under the dataset partition each column's owner.
func (j *job) sizes() error {
	nc := len(j.cols)
	slots := make([]int64, j.size*nc)
	mine := slots[j.rank*nc : (j.rank+1)*nc]
	for _, rows := range j.rows {
		for c, n := range rows {
			mine[c] += int64(n)
		}
	}
	all, err := j.comm.AllreduceInt64(slots, mpi.OpSum)
	if err != nil {
		return err
	}
	for c := range j.cols {
		col := &j.cols[c]
		for r := 0; r < j.size; r++ {
			n := uint64(all[r*nc+c])
			if r < j.rank {
				col.offset += n
			}
			col.total += n
		}
	}
	if j.o.ByDataset {
		j.assignOwners()
	}
	j.count()
	return nil
}

// assignOwners gives each column to one rank, largest first to the least loaded rank
// (ties to the lower rank), the same on every rank.
func (j *job) assignOwners() {
	idx := make([]int, len(j.cols))
	for i := range idx {
		idx[i] = i
	}
	bytes := func(c int) uint64 { return j.cols[c].total * j.cols[c].rowBytes }
	sort.SliceStable(idx, func(a, b int) bool { return bytes(idx[a]) > bytes(idx[b]) })
	load := make([]uint64, j.size)
	for _, c := range idx {
		r := 0
		for k := range load {
			if load[k] < load[r] {
				r = k
			}
		}
		// Each column costs at least one unit so that empty ones spread too.
		load[r] += bytes(c) + 1
		j.cols[c].owner = r
	}
}

// count fills the Breakdown's counts.
func (j *job) count() {
	b := &j.b
	b.Ranks, b.Files = j.size, len(j.inputs)
	for _, o := range j.ref[1:] {
		if !o.dataset {
			b.Groups++
		}
	}
	for _, c := range j.cols {
		if c.group != "" {
			b.Keys++
			continue
		}
		b.Datasets++
		if len(j.ref[c.ref].info.Dims) > 1 {
			b.Datasets2D++
		}
		if c.total == 0 {
			b.Empty++
		}
		b.Rows += c.total
		b.Bytes += c.total * c.rowBytes
	}
}

// access returns the output's file access settings: through MPI-IO with collective
// metadata reads and writes (as ph5_concat opens its output), or serial for rank 0's
// creation.
func (j *job) access(parallel bool) h5.Access {
	a := h5.Access{Comm: j.fcomm, FileSpec: plan.FileSpec{Parallel: parallel, MetaBlockSize: j.o.MetaBlock,
		CollMetadataOps: parallel, CollMetadataWrite: parallel}}
	if j.o.FixedMDC {
		a.MDCInitialSize, a.MDCMinSize, a.MDCMaxSize, a.MDCEvictions = fixedMDC, fixedMDC, fixedMDC, true
	}
	return a
}

// create creates the output and its objects: collectively, or on rank 0 in a serial file
// that every rank then opens through MPI-IO.
func (j *job) create() error {
	if !j.o.RankZeroCreate {
		f, err := h5.CreateFile(j.output, j.access(true))
		if err != nil {
			return err
		}
		j.out, j.created = f, true
		return j.createObjects(true)
	}
	var err error
	if j.rank == 0 {
		err = j.createSerial()
	}
	j.created = true
	if err = j.agree(err, 0); err != nil {
		return err
	}
	f, err := h5.OpenFile(j.output, j.access(true))
	if err != nil {
		return err
	}
	j.out = f
	j.outDS = make([]h5.ID, len(j.cols))
	for c, col := range j.cols {
		if j.outDS[c], err = h5.OpenDataset(f, col.path); err != nil {
			return err
		}
	}
	return nil
}

func (j *job) createSerial() error {
	f, err := h5.CreateFile(j.output, j.access(false))
	if err != nil {
		return err
	}
	j.out = f
	err = j.createObjects(false)
	if cerr := j.closeOutput(); err == nil {
		err = cerr
	}
	return err
}

// createObjects creates the groups, datasets and attributes of the output in the
// reference's order, keeping the datasets open when they are to be written.
func (j *job) createObjects(keep bool) error {
	ref := j.in[0]
	// Objects without attributes (most of NOvA's) are not even opened in the reference.
	if len(j.ref[0].info.Attrs) > 0 {
		if err := h5.CopyAttributes(ref, j.out); err != nil {
			return err
		}
	}
	for _, o := range j.ref[1:] {
		if o.dataset {
			continue
		}
		g, err := h5.CreateGroup(j.out, o.path)
		if err != nil {
			return err
		}
		if len(o.info.Attrs) > 0 {
			var src h5.ID
			if src, err = h5.OpenGroup(ref, o.path); err == nil {
				err = h5.CopyAttributes(src, g)
				h5.CloseGroup(src)
			}
		}
		if cerr := h5.CloseGroup(g); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	j.outDS = make([]h5.ID, len(j.cols))
	for c := range j.cols {
		d, err := j.createColumn(c)
		if err != nil {
			return err
		}
		if keep {
			j.outDS[c] = d
		} else if err := h5.CloseDataset(d); err != nil {
			return err
		}
	}
	return nil
}

// createColumn creates output dataset c from its reference dataset as the options say.
func (j *job) createColumn(c int) (h5.ID, error) {
	col := j.cols[c]
	ri := j.ref[col.ref].info
	tmpl, err := h5.OpenDataset(j.in[0], j.ref[col.ref].path)
	if err != nil {
		return 0, err
	}
	defer h5.CloseDataset(tmpl)
	dims := []uint64{col.total}
	if col.group == "" {
		dims = append(dims, ri.Dims[1:]...)
	}
	ft, _ := plan.ParseFillTime(j.o.FillTime) // Options.check accepted it
	ov := h5.Override{Dims: dims, Deflate: j.o.Deflate, FillTime: ft, Int32: col.group != ""}
	// A chunk holds at most the dataset's rows: HDF5 compresses whole chunks, padding
	// included, and the output never grows.
	chunkRows := func(bytes uint64) []uint64 {
		rows := max(1, bytes/max(col.rowBytes, 1))
		if col.total > 0 {
			rows = min(rows, col.total)
		}
		return append([]uint64{rows}, dims[1:]...)
	}
	switch {
	case col.total == 0:
		ov.Layout = emptyLayouts[j.o.EmptyLayout]
	case j.o.ChunkBytes > 0 || ri.Layout == h5.LayoutChunked || j.o.Deflate > 0:
		ov.Layout = h5.LayoutChunked
	case ri.Layout == h5.LayoutCompact:
		ov.Layout = h5.LayoutContiguous // a compact dataset holds 64 KiB at most
	default:
		ov.Layout = h5.LayoutContiguous
	}
	if ov.Layout == h5.LayoutChunked {
		switch {
		case j.o.ChunkBytes > 0:
			ov.Chunk = chunkRows(j.o.ChunkBytes)
		case ri.Layout != h5.LayoutChunked:
			ov.Chunk = chunkRows(defaultChunkBytes)
		case col.group != "":
			ov.Chunk = []uint64{ri.Chunk[0]} // the key chunks rows as its group's first dataset
		}
	}
	d, err := h5.CreateLike(j.out, col.path, tmpl, ov)
	if err != nil || col.group != "" || len(ri.Attrs) == 0 {
		return d, err
	}
	if err := h5.CopyAttributes(tmpl, d); err != nil {
		h5.CloseDataset(d)
		return 0, err
	}
	return d, nil
}

// copyData writes every column: each rank reads its pieces into one buffer, one input
// after another, then all ranks write collectively at their offsets. A rank whose read
// failed goes on taking part in the collective writes (their data is discarded with the
// output) so that no rank waits forever; the first error is returned.
func (j *job) copyData() error {
	var first error
	for c := range j.cols {
		col := &j.cols[c]
		var n uint64
		var err error
		t := mpi.Wtime()
		if first == nil {
			n, err = j.readColumn(c)
		} else {
			n, err = j.localRows(c), nil
			j.scratch = grow(j.scratch, n*col.rowBytes)
		}
		j.b.DataRead += mpi.Wtime() - t
		if first == nil {
			first = err
		}
		offset := col.offset
		if j.o.ByDataset {
			offset = 0
		}
		t = mpi.Wtime()
		if col.total > 0 { // HDF5 fails a write, even of nothing, to an empty contiguous dataset
			err = h5.WriteRows(j.outDS[c], offset, n, true, j.scratch[:n*col.rowBytes])
		}
		if cerr := h5.CloseDataset(j.outDS[c]); err == nil {
			err = cerr
		}
		j.outDS[c] = 0
		j.b.Write += mpi.Wtime() - t
		if first == nil {
			first = err
		}
	}
	return first
}

// localRows returns the rows this rank writes of column c.
func (j *job) localRows(c int) uint64 {
	col := j.cols[c]
	if j.o.ByDataset {
		if col.owner == j.rank {
			return col.total
		}
		return 0
	}
	n := uint64(0)
	for _, rows := range j.rows {
		n += rows[c]
	}
	return n
}

// readColumn reads this rank's pieces of column c into j.scratch and returns their rows.
func (j *job) readColumn(c int) (uint64, error) {
	col := j.cols[c]
	lo, hi := j.lo, j.hi
	if j.o.ByDataset {
		lo, hi = 0, 0
		if col.owner == j.rank {
			hi = len(j.inputs)
		}
	}
	n := j.localRows(c)
	j.scratch = grow(j.scratch, n*col.rowBytes)
	if col.total == 0 {
		return 0, nil
	}
	pos := uint64(0)
	for i := lo; i < hi; i++ {
		if !j.o.ByDataset && j.rows[i-lo][c] == 0 {
			continue // most NOvA datasets are empty in most inputs: not even opened
		}
		got, err := j.readPiece(c, i, j.scratch[pos*col.rowBytes:])
		if err != nil {
			return n, fmt.Errorf("concat: input %s: %w", j.inputs[i], err)
		}
		pos += got
	}
	if pos != n {
		return n, fmt.Errorf("concat: %s: read %d rows, expected %d (an input changed during the run?)", col.path, pos, n)
	}
	return n, nil
}

// readPiece reads input i's rows of column c to the start of buf and returns their count.
// The rows of the rank's own inputs are known from the schema check, where their datasets
// were left open: only the other inputs' (dataset partition) are opened here, and a key
// column's rows need no dataset at all.
func (j *job) readPiece(c, i int, buf []byte) (_ uint64, err error) {
	col := j.cols[c]
	src := col.path
	if col.group != "" {
		src = j.ref[col.members[0]].path
	}
	var d h5.ID
	var rows uint64
	own := i >= j.lo && i < j.hi && !j.o.ByDataset
	if own {
		rows = j.rows[i-j.lo][c]
		if kept := j.kept[i-j.lo]; kept != nil {
			d, kept[c] = kept[c], 0
		}
	}
	if d == 0 && !(own && col.group != "") {
		f, err := j.openInput(i)
		if err != nil {
			return 0, err
		}
		if d, err = h5.OpenDataset(f, src); err != nil {
			return 0, err
		}
		shape, err := h5.DatasetShape(d)
		if err != nil {
			h5.CloseDataset(d)
			return 0, err
		}
		if len(shape) == 0 {
			h5.CloseDataset(d)
			return 0, fmt.Errorf("dataset %s is scalar", src)
		}
		rows = shape[0]
	}
	if d > 0 {
		defer func() {
			if cerr := h5.CloseDataset(d); err == nil {
				err = cerr
			}
		}()
	}
	size := rows * col.rowBytes
	if size > uint64(len(buf)) {
		return 0, fmt.Errorf("dataset %s has %d rows, more than counted (an input changed during the run?)", src, rows)
	}
	if col.group != "" {
		for k := uint64(0); k < rows; k++ {
			binary.NativeEndian.PutUint32(buf[4*k:], uint32(i))
		}
		return rows, nil
	}
	return rows, h5.ReadAll(d, buf[:size])
}

// grow returns b with length n, reallocated only when its capacity is short.
func grow(b []byte, n uint64) []byte {
	if uint64(cap(b)) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// closeOutput closes the output's open datasets and the file.
func (j *job) closeOutput() error {
	first := closeDatasets(j.outDS)
	if j.out > 0 {
		if err := h5.CloseFile(j.out); first == nil {
			first = err
		}
		j.out = 0
	}
	return first
}

// closeAll closes the output and the open inputs; it can be called again.
func (j *job) closeAll() error {
	first := j.closeOutput()
	for _, kept := range j.kept { // before their files
		if err := closeDatasets(kept); first == nil {
			first = err
		}
	}
	for i, f := range j.in {
		if f > 0 {
			if err := h5.CloseFile(f); first == nil {
				first = err
			}
			j.in[i] = 0
		}
	}
	h5.ReleaseTypeCache()
	return first
}

// emptyLayouts maps the option values to HDF5's layouts.
var emptyLayouts = map[string]h5.Layout{"contiguous": h5.LayoutContiguous, "chunked": h5.LayoutChunked, "compact": h5.LayoutCompact}
