package app

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

const series = `
params: {n: 6, steps: 4, dt: 0.5}
steps: steps
files:
  h:
    name: h.h5
    attributes:
      dt: {type: f32, value: "${dt}"}
      labels: {value: [ab, cde]}
      seq: {type: i16, shape: [3], generate: index}
    datasets:
      e: {type: f64, shape: [n * nranks], extend: 0, chunk: [n], fill: -1, fill_time: alloc, alloc_time: early}
      f: {type: i32, shape: [4 * nranks, 3], layout: compact, decompose: {grid: [0, 1]}}
timeline:
  - write: h
  - read: h
    at: end
    datasets: [f]
    select: {start: [1, 0], stride: [2, 1], to: rank0}
  - read: h
    at: restart
    written_by: 4
    datasets: [e]
`

// TestSeriesReadsAttributes: a series grows by a slab per write, each slab read back
// with the step that wrote it; an analysis read at the end selects a strided sub-volume
// for rank 0; a restart on 2 ranks reads what 4 wrote; attribute values are encoded.
func TestSeriesReadsAttributes(t *testing.T) {
	d := mustParse(t, series)
	p, err := FromDescription(d)
	if err != nil {
		t.Fatal(err)
	}
	w := all(t, p, patterns.PhaseWrite, patterns.Env{Rank: 1, Size: 4, Path: "/o/r.h5"})
	var extents [][]uint64
	var writes [][]uint64
	attrs := map[string]*plan.AttributeSpec{}
	var create *plan.DatasetSpec
	var reads []plan.Op
	for _, pl := range w {
		for _, op := range pl.Ops {
			switch {
			case op.Kind == plan.ExtendDataset:
				extents = append(extents, op.Dataset.Shape)
			case op.Kind == plan.Write && op.Path == "/e":
				writes = append(writes, op.Transfer.Selection.Blocks[0].Start)
			case op.Kind == plan.WriteAttribute:
				attrs[op.Attribute.Name] = op.Attribute
			case op.Kind == plan.CreateDataset && op.Path == "/e":
				create = op.Dataset
			case op.Kind == plan.Read:
				reads = append(reads, op)
			}
		}
	}
	if !slices.EqualFunc(extents, [][]uint64{{48}, {72}, {96}}, slices.Equal) {
		t.Errorf("extents %v", extents)
	}
	if !slices.EqualFunc(writes, [][]uint64{{6}, {30}, {54}, {78}}, slices.Equal) {
		t.Errorf("rank 1's slab starts %v", writes)
	}
	if create == nil || create.MaxShape[0] != plan.MaxUnlimited || create.Chunk[0] != 6 || create.Tuning.FillTime != plan.FillTimeAlloc ||
		create.Tuning.AllocTime != plan.AllocTimeEarly || math.Float64frombits(binary.NativeEndian.Uint64(create.FillValue)) != -1 {
		t.Errorf("create /e: %+v", create)
	}
	if a := attrs["dt"]; a == nil || !a.Type.Equal(plan.F32) || math.Float32frombits(binary.NativeEndian.Uint32(a.Value)) != 0.5 {
		t.Errorf("dt: %+v", a)
	}
	if a := attrs["labels"]; a == nil || a.Type.Class != plan.String || a.Type.Size != 3 || string(a.Value) != "ab\x00cde" {
		t.Errorf("labels: %+v", a)
	}
	if a := attrs["seq"]; a == nil || !a.Type.Equal(plan.I16) || !slices.Equal(a.Value, []byte{0, 0, 1, 0, 2, 0}) {
		t.Errorf("seq: %+v", a)
	}
	// The analysis read: rank 1 takes part with nothing selected (rank 0 reads it all).
	if len(reads) != 1 || reads[0].Path != "/f" || !reads[0].Transfer.Selection.IsNone() || reads[0].Step != 3 {
		t.Errorf("rank 1's analysis reads %+v", reads)
	}
	r0 := all(t, p, patterns.PhaseWrite, patterns.Env{Rank: 0, Size: 4, Path: "/o/r.h5"})
	for _, pl := range r0 {
		for _, op := range pl.Ops {
			if op.Kind == plan.Read {
				h := op.Transfer.Selection.Blocks[0]
				if !slices.Equal(h.Start, []uint64{1, 0}) || !slices.Equal(h.Stride, []uint64{2, 1}) || !slices.Equal(h.Count, []uint64{8, 3}) ||
					!slices.Equal(op.Transfer.MemShape, []uint64{8, 3}) {
					t.Errorf("rank 0's analysis read %+v", h)
				}
			}
		}
	}
	// The restart on 2 ranks: 4 slabs of 24 written by 4 ranks, each read by its step,
	// rank 1 taking the second half of each.
	rd := all(t, p, patterns.PhaseRead, patterns.Env{Rank: 1, Size: 2, Path: "/o/r.h5"})
	var got [][3]uint64
	for _, pl := range rd {
		for _, op := range pl.Ops {
			if op.Kind == plan.Read {
				h := op.Transfer.Selection.Blocks[0]
				got = append(got, [3]uint64{uint64(op.Step), h.Start[0], op.Transfer.FileShape[0]})
			}
		}
	}
	if want := [][3]uint64{{0, 12, 96}, {1, 36, 96}, {2, 60, 96}, {3, 84, 96}}; !slices.Equal(got, want) {
		t.Errorf("restart reads (step, start, extent) %v, want %v", got, want)
	}
}
