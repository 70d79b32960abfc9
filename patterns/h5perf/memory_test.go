package h5perf

import (
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// TestMallocModel: glibc's choices for h5perf's per-iteration buffer, as measured on the
// real program: a 4 MiB buffer is a fresh mapping in the first iteration (strace: one
// mmap/munmap of 4198400 bytes), fresh heap in the second, resident after that; small
// buffers come from the heap from the start; a larger size maps again.
func TestMallocModel(t *testing.T) {
	var m mallocModel
	for i, want := range []bool{true, true, false, false} {
		if got := m.alloc(4 << 20); got != want {
			t.Errorf("4 MiB iteration %d: fresh %v, want %v", i+1, got, want)
		}
	}
	if m.threshold != 4198400 {
		t.Errorf("threshold %d after freeing the mapping, want 4198400", m.threshold)
	}
	if m.alloc(1<<20) || m.alloc(64<<10) {
		t.Error("a smaller buffer after a larger one is fresh")
	}
	if !m.alloc(8<<20) || !m.alloc(8<<20) || m.alloc(8<<20) {
		t.Error("8 MiB after 4 MiB: want mapped, heap growth, resident")
	}
	var s mallocModel
	if !s.alloc(64<<10) || s.alloc(64<<10) {
		t.Error("64 KiB: want fresh heap once, then resident")
	}
	var big mallocModel
	for i := 0; i < 3; i++ {
		if !big.alloc(64 << 20) {
			t.Errorf("64 MiB iteration %d resident: above the largest dynamic threshold every buffer is a fresh mapping", i+1)
		}
	}
}

// readBuffers are the buffer names of a step's reads and writes.
func readBuffers(t *testing.T, p *Pattern, step int, env patterns.Env) (reads, writes []string) {
	t.Helper()
	pl, err := p.Step(patterns.PhaseWrite, step, env)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range pl.Ops {
		switch op.Kind {
		case plan.Read:
			reads = append(reads, op.Transfer.Buffer)
		case plan.Write:
			writes = append(writes, op.Transfer.Buffer)
		}
	}
	return reads, writes
}

// TestFreshReadBuffers: the reads of an iteration whose buffer h5perf gets fresh land in
// an untouched buffer of their own (both files of the iteration), the others in the
// resident write buffer; a second API in the same process (h5perf's next do_pio calls)
// finds the heap resident. Writes always come from the write buffer.
func TestFreshReadBuffers(t *testing.T) {
	const rank = 5 // a rank no other test plans for: the malloc state is per process
	processMalloc.Lock()
	delete(processMalloc.byRank, rank)
	processMalloc.Unlock()
	env := patterns.Env{Rank: rank, Size: 8, Path: "/d/h5perf", Seed: 1}
	posix := newPattern(t, "api=posix", "num-bytes=4M", "xfer-size=4M", "block-size=1M", "num-files=2", "num-iterations=3")
	want := []string{"h5perf:fresh:0", "h5perf:fresh:0", "h5perf:fresh:1", "h5perf:fresh:1", writeBuffer, writeBuffer}
	for step := 0; step < posix.Steps(); step++ {
		reads, writes := readBuffers(t, posix, step, env)
		if step%2 == 0 {
			if len(reads) != 0 || len(writes) != 1 || writes[0] != writeBuffer {
				t.Errorf("write step %d: reads %v, writes %v", step, reads, writes)
			}
			continue
		}
		if len(reads) != 1 || reads[0] != want[step/2] {
			t.Errorf("read step %d (iteration %d, file %d): buffers %v, want %s", step, step/4, step/2%2+1, reads, want[step/2])
		}
	}
	if again, _ := readBuffers(t, posix, 1, env); again[0] != "h5perf:fresh:0" {
		t.Errorf("replanning iteration 0 changed its buffer to %s", again[0])
	}
	mpio := newPattern(t, "api=mpiio", "num-bytes=4M", "xfer-size=4M", "block-size=1M", "num-iterations=2")
	for step := 1; step < mpio.Steps(); step += 2 {
		if reads, _ := readBuffers(t, mpio, step, env); reads[0] != writeBuffer {
			t.Errorf("MPIO after POSIX, read step %d into %s: h5perf's heap is resident by then", step, reads[0])
		}
	}
}
