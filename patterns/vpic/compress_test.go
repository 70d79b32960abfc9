package vpic

import (
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// TestCompressFilter: each COMPRESS_FILTER value gives the datasets its filter (GZIP is
// deflate 9, h5bench's filter without the key), only with COMPRESS=YES; SZIP needs chunks
// of its block; a filter HDF5 cannot load stops Begin before any operation.
func TestCompressFilter(t *testing.T) {
	for _, c := range []struct {
		filter  string
		deflate int
		filters []plan.Filter
	}{
		{"", 9, nil},
		{"GZIP", 9, nil},
		{"SZIP", 0, []plan.Filter{{ID: plan.FilterSZIP, CDValues: []uint32{plan.SZIPNearestNeighbour, 16}}}},
		{"N_BIT", 0, []plan.Filter{{ID: plan.FilterNBit}}},
		{"SZ3", 0, []plan.Filter{{ID: plan.FilterSZ3}}},
		{"ZFP", 0, []plan.Filter{{ID: plan.FilterZFP}}},
	} {
		pairs := []string{"NUM_DIMS=2", "DIM_1=8", "DIM_2=4", "COMPRESS=YES", "CHUNK_DIM_1=4", "CHUNK_DIM_2=4"}
		if c.filter != "" {
			pairs = append(pairs, "COMPRESS_FILTER="+c.filter)
		}
		p := kit.Must(t, pairs...)
		pl, err := p.Step(patterns.PhaseWrite, 0, env(1, 2))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, op := range pl.Ops {
			if op.Kind != plan.CreateDataset {
				continue
			}
			n++
			d := op.Dataset
			if d.Deflate != c.deflate || !reflect.DeepEqual(d.Filters, c.filters) || !reflect.DeepEqual(d.Chunk, []uint64{4, 4}) {
				t.Errorf("%s: %s chunk %v deflate %d filters %+v, want deflate %d filters %+v", c.filter, op.Path, d.Chunk, d.Deflate, d.Filters, c.deflate, c.filters)
			}
		}
		if n != 8 {
			t.Errorf("%s: %d datasets created", c.filter, n)
		}
	}

	// Without COMPRESS the filter does nothing: contiguous datasets.
	pl, err := kit.Must(t, "COMPRESS_FILTER=SZIP").Step(patterns.PhaseWrite, 0, env(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range pl.Ops {
		if op.Kind == plan.CreateDataset && (op.Dataset.Chunk != nil || op.Dataset.Filters != nil || op.Dataset.Deflate != 0) {
			t.Errorf("COMPRESS=NO: %s", op)
		}
	}

	if _, _, err := kit.Build("COMPRESS=YES", "COMPRESS_FILTER=SZIP", "DIM_1=64", "CHUNK_DIM_1=8"); err == nil ||
		!strings.Contains(err.Error(), `"COMPRESS_FILTER"`) || !strings.Contains(err.Error(), "at least 16 elements") {
		t.Errorf("SZIP with 8-element chunks: %v", err)
	}
	if _, _, err := kit.Build("COMPRESS=YES", "COMPRESS_FILTER=LZ4"); err == nil || !strings.Contains(err.Error(), "GZIP, SZIP, N_BIT, SZ3, ZFP") {
		t.Errorf("unknown filter: %v", err)
	}

	// Availability: asked in Begin, before the file is created.
	missing := func(id uint32) bool { return id != plan.FilterSZ3 }
	for _, c := range []struct {
		filter string
		fails  bool
	}{{"SZ3", true}, {"ZFP", false}, {"GZIP", false}} {
		p := kit.Must(t, "COMPRESS=YES", "COMPRESS_FILTER="+c.filter, "DIM_1=64", "CHUNK_DIM_1=16")
		e := env(0, 2)
		e.FilterAvailable = missing
		pl, err := p.Begin(patterns.PhaseWrite, e)
		if c.fails != (err != nil) {
			t.Errorf("%s: Begin error %v, want failure %v", c.filter, err, c.fails)
		}
		if c.fails && (len(pl.Ops) != 0 || !strings.Contains(err.Error(), `key "COMPRESS_FILTER" value "SZ3"`) || !strings.Contains(err.Error(), "SZ3's H5Z filter plugin")) {
			t.Errorf("SZ3 unavailable: %d ops, %v", len(pl.Ops), err)
		}
	}
	// The read kernel and the modify kernels create no dataset: no check there.
	e := env(0, 2)
	e.FilterAvailable = func(uint32) bool { return false }
	if _, err := kit.Must(t, "COMPRESS=YES", "COMPRESS_FILTER=SZ3").Begin(patterns.PhaseRead, e); err != nil {
		t.Errorf("read Begin: %v", err)
	}
}
