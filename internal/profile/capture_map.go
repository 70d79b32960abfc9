package profile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// MapFile is a decomposition map a description names (decompose: {kind: map}), in the
// terms of E3SM-IO's map files (docs/apps.md): one map process per captured rank, whose
// requests are that rank's union of hyperslabs as runs of the flattened array, none
// crossing a row of the last dimension. The command writes it as HDF5 beside the
// description; at other rank counts the map processes are dealt out as E3SM-IO deals them.
type MapFile struct {
	NProcs  int
	Decomps []MapDecomp
}

// MapDecomp is one decomposition D<k> of a MapFile.
type MapDecomp struct {
	Dims []int64
	// Offsets[p] and Lengths[p] are map process p's requests.
	Offsets, Lengths [][]int64
	// FullyCovered is false when no rank writes some elements.
	FullyCovered bool
}

// run is a contiguous range of a flattened array: [start, start+n).
type run struct{ start, n int64 }

// maxRuns bounds the runs a captured decomposition may have (a map file's size).
const maxRuns = 1 << 22

// selectionRuns flattens a rank's selections of an array of shape dims into sorted,
// merged runs; false when one cannot be flattened (points, a block list the library did
// not keep, a rank mismatch, or too many runs).
func selectionRuns(sels []selection, dims []int64) ([]run, bool) {
	var rs []run
	nd := len(dims)
	add := func(lo, hi []int64) bool { // an inclusive box
		rows := int64(1)
		for i := 0; i < nd-1; i++ {
			rows *= hi[i] - lo[i] + 1
		}
		if int64(len(rs))+rows > maxRuns {
			return false
		}
		idx := slices.Clone(lo[:nd-1])
		for range rows {
			off := int64(0)
			for i := range nd - 1 {
				off = off*dims[i] + idx[i]
			}
			off = off*dims[nd-1] + lo[nd-1]
			rs = append(rs, run{off, hi[nd-1] - lo[nd-1] + 1})
			for i := nd - 2; i >= 0; i-- { // the next row of the box
				if idx[i]++; idx[i] <= hi[i] {
					break
				}
				idx[i] = lo[i]
			}
		}
		return true
	}
	for _, s := range sels {
		switch {
		case s.None:
		case len(s.Blocks) > 0:
			for _, bl := range s.Blocks {
				if len(bl) != 2*nd || !add(bl[:nd], bl[nd:]) {
					return nil, false
				}
			}
		case s.NBlocks > 0 || s.Points > 0:
			return nil, false
		case len(s.Start) == nd:
			// a regular hyperslab: each combination of counts is one box
			total := int64(1)
			for i := range nd {
				total *= max(s.Count[i], 0)
			}
			if total > maxRuns {
				return nil, false
			}
			k := make([]int64, nd)
			for range total {
				lo, hi := make([]int64, nd), make([]int64, nd)
				for i := range nd {
					stride, block := int64(1), int64(1)
					if len(s.Stride) == nd {
						stride = s.Stride[i]
					}
					if len(s.Block) == nd {
						block = s.Block[i]
					}
					lo[i] = s.Start[i] + k[i]*stride
					hi[i] = lo[i] + block - 1
				}
				if !add(lo, hi) {
					return nil, false
				}
				for i := nd - 1; i >= 0; i-- {
					if k[i]++; k[i] < s.Count[i] {
						break
					}
					k[i] = 0
				}
			}
		default:
			return nil, false
		}
	}
	slices.SortFunc(rs, func(a, b run) int { return int(min(max(a.start-b.start, -1), 1)) })
	var out []run
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].start+out[n-1].n >= r.start {
			out[n-1].n = max(out[n-1].n, r.start+r.n-out[n-1].start)
			continue
		}
		out = append(out, r)
	}
	return out, true
}

// mapDecomposition folds the ranks' runs into a decomposition of the description's map
// file (shared by every dataset of the same shape and runs), split at rows of the last
// dimension; "" when two ranks write the same element (a map writes each once).
func (c *Description) mapDecomposition(dims []int64, perRank [][]run) (desc.Decompose, error) {
	row := dims[len(dims)-1]
	total := int64(1)
	for _, d := range dims {
		total *= d
	}
	var all []run
	for _, rs := range perRank {
		all = append(all, rs...)
	}
	slices.SortFunc(all, func(a, b run) int { return int(min(max(a.start-b.start, -1), 1)) })
	covered := int64(0)
	for i, r := range all {
		if i > 0 && all[i-1].start+all[i-1].n > r.start {
			return desc.Decompose{}, fmt.Errorf("element %d is written by two ranks", r.start)
		}
		covered += r.n
	}
	d := MapDecomp{Dims: slices.Clone(dims), FullyCovered: covered == total}
	for _, rs := range perRank {
		var offs, lens []int64
		for _, r := range rs {
			for s, end := r.start, r.start+r.n; s < end; {
				n := min(end, (s/row+1)*row) - s
				offs, lens = append(offs, s), append(lens, n)
				s += n
			}
		}
		d.Offsets, d.Lengths = append(d.Offsets, offs), append(d.Lengths, lens)
	}
	if c.Map == nil {
		c.Map = &MapFile{NProcs: len(perRank)}
	}
	for k, old := range c.Map.Decomps {
		if slices.Equal(old.Dims, d.Dims) && slices.EqualFunc(old.Offsets, d.Offsets, slices.Equal) && slices.EqualFunc(old.Lengths, d.Lengths, slices.Equal) {
			return c.mapDecomp(k + 1), nil
		}
	}
	c.Map.Decomps = append(c.Map.Decomps, d)
	return c.mapDecomp(len(c.Map.Decomps)), nil
}

// mapDecomp is the decomposition of the description's map file's D<k>.
func (c *Description) mapDecomp(k int) desc.Decompose {
	return desc.Decompose{Kind: desc.V("map"), File: desc.V(c.MapName), Decomp: desc.V(strconv.Itoa(k))}
}

// mapSummary says what the map file holds, for the description's comment.
func (m *MapFile) summary() string {
	var parts []string
	for k, d := range m.Decomps {
		n := 0
		for _, o := range d.Offsets {
			n += len(o)
		}
		parts = append(parts, fmt.Sprintf("D%d %v: %d requests", k+1, d.Dims, n))
	}
	return strings.Join(parts, "; ")
}
