//go:build cgo && linux

package h5

import (
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestTransferKnowsDriver: a transfer learns its file's driver from what was recorded
// when its dataset was created or opened, in a file or in a group, so collective and
// independent writes and reads ask HDF5 nothing about the file (no H5Iget_file_id and
// H5Fclose around H5Dwrite). Closing forgets every identifier; a dataset the package did
// not hand out still gets its driver from HDF5.
func TestTransferKnowsDriver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "driver.h5")
	shape := []uint64{8}
	tr := wholeTransfer(plan.I32, shape)
	buf := randBytes(3, 32)
	before := driverQueries
	f := must(CreateFile(path, Access{}))
	g := must(CreateGroup(f, "/g"))
	d := must(CreateDataset(g, "d", plan.DatasetSpec{Type: plan.I32, Shape: shape}))
	like := must(CreateLike(f, "/like", d, Override{Dims: shape, Layout: LayoutContiguous, Deflate: -1}))
	for _, id := range []ID{d, like} {
		for _, coll := range []bool{false, true} {
			ok(t, Write(id, tr, coll, buf))
			ok(t, Read(id, tr, coll, buf))
		}
	}
	ok(t, WriteRows(like, 0, 8, true, buf))
	ok(t, CloseDataset(like))
	ok(t, CloseDataset(d))
	ok(t, CloseGroup(g))
	ok(t, CloseFile(f))

	f = must(OpenFile(path, Access{FileSpec: plan.FileSpec{ReadOnly: true}}))
	g = must(OpenGroup(f, "/g"))
	d = must(OpenDataset(g, "d"))
	ok(t, Read(d, tr, true, buf))
	if n := driverQueries - before; n != 0 {
		t.Errorf("transfers asked HDF5 for their file's driver %d times, want 0", n)
	}
	if v, known := objMPIO[d]; !known || v {
		t.Errorf("dataset opened in a serial file: recorded %v (known %v), want false", v, known)
	}
	// An identifier the package does not know: HDF5 is asked, once per transfer.
	delete(objMPIO, d)
	ok(t, Read(d, tr, true, buf))
	if n := driverQueries - before; n != 1 {
		t.Errorf("unknown dataset: %d queries, want 1", n)
	}
	ok(t, CloseDataset(d))
	ok(t, CloseGroup(g))
	ok(t, CloseFile(f))
	for _, id := range []ID{f, g, d, like} {
		if _, known := objMPIO[id]; known {
			t.Errorf("identifier %d still recorded after its close", id)
		}
	}
}
