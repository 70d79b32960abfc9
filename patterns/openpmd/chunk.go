package openpmd

import "sort"

// chunkTargetsKiB are openPMD-api's candidate chunk sizes, largest first.
var chunkTargetsKiB = []uint64{4096, 2048, 1024, 512, 256, 128, 64}

// ChunkDims returns the chunk shape openPMD-api's HDF5 backend gives a dataset of the
// given extent and element size (getOptimalChunkDims, h5py-like): the target is the
// largest candidate size not above typeSize × Π max(dim/2, 1) (64 KiB when none is);
// starting from all ones, one dimension at a time is doubled, visiting dimensions in
// ascending extent order (ties in index order) round-robin, skipping those that would
// exceed their extent, until doubling would overshoot the target or nothing can grow.
func ChunkDims(dims []uint64, typeSize int) []uint64 {
	n := len(dims)
	chunk := make([]uint64, n)
	ts := uint64(typeSize)
	maxChunk := ts
	for i, d := range dims {
		chunk[i] = 1
		if h := d / 2; h > 0 {
			maxChunk *= h
		}
	}
	var target uint64
	for _, k := range chunkTargetsKiB {
		target = k * 1024
		if target <= maxChunk {
			break
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return dims[order[a]] < dims[order[b]] })
	cur := ts
	lastDiff := target
	at := 0
	for cur < target {
		// openPMD-api computes the difference in size_t: overshooting wraps around to a
		// huge value and stops the loop, as does a difference that does not shrink.
		diff := target - cur*2
		if cur*2 > target || diff >= lastDiff {
			break
		}
		grew := false
		for range n {
			d := order[at]
			if chunk[d]*2 <= dims[d] {
				chunk[d] *= 2
				cur *= 2
				grew = true
			}
			at = (at + 1) % n
			if grew {
				break
			}
		}
		if !grew {
			break
		}
		lastDiff = diff
	}
	return chunk
}
