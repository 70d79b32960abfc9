package h5layout

import (
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// Helpers of the layouts over package h5 and mpi, and the escaping of user names in log
// files.

// FileComm returns the communicator a file of the plan works on: the layout's for a
// parallel file, the layout's split by group for a file of a group of ranks
// (FileSpec.GroupRanks; collective over the layout's communicator at the first open, as
// every rank opens its group's file at the same operation; the session's, env.Groups,
// split once and kept), a single-rank one for a per-rank file. The latter duplicates
// MPI_COMM_SELF, which involves no other rank: plans open per-rank files on some ranks
// only (AMReX's header is created by rank 0 alone); the session keeps one duplicate for
// all of them (env.Groups). own says the caller frees it (no session keeps it).
func FileComm(env stack.Env, fs *plan.FileSpec) (c mpi.Comm, own bool, err error) {
	switch {
	case !fs.Parallel:
		if env.Groups != nil {
			c, err = env.Groups.Self()
			return c, false, err
		}
		c, err = mpi.Self().Dup()
	case fs.GroupRanks > 0 && fs.GroupRanks < env.Comm.Size():
		if env.Groups != nil {
			c, err = env.Groups.Comm(env.Comm, fs.GroupRanks)
			return c, false, err
		}
		rank := env.Comm.Rank()
		c, err = env.Comm.Split(rank/fs.GroupRanks, rank)
	default:
		return env.Comm, false, nil
	}
	return c, err == nil, err
}

// Hints are the MPI-IO hints a file of the plan is opened with, key by key the most
// specific: the program's for every file (env.MPIInfo), then the file's own
// (FileSpec.Info), then the run configuration's (env.UserInfo), which a user sets to
// override the program. The session's map itself when the file has none of its own.
func Hints(env stack.Env, fs *plan.FileSpec) map[string]string {
	if len(fs.Info) == 0 {
		return env.MPIInfo
	}
	m := make(map[string]string, len(fs.Info)+len(env.MPIInfo))
	maps.Copy(m, env.MPIInfo)
	maps.Copy(m, fs.Info)
	maps.Copy(m, env.UserInfo)
	return m
}

// MakeDirs creates the missing parent directories of a file op creates, when its plan
// asks for them.
func MakeDirs(op *plan.Op) error {
	if !op.File.MakeDirs {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(op.Path), 0o755); err != nil {
		return fmt.Errorf("creating the directory of %s: %w", op.Path, err)
	}
	return nil
}

// Int64Attr is a 1-D I64 attribute (little-endian, like the Log VOL's _dims).
func Int64Attr(name string, vals []int64) plan.AttributeSpec {
	b := make([]byte, 0, 8*len(vals))
	for _, v := range vals {
		b = binary.NativeEndian.AppendUint64(b, uint64(v))
	}
	return plan.AttributeSpec{Name: name, Type: plan.I64, Shape: []uint64{uint64(len(vals))}, Value: b}
}

// ReadInt64Attr reads a 1-D integer attribute written by Int64Attr.
func ReadInt64Attr(loc h5.ID, name string) ([]int64, error) {
	a, err := h5.ReadAttribute(loc, name)
	if err != nil {
		return nil, err
	}
	if a.Type.Class != plan.Int64 || len(a.Shape) > 1 {
		return nil, fmt.Errorf("attribute %s: type %s shape %v, want a 1-D i64 array", name, a.Type, a.Shape)
	}
	out := make([]int64, len(a.Value)/8)
	for i := range out {
		out[i] = int64(binary.NativeEndian.Uint64(a.Value[8*i:]))
	}
	return out, nil
}

func ToInt64(v []uint64) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

func ToUint64(v []int64) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = uint64(x)
	}
	return out
}

// Exscan returns the exclusive prefix sums of gathered sizes: start of each rank's part,
// and the total as the last element.
func Exscan(sizes []float64) []int64 {
	off := make([]int64, len(sizes)+1)
	for i, s := range sizes {
		off[i+1] = off[i] + int64(s)
	}
	return off
}

// WriteShared creates the 1-D u8 dataset path of offs[len-1] bytes in file f and writes
// this rank's data at offs[rank] (collectively on a parallel file: every rank of the
// file's communicator calls it, with the same offs). The dataset gets an "offsets"
// attribute: offs, so a reader can tell the ranks' parts apart.
func WriteShared(f h5.ID, path string, parallel bool, rank int, offs []int64, data []byte) error {
	total := uint64(offs[len(offs)-1])
	d, err := h5.CreateDataset(f, path, plan.DatasetSpec{Type: plan.U8, Shape: []uint64{total}, FillNever: true})
	if err != nil {
		return err
	}
	t := &plan.Transfer{MemType: plan.U8, MemShape: []uint64{1}, FileType: plan.U8, FileShape: []uint64{total}, Selection: plan.None()}
	if len(data) > 0 {
		t.MemShape = []uint64{uint64(len(data))}
		t.Selection = plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{uint64(offs[rank])}, []uint64{uint64(len(data))})}}
	}
	if total > 0 {
		err = h5.Write(d, t, parallel, data)
	}
	if err == nil {
		err = h5.WriteAttribute(d, Int64Attr("offsets", offs))
	}
	if cerr := h5.CloseDataset(d); err == nil {
		err = cerr
	}
	return err
}

// ReadWhole reads a 1-D u8 dataset entirely (independently).
func ReadWhole(f h5.ID, path string) ([]byte, error) {
	d, err := h5.OpenDataset(f, path)
	if err != nil {
		return nil, err
	}
	defer h5.CloseDataset(d)
	shape, err := h5.DatasetShape(d)
	if err != nil {
		return nil, err
	}
	if len(shape) != 1 {
		return nil, fmt.Errorf("%s: shape %v, want 1-D", path, shape)
	}
	buf := make([]byte, shape[0])
	if shape[0] == 0 {
		return buf, nil
	}
	t := &plan.Transfer{MemType: plan.U8, MemShape: shape, FileType: plan.U8, FileShape: shape, Selection: plan.All(shape)}
	return buf, h5.Read(d, t, false, buf)
}

// ObjTable tracks the objects a layout opened in one file, to close them right.
type ObjTable struct {
	// IDs are the open objects by path; Kinds how each was opened.
	IDs   map[string]h5.ID
	Kinds map[string]plan.OpKind
	// Generic are the paths opened with H5Oopen (plan.Op.AsObject), closed with H5Oclose.
	Generic map[string]bool
}

// NewObjTable returns an empty table.
func NewObjTable() ObjTable {
	return ObjTable{IDs: map[string]h5.ID{}, Kinds: map[string]plan.OpKind{}, Generic: map[string]bool{}}
}

// Add records an opened object.
func (o ObjTable) Add(path string, id h5.ID, kind plan.OpKind) {
	o.IDs[path], o.Kinds[path] = id, kind
}

// IsGroupKind reports whether an object opened by k is a group.
func IsGroupKind(k plan.OpKind) bool { return k == plan.CreateGroup || k == plan.OpenGroup }

// Close closes one object.
func (o ObjTable) Close(path string) error {
	id, ok := o.IDs[path]
	if !ok {
		return fmt.Errorf("%s is not open", path)
	}
	kind, generic := o.Kinds[path], o.Generic[path]
	delete(o.IDs, path)
	delete(o.Kinds, path)
	delete(o.Generic, path)
	if generic {
		return h5.CloseObject(id)
	}
	if IsGroupKind(kind) {
		return h5.CloseGroup(id)
	}
	return h5.CloseDataset(id)
}

// CloseAll closes every object (best effort) and returns the sorted paths that were open.
func (o ObjTable) CloseAll() []string {
	var open []string
	for p := range o.IDs {
		open = append(open, p)
	}
	sort.Strings(open)
	for _, p := range open {
		_ = o.Close(p)
	}
	return open
}

// Slabs splits a dataset of the given shape into selections of about maxBytes (whole rows
// of dim 0; at least one row), in row-major order, for copies that bound memory.
func Slabs(shape []uint64, elem int, maxBytes uint64) []plan.Selection {
	if len(shape) == 0 {
		return []plan.Selection{plan.All(nil)}
	}
	total := plan.Product(shape)
	if total == 0 {
		return nil
	}
	rowElems := total / shape[0]
	rows := max(uint64(1), maxBytes/max(uint64(1), rowElems*uint64(elem)))
	var out []plan.Selection
	for r := uint64(0); r < shape[0]; r += rows {
		ext := append([]uint64(nil), shape...)
		ext[0] = min(rows, shape[0]-r)
		start := make([]uint64, len(shape))
		start[0] = r
		out = append(out, plan.Selection{Blocks: []plan.Hyperslab{plan.Block(start, ext)}})
	}
	return out
}

// CopyChunkBytes bounds the memory of replay and fuse copies.
const CopyChunkBytes = 64 << 20

// EscapeName prefixes a user name starting with '_' with one more '_' (the Log VOL's
// rule): names with a single leading '_' are the layout's own.
func EscapeName(n string) string {
	if strings.HasPrefix(n, "_") {
		return "_" + n
	}
	return n
}

// UnescapeName undoes EscapeName; internal reports the layout's own names.
func UnescapeName(n string) (user string, internal bool) {
	switch {
	case strings.HasPrefix(n, "__"):
		return n[1:], false
	case strings.HasPrefix(n, "_"):
		return n, true
	}
	return n, false
}

// EscapePath escapes every component of an absolute or relative object path.
func EscapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, c := range parts {
		parts[i] = EscapeName(c)
	}
	return strings.Join(parts, "/")
}

// UnescapePath undoes EscapePath; internal reports a path through a layout's own object.
func UnescapePath(p string) (string, bool) {
	parts := strings.Split(p, "/")
	internal := false
	for i, c := range parts {
		var in bool
		parts[i], in = UnescapeName(c)
		internal = internal || in
	}
	return strings.Join(parts, "/"), internal
}

// ConvertObjects is the frame Replay and Fuse share: it creates outPath (serial), copies
// the root attributes of in (unescape: as CopyAttributes) and hands every object of in,
// in walk order (parents first), to each.
func ConvertObjects(in h5.ID, outPath, verb string, unescape bool, each func(o h5.Object, out h5.ID) error) (err error) {
	objs, err := h5.Walk(in)
	if err != nil {
		return err
	}
	out, err := h5.CreateFile(outPath, h5.Access{})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := h5.CloseFile(out); err == nil {
			err = cerr
		}
		if err != nil {
			// Nothing half-written: a failed conversion leaves no output that looks whole.
			os.Remove(outPath)
		}
	}()
	if err := CopyAttributes(in, out, unescape); err != nil {
		return fmt.Errorf("%s: root attributes: %w", verb, err)
	}
	for _, o := range objs {
		if err := each(o, out); err != nil {
			return err
		}
	}
	return nil
}

// CopySlabs fills dataset dst (of spec) slab by slab (CopyChunkBytes at a time) with what
// read returns for each slab's transfer; a slab read reports as not found is skipped.
func CopySlabs(dst h5.ID, spec plan.DatasetSpec, read func(t *plan.Transfer, buf []byte) (bool, error)) error {
	var buf []byte
	for _, sel := range Slabs(spec.Shape, spec.Type.Size, CopyChunkBytes) {
		n := sel.NPoints(spec.Shape)
		t := &plan.Transfer{MemType: spec.Type, MemShape: []uint64{n}, FileType: spec.Type, FileShape: spec.Shape, Selection: sel}
		if len(spec.Shape) == 0 {
			t.MemShape = nil
		}
		if need := int(n) * spec.Type.Size; cap(buf) < need {
			buf = make([]byte, need)
		}
		b := buf[:int(n)*spec.Type.Size]
		found, err := read(t, b)
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		if err := h5.Write(dst, t, false, b); err != nil {
			return err
		}
	}
	return nil
}

// OpenShape opens a dataset of file f just long enough to read its current extent.
func OpenShape(f h5.ID, path string) ([]uint64, error) {
	id, err := h5.OpenDataset(f, path)
	if err != nil {
		return nil, err
	}
	shape, err := h5.DatasetShape(id)
	if cerr := h5.CloseDataset(id); err == nil {
		err = cerr
	}
	return shape, err
}

// CopyAttributes copies every attribute of src to dst; with unescape, the layout's own
// attributes (a single leading '_') are skipped and user names unescaped.
func CopyAttributes(src, dst h5.ID, unescape bool) error {
	names, err := h5.AttributeNames(src)
	if err != nil {
		return err
	}
	for _, name := range names {
		user := name
		if unescape {
			var internal bool
			if user, internal = UnescapeName(name); internal {
				continue
			}
		}
		a, err := h5.ReadAttribute(src, name)
		if err != nil {
			return err
		}
		a.Name = user
		if err := h5.WriteAttribute(dst, a); err != nil {
			return err
		}
	}
	return nil
}
