package h5perf

import (
	"fmt"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/h5proxy/h5proxy/options"
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
// threshold and the heap's resident size (a chunk freed into the heap merges with its top
// and serves the next request without new pages). The heap starts with the threshold's
// 128 KiB resident: glibc grows it by the request plus a 128 KiB pad (M_TOP_PAD) and MPI
// and HDF5 have grown it before the first buffer; real h5perf runs with 64 KiB buffers
// fault the same pages at -i 1 and -i 5.
type mallocModel struct {
	threshold, heap int64
}

// bufferState is where an iteration's buffer comes from.
type bufferState int

const (
	resident    bufferState = iota // memory the process touched before
	freshHeap                      // heap growth: fresh pages at a heap address
	freshMapped                    // a new mapping: fresh pages, the buffer 16 bytes past a page boundary
)

// mappedOffset is where glibc's malloc puts a mapped chunk's memory: past the chunk's
// 16-byte header, 16 bytes after the page boundary (measured on the real h5perf with a
// malloc-logging preload: its first 4 MiB buffer at page + 16, the later heap ones at
// other offsets).
const mappedOffset = 2 * mallocHeader

// alloc models malloc(n) followed, at the iteration's end, by free: it reports where the n
// bytes come from. A heap that must grow is counted fresh as a whole (glibc would reuse
// its resident part).
func (m *mallocModel) alloc(n int64) bufferState {
	if m.threshold == 0 {
		m.threshold, m.heap = mmapThreshold0, mmapThreshold0
	}
	nb := max((n+mallocHeader+mallocAlign-1)&^(mallocAlign-1), mallocMinChunk)
	switch {
	case nb <= m.heap:
		return resident
	case nb >= m.threshold:
		// A fresh mapping; free unmaps it and raises the threshold to its size.
		if size := (nb + mallocHeader + pageSize - 1) &^ (pageSize - 1); size > m.threshold && size <= mmapThresholdX {
			m.threshold = size
		}
		return freshMapped
	}
	m.heap = nb
	return freshHeap
}

// processMalloc is the malloc state of each rank's process, across sessions: h5perf runs
// every API and transfer size in one process, as `h5proxy h5perf` runs its sessions.
// Ranks share a process only in tests.
var processMalloc = struct {
	sync.Mutex
	byRank map[int]*mallocModel
}{byRank: map[int]*mallocModel{}}

// iterationBuffer tells where iteration it's transfer buffer of n bytes comes from for
// rank: decided once per pattern and iteration, in the process's order.
func (p *Pattern) iterationBuffer(rank, it int, n int64) bufferState {
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
		p.fresh = map[[2]int]bufferState{}
	}
	p.fresh[k] = f
	return f
}

// freshBuffer names the memory of fresh iteration it: untouched until the iteration's
// first write transfers it as it is (zeros, mapping the zero page as h5perf's write of its
// uninitialized buffer does), then every read of the iteration lands in it, the first
// faulting its pages in inside the Read timer as h5perf's. The iteration's other writes
// come from the seeded write buffer (h5perf's buffer is resident by then too), and
// iterations that are not fresh read into that buffer, resident since its first fill.
func freshBuffer(it int) string { return "h5perf:fresh:" + strconv.Itoa(it) }

// writeBuffer is the pool buffer every write transfers from.
const writeBuffer = "h5perf:buffer"

// buffersPerRank is how many transfer-sized buffers a rank holds at once: the seeded
// data, the zeros of a fresh iteration, and the session's write and fresh read buffers.
const buffersPerRank = 4

// CheckMemory refuses a run whose transfer buffers cannot fit in this machine's memory
// (h5perf's malloc would fail; Go's runtime would abort the whole process instead of
// returning an error). physical is the machine's memory in bytes; 0 reads it.
func (c Config) CheckMemory(g Geometry, physical uint64) error {
	if physical == 0 {
		var si unix.Sysinfo_t
		if err := unix.Sysinfo(&si); err != nil {
			return nil // unknown: let the allocation decide
		}
		physical = uint64(si.Totalram) * uint64(si.Unit)
	}
	if need := uint64(g.PerXfer) * buffersPerRank; g.PerXfer > 0 && need/buffersPerRank == uint64(g.PerXfer) && need <= physical {
		return nil
	}
	what := "xfer-size"
	if c.Dim2D {
		what = "xfer-size x block-size in 2-D"
	}
	return &options.Error{Table: "h5perf", Key: "xfer-size", Value: strconv.FormatInt(c.Xfer, 10),
		Reason: fmt.Sprintf("transfer buffer of %d bytes per process (%s) does not fit in this machine's %d bytes of memory (%d buffers per process)", g.PerXfer, what, physical, buffersPerRank)}
}

// Check is Geometry followed by CheckMemory against this machine: every check a run passes
// before any I/O.
func (c Config) Check(procs int) (Geometry, error) {
	g, err := c.Geometry(procs)
	if err == nil {
		err = c.CheckMemory(g, 0)
	}
	return g, err
}
