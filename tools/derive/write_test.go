package derive

import (
	"bytes"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

func ds(name string, t plan.Type, shape ...uint64) *Dataset {
	return &Dataset{Name: name, Info: h5.Info{Type: t, Shape: shape, MaxShape: shape}}
}

func render(t *testing.T, files []*File, ranks int) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, files, Options{Ranks: ranks}); err != nil {
		t.Fatal(err)
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

// TestWriteFolds: datasets of one type and shape fold into a list key, per-rank extents
// become parameters (n_NAME when several), an extent the ranks do not divide goes to rank
// 0, an unlimited slowest dimension (appended to) is not split over the ranks, a small
// array of fixed strings keeps its strings, chunking and filters are kept in order, names YAML would misread are quoted, and
// compound types are declared once under types; small compound attributes keep their
// values as maps of members (nested compounds nested).
func TestWriteFolds(t *testing.T) {
	chunked := ds("packed", plan.F64, 64, 8)
	chunked.Info.Chunk = []uint64{16, 8}
	chunked.Info.Deflate = 4
	chunked.Info.Filters = []plan.Filter{{ID: plan.FilterShuffle}, {ID: plan.FilterFletcher32}}
	chunked.Info.MaxShape = []uint64{plan.MaxUnlimited, 8}
	box := plan.Struct("", 8, plan.Field("lo", 0, plan.I32), plan.Field("hi", 4, plan.I32))
	span := plan.Struct("", 8, plan.Field("first", 0, plan.I32), plan.Field("last", 4, plan.I32))
	root := &Group{Name: "/", Datasets: []*Dataset{
		ds("a", plan.F32, 32), ds("b", plan.F32, 32), ds("y", plan.F32, 32),
		ds("offsets", plan.I64, 9), chunked, ds("boxes", box, 4), ds("more boxes", box, 4),
	}, Attrs: []plan.AttributeSpec{{Name: "time", Type: plan.F64, Value: make([]byte, 8)},
		{Name: "name", Type: plan.Str(4), Value: []byte("sod\x00")},
		{Name: "names", Type: plan.Str(4), Shape: []uint64{3}, Value: []byte("dx\x00\x00dy\x00\x00dz\x00\x00")},
		{Name: "domain", Type: span, Value: []byte{1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff}},
		{Name: "cells", Type: plan.Struct("", 16, plan.Field("span", 0, span), plan.Field("n", 8, plan.F64)), Shape: []uint64{2}, Value: make([]byte, 32)}}}
	text := render(t, []*File{{Path: "dir/out.h5", Root: root}}, 4)
	wantLines(t, text,
		`[a, b, "y"]: {type: f32, shape: [n_a * nranks]}`,
		"  n_a: 8    # elements per rank along dim 0 (first seen on a)",
		"offsets: {type: i64, shape: [9], decompose: rank0}    # dim 0 does not divide",
		"packed: {type: f64, shape: [64, 8], max_shape: [unlimited, 8], chunk: [16, 8], filters: [shuffle, {deflate: 4}, fletcher32], decompose: rank0}    # guess: dim 0 is unlimited (appended to",
		"  boxes: {lo: i32, hi: i32}",
		`[boxes, "more boxes"]: {type: boxes, shape: [n_boxes * nranks]}`,
		"time: {type: f64, value: 0.0}",
		`name: {type: str4, value: "sod"}`,
		`names: {type: str4, shape: [3], value: ["dx", "dy", "dz"]}`,
		"domain: {type: domain, value: {first: 1, last: -2}}",
		`cells: {type: cells, shape: [2], value: [{span: {first: 0, last: 0}, "n": 0.0}, {span: {first: 0, last: 0}, "n": 0.0}]}`,
		`  cells: {span: {first: i32, last: i32}, "n": f64}`,
		"  - write: out\n    collective: true")
	if strings.Count(text, "boxes: {lo") != 1 {
		t.Errorf("compound declared more than once:\n%s", text)
	}
}

// TestWriteSeries: files numbered at a constant cadence with equal structure become one
// file template with outputs and output_every; a group per step becomes Timestep_${step};
// a lone parameter is n, with a unit when it has one.
func TestWriteSeries(t *testing.T) {
	mk := func(p string) *File {
		return &File{Path: p, Root: &Group{Name: "/", Datasets: []*Dataset{ds("rho", plan.F64, 2<<20)}}}
	}
	text := render(t, []*File{mk("run/sod_hdf5_chk_0010"), mk("run/sod_hdf5_chk_0000"), mk("run/sod_hdf5_chk_0020")}, 2)
	wantLines(t, text, "name: sod_hdf5_chk", "  outputs: 3", "  output_every: 10",
		"steps: (outputs - 1) * output_every + 1", "    name: sod_hdf5_chk_${step:04d}", "    every: output_every",
		"  n: 1Mi", "rho: {type: f64, shape: [n * nranks]}")

	step := func(n string) *Group {
		return &Group{Name: "Timestep_" + n, Datasets: []*Dataset{ds("x", plan.F32, 8)}}
	}
	text = render(t, []*File{{Path: "vpic.h5", Root: &Group{Name: "/", Groups: []*Group{step("0"), step("1"), step("2")}}}}, 1)
	wantLines(t, text, "  steps: 3    # groups Timestep_0 .. Timestep_2", "steps: steps", "      Timestep_${step}:")
	if strings.Contains(text, "Timestep_1") {
		t.Errorf("per-step groups not folded:\n%s", text)
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
