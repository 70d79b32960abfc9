package amrex

import (
	"sort"
)

// mortonKey is a box's position on AMReX's Morton space-filling curve: the small end's
// coordinates offset by 2^29 (AMReX's SFCToken), 30 bits each, interleaved with x in the
// lowest bit; key[0] holds the highest bits.
type mortonKey [2]uint64

func makeMortonKey(lo [3]int) mortonKey {
	const imin = -(1 << 29)
	var c [3]uint64
	for d := 0; d < 3; d++ {
		c[d] = uint64(uint32(lo[d] - imin))
	}
	// Bits 0..89 of the interleaved value: bit 3*b+d is bit b of coordinate d.
	var k mortonKey
	for b := 0; b < 30; b++ {
		for d := 0; d < 3; d++ {
			if c[d]>>b&1 == 0 {
				continue
			}
			pos := 3*b + d
			if pos < 64 {
				k[1] |= 1 << pos
			} else {
				k[0] |= 1 << (pos - 64)
			}
		}
	}
	return k
}

func (k mortonKey) less(o mortonKey) bool {
	if k[0] != o[0] {
		return k[0] < o[0]
	}
	return k[1] < o[1]
}

// SFCBuckets cuts the boxes, sorted along the Morton curve of their small ends, into
// nprocs consecutive buckets of about equal cell counts, as AMReX's Distribute does: a
// bucket takes boxes until its cells reach total/nprocs; if the running average then
// exceeds total/nprocs, the bucket holds more than one box and is not the last, its last
// box goes back to the next bucket; the last bucket takes the rest. It returns the box
// indices of each bucket in curve order.
func SFCBuckets(boxes []Box, nprocs int) [][]int {
	order := make([]int, len(boxes))
	keys := make([]mortonKey, len(boxes))
	var total float64
	for i, b := range boxes {
		order[i] = i
		keys[i] = makeMortonKey(b.Lo)
		total += float64(b.NumPts())
	}
	sort.SliceStable(order, func(a, b int) bool { return keys[order[a]].less(keys[order[b]]) })
	volPerCPU := total / float64(nprocs)
	buckets := make([][]int, nprocs)
	k := 0
	var totalVol float64
	for i := 0; i < nprocs; i++ {
		cnt := 0
		var vol float64
		for ; k < len(order) && (i == nprocs-1 || vol < volPerCPU); k++ {
			vol += float64(boxes[order[k]].NumPts())
			cnt++
			buckets[i] = append(buckets[i], order[k])
		}
		totalVol += vol
		if totalVol/float64(i+1) > volPerCPU && cnt > 1 && i < nprocs-1 {
			k--
			buckets[i] = buckets[i][:len(buckets[i])-1]
			totalVol -= float64(boxes[order[k]].NumPts())
		}
	}
	return buckets
}

// DistributionMap returns the owning rank of every box under AMReX's default strategy
// (SFC, node_size 0): the SFC buckets, stably sorted heaviest first, go to the ranks
// ordered by least memory in use (LeastUsedCPUs: the KiB allocated in FABs, stably sorted;
// nil means all equal, as for the first level, where bucket i goes to rank i).
func DistributionMap(boxes []Box, nprocs int, memKiB []int64) []int {
	buckets := SFCBuckets(boxes, nprocs)
	type pair struct {
		w   uint64
		idx int
	}
	heavy := make([]pair, nprocs)
	for i, bk := range buckets {
		var w uint64
		for _, b := range bk {
			w += boxes[b].NumPts()
		}
		heavy[i] = pair{w, i}
	}
	sort.SliceStable(heavy, func(a, b int) bool { return heavy[a].w > heavy[b].w })
	ranks := make([]int, nprocs)
	for i := range ranks {
		ranks[i] = i
	}
	if memKiB != nil {
		sort.SliceStable(ranks, func(a, b int) bool { return memKiB[ranks[a]] < memKiB[ranks[b]] })
	}
	owner := make([]int, len(boxes))
	for i := 0; i < nprocs; i++ {
		for _, b := range buckets[heavy[i].idx] {
			owner[b] = ranks[i]
		}
	}
	return owner
}

// byOwner lists each rank's boxes in BoxArray order: one pass over the boxes, so laying
// out a level costs O(boxes + ranks), not O(boxes x ranks) (minutes at 64k ranks).
func byOwner(owner []int, nprocs int) [][]int {
	out := make([][]int, nprocs)
	for i, o := range owner {
		out[o] = append(out[o], i)
	}
	return out
}

// LevelLayout is how one level's boxes sit in a plotfile written by nprocs ranks.
type LevelLayout struct {
	// Owner is the rank of each box, in BoxArray order.
	Owner []int
	// Order lists the box indices in file order: grouped by owning rank in ascending rank
	// order, BoxArray order within a rank (the `boxes` and `boxcenter` datasets).
	Order []int
	// Offsets is `data:offsets=0`: element offset of each box (in file order) in
	// `data:datatype=0`, numPts*ncomp each, with the total as the last entry.
	Offsets []uint64
	// RankStart and RankCount are each rank's hyperslab in `data:datatype=0`.
	RankStart, RankCount []uint64
}

// NewLevelLayout places the boxes owned as owner says in the file of nprocs ranks.
func NewLevelLayout(boxes []Box, owner []int, nprocs, ncomp int) LevelLayout {
	l := LevelLayout{Owner: owner, RankStart: make([]uint64, nprocs), RankCount: make([]uint64, nprocs)}
	for _, boxes := range byOwner(owner, nprocs) {
		l.Order = append(l.Order, boxes...)
	}
	var off uint64
	for _, b := range l.Order {
		l.Offsets = append(l.Offsets, off)
		n := boxes[b].NumPts() * uint64(ncomp)
		l.RankCount[owner[b]] += n
		off += n
	}
	l.Offsets = append(l.Offsets, off)
	var start uint64
	for r := 0; r < nprocs; r++ {
		l.RankStart[r] = start
		start += l.RankCount[r]
	}
	return l
}

// Owners returns the owning rank of every box of every level for nprocs ranks. Level l's
// mapping is made after the MultiFabs of the coarser levels exist (the benchmark creates
// them level by level), so its ranks are ordered by the FAB memory those hold.
func Owners(levels []Level, nprocs, ncomp int) [][]int {
	out := make([][]int, len(levels))
	bytes := make([]int64, nprocs)
	for l, lev := range levels {
		var mem []int64
		if l > 0 {
			mem = make([]int64, nprocs)
			for r := range mem {
				mem[r] = bytes[r] / 1024
			}
		}
		out[l] = DistributionMap(lev.Boxes, nprocs, mem)
		for i, b := range lev.Boxes {
			bytes[out[l][i]] += int64(b.NumPts()) * int64(ncomp) * 8
		}
	}
	return out
}
