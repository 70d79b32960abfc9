package posix

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// newLayout builds the layout with the given keys (no MPI: the tests use per-rank files).
func newLayout(t *testing.T, kv ...options.KV) *posixLayout {
	t.Helper()
	v, err := stack.Options().Parse(kv)
	if err != nil {
		t.Fatal(err)
	}
	s, err := stack.LookupLayout("posix")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(v); err != nil {
		t.Fatal(err)
	}
	l, err := s.NewLayout(stack.Env{Settings: v})
	if err != nil {
		t.Fatal(err)
	}
	return l.(*posixLayout)
}

// fileOp is a file operation of a per-rank file.
func fileOp(kind plan.OpKind, path string, step int, readOnly bool) *plan.Op {
	return &plan.Op{Kind: kind, Path: path, Step: step, File: &plan.FileSpec{ReadOnly: readOnly}}
}

// dataset creates a 1-D I32 dataset of n elements.
func dataset(path string, n uint64) *plan.Op {
	return &plan.Op{Kind: plan.CreateDataset, Path: path, Dataset: &plan.DatasetSpec{Type: plan.I32, Shape: []uint64{n}}}
}

// xfer is a transfer of n I32 elements from start of a dataset of size elements.
func xfer(kind plan.OpKind, path string, step int, size, start, n uint64) *plan.Op {
	return &plan.Op{Kind: kind, Path: path, Step: step, Transfer: &plan.Transfer{MemType: plan.I32, FileType: plan.I32,
		MemShape: []uint64{n}, FileShape: []uint64{size}, Selection: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{start}, []uint64{n})}}}}
}

// run executes op and fails the test on an error.
func run(t *testing.T, l *posixLayout, op *plan.Op, buf []byte) {
	t.Helper()
	if err := l.Exec(op, buf); err != nil {
		t.Fatalf("%s %s: %v", op.Kind, op.Path, err)
	}
}

// pattern is n bytes that differ from their neighbours.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

// TestRoundTrip writes two datasets and part of a third, checks the file's bytes at the
// offsets of HDF5's contiguous allocation (the unwritten part and the tail grown at close
// read as zeros), then reads selections back, also through O_DIRECT with unaligned
// offsets, sizes and memory (the bounce buffer).
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.h5")
	l := newLayout(t, options.KV{Key: "posix.fsync", Value: "both"})
	a, b := pattern(4000, 1), pattern(3000, 2)
	for _, op := range []*plan.Op{fileOp(plan.CreateFile, path, 0, false), dataset("/a", 1000), dataset("/b", 750), dataset("/c", 2048)} {
		run(t, l, op, nil)
	}
	run(t, l, xfer(plan.Write, "/a", 0, 1000, 0, 1000), a)
	run(t, l, xfer(plan.Write, "/b", 0, 750, 0, 750), b)
	run(t, l, xfer(plan.Write, "/c", 0, 2048, 1, 2), a[:8])
	run(t, l, &plan.Op{Kind: plan.FlushFile, Path: path}, nil)
	run(t, l, fileOp(plan.CloseFile, path, 0, false), nil)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append(append(append([]byte{}, a...), b...), make([]byte, 4)...), a[:8]...)
	want = append(want, make([]byte, 7000+4*2048-len(want))...)
	if !bytes.Equal(got, want) {
		t.Fatalf("file of %d bytes differs from the expected layout (%d bytes)", len(got), len(want))
	}
	for _, direct := range []bool{false, true} {
		run(t, l, fileOp(plan.OpenFile, path, 1, true), nil)
		l.direct = direct
		for _, op := range []*plan.Op{{Kind: plan.OpenDataset, Path: "/a"}, {Kind: plan.OpenDataset, Path: "/b"}} {
			run(t, l, op, nil)
		}
		mem := make([]byte, 1+4*600)[1:] // unaligned memory
		run(t, l, xfer(plan.Read, "/b", 1, 750, 33, 600), mem)
		if !bytes.Equal(mem, b[4*33:4*633]) {
			t.Errorf("direct=%v: read of /b differs", direct)
		}
		run(t, l, xfer(plan.Read, "/a", 1, 1000, 999, 1), mem[:4])
		if !bytes.Equal(mem[:4], a[3996:]) {
			t.Errorf("direct=%v: read of /a's last element differs", direct)
		}
		if shape, err := l.Shape("/b"); err != nil || len(shape) != 1 || shape[0] != 750 {
			t.Errorf("shape of /b: %v %v", shape, err)
		}
		run(t, l, fileOp(plan.CloseFile, path, 1, true), nil)
		l.direct = false
	}
}

// TestDirectAlignment writes aligned data through O_DIRECT (from unaligned memory) and
// refuses an unaligned write before writing anything, naming the keys.
func TestDirectAlignment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.h5")
	l := newLayout(t, options.KV{Key: "posix.odirect", Value: "YES"}, options.KV{Key: "posix.alignment", Value: "4KiB"})
	for _, op := range []*plan.Op{fileOp(plan.CreateFile, path, 0, false), dataset("/a", 2048), dataset("/b", 1000)} {
		run(t, l, op, nil)
	}
	data := pattern(1+8192, 3)[1:]
	run(t, l, xfer(plan.Write, "/a", 0, 2048, 0, 2048), data)
	err := l.Exec(xfer(plan.Write, "/b", 4, 1000, 0, 1000), data[:4000])
	for _, want := range []string{"posix layout: write /b in " + path + " (step 4)", "4000 bytes at offset 8192", "posix.alignment=4096", "posix.odirect=YES"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("unaligned write: %v, want %q", err, want)
		}
	}
	run(t, l, fileOp(plan.CloseFile, path, 0, false), nil)
	got, _ := os.ReadFile(path)
	if len(got) != 8192+4000 || !bytes.Equal(got[:8192], data) || !bytes.Equal(got[8192:], make([]byte, 4000)) {
		t.Errorf("file: %d bytes, want /a's 8192 then 4000 zeros", len(got))
	}
}

// TestErrors: failures name the operation, the file and the step, and what was written
// before stays in the file.
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	l := newLayout(t)
	missing := filepath.Join(dir, "no", "f.h5")
	err := l.Exec(fileOp(plan.CreateFile, missing, 3, false), nil)
	for _, want := range []string{"create-file " + missing + " (step 3)", "no such file or directory"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing directory: %v, want %q", err, want)
		}
	}
	// A full device: the write fails with ENOSPC.
	if _, err := os.Stat("/dev/full"); err == nil {
		run(t, l, fileOp(plan.CreateFile, "/dev/full", 0, false), nil)
		run(t, l, dataset("/a", 4), nil)
		err = l.Exec(xfer(plan.Write, "/a", 5, 4, 0, 4), make([]byte, 16))
		for _, want := range []string{"write /dev/full (step 5)", "pwrite of 16 bytes at offset 0 (dataset /a)", "no space left on device"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("full device: %v, want %q", err, want)
			}
		}
		if err := l.Abort(); err != nil {
			t.Error(err)
		}
	}
	// A file opened read-only refuses writes; a failed step keeps what was written.
	path := filepath.Join(dir, "f.h5")
	a := pattern(40, 9)
	for _, op := range []*plan.Op{fileOp(plan.CreateFile, path, 0, false), dataset("/a", 10), dataset("/b", 10)} {
		run(t, l, op, nil)
	}
	run(t, l, xfer(plan.Write, "/a", 0, 10, 0, 10), a)
	if err := l.Exec(xfer(plan.Write, "/b", 1, 11, 0, 11), make([]byte, 44)); err == nil || !strings.Contains(err.Error(), "elements 0 to 10 selected, the dataset has 10") {
		t.Errorf("write past the extent: %v", err)
	}
	if err := l.Abort(); err != nil {
		t.Error(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, a) {
		t.Errorf("after the failure the file holds %d bytes, want /a's 40", len(got))
	}
	run(t, l, fileOp(plan.OpenFile, path, 2, true), nil)
	err = l.Exec(xfer(plan.Write, "/a", 2, 10, 0, 10), a)
	if err == nil || !strings.Contains(err.Error(), "write "+path+" (step 2)") || !strings.Contains(err.Error(), "bad file descriptor") {
		t.Errorf("write to a read-only file: %v", err)
	}
	run(t, l, fileOp(plan.CloseFile, path, 2, true), nil)
	if err := l.Exec(xfer(plan.Read, "/a", 2, 10, 0, 10), a); err == nil || !strings.Contains(err.Error(), "no file is open") {
		t.Errorf("read with no file open: %v", err)
	}
}

// TestOptions: a bad alignment and a bad fsync value are errors naming the key.
func TestOptions(t *testing.T) {
	s, _ := stack.LookupLayout("posix")
	for _, tc := range []struct {
		kv   options.KV
		want string
	}{
		{options.KV{Key: "posix.alignment", Value: "3000"}, `"posix.alignment" value "3000": not a power of two`},
		{options.KV{Key: "posix.alignment", Value: "256"}, `"posix.alignment"`},
		{options.KV{Key: "posix.fsync", Value: "sometimes"}, `"posix.fsync" value "sometimes"`},
	} {
		v, err := stack.Options().Parse([]options.KV{tc.kv})
		if err == nil {
			err = s.Validate(v)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.kv, err, tc.want)
		}
	}
}
