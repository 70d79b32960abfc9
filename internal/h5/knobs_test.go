//go:build cgo && linux

package h5

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// TestFileTuningReadBack sets every file knob and reads it back from the access and
// creation lists of the open file.
func TestFileTuningReadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tuned.h5")
	spec := plan.FileSpec{AlignThreshold: 8, AlignLen: 4096, MetaBlockSize: 8192, CollMetadataOps: true, CollMetadataWrite: true,
		MDCInitialSize: 4 << 20, MDCMinSize: 1 << 20, MDCMaxSize: 16 << 20,
		Tuning: plan.FileTuning{SmallDataBlockSize: 16384, SieveBufSize: 256 << 10,
			LibverLow: plan.LibverV18, LibverHigh: plan.LibverV110, MDCResize: plan.ToggleOn,
			FileSpaceStrategy: "page", FileSpacePageSize: 8192}}
	f := must(CreateFile(path, Access{FileSpec: spec}))
	got := must(FileProperties(f))
	ok(t, CloseFile(f))
	want := FileProps{AccessInfo: AccessInfo{Driver: "sec2", MetaBlock: 8192, MDCInitial: 4 << 20, MDCMax: 16 << 20, MDCResize: true,
		CollMetadataOps: true, CollMetadataWrite: true},
		SmallDataBlockSize: 16384, SieveBufSize: 256 << 10, AlignThreshold: 8, AlignLen: 4096,
		LibverLow: plan.LibverV18, LibverHigh: plan.LibverV110, MDCMin: 1 << 20,
		FileSpaceStrategy: "page", FileSpacePageSize: 8192}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}

	// The strategy and page size persist in the file.
	f = must(OpenFile(path, Access{FileSpec: plan.FileSpec{ReadOnly: true, Tuning: plan.FileTuning{MDCResize: plan.ToggleOff}}}))
	got = must(FileProperties(f))
	ok(t, CloseFile(f))
	if got.FileSpaceStrategy != "page" || got.FileSpacePageSize != 8192 || got.MDCResize {
		t.Errorf("reopened: strategy %q page %d, resize %v; want page, 8192, false", got.FileSpaceStrategy, got.FileSpacePageSize, got.MDCResize)
	}
	// A page buffer reaches HDF5. HDF5 1.10's parallel build refuses it (H5F_open: "page
	// buffering is disabled for parallel"), even for a serial open; 1.14 takes it for a
	// serial open.
	pb := plan.FileSpec{ReadOnly: true, Tuning: plan.FileTuning{PageBufferSize: 64 << 10}}
	f, err := OpenFile(path, Access{FileSpec: pb})
	if Build() == "1.10" {
		if err == nil || !strings.Contains(err.Error(), "page buffering") {
			t.Errorf("page buffer: %v, want HDF5's refusal of page buffering", err)
		}
	} else {
		if err != nil {
			t.Fatalf("page buffer, serial open: %v", err)
		}
		got = must(FileProperties(f))
		ok(t, CloseFile(f))
		if got.PageBufferSize != 64<<10 {
			t.Errorf("page buffer read back %d, want %d", got.PageBufferSize, 64<<10)
		}
	}

	// Without knobs: HDF5's defaults (the pattern's plan unchanged).
	plain := filepath.Join(t.TempDir(), "plain.h5")
	f = must(CreateFile(plain, Access{}))
	got = must(FileProperties(f))
	ok(t, CloseFile(f))
	if got.FileSpaceStrategy != "fsm_aggr" || got.SieveBufSize != 64<<10 || got.SmallDataBlockSize != 2048 || !got.MDCResize {
		t.Errorf("defaults: %+v", got)
	}
}

// TestCoreDriver writes through the core driver with and without the backing store.
func TestCoreDriver(t *testing.T) {
	dir := t.TempDir()
	for _, backing := range []bool{true, false} {
		path := filepath.Join(dir, map[bool]string{true: "backing.h5", false: "memory.h5"}[backing])
		f := must(CreateFile(path, Access{FileSpec: plan.FileSpec{Tuning: plan.FileTuning{Core: true, CoreBacking: backing}}}))
		d := must(CreateDataset(f, "/x", plan.DatasetSpec{Type: plan.U8, Shape: []uint64{100}}))
		ok(t, Write(d, wholeTransfer(plan.U8, []uint64{100}), true, randBytes(3, 100)))
		ok(t, CloseDataset(d))
		got := must(FileProperties(f))
		ok(t, CloseFile(f))
		if got.Driver != "core" || got.CoreBacking != backing {
			t.Errorf("backing %v: driver %q backing %v", backing, got.Driver, got.CoreBacking)
		}
		_, err := os.Stat(path)
		if exists := err == nil; exists != backing {
			t.Errorf("backing %v: file on disk %v (%v)", backing, exists, err)
		}
	}
	_, err := CreateFile(filepath.Join(dir, "x.h5"), Access{FileSpec: plan.FileSpec{Parallel: true, Tuning: plan.FileTuning{Core: true}}})
	if err == nil {
		t.Error("core driver on a Parallel file accepted")
	}
}

// TestDatasetTuningReadBack sets shuffle, fill and allocation times and reads them back
// from the dataset's creation list, shuffle ahead of deflate in the pipeline.
func TestDatasetTuningReadBack(t *testing.T) {
	f := must(CreateFile(filepath.Join(t.TempDir(), "ds.h5"), Access{}))
	defer CloseFile(f)
	tuned := plan.DatasetTuning{Shuffle: true, FillTime: plan.FillTimeAlloc, AllocTime: plan.AllocTimeEarly}
	d := must(CreateDataset(f, "/t", plan.DatasetSpec{Type: plan.F32, Shape: []uint64{64}, Chunk: []uint64{16}, Deflate: 2, Tuning: tuned}))
	got := must(DatasetTuning(d))
	info := must(DatasetInfo(d))
	ok(t, CloseDataset(d))
	if got != tuned {
		t.Errorf("tuning %+v, want %+v", got, tuned)
	}
	if info.Deflate != 2 || len(info.Filters) != 1 || info.Filters[0].ID != 2 {
		t.Errorf("filters: deflate %d, others %+v; want deflate 2 and shuffle (2)", info.Deflate, info.Filters)
	}
	d = must(CreateDataset(f, "/plain", plan.DatasetSpec{Type: plan.F32, Shape: []uint64{64}}))
	got = must(DatasetTuning(d))
	ok(t, CloseDataset(d))
	if want := (plan.DatasetTuning{FillTime: plan.FillTimeIfSet, AllocTime: plan.AllocTimeLate}); got != want {
		t.Errorf("untuned contiguous dataset: %+v, want HDF5's defaults %+v", got, want)
	}
}

// TestTransferTuningReadBack reads the collective and chunk optimisations and, on HDF5
// 1.14, the selection I/O mode back from the transfer lists Write and Read use; HDF5 1.10
// refuses a selection I/O mode naming the build that has it.
func TestTransferTuningReadBack(t *testing.T) {
	tunings := []plan.TransferTuning{{}, {Individual: true}, {ChunkOpt: plan.ChunkOptOneIO}, {Individual: true, ChunkOpt: plan.ChunkOptMultiIO}}
	selection := []plan.TransferTuning{{SelectionIO: plan.SelectionIODefault}, {SelectionIO: plan.SelectionIOOn},
		{Individual: true, SelectionIO: plan.SelectionIOOff}}
	if HasMultiDataset() {
		tunings = append(tunings, selection...)
	} else {
		for _, tu := range selection {
			if _, err := TransferTuningOf(tu); err == nil || !strings.Contains(err.Error(), "needs HDF5 1.14") {
				t.Errorf("selection I/O %+v on HDF5 %s: %v, want a refusal naming HDF5 1.14", tu, Version(), err)
			}
		}
	}
	for _, want := range tunings {
		if got, err := TransferTuningOf(want); err != nil || got != want {
			t.Errorf("tuning %+v read back as %+v (%v)", want, got, err)
		}
	}
}
