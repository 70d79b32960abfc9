//go:build cgo && linux

package h5

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/plan"
)

// TestTransferRun: a run of writes, then of reads, of 16-element hyperslabs of one
// dataset (IOR's transfers: one block, stride one block), with a point-list transfer in
// the middle (made alone: it needs Go around its calls), moves exactly the bytes Write and
// Read move one by one, and gives each transfer a time. A run whose third transfer fails
// (a hyperslab past the extent, a hyperslab of the wrong rank, a closed dataset) makes
// the two before it and stops with the error Read gives for that transfer alone.
func TestTransferRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.h5")
	f := must(CreateFile(path, Access{}))
	d := must(CreateDataset(f, "/d", plan.DatasetSpec{Type: plan.I64, Shape: []uint64{64}}))
	slab := func(at uint64) *plan.Transfer {
		return &plan.Transfer{MemType: plan.I64, MemShape: []uint64{16}, FileShape: []uint64{64},
			Selection: plan.Selection{Blocks: []plan.Hyperslab{{Start: []uint64{at}, Stride: []uint64{16}, Count: []uint64{1}, Block: []uint64{16}}}}}
	}
	points := &plan.Transfer{MemType: plan.I64, MemShape: []uint64{2}, FileShape: []uint64{64},
		Selection: plan.PointList([][]uint64{{16}, {17}})}
	whole := &plan.Transfer{MemType: plan.I64, MemShape: []uint64{64}, FileShape: []uint64{64}, Selection: plan.WholeSpace([]uint64{64})}
	if !Runnable(slab(0)) || Runnable(points) || Runnable(whole) {
		t.Fatalf("Runnable: a hyperslab %v, a point list %v, H5S_ALL %v; want true, false, false",
			Runnable(slab(0)), Runnable(points), Runnable(whole))
	}
	ts := []*plan.Transfer{slab(0), slab(16), points, slab(32), slab(48)}
	data := randBytes(7, 4*128+16)
	bufs := [][]byte{data[0:128], data[128:256], data[256:272], data[272:400], data[400:528]}
	ds := []ID{d, d, d, d, d}
	coll := make([]bool, len(ts))
	took := make([]time.Duration, len(ts))
	if n, err := TransferRun(ds, ts, coll, bufs, true, took); n != len(ts) || err != nil {
		t.Fatalf("a run of %d writes: %d made, %v", len(ts), n, err)
	}
	for i, d := range took {
		if d <= 0 {
			t.Errorf("write %d took %v", i, d)
		}
	}
	// Read back one by one, then in a run: the same bytes, the points' write (elements
	// 16 and 17) after the second slab's.
	one := make([][]byte, len(ts))
	run := make([][]byte, len(ts))
	for i, tr := range ts {
		one[i], run[i] = make([]byte, len(bufs[i])), make([]byte, len(bufs[i]))
		ok(t, Read(d, tr, false, one[i]))
	}
	if n, err := TransferRun(ds, ts, coll, run, false, took); n != len(ts) || err != nil {
		t.Fatalf("a run of %d reads: %d made, %v", len(ts), n, err)
	}
	want := append([]byte(nil), bufs[0]...)
	want = append(want, bufs[2]...)
	want = append(want, bufs[1][16:]...)
	if got := append(append([]byte(nil), run[0]...), run[1]...); !bytes.Equal(got, want) {
		t.Errorf("elements 0..31 read in a run differ from those written")
	}
	for i := range ts {
		if !bytes.Equal(one[i], run[i]) {
			t.Errorf("transfer %d: the run read other bytes than Read", i)
		}
	}

	past := slab(56)
	rank2 := &plan.Transfer{MemType: plan.I64, MemShape: []uint64{16}, FileShape: []uint64{64},
		Selection: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{0, 0}, []uint64{1, 16})}}}
	closed := must(OpenDataset(f, "/d"))
	ok(t, CloseDataset(closed))
	mark := newIDMark()
	for _, c := range []struct {
		name string
		d    ID
		t    *plan.Transfer
	}{{"past the extent", d, past}, {"rank 2", d, rank2}, {"closed dataset", closed, slab(0)}} {
		buf := make([]byte, 128)
		alone := Read(c.d, c.t, false, buf)
		if alone == nil {
			t.Fatalf("%s: Read succeeded", c.name)
		}
		n, err := TransferRun([]ID{d, d, c.d, d}, []*plan.Transfer{slab(0), slab(16), c.t, slab(32)}, make([]bool, 4),
			[][]byte{make([]byte, 128), make([]byte, 128), buf, make([]byte, 128)}, false, took)
		if n != 2 || err == nil || err.Error() != alone.Error() {
			t.Errorf("%s: a run made %d with %v; want 2 and Read's error %v", c.name, n, err, alone)
		}
	}
	if open, _ := leakedSince(mark, newIDMark()); len(open) != 0 {
		t.Errorf("failed runs left identifiers open: %v", open)
	}
	ok(t, CloseDataset(d))
	ok(t, CloseFile(f))
}
