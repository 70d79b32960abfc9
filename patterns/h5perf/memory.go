package h5perf

import (
	"strconv"
	"sync"
)

// h5perf's transfer buffer (pio_engine.c, do_pio): malloc'd once per iteration (one do_pio
// call), used by every file's write and read of the iteration, freed at its end, and
// touched only by the I/O itself (memset with -D v). So whether an iteration's read lands
// on fresh pages, paying the first-touch faults inside the Read timer, is glibc's malloc's
// choice: a request at or above the mmap threshold (128 KiB at start) is a fresh mapping,
// and freeing it raises the threshold to its size (up to 32 MiB), so the next one comes
// from the heap, fresh where the heap grows and resident from then on. Measured on the real
// h5perf (`-e 32M -x 4M -X 4M -B 1M`, /usr/bin/time minor faults per rank): -i 2 and -i 3
// fault the same 2 × 2048 pages of the buffer, an -A mpiio run after posix none; strace
// shows one mmap/munmap of 4198400 bytes, in the first iteration only.

// Glibc's malloc constants on 64-bit Linux (malloc.c): header, alignment, page, initial
// and largest dynamic mmap threshold.
const (
	mallocHeader   = 8
	mallocAlign    = 16
	mallocMinChunk = 32
	pageSize       = 4096
	mmapThreshold0 = 128 << 10
	mmapThresholdX = 32 << 20
)

// mallocModel is one process's glibc state for h5perf's buffers: the dynamic mmap
// threshold and the heap's high-water mark (a chunk freed into the heap merges with its
// top and serves the next request without new pages).
type mallocModel struct {
	threshold, heap int64
}

// alloc models malloc(n) followed, at the iteration's end, by free: it reports whether
// the n bytes are fresh pages. A heap that must grow is counted fresh as a whole (glibc
// would reuse its resident part).
func (m *mallocModel) alloc(n int64) bool {
	if m.threshold == 0 {
		m.threshold = mmapThreshold0
	}
	nb := max((n+mallocHeader+mallocAlign-1)&^(mallocAlign-1), mallocMinChunk)
	switch {
	case nb <= m.heap:
		return false
	case nb >= m.threshold:
		// A fresh mapping; free unmaps it and raises the threshold to its size.
		if size := (nb + mallocHeader + pageSize - 1) &^ (pageSize - 1); size > m.threshold && size <= mmapThresholdX {
			m.threshold = size
		}
		return true
	}
	m.heap = nb
	return true
}

// processMalloc is the malloc state of each rank's process, across sessions: h5perf runs
// every API and transfer size in one process, as `h5proxy h5perf` runs its sessions.
// Ranks share a process only in tests.
var processMalloc = struct {
	sync.Mutex
	byRank map[int]*mallocModel
}{byRank: map[int]*mallocModel{}}

// freshIteration reports whether iteration it's transfer buffer of n bytes is fresh
// memory for rank: decided once per pattern and iteration, in the process's order.
func (p *Pattern) freshIteration(rank, it int, n int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := [2]int{rank, it}
	if f, ok := p.fresh[k]; ok {
		return f
	}
	processMalloc.Lock()
	m := processMalloc.byRank[rank]
	if m == nil {
		m = &mallocModel{}
		processMalloc.byRank[rank] = m
	}
	f := m.alloc(n)
	processMalloc.Unlock()
	if p.fresh == nil {
		p.fresh = map[[2]int]bool{}
	}
	p.fresh[k] = f
	return f
}

// readBuffer names the memory iteration it reads into. A fresh iteration reads into a
// buffer of its own, untouched until the read faults it in inside the Read timer as
// h5perf's does (later files of the iteration find it resident); the others into the
// write buffer, resident since its first fill. Writes always come from the seeded write
// buffer, filled outside the timers (h5perf's fresh buffer only maps the zero page there).
func (p *Pattern) readBuffer(rank, it int, n int64) string {
	if p.freshIteration(rank, it, n) {
		return "h5perf:fresh:" + strconv.Itoa(it)
	}
	return writeBuffer
}

// writeBuffer is the pool buffer every write transfers from.
const writeBuffer = "h5perf:buffer"
