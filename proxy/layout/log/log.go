// Package log is the log-structured layout, modelled on the Log VOL: writes are appended
// to per-rank data logs with an index of (dataset, selection, offset, size); readers
// resolve the index; Replay turns a log file into the canonical file.
package log

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/layout/internal/h5layout"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// The log layout is modelled on the Log VOL (layouts.md 4.5). The plan's groups and
// attributes are created as usual; each dataset becomes an anchor: a dataset with the
// user's name and type, a NULL dataspace and one attribute _anchor (i64: the extent, the
// maximum extent with unlimited as -1, the chunk extent, the deflate level and the fill
// flags: 1 fill time never, 2 fill value undefined; format version 2, docs/layouts.md; readers also accept version 1's
// _dims/_mdims/_chunk/_deflate/_fill_never). A write is converted to the file type, appended to the rank's pending
// buffer and indexed (dataset, selection, offset, size). At every flush and at close, all
// ranks together write one data log /_LOG/_ld_<n> (u8, each rank's requests back to back
// at the exclusive prefix sum of the ranks' sizes) and one metadata log /_LOG/_md_<n> (the
// index records, same arrangement), both with an "offsets" attribute (i64[ranks+1], the
// ranks' parts), and the root attribute _h5proxy_log (i64: format version, number of logs,
// ranks) is updated. Readers load every metadata log and resolve each read against the
// index (later writes win), reading the data logs at their file addresses. User names
// starting with '_' are stored with one more '_' (the Log VOL's rule).
const (
	logGroupPath = "/_LOG"
	logRootAttr  = "_h5proxy_log"
)

func dataLogPath(n int) string { return fmt.Sprintf("%s/_ld_%d", logGroupPath, n) }
func metaLogPath(n int) string { return fmt.Sprintf("%s/_md_%d", logGroupPath, n) }

// logLayout is the log-structured terminal layout.
type logLayout struct {
	env   stack.Env
	gap   int64
	files plan.FileStack[*logFile]
	// coalesced keeps the index's coalesced selections across flushes and files.
	coalesced coalesced
}

// Options are the log layout's keys.
var Options = &options.Table{Name: "log", Specs: []options.Spec{
	{Key: "log.read_gap", Kind: options.Size, Default: "64KiB", Help: "log layout: reads fetch pieces of the data logs closer than this many bytes with one read"},
}}

func init() {
	stack.RegisterLayout(stack.Strategy{Name: "log", Caps: stack.StoresData, Options: Options, ModeAlias: "log",
		Summary: "modelled on the Log VOL: per-rank data logs and an index, datasets as anchors (h5bench MODE=LOG)",
		NewLayout: func(env stack.Env) (stack.Layout, error) {
			return &logLayout{env: env, gap: int64(env.Setting().Uint("log.read_gap"))}, nil
		}})
}

// logFile is one open file of the log layout.
type logFile struct {
	logStore
	parallel, readOnly bool
	comm               mpi.Comm
	ownComm            bool
	objs               h5layout.ObjTable
	// pending holds this rank's requests not yet in a data log; pend indexes them.
	pending logBuffer
	pend    []*logEntry
	// sels holds the large selections written so far, normalized and checked (plans
	// reuse a selection for many writes).
	sels map[plan.Ref]checkedSel
}

// logStore resolves reads against the index of one open log file.
type logStore struct {
	path  string
	id    h5.ID
	nlogs int // data/metadata log pairs in the file
	// loaded is how many metadata logs are in index (reads load the rest first).
	loaded int
	index  map[string][]*logEntry
	// dsets are the datasets known so far (created, opened or asked for).
	dsets map[string]*plan.DatasetSpec
	addr  map[int]int64 // file address of each data log's bytes
	raw   *os.File
	gap   int64
}

// FilePath is the plan path the file was opened at.
func (s *logStore) FilePath() string { return s.path }

func newLogStore(path string, id h5.ID, nlogs int, gap int64) logStore {
	return logStore{path: path, id: id, nlogs: nlogs, index: map[string][]*logEntry{},
		dsets: map[string]*plan.DatasetSpec{}, addr: map[int]int64{}, gap: gap}
}

// Exec performs one plan operation.
func (l *logLayout) Exec(op *plan.Op, buf []byte) error {
	switch op.Kind {
	case plan.CreateFile, plan.OpenFile:
		return l.open(op)
	}
	if ok, err := l.files.FileOp(op, l.close); ok {
		return err
	}
	f, err := l.files.Current()
	if err != nil {
		return err
	}
	switch op.Kind {
	case plan.FlushFile:
		// Like the Log VOL's H5Fflush: the logs are written, HDF5's own caches are left
		// to the close.
		return l.flush(f)
	case plan.CreateGroup, plan.OpenGroup, plan.CreateDataset, plan.OpenDataset:
		return f.openObject(op)
	case plan.CloseGroup, plan.CloseDataset:
		return f.objs.Close(op.Path)
	case plan.ExtendDataset:
		return f.extend(op)
	case plan.Scale:
		return fmt.Errorf("log layout: dimension scale on %s: the log layout keeps no dimension scales (its datasets are anchors, not the objects a scale would name); run the native or subfiling-vfd layout", op.Path)
	case plan.CreateLink:
		// The log file holds anchors under escaped names and the data in logs: a link to
		// an anchor would read back as no dataset, so the layout refuses rather than write
		// a file whose links lie.
		return fmt.Errorf("log layout: link %s (%s): the log layout keeps no links (its file holds anchors and logs, not the objects a link would name); run the native, subfiling or subfiling-vfd layout for a description with links", op.Path, op.Link.Kind)
	case plan.WriteAttribute, plan.ReadAttribute:
		loc, err := f.objs.AttributeLoc(f.id, op)
		if err != nil {
			return err
		}
		a := *op.Attribute
		a.Name = h5layout.EscapeName(a.Name)
		if op.Kind == plan.ReadAttribute {
			_, err := h5.ReadAttributeAs(loc, a)
			return err
		}
		return h5.WriteAttribute(loc, a)
	case plan.Write, plan.Read:
		if k, ok := f.objs.Kinds[op.Path]; !ok || h5layout.IsGroupKind(k) {
			return fmt.Errorf("dataset %s is not open", op.Path)
		}
		if op.Kind == plan.Write {
			return f.write(op, buf)
		}
		_, err := f.read(op.Path, op.Transfer, buf, f.pend, f.pending.bytes())
		return err
	}
	return fmt.Errorf("log layout: unsupported operation %s", op.Kind)
}

// open creates or opens a file. A created file gets /_LOG and the root attribute; an
// opened one must have them.
func (l *logLayout) open(op *plan.Op) (err error) {
	comm, own, err := h5layout.FileComm(l.env, op.File)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil && own {
			comm.Free()
		}
	}()
	a := h5.Access{FileSpec: *op.File}
	if op.File.Parallel {
		a.Comm, a.Info = comm.Fortran(), h5layout.Hints(l.env, op.File)
	}
	var id h5.ID
	nlogs := 0
	if op.Kind == plan.CreateFile {
		if err := h5layout.MakeDirs(op); err != nil {
			return err
		}
		if id, err = h5.CreateFile(op.Path, a); err != nil {
			return err
		}
		var g h5.ID
		if g, err = h5.CreateGroup(id, logGroupPath); err == nil {
			err = h5.CloseGroup(g)
		}
		if err == nil {
			err = h5.SetAttribute(id, h5layout.Int64Attr(logRootAttr, []int64{indexVersion, 0, int64(comm.Size())}))
		}
	} else {
		if id, err = h5.OpenFile(op.Path, a); err != nil {
			return err
		}
		nlogs, err = logCount(id, op.Path)
	}
	if err != nil {
		h5.CloseFile(id)
		return err
	}
	l.files.Push(&logFile{logStore: newLogStore(op.Path, id, nlogs, l.gap), parallel: op.File.Parallel,
		readOnly: op.Kind == plan.OpenFile && op.File.ReadOnly, comm: comm, ownComm: own, objs: h5layout.NewObjTable()})
	return nil
}

// logCount checks that an open file is a log-layout file and returns its number of logs.
func logCount(id h5.ID, path string) (int, error) {
	v, err := h5layout.ReadInt64Attr(id, logRootAttr)
	if err != nil {
		return 0, fmt.Errorf("log layout: %s is not a log-layout file (no readable root attribute %s: %v); read it with the layout that wrote it", path, logRootAttr, err)
	}
	if len(v) < 2 || v[0] < 1 || v[0] > indexVersion || v[1] < 0 {
		return 0, fmt.Errorf("log layout: %s: root attribute %s = %v: unsupported format (want version 1 to %d)", path, logRootAttr, v, indexVersion)
	}
	return int(v[1]), nil
}

// openObject creates or opens a group or a dataset's anchor.
func (f *logFile) openObject(op *plan.Op) error {
	if _, dup := f.objs.IDs[op.Path]; dup {
		return fmt.Errorf("%s is already open", op.Path)
	}
	name := h5layout.EscapePath(op.Path)
	var id h5.ID
	var err error
	switch op.Kind {
	case plan.CreateGroup:
		id, err = h5.CreateGroup(f.id, name)
	case plan.OpenGroup:
		id, err = h5.OpenGroup(f.id, name)
	case plan.CreateDataset:
		if id, err = h5.CreateNullDataset(f.id, name, op.Dataset.Type); err == nil {
			if err = writeAnchor(id, op.Dataset); err != nil {
				h5.CloseDataset(id)
			}
		}
		d := *op.Dataset
		f.dsets[op.Path] = &d
	default:
		if id, err = h5.OpenDataset(f.id, name); err == nil {
			var d *plan.DatasetSpec
			if d, err = anchorSpec(id, op.Path); err != nil {
				h5.CloseDataset(id)
			} else {
				f.dsets[op.Path] = d
			}
		}
	}
	if err != nil {
		return err
	}
	f.objs.Add(op.Path, id, op.Kind)
	return nil
}

// extend grows a dataset: its anchor's _dims (collective on a shared file, like
// H5Dset_extent).
func (f *logFile) extend(op *plan.Op) error {
	id, ok := f.objs.IDs[op.Path]
	if !ok || h5layout.IsGroupKind(f.objs.Kinds[op.Path]) {
		return fmt.Errorf("dataset %s is not open", op.Path)
	}
	if f.readOnly {
		return fmt.Errorf("log layout: %s: the file is open read-only", op.Path)
	}
	d := f.dsets[op.Path]
	if err := checkExtent(op.Path, d, op.Dataset.Shape); err != nil {
		return err
	}
	for i, n := range op.Dataset.Shape {
		if n < d.Shape[i] {
			return fmt.Errorf("log layout: %s: shrinking the extent %v to %v is not supported (the logs keep the data beyond it)", op.Path, d.Shape, op.Dataset.Shape)
		}
	}
	grown := *d
	grown.Shape = append([]uint64(nil), op.Dataset.Shape...)
	if err := h5.SetAttribute(id, anchorAttr(&grown)); err != nil {
		return err
	}
	*d = grown
	return nil
}

// checkExtent refuses a new extent of another rank or beyond the maximum extent.
func checkExtent(path string, d *plan.DatasetSpec, shape []uint64) error {
	max := d.MaxShape
	if max == nil {
		max = d.Shape
	}
	if len(shape) != len(d.Shape) {
		return fmt.Errorf("%s: extent %v has rank %d, the dataset %d", path, shape, len(shape), len(d.Shape))
	}
	for i := range shape {
		if max[i] != plan.MaxUnlimited && shape[i] > max[i] {
			return fmt.Errorf("%s: extent %v exceeds the maximum extent %v", path, shape, max)
		}
	}
	return nil
}

// writeAnchor records a dataset's creation properties on its anchor: _anchor, _vstr for
// variable-length strings (the bytes per element the logs hold: the file's type has no
// length), and _filters when the pipeline has filters beyond deflate (i64: per filter its
// identifier, the number of client values, then the values), which replays apply as
// deflate is.
func writeAnchor(id h5.ID, d *plan.DatasetSpec) error {
	if err := h5.WriteAttribute(id, anchorAttr(d)); err != nil {
		return err
	}
	if d.Type.VarLen {
		if err := h5.WriteAttribute(id, h5layout.Int64Attr("_vstr", []int64{int64(d.Type.Size)})); err != nil {
			return err
		}
	}
	if len(d.Filters) == 0 {
		return nil
	}
	var v []int64
	for _, f := range d.Filters {
		v = append(v, int64(f.ID), int64(len(f.CDValues)))
		for _, c := range f.CDValues {
			v = append(v, int64(c))
		}
	}
	return h5.WriteAttribute(id, h5layout.Int64Attr("_filters", v))
}

// anchorFilters reads the _filters attribute of an anchor back (see writeAnchor).
func anchorFilters(id h5.ID, path string) ([]plan.Filter, error) {
	v, err := h5layout.ReadInt64Attr(id, "_filters")
	if err != nil {
		return nil, err
	}
	var out []plan.Filter
	for len(v) > 0 {
		if len(v) < 2 || int64(len(v)-2) < v[1] || v[1] < 0 {
			return nil, fmt.Errorf("log layout: %s: anchor attribute _filters is truncated", path)
		}
		f := plan.Filter{ID: uint32(v[0])}
		for _, c := range v[2 : 2+v[1]] {
			f.CDValues = append(f.CDValues, uint32(c))
		}
		out, v = append(out, f), v[2+v[1]:]
	}
	return out, nil
}

// anchorAttr is the anchor attribute _anchor of format 2: the extent (rewritten by
// ExtendDataset), the maximum extent (unlimited = -1) and the chunk extent (all 0 when
// contiguous), ndim values each, then the deflate level and the fill flags (1 fill time
// never, 2 fill value undefined, or-ed). One attribute: creating one costs more than half as much as the anchor.
func anchorAttr(d *plan.DatasetSpec) plan.AttributeSpec {
	nd := len(d.Shape)
	max := d.MaxShape
	if max == nil {
		max = d.Shape
	}
	v := append(append(h5layout.ToInt64(d.Shape), h5layout.ToInt64(max)...), make([]int64, nd)...)
	if d.Chunk != nil {
		copy(v[2*nd:], h5layout.ToInt64(d.Chunk))
	}
	fill := int64(0) // bit 0: fill time never, bit 1: fill value undefined
	if d.FillNever {
		fill = 1
	}
	if d.FillUndefined {
		fill |= 2
	}
	return h5layout.Int64Attr("_anchor", append(v, int64(d.Deflate), fill))
}

// anchorSpec reads a dataset's creation properties back from its anchor: _anchor (format
// 2), or _dims, _mdims, _chunk, _deflate and _fill_never (format 1).
func anchorSpec(id h5.ID, path string) (*plan.DatasetSpec, error) {
	info, err := h5.DatasetInfo(id)
	if err != nil {
		return nil, err
	}
	names, err := h5.AttributeNames(id)
	if err != nil {
		return nil, err
	}
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	d := &plan.DatasetSpec{Type: info.Type}
	if has["_vstr"] {
		v, err := h5layout.ReadInt64Attr(id, "_vstr")
		if err != nil {
			return nil, err
		}
		if len(v) != 1 || v[0] < 1 || !d.Type.VarLen {
			return nil, fmt.Errorf("log layout: %s: anchor attribute _vstr %v on a dataset of type %s", path, v, d.Type)
		}
		d.Type.Size = int(v[0])
	}
	if has["_anchor"] {
		v, err := h5layout.ReadInt64Attr(id, "_anchor")
		if err != nil {
			return nil, err
		}
		nd := (len(v) - 2) / 3
		if len(v) < 2 || len(v) != 3*nd+2 {
			return nil, fmt.Errorf("log layout: %s: anchor attribute _anchor has %d values, want 3·ndim+2", path, len(v))
		}
		d.Shape, d.MaxShape = h5layout.ToUint64(v[:nd]), h5layout.ToUint64(v[nd:2*nd])
		if chunk := v[2*nd : 3*nd]; nd > 0 && chunk[0] != 0 {
			d.Chunk = h5layout.ToUint64(chunk)
		}
		d.Deflate, d.FillNever, d.FillUndefined = int(v[3*nd]), v[3*nd+1]&1 != 0, v[3*nd+1]&2 != 0
		if has["_filters"] {
			if d.Filters, err = anchorFilters(id, path); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
	if !has["_dims"] {
		return nil, fmt.Errorf("log layout: %s is not an anchor (no _anchor nor _dims attribute)", path)
	}
	get := func(name string) ([]int64, error) {
		if !has[name] {
			return nil, nil
		}
		return h5layout.ReadInt64Attr(id, name)
	}
	v, err := get("_dims")
	if err != nil {
		return nil, err
	}
	d.Shape = h5layout.ToUint64(v)
	if v, err = get("_mdims"); err != nil {
		return nil, err
	}
	if v != nil {
		d.MaxShape = h5layout.ToUint64(v)
	}
	if v, err = get("_chunk"); err != nil {
		return nil, err
	}
	if v != nil {
		d.Chunk = h5layout.ToUint64(v)
	}
	if v, err = get("_deflate"); err != nil || len(v) > 0 {
		if err != nil {
			return nil, err
		}
		d.Deflate = int(v[0])
	}
	if v, err = get("_fill_never"); err != nil {
		return nil, err
	}
	d.FillNever = len(v) > 0 && v[0] != 0
	return d, nil
}

// write converts a request to the file type and appends it to the pending buffer.
func (f *logFile) write(op *plan.Op, buf []byte) error {
	if f.readOnly {
		return fmt.Errorf("log layout: %s: the file is open read-only", op.Path)
	}
	t := op.Transfer
	if t.Selection.IsNone() {
		return nil
	}
	d := f.dsets[op.Path]
	members, err := projection(d.Type, t.MemType)
	if err != nil {
		return fmt.Errorf("log layout: %s: %w", op.Path, err)
	}
	leaves, esz, err := packed(d.Type, members)
	if err != nil {
		return err
	}
	conv, err := newConverter(leavesOf(t.MemType), t.MemType.Size, leaves, esz)
	if err != nil {
		return fmt.Errorf("log layout: %s: %w", op.Path, err)
	}
	n := plan.Product(t.MemShape) // the plan keeps it equal to the selection's points
	if need := n * uint64(t.MemType.Size); uint64(len(buf)) < need {
		return fmt.Errorf("log layout: %s: buffer of %d bytes, transfer needs %d", op.Path, len(buf), need)
	}
	e := &logEntry{path: op.Path, members: members, log: -1, offset: int64(len(f.pending.bytes())), size: int64(n) * int64(esz)}
	if err := f.setSelection(e, t.Selection); err != nil {
		return fmt.Errorf("log layout: %w", err)
	}
	dst, err := f.pending.grow(int(e.size))
	if err != nil {
		return err
	}
	conv.run(dst, buf, int(n))
	f.pend = append(f.pend, e)
	return nil
}

// logSelsMax bounds the selections a log file keeps checked.
const logSelsMax = 1 << 12

// setSelection gives e its selection sel, normalized and checked for the index format;
// large selections are checked once per file.
func (f *logFile) setSelection(e *logEntry, sel plan.Selection) error {
	k, large := sel.Ref()
	if !large {
		e.sel = sel.Explicit()
		return e.checkEncodable()
	}
	if c, ok := f.sels[k]; ok {
		e.sel = c.sel
		return e.checkEncodableSized(c.bytes)
	}
	e.sel = sel.Explicit()
	if err := e.checkEncodable(); err != nil {
		return err
	}
	if f.sels == nil {
		f.sels = map[plan.Ref]checkedSel{}
	}
	if len(f.sels) < logSelsMax {
		f.sels[k] = checkedSel{e.sel, e.selSize()}
	}
	return nil
}

// flush writes every rank's pending requests as one data log and one metadata log.
// Collective on the file's communicator.
func (l *logLayout) flush(f *logFile) error {
	if f.readOnly {
		return nil
	}
	stream := prepareStream(f.pend, &l.coalesced)
	mdSize := 0
	for _, e := range stream {
		mdSize += e.encodedSize()
	}
	pending := f.pending.bytes()
	sizes, err := f.comm.AllgatherFloat64([]float64{float64(len(pending)), float64(mdSize)})
	if err != nil {
		return err
	}
	nr := f.comm.Size()
	data, meta := make([]float64, nr), make([]float64, nr)
	for r := 0; r < nr; r++ {
		data[r], meta[r] = sizes[2*r], sizes[2*r+1]
	}
	dOff, mOff := h5layout.Exscan(data), h5layout.Exscan(meta)
	if dOff[nr] == 0 && mOff[nr] == 0 {
		return nil
	}
	rank, n := f.comm.Rank(), f.nlogs
	if err := h5layout.WriteShared(f.id, dataLogPath(n), f.parallel, rank, dOff, pending); err != nil {
		return err
	}
	md := make([]byte, 0, mdSize)
	for _, e := range stream {
		e.offset += dOff[rank]
		md = e.encode(md)
	}
	if err := h5layout.WriteShared(f.id, metaLogPath(n), f.parallel, rank, mOff, md); err != nil {
		return err
	}
	if err := h5.SetAttribute(f.id, h5layout.Int64Attr(logRootAttr, []int64{indexVersion, int64(n + 1), int64(nr)})); err != nil {
		return err
	}
	// Every rank's entries of this log are loaded from the file at the next read.
	f.nlogs++
	f.pending.release()
	f.pend, f.sels = nil, nil
	return nil
}

// close flushes, then closes the file.
func (l *logLayout) close(f *logFile) error {
	err := l.flush(f)
	leaked := f.objs.CloseForFileClose()
	l.files.Remove(f.path)
	if cerr := f.release(); err == nil {
		err = cerr
	}
	if err == nil {
		err = leaked
	}
	return err
}

// release closes the HDF5 file, the raw reader and the file's communicator, and drops
// the pending requests.
func (f *logFile) release() error {
	f.pending.release()
	f.pend = nil
	err := h5.CloseFile(f.id)
	if f.raw != nil {
		f.raw.Close()
		f.raw = nil
	}
	if f.ownComm {
		if ferr := f.comm.Free(); err == nil {
			err = ferr
		}
		f.ownComm = false
	}
	return err
}

// load reads the metadata logs not yet in the index, and the data logs' addresses. Every
// rank loads at the same operation (its first read after an open or a flush), which keeps
// the dataset opens collective when the file has collective metadata reads.
func (s *logStore) load() error {
	for ; s.loaded < s.nlogs; s.loaded++ {
		if _, err := s.dataAddr(s.loaded); err != nil {
			return fmt.Errorf("log layout: %s: data log %d: %w", s.path, s.loaded, err)
		}
		b, err := h5layout.ReadWhole(s.id, metaLogPath(s.loaded))
		if err != nil {
			return fmt.Errorf("log layout: %s: metadata log %d: %w", s.path, s.loaded, err)
		}
		entries, err := decodeEntries(b, s.loaded)
		if err != nil {
			return fmt.Errorf("log layout: %s: metadata log %d: %w", s.path, s.loaded, err)
		}
		for _, e := range entries {
			s.index[e.path] = append(s.index[e.path], e)
		}
	}
	return nil
}

// spec returns a dataset's creation properties, from memory or from its anchor.
func (s *logStore) spec(path string) (*plan.DatasetSpec, error) {
	if d, ok := s.dsets[path]; ok {
		return d, nil
	}
	id, err := h5.OpenDataset(s.id, h5layout.EscapePath(path))
	if err != nil {
		return nil, err
	}
	d, err := anchorSpec(id, path)
	if cerr := h5.CloseDataset(id); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	s.dsets[path] = d
	return d, nil
}

// dataAddr returns the file address of data log n's bytes (-1 for an empty log).
func (s *logStore) dataAddr(n int) (int64, error) {
	if a, ok := s.addr[n]; ok {
		return a, nil
	}
	id, err := h5.OpenDataset(s.id, dataLogPath(n))
	if err != nil {
		return 0, err
	}
	off, alloc, err := h5.DatasetOffset(id)
	if cerr := h5.CloseDataset(id); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	if !alloc {
		s.addr[n] = -1 // an empty log has no storage; an entry pointing into it is corrupt
		return -1, nil
	}
	s.addr[n] = int64(off)
	return int64(off), nil
}

// fileRead is one piece of a read found in a data log.
type fileRead struct {
	at  int64 // file address
	len int64
	p   piece
	c   *converter // from the entry's elements to the memory type
}

// read fills buf with the elements t selects in dataset path: from the index (loaded
// first if a flush added logs) and from the pending requests pend (in pending), later
// requests winning. Elements nobody wrote read as the fill value (zero). It reports
// whether any element was found.
func (s *logStore) read(path string, t *plan.Transfer, buf []byte, pend []*logEntry, pending []byte) (bool, error) {
	d, err := s.spec(path)
	if err != nil {
		return false, err
	}
	if err := s.load(); err != nil {
		return false, err
	}
	n := plan.Product(t.MemShape)
	if t.Selection.IsNone() {
		return false, nil
	}
	msize := uint64(t.MemType.Size)
	if uint64(len(buf)) < n*msize {
		return false, fmt.Errorf("log layout: %s: buffer of %d bytes, transfer needs %d", path, len(buf), n*msize)
	}
	if _, err := projection(d.Type, t.MemType); err != nil {
		return false, fmt.Errorf("log layout: %s: %w", path, err)
	}
	// The dataset's extent, as HDF5 uses its dataspace whatever the plan's FileShape says.
	shape := d.Shape
	if err := t.Selection.Validate(shape); err != nil {
		return false, fmt.Errorf("log layout: %s: selection outside the extent %v: %w", path, shape, err)
	}
	fillFields(buf, t.MemType, d.Type, int(n))
	entries := s.index[path]
	for _, e := range pend {
		if e.path == path {
			entries = append(entries[:len(entries):len(entries)], e)
		}
	}
	found := false
	var reads []fileRead
	for _, g := range fieldGroups(d.Type, t.MemType, entries) {
		pieces, err := resolve(t.Selection, shape, g.entries)
		if err != nil {
			return false, err
		}
		found = found || len(pieces) > 0
		// One converter per member list: entries to the group's fields of the memory type.
		convs := map[string]*converter{}
		sizes := map[string]int{}
		for _, p := range pieces {
			e := g.entries[p.entry]
			key := "\x01" + strings.Join(e.members, "\x00")
			if e.members == nil {
				key = ""
			}
			c, ok := convs[key]
			if !ok {
				src, esz, err := packed(d.Type, e.members)
				if err != nil {
					return false, err
				}
				if c, err = newConverter(src, esz, g.dst, int(msize)); err != nil {
					return false, fmt.Errorf("log layout: %s: %w", path, err)
				}
				convs[key], sizes[key] = c, esz
			}
			esz := int64(sizes[key])
			off, ln := e.offset+int64(p.src)*esz, int64(p.n)*esz
			if off+ln > e.offset+e.size {
				return false, fmt.Errorf("log layout: %s: index entry points past its %d bytes", path, e.size)
			}
			if e.log < 0 {
				c.run(buf[p.buf*msize:], pending[off:off+ln], int(p.n))
				continue
			}
			base, err := s.dataAddr(e.log)
			if err != nil {
				return false, err
			}
			if base < 0 {
				return false, fmt.Errorf("log layout: %s: index entry points into data log %d, which has no storage", path, e.log)
			}
			reads = append(reads, fileRead{at: base + off, len: ln, p: p, c: c})
		}
	}
	return found, s.fetch(reads, buf, msize)
}

// fetch reads the pieces found in data logs: pieces closer than the read gap are read
// together, then converted into buf.
func (s *logStore) fetch(reads []fileRead, buf []byte, msize uint64) error {
	if len(reads) == 0 {
		return nil
	}
	if s.raw == nil {
		f, err := os.Open(s.path)
		if err != nil {
			return fmt.Errorf("log layout: %w", err)
		}
		s.raw = f
	}
	sort.Slice(reads, func(a, b int) bool { return reads[a].at < reads[b].at })
	var tmp []byte
	for i := 0; i < len(reads); {
		lo, hi := reads[i].at, reads[i].at+reads[i].len
		j := i + 1
		for j < len(reads) && reads[j].at-hi <= s.gap && reads[j].at+reads[j].len-lo <= h5layout.CopyChunkBytes {
			hi = max(hi, reads[j].at+reads[j].len)
			j++
		}
		if int64(cap(tmp)) < hi-lo {
			tmp = make([]byte, hi-lo)
		}
		span := tmp[:hi-lo]
		if _, err := s.raw.ReadAt(span, lo); err != nil {
			return fmt.Errorf("log layout: reading %d bytes at %d of %s: %w", hi-lo, lo, s.path, err)
		}
		for _, r := range reads[i:j] {
			r.c.run(buf[r.p.buf*msize:], span[r.at-lo:r.at-lo+r.len], int(r.p.n))
		}
		i = j
	}
	return nil
}

// Shape returns a dataset's extent, from memory or from its anchor's _dims.
func (l *logLayout) Shape(path string) ([]uint64, error) {
	f, err := l.files.Current()
	if err != nil {
		return nil, err
	}
	d, err := f.spec(path)
	if err != nil {
		return nil, err
	}
	return d.Shape, nil
}

// Abort closes everything still open, innermost file first; pending requests are lost.
func (l *logLayout) Abort() error {
	return l.files.Abort(func(f *logFile) error {
		f.objs.CloseAll()
		return f.release()
	})
}

// Replay rewrites the log-layout file logPath into the canonical layout at outPath: the
// same groups and attributes, every anchor replaced by a plain dataset with its creation
// properties (shape, max shape, chunking, deflate, fill time) holding the data the index
// resolves to (later writes win; elements never written hold the fill value). Serial.
func Replay(logPath, outPath string) (err error) {
	in, err := h5.OpenFile(logPath, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		return err
	}
	nlogs, err := logCount(in, logPath)
	if err != nil {
		h5.CloseFile(in)
		return err
	}
	gap, _ := Options.Parse(nil)
	s := newLogStore(logPath, in, nlogs, int64(gap.Uint("log.read_gap")))
	defer func() {
		if s.raw != nil {
			s.raw.Close()
		}
		if cerr := h5.CloseFile(in); err == nil {
			err = cerr
		}
	}()
	if err := s.load(); err != nil {
		return err
	}
	return h5layout.ConvertObjects(in, outPath, "replay", true, func(o h5.Object, out h5.ID) error {
		user, internal := h5layout.UnescapePath(o.Path)
		if internal {
			return nil
		}
		if err := replayObject(&s, o, user, out); err != nil {
			return fmt.Errorf("replay %s: %w", user, err)
		}
		return nil
	})
}

// replayObject copies one group or anchor of a log file into out.
func replayObject(s *logStore, o h5.Object, user string, out h5.ID) error {
	if !o.Dataset {
		src, err := h5.OpenGroup(s.id, o.Path)
		if err != nil {
			return err
		}
		defer h5.CloseGroup(src)
		dst, err := h5.CreateGroup(out, user)
		if err != nil {
			return err
		}
		defer h5.CloseGroup(dst)
		return h5layout.CopyAttributes(src, dst, true)
	}
	src, err := h5.OpenDataset(s.id, o.Path)
	if err != nil {
		return err
	}
	defer h5.CloseDataset(src)
	d, err := anchorSpec(src, user)
	if err != nil {
		return err
	}
	s.dsets[user] = d
	dst, err := h5.CreateDataset(out, user, *d)
	if err != nil {
		return err
	}
	defer h5.CloseDataset(dst)
	if err := h5layout.CopyAttributes(src, dst, true); err != nil {
		return err
	}
	// Elements nothing wrote stay unwritten, as in the real code's file.
	return h5layout.CopySlabs(dst, *d, func(t *plan.Transfer, buf []byte) (bool, error) {
		return s.read(user, t, buf, nil, nil)
	})
}
