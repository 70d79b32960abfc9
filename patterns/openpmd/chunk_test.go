package openpmd

import (
	"reflect"
	"testing"
)

// TestChunkDims: layouts.md 3.3's worked examples and hand-computed cases of
// getOptimalChunkDims.
func TestChunkDims(t *testing.T) {
	for _, tc := range []struct {
		dims []uint64
		size int
		want []uint64
	}{
		{u(128, 256, 128), 8, u(128, 64, 64)}, // layouts.md: the sample's meshes
		{u(4194304), 8, u(524288)},            // the sample's particles
		{u(64, 64, 64), 8, u(32, 32, 32)},
		{u(16, 16), 8, u(16, 16)},
		// target 64 KiB (half extents hold only 4000 B); 1024 > 1000 stops at 512.
		{u(1000), 8, u(512)},
		// ascending order: dim 1 (10) first; it stops at 8, dim 0 goes on to 64.
		{u(100, 10), 8, u(64, 8)},
		// target 4 MiB = 2^20 f32: 20 doublings visiting dims 2, 0, 1 in turn.
		{u(512, 1024, 256), 4, u(128, 64, 128)},
		// target 128 KiB = 2^14 f64: order dim 1 (32), then the tie 0, 2 in index order:
		// 4 rounds give 16 each, then dims 1 and 0 double once more.
		{u(64, 32, 64), 8, u(32, 32, 16)},
		// everything fits below the 64 KiB target: the whole dataset.
		{u(8, 16, 8), 8, u(8, 16, 8)},
		// one element: nothing to grow.
		{u(1), 8, u(1)},
	} {
		if got := ChunkDims(tc.dims, tc.size); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ChunkDims(%v, %d) = %v, want %v", tc.dims, tc.size, got, tc.want)
		}
	}
}
