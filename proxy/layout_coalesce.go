package proxy

import (
	"slices"

	"github.com/h5proxy/h5proxy/patterns"
)

// coalesceLimit bounds the blocks coalesce expands a selection into.
const coalesceLimit = 1 << 22

// coalesce rewrites a union of hyperslabs as single blocks covering the same elements,
// merging blocks that touch along a dimension and have the same extent in the others
// (E3SM's requests, one block per level and column run, become one block per column run).
// HDF5 1.10 builds a union in time quadratic in its blocks, so fewer blocks matter. A
// selection that would expand into more than coalesceLimit blocks is returned as is.
func coalesce(sel patterns.Selection) patterns.Selection {
	if len(sel.Blocks) == 0 || len(sel.Blocks[0].Start) == 0 {
		return sel
	}
	nd := len(sel.Blocks[0].Start)
	total := 0
	for _, h := range sel.Blocks {
		n := 1
		for d := 0; d < nd; d++ {
			if h.Count[d] > 1 && h.Stride[d] != h.Block[d] {
				n *= int(min(h.Count[d], coalesceLimit+1))
			}
			if n > coalesceLimit {
				return sel
			}
		}
		if total += n; total > coalesceLimit {
			return sel
		}
	}
	// Box i is [c[2nd*i:2nd*i+nd], c[2nd*i+nd:2nd*(i+1)]): flat, so sorting moves indices.
	bs := &boxes{nd: nd, c: make([]uint64, 0, 2*nd*total)}
	lo, hi := make([]uint64, nd), make([]uint64, nd)
	for _, h := range sel.Blocks {
		bs.expand(h, 0, lo, hi)
	}
	idx := make([]int32, bs.len())
	for i := range idx {
		idx[i] = int32(i)
	}
	for round := 0; round < 3; round++ {
		before := len(idx)
		for d := nd - 1; d >= 0; d-- {
			idx = bs.mergeAlong(idx, d)
		}
		if len(idx) == before && round > 0 {
			break
		}
	}
	out := patterns.Selection{Blocks: make([]patterns.Hyperslab, len(idx))}
	for k, i := range idx {
		l, h := bs.lo(i), bs.hi(i)
		ext := make([]uint64, nd)
		for d := range ext {
			ext[d] = h[d] - l[d]
		}
		out.Blocks[k] = patterns.Hyperslab{Start: append([]uint64(nil), l...), Stride: onesIfNil(nil, nd), Count: onesIfNil(nil, nd), Block: ext}
	}
	return out
}

// boxes holds blocks ([lo, hi) per dimension) in one flat array.
type boxes struct {
	nd int
	c  []uint64
}

func (b *boxes) len() int            { return len(b.c) / (2 * b.nd) }
func (b *boxes) lo(i int32) []uint64 { return b.c[2*b.nd*int(i) : 2*b.nd*int(i)+b.nd] }
func (b *boxes) hi(i int32) []uint64 { return b.c[2*b.nd*int(i)+b.nd : 2*b.nd*(int(i)+1)] }

// expand appends the blocks of hyperslab h (dimensions d.. varying, lo/hi set for the ones
// before).
func (b *boxes) expand(h patterns.Hyperslab, d int, lo, hi []uint64) {
	if d == b.nd {
		b.c = append(append(b.c, lo...), hi...)
		return
	}
	if h.Count[d] == 1 || h.Stride[d] == h.Block[d] { // contiguous along d
		lo[d], hi[d] = h.Start[d], h.Start[d]+h.Count[d]*h.Block[d]
		b.expand(h, d+1, lo, hi)
		return
	}
	for i := uint64(0); i < h.Count[d]; i++ {
		lo[d] = h.Start[d] + i*h.Stride[d]
		hi[d] = lo[d] + h.Block[d]
		b.expand(h, d+1, lo, hi)
	}
}

// mergeAlong merges the boxes that touch or overlap along dimension d and have the same
// extent in every other dimension (their union is then a box); it returns the indices of
// the boxes left.
func (b *boxes) mergeAlong(idx []int32, d int) []int32 {
	if len(idx) < 2 {
		return idx
	}
	cross := func(i, j int32) int { // compare everything but dimension d
		li, lj, hi, hj := b.lo(i), b.lo(j), b.hi(i), b.hi(j)
		for k := 0; k < b.nd; k++ {
			if k == d {
				continue
			}
			if c := cmpU(li[k], lj[k]); c != 0 {
				return c
			}
			if c := cmpU(hi[k], hj[k]); c != 0 {
				return c
			}
		}
		return 0
	}
	slices.SortFunc(idx, func(i, j int32) int {
		if c := cross(i, j); c != 0 {
			return c
		}
		return cmpU(b.lo(i)[d], b.lo(j)[d])
	})
	out := idx[:1]
	for _, j := range idx[1:] {
		cur := out[len(out)-1]
		if ch := b.hi(cur); cross(cur, j) == 0 && b.lo(j)[d] <= ch[d] {
			ch[d] = max(ch[d], b.hi(j)[d])
			continue
		}
		out = append(out, j)
	}
	return out
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
