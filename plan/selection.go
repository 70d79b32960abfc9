package plan

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sort"
)

// Hyperslab is one H5Sselect_hyperslab call: Count blocks of Block elements per dimension,
// block starts Stride apart (HDF5's stride is the distance between block starts).
type Hyperslab struct {
	Start, Stride, Count, Block []uint64
}

// Block returns the hyperslab of a single block of the given extent at start.
func Block(start, extent []uint64) Hyperslab {
	n := len(start)
	return Hyperslab{Start: start, Stride: ones(n), Count: ones(n), Block: extent}
}

func ones(n int) []uint64 {
	s := make([]uint64, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// NPoints is the number of elements the hyperslab covers (blocks must not overlap).
func (h Hyperslab) NPoints() uint64 {
	n := uint64(1)
	for d := range h.Start {
		n *= h.Count[d] * h.Block[d]
	}
	return n
}

// overlaps reports whether the hyperslab's blocks overlap one another.
func (h Hyperslab) overlaps() bool {
	for d := range h.Start {
		if h.Count[d] > 1 && h.Stride[d] < h.Block[d] {
			return true
		}
	}
	return false
}

// Selection is a union (H5S_SELECT_OR) of hyperslabs in a dataspace. No blocks means
// H5Sselect_none: the rank takes part in a collective call but transfers nothing.
type Selection struct {
	Blocks []Hyperslab
	// Kind says how the native layout hands the selection to HDF5; every layout transfers
	// the same elements whatever the kind (the blocks say which).
	Kind SelKind
}

// SelKind is how a selection is issued to HDF5: the calls a real code makes for it, which
// a profile (Darshan's H5D_REGULAR_HYPERSLAB_SELECTS, H5D_POINT_SELECTS, access sizes)
// tells apart.
type SelKind uint8

// Selection kinds.
const (
	// Hyperslabs is a union of H5Sselect_hyperslab calls (SET, then OR).
	Hyperslabs SelKind = iota
	// Points is one H5Sselect_elements call: every block is a single element (count and
	// block all ones), listed in row-major order without repeats, so that HDF5's pairing of
	// the points in list order with the memory elements is the row-major order every other
	// layout uses.
	Points
	// Whole is H5S_ALL for both the file and the memory space (H5Dwrite(d, t, H5S_ALL,
	// H5S_ALL, ...), as a code writing a whole dataset from one buffer calls it): one block
	// covering the dataspace, a memory space of as many elements.
	Whole
)

// String returns hyperslabs, points or whole.
func (k SelKind) String() string {
	switch k {
	case Hyperslabs:
		return "hyperslabs"
	case Points:
		return "points"
	case Whole:
		return "whole"
	}
	return fmt.Sprintf("selkind(%d)", int(k))
}

// All returns the selection of a whole dataspace of the given shape.
func All(shape []uint64) Selection {
	return Selection{Blocks: []Hyperslab{Block(make([]uint64, len(shape)), append([]uint64(nil), shape...))}}
}

// WholeSpace returns All(shape) issued as H5S_ALL (kind Whole).
func WholeSpace(shape []uint64) Selection {
	s := All(shape)
	s.Kind = Whole
	return s
}

// PointList returns the selection of the given elements (coordinates per point, in
// row-major order without repeats) issued as one H5Sselect_elements (kind Points); none
// when the list is empty.
func PointList(pts [][]uint64) Selection {
	if len(pts) == 0 {
		return None()
	}
	s := Selection{Blocks: make([]Hyperslab, len(pts)), Kind: Points}
	for i, p := range pts {
		s.Blocks[i] = Block(p, ones(len(p)))
	}
	return s
}

// None is the empty selection.
func None() Selection { return Selection{} }

// IsNone reports whether nothing is selected.
func (s Selection) IsNone() bool { return len(s.Blocks) == 0 }

// Validate checks ranks, non-zero counts and that every block lies inside shape, and what
// the kind requires: single elements in row-major order for Points, one block covering
// the dataspace for Whole.
func (s Selection) Validate(shape []uint64) error {
	if err := s.validateBlocks(shape); err != nil {
		return err
	}
	switch s.Kind {
	case Hyperslabs:
	case Points:
		var prev []uint64
		for i, h := range s.Blocks {
			for d := range shape {
				if h.Count[d] != 1 || h.Block[d] != 1 {
					return fmt.Errorf("point %d: count %v block %v, want a single element", i, h.Count, h.Block)
				}
			}
			if prev != nil && slices.Compare(prev, h.Start) >= 0 {
				return fmt.Errorf("point %d %v does not follow point %d %v in row-major order (sorted, no repeats)", i, h.Start, i-1, prev)
			}
			prev = h.Start
		}
	case Whole:
		if len(s.Blocks) != 1 || s.NPoints(shape) != Product(shape) {
			return fmt.Errorf("a whole selection (H5S_ALL) is one block covering the dataspace %v", shape)
		}
	default:
		return fmt.Errorf("unknown selection kind %d", int(s.Kind))
	}
	return nil
}

func (s Selection) validateBlocks(shape []uint64) error {
	for i, h := range s.Blocks {
		if len(h.Start) != len(shape) || len(h.Stride) != len(shape) || len(h.Count) != len(shape) || len(h.Block) != len(shape) {
			return fmt.Errorf("hyperslab %d has rank %d, dataspace rank %d", i, len(h.Start), len(shape))
		}
		for d := range shape {
			if h.Count[d] == 0 || h.Block[d] == 0 {
				return fmt.Errorf("hyperslab %d dim %d: count %d block %d must be >= 1", i, d, h.Count[d], h.Block[d])
			}
			if h.Count[d] > 1 && h.Stride[d] < h.Block[d] {
				return fmt.Errorf("hyperslab %d dim %d: stride %d < block %d", i, d, h.Stride[d], h.Block[d])
			}
			// Summed with carries: a corrupt selection (a fuzzed log index) must not wrap
			// around to an end inside the extent and then expand to 2^64 elements.
			hi, span := bits.Mul64(h.Count[d]-1, h.Stride[d])
			end, c1 := bits.Add64(h.Start[d], span, 0)
			end, c2 := bits.Add64(end, h.Block[d], 0)
			if hi != 0 || c1 != 0 || c2 != 0 {
				return fmt.Errorf("hyperslab %d dim %d: start %d + (count %d - 1) × stride %d + block %d overflows", i, d, h.Start[d], h.Count[d], h.Stride[d], h.Block[d])
			}
			if end > shape[d] {
				return fmt.Errorf("hyperslab %d dim %d: ends at %d beyond extent %d", i, d, end, shape[d])
			}
		}
	}
	return nil
}

// Run is a contiguous range of Len elements starting at linear (row-major) index Start
// of the dataspace.
type Run struct {
	Start, Len uint64
}

// NPoints is the number of distinct elements selected.
func (s Selection) NPoints(shape []uint64) uint64 {
	if len(s.Blocks) == 1 && len(s.Blocks[0].Start) == len(shape) && len(shape) > 0 && !s.Blocks[0].overlaps() {
		return s.Blocks[0].NPoints() // no expansion: a strided hyperslab may hold 10^5 blocks
	}
	var n uint64
	for _, r := range s.Runs(shape) {
		n += r.Len
	}
	return n
}

// Runs returns the selected elements as maximal contiguous runs in row-major order, the
// order in which HDF5 pairs the elements of a file selection with those of a memory
// selection. Overlapping blocks are counted once.
func (s Selection) Runs(shape []uint64) []Run {
	if s.IsNone() {
		return nil
	}
	if len(shape) == 0 {
		return []Run{{0, 1}}
	}
	if runs, ok := s.rowRuns(shape); ok {
		return runs
	}
	var boxes []box
	for _, h := range s.Blocks {
		boxes = h.expand(boxes, 0, make([]uint64, len(shape)))
	}
	strides := make([]uint64, len(shape)) // elements per unit step of each dim
	strides[len(shape)-1] = 1
	for d := len(shape) - 2; d >= 0; d-- {
		strides[d] = strides[d+1] * shape[d+1]
	}
	var out []Run
	emit := func(start, n uint64) {
		if k := len(out) - 1; k >= 0 && out[k].Start+out[k].Len == start {
			out[k].Len += n
			return
		}
		out = append(out, Run{start, n})
	}
	runsOf(boxes, 0, 0, strides, emit)
	return out
}

// rowRuns is the fast path of Runs for selections made only of single blocks one element
// thick in every dimension but the last (E3SM's thousands of per-request hyperslabs): each
// block is one run, so sorting and merging the runs gives the answer in O(n log n). ok is
// false for any other selection.
func (s Selection) rowRuns(shape []uint64) (_ []Run, ok bool) {
	last := len(shape) - 1
	runs := make([]Run, 0, len(s.Blocks))
	sorted := true
	for _, h := range s.Blocks {
		var start uint64
		for d := range shape {
			if h.Count[d] != 1 || (d < last && h.Block[d] != 1) {
				return nil, false
			}
			start = start*shape[d] + h.Start[d]
		}
		sorted = sorted && (len(runs) == 0 || runs[len(runs)-1].Start <= start)
		runs = append(runs, Run{start, h.Block[last]})
	}
	if !sorted { // plans usually list their blocks in order already
		slices.SortFunc(runs, func(a, b Run) int { return cmp.Compare(a.Start, b.Start) })
	}
	out := runs[:0]
	for _, r := range runs {
		if k := len(out) - 1; k >= 0 && r.Start <= out[k].Start+out[k].Len {
			if end := r.Start + r.Len; end > out[k].Start+out[k].Len {
				out[k].Len = end - out[k].Start
			}
			continue
		}
		out = append(out, r)
	}
	return out, true
}

// box is one block of a hyperslab: [lo, hi) per dimension.
type box struct{ lo, hi []uint64 }

func (h Hyperslab) expand(acc []box, d int, idx []uint64) []box {
	if d == len(h.Start) {
		b := box{lo: make([]uint64, d), hi: make([]uint64, d)}
		for k := range idx {
			b.lo[k] = h.Start[k] + idx[k]*h.Stride[k]
			b.hi[k] = b.lo[k] + h.Block[k]
		}
		return append(acc, b)
	}
	// Adjacent blocks along one dim (stride == block) are one box: keeps big strided-free
	// selections cheap.
	if h.Stride[d] == h.Block[d] || h.Count[d] == 1 {
		hs := h
		hs.Block = append([]uint64(nil), h.Block...)
		hs.Block[d] = h.Block[d] * h.Count[d]
		hs.Count = append([]uint64(nil), h.Count...)
		hs.Count[d] = 1
		idx[d] = 0
		return hs.expand(acc, d+1, idx)
	}
	for i := uint64(0); i < h.Count[d]; i++ {
		idx[d] = i
		acc = h.expand(acc, d+1, idx)
	}
	return acc
}

// runsOf emits, for the boxes active at this depth, the runs of dims d.. in row-major
// order. base is the linear offset contributed by the dims before d.
func runsOf(boxes []box, d int, base uint64, strides []uint64, emit func(uint64, uint64)) {
	last := len(strides) - 1
	if d == last {
		iv := make([][2]uint64, len(boxes))
		for i, b := range boxes {
			iv[i] = [2]uint64{b.lo[d], b.hi[d]}
		}
		sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
		cur := iv[0]
		for _, x := range iv[1:] {
			if x[0] <= cur[1] {
				if x[1] > cur[1] {
					cur[1] = x[1]
				}
				continue
			}
			emit(base+cur[0], cur[1]-cur[0])
			cur = x
		}
		emit(base+cur[0], cur[1]-cur[0])
		return
	}
	// Split dim d into elementary segments over which the set of covering boxes is constant.
	var cuts []uint64
	for _, b := range boxes {
		cuts = append(cuts, b.lo[d], b.hi[d])
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i] < cuts[j] })
	for i := 0; i+1 < len(cuts); i++ {
		lo, hi := cuts[i], cuts[i+1]
		if lo == hi {
			continue
		}
		var active []box
		for _, b := range boxes {
			if b.lo[d] <= lo && hi <= b.hi[d] {
				active = append(active, b)
			}
		}
		if len(active) == 0 {
			continue
		}
		// The runs below are the same for every index of the segment: compute once, shift.
		var sub []Run
		runsOf(active, d+1, 0, strides, func(s, n uint64) { sub = append(sub, Run{s, n}) })
		for x := lo; x < hi; x++ {
			off := base + x*strides[d]
			for _, r := range sub {
				emit(off+r.Start, r.Len)
			}
		}
	}
}

// Product returns the product of the extents (1 for a scalar).
func Product(shape []uint64) uint64 {
	n := uint64(1)
	for _, v := range shape {
		n *= v
	}
	return n
}

// Explicit gives every hyperslab explicit strides and blocks (nil means ones), so the
// selection encodes with one rank. A selection that has them is returned as is, sharing
// its storage (plans are not modified once issued).
func (sel Selection) Explicit() Selection {
	complete := true
	for _, h := range sel.Blocks {
		n := len(h.Start)
		complete = complete && len(h.Stride) == n && len(h.Block) == n && (n > 0 || (h.Stride == nil && h.Block == nil && h.Start == nil && h.Count == nil))
	}
	if complete {
		return sel
	}
	out := Selection{Blocks: make([]Hyperslab, len(sel.Blocks)), Kind: sel.Kind}
	for i, h := range sel.Blocks {
		n := len(h.Start)
		c := Hyperslab{Start: append([]uint64(nil), h.Start...), Count: append([]uint64(nil), h.Count...)}
		c.Stride, c.Block = OnesIfNil(h.Stride, n), OnesIfNil(h.Block, n)
		out.Blocks[i] = c
	}
	return out
}

// OnesIfNil returns a copy of v, or n ones when v is nil (HDF5's default stride and
// block); nil when n is 0.
func OnesIfNil(v []uint64, n int) []uint64 {
	if n == 0 {
		return nil
	}
	if v != nil {
		return append([]uint64(nil), v...)
	}
	o := make([]uint64, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

// Ref identifies a selection by its storage. Plans never modify a selection once issued,
// and a Ref keeps the storage alive, so its address is not reused: caches of what is
// derived from large selections (their runs, their checked encodings) key on it.
type Ref struct {
	first *Hyperslab
	n     int
}

// Ref returns the selection's storage key; ok is false for selections with fewer than
// LargeSelection blocks, whose derived data is cheaper to recompute than to cache.
func (sel Selection) Ref() (r Ref, ok bool) {
	if len(sel.Blocks) < LargeSelection {
		return Ref{}, false
	}
	return Ref{&sel.Blocks[0], len(sel.Blocks)}, true
}

// LargeSelection is the fewest blocks of a selection worth caching derived data for.
const LargeSelection = 64
