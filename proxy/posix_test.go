package proxy_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// rawKV is the VPIC case whose raw files TestPosixLayout compares byte for byte.
const rawKV = "MEM_PATTERN=CONTIG;FILE_PATTERN=CONTIG;NUM_DIMS=1;DIM_1=1024;COLLECTIVE_DATA=YES"

// rawVariants are the runs of rawKV whose files checkRawFiles compares.
var rawVariants = []struct{ name, kv, mode string }{
	{"native", "", "sync"},
	{"posix", ";layout=posix", "sync"},
	{"mpiio", ";layout=mpiio", "sync"},
	{"posix-fpr", ";layout=posix;posix.file_per_rank=YES", "sync"},
	{"posix-direct", ";layout=posix;posix.odirect=YES;posix.fsync=both", "async"},
}

// TestPosixLayout writes every VPIC combination through the posix layout under every mode
// at 1, 2 and 4 ranks and reads it back verified, and the same with one file per rank. At
// 2 ranks it also writes one case natively, through mpiio, through posix with one file per
// rank and through posix with O_DIRECT; the parent then checks the offsets: every
// dataset's bytes sit in the posix file where HDF5's contiguous allocation in creation
// order puts them and equal the native file's values, the mpiio and O_DIRECT files are the
// same bytes, and the per-rank files are the shared file split by rank (each sparse where
// the other rank's data lies).
func TestPosixLayout(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, rankCounts...) {
		checkRawFiles(t, dir)
		return
	}
	size := world(t).Size()
	for _, mode := range modes {
		for _, c := range combos {
			writeReadVerify(t, combo{c.name, c.kv + ";layout=posix", c.read}, mode, fileOf(dir, "posix-"+c.name+"-"+mode, size), size)
		}
	}
	for _, c := range combos[:3] {
		writeReadVerify(t, combo{c.name, c.kv + ";layout=posix;posix.file_per_rank=YES", c.read}, "async", fileOf(dir, "posix-fpr-"+c.name, size), size)
	}
	if size != 2 {
		return
	}
	for _, v := range rawVariants {
		writeReadVerify(t, combo{v.name, rawKV + v.kv, true}, v.mode, filepath.Join(dir, "raw-"+v.name+".h5"), size)
	}
}

// checkRawFiles checks the 2-rank raw files of TestPosixLayout against the native file.
func checkRawFiles(t *testing.T, dir string) {
	t.Helper()
	file := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, "raw-"+name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	posix := file("posix.h5")
	// The datasets in creation order (the write phase's plans on rank 0), each after the
	// previous one.
	cfg := config(t, rawKV, filepath.Join(dir, "raw-native.h5"))
	pat, err := cfg.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	env := patterns.Env{Rank: 0, Size: 2, Path: filepath.Join(dir, "raw-native.h5")}
	var ops []plan.Op
	add := func(p plan.Plan, err error) {
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, p.Ops...)
	}
	add(pat.Begin(patterns.PhaseWrite, env))
	for step := 0; step < pat.Steps(); step++ {
		add(pat.Step(patterns.PhaseWrite, step, env))
	}
	add(pat.End(patterns.PhaseWrite, pat.Steps(), env))
	native, err := h5.OpenFile(env.Path, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(native)
	var off, datasets int
	for _, op := range ops {
		if op.Kind != plan.CreateDataset {
			continue
		}
		d := op.Dataset
		n := int(plan.Product(d.Shape))
		want := make([]byte, n*d.Type.Size)
		id, err := h5.OpenDataset(native, op.Path)
		if err != nil {
			t.Fatal(err)
		}
		err = h5.Read(id, &plan.Transfer{MemType: d.Type, MemShape: d.Shape, FileType: d.Type, FileShape: d.Shape, Selection: plan.All(d.Shape)}, false, want)
		h5.CloseDataset(id)
		if err != nil {
			t.Fatal(err)
		}
		if off+len(want) > len(posix) || !bytes.Equal(posix[off:off+len(want)], want) {
			t.Errorf("posix file: %s at offset %d differs from the native dataset", op.Path, off)
		}
		off += len(want)
		datasets++
	}
	if datasets != 8*timesteps || off != len(posix) {
		t.Errorf("posix file: %d bytes, %d datasets of %d bytes", len(posix), datasets, off)
	}
	for _, other := range []string{"mpiio", "posix-direct"} {
		if !bytes.Equal(file(other+".h5"), posix) {
			t.Errorf("the %s file differs from the posix file", other)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "raw-posix-fpr.h5")); err == nil {
		t.Error("posix.file_per_rank created the shared file")
	}
	r0, r1 := file(fmt.Sprintf("posix-fpr.h5.%08d", 0)), file(fmt.Sprintf("posix-fpr.h5.%08d", 1))
	if len(r0) != len(posix) || len(r1) != len(posix) {
		t.Fatalf("per-rank files of %d and %d bytes, want %d each", len(r0), len(r1), len(posix))
	}
	// Every byte is one rank's; the other's file has a hole (zeros) there.
	for i := range posix {
		if r0[i]|r1[i] != posix[i] || (r0[i] != 0 && r1[i] != 0) {
			t.Fatalf("byte %d: rank files %#x and %#x, shared file %#x", i, r0[i], r1[i], posix[i])
		}
	}
	// Rank 1's part of the first dataset is in its file, not rank 0's.
	half := 1024 * 4
	if bytes.Equal(r0[half:2*half], posix[half:2*half]) || !bytes.Equal(r1[half:2*half], posix[half:2*half]) {
		t.Error("rank 1's part of the first dataset is not in rank 1's file alone")
	}
}
