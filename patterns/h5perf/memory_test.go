package h5perf

import (
	"bytes"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// TestMallocModel: glibc's choices for h5perf's per-iteration buffer, as measured on the
// real program: a 4 MiB buffer is a fresh mapping in the first iteration (strace: one
// mmap/munmap of 4198400 bytes), fresh heap in the second, resident after that; small
// buffers (below the 128 KiB threshold) come from the resident heap from the start; a
// larger size maps again.
func TestMallocModel(t *testing.T) {
	var m mallocModel
	for i, want := range []bufferState{freshMapped, freshHeap, resident, resident} {
		if got := m.alloc(4 << 20); got != want {
			t.Errorf("4 MiB iteration %d: %v, want %v", i+1, got, want)
		}
	}
	if m.threshold != 4198400 {
		t.Errorf("threshold %d after freeing the mapping, want 4198400", m.threshold)
	}
	if m.alloc(1<<20) != resident || m.alloc(64<<10) != resident {
		t.Error("a smaller buffer after a larger one is fresh")
	}
	if m.alloc(8<<20) != freshMapped || m.alloc(8<<20) != freshHeap || m.alloc(8<<20) != resident {
		t.Error("8 MiB after 4 MiB: want mapped, heap growth, resident")
	}
	var s mallocModel
	if s.alloc(64<<10) != resident || s.alloc(64<<10) != resident {
		t.Error("64 KiB: want the resident heap from the start")
	}
	if s.alloc(256<<10) != freshMapped || s.alloc(256<<10) != freshHeap || s.alloc(256<<10) != resident {
		t.Error("256 KiB: want mapped, heap growth, resident")
	}
	var big mallocModel
	for i := 0; i < 3; i++ {
		if big.alloc(64<<20) != freshMapped {
			t.Errorf("64 MiB iteration %d: above the largest dynamic threshold every buffer is a fresh mapping", i+1)
		}
	}
}

// transfers are a step's reads and writes.
func transfers(t *testing.T, p *Pattern, step int, env patterns.Env) (reads, writes []*plan.Transfer) {
	t.Helper()
	pl, err := p.Step(patterns.PhaseWrite, step, env)
	if err != nil {
		t.Fatal(err)
	}
	if err := pl.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, op := range pl.Ops {
		switch op.Kind {
		case plan.Read:
			reads = append(reads, op.Transfer)
		case plan.Write:
			writes = append(writes, op.Transfer)
		}
	}
	return reads, writes
}

// TestFreshBuffers: in an iteration whose buffer h5perf gets fresh, the first write
// transfers an untouched buffer as it is (zeros) and every read of the iteration (both
// files) lands in that buffer, the first read checked against zeros; the first iteration's
// buffer (a new mapping) starts 16 bytes past a page boundary, as glibc places it, the
// second's (heap growth) page-aligned; the other writes come from the seeded write buffer,
// and iterations that are not fresh read into it. A second
// API in the same process (h5perf's next do_pio calls) finds the heap resident.
func TestFreshBuffers(t *testing.T) {
	const rank = 5 // a rank no other test plans for: the malloc state is per process
	processMalloc.Lock()
	delete(processMalloc.byRank, rank)
	processMalloc.Unlock()
	env := patterns.Env{Rank: rank, Size: 8, Path: "/d/h5perf", Seed: 1}
	posix := kit.Must(t, "api=posix", "num-bytes=8M", "xfer-size=4M", "block-size=1M", "num-files=2", "num-iterations=3")
	zero := func(b []byte) bool { return !bytes.ContainsFunc(b, func(r rune) bool { return r != 0 }) }
	for step := 0; step < posix.Steps(); step++ {
		it, file, read := step/4, step/2%2+1, step%2 == 1
		fresh := it < 2
		reads, writes := transfers(t, posix, step, env)
		xs := writes
		if read {
			xs = reads
		}
		if len(xs) != 2 || len(reads)+len(writes) != 2 {
			t.Fatalf("step %d: %d reads, %d writes, want 2 of one", step, len(reads), len(writes))
		}
		for k, x := range xs {
			first := fresh && file == 1 && k == 0
			wantBuf := writeBuffer
			if fresh && (read || first) {
				wantBuf = freshBuffer(it)
			}
			wantOff := 0
			if it == 0 && wantBuf != writeBuffer {
				wantOff = 16
			}
			if x.Buffer != wantBuf || x.AsIs != (first && !read) || zero(x.Data) != first || x.BufferOffset != wantOff {
				t.Errorf("iteration %d file %d read %v transfer %d: buffer %s at +%d as-is %v zero data %v", it, file, read, k, x.Buffer, x.BufferOffset, x.AsIs, zero(x.Data))
			}
		}
	}
	if again, _ := transfers(t, posix, 1, env); again[0].Buffer != freshBuffer(0) {
		t.Errorf("replanning iteration 0 changed its buffer to %s", again[0].Buffer)
	}
	mpio := kit.Must(t, "api=mpiio", "num-bytes=4M", "xfer-size=4M", "block-size=1M", "num-iterations=2")
	for step := 0; step < mpio.Steps(); step++ {
		reads, writes := transfers(t, mpio, step, env)
		for _, x := range append(reads, writes...) {
			if x.Buffer != writeBuffer || x.AsIs || zero(x.Data) {
				t.Errorf("MPIO after POSIX, step %d: buffer %s as-is %v: h5perf's heap is resident by then", step, x.Buffer, x.AsIs)
			}
		}
	}
}

// TestCheckMemory: a 2-D run whose buffer (xfer-size x block-size) cannot fit is refused
// with the size and the keys, before any allocation; one that fits passes.
func TestCheckMemory(t *testing.T) {
	c := Config{Dim2D: true, NumBPP: 1 << 20, Xfer: 256 << 10, Block: 128 << 10, NumDsets: 1, NumFiles: 1}
	g, err := c.Geometry(2)
	if err != nil {
		t.Fatal(err)
	}
	err = c.CheckMemory(g, 24<<30)
	if err == nil || !strings.Contains(err.Error(), "transfer buffer of 34359738368 bytes per process (xfer-size x block-size in 2-D)") {
		t.Fatalf("32 GiB buffer on 24 GiB: got %v", err)
	}
	c = Config{NumBPP: 1 << 20, Xfer: 256 << 10, Block: 64 << 10, NumDsets: 1, NumFiles: 1}
	if g, err = c.Geometry(2); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckMemory(g, 24<<30); err != nil {
		t.Fatalf("256 KiB buffer: %v", err)
	}
	if err := c.CheckMemory(g, 512<<10); err == nil || !strings.Contains(err.Error(), "(xfer-size)") {
		t.Fatalf("256 KiB buffer on 512 KiB: got %v", err)
	}
}

// TestPosixCreateOnEveryRank: as h5perf's POSIX do_fopen, every rank creates a POSIX file
// with O_CREAT|O_TRUNC (plan.FileSpec.TruncateEveryRank); MPIO and PHDF5 files and the
// read opens do not.
func TestPosixCreateOnEveryRank(t *testing.T) {
	env := patterns.Env{Rank: 0, Size: 2, Path: "/d/h5perf", Seed: 1}
	for _, api := range []string{"posix", "mpiio", "phdf5"} {
		p := kit.Must(t, "api="+api, "num-bytes=1M", "xfer-size=256K", "block-size=64K")
		for step, read := range []bool{false, true} {
			pl, err := p.Step(patterns.PhaseWrite, step, env)
			if err != nil {
				t.Fatal(err)
			}
			f := pl.Ops[0].File
			if want := api == "posix" && !read; f == nil || f.TruncateEveryRank != want {
				t.Errorf("%s, read %v: %s TruncateEveryRank %v, want %v", api, read, pl.Ops[0].Kind, f != nil && f.TruncateEveryRank, want)
			}
		}
	}
}
