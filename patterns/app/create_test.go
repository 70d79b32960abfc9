package app

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// byRank0 is an AMReX-like file per step: rank 0 creates it with its attribute, group g
// (an attribute, the table dataset, subgroup sub) serially; every rank then opens it and
// writes x collectively and idx from rank 0 independently, in one pass over g.
const byRank0 = `
params: {n: 4}
steps: 2
files:
  f:
    name: f${step}.h5
    create: {by: rank0, datasets: [table]}
    attributes: {version: "v1"}
    groups:
      g:
        attributes: {ngrid: {type: i32, shape: [1], value: [4]}}
        datasets:
          table: {type: i32, shape: [n], decompose: rank0, attributes: {units: "cells"}}
          x: {type: f64, shape: [n * nranks]}
          idx: {type: i64, shape: [n + 1], decompose: rank0, independent: true}
        groups:
          sub: {attributes: {k: 1}}
timeline:
  - write: f
  - read: f
    at: restart
`

// trace lists ops as "kind path collective" lines.
func trace(ops []plan.Op) []string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = fmt.Sprintf("%s %s %v", op.Kind, op.Path, op.Collective)
	}
	return out
}

// stepOps returns the operations of one write step of a rank.
func stepOps(t *testing.T, src string, rank, size, step int) []plan.Op {
	t.Helper()
	p, err := FromDescription(mustParse(t, src))
	if err != nil {
		t.Fatal(err)
	}
	return all(t, p, patterns.PhaseWrite, patterns.Env{Rank: rank, Size: size, Path: "/o/r.h5"})[1+step].Ops // after Begin
}

// TestCreateByRank0: rank 0 creates the file alone (serial file access, nothing
// collective), writes its attributes, creates g with its attribute and the table (its
// attribute, a whole independent write, closed), creates sub, closes each group before
// the next, closes the file; then every rank opens the file through MPI-IO, opens g (not
// created again) and creates x and idx collectively, x written collectively and idx by
// rank 0 alone, independently. Rank 1 makes none of the serial calls. Each step's file is
// created anew so.
func TestCreateByRank0(t *testing.T) {
	serial := []string{
		"create-file /o/f%d.h5 false", "write-attribute / false",
		"create-group /g false", "write-attribute /g false",
		"create-dataset /g/table false", "write-attribute /g/table false", "write /g/table false", "close-dataset /g/table false",
		"create-group /g/sub false", "write-attribute /g/sub false", "close-group /g/sub false",
		"close-group /g false", "close-file /o/f%d.h5 false",
	}
	parallel := []string{
		"open-file /o/f%d.h5 true", "open-group /g true",
		"create-dataset /g/x true", "write /g/x true",
		"create-dataset /g/idx true", "write /g/idx false",
		"close-dataset /g/idx true", "close-dataset /g/x true", "close-group /g true", "close-file /o/f%d.h5 true",
	}
	for step := range 2 {
		fill := func(lines []string) []string {
			out := make([]string, len(lines))
			for i, l := range lines {
				out[i] = strings.ReplaceAll(l, "%d", fmt.Sprint(step))
			}
			return out
		}
		r0 := stepOps(t, byRank0, 0, 2, step)
		if got, want := trace(r0), append(fill(serial), fill(parallel)...); !slices.Equal(got, want) {
			t.Errorf("rank 0 step %d:\n%s\nwant\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if fs := r0[0].File; fs.Parallel || !fs.SharedLater || !fs.MakeDirs || fs.CollMetadataOps {
			t.Errorf("step %d: serial create's access %+v, want per-rank, shared later, making directories", step, *fs)
		}
		if fs := r0[len(serial)].File; !fs.Parallel || fs.SharedLater || fs.MakeDirs || fs.ReadOnly {
			t.Errorf("step %d: open's access %+v, want parallel read-write", step, *fs)
		}
		if w := r0[6].Transfer; !reflect.DeepEqual(w.Selection, plan.WholeSpace([]uint64{4})) || !slices.Equal(w.FileShape, []uint64{4}) {
			t.Errorf("step %d: table written %v of %v, want all of [4]", step, w.Selection, w.FileShape)
		}
		want := fill(parallel)
		want = slices.Delete(want, 5, 6) // rank 1 has no part of idx: no independent call
		if got := trace(stepOps(t, byRank0, 1, 2, step)); !slices.Equal(got, want) {
			t.Errorf("rank 1 step %d:\n%s\nwant\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestCreateByRank0Groups: in an N-to-M file (ranks: 2 of 4) each group's first rank
// creates its group's file alone; the short form create: rank0 creates no dataset
// serially.
func TestCreateByRank0Groups(t *testing.T) {
	src := strings.Replace(byRank0, "name: f${step}.h5\n    create: {by: rank0, datasets: [table]}", "name: f${step}_${div(rank, 2)}.h5\n    ranks: 2\n    create: rank0", 1)
	for rank, creates := range []bool{true, false, true, false} {
		ops := stepOps(t, src, rank, 4, 0)
		path := fmt.Sprintf("/o/f0_%d.h5", rank/2)
		if got := len(find(ops, plan.CreateFile, path)); got != map[bool]int{true: 1}[creates] {
			t.Errorf("rank %d: %d creates of %s, want creating %v", rank, got, path, creates)
		}
		if o := find(ops, plan.OpenFile, path); len(o) != 1 || o[0].File.GroupRanks != 2 || !o[0].File.Parallel {
			t.Errorf("rank %d: opens of %s %+v, want one by its group of 2", rank, path, o)
		}
		if c := find(ops, plan.CreateDataset, "/g/table"); len(c) != 1 || !c[0].Collective {
			t.Errorf("rank %d: table created %+v, want once, collectively after the open", rank, c)
		}
	}
}

// TestCreateDefaultUnchanged: create: all (the default) plans what a description without
// the key plans, and independent: false what one without it plans.
func TestCreateDefaultUnchanged(t *testing.T) {
	plain := strings.Replace(strings.Replace(byRank0, "    create: {by: rank0, datasets: [table]}\n", "", 1), ", independent: true", "", 1)
	for _, src := range []string{
		strings.Replace(plain, "name: f${step}.h5", "name: f${step}.h5\n    create: all", 1),
		strings.Replace(plain, "decompose: rank0}", "decompose: rank0, independent: false}", 1),
	} {
		if src == plain {
			t.Fatal("the description did not change")
		}
		for rank := range 2 {
			if got, want := trace(opsOf(t, src, rank, 2)), trace(opsOf(t, plain, rank, 2)); !slices.Equal(got, want) {
				t.Errorf("rank %d:\n%s\nwant\n%s", rank, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

// TestCreateByRank0Restart: the restart read reads the serially written table back from
// rank 0's write (its step and values), and x over the readers.
func TestCreateByRank0Restart(t *testing.T) {
	p, err := FromDescription(mustParse(t, byRank0))
	if err != nil {
		t.Fatal(err)
	}
	var reads []plan.Op
	for _, pl := range all(t, p, patterns.PhaseRead, patterns.Env{Rank: 0, Size: 2, Path: "/o/r.h5"}) {
		for _, op := range pl.Ops {
			if op.Kind == plan.Read {
				reads = append(reads, op)
			}
		}
	}
	var got []string
	for _, r := range reads {
		got = append(got, fmt.Sprintf("%s %d %v", r.Path, r.Step, r.Transfer.FileShape))
	}
	if want := []string{"/g/table 1 [4]", "/g/x 1 [8]", "/g/idx 1 [5]"}; !slices.Equal(got, want) {
		t.Errorf("restart reads %v, want %v", got, want)
	}
}
