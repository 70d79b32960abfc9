//go:build cgo

package mpi

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/internal/mpitest"
)

// nps are the rank counts of every multi-rank test; 4 ranks oversubscribe 2 cores.
var nps = []int{1, 2, 4}

// startMPI initializes MPI in a launched child and finalizes it when the test ends. A failed
// rank exits without MPI_Finalize, which would wait for ranks stuck in a collective; mpirun
// then takes the job down and the parent reports it.
func startMPI(t *testing.T) Comm {
	t.Helper()
	if _, _, err := Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			if err := Finalize(); err != nil {
				t.Error(err)
			}
		}
	})
	return World()
}

// withMaxCount lowers the per-call count limit for the duration of f, to exercise the
// chunked and derived-datatype paths with small buffers.
func withMaxCount(n int, f func()) {
	old := maxCount
	maxCount = n
	defer func() { maxCount = old }()
	f()
}

// nilDeref dereferences a nil pointer and returns the recovered panic.
func nilDeref() (r any) {
	defer func() { r = recover() }()
	var p *int
	return *p
}

func TestInitFinalize(t *testing.T) {
	if mpitest.Run(t, nps...) {
		return
	}
	if Initialized() || Finalized() {
		t.Fatal("MPI is initialized before Init")
	}
	if r := World().Rank(); r != -1 {
		t.Errorf("World().Rank() before Init = %d, want -1", r)
	}
	if _, err := FromFortran(0); !errors.Is(err, ErrNotActive) {
		t.Errorf("FromFortran before Init: err = %v, want ErrNotActive", err)
	}
	if err := World().Barrier(); !errors.Is(err, ErrNotActive) {
		t.Errorf("Barrier before Init: err = %v, want ErrNotActive", err)
	}
	if !strings.Contains(LibraryVersion(), "Open MPI") {
		t.Errorf("LibraryVersion() = %q, want Open MPI's", LibraryVersion())
	}
	// OpenMPI 4.1 implements MPI 3.1 (what IOR prints as MPIIO's apiVersion).
	if major, minor := StandardVersion(); major != 3 || minor != 1 {
		t.Errorf("StandardVersion() = %d.%d, want 3.1 (OpenMPI 4.1)", major, minor)
	}

	os.Unsetenv("OMPI_MCA_opal_signal")
	provided, owned, err := Init()
	if err != nil {
		t.Fatal(err)
	}
	if provided != ThreadMultiple || !owned {
		t.Errorf("Init() = %v, owned %v; want %v, owned", provided, owned, ThreadMultiple)
	}
	if v, ok := os.LookupEnv("OMPI_MCA_opal_signal"); !ok || v != "" {
		t.Errorf("OMPI_MCA_opal_signal = %q (set %v), want set and empty", v, ok)
	}
	// An MPI signal handler in place of the Go runtime's would turn this into an abort.
	if r := nilDeref(); r == nil || !strings.Contains(r.(error).Error(), "nil pointer dereference") {
		t.Errorf("recovered %v, want a nil pointer dereference panic", r)
	}
	if !Initialized() {
		t.Error("Initialized() = false after Init")
	}
	if again, owned, err := Init(); err != nil || owned || again != provided {
		t.Errorf("second Init() = %v, owned %v, %v; want %v, not owned", again, owned, err, provided)
	}
	if l, err := QueryThread(); err != nil || l != ThreadMultiple {
		t.Errorf("QueryThread() = %v, %v", l, err)
	}
	if ProcessorName() == "" {
		t.Error("ProcessorName() is empty")
	}
	if t0, t1 := Wtime(), Wtime(); t1 < t0 {
		t.Errorf("Wtime went back from %v to %v", t0, t1)
	}

	if err := Finalize(); err != nil {
		t.Fatal(err)
	}
	if Initialized() || !Finalized() {
		t.Errorf("after Finalize: Initialized %v, Finalized %v", Initialized(), Finalized())
	}
	if err := Finalize(); !errors.Is(err, ErrNotActive) {
		t.Errorf("second Finalize: err = %v, want ErrNotActive", err)
	}
	if _, _, err := Init(); err == nil {
		t.Error("Init after Finalize succeeded")
	}
}

func TestCollectives(t *testing.T) {
	if mpitest.Run(t, nps...) {
		return
	}
	w := startMPI(t)
	rank, size := w.Rank(), w.Size()
	if want, _ := strconv.Atoi(os.Getenv("OMPI_COMM_WORLD_SIZE")); size != want {
		t.Fatalf("Size() = %d, launched %d", size, want)
	}
	if want, _ := strconv.Atoi(os.Getenv("OMPI_COMM_WORLD_RANK")); rank != want {
		t.Fatalf("Rank() = %d, launcher says %d", rank, want)
	}
	n := int64(size)

	t.Run("allgather", func(t *testing.T) {
		got, err := w.AllgatherFloat64([]float64{float64(rank), float64(rank * rank)})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2*size {
			t.Fatalf("%d values, want %d", len(got), 2*size)
		}
		for r := range size {
			if got[2*r] != float64(r) || got[2*r+1] != float64(r*r) {
				t.Errorf("rank %d's values = %v, want [%d %d]", r, got[2*r:2*r+2], r, r*r)
			}
		}
	})

	t.Run("allreduce int64", func(t *testing.T) {
		in := []int64{int64(rank), -int64(rank), 1<<40 + int64(rank)}
		tri := n * (n - 1) / 2
		want := map[Op][]int64{
			OpMin: {0, -(n - 1), 1 << 40},
			OpMax: {n - 1, 0, 1<<40 + n - 1},
			OpSum: {tri, -tri, n<<40 + tri},
		}
		for _, op := range []Op{OpMin, OpMax, OpSum} {
			got, err := w.AllreduceInt64(in, op)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want[op]) {
				t.Errorf("%v = %v, want %v", op, got, want[op])
			}
		}
	})

	t.Run("allreduce float64", func(t *testing.T) {
		in := []float64{float64(rank) + 0.5, -float64(rank) * 0.25}
		f := float64(n)
		want := map[Op][]float64{
			OpMin: {0.5, -(f - 1) * 0.25},
			OpMax: {f - 0.5, 0},
			OpSum: {f*(f-1)/2 + f*0.5, -f * (f - 1) / 2 * 0.25},
		}
		for _, op := range []Op{OpMin, OpMax, OpSum} {
			got, err := w.AllreduceFloat64(in, op)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want[op]) {
				t.Errorf("%v = %v, want %v", op, got, want[op])
			}
		}
	})

	t.Run("empty", func(t *testing.T) {
		if got, err := w.AllreduceInt64(nil, OpSum); err != nil || len(got) != 0 {
			t.Errorf("AllreduceInt64(nil) = %v, %v", got, err)
		}
		if got, err := w.AllgatherFloat64(nil); err != nil || len(got) != 0 {
			t.Errorf("AllgatherFloat64(nil) = %v, %v", got, err)
		}
		if _, err := w.AllreduceInt64([]int64{1}, Op(7)); err == nil {
			t.Error("Allreduce with an unknown Op succeeded")
		}
	})

	t.Run("bcast", func(t *testing.T) {
		root := size - 1
		msg := func(n int) []byte {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(i*7 + root)
			}
			return b
		}
		for _, tc := range []struct {
			name string
			len  int
			max  int
		}{{"one call", 1000 + root, maxCount}, {"pieces", 100, 7}, {"empty", 0, maxCount}} {
			var buf []byte
			if rank == root {
				buf = msg(tc.len)
			}
			var got []byte
			var err error
			withMaxCount(tc.max, func() { got, err = w.BcastBytes(buf, root) })
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if !bytes.Equal(got, msg(tc.len)) {
				t.Errorf("%s: rank %d got %d bytes, not root %d's %d", tc.name, rank, len(got), root, tc.len)
			}
		}
		if _, err := w.BcastBytes(nil, size); err == nil {
			t.Errorf("BcastBytes with root %d of %d succeeded", size, size)
		}
	})

	if err := w.Barrier(); err != nil {
		t.Error(err)
	}
}

func TestCommunicators(t *testing.T) {
	if mpitest.Run(t, nps...) {
		return
	}
	w := startMPI(t)
	rank, size := w.Rank(), w.Size()

	t.Run("fortran", func(t *testing.T) {
		c, err := FromFortran(w.Fortran())
		if err != nil {
			t.Fatal(err)
		}
		if c.Fortran() != w.Fortran() || c.Rank() != rank || c.Size() != size {
			t.Errorf("round trip of handle %d gave handle %d, rank %d of %d", w.Fortran(), c.Fortran(), c.Rank(), c.Size())
		}
		for _, bogus := range []int{123456, -5, (Comm{}).Fortran()} {
			_, err := FromFortran(bogus)
			if want := "invalid communicator handle " + strconv.Itoa(bogus); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("FromFortran(%d): err = %v, want %q", bogus, err, want)
			}
		}
	})

	t.Run("split parity", func(t *testing.T) {
		half, err := w.Split(rank%2, rank)
		if err != nil {
			t.Fatal(err)
		}
		want := (size + 1 - rank%2) / 2 // evens get the extra rank of an odd size
		if half.Size() != want || half.Rank() != rank/2 {
			t.Errorf("rank %d: half rank %d of %d, want %d of %d", rank, half.Rank(), half.Size(), rank/2, want)
		}
		members, err := half.AllgatherFloat64([]float64{float64(rank)})
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range members {
			if int(m) != 2*i+rank%2 {
				t.Errorf("rank %d: half members %v", rank, members)
				break
			}
		}
		if err := half.Free(); err != nil {
			t.Error(err)
		}
	})

	t.Run("split undefined", func(t *testing.T) {
		color := 0
		if rank%2 == 1 {
			color = -1
		}
		evens, err := w.Split(color, 0)
		if err != nil {
			t.Fatal(err)
		}
		if rank%2 == 1 {
			if !evens.IsNull() || evens.Rank() != -1 {
				t.Errorf("odd rank %d: got a communicator of size %d", rank, evens.Size())
			}
			if err := evens.Barrier(); !errors.Is(err, ErrNullComm) {
				t.Errorf("Barrier on null: err = %v, want ErrNullComm", err)
			}
			return
		}
		if evens.IsNull() || evens.Size() != (size+1)/2 {
			t.Errorf("even rank %d: size %d, want %d", rank, evens.Size(), (size+1)/2)
		}
		if err := evens.Free(); err != nil {
			t.Error(err)
		}
	})

	t.Run("node", func(t *testing.T) {
		node, err := w.SplitNode()
		if err != nil {
			t.Fatal(err)
		}
		if node.Size() != size || node.Rank() != rank {
			t.Errorf("node rank %d of %d, want %d of %d on one node", node.Rank(), node.Size(), rank, size)
		}
		if err := node.Free(); err != nil {
			t.Error(err)
		}
		if got, err := w.NodeCount(); err != nil || got != 1 {
			t.Errorf("NodeCount() = %d, %v; want 1", got, err)
		}
	})

	t.Run("dup", func(t *testing.T) {
		d, err := w.Dup()
		if err != nil {
			t.Fatal(err)
		}
		if d.Rank() != rank || d.Size() != size || d.Fortran() == w.Fortran() {
			t.Errorf("dup: rank %d of %d handle %d; world: rank %d of %d handle %d",
				d.Rank(), d.Size(), d.Fortran(), rank, size, w.Fortran())
		}
		if err := d.Barrier(); err != nil {
			t.Error(err)
		}
		if err := d.Free(); err != nil {
			t.Error(err)
		}
		if err := w.Free(); err == nil {
			t.Error("freeing MPI_COMM_WORLD succeeded")
		}
	})
}

func TestFile(t *testing.T) {
	if mpitest.Run(t, nps...) {
		return
	}
	w := startMPI(t)
	rank, size := w.Rank(), w.Size()
	path := sharedPath(t, w, "baseline.dat")
	var err error

	// Rank r writes a block of blockLen(r) bytes (rank 1 none) in each of two collective
	// regions, the second through the derived-datatype path, then 10 bytes of its own.
	blockLen := func(r int) int {
		if r == 1 {
			return 0
		}
		return 1000 + 37*r
	}
	fill := func(region, r, n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(region*101 + r*31 + i*7)
		}
		return b
	}
	offsets := make([]int64, size+1)
	for r := range size {
		offsets[r+1] = offsets[r] + int64(blockLen(r))
	}
	region := offsets[size]
	want := make([]byte, 0, 2*region+10*int64(size))
	for reg := range 2 {
		for r := range size {
			want = append(want, fill(reg, r, blockLen(r))...)
		}
	}
	for r := range size {
		want = append(want, fill(2, r, 10)...)
	}

	f, err := OpenFile(w, path, Create)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.WriteAtAll(offsets[rank], fill(0, rank, blockLen(rank))); err != nil {
		t.Fatal(err)
	}
	withMaxCount(64, func() { err = f.WriteAtAll(region+offsets[rank], fill(1, rank, blockLen(rank))) })
	if err != nil {
		t.Fatal(err)
	}
	if err := f.WriteAt(2*region+10*int64(rank), fill(2, rank, 10)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err == nil {
		t.Error("second Close succeeded")
	}
	if err := f.WriteAt(0, []byte{1}); err == nil {
		t.Error("WriteAt on a closed file succeeded")
	}

	// Every rank reads the whole file back, collectively and through the OS.
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Errorf("os.ReadFile: %d bytes (%v), want %d matching bytes", len(got), err, len(want))
	}
	r, err := OpenFile(w, path, ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, max := range []int{maxCount, 64} {
		got := make([]byte, len(want))
		withMaxCount(max, func() { err = r.ReadAtAll(0, got) })
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("ReadAtAll (count limit %d): %v, data match %v", max, err, bytes.Equal(got, want))
		}
	}
	if err := r.ReadAtAll(int64(len(want))-5, make([]byte, 10)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("ReadAtAll past the end: err = %v, want io.ErrUnexpectedEOF", err)
	}
	if err := r.WriteAtAll(0, []byte{1}); err == nil {
		t.Error("writing a read-only file succeeded")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	// Reopened read-write: the contents stay, a write lands in place and reads back.
	rw, err := OpenFile(w, path, ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	for r := range size { // every rank's patch, as the file will hold them
		copy(want[2*region+10*int64(r):], fill(3, r, 10))
	}
	if err := rw.WriteAtAll(2*region+10*int64(rank), fill(3, rank, 10)); err != nil {
		t.Fatal(err)
	}
	// MPI-IO's consistency rule for another rank's bytes: sync, barrier, sync.
	for _, step := range []func() error{rw.Sync, w.Barrier, rw.Sync} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	got := make([]byte, len(want))
	if err := rw.ReadAtAll(0, got); err != nil || !bytes.Equal(got, want) {
		t.Errorf("read-write reopen: %v, data match %v", err, bytes.Equal(got, want))
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}

	_, err = OpenFile(w, filepath.Join(filepath.Dir(path), "missing.dat"), ReadOnly)
	var merr *Error
	if !errors.As(err, &merr) || merr.Msg == "" || !strings.Contains(err.Error(), "missing.dat") {
		t.Errorf("opening a missing file: err = %#v, want an *Error naming the file", err)
	}
	if err := w.Barrier(); err != nil {
		t.Fatal(err)
	}
	if rank == 0 {
		if err := DeleteFile(path); err != nil {
			t.Error(err)
		}
		if err := DeleteFile(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("deleting a deleted file: err = %v, want fs.ErrNotExist", err)
		}
	}
	// Rank 0's temporary directory goes when its test ends: nobody may still use it.
	if err := w.Barrier(); err != nil {
		t.Fatal(err)
	}
}

// TestRunsViewAll: every rank writes its interleaved blocks (block k of rank r at
// (k × size + r) × 64, from its buffer in reverse block order; the last rank of several
// none) with one collective call through a file view, then reads them back the same way
// and with independent reads: each block sits at its offset, taken from its place in the
// buffer. A view over the end of the file reads short, an error.
func TestRunsViewAll(t *testing.T) {
	if mpitest.Run(t, nps...) {
		return
	}
	w := startMPI(t)
	rank, size := w.Rank(), w.Size()
	path := sharedPath(t, w, "runs.dat")
	const blk, nblk = 64, 3
	blocks := nblk
	if size > 1 && rank == size-1 {
		blocks = 0
	}
	buf := make([]byte, blk*nblk)
	for i := range buf {
		buf[i] = byte(rank*50 + i*3 + 1)
	}
	var runs []Run
	for k := 0; k < blocks; k++ {
		runs = append(runs, Run{Off: int64((k*size + rank) * blk), Mem: int64((nblk - 1 - k) * blk), Len: blk})
	}
	f, err := OpenFile(w, path, Create)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.RunsViewAll(true, runs, buf); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := OpenFile(w, path, ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	back := make([]byte, len(buf))
	if err := r.RunsViewAll(false, runs, back); err != nil {
		t.Fatal(err)
	}
	for _, run := range runs {
		one := make([]byte, blk)
		if err := r.ReadAt(run.Off, one); err != nil {
			t.Fatal(err)
		}
		want := buf[run.Mem : run.Mem+blk]
		if !bytes.Equal(one, want) || !bytes.Equal(back[run.Mem:run.Mem+blk], want) {
			t.Fatalf("rank %d: block at %d: file %v, view read %v, want %v", rank, run.Off, one[:4], back[run.Mem:run.Mem+4], want[:4])
		}
	}
	past := []Run{{Off: int64(blk * nblk * size * 2), Mem: 0, Len: blk}}
	if err := r.RunsViewAll(false, past, back); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("read past the end: %v", err)
	}
	if err := r.RunsViewAll(true, runs, buf); err == nil {
		t.Error("a write through a read-only file succeeded")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestIORView: IOR's file view (2 segments, blocks of 3 transfers of 16 bytes): every
// rank writes its transfers at view positions 0..5, collectively, and they land at IOR's
// byte offsets s·N·B + r·B + j·T; the file read plainly and through the view of the next
// task (a reordered read) gives them back. Offsets at explicit positions are refused once
// the view is set, as are a transfer of the wrong size, a second view and bad geometry.
func TestIORView(t *testing.T) {
	if mpitest.Run(t, nps...) {
		return
	}
	w := startMPI(t)
	rank, size := w.Rank(), w.Size()
	path := sharedPath(t, w, "ior.dat")
	const T, B, S = 16, 48, 2
	val := func(task, k int) []byte { return bytes.Repeat([]byte{byte(task*16 + k + 1)}, T) }
	f, err := OpenFile(w, path, Create)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][4]int{{12, B, size, rank}, {T, 40, size, rank}, {T, B, size, size}} {
		if err := f.SetIORView(int64(bad[0]), int64(bad[1]), bad[2], bad[3]); err == nil {
			t.Errorf("SetIORView%v succeeded", bad)
		}
	}
	if err := f.SetIORView(T, B, size, rank); err != nil {
		t.Fatal(err)
	}
	if err := f.SetIORView(T, B, size, rank); err == nil {
		t.Error("a second view succeeded")
	}
	for k := 0; k < S*B/T; k++ {
		if err := f.ViewIO(true, true, int64(k), val(rank, k)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.ViewIO(true, false, 0, make([]byte, T+8)); err == nil {
		t.Error("a transfer of the wrong size succeeded")
	}
	if err := f.WriteAt(0, make([]byte, T)); err == nil || !strings.Contains(err.Error(), "use ViewIO") {
		t.Errorf("WriteAt through IOR's view: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := OpenFile(w, path, ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	next := (rank + 1) % size
	for k := 0; k < S*B/T; k++ {
		s, j := k/(B/T), k%(B/T)
		got := make([]byte, T)
		if err := r.ReadAt(int64(s*size*B+rank*B+j*T), got); err != nil || !bytes.Equal(got, val(rank, k)) {
			t.Fatalf("rank %d transfer %d at byte %d: %v %v", rank, k, s*size*B+rank*B+j*T, got[:2], err)
		}
	}
	if err := r.SetIORView(T, B, size, next); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < S*B/T; k++ {
		got := make([]byte, T)
		if err := r.ViewIO(false, k%2 == 0, int64(k), got); err != nil || !bytes.Equal(got, val(next, k)) {
			t.Fatalf("rank %d: view read of task %d's transfer %d: %v %v", rank, next, k, got[:2], err)
		}
	}
	if err := r.ViewIO(true, true, 0, make([]byte, T)); err == nil {
		t.Error("a write through a read-only file succeeded")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// sharedPath is name in a temporary directory rank 0 makes, the same path on every rank.
func sharedPath(t *testing.T, w Comm, name string) string {
	t.Helper()
	var dir []byte
	if w.Rank() == 0 {
		dir = []byte(t.TempDir())
	}
	dir, err := w.BcastBytes(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(string(dir), name)
}

// TestRun: a run of transfers made from one C loop (File.Run) writes and reads what the
// same transfers made one by one do, in both explicit-offset and IOR-view kinds, with a
// time per transfer; a run stops at the first transfer that fails (a read past the end of
// the file, a check before any call) with the error that transfer gives alone, after
// making the ones before it.
func TestRun(t *testing.T) {
	if mpitest.Run(t, 1, 2) {
		return
	}
	w := startMPI(t)
	rank, size := w.Rank(), w.Size()
	path := sharedPath(t, w, "run.dat")
	const T, S = 4096, 5 // transfer bytes, transfers per rank
	val := func(r, k int) []byte { return bytes.Repeat([]byte{byte(r*16 + k + 1)}, T) }
	off := func(r, k int) int64 { return int64(k*size+r) * T }
	f, err := OpenFile(w, path, Create)
	if err != nil {
		t.Fatal(err)
	}
	var xs []Xfer
	for k := range S {
		kind := WriteAtAll
		if k%2 == 1 {
			kind = WriteAt
		}
		xs = append(xs, Xfer{Kind: kind, Off: off(rank, k), Buf: val(rank, k)})
	}
	took := make([]time.Duration, len(xs))
	start := time.Now()
	n, err := f.Run(xs, took)
	el := time.Since(start)
	if n != S || err != nil {
		t.Fatalf("write run: %d of %d transfers: %v", n, S, err)
	}
	var sum time.Duration
	for k, d := range took {
		if d <= 0 {
			t.Errorf("write transfer %d took %v", k, d)
		}
		sum += d
	}
	if sum > el {
		t.Errorf("the transfers took %v in all, longer than the run's %v", sum, el)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 0, S*size*T)
	for k := range S {
		for r := range size {
			want = append(want, val(r, k)...)
		}
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("file after the write run: %d bytes, %v; want %d", len(got), err, len(want))
	}

	// Reads: every transfer of the next rank, collective then independent, as a run and
	// one by one; then a run whose third read is past the end of the file.
	r, err := OpenFile(w, path, ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	next := (rank + 1) % size
	bufs := make([][]byte, S)
	xs = xs[:0]
	for k := range S {
		bufs[k] = make([]byte, T)
		xs = append(xs, Xfer{Kind: []XferKind{ReadAtAll, ReadAt}[k%2], Off: off(next, k), Buf: bufs[k]})
	}
	if n, err := r.Run(xs, nil); n != S || err != nil {
		t.Fatalf("read run: %d of %d: %v", n, S, err)
	}
	for k := range S {
		one := make([]byte, T)
		if err := r.ReadAtAll(off(next, k), one); err != nil || !bytes.Equal(one, val(next, k)) || !bytes.Equal(bufs[k], one) {
			t.Fatalf("transfer %d: run read %v, alone %v (%v), want %v", k, bufs[k][:2], one[:2], err, val(next, k)[:2])
		}
	}
	end := int64(S * size * T)
	past := []Xfer{{ReadAtAll, 0, make([]byte, T)}, {ReadAtAll, T, make([]byte, T)}, {ReadAtAll, end - T/2, make([]byte, T)}, {ReadAtAll, 0, make([]byte, T)}}
	took = make([]time.Duration, len(past))
	n, err = r.Run(past, took)
	alone := r.ReadAtAll(end-T/2, make([]byte, T))
	if n != 2 || !errors.Is(err, io.ErrUnexpectedEOF) || alone == nil || err.Error() != alone.Error() {
		t.Errorf("run past the end: %d done, %v; want 2 and the read's own error %v", n, err, alone)
	}
	if !bytes.Equal(past[1].Buf, want[T:2*T]) || took[2] <= 0 || took[3] != 0 {
		t.Errorf("run past the end: second read %v, took %v", past[1].Buf[:2], took)
	}
	bad := []Xfer{{ReadAt, 0, make([]byte, T)}, {ReadAt, -8, make([]byte, T)}}
	n, err = r.Run(bad, nil)
	alone = r.ReadAt(-8, make([]byte, T))
	if n != 1 || err == nil || alone == nil || err.Error() != alone.Error() || !bytes.Equal(bad[0].Buf, want[:T]) {
		t.Errorf("run with a negative offset: %d done, %v; want 1 and %v", n, err, alone)
	}
	if n, err := r.Run([]Xfer{{WriteAt, 0, make([]byte, T)}}, nil); n != 0 || err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("a write run on a read-only file: %d, %v", n, err)
	}
	if n, err := r.Run([]Xfer{{XferKind(99), 0, nil}}, nil); n != 0 || err == nil || !strings.Contains(err.Error(), "unknown kind") {
		t.Errorf("a run of an unknown kind: %d, %v", n, err)
	}

	// Through IOR's view (blocks of one transfer per task): the view kinds read what the
	// explicit offsets wrote.
	if err := r.SetIORView(T, T, size, next); err != nil {
		t.Fatal(err)
	}
	xs = xs[:0]
	for k := range S {
		clear(bufs[k])
		xs = append(xs, Xfer{Kind: []XferKind{ViewReadAll, ViewRead}[k%2], Off: int64(k), Buf: bufs[k]})
	}
	if n, err := r.Run(xs, nil); n != S || err != nil {
		t.Fatalf("view read run: %d of %d: %v", n, S, err)
	}
	for k := range S {
		if !bytes.Equal(bufs[k], val(next, k)) {
			t.Fatalf("view transfer %d: %v, want %v", k, bufs[k][:2], val(next, k)[:2])
		}
	}
	n, err = r.Run([]Xfer{{ViewReadAll, 0, bufs[0]}, {ViewRead, S, bufs[1]}, {ViewReadAll, 1, bufs[2]}}, nil)
	alone = r.ViewIO(false, false, S, bufs[1])
	if n != 1 || !errors.Is(err, io.ErrUnexpectedEOF) || alone == nil || err.Error() != alone.Error() {
		t.Errorf("view run past the end: %d done, %v; want 1 and %v", n, err, alone)
	}
	n, err = r.Run([]Xfer{{ViewRead, 0, bufs[0]}, {ViewRead, 1, make([]byte, T/2)}}, nil)
	alone = r.ViewIO(false, false, 1, make([]byte, T/2))
	if n != 1 || err == nil || alone == nil || err.Error() != alone.Error() {
		t.Errorf("view run with a short buffer: %d done, %v; want 1 and %v", n, err, alone)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
