package concat

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
)

// col is one dataset of the hand-made inputs: its type, row width (2-D when > 0), layout
// and the rows it has in each input.
type col struct {
	path  string
	typ   plan.Type
	width uint64 // columns of a 2-D dataset; 0 for 1-D
	chunk bool   // chunk 128 rows, gzip 6 (NOvA's inputs); else contiguous
	rows  []uint64
	// scale is the type of the dataset's "scale" attribute: f32 unless a test's mutation
	// changes it; the zero Type means no attribute.
	scale plan.Type
}

// value is element k of row r of input f, distinct per dataset, file, row and column.
func value(c, f int, r, k uint64) float64 {
	return float64(c*100000+f*1000) + float64(r) + float64(k)/8
}

// fixture is the hand-made schema: 1-D and 2-D, int and float, chunked gzip and
// contiguous, a dataset empty in every input, one empty in some, more rows than a chunk.
var fixture = []col{
	{"/rec.slc/energy", plan.F64, 0, true, []uint64{3, 0, 7, 130, 1}, plan.F32},
	{"/rec.slc/nhit", plan.I32, 0, true, []uint64{3, 0, 7, 130, 1}, plan.F32},
	{"/rec.slc/pos", plan.F32, 3, true, []uint64{3, 0, 7, 130, 1}, plan.F32},
	{"/rec.trk/kal/len", plan.F32, 0, true, []uint64{0, 5, 0, 2, 9}, plan.F32},
	{"/rec.trk/kal/nhit", plan.I64, 0, true, []uint64{0, 5, 0, 2, 9}, plan.F32},
	{"/rec.trk/empty", plan.I64, 0, true, []uint64{0, 0, 0, 0, 0}, plan.F32},
	{"/rec.mc/wide", plan.I32, 2, false, []uint64{4, 4, 1, 0, 2}, plan.F32},
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

// values returns input f's values of dataset c (described by fc), row-major.
func values(c int, fc col, f int) []float64 {
	w := max(fc.width, 1)
	var v []float64
	for r := uint64(0); r < fc.rows[f]; r++ {
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
		if fc.scale.Size > 0 {
			attr(d, "scale", fc.scale, []float64{0.5})
		}
		if err := h5.WriteRows(d, 0, fc.rows[f], false, bytesOf(fc.typ, values(c, fc, f))); err != nil {
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
	if mpitest.Child() {
		os.Exit(m.Run()) // launched ranks run Run in-process: no command needed
	}
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
			want = append(want, bytesOf(fc.typ, values(c, fc, f))...)
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

// describe returns the attributes of object name in file p and, for a dataset, its
// creation properties.
func describe(t *testing.T, p, name string) h5.ObjectInfo {
	t.Helper()
	f, err := h5.OpenFile(p, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	o, err := h5.Describe(f, name, name != "/")
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
		// opts are the options the report should record besides the defaults.
		opts map[string]string
		// check asserts the options' effect on the output.
		check func(t *testing.T, out string)
	}{
		{1, []string{"-inputs", list, in[3], in[4]}, false, nil, func(t *testing.T, out string) {
			e := describe(t, out, "/rec.slc/energy")
			if e.Layout != h5.LayoutChunked || !slices.Equal(e.Chunk, []uint64{128}) || e.Deflate != 6 || e.FillTime != plan.FillTimeIfSet {
				t.Errorf("defaults: energy %v chunk %v deflate %d fill time %d, want the inputs' chunked 128, gzip 6, fill time ifset",
					e.Layout, e.Chunk, e.Deflate, e.FillTime)
			}
			if e := describe(t, out, "/rec.trk/empty"); e.Layout != h5.LayoutContiguous {
				t.Errorf("defaults: empty dataset %v, want contiguous", e.Layout)
			}
			if w := describe(t, out, "/rec.mc/wide"); w.Layout != h5.LayoutContiguous {
				t.Errorf("defaults: contiguous input became %v", w.Layout)
			}
		}},
		{2, append([]string{"-chunk", "1KiB", "-deflate", "1", "-empty-layout", "compact", "-fill-time", "never",
			"-create", "rank0", "-partition", "dataset", "-partition-key"}, in...), true,
			map[string]string{"chunk": "1024", "deflate": "1", "empty-layout": "compact", "fill-time": "never", "create": "rank0",
				"partition": "dataset", "partition-key": "true"}, func(t *testing.T, out string) {
				if e := describe(t, out, "/rec.slc/energy"); !slices.Equal(e.Chunk, []uint64{128}) || e.Deflate != 1 || e.FillTime != plan.FillTimeNever {
					t.Errorf("-chunk 1KiB -deflate 1 -fill-time never: energy chunk %v deflate %d fill time %v", e.Chunk, e.Deflate, e.FillTime)
				}
				if p := describe(t, out, "/rec.slc/pos"); !slices.Equal(p.Chunk, []uint64{85, 3}) {
					t.Errorf("-chunk 1KiB: pos (3 float32 per row) chunk %v, want [85 3]", p.Chunk)
				}
				if l := describe(t, out, "/rec.trk/kal/len"); !slices.Equal(l.Chunk, []uint64{16}) {
					t.Errorf("-chunk 1KiB: len (16 rows) chunk %v, want the 16 rows", l.Chunk)
				}
				if e := describe(t, out, "/rec.trk/empty"); e.Layout != h5.LayoutCompact {
					t.Errorf("-empty-layout compact: %v", e.Layout)
				}
			}},
		{4, append([]string{"-empty-layout", "chunked", "-fill-time", "alloc", "-deflate", "0", "-mdc", "fixed",
			"-meta-block", "8KiB", "-input-driver", "core", "-partition-key"}, in...), true,
			map[string]string{"empty-layout": "chunked", "fill-time": "alloc", "deflate": "0", "mdc": "fixed", "meta-block": "8192",
				"input-driver": "core", "partition-key": "true"}, func(t *testing.T, out string) {
				if e := describe(t, out, "/rec.trk/empty"); e.Layout != h5.LayoutChunked || e.FillTime != plan.FillTimeAlloc {
					t.Errorf("-empty-layout chunked -fill-time alloc: %v fill time %v", e.Layout, e.FillTime)
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
			want := map[string]string{}
			for _, kv := range Defaults().KVs() {
				want[kv.Key] = kv.Value
			}
			maps.Copy(want, r.opts)
			if !maps.Equal(b.Options, want) {
				t.Errorf("report options %v, want %v", b.Options, want)
			}
			for k, v := range r.opts {
				if !strings.Contains(text, " "+k+"="+v) && !strings.Contains(text, "options: "+k+"="+v) {
					t.Errorf("printed options lack %s=%s:\n%s", k, v, text)
				}
			}
			if b.Total <= 0 || math.IsNaN(b.Write) {
				t.Errorf("times %+v", b)
			}
			checkOutput(t, out, r.key)
			r.check(t, out)
			root := describe(t, out, "/")
			if len(root.Attrs) != 1 || root.Attrs[0].Name != "run" {
				t.Errorf("root attributes %+v, want run", root.Attrs)
			}
		})
	}
}

// TestConcatErrors: bad inputs are named and leave no output; a failure after the output
// was created removes it.
func TestConcatErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeInputs(t, dir)
	out := filepath.Join(dir, "out.h5")
	noOutput := func(t *testing.T) {
		t.Helper()
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s exists after a failed run (%v)", out, err)
		}
	}
	expect := func(t *testing.T, code int, text string, wantCode int, want ...string) {
		t.Helper()
		if code != wantCode {
			t.Errorf("exit %d, want %d\n%s", code, wantCode, text)
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("output lacks %q:\n%s", w, text)
			}
		}
		noOutput(t)
	}

	t.Run("schema", func(t *testing.T) {
		// in1 changes a type, in3 a 2-D width: in1, on rank 0, is the first difference.
		bad1, bad3 := filepath.Join(dir, "bad1.h5"), filepath.Join(dir, "bad3.h5")
		writeInput(t, bad1, 1, func(c *col) {
			if c.path == "/rec.slc/nhit" {
				c.typ = plan.I64
			}
		})
		writeInput(t, bad3, 3, func(c *col) {
			if c.path == "/rec.slc/pos" {
				c.width = 4
			}
		})
		code, text := cli(t, "-np", "2", "-o", out, in[0], bad1, in[2], bad3)
		expect(t, code, text, 1, "bad1.h5 differs from the first input", "dataset /rec.slc/nhit: type i64, in the first input i32")
		if _, errs, _ := strings.Cut(text, "\n"); strings.Contains(errs, "bad3") {
			t.Errorf("the error names a later input:\n%s", text)
		}
	})
	t.Run("schema-last", func(t *testing.T) {
		// Later inputs are checked by probing (type and extent, attributes only where either
		// side has some): a difference in the last input, on the last rank, is still named
		// before the output exists, whatever the kind of difference.
		// The inputs' /rec.mc/wide has no attributes.
		bare := func(c *col) {
			if c.path == "/rec.mc/wide" {
				c.scale = plan.Type{}
			}
		}
		var bares []string
		for f := range 4 {
			bares = append(bares, filepath.Join(dir, fmt.Sprintf("bare%d.h5", f)))
			writeInput(t, bares[f], f, bare)
		}
		cases := []struct {
			name   string
			mutate func(c *col)
			want   string
			add    string // a dataset (or a group, ending in /) added to the input
		}{
			{"renamed", func(c *col) {
				if c.path == "/rec.slc/nhit" {
					c.path = "/rec.slc/nhits"
				}
			}, "dataset /rec.slc/nhit is missing", ""},
			{"extra-dataset", func(*col) {}, "dataset /rec.trk/kal/extra is not in the first input", "/rec.trk/kal/extra"},
			{"extra-group", func(*col) {}, "group /rec.new is not in the first input", "/rec.new/"},
			{"attr-type", func(c *col) {
				if c.path == "/rec.trk/kal/len" {
					c.scale = plan.F64
				}
			}, `dataset /rec.trk/kal/len: attribute "scale": type f64, in the first input f32`, ""},
			{"attr-missing", func(c *col) {
				if c.path == "/rec.slc/energy" {
					c.scale = plan.Type{}
				}
			}, `dataset /rec.slc/energy: attribute "scale" is missing`, ""},
			{"attr-extra", func(c *col) {
				if c.path == "/rec.mc/wide" {
					c.scale = plan.I32
				}
			}, `dataset /rec.mc/wide: attribute "scale" is not in the first input`, ""},
			{"type", func(c *col) {
				if c.path == "/rec.trk/empty" {
					c.typ = plan.I32
				}
			}, "dataset /rec.trk/empty: type i32, in the first input i64", ""},
			{"width", func(c *col) {
				if c.path == "/rec.slc/pos" {
					c.width = 2
				}
			}, "dataset /rec.slc/pos: shape [1 2], in the first input [3 3]", ""},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				last := filepath.Join(dir, "last-"+tc.name+".h5")
				writeInput(t, last, 4, func(c *col) { bare(c); tc.mutate(c) })
				if tc.add != "" {
					f, err := h5.OpenFile(last, h5.Access{})
					if err != nil {
						t.Fatal(err)
					}
					if g, ok := strings.CutSuffix(tc.add, "/"); ok {
						id, err := h5.CreateGroup(f, g)
						if err != nil {
							t.Fatal(err)
						}
						h5.CloseGroup(id)
					} else {
						d, err := h5.CreateDataset(f, tc.add, plan.DatasetSpec{Type: plan.I32, Shape: []uint64{2}})
						if err != nil {
							t.Fatal(err)
						}
						h5.CloseDataset(d)
					}
					h5.CloseFile(f)
				}
				for _, np := range []string{"1", "2"} {
					code, text := cli(t, append([]string{"-np", np, "-o", out}, append(bares, last)...)...)
					expect(t, code, text, 1, "input "+last+" differs from the first input "+bares[0]+": "+tc.want)
				}
			})
		}
		// Without a difference the same inputs concatenate.
		good := filepath.Join(dir, "bare4.h5")
		writeInput(t, good, 4, bare)
		if code, text := cli(t, append([]string{"-np", "2", "-o", out}, append(bares, good)...)...); code != 0 {
			t.Errorf("matching inputs: exit %d\n%s", code, text)
		}
		os.Remove(out)
	})
	t.Run("corrupt-chunk", func(t *testing.T) {
		// Every deflate stream of input 3 damaged: the schema reads fine, the data does not.
		data, err := os.ReadFile(in[3])
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i := 0; i+16 < len(data); i++ {
			if data[i] == 0x78 && data[i+1] == 0x9c {
				copy(data[i+2:], bytes.Repeat([]byte{0xff}, 8))
				n++
			}
		}
		if n == 0 {
			t.Fatal("no deflate stream found in the input")
		}
		bad := filepath.Join(dir, "corrupt.h5")
		os.WriteFile(bad, data, 0o644)
		code, text := cli(t, "-np", "2", "-o", out, in[0], in[1], in[2], bad, in[4])
		expect(t, code, text, 1, "input "+bad, "H5Dread")
	})
	t.Run("key-lengths", func(t *testing.T) {
		odd := filepath.Join(dir, "odd.h5")
		writeInput(t, odd, 2, func(c *col) {
			if c.path == "/rec.slc/nhit" {
				c.rows = []uint64{3, 0, 8, 130, 1}
			}
		})
		code, text := cli(t, "-o", out, "-partition-key", in[0], odd)
		expect(t, code, text, 1, "input "+odd, "-partition-key: group /rec.slc has datasets of different lengths")
		// Without the key the same inputs concatenate.
		if code, text := cli(t, "-o", out, in[0], odd); code != 0 {
			t.Errorf("without -partition-key: exit %d\n%s", code, text)
		}
		os.Remove(out)
	})
	t.Run("not-hdf5", func(t *testing.T) {
		txt := filepath.Join(dir, "notes.txt")
		os.WriteFile(txt, []byte("not HDF5\n"), 0o644)
		code, text := cli(t, "-o", out, in[0], txt)
		expect(t, code, text, 1, "input "+txt+" is not a readable HDF5 file")
	})
	t.Run("usage", func(t *testing.T) {
		missing := filepath.Join(dir, "missing.h5")
		code, text := cli(t, "-o", out, in[0], missing)
		expect(t, code, text, 1, "input "+missing+": no such file or directory")
		code, text = cli(t, "-o", out, "-empty-layout", "sparse", in[0])
		expect(t, code, text, 2, "empty-layout", "sparse", "contiguous, chunked, compact")
		code, text = cli(t, "-o", out)
		expect(t, code, text, 2, "no input files")
		code, text = cli(t, "-o", filepath.Join(dir, "nodir", "out.h5"), in[0])
		expect(t, code, text, 1, "output directory "+filepath.Join(dir, "nodir")+" does not exist")
		before, _ := os.ReadFile(in[1])
		code, text = cli(t, "-f", "-o", in[1], in[0], in[1])
		if after, _ := os.ReadFile(in[1]); code != 1 || !strings.Contains(text, "output "+in[1]+" is also an input") || !bytes.Equal(before, after) {
			t.Errorf("output among the inputs (-f): exit %d, input changed %v\n%s", code, !bytes.Equal(before, after), text)
		}
		os.WriteFile(out, []byte("keep me"), 0o644)
		code, text = cli(t, "-o", out, in[0])
		if b, _ := os.ReadFile(out); code != 1 || !strings.Contains(text, "exists (-f replaces it)") || string(b) != "keep me" {
			t.Errorf("existing output: exit %d, content %q\n%s", code, b, text)
		}
		if code, text = cli(t, "-o", out, "-f", in[0]); code != 0 {
			t.Errorf("-f: exit %d\n%s", code, text)
		}
		checkPrefix(t, out)
	})
}

// checkPrefix checks that out holds the first input alone.
func checkPrefix(t *testing.T, out string) {
	t.Helper()
	for c, fc := range fixture {
		if got := readRaw(t, out, fc.path, fc.typ); !bytes.Equal(got, bytesOf(fc.typ, values(c, fc, 0))) {
			t.Errorf("%s: %s is not the first input's", out, fc.path)
		}
	}
}

// TestAccessOptions: the options that live in the file access properties, not in the file
// (metadata cache, meta block size, input driver), reach HDF5: read back from the open
// output and inputs on 2 ranks, with and without them.
func TestAccessOptions(t *testing.T) {
	if mpitest.Run(t, 2) {
		return
	}
	if _, _, err := mpi.Init(); err != nil {
		t.Fatal(err)
	}
	defer mpi.Finalize()
	runtime.LockOSThread()
	w := mpi.World()
	// The ranks share the launcher's process as parent: one directory for both.
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("h5proxy-concat-access-%d", os.Getppid()))
	if w.Rank() == 0 {
		os.MkdirAll(dir, 0o755)
		writeInputs(t, dir)
	}
	defer func() {
		w.Barrier()
		if w.Rank() == 0 {
			os.RemoveAll(dir)
		}
	}()
	w.Barrier()
	in, _ := filepath.Glob(filepath.Join(dir, "in*.h5"))
	for _, tc := range []struct {
		kvs  []options.KV
		want h5.AccessInfo // of the output; Driver is the inputs'
	}{
		{nil, h5.AccessInfo{Driver: "sec2", MDCResize: true, MetaBlock: 2048}},
		{[]options.KV{{Key: "mdc", Value: "fixed"}, {Key: "meta-block", Value: "8KiB"}, {Key: "input-driver", Value: "core"}, {Key: "create", Value: "rank0"}},
			h5.AccessInfo{Driver: "core", MDCInitial: 128 << 20, MDCMax: 128 << 20, MetaBlock: 8192}},
	} {
		o, err := Parse(tc.kvs)
		if err != nil {
			t.Fatal(err)
		}
		var got, last h5.AccessInfo
		var inDriver string
		afterCreate = func(j *job) {
			if got, err = h5.FileAccessInfo(j.out); err != nil {
				t.Error(err)
			}
			a, err := h5.FileAccessInfo(j.in[0])
			if err != nil {
				t.Error(err)
			}
			inDriver = a.Driver
			if last, err = h5.FileAccessInfo(j.in[j.hi-1]); err != nil { // this rank's last input
				t.Error(err)
			}
		}
		out := filepath.Join(dir, "out.h5")
		o.Overwrite = true
		if _, err := Run(w.Fortran(), in, out, o); err != nil {
			t.Fatal(err)
		}
		afterCreate = nil
		if inDriver != tc.want.Driver || got.Driver != "mpio" || !got.CollMetadataOps || !got.CollMetadataWrite || got.MetaBlock != tc.want.MetaBlock || got.MDCResize != tc.want.MDCResize {
			t.Errorf("%v: inputs %s, output %+v; want inputs %s, output %+v through MPI-IO with collective metadata", tc.kvs, inDriver, got, tc.want.Driver, tc.want)
		}
		// Every input, whatever the options, has a small fixed metadata cache (inputMDC).
		if last.MDCInitial != inputMDC || last.MDCMax != inputMDC || last.MDCResize {
			t.Errorf("%v: input metadata cache %d/%d resize %v, want %d fixed", tc.kvs, last.MDCInitial, last.MDCMax, last.MDCResize, inputMDC)
		}
		if tc.want.MDCInitial > 0 && (got.MDCInitial != tc.want.MDCInitial || got.MDCMax != tc.want.MDCMax) {
			t.Errorf("%v: metadata cache %d/%d, want %d/%d", tc.kvs, got.MDCInitial, got.MDCMax, tc.want.MDCInitial, tc.want.MDCMax)
		}
	}
}

// TestOptionsRoundTrip: KVs names every key of Table, and Parse reads back what KVs wrote.
func TestOptionsRoundTrip(t *testing.T) {
	if d := Table.Duplicates(); len(d) > 0 {
		t.Errorf("duplicate keys %v", d)
	}
	o, err := Parse([]options.KV{{Key: "chunk", Value: "1MiB"}, {Key: "deflate", Value: "6"}, {Key: "create", Value: "RANK0"},
		{Key: "empty-layout", Value: "compact"}, {Key: "mdc", Value: "fixed"}, {Key: "meta-block", Value: "4KiB"},
		{Key: "input-driver", Value: "core"}, {Key: "partition", Value: "dataset"}, {Key: "fill-time", Value: "never"},
		{Key: "partition-key", Value: "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	want := Options{ChunkBytes: 1 << 20, Deflate: 6, RankZeroCreate: true, EmptyLayout: "compact", FixedMDC: true, MetaBlock: 4096,
		CoreInputs: true, ByDataset: true, FillTime: "never", PartitionKey: true}
	if o != want {
		t.Errorf("Parse = %+v, want %+v", o, want)
	}
	kvs := o.KVs()
	var keys []string
	for _, kv := range kvs {
		keys = append(keys, kv.Key)
	}
	if slices.Sort(keys); !slices.Equal(keys, Table.Keys()) {
		t.Errorf("KVs keys %v, Table %v", keys, Table.Keys())
	}
	if back, err := Parse(kvs); err != nil || back != o {
		t.Errorf("Parse(KVs()) = %+v, %v; want %+v", back, err, o)
	}
	if _, err := Parse([]options.KV{{Key: "deflate", Value: "10"}}); err == nil || !strings.Contains(err.Error(), "deflate") {
		t.Errorf("deflate=10: %v", err)
	}
}
