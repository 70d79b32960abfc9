package h5bench_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/exerciser"
)

func exerciserEntry(t *testing.T, file string, conf map[string]any) *exerciser.Pattern {
	t.Helper()
	b := map[string]any{"benchmark": "exerciser", "configuration": conf}
	if file != "" {
		b["file"] = file
	}
	data, err := json.Marshal(map[string]any{"mpi": map[string]any{"ranks": "2"}, "directory": "run", "benchmarks": []any{b}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := h5bench.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	c := f.Runs[0].Config
	if c.Pattern != "exerciser" || !slices.Equal(c.Phases, []patterns.Phase{patterns.PhaseWrite}) {
		t.Errorf("pattern %s phases %v", c.Pattern, c.Phases)
	}
	if want := filepath.Join("run", file); file != "" && c.File != want {
		t.Errorf("file %s, want %s", c.File, want)
	}
	if file == "" && (filepath.Dir(c.File) != "run" || !strings.HasPrefix(filepath.Base(c.File), "hdf5TestFile-")) {
		t.Errorf("file %s, want run/hdf5TestFile-<n>", c.File)
	}
	p, err := c.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	return p.(*exerciser.Pattern)
}

// TestExerciserSample: h5bench's samples/sync-exerciser.json (testdata, buffers smaller)
// maps every key onto the exerciser pattern.
func TestExerciserSample(t *testing.T) {
	f, err := h5bench.Load("testdata/sync-exerciser.json")
	if err != nil {
		t.Fatal(err)
	}
	c := f.Runs[0].Config
	p, err := c.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	e := p.(*exerciser.Pattern).C
	if f.MPI.Ranks != 4 || e.NumDims != 2 || !slices.Equal(e.MinEls, []uint64{4, 4}) || e.NSizes != 2 ||
		!slices.Equal(e.BufMult, []uint64{2, 2}) || !slices.Equal(e.DimRanks, []uint64{8, 4}) || e.Iterations != exerciser.Iterations {
		t.Errorf("ranks %d config %+v", f.MPI.Ranks, e)
	}
	if filepath.Dir(c.File) != "storage" || len(c.Warnings) != 0 {
		t.Errorf("file %s warnings %v", c.File, c.Warnings)
	}
}

// TestExerciserFlags: h5bench passes keepfile, usechunked, indepio, addattr and derivedtype
// only when their value is "true" (any case); the other keys go as they are, fileblocks
// and filestrides also under their singular spellings.
func TestExerciserFlags(t *testing.T) {
	on := exerciserEntry(t, "x.h5", map[string]any{"numdims": "2", "keepfile": "TRUE", "usechunked": "true", "indepio": "True",
		"addattr": "true", "derivedtype": "true", "metacoll": "yes", "maxcheck": "1024", "memblock": "4", "memstride": "8",
		"fileblock": "2 2", "filestride": "4 4", "rshift": "1", "MODE": "ASYNC"}).C
	if !on.KeepFile || !on.UseChunked || !on.IndepIO || !on.AddAttr || !on.DerivedType || !on.MetaColl || !on.MaxCheckSet || on.MaxCheck != 1024 ||
		on.MemBlock != 4 || on.MemStride != 8 || !slices.Equal(on.FileBlocks, []uint64{2, 2}) || !slices.Equal(on.FileStrides, []uint64{4, 4}) || on.RShift != 1 {
		t.Errorf("flags on: %+v", on)
	}
	off := exerciserEntry(t, "", map[string]any{"keepfile": "yes", "usechunked": "1", "indepio": "false", "addattr": "", "derivedtype": "on", "metacoll": "false"}).C
	if off.KeepFile || off.UseChunked || off.IndepIO || off.AddAttr || off.DerivedType || off.MaxCheckSet || off.MetaColl {
		t.Errorf("values other than true leave the flags off: %+v", off)
	}
}

// TestExerciserMetacoll: an empty metacoll, the bare flag h5bench then passes, turns it on.
func TestExerciserMetacoll(t *testing.T) {
	if c := exerciserEntry(t, "", map[string]any{"metacoll": ""}).C; !c.MetaColl {
		t.Errorf("metacoll \"\" left off")
	}
}

// TestExerciserErrors: bad values name the key and the value.
func TestExerciserErrors(t *testing.T) {
	data := []byte(`{"benchmarks": [{"benchmark": "exerciser", "configuration": {"numdims": "2", "minels": "8 8 8"}}]}`)
	_, err := h5bench.Parse(data)
	if err == nil || !strings.Contains(err.Error(), `"minels"`) || !strings.Contains(err.Error(), `"8 8 8"`) {
		t.Errorf("error %v", err)
	}
}
