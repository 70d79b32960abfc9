// Package rawfile is what the layouts that write a plan's raw data without HDF5 (mpiio,
// posix) share: the allocation of dataset regions in a file the way HDF5 allocates
// contiguous datasets, the mapping of a transfer's selection to file byte ranges, and
// the per-file bookkeeping that lets a read phase find what the same session wrote (the
// files carry no metadata).
package rawfile

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"slices"
	"sort"

	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/plan"
)

// Set is a layout's bookkeeping of every raw file of the session, by plan path.
type Set struct {
	// Layout names the layout in errors ("mpiio", "posix").
	Layout string
	files  map[string]*File
}

// File is the layout of one raw file: its datasets' regions and the next free offset.
// Its fields are exported for gob (agreement between ranks).
type File struct {
	Next int64
	// AlignThreshold and AlignLen are the file's H5Pset_alignment: allocations of at least
	// AlignThreshold bytes start at a multiple of AlignLen when AlignLen > 1.
	AlignThreshold, AlignLen uint64
	Regions                  map[string]*Region
}

// Region is where a dataset's elements live: one extent for a fixed-size dataset, one
// more per extension of an extendible one (HDF5 allocates the new chunks of a parallel
// file when the extent grows, after everything allocated before).
type Region struct {
	Shape   []uint64
	Elem    int
	Extents []Extent
	// Boxes replace Extents once a dimension other than the first grew (a series along
	// dimension K): the elements already laid out keep their bytes, each growth adds the
	// boxes of the new elements after everything allocated before, each box stored in
	// row-major order from its Offset.
	Boxes []Box
}

// Box holds the elements of coordinates Lo up to Hi (exclusive) at byte Offset, in
// row-major order.
type Box struct {
	Lo, Hi []uint64
	Offset int64
}

// Extent holds the dataset's elements from linear index First up to the next extent's
// First (or the end of the dataset) at byte Offset of the file.
type Extent struct {
	First  uint64
	Offset int64
}

// Piece is a byte range of the file, Len bytes at Off, and where it is in the
// transfer's memory buffer (Mem).
type Piece struct {
	Off, Len, Mem int64
}

// Begin returns the bookkeeping of the file op creates or opens: a new one for a
// create (replacing what the path held), the session's earlier one for an open, or, when
// the session has not written the file, one laid out from the open's list of the writer's
// datasets (plan.FileSpec.Written: a file another rank wrote), empty without it.
func (s *Set) Begin(op *plan.Op) *File {
	if s.files == nil {
		s.files = map[string]*File{}
	}
	f := s.files[op.Path]
	fresh := f == nil || op.Kind == plan.CreateFile
	if fresh {
		f = &File{Regions: map[string]*Region{}}
		s.files[op.Path] = f
	}
	if op.File != nil && op.File.AlignLen > 0 {
		f.AlignThreshold, f.AlignLen = op.File.AlignThreshold, op.File.AlignLen
	}
	if fresh && op.Kind == plan.OpenFile && op.File != nil {
		for _, w := range op.File.Written {
			f.Create(&plan.Op{Kind: plan.CreateDataset, Path: w.Path, Dataset: w.Dataset})
		}
	}
	return f
}

// Agree gives every rank rank 0's layout of the file at path, opened in parallel
// (collective on comm). Plans create some files on rank 0 alone before every rank reopens
// them (AMReX's headers); the other ranks never saw those datasets laid out.
func (s *Set) Agree(comm mpi.Comm, path string) (*File, error) {
	var b []byte
	if comm.Rank() == 0 {
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(s.files[path]); err != nil {
			return nil, fmt.Errorf("%s layout: %s: encoding the regions: %w", s.Layout, path, err)
		}
		b = buf.Bytes()
	}
	b, err := comm.BcastBytes(b, 0)
	if err != nil {
		return nil, err
	}
	var f File
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&f); err != nil {
		return nil, fmt.Errorf("%s layout: %s: decoding rank 0's regions: %w", s.Layout, path, err)
	}
	if f.Regions == nil {
		f.Regions = map[string]*Region{}
	}
	s.files[path] = &f
	return &f, nil
}

// alloc returns the offset of n new bytes at the end of the file, aligned as HDF5 aligns
// allocations (H5Pset_alignment).
func (f *File) alloc(n int64) int64 {
	if a := int64(f.AlignLen); a > 1 && uint64(n) >= f.AlignThreshold {
		f.Next = (f.Next + a - 1) / a * a
	}
	off := f.Next
	f.Next += n
	return off
}

// Create lays out the dataset op creates after everything allocated before.
func (f *File) Create(op *plan.Op) {
	d := op.Dataset
	r := &Region{Shape: append([]uint64(nil), d.Shape...), Elem: d.Type.Size}
	if n := int64(plan.Product(d.Shape)) * int64(d.Type.Size); n > 0 {
		r.Extents = []Extent{{0, f.alloc(n)}}
	}
	f.Regions[op.Path] = r
}

// Extend grows the dataset op names to op.Dataset.Shape: the new elements are laid out
// after everything allocated before, the old ones stay where they are. Growth along the
// first (slowest) dimension keeps the linear indices: one new extent. Growth along any
// other dimension turns the region into boxes (Region.Boxes).
func (s *Set) Extend(f *File, op *plan.Op) error {
	r, err := s.Region(f, op.Path)
	if err != nil {
		return err
	}
	shape := op.Dataset.Shape
	if len(shape) != len(r.Shape) || len(shape) == 0 {
		return fmt.Errorf("%s layout: %s: cannot change extent %v to %v (the rank is fixed)", s.Layout, op.Path, r.Shape, shape)
	}
	for i := range shape {
		if shape[i] < r.Shape[i] {
			return fmt.Errorf("%s layout: %s: cannot change extent %v to %v (a raw file does not shrink a dataset)", s.Layout, op.Path, r.Shape, shape)
		}
	}
	if r.Boxes == nil && slices.Equal(shape[1:], r.Shape[1:]) {
		old := plan.Product(r.Shape)
		if n := int64(plan.Product(shape)-old) * int64(r.Elem); n > 0 {
			r.Extents = append(r.Extents, Extent{old, f.alloc(n)})
		}
		r.Shape = slices.Clone(shape)
		return nil
	}
	if r.Boxes == nil {
		r.Boxes = r.extentBoxes()
		r.Extents = nil
	}
	// The new elements: for each dimension d that grew, those whose first coordinate
	// beyond the old extent is along d (old extents before d, new ones after).
	for d := range shape {
		if shape[d] == r.Shape[d] {
			continue
		}
		lo, hi := make([]uint64, len(shape)), slices.Clone(shape)
		copy(hi[:d], r.Shape[:d])
		lo[d] = r.Shape[d]
		n := uint64(1)
		for j := range hi {
			n *= hi[j] - lo[j]
		}
		if n > 0 {
			r.Boxes = append(r.Boxes, Box{Lo: lo, Hi: hi, Offset: f.alloc(int64(n) * int64(r.Elem))})
		}
	}
	r.Shape = slices.Clone(shape)
	return nil
}

// extentBoxes returns the region's extents (each whole rows of dimension 0) as boxes.
func (r *Region) extentBoxes() []Box {
	row := plan.Product(r.Shape[1:])
	total := plan.Product(r.Shape)
	var out []Box
	for k, e := range r.Extents {
		end := total
		if k+1 < len(r.Extents) {
			end = r.Extents[k+1].First
		}
		if row == 0 || end == e.First {
			continue
		}
		lo, hi := make([]uint64, len(r.Shape)), slices.Clone(r.Shape)
		lo[0], hi[0] = e.First/row, end/row
		out = append(out, Box{Lo: lo, Hi: hi, Offset: e.Offset})
	}
	return out
}

// boxAt returns the box holding the element at c.
func (r *Region) boxAt(c []uint64) (*Box, bool) {
	for i := range r.Boxes {
		b := &r.Boxes[i]
		in := true
		for j := range c {
			in = in && c[j] >= b.Lo[j] && c[j] < b.Hi[j]
		}
		if in {
			return b, true
		}
	}
	return nil, false
}

// Define carries out the dataset operations of a raw file (create, extend, open) and
// reports whether op was one. An open that carries the dataset's creation (op.Dataset)
// of a dataset the session did not lay out lays it out after everything before it.
func (s *Set) Define(f *File, op *plan.Op) (bool, error) {
	switch op.Kind {
	case plan.CreateDataset:
		f.Create(op)
		return true, nil
	case plan.ExtendDataset:
		return true, s.Extend(f, op)
	case plan.OpenDataset:
		if _, known := f.Regions[op.Path]; !known && op.Dataset != nil {
			// A reader that knows the dataset's creation (IOR reading another task's file
			// per process, which this rank never wrote) lays it out as the create did.
			f.Create(op)
			return true, nil
		}
		_, err := s.Region(f, op.Path)
		return true, err
	}
	return false, nil
}

// Shape returns the extent of the dataset at path of the open file f (nil: none is open).
func (s *Set) Shape(f *File, path string) ([]uint64, error) {
	if f == nil {
		return nil, fmt.Errorf("%s layout: no file is open", s.Layout)
	}
	r, err := s.Region(f, path)
	if err != nil {
		return nil, err
	}
	return r.Shape, nil
}

// Region returns the region of the dataset at path; datasets the session did not lay out
// are an error (raw files carry no metadata).
func (s *Set) Region(f *File, path string) (*Region, error) {
	r, ok := f.Regions[path]
	if !ok {
		return nil, fmt.Errorf("%s layout: dataset %s was not written by this session (raw files carry no metadata)", s.Layout, path)
	}
	return r, nil
}

// Pieces maps a transfer of the dataset at path to file byte ranges in memory order,
// merging ranges that follow each other both in the file and in memory. A transfer of
// some members of a compound dataset (HDF5 pairs the members by name) moves each
// element's members to and from their places in the file element.
func (s *Set) Pieces(f *File, path string, t *plan.Transfer) ([]Piece, error) {
	r, err := s.Region(f, path)
	if err != nil {
		return nil, err
	}
	fields, err := s.fields(path, t, r.Elem)
	if err != nil {
		return nil, err
	}
	total, es, ms := plan.Product(r.Shape), int64(r.Elem), int64(t.MemType.Size)
	var out []Piece
	add := func(p Piece) {
		if last := len(out) - 1; last >= 0 && out[last].Off+out[last].Len == p.Off && out[last].Mem+out[last].Len == p.Mem {
			out[last].Len += p.Len
		} else {
			out = append(out, p)
		}
	}
	// put adds n elements at file offset off and memory offset mem: whole elements, or
	// each element's members.
	put := func(off int64, n uint64, mem int64) {
		if fields == nil {
			add(Piece{off, int64(n) * es, mem})
			return
		}
		for e := int64(0); e < int64(n); e++ {
			for _, fd := range fields {
				add(Piece{off + e*es + fd.file, fd.size, mem + e*ms + fd.mem})
			}
		}
	}
	if r.Boxes != nil {
		if err := s.boxPieces(path, r, t, put); err != nil {
			return nil, err
		}
		return out, nil
	}
	var mem int64 // memory offset of the run's first element
	for _, run := range t.Selection.Runs(t.FileShape) {
		if run.Start+run.Len > total {
			return nil, fmt.Errorf("%s layout: %s: elements %d to %d selected, the dataset has %d (extent %v)", s.Layout, path, run.Start, run.Start+run.Len-1, total, r.Shape)
		}
		// The extent holding run.Start, then the following ones.
		k := sort.Search(len(r.Extents), func(i int) bool { return r.Extents[i].First > run.Start }) - 1
		for start, left := run.Start, run.Len; left > 0; k++ {
			end := total
			if k+1 < len(r.Extents) {
				end = r.Extents[k+1].First
			}
			n := min(left, end-start)
			off := r.Extents[k].Offset + int64(start-r.Extents[k].First)*es
			put(off, n, mem)
			start, left, mem = start+n, left-n, mem+int64(n)*ms
		}
	}
	return out, nil
}

// boxPieces is Pieces for a region of boxes: each run of the selection (in the linear
// order of t.FileShape, the extent the transfer sees) is cut at rows and box edges.
func (s *Set) boxPieces(path string, r *Region, t *plan.Transfer, put func(off int64, n uint64, mem int64)) error {
	es, ms := int64(r.Elem), int64(t.MemType.Size)
	fs, nd := t.FileShape, len(r.Shape)
	if len(fs) != nd {
		return fmt.Errorf("%s layout: %s: a transfer in extent %v of a dataset of extent %v", s.Layout, path, fs, r.Shape)
	}
	c := make([]uint64, nd)
	var mem int64
	for _, run := range t.Selection.Runs(fs) {
		for idx, left := run.Start, run.Len; left > 0; {
			rest := idx
			for j := nd - 1; j >= 0; j-- {
				c[j] = rest % fs[j]
				rest /= fs[j]
			}
			b, ok := r.boxAt(c)
			if !ok {
				return fmt.Errorf("%s layout: %s: element %v selected, the dataset has extent %v", s.Layout, path, c, r.Shape)
			}
			n := min(left, fs[nd-1]-c[nd-1], b.Hi[nd-1]-c[nd-1])
			var lin uint64
			for j := range c {
				lin = lin*(b.Hi[j]-b.Lo[j]) + c[j] - b.Lo[j]
			}
			off := b.Offset + int64(lin)*es
			put(off, n, mem)
			idx, left, mem = idx+n, left-n, mem+int64(n)*ms
		}
	}
	return nil
}

// field is a compound member moved by a partial transfer: its offsets in the memory and
// file elements and its size.
type field struct{ mem, file, size int64 }

// fields returns the members a transfer of compound members moves, or nil when whole
// elements move.
func (s *Set) fields(path string, t *plan.Transfer, elem int) ([]field, error) {
	if t.MemType.Size == elem && (t.MemType.Class != plan.Compound || t.MemType.Equal(t.FileType)) {
		return nil, nil
	}
	if t.MemType.Class != plan.Compound || t.FileType.Class != plan.Compound || t.FileType.Size != elem {
		return nil, fmt.Errorf("%s layout: %s: memory element %d bytes, file element %d: a raw file cannot convert types", s.Layout, path, t.MemType.Size, elem)
	}
	var out []field
	for _, m := range t.MemType.Members {
		for _, fm := range t.FileType.Members {
			if fm.Name != m.Name {
				continue
			}
			if !fm.Type.Equal(m.Type) {
				return nil, fmt.Errorf("%s layout: %s: member %s is %v in memory and %v in the file: a raw file cannot convert types", s.Layout, path, m.Name, m.Type, fm.Type)
			}
			out = append(out, field{int64(m.Offset), int64(fm.Offset), int64(m.Type.Size)})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s layout: %s: the memory type shares no member with the file type", s.Layout, path)
	}
	return out, nil
}
