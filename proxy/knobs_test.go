package proxy_test

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/e3sm"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
)

// knobConfig parses KEY=VALUE text for the VPIC pattern.
func knobConfig(t *testing.T, kv string) (proxy.Config, error) {
	t.Helper()
	kvs, err := proxy.ParseKV(kv + ";file=/tmp/knobs.h5")
	if err != nil {
		t.Fatal(err)
	}
	return proxy.ParseOptions("vpic", kvs)
}

// TestKnobsApply sets every knob and checks what reaches the file, dataset and transfer
// specs HDF5 gets, phase by phase, with the pattern's ops left untouched.
func TestKnobsApply(t *testing.T) {
	cfg, err := knobConfig(t, "hdf5.alignment=1M;hdf5.align_threshold=4K;hdf5.mdc_initial=8M;hdf5.mdc_max=32M;hdf5.mdc_resize=on;"+
		"hdf5.meta_block_size=1M;hdf5.small_data_block_size=64K;hdf5.sieve_buf_size=1M;read.hdf5.sieve_buf_size=4M;"+
		"hdf5.libver_low=v18;hdf5.libver_high=latest;hdf5.coll_metadata_ops=yes;hdf5.coll_metadata_write=yes;"+
		"hdf5.file_space_strategy=page;hdf5.file_space_page_size=64K;hdf5.page_buffer_size=1M;"+
		"hdf5.chunk=64x100;hdf5.deflate=4;hdf5.shuffle=yes;hdf5.fill_time=alloc;hdf5.alloc_time=incr;"+
		"read.hdf5.transfer=independent;hdf5.collective_opt=individual;hdf5.chunk_opt=one_io;"+
		"mpiio.cb_nodes=2;mpiio.hints=romio_cb_write=enable, foo=bar;mpiio.striping_unit=1M;mpiio.romio_ds_read=disable")
	if err != nil {
		t.Fatal(err)
	}
	apply := func(ph patterns.Phase, op plan.Op) *plan.Op {
		t.Helper()
		orig := op
		got, err := proxy.ApplyKnobs(cfg, ph, 2, &op)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(op, orig) {
			t.Errorf("%s: the pattern's op changed", op.Kind)
		}
		return got
	}
	fs := apply(patterns.PhaseWrite, plan.Op{Kind: plan.CreateFile, File: &plan.FileSpec{Parallel: true, LibverLatest: true}}).File
	want := plan.FileSpec{Parallel: true, CollMetadataOps: true, CollMetadataWrite: true, AlignThreshold: 4096, AlignLen: 1 << 20,
		MDCInitialSize: 8 << 20, MDCMaxSize: 32 << 20, MetaBlockSize: 1 << 20,
		Tuning: plan.FileTuning{SmallDataBlockSize: 64 << 10, SieveBufSize: 1 << 20, LibverLow: plan.LibverV18, LibverHigh: plan.LibverV110,
			MDCResize: plan.ToggleOn, FileSpaceStrategy: "page", FileSpacePageSize: 64 << 10, PageBufferSize: 1 << 20}}
	if !reflect.DeepEqual(*fs, want) {
		t.Errorf("write create:\n%+v\nwant\n%+v", *fs, want)
	}
	fs = apply(patterns.PhaseRead, plan.Op{Kind: plan.OpenFile, File: &plan.FileSpec{Parallel: true, ReadOnly: true}}).File
	if fs.Tuning.SieveBufSize != 4<<20 || fs.Tuning.FileSpaceStrategy != "" || fs.AlignLen != 1<<20 {
		t.Errorf("read open: sieve %d (want the read. override 4M), strategy %q (creates only), alignment %d",
			fs.Tuning.SieveBufSize, fs.Tuning.FileSpaceStrategy, fs.AlignLen)
	}

	ds := apply(patterns.PhaseWrite, plan.Op{Kind: plan.CreateDataset, Dataset: &plan.DatasetSpec{Type: plan.F32, Shape: []uint64{10, 1000}}}).Dataset
	if !slices.Equal(ds.Chunk, []uint64{10, 100}) || ds.Deflate != 4 ||
		ds.Tuning != (plan.DatasetTuning{Shuffle: true, FillTime: plan.FillTimeAlloc, AllocTime: plan.AllocTimeIncr}) {
		t.Errorf("2-D dataset: chunk %v (want 10x100, clamped), deflate %d, tuning %+v", ds.Chunk, ds.Deflate, ds.Tuning)
	}
	ds = apply(patterns.PhaseWrite, plan.Op{Kind: plan.CreateDataset, Dataset: &plan.DatasetSpec{Type: plan.F32, Shape: []uint64{1000}}}).Dataset
	if ds.Chunk != nil || ds.Deflate != 0 || ds.Tuning.Shuffle || ds.Tuning.FillTime != plan.FillTimeAlloc {
		t.Errorf("1-D dataset: chunk %v deflate %d tuning %+v; want contiguous, unfiltered, fill time alloc", ds.Chunk, ds.Deflate, ds.Tuning)
	}

	xfer := &plan.Transfer{MemType: plan.F32}
	w := apply(patterns.PhaseWrite, plan.Op{Kind: plan.Write, Collective: true, Transfer: xfer})
	r := apply(patterns.PhaseRead, plan.Op{Kind: plan.Read, Collective: true, Transfer: xfer})
	if !w.Collective || w.Transfer.Tuning != (plan.TransferTuning{Individual: true, ChunkOpt: plan.ChunkOptOneIO}) {
		t.Errorf("write: collective %v tuning %+v", w.Collective, w.Transfer.Tuning)
	}
	if r.Collective {
		t.Error("read: read.hdf5.transfer=independent left the transfer collective")
	}

	hints := map[string]string{"cb_nodes": "2", "romio_cb_write": "enable", "foo": "bar", "striping_unit": "1048576", "romio_ds_read": "disable"}
	if got := cfg.MPIHints(); !maps.Equal(got, hints) {
		t.Errorf("hints %v, want %v", got, hints)
	}
	if eff := cfg.Effective(); eff["read.hdf5.sieve_buf_size"] != "4M" || eff["hdf5.chunk"] != "64x100" {
		t.Errorf("effective configuration lacks the knobs: %v", eff)
	}

	// Operations no knob applies to are the pattern's own (no copy).
	hintsOnly, err := knobConfig(t, "mpiio.cb_nodes=2;hdf5.chunk=8")
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []*plan.Op{
		{Kind: plan.CreateFile, File: &plan.FileSpec{Parallel: true}},
		{Kind: plan.Write, Collective: true, Transfer: xfer},
	} {
		if got, err := proxy.ApplyKnobs(hintsOnly, patterns.PhaseWrite, 2, op); err != nil || got != op {
			t.Errorf("%s with hints and dataset knobs only: %p (%v), want the pattern's op %p", op.Kind, got, err, op)
		}
	}
}

// TestKnobErrors checks that bad knob values are refused naming the key.
func TestKnobErrors(t *testing.T) {
	for _, c := range []struct{ kv, key string }{
		{"hdf5.chunk=0x5", "hdf5.chunk"},
		{"hdf5.chunk=big", "hdf5.chunk"},
		{"mpiio.hints=cb_nodes", "mpiio.hints"},
		{"hdf5.deflate=10", "hdf5.deflate"},
		{"hdf5.align_threshold=4K", "hdf5.align_threshold"},
		{"hdf5.mdc_min=64M;hdf5.mdc_max=32M", "hdf5.mdc_min"},
		{"mpiio.impl=mpich", "mpiio.impl"},
		{"read.hdf5.chunk=8", "read.hdf5.chunk"},
		{"hdf5.libver_low=v20", "hdf5.libver_low"},
	} {
		_, err := knobConfig(t, c.kv)
		if err == nil || !strings.Contains(err.Error(), `"`+c.key+`"`) {
			t.Errorf("%s: %v, want an error naming %s", c.kv, err, c.key)
		}
	}
	cfg, err := knobConfig(t, "hdf5.core=memory")
	if err != nil {
		t.Fatal(err)
	}
	_, err = proxy.ApplyKnobs(cfg, patterns.PhaseWrite, 2, &plan.Op{Kind: plan.CreateFile, File: &plan.FileSpec{Parallel: true}})
	if err == nil || !strings.Contains(err.Error(), "hdf5.core") {
		t.Errorf("core driver on a shared file written by 2 ranks: %v", err)
	}
	op, err := proxy.ApplyKnobs(cfg, patterns.PhaseRead, 2, &plan.Op{Kind: plan.OpenFile, File: &plan.FileSpec{Parallel: true, ReadOnly: true, CollMetadataOps: true}})
	if err != nil || op.File.Parallel || op.File.CollMetadataOps || !op.File.Tuning.Core || op.File.Tuning.CoreBacking {
		t.Errorf("core driver for reads: %+v (%v), want a serial core open without backing store", op.File, err)
	}
}

// TestParseSysIO reads the fields of /proc/self/io the census keeps.
func TestParseSysIO(t *testing.T) {
	got := proxy.ParseSysIO("rchar: 10\nwchar: 20\nsyscr: 3\nsyscw: 4\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n")
	if want := []float64{3, 4, 10, 20, 4096, 8192}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// hintedPattern is a pattern whose program passes MPI-IO hints of its own.
type hintedPattern struct {
	patterns.Pattern
	hints map[string]string
}

func (h hintedPattern) MPIHints() map[string]string { return h.hints }

// TestSessionHints: a pattern's own hints (E3SM-IO's set_info) reach the files beneath the
// configuration's, which win key by key; a pattern without hints leaves the configuration's.
func TestSessionHints(t *testing.T) {
	cfg, err := knobConfig(t, "mpiio.romio_cb_write=disable;mpiio.hints=foo=bar")
	if err != nil {
		t.Fatal(err)
	}
	pat := hintedPattern{hints: map[string]string{"romio_cb_write": "enable", "romio_no_indep_rw": "true"}}
	want := map[string]string{"romio_cb_write": "disable", "romio_no_indep_rw": "true", "foo": "bar"}
	if got := proxy.SessionHints(pat, cfg); !maps.Equal(got, want) {
		t.Errorf("hints %v, want %v", got, want)
	}
	if got := proxy.SessionHints(hintedPattern{}, proxy.Config{}); got != nil {
		t.Errorf("no hints anywhere: %v, want nil", got)
	}
	var plain patterns.Pattern = struct{ patterns.Pattern }{}
	if got := proxy.SessionHints(plain, cfg); !maps.Equal(got, map[string]string{"romio_cb_write": "disable", "foo": "bar"}) {
		t.Errorf("pattern without hints: %v", got)
	}
	if _, ok := any(&e3sm.Pattern{}).(patterns.Hinter); !ok {
		t.Error("the e3sm pattern passes no hints: E3SM-IO's set_info sets four")
	}
}
