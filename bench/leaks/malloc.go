//go:build cgo

package main

/*
#include <malloc.h>

// h5p_one_arena makes glibc serve every thread from one arena (see oneArena).
static void h5p_one_arena(void) { mallopt(M_ARENA_MAX, 1); }

// h5p_malloc_inuse is the C heap in use: small chunks plus mmapped blocks.
static size_t h5p_malloc_inuse(void) {
	struct mallinfo2 m = mallinfo2();
	return m.uordblks + m.hblkhd;
}
*/
import "C"

// oneArena limits glibc malloc to one arena. With several, the memory HDF5 allocates and
// frees on the background modes' executor threads stays in per-thread arenas that glibc
// does not give back: RSS then wanders by a few MiB (subfiling × async drifted +7.7% over
// 2,000 sessions with the C heap in use flat), which is the allocator's retention, not a
// leak. Called before any session, so no arena but the main one exists yet.
func oneArena() { C.h5p_one_arena() }

// mallocInUse returns the bytes of C heap in use (HDF5, MPI, the library's C side).
func mallocInUse() int64 { return int64(C.h5p_malloc_inuse()) }
