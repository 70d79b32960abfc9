package app

import (
	"fmt"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

// handlesSrc is a file whose code holds only the file's identifier (hold: call), writes
// attributes through H5Oopen (attributes: reopen) and creates objects in their opened
// parent (open_parents), over two steps with independent transfers: a group with two
// attributes, a dataset with one, a series extended at step 1 and a dataset rank 0 alone
// writes.
const handlesSrc = `params: {n: 4}
steps: 2
files:
  out:
    name: out.h5
    handles: {hold: call, attributes: reopen, open_parents: true}
    collective_metadata: true
    attributes: {title: run}
    groups:
      g:
        attributes: {a: 1, b: 2}
        datasets:
          x: {type: f64, shape: [n * nranks], attributes: {unit: m}}
          s: {type: f64, shape: [1, n * nranks], extend: 0, decompose: {grid: [1, 0]}}
          r: {type: i32, shape: [2], decompose: rank0}
timeline:
  - write: out
    collective: false
`

// opLines renders operations as KIND PATH[@ATTRIBUTE] with the flags the handles key
// decides: C collective, O through H5Oopen/H5Oclose, M collective metadata reads.
func opLines(ops []plan.Op) string {
	var b strings.Builder
	for _, op := range ops {
		fmt.Fprintf(&b, "%s %s", op.Kind, op.Path)
		if op.Attribute != nil {
			b.WriteString("@" + op.Attribute.Name)
		}
		flags := ""
		for _, f := range []struct {
			on bool
			c  string
		}{{op.Collective, "C"}, {op.AsObject, "O"}, {op.CollMetadata, "M"}} {
			if f.on {
				flags += f.c
			}
		}
		if flags != "" {
			b.WriteString(" " + flags)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestHandlesPerCall pins the sequence hold: call, attributes: reopen and open_parents
// give, as openPMD-api's HDF5 backend makes its calls: each create inside its opened
// parent (the root too) and closed at once; each attribute of a group or dataset through
// its own H5Oopen and H5Oclose (with the file's collective metadata reads), the file's
// through its root group; each write and extension inside its own open and close of the dataset,
// collective only for the extension (every rank calls H5Dset_extent); a rank that writes
// nothing (r on rank 1) opens nothing. The plans keep the common lifecycle rules
// (datasets opened by their path from the file): nothing stays open between actions.
func TestHandlesPerCall(t *testing.T) {
	created := func(kind plan.OpKind, path, parent string, attrs ...string) string {
		closeKind, openKind := plan.CloseDataset, plan.OpenDataset
		if kind == plan.CreateGroup {
			closeKind, openKind = plan.CloseGroup, plan.OpenGroup
		}
		s := fmt.Sprintf("open-group %s CM\n%s %s C\n%s %s C\nclose-group %s C\n", parent, kind, path, closeKind, path, parent)
		for _, a := range attrs {
			s += fmt.Sprintf("%s %s COM\nwrite-attribute %s@%s C\n%s %s CO\n", openKind, path, path, a, closeKind, path)
		}
		return s
	}
	write := func(path string) string {
		return "open-dataset " + path + "\nwrite " + path + "\nclose-dataset " + path + "\n"
	}
	for _, rank := range []int{0, 1} {
		want := "create-file out.h5 C\nopen-group / COM\nwrite-attribute /@title C\nclose-group / CO\n" +
			created(plan.CreateGroup, "/g", "/", "a", "b") +
			created(plan.CreateDataset, "/g/x", "/g", "unit") + write("/g/x") +
			created(plan.CreateDataset, "/g/s", "/g") + write("/g/s")
		if rank == 0 {
			want += created(plan.CreateDataset, "/g/r", "/g") + write("/g/r")
		} else {
			want += created(plan.CreateDataset, "/g/r", "/g")
		}
		// Step 1: the series is extended by every rank, r rewritten by rank 0.
		want += write("/g/x") + "open-dataset /g/s C\nextend-dataset /g/s C\nwrite /g/s\nclose-dataset /g/s C\n"
		if rank == 0 {
			want += write("/g/r")
		}
		want += "close-file out.h5 C\n"
		want = strings.ReplaceAll(want, "create-file out.h5", "create-file /o/out.h5")
		want = strings.ReplaceAll(want, "close-file out.h5", "close-file /o/out.h5")
		if got := opLines(opsOf(t, handlesSrc, rank, 2)); got != want {
			t.Errorf("rank %d of 2:\n%s\nwant:\n%s", rank, got, want)
		}
		p := buildSrc(t, handlesSrc)
		if err := plantest.CheckLifecycle(patterns.PhaseWrite, all(t, p, patterns.PhaseWrite, patterns.Env{Rank: rank, Size: 2, Path: "/o/r.h5"}), plantest.Lifecycle{FullPaths: true}); err != nil {
			t.Errorf("rank %d of 2: %v", rank, err)
		}
	}
}

// TestHandlesCallAlone: hold: call without the other keys creates by path (no parent
// opened) and writes a created object's attributes on it before closing it.
func TestHandlesCallAlone(t *testing.T) {
	src := strings.Replace(handlesSrc, "{hold: call, attributes: reopen, open_parents: true}", "{hold: call}", 1)
	got := opLines(opsOf(t, strings.Replace(src, "steps: 2", "steps: 1", 1), 1, 2))
	want := "create-file /o/out.h5 C\nwrite-attribute /@title C\n" +
		"create-group /g C\nwrite-attribute /g@a C\nwrite-attribute /g@b C\nclose-group /g C\n" +
		"create-dataset /g/x C\nwrite-attribute /g/x@unit C\nclose-dataset /g/x C\nopen-dataset /g/x\nwrite /g/x\nclose-dataset /g/x\n" +
		"create-dataset /g/s C\nclose-dataset /g/s C\nopen-dataset /g/s\nwrite /g/s\nclose-dataset /g/s\n" +
		"create-dataset /g/r C\nclose-dataset /g/r C\nclose-file /o/out.h5 C\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestHandlesDefault: without the key, and with its defaults written out, the plan is
// today's (objects held for the action, attributes on them, no parent opened).
func TestHandlesDefault(t *testing.T) {
	without := strings.Replace(handlesSrc, "    handles: {hold: call, attributes: reopen, open_parents: true}\n", "", 1)
	defaults := strings.Replace(handlesSrc, "{hold: call, attributes: reopen, open_parents: true}", "{hold: action, attributes: object, open_parents: false}", 1)
	got, want := opLines(opsOf(t, defaults, 1, 2)), opLines(opsOf(t, without, 1, 2))
	if got != want {
		t.Errorf("defaults written out:\n%s\nwithout the key:\n%s", got, want)
	}
	if strings.Contains(want, " CO") || strings.Contains(want, "open-group / ") || !strings.Contains(want, "create-group /g C\nwrite-attribute /g@a C\n") {
		t.Errorf("without the key the plan is not today's (objects held for the action):\n%s", want)
	}
}

// TestHandlesErrors: attributes: reopen and open_parents need hold: call; bad values are
// named with their place.
func TestHandlesErrors(t *testing.T) {
	cases := []struct {
		name, handles string
		want          []string
	}{
		{"reopen held", "{attributes: reopen}", []string{"d.yaml:6:27:", "key files.out.handles.attributes", `value "reopen"`, "hold: action", "allowed: hold: call"}},
		{"parents held", "{hold: action, open_parents: true}", []string{"d.yaml:6:43:", "key files.out.handles.open_parents", `value "true"`, "allowed: hold: call"}},
		{"bad hold", "{hold: calls}", []string{"d.yaml:6:21:", "key files.out.handles.hold", `value "calls"`, "did you mean call?", "allowed: action, call"}},
		{"bad bool", "{hold: call, open_parents: yes please}", []string{"d.yaml:6:41:", "key files.out.handles.open_parents", "not a boolean"}},
		{"unknown key", "{hold: call, attribute: reopen}", []string{"d.yaml:6:27:", "key files.out.handles.attribute", "did you mean attributes?", "allowed: hold, attributes, open_parents"}},
	}
	for _, c := range cases {
		src := strings.Replace(base, "    name: out.h5\n", "    name: out.h5\n    handles: "+c.handles+"\n", 1)
		wantErr(t, c.name, planErr(t, src, 1), c.want)
	}
}

// seriesSrc is PETSc's VecView with timestepping: a Vec's series dataset and a rank-0
// time series, three steps, in a file that stays open.
const seriesSrc = `steps: 3
files:
  out:
    name: out.h5
    handles: {series: reopen}
    datasets:
      u: {type: f64, shape: [1, 8 * nranks], extend: 0, decompose: {grid: [1, 0]}}
timeline: [{write: out}]
`

// TestSeriesReopen: series: reopen closes a series dataset at the end of each action
// and opens it again at its next write (H5Dopen2, H5Dset_extent, H5Dwrite, H5Dclose), as
// PETSc's viewer does; by default (keep) it stays open from its creation until the file
// closes; with hold: call or file it is refused, naming the key.
func TestSeriesReopen(t *testing.T) {
	lines := func(src string) string {
		var b strings.Builder
		for _, pl := range planSrc(t, src, 2) {
			for _, op := range pl.Ops {
				if op.Path == "/u" {
					fmt.Fprintf(&b, "%d %s\n", op.Step, op.Kind)
				}
			}
		}
		return b.String()
	}
	reopen := "0 create-dataset\n0 write\n0 close-dataset\n" +
		"1 open-dataset\n1 extend-dataset\n1 write\n1 close-dataset\n" +
		"2 open-dataset\n2 extend-dataset\n2 write\n2 close-dataset\n"
	if got := lines(seriesSrc); got != reopen {
		t.Errorf("series: reopen plans:\n%s\nwant:\n%s", got, reopen)
	}
	// kept: closed once, with the file (the close's step aside)
	keep := "0 create-dataset\n0 write\n1 extend-dataset\n1 write\n2 extend-dataset\n2 write\nclose-dataset\n"
	got := lines(strings.Replace(seriesSrc, "{series: reopen}", "{series: keep}", 1))
	if i := strings.LastIndex(strings.TrimSuffix(got, "\n"), "\n"); i >= 0 {
		_, last, _ := strings.Cut(got[i+1:], " ")
		got = got[:i+1] + last
	}
	if got != keep {
		t.Errorf("series: keep plans:\n%s\nwant:\n%s", got, keep)
	}
	for _, hold := range []string{"call", "file"} {
		err := planErr(t, strings.Replace(seriesSrc, "{series: reopen}", "{hold: "+hold+", series: reopen}", 1), 2)
		want := "key files.out.handles.series value \"reopen\": series datasets closed at each action's end while the code holds its objects per call or per file (hold: " + hold + ")"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("hold: %s with series: reopen: error %v, want %q", hold, err, want)
		}
	}
	if err := planErr(t, strings.Replace(seriesSrc, "{series: reopen}", "{series: reopn}", 1), 2); err == nil || !strings.Contains(err.Error(), `value "reopn": not allowed (did you mean reopen?)`) {
		t.Errorf("series: reopn: error %v", err)
	}
}
