package app

import (
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

// sequenceSrc is a file written by_call with forward closes over two steps (a series
// extended at step 1, a group with an attribute, a dataset in it with one), read back at
// restart in another order than the file's (its datasets list).
const sequenceSrc = `params: {n: 4}
steps: 2
files:
  out:
    name: out.h5
    handles: {sequence: by_call, close: forward}
    datasets:
      s: {type: f64, shape: [1, n * nranks], extend: 0, decompose: {grid: [1, 0]}}
    groups:
      g:
        attributes: {a: 1}
        datasets:
          x: {type: f64, shape: [n * nranks], attributes: {unit: m}}
          y: {type: i32, shape: [n * nranks]}
timeline:
  - write: out
  - {read: out, at: restart, datasets: [y, /g/x]}
`

// readOps is the read phase's operations of rank of size.
func readOps(t *testing.T, src string, rank, size int) []plan.Op {
	t.Helper()
	var ops []plan.Op
	for _, pl := range all(t, buildSrc(t, src), patterns.PhaseRead, patterns.Env{Rank: rank, Size: size, Path: "/o/r.h5"}) {
		ops = append(ops, pl.Ops...)
	}
	return ops
}

// TestSequenceByCall pins sequence: by_call and close: forward, as h5bench's VPIC-IO
// writes and BD-CATS reads: every create (with its attributes) and open first, then every
// extension and transfer, then the closes in creation or open order (datasets, then
// groups); the series stays open to the file's close. The read follows its action's list
// (y before x), its closes too.
func TestSequenceByCall(t *testing.T) {
	want := "create-file /o/out.h5 C\n" +
		"create-group /g C\nwrite-attribute /g@a C\n" +
		"create-dataset /s C\ncreate-dataset /g/x C\nwrite-attribute /g/x@unit C\ncreate-dataset /g/y C\n" +
		"write /s C\nwrite /g/x C\nwrite /g/y C\n" +
		"close-dataset /g/x C\nclose-dataset /g/y C\nclose-group /g C\n" +
		// Step 1: the existing objects reopened, the series extended just before its write.
		"open-group /g C\nopen-dataset /g/x C\nopen-dataset /g/y C\n" +
		"extend-dataset /s C\nwrite /s C\nwrite /g/x C\nwrite /g/y C\n" +
		"close-dataset /g/x C\nclose-dataset /g/y C\nclose-group /g C\n" +
		"close-dataset /s C\nclose-file /o/out.h5 C\n"
	for _, rank := range []int{0, 1} {
		if got := opLines(opsOf(t, sequenceSrc, rank, 2)); got != want {
			t.Errorf("write, rank %d of 2:\n%s\nwant:\n%s", rank, got, want)
		}
		p := buildSrc(t, sequenceSrc)
		if err := plantest.CheckLifecycle(patterns.PhaseWrite, all(t, p, patterns.PhaseWrite, patterns.Env{Rank: rank, Size: 2, Path: "/o/r.h5"}), plantest.Lifecycle{FullPaths: true}); err != nil {
			t.Errorf("rank %d of 2: %v", rank, err)
		}
	}
	wantRead := "open-file /o/out.h5 C\nopen-group /g C\nopen-dataset /g/y C\nopen-dataset /g/x C\n" +
		"read /g/y C\nread /g/x C\nclose-dataset /g/y C\nclose-dataset /g/x C\nclose-group /g C\nclose-file /o/out.h5 C\n"
	if got := opLines(readOps(t, sequenceSrc, 1, 2)); got != wantRead {
		t.Errorf("read, rank 1 of 2:\n%s\nwant:\n%s", got, wantRead)
	}
	// close: reverse closes a read's datasets last first; by_object visits them in the
	// file's order whatever the list says.
	rev := strings.Replace(sequenceSrc, "{sequence: by_call, close: forward}", "{close: reverse}", 1)
	wantRev := "open-file /o/out.h5 C\nopen-group /g C\nopen-dataset /g/x C\nread /g/x C\nopen-dataset /g/y C\nread /g/y C\n" +
		"close-dataset /g/y C\nclose-dataset /g/x C\nclose-group /g C\nclose-file /o/out.h5 C\n"
	if got := opLines(readOps(t, rev, 1, 2)); got != wantRev {
		t.Errorf("read with close: reverse, rank 1 of 2:\n%s\nwant:\n%s", got, wantRev)
	}
}

// TestSequenceDefault: without the keys, with their defaults written out, and with
// close: auto, the plans are today's (each dataset's calls before the next's; a write's
// closes last first, a read's datasets first to last).
func TestSequenceDefault(t *testing.T) {
	without := strings.Replace(sequenceSrc, "    handles: {sequence: by_call, close: forward}\n", "", 1)
	defaults := strings.Replace(sequenceSrc, "{sequence: by_call, close: forward}", "{sequence: by_object, close: auto}", 1)
	for _, ops := range []func(*testing.T, string, int, int) []plan.Op{opsOf, readOps} {
		got, want := opLines(ops(t, defaults, 1, 2)), opLines(ops(t, without, 1, 2))
		if got != want {
			t.Errorf("defaults written out:\n%s\nwithout the keys:\n%s", got, want)
		}
	}
	if w := opLines(opsOf(t, without, 0, 2)); !strings.Contains(w, "create-dataset /g/x C\nwrite-attribute /g/x@unit C\nwrite /g/x C\ncreate-dataset /g/y C\n") ||
		!strings.Contains(w, "close-dataset /g/y C\nclose-dataset /g/x C\nclose-group /g C\n") {
		t.Errorf("without the keys the write is not today's (by object, closes last first):\n%s", w)
	}
}

// TestSequenceErrors: bad values and the keys under hold: call are named with their place.
func TestSequenceErrors(t *testing.T) {
	cases := []struct {
		name, handles string
		want          []string
	}{
		{"bad sequence", "{sequence: by_calls}", []string{"d.yaml:6:25:", "key files.out.handles.sequence", `value "by_calls"`, "did you mean by_call?", "allowed: by_object, by_call"}},
		{"bad close", "{close: backward}", []string{"d.yaml:6:22:", "key files.out.handles.close", `value "backward"`, "allowed: auto, forward, reverse"}},
		{"by_call per call", "{hold: call, sequence: by_call}", []string{"d.yaml:6:37:", "key files.out.handles.sequence", `value "by_call"`, "hold: call", "allowed: by_object, depth_first, or hold: action"}},
		{"early by_object", "{hold: call}\n    attributes: {t: {value: 1, early: true}}", []string{"d.yaml:7:39:", "key files.out.attributes.t.early", `value "true"`, "handles sequence is by_object", "allowed: false, or handles sequence: depth_first"}},
		{"depth_first held", "{sequence: depth_first}", []string{"d.yaml:6:25:", "key files.out.handles.sequence", `value "depth_first"`, "hold: action", "allowed: hold: call with it"}},
		{"close per call", "{hold: call, close: forward}", []string{"d.yaml:6:34:", "key files.out.handles.close", `value "forward"`, "allowed: auto, or hold: action"}},
	}
	for _, c := range cases {
		src := strings.Replace(base, "    name: out.h5\n", "    name: out.h5\n    handles: "+c.handles+"\n", 1)
		wantErr(t, c.name, planErr(t, src, 1), c.want)
	}
}

// TestSequenceDepthFirst pins sequence: depth_first (hold: call, attributes: reopen), as
// openPMD-api flushes: from the root, each group's members in name order, groups and
// datasets together (a, m, z); each created, a dataset's data written, then its
// attributes; a group's after its members' except an early one (b, right after its
// creation); the file's last.
func TestSequenceDepthFirst(t *testing.T) {
	src := `steps: 1
files:
  out:
    name: out.h5
    handles: {hold: call, attributes: reopen, sequence: depth_first}
    attributes: {t: 1}
    groups:
      g:
        attributes:
          a: 1
          b: {value: 2, early: true}
        datasets:
          z: {type: f64, shape: [4 * nranks], attributes: {unit: m}}
          a: {type: i32, shape: [4 * nranks]}
        groups:
          m: {attributes: {u: 3}}
timeline:
  - write: out
    collective: false
`
	attr := func(kind, path, name string) string {
		return "open-" + kind + " " + path + " CO\nwrite-attribute " + path + "@" + name + " C\nclose-" + kind + " " + path + " CO\n"
	}
	want := "create-file /o/out.h5 C\n" +
		"create-group /g C\nclose-group /g C\n" + attr("group", "/g", "b") +
		"create-dataset /g/a C\nclose-dataset /g/a C\nopen-dataset /g/a\nwrite /g/a\nclose-dataset /g/a\n" +
		"create-group /g/m C\nclose-group /g/m C\n" + attr("group", "/g/m", "u") +
		"create-dataset /g/z C\nclose-dataset /g/z C\nopen-dataset /g/z\nwrite /g/z\nclose-dataset /g/z\n" + attr("dataset", "/g/z", "unit") +
		attr("group", "/g", "a") + attr("group", "/", "t") + "close-file /o/out.h5 C\n"
	if got := opLines(opsOf(t, src, 1, 2)); got != want {
		t.Errorf("rank 1 of 2:\n%s\nwant:\n%s", got, want)
	}
	// The same calls as by_object, in another order.
	byObject := opLines(opsOf(t, strings.NewReplacer(", sequence: depth_first", "", ", early: true", "").Replace(src), 1, 2))
	if g, w := strings.Split(want, "\n"), strings.Split(byObject, "\n"); !sameLines(g, w) {
		t.Errorf("depth_first's calls differ from by_object's:\n%s\nby_object:\n%s", want, byObject)
	}
}

// sameLines reports whether a and b hold the same lines, in any order.
func sameLines(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestSequenceByGroup pins sequence: by_group, as NOvA's files are written: the root's
// datasets first, each closed after its write; then group by group (g, its subgroup g/h,
// k), each created with its attributes, each of its datasets created, written and closed
// in the file's order, the group closed after its members; the series kept open to the
// file's close. At step 1 the groups and datasets are reopened in the same order. Under
// hold: call it is refused, and so is an order of closes beside it.
func TestSequenceByGroup(t *testing.T) {
	// sequenceSrc with a root dataset r before the series, a subgroup g/h and a group k.
	src := strings.NewReplacer(
		"{sequence: by_call, close: forward}", "{sequence: by_group}",
		"    datasets:\n      s:", "    datasets:\n      r: {type: f64, shape: [n * nranks]}\n      s:",
		"          y: {type: i32, shape: [n * nranks]}\n", "          y: {type: i32, shape: [n * nranks]}\n        groups:\n          h:\n            datasets:\n"+
			"              z: {type: f64, shape: [n * nranks]}\n      k:\n        datasets:\n          w: {type: f64, shape: [n * nranks]}\n",
	).Replace(sequenceSrc)
	step := func(open, create, ext string) string {
		ds := func(p string) string { return create + p + " C\n" }
		return ds("-dataset /r") + "write /r C\nclose-dataset /r C\n" +
			ds("-dataset /s") + ext + "write /s C\n" +
			create + "-group /g C\n" + open + "write /g/x C\nclose-dataset /g/x C\n" +
			ds("-dataset /g/y") + "write /g/y C\nclose-dataset /g/y C\n" +
			ds("-group /g/h") + ds("-dataset /g/h/z") + "write /g/h/z C\nclose-dataset /g/h/z C\nclose-group /g/h C\nclose-group /g C\n" +
			ds("-group /k") + ds("-dataset /k/w") + "write /k/w C\nclose-dataset /k/w C\nclose-group /k C\n"
	}
	want := "create-file /o/out.h5 C\n" +
		strings.Replace(step("create-dataset /g/x C\nwrite-attribute /g/x@unit C\n", "create", ""), "create-group /g C\n", "create-group /g C\nwrite-attribute /g@a C\n", 1) +
		strings.Replace(step("open-dataset /g/x C\n", "open", "extend-dataset /s C\n"), "open-dataset /s C\n", "", 1) +
		"close-dataset /s C\nclose-file /o/out.h5 C\n"
	for _, rank := range []int{0, 1} {
		if got := opLines(opsOf(t, src, rank, 2)); got != want {
			t.Errorf("write, rank %d of 2:\n%s\nwant:\n%s", rank, got, want)
		}
		if err := plantest.CheckLifecycle(patterns.PhaseWrite, all(t, buildSrc(t, src), patterns.PhaseWrite, patterns.Env{Rank: rank, Size: 2, Path: "/o/r.h5"}), plantest.Lifecycle{FullPaths: true}); err != nil {
			t.Errorf("rank %d of 2: %v", rank, err)
		}
	}
	held := strings.Replace(base, "    name: out.h5\n", "    name: out.h5\n    handles: {hold: call, sequence: by_group}\n", 1)
	wantErr(t, "by_group per call", planErr(t, held, 1), []string{"key files.out.handles.sequence", `value "by_group"`, "hold: call", "allowed: by_object, depth_first, or hold: action"})
	closing := strings.Replace(base, "    name: out.h5\n", "    name: out.h5\n    handles: {sequence: by_group, close: forward}\n", 1)
	wantErr(t, "by_group with close", planErr(t, closing, 1), []string{"d.yaml:6:42:", "key files.out.handles.close", `value "forward"`, "by_group", "allowed: auto with by_group"})
}
