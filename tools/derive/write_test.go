package derive

import (
	"bytes"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

func ds(name string, t plan.Type, shape ...uint64) *Dataset {
	return &Dataset{Name: name, Info: h5.Info{Type: t, Shape: shape, MaxShape: shape}}
}

// render writes the description of files and checks that the model round-trips: the
// text parses (Load and Parse) to the model Build made, and writing the parsed model again
// gives the same text.
func render(t *testing.T, files []*File, ranks int) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, files, Options{Ranks: ranks}); err != nil {
		t.Fatal(err)
	}
	m, err := Build(files, Options{Ranks: ranks})
	if err != nil {
		t.Fatal(err)
	}
	got, err := desc.Load("derived.yaml", b.Bytes())
	if err != nil {
		t.Fatalf("the derived description does not load: %v\n%s", err, b.String())
	}
	if d := desc.Diff(m, got); d != "" {
		t.Errorf("parse(write(model)) differs from the model at %s\n%s", d, b.String())
	}
	again, err := desc.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != b.String() {
		t.Errorf("written again differs\nfirst:\n%s\nagain:\n%s", b.String(), again)
	}
	return b.String()
}

func wantLines(t *testing.T, text string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(text, l) {
			t.Errorf("description lacks %q:\n%s", l, text)
		}
	}
}

// TestWriteFolds: datasets of one type and shape fold into a list parameter, per-rank
// extents become parameters (n_NAME when several), an extent the ranks do not divide goes
// to rank 0, an unlimited slowest dimension (appended to) is not split over the ranks, a
// small array of fixed strings keeps its strings, chunking and filters are kept in order,
// and compound types are declared once under types; small compound attributes keep their
// values as maps of members (nested compounds nested).
func TestWriteFolds(t *testing.T) {
	chunked := ds("packed", plan.F64, 64, 8)
	chunked.Info.Chunk = []uint64{16, 8}
	chunked.Info.Deflate = 4
	chunked.Info.Filters = []plan.Filter{{ID: plan.FilterShuffle}, {ID: plan.FilterFletcher32}}
	chunked.Info.MaxShape = []uint64{plan.MaxUnlimited, 8}
	box := plan.Struct("", 8, plan.Field("lo", 0, plan.I32), plan.Field("hi", 4, plan.I32))
	span := plan.Struct("", 8, plan.Field("first", 0, plan.I32), plan.Field("last", 4, plan.I32))
	root := &Group{Name: "/", Path: "/", Datasets: []*Dataset{
		ds("a", plan.F32, 32), ds("b", plan.F32, 32), ds("y", plan.F32, 32),
		ds("offsets", plan.I64, 9), chunked, ds("boxes", box, 4), ds("more boxes", box, 4),
	}, Attrs: []plan.AttributeSpec{{Name: "time", Type: plan.F64, Value: make([]byte, 8)},
		{Name: "name", Type: plan.Str(4), Value: []byte("sod\x00")},
		{Name: "names", Type: plan.Str(4), Shape: []uint64{3}, Value: []byte("dx\x00\x00dy\x00\x00dz\x00\x00")},
		{Name: "domain", Type: span, Value: []byte{1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff}},
		{Name: "cells", Type: plan.Struct("", 16, plan.Field("span", 0, span), plan.Field("n", 8, plan.F64)), Shape: []uint64{2}, Value: make([]byte, 32)}}}
	text := render(t, []*File{{Path: "dir/out.h5", Root: root}}, 4)
	wantLines(t, text,
		"  vars_a: [a, b, y]\n",
		"  vars_boxes: [boxes, more boxes]\n",
		"${vars_a}: {type: f32, shape: [n_a * nranks]}",
		"  n_a: 8 # elements per rank along dim 0 (first seen on a)",
		"offsets: {type: i64, shape: [9], decompose: rank0} # dim 0 does not divide",
		"# guess: dim 0 is unlimited (appended to",
		"    packed:\n        type: f64\n        shape: [64, 8]\n        max_shape: [unlimited, 8]\n        chunk: [16, 8]\n        filters: [shuffle, {deflate: 4}, fletcher32]\n        decompose: rank0\n",
		"  boxes: {lo: i32, hi: i32}",
		"${vars_boxes}: {type: boxes, shape: [n_boxes * nranks]}",
		"time: {type: f64, value: 0.0}",
		"name: {type: str4, value: sod}",
		"names: {type: str4, shape: [3], value: [dx, dy, dz]}",
		"domain: {type: domain, value: {first: 1, last: -2}}",
		"cells: {type: cells, shape: [2], value: [{span: {first: 0, last: 0}, n: 0.0}, {span: {first: 0, last: 0}, n: 0.0}]}",
		"  cells: {span: {first: i32, last: i32}, n: f64}",
		"  - write: out\n    collective: true # a file cannot tell")
	if strings.Count(text, "boxes: {lo") != 1 {
		t.Errorf("compound declared more than once:\n%s", text)
	}
}

// TestWriteSeries: files numbered at a constant cadence with equal structure become one
// file template with outputs and output_every; a group per step becomes Timestep_${step};
// a lone parameter is n, with a unit when it has one.
func TestWriteSeries(t *testing.T) {
	mk := func(p string) *File {
		return &File{Path: p, Root: &Group{Name: "/", Path: "/", Datasets: []*Dataset{ds("rho", plan.F64, 2<<20)}}}
	}
	text := render(t, []*File{mk("run/sod_hdf5_chk_0010"), mk("run/sod_hdf5_chk_0000"), mk("run/sod_hdf5_chk_0020")}, 2)
	wantLines(t, text, "name: sod_hdf5_chk", "  outputs: 3", "  output_every: 10",
		"steps: (outputs - 1) * output_every + 1", "    name: sod_hdf5_chk_${step:04d}", "    every: output_every",
		"  n: 1Mi", "rho: {type: f64, shape: [n * nranks]}", "ranks: 2")

	step := func(n string) *Group {
		return &Group{Name: "Timestep_" + n, Path: "/Timestep_" + n, Datasets: []*Dataset{ds("x", plan.F32, 8)}}
	}
	text = render(t, []*File{{Path: "vpic.h5", Root: &Group{Name: "/", Path: "/", Groups: []*Group{step("0"), step("1"), step("2")}}}}, 1)
	wantLines(t, text, "  steps: 3 # groups Timestep_0 .. Timestep_2", "steps: steps", "      Timestep_${step}:")
	if strings.Contains(text, "Timestep_1") {
		t.Errorf("per-step groups not folded:\n%s", text)
	}
}

// TestWriteLinksAndStandIns: hard, soft and external links are written under links:; a
// dataset and an attribute of a datatype the binding does not describe get a stand-in of
// their size and a note naming the file's type; the dimension scales' reference
// attributes are left out with a note; an allocation time other than early and a fill
// value the writer set are kept.
func TestWriteLinksAndStandIns(t *testing.T) {
	state := ds("state", plan.U8, 16)
	state.StandIn = "enum of 1 bytes"
	rho := ds("rho", plan.F64, 4, 16)
	rho.Info.MaxShape = []uint64{plan.MaxUnlimited, 16}
	rho.Info.Chunk = []uint64{1, 16}
	rho.Creation = h5.Creation{AllocTime: plan.AllocTimeIncr, FillSet: true, Fill: 9.969209968386869e+36}
	rho.Unread = []Unread{{Name: "DIMENSION_LIST", What: "variable-length sequence of 16 bytes", Size: 16, Shape: []uint64{2}}}
	x := ds("x", plan.F64, 16)
	x.Creation.AllocTime = plan.AllocTimeEarly
	fields := &Group{Name: "fields", Path: "/fields", Datasets: []*Dataset{rho, x},
		Links: []Link{{Name: "density", Kind: h5.LinkHard, Target: "/fields/rho"}}}
	root := &Group{Name: "/", Path: "/", Groups: []*Group{fields}, Datasets: []*Dataset{state},
		Unread: []Unread{{Name: "main_field", What: "reference of 8 bytes", Size: 8}, {Name: "udlink", What: "a link of a user-defined kind"}},
		Links: []Link{{Name: "coordinate", Kind: h5.LinkSoft, Target: "/fields/x"},
			{Name: "ext_table", Kind: h5.LinkExternal, File: "features_serial.h5", Target: "/table"}}}
	text := render(t, []*File{{Path: "features.h5", Root: root}}, 2)
	wantLines(t, text,
		"      density: {hard: /fields/rho}",
		"    coordinate: {soft: /fields/x}",
		"    ext_table: {external: {file: features_serial.h5, path: /table}}",
		"# not expressed: the file's datatype is enum of 1 bytes, which descriptions cannot say yet: u8 stands in (same size)",
		"# not expressed: the file's datatype is reference of 8 bytes, which descriptions cannot say yet: u64 stands in (same size)",
		"main_field: {type: u64, generate: seeded}",
		"# not expressed: attribute DIMENSION_LIST (variable-length sequence of 16 bytes, shape [2]), written by H5DSattach_scale",
		"# not expressed: link udlink, a link of a user-defined kind",
		"fill: 9.969209968386869e+36",
		"alloc_time: incr")
	if strings.Contains(text, "DIMENSION_LIST:") || strings.Count(text, "alloc_time") != 1 {
		t.Errorf("DIMENSION_LIST written, or alloc_time early said:\n%s", text)
	}
}

// TestWriteErrors: no ranks or no files are errors naming the problem.
func TestWriteErrors(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, []*File{{Root: &Group{}}}, Options{Ranks: 0}); err == nil || !strings.Contains(err.Error(), "-np 0") {
		t.Errorf("Ranks 0: %v", err)
	}
	if err := Write(&b, nil, Options{Ranks: 1}); err == nil || !strings.Contains(err.Error(), "no input files") {
		t.Errorf("no files: %v", err)
	}
}

// TestWriteEmptyAndSharedLists: an empty dataset is decomposed along its empty dimension
// (no rank writes an element; h5proxy check plans it), and the same folded names in two
// groups are one list parameter.
func TestWriteEmptyAndSharedLists(t *testing.T) {
	empty := ds("cycle", plan.I32, 0, 1)
	empty.Info.MaxShape = []uint64{plan.MaxUnlimited, 1}
	g := func(name string) *Group {
		return &Group{Name: name, Path: "/" + name, Datasets: []*Dataset{ds("a", plan.F64, 8), ds("b", plan.F64, 8)}}
	}
	root := &Group{Name: "/", Path: "/", Groups: []*Group{g("g1"), g("g2")}, Datasets: []*Dataset{empty}}
	text := render(t, []*File{{Path: "nova.h5", Root: root}}, 2)
	wantLines(t, text, "cycle: {type: i32, shape: [0, 1], max_shape: [unlimited, 1], decompose: {grid: [nranks, 1]}} # empty",
		"  vars: [a, b]\n", "        ${vars}: {type: f64, shape: [n * nranks]}")
	if strings.Count(text, "${vars}:") != 2 || strings.Contains(text, "vars_") {
		t.Errorf("the shared list is not one parameter:\n%s", text)
	}
}

// TestWriteMoreTypes: enum, array and opaque datasets are declared under types in their
// own forms, a compound whose offsets are not C's names each member's offset and its
// size, a reference attribute keeps its target's path as ref, and a dataset of region
// references gets a stand-in of its size with a note.
func TestWriteMoreTypes(t *testing.T) {
	phase := plan.EnumOf(plan.I8, plan.EnumValue{Name: "SOLID", Value: 0}, plan.EnumValue{Name: "LIQUID", Value: 1}, plan.EnumValue{Name: "GAS", Value: 2})
	padded := plan.Struct("", 24, plan.Field("b", 12, plan.I32), plan.Field("a", 0, plan.F64))
	regions := ds("regions", plan.RefOf(12, true), 2)
	target := []byte("/fields/rho")
	root := &Group{Name: "/", Path: "/", Datasets: []*Dataset{ds("state", phase, 8), ds("velocity", plan.ArrayOf(plan.F64, 3), 8),
		ds("blob", plan.OpaqueOf(4, "corpus blob"), 8), ds("particles", padded, 8), regions},
		Attrs: []plan.AttributeSpec{{Name: "main_field", Type: plan.RefOf(len(target), false), Value: target}}}
	text := render(t, []*File{{Path: "features.h5", Root: root}}, 2)
	wantLines(t, text,
		"state_t: {enum: {SOLID: 0, LIQUID: 1, GAS: 2}, base: i8}",
		"velocity_t: {array: f64, dims: [3]}",
		"blob_t: {opaque: 4, tag: corpus blob}",
		"b: i32@12", "a: f64@0", "size: 24",
		"state: {type: state_t, shape: [n_state * nranks]}",
		"main_field: {type: ref, value: /fields/rho}",
		"# not expressed: the file's datatype is a dataset region reference of 12 bytes, which descriptions cannot say yet: str12 stands in (same size)")
}

// TestWriteScales: a dataset H5DSset_scale marked (CLASS "DIMENSION_SCALE", NAME) is a
// scale: NAME, its CLASS and NAME not written as attributes; a DIMENSION_LIST's scales are
// dims, one entry per dimension ("" for none); creation orders other than none are kept; a
// dataset without storage is written: false.
func TestWriteScales(t *testing.T) {
	str := func(name, v string) plan.AttributeSpec {
		return plan.AttributeSpec{Name: name, Type: plan.Str(len(v) + 1), Value: append([]byte(v), 0)}
	}
	x := ds("x", plan.F64, 16)
	x.Attrs = []plan.AttributeSpec{str("CLASS", "DIMENSION_SCALE"), str("NAME", "x"), str("units", "m")}
	x.Unread = []Unread{{Name: "REFERENCE_LIST", What: "compound of 16 bytes", Size: 16, Shape: []uint64{1}}}
	rho := ds("rho", plan.F64, 16, 16)
	rho.Unread = []Unread{{Name: "DIMENSION_LIST", What: "variable-length sequence of 16 bytes", Size: 16, Shape: []uint64{2}, Refs: [][]string{nil, {"/x"}}}}
	x.AttrOrder = "tracked"
	ncol := ds("ncol", plan.F32, 16)
	ncol.Attrs = []plan.AttributeSpec{str("CLASS", "DIMENSION_SCALE"), str("NAME", "ncol")}
	ncol.Unallocated = true // netCDF-4's dimension without a variable, written serially
	root := &Group{Name: "/", Path: "/", Datasets: []*Dataset{x, rho, ncol}, LinkOrder: "indexed", AttrOrder: "indexed"}
	text := render(t, []*File{{Path: "s.h5", Root: root}}, 1)
	wantLines(t, text, "scale: x", "dims: ['', /x]", "    creation_order: indexed\n", "creation_order: tracked", "units: {type: str2, value: m}",
		"written: false # no storage allocated: created, never written")
	if strings.Contains(text, "CLASS") || strings.Contains(text, "not expressed") {
		t.Errorf("CLASS written or a scale's attribute noted:\n%s", text)
	}
}

// TestWriteSerialWriter: a file whose datasets are all allocated late or incrementally
// (no MPI-IO file's are) gets writer: rank0 with a guess, and its datasets no grid over
// the ranks (one rank writes each whole).
func TestWriteSerialWriter(t *testing.T) {
	pos := ds("position", plan.F64, 8, 3)
	pos.Info.Chunk = []uint64{1, 3}
	pos.Creation.AllocTime = plan.AllocTimeIncr
	box := ds("box", plan.F64, 8, 3)
	box.Creation.AllocTime = plan.AllocTimeLate
	text := render(t, []*File{{Path: "dump.h5", Root: &Group{Name: "/", Path: "/", Datasets: []*Dataset{pos, box}}}}, 2)
	wantLines(t, text, "# guess: the datasets' storage is allocated late or incrementally", "writer: rank0", "alloc_time: incr", "alloc_time: late")
	if strings.Contains(text, "grid") {
		t.Errorf("a serial writer's dataset has a grid:\n%s", text)
	}
}
