package concat

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/internal/h5"
)

// col is one dataset of the hand-made inputs: its type, row width (2-D when > 0), layout
// and the rows it has in each input.
type col struct {
	path  string
	typ   plan.Type
	width uint64 // columns of a 2-D dataset; 0 for 1-D
	chunk bool   // chunk 128 rows, gzip 6 (NOvA's inputs); else contiguous
	rows  []uint64
}

// value is element k of row r of input f, distinct per dataset, file, row and column.
func value(c, f int, r, k uint64) float64 { return float64(c*100000+f*1000) + float64(r) + float64(k)/8 }

// fixture is the hand-made schema: 1-D and 2-D, int and float, chunked gzip and
// contiguous, a dataset empty in every input, one empty in some, more rows than a chunk.
var fixture = []col{
	{"/rec.slc/energy", plan.F64, 0, true, []uint64{3, 0, 7, 130, 1}},
	{"/rec.slc/nhit", plan.I32, 0, true, []uint64{3, 0, 7, 130, 1}},
	{"/rec.slc/pos", plan.F32, 3, true, []uint64{3, 0, 7, 130, 1}},
	{"/rec.trk/kal/len", plan.F32, 0, true, []uint64{0, 5, 0, 2, 9}},
	{"/rec.trk/kal/nhit", plan.I64, 0, true, []uint64{0, 5, 0, 2, 9}},
	{"/rec.trk/empty", plan.I64, 0, true, []uint64{0, 0, 0, 0, 0}},
	{"/rec.mc/wide", plan.I32, 2, false, []uint64{4, 4, 1, 0, 2}},
}

// groups of the fixture, parents first.
var groups = []string{"/rec.mc", "/rec.slc", "/rec.trk", "/rec.trk/kal"}

// bytesOf returns the native bytes of typed values v of type t.
func bytesOf(t plan.Type, v []float64) []byte {
	var b bytes.Buffer
	for _, x := range v {
		switch t.Class {
		case plan.Float64:
			binary.Write(&b, binary.NativeEndian, x)
		case plan.Float32:
			binary.Write(&b, binary.NativeEndian, float32(x))
		case plan.Int32:
			binary.Write(&b, binary.NativeEndian, int32(x*8))
		case plan.Int64:
			binary.Write(&b, binary.NativeEndian, int64(x*8))
		}
	}
	return b.Bytes()
}

// values returns input f's values of dataset c, row-major.
func values(c, f int) []float64 {
	w := max(fixture[c].width, 1)
	var v []float64
	for r := uint64(0); r < fixture[c].rows[f]; r++ {
		for k := uint64(0); k < w; k++ {
			v = append(v, value(c, f, r, k))
		}
	}
	return v
}

// writeInput writes input f of the fixture; mutate (if not nil) changes the schema.
func writeInput(t *testing.T, path string, f int, mutate func(c *col)) {
	t.Helper()
	fid, err := h5.CreateFile(path, h5.Access{})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(fid)
	attr := func(loc h5.ID, name string, typ plan.Type, v []float64) {
		if err := h5.WriteAttribute(loc, plan.AttributeSpec{Name: name, Type: typ, Shape: []uint64{uint64(len(v))}, Value: bytesOf(typ, v)}); err != nil {
			t.Fatal(err)
		}
	}
	attr(fid, "run", plan.I32, []float64{float64(f + 1)}) // differs per input: the output keeps the first's
	for _, g := range groups {
		gid, err := h5.CreateGroup(fid, g)
		if err != nil {
			t.Fatal(err)
		}
		attr(gid, "version", plan.F64, []float64{2, 1})
		h5.CloseGroup(gid)
	}
	for c, fc := range fixture {
		if mutate != nil {
			mutate(&fc)
		}
		shape := []uint64{fc.rows[f]}
		if fc.width > 0 {
			shape = append(shape, fc.width)
		}
		spec := plan.DatasetSpec{Type: fc.typ, Shape: shape}
		if fc.chunk {
			spec.MaxShape = slices.Clone(shape)
			spec.MaxShape[0] = plan.MaxUnlimited
			spec.Chunk = slices.Clone(shape)
			spec.Chunk[0] = 128
			spec.Deflate = 6
		}
		d, err := h5.CreateDataset(fid, fc.path, spec)
		if err != nil {
			t.Fatal(err)
		}
		attr(d, "scale", plan.F32, []float64{0.5})
		if err := h5.WriteRows(d, 0, fc.rows[f], false, bytesOf(fc.typ, values(c, f))); err != nil {
			t.Fatal(err)
		}
		h5.CloseDataset(d)
	}
}

// writeInputs writes the fixture's five inputs to dir.
func writeInputs(t *testing.T, dir string) []string {
	var in []string
	for f := range fixture[0].rows {
		p := filepath.Join(dir, fmt.Sprintf("in%d.h5", f))
		writeInput(t, p, f, nil)
		in = append(in, p)
	}
	return in
}

var h5proxyBin string

// TestMain builds the command once: the tests drive `h5proxy concat` as a user would.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "h5proxy-concat-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	h5proxyBin = filepath.Join(dir, "h5proxy")
	if out, err := exec.Command("go", "build", "-o", h5proxyBin, "../../cmd/h5proxy").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cli runs h5proxy concat with args outside any MPI launcher and returns its exit status
// and combined output.
func cli(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, h5proxyBin, append([]string{"concat"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OMPI_COMM_WORLD") && !strings.HasPrefix(kv, "PMIX_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("h5proxy concat %v: timed out\n%s", args, out)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(out)
}

// readRaw reads dataset name of file p through the independent reader as native bytes.
func readRaw(t *testing.T, p, name string, typ plan.Type) []byte {
	t.Helper()
	n, err := inspect.Points(p, name)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		return nil
	}
	raw := func(ptr unsafe.Pointer, size int) []byte { return slices.Clone(unsafe.Slice((*byte)(ptr), n*size)) }
	switch typ.Class {
	case plan.Float64:
		v := make([]float64, n)
		err = inspect.Read(p, name, &v)
		return raw(unsafe.Pointer(&v[0]), 8)
	case plan.Float32:
		v := make([]float32, n)
		err = inspect.Read(p, name, &v)
		return raw(unsafe.Pointer(&v[0]), 4)
	case plan.Int32:
		v := make([]int32, n)
		err = inspect.Read(p, name, &v)
		if err != nil {
			t.Fatal(err)
		}
		return raw(unsafe.Pointer(&v[0]), 4)
	case plan.Int64:
		v := make([]int64, n)
		err = inspect.Read(p, name, &v)
		return raw(unsafe.Pointer(&v[0]), 8)
	}
	t.Fatalf("type %s", typ)
	return nil
}

// checkOutput compares every dataset of out, read independently, with the in-order
// concatenation of the fixture's inputs, and the partition keys with the input indexes.
func checkOutput(t *testing.T, out string, key bool) {
	t.Helper()
	if !inspect.Available() {
		t.Fatal(inspect.ErrUnavailable)
	}
	tree, err := inspect.Tree(out)
	if err != nil {
		t.Fatal(err)
	}
	shapes := map[string][]uint64{}
	for _, n := range tree {
		shapes[n.Path] = n.Shape
	}
	for c, fc := range fixture {
		var want []byte
		var total uint64
		for f := range fc.rows {
			want = append(want, bytesOf(fc.typ, values(c, f))...)
			total += fc.rows[f]
		}
		wantShape := []uint64{total}
		if fc.width > 0 {
			wantShape = append(wantShape, fc.width)
		}
		if !slices.Equal(shapes[fc.path], wantShape) {
			t.Errorf("%s: %s shape %v, want %v", out, fc.path, shapes[fc.path], wantShape)
			continue
		}
		if got := readRaw(t, out, fc.path, fc.typ); !bytes.Equal(got, want) {
			t.Errorf("%s: %s differs from the concatenation of the inputs", out, fc.path)
		}
	}
	for _, g := range groups {
		if _, has := shapes[g+"/"+KeyName]; has != key {
			t.Errorf("%s: %s/%s present %v, want %v", out, g, KeyName, has, key)
		}
	}
	if !key {
		return
	}
	for _, g := range groups {
		var rows []uint64
		for _, fc := range fixture {
			if filepath.Dir(fc.path) == g {
				rows = fc.rows
			}
		}
		var want []byte
		for f, n := range rows {
			for range n {
				want = binary.NativeEndian.AppendUint32(want, uint32(f))
			}
		}
		if got := readRaw(t, out, g+"/"+KeyName, plan.I32); !bytes.Equal(got, want) {
			t.Errorf("%s: %s/%s = %v, want the input index of every row", out, g, KeyName, got)
		}
	}
}

// describe returns the creation properties of dataset name in file p.
func describe(t *testing.T, p, name string) h5.ObjectInfo {
	t.Helper()
	f, err := h5.OpenFile(p, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	o, err := h5.Describe(f, name, true)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestConcatCLI concatenates the hand-made inputs at 1, 2 and 4 ranks, each run with other
// tuning options, and checks every output dataset against the in-order concatenation
// through the independent reader, and each option through the output's properties.
func TestConcatCLI(t *testing.T) {
	dir := t.TempDir()
	in := writeInputs(t, dir)
	list := filepath.Join(dir, "inputs.txt")
	os.WriteFile(list, []byte("# the first three\n"+strings.Join(in[:3], "\n")+"\n\n"), 0o644)
	runs := []struct {
		np   int
		args []string
		key  bool
		// check asserts the options' effect on the output.
		check func(t *testing.T, out string)
	}{
		{1, []string{"-inputs", list, in[3], in[4]}, false, func(t *testing.T, out string) {
			e := describe(t, out, "/rec.slc/energy")
			if e.Layout != h5.LayoutChunked || !slices.Equal(e.Chunk, []uint64{128}) || e.Deflate != 6 {
				t.Errorf("defaults: energy %v chunk %v deflate %d, want the inputs' chunked 128, gzip 6", e.Layout, e.Chunk, e.Deflate)
			}
			if e := describe(t, out, "/rec.trk/empty"); e.Layout != h5.LayoutContiguous {
				t.Errorf("defaults: empty dataset %v, want contiguous", e.Layout)
			}
			if w := describe(t, out, "/rec.mc/wide"); w.Layout != h5.LayoutContiguous {
				t.Errorf("defaults: contiguous input became %v", w.Layout)
			}
		}},
		{2, append([]string{"-chunk", "1KiB", "-deflate", "1", "-empty-layout", "compact", "-fill-time", "never",
			"-create", "rank0", "-partition", "dataset", "-partition-key"}, in...), true, func(t *testing.T, out string) {
			if e := describe(t, out, "/rec.slc/energy"); !slices.Equal(e.Chunk, []uint64{128}) || e.Deflate != 1 || e.FillTime != h5.FillNever {
				t.Errorf("-chunk 1KiB -deflate 1 -fill-time never: energy chunk %v deflate %d fill time %d", e.Chunk, e.Deflate, e.FillTime)
			}
			if p := describe(t, out, "/rec.slc/pos"); !slices.Equal(p.Chunk, []uint64{85, 3}) {
				t.Errorf("-chunk 1KiB: pos (3 float32 per row) chunk %v, want [85 3]", p.Chunk)
			}
			if e := describe(t, out, "/rec.trk/empty"); e.Layout != h5.LayoutCompact {
				t.Errorf("-empty-layout compact: %v", e.Layout)
			}
		}},
		{4, append([]string{"-empty-layout", "chunked", "-fill-time", "alloc", "-deflate", "0", "-mdc", "fixed",
			"-meta-block", "8KiB", "-input-driver", "core", "-partition-key"}, in...), true, func(t *testing.T, out string) {
			if e := describe(t, out, "/rec.trk/empty"); e.Layout != h5.LayoutChunked || e.FillTime != h5.FillAlloc {
				t.Errorf("-empty-layout chunked -fill-time alloc: %v fill time %d", e.Layout, e.FillTime)
			}
			if e := describe(t, out, "/rec.slc/nhit"); e.Deflate != 0 || e.Layout != h5.LayoutChunked {
				t.Errorf("-deflate 0: nhit %v deflate %d", e.Layout, e.Deflate)
			}
		}},
	}
	for _, r := range runs {
		t.Run(fmt.Sprintf("np=%d", r.np), func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprintf("out%d.h5", r.np))
			js := out + ".json"
			code, text := cli(t, append([]string{"-np", fmt.Sprint(r.np), "-o", out, "-json", js}, r.args...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, text)
			}
			if !strings.Contains(text, "metadata read") || !strings.Contains(text, "5 files on "+fmt.Sprint(r.np)+" ranks") {
				t.Errorf("no breakdown for 5 files on %d ranks:\n%s", r.np, text)
			}
			var b Breakdown
			data, err := os.ReadFile(js)
			if err == nil {
				err = json.Unmarshal(data, &b)
			}
			if err != nil {
				t.Fatal(err)
			}
			keys := 0
			if r.key {
				keys = len(groups)
			}
			if b.Files != 5 || b.Ranks != r.np || b.Datasets != len(fixture) || b.Empty != 1 || b.Datasets2D != 2 || b.Keys != keys || b.Groups != len(groups) {
				t.Errorf("counts %+v", b)
			}
			if b.Total <= 0 || math.IsNaN(b.Write) {
				t.Errorf("times %+v", b)
			}
			checkOutput(t, out, r.key)
			r.check(t, out)
			root := describeRoot(t, out)
			if len(root.Attrs) != 1 || root.Attrs[0].Name != "run" {
				t.Errorf("root attributes %+v, want run", root.Attrs)
			}
		})
	}
}

func describeRoot(t *testing.T, p string) h5.ObjectInfo {
	f, err := h5.OpenFile(p, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	o, err := h5.Describe(f, "/", false)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
