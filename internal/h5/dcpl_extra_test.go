//go:build cgo && linux

package h5

import (
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestCompactAndFillAlloc: a zero-size compact dataset and a chunked one with the ALLOC
// fill time read back so; a compact dataset with chunks or a filter, or both fill times,
// is refused by the plan's validation.
func TestCompactAndFillAlloc(t *testing.T) {
	path := filepath.Join(t.TempDir(), "extra.h5")
	f := must(CreateFile(path, Access{}))
	ok(t, CloseDataset(must(CreateDataset(f, "/empty", plan.DatasetSpec{Type: plan.U32, Shape: []uint64{0, 1}, Compact: true}))))
	ok(t, CloseDataset(must(CreateDataset(f, "/alloc", plan.DatasetSpec{Type: plan.F64, Shape: []uint64{8}, Chunk: []uint64{4}, Deflate: 1, Tuning: plan.DatasetTuning{FillTime: plan.FillTimeAlloc}}))))
	ok(t, CloseDataset(must(CreateDataset(f, "/plain", plan.DatasetSpec{Type: plan.F64, Shape: []uint64{8}}))))
	ok(t, CloseFile(f))
	f = must(OpenFile(path, Access{FileSpec: plan.FileSpec{ReadOnly: true, Tuning: plan.FileTuning{Core: true}}}))
	defer func() { ok(t, CloseFile(f)) }()
	for _, tc := range []struct {
		name             string
		compact, alloc   bool
		shape0, chunkLen int
	}{{"/empty", true, false, 0, 0}, {"/alloc", false, true, 8, 1}, {"/plain", false, false, 8, 0}} {
		d := must(OpenDataset(f, tc.name))
		info := must(DatasetInfo(d))
		ok(t, CloseDataset(d))
		if info.Compact != tc.compact || info.FillAlloc != tc.alloc || int(info.Shape[0]) != tc.shape0 || len(info.Chunk) != tc.chunkLen {
			t.Errorf("%s: %+v", tc.name, info)
		}
	}
	for _, bad := range []plan.DatasetSpec{
		{Type: plan.U8, Shape: []uint64{4}, Compact: true, Chunk: []uint64{2}},
		{Type: plan.U8, Shape: []uint64{4}, Compact: true, Deflate: 1},
	} {
		pl := plan.Plan{Ops: []plan.Op{{Kind: plan.CreateDataset, Path: "/x", Dataset: &bad}}}
		if err := pl.Validate(); err == nil {
			t.Errorf("%+v validated", bad)
		}
	}
}
