package h5layout

import (
	"slices"

	"github.com/h5proxy/h5proxy/plan"
)

// coalesceLimit bounds the blocks Coalesce expands a selection into.
const coalesceLimit = 1 << 22

// Coalesce rewrites a union of hyperslabs as single blocks covering the same elements,
// merging blocks that touch along a dimension and have the same extent in the others
// (E3SM's requests, one block per level and column run, become one block per column run).
// HDF5 1.10 builds a union in time quadratic in its blocks, so fewer blocks matter. A
// selection that would expand into more than coalesceLimit blocks is returned as is.
func Coalesce(sel plan.Selection) plan.Selection {
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
	// Merge along each dimension in turn until nd merges in a row change nothing (each
	// one left its dimension merged for the current boxes), at most three rounds.
	for calls, stable, d := 0, 0, nd-1; stable < nd && calls < 3*nd; calls++ {
		before := len(idx)
		if idx = bs.mergeAlong(idx, d); len(idx) == before {
			stable++
		} else {
			stable = 1
		}
		if d--; d < 0 {
			d = nd - 1
		}
	}
	out := plan.Selection{Blocks: make([]plan.Hyperslab, len(idx))}
	for k, i := range idx {
		l, h := bs.lo(i), bs.hi(i)
		ext := make([]uint64, nd)
		for d := range ext {
			ext[d] = h[d] - l[d]
		}
		out.Blocks[k] = plan.Hyperslab{Start: append([]uint64(nil), l...), Stride: plan.OnesIfNil(nil, nd), Count: plan.OnesIfNil(nil, nd), Block: ext}
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
func (b *boxes) expand(h plan.Hyperslab, d int, lo, hi []uint64) {
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

// mergeInlineRank is the highest rank mergeAlong groups boxes of by hashing (a box's
// extents in the other dimensions are a fixed-size map key).
const mergeInlineRank = 4

type crossKey [2 * (mergeInlineRank - 1)]uint64

// mergeAlong merges the boxes that touch or overlap along dimension d and have the same
// extent in every other dimension (their union is then a box); it returns the indices of
// the boxes left.
func (b *boxes) mergeAlong(idx []int32, d int) []int32 {
	if len(idx) < 2 {
		return idx
	}
	if b.nd > mergeInlineRank {
		return b.mergeAlongSlow(idx, d)
	}
	cross := func(i, j int32) int { return b.crossCmp(i, j, d) }
	// The boxes must be grouped by their other extents, each group ordered by start along
	// d. They often come sorted that way already; else they are grouped by hashing.
	sorted := true
	for k := 1; k < len(idx) && sorted; k++ {
		c := cross(idx[k-1], idx[k])
		sorted = c < 0 || (c == 0 && b.lo(idx[k-1])[d] <= b.lo(idx[k])[d])
	}
	order := idx
	if !sorted {
		order = b.groupOrder(idx, d)
	}
	out := idx[:0] // order is a copy when it is not idx, and out never passes it
	cur := order[0]
	for _, j := range order[1:] {
		if ch := b.hi(cur); cross(cur, j) == 0 && b.lo(j)[d] <= ch[d] {
			ch[d] = max(ch[d], b.hi(j)[d])
			continue
		}
		out = append(out, cur)
		cur = j
	}
	return append(out, cur)
}

// groupOrder returns idx grouped by the boxes' extents in the dimensions other than d (the
// groups in order of first appearance, the input order kept within a group: a counting
// sort), each group sorted by start along d.
func (b *boxes) groupOrder(idx []int32, d int) []int32 {
	ids := map[crossKey]int32{}
	gid := make([]int32, len(idx))
	for k, i := range idx {
		var key crossKey
		lo, hi := b.lo(i), b.hi(i)
		c := 0
		for j := 0; j < b.nd; j++ {
			if j != d {
				key[c], key[c+1] = lo[j], hi[j]
				c += 2
			}
		}
		g, ok := ids[key]
		if !ok {
			g = int32(len(ids))
			ids[key] = g
		}
		gid[k] = g
	}
	at := make([]int32, len(ids)+1) // at[g]: where group g starts
	for _, g := range gid {
		at[g+1]++
	}
	for g := 1; g < len(at); g++ {
		at[g] += at[g-1]
	}
	next := slices.Clone(at[:len(ids)])
	order := make([]int32, len(idx))
	for k, g := range gid {
		order[next[g]] = idx[k]
		next[g]++
	}
	byStart := func(x, y int32) int { return cmpU(b.lo(x)[d], b.lo(y)[d]) }
	for g := 0; g < len(ids); g++ {
		if grp := order[at[g]:at[g+1]]; !slices.IsSortedFunc(grp, byStart) {
			slices.SortFunc(grp, byStart)
		}
	}
	return order
}

// crossCmp orders boxes i and j by their extents in every dimension but d.
func (b *boxes) crossCmp(i, j int32, d int) int {
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

// mergeAlongSlow is mergeAlong for boxes of rank above mergeInlineRank.
func (b *boxes) mergeAlongSlow(idx []int32, d int) []int32 {
	if len(idx) < 2 {
		return idx
	}
	cross := func(i, j int32) int { return b.crossCmp(i, j, d) }
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
