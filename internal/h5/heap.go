//go:build cgo

package h5

/*
#include <malloc.h>

static int h5p_hold_heap(int n) { return mallopt(M_TRIM_THRESHOLD, n); }
*/
import "C"

// HoldHeap keeps up to n bytes of freed C heap (HDF5's metadata caches, zlib's buffers) in
// the process: glibc returns the top of its heap to the system once 128 KiB of it are
// free, and every deflate of a chunk (about 270 KiB of zlib state, allocated and freed)
// then faults its pages in afresh. Process-wide; for one-shot commands that free little
// before they exit.
func HoldHeap(n int) error {
	if C.h5p_hold_heap(C.int(n)) != 1 {
		return errorf("h5: mallopt(M_TRIM_THRESHOLD, %d) failed", n)
	}
	return nil
}
