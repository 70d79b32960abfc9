package profile

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// wayTrace builds a traced 2-rank profile of file /d/f.h5 from each rank's calls, one a
// line: "CALL [PATH] [mpio|serial] [ops] [write] [coll]" (a path for datasets, groups and
// objects; the access list for H5Fcreate and H5Fopen; coll for a collective transfer).
// Datasets are 1-D f64 of 8 elements; a transfer selects the rank's half (rank 0 alone
// with "whole": all of it).
func wayTrace(t *testing.T, ranks ...[]string) *Profile {
	t.Helper()
	const file = "/d/f.h5"
	p := &Profile{Traced: true, Ranks: len(ranks), Calls: map[string]Call{}}
	p.Records = append(p.Records, Record{Module: "H5F", File: file, Rank: -1, Counters: map[string]int64{"H5F_USE_MPIIO": 1},
		Info: json.RawMessage(`{"driver":"mpio","coll_metadata_ops":true,"coll_metadata_write":true}`)})
	seen := map[string]bool{}
	for r, calls := range ranks {
		for i, line := range calls {
			f := strings.Fields(line)
			e := Event{Rank: r, Module: "H5F", Call: f[0], File: file, Start: float64(i), End: float64(i) + 0.5}
			has := func(w string) bool { return strings.Contains(" "+line+" ", " "+w+" ") }
			switch {
			case f[0] == "H5Fcreate" || f[0] == "H5Fopen":
				e.FAPL = &FAPL{Driver: map[bool]string{true: "mpio", false: "other"}[has("mpio")], CollOps: has("ops"), CollWrite: has("write")}
			case strings.HasPrefix(f[0], "H5D"):
				e.Module, e.Name = "H5D", f[1]
				if !seen[f[1]] {
					seen[f[1]] = true
					p.Records = append(p.Records, Record{Module: "H5D", File: file, Name: f[1], Rank: -1,
						Info: json.RawMessage(`{"type_class":1,"type_size":8,"layout":1,"dims":[8],"maxdims":[8]}`)})
				}
				if f[0] == "H5Dwrite" || f[0] == "H5Dread" {
					e.Collective = has("coll")
					e.Selection = json.RawMessage(fmt.Sprintf(`{"start":[%d],"stride":[1],"count":[4],"block":[1]}`, 4*r))
					if has("whole") {
						e.Selection = json.RawMessage(`{"start":[0],"stride":[1],"count":[8],"block":[1]}`)
					}
				}
			case f[0] == "H5Acreate2":
				e.Attribute = json.RawMessage(fmt.Sprintf(`{"object":%q,"name":"a","type_class":0,"type_size":4,"type_sign":1,"dims":[]}`, f[1]))
			case len(f) > 1:
				e.Object = f[1]
			}
			p.Events = append(p.Events, e)
		}
	}
	return p
}

// captureOf captures p and fails on an error.
func captureOf(t *testing.T, p *Profile) *Description {
	t.Helper()
	c, err := Capture(p, "w")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waysOf sums up a captured file's keys of how the program reached its objects, and the
// timeline: "create: BY DATASETS; collective_metadata: V; handles: HOLD ATTRS PARENTS;
// ACTIONS".
func waysOf(c *Description, f *desc.File) string {
	var acts []string
	for _, a := range c.Desc.Timeline {
		verb, id := a.Verb()
		acts = append(acts, strings.Join(strings.Fields(fmt.Sprintf("%s %s %s %s %s", verb, id.Text, a.At.Text, a.Collective.Text, strings.Trim(texts(a.Datasets), "[]"))), " "))
	}
	return strings.Join(strings.Fields(fmt.Sprintf("create: %s %s; collective_metadata: %s; handles: %s %s %s; %s", f.Create.By.Text, strings.Trim(texts(f.Create.Datasets), "[]"),
		f.CollectiveMetadata.Text, f.Handles.Hold.Text, f.Handles.Attributes.Text, f.Handles.OpenParents.Text, strings.Join(acts, ", "))), " ")
}

// TestCaptureWays: the keys capture infers from each open's access list and the order of
// opens and closes, on traces built by hand.
func TestCaptureWays(t *testing.T) {
	shared := []string{"H5Fopen mpio ops write", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Fclose"}
	for _, c := range []struct {
		name       string
		ranks      [][]string
		want       string // waysOf
		guess      string // a guess on the file
		unexpected string // in Unexpressed
	}{
		{name: "rank 0 creates serially, with a dataset it writes whole",
			ranks: [][]string{
				append([]string{"H5Fcreate serial", "H5Dcreate2 /meta", "H5Dwrite /meta whole", "H5Dclose /meta", "H5Fclose"}, shared...),
				shared},
			want: "create: rank0 meta; collective_metadata: true; handles: ; write f"},
		{name: "the creation through MPI-IO on every rank is the default",
			ranks: [][]string{{"H5Fcreate mpio", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Fclose"},
				{"H5Fcreate mpio", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Fclose"}},
			want: "create: ; collective_metadata: ; handles: ; write f"},
		{name: "collective metadata on the reading opens alone; a reopen to read is no hold: call",
			ranks: [][]string{
				{"H5Fcreate mpio", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Fclose", "H5Fopen mpio ops", "H5Dopen2 /x", "H5Dread /x coll", "H5Dclose /x", "H5Fclose"},
				{"H5Fcreate mpio", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Fclose", "H5Fopen mpio ops", "H5Dopen2 /x", "H5Dread /x coll", "H5Dclose /x", "H5Fclose"}},
			want: "create: ; collective_metadata: read; handles: ; write f, read f restart"},
		{name: "collective metadata writes without reads",
			ranks:      [][]string{{"H5Fcreate mpio write", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Fclose"}, {"H5Fcreate mpio write", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Fclose"}},
			want:       "create: ; collective_metadata: true; handles: ; write f",
			unexpected: "f.h5: collective metadata reads false, writes true (a description sets both)"},
		{name: "hold: call with some datasets written on their creation's handle: a guess",
			ranks: [][]string{
				{"H5Fcreate mpio", "H5Dcreate2 /x", "H5Dclose /x", "H5Dopen2 /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Dcreate2 /y", "H5Dwrite /y coll", "H5Dclose /y", "H5Fclose"},
				{"H5Fcreate mpio", "H5Dcreate2 /x", "H5Dclose /x", "H5Dopen2 /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Dcreate2 /y", "H5Dwrite /y coll", "H5Dclose /y", "H5Fclose"}},
			want:  "create: ; collective_metadata: ; handles: call ; write f",
			guess: "hold: call: 1 datasets were written through a reopen after their creation (/x first), 1 on their creation's handle (/y first)"},
		{name: "attributes through H5Oopen and parents opened, while datasets stay open: listed",
			ranks: [][]string{
				{"H5Fcreate mpio", "H5Gopen2 /", "H5Dcreate2 /x", "H5Gclose /", "H5Oopen /x", "H5Acreate2 /x", "H5Oclose /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Fclose"},
				{"H5Fcreate mpio", "H5Gopen2 /", "H5Dcreate2 /x", "H5Gclose /", "H5Oopen /x", "H5Acreate2 /x", "H5Oclose /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Fclose"}},
			want:       "create: ; collective_metadata: ; handles: ; write f",
			unexpected: "f.h5: attributes through H5Oopen true, parents opened around creates true, while the datasets stay open"},
		{name: "rank 0's independent dataset among collective ones: independent: true, one action",
			ranks: [][]string{
				{"H5Fcreate mpio", "H5Dcreate2 /t", "H5Dcreate2 /x", "H5Dwrite /t whole", "H5Dwrite /x coll", "H5Fclose"},
				{"H5Fcreate mpio", "H5Dcreate2 /t", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Fclose"}},
			want: "create: ; collective_metadata: ; handles: ; write f"},
		{name: "rank 0 alone with a serial driver, the others never open it: writer: rank0",
			ranks: [][]string{{"H5Fcreate serial", "H5Dcreate2 /x", "H5Dwrite /x whole", "H5Dclose /x", "H5Fclose"}, {}},
			want:  "create: ; collective_metadata: ; handles: ; write f false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := captureOf(t, wayTrace(t, c.ranks...))
			checked(t, d)
			f := fileOf(t, d.Desc, "f")
			if got := waysOf(d, f); got != c.want {
				t.Errorf("ways %q, want %q:\n%s", got, c.want, d.YAML)
			}
			if n := d.Desc.Notes["files.f"]; c.guess != "" && (n == nil || !slices.ContainsFunc(n.Guess, func(g string) bool { return strings.HasPrefix(g, c.guess) })) {
				t.Errorf("no guess %q on the file:\n%s", c.guess, d.YAML)
			}
			got := strings.Join(d.Unexpressed, "\n")
			if c.unexpected != "" && !strings.Contains(got, c.unexpected) || c.unexpected == "" && got != "" {
				t.Errorf("unexpressed %q, want %q", got, c.unexpected)
			}
			if strings.HasPrefix(c.name, "rank 0's independent") {
				ds := datasetOf(t, f, "/t")
				if texts(ds.Shape) != "[8]" || decompText(ds.Decompose) != "{kind: rank0, select: hyperslab}" || ds.Independent.Text != "true" {
					t.Errorf("t: shape %s decompose %s independent %q", texts(ds.Shape), decompText(ds.Decompose), ds.Independent.Text)
				}
			}
			if serial := strings.HasPrefix(c.name, "rank 0 alone"); (f.Writer.Text == "rank0") != serial {
				t.Errorf("writer %q, want rank0: %v", f.Writer.Text, serial)
			}
		})
	}
}

// TestCaptureWaysOlderTrace: a trace without each open's access list (a library older
// than the fapl member) keeps the record's collective metadata, marked as a guess, and
// infers no creation or handles.
func TestCaptureWaysOlderTrace(t *testing.T) {
	p := wayTrace(t, []string{"H5Fcreate mpio", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Fclose"}, []string{"H5Fcreate mpio", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Fclose"})
	for i := range p.Events {
		p.Events[i].FAPL = nil
	}
	d := captureOf(t, p)
	checked(t, d)
	f := fileOf(t, d.Desc, "f")
	if n := d.Desc.Notes["files.f"]; f.CollectiveMetadata.Text != "true" || n == nil || len(n.Guess) != 1 || !strings.HasPrefix(n.Guess[0], "collective_metadata: the file's last open asked for it") ||
		!strings.Contains(d.YAML, "# guess: collective_metadata: the file's last open asked for it") {
		t.Errorf("description:\n%s", d.YAML)
	}
}

// TestCaptureFilePerStep: files whose names differ only in a number, the steps 0..N-1,
// with the same datasets fold into one file named per step, their writes its steps;
// other numbers stay files of their own, listed.
func TestCaptureFilePerStep(t *testing.T) {
	p := &Profile{Traced: true, Ranks: 2, Calls: map[string]Call{}}
	for _, f := range []string{"/d/out_00.h5", "/d/out_01.h5", "/d/out_02.h5", "/d/ck3.h5", "/d/ck7.h5"} {
		p.Records = append(p.Records, Record{Module: "H5D", File: f, Name: "/g_0/x", Rank: -1,
			Info: json.RawMessage(`{"type_class":1,"type_size":8,"layout":1,"dims":[8],"maxdims":[8]}`)})
		for r := range 2 {
			p.Events = append(p.Events, Event{Rank: r, Module: "H5D", Call: "H5Dwrite", File: f, Name: "/g_0/x", Collective: true,
				Selection: json.RawMessage(fmt.Sprintf(`{"start":[%d],"stride":[1],"count":[4],"block":[1]}`, 4*r))})
		}
	}
	d := captureOf(t, p)
	checked(t, d)
	var files []string
	for _, f := range d.Desc.Files {
		files = append(files, f.ID+" "+f.Name.Text)
	}
	out := fileOf(t, d.Desc, "out")
	datasetOf(t, out, "/g_0/x")
	if want := []string{"out out_${step:02d}.h5", "ck3 ck3.h5", "ck7 ck7.h5"}; !slices.Equal(files, want) || d.Desc.Steps.Text != "3" || waysOf(d, out) != "create: ; collective_metadata: ; handles: ; write out, write ck3, write ck7" {
		t.Errorf("files %q, steps %s, %s, want %q, 3:\n%s", files, d.Desc.Steps.Text, waysOf(d, out), want, d.YAML)
	}
	if got := strings.Join(d.Unexpressed, "\n"); !strings.Contains(got, "ck3.h5, ck7.h5: names that differ in a number other than the steps 0..N-1, written as 2 files") {
		t.Errorf("unexpressed %q", got)
	}
	// each written once, after the last file of the step counter: at its step
	for _, a := range d.Desc.Timeline[1:] {
		if a.When.Text != "step == 2" || a.Every.Set {
			t.Errorf("%s: when %q every %q, want when step == 2", a.Write.Text, a.When.Text, a.Every.Text)
		}
	}
}

// TestCaptureFamilies: two families of files, each numbered from 0, in one run (FLASH's
// checkpoints and plot files; a snapshot every step and a restart file every second step)
// keep their own numbering: the larger is the step counter, the other is written at the
// steps of the counter's files it was written with, its number computed from the step,
// and a file written once (FLASH's forced plot file) at its step; the timeline follows
// the order of the files.
func TestCaptureFamilies(t *testing.T) {
	for _, c := range []struct {
		name  string
		files []string // in the order rank 0 wrote them
		want  []string // each action: file id, name, every, when
	}{
		{name: "flash: checkpoints first, every second plot file; a forced plot file",
			files: []string{"chk_0000", "plt_0000", "plt_0001", "chk_0001", "plt_0002", "forced_plt_0003"},
			want:  []string{"chk chk_${div(step, 2):04d} 2 -", "plt plt_${step:04d} - -", "forced_plt_0003 forced_plt_0003 - step == 2"}},
		{name: "restart files after the snapshot of their step",
			files: []string{"snap_0000.h5", "restart_0000.h5", "snap_0001.h5", "snap_0002.h5", "restart_0001.h5", "snap_0003.h5"},
			want:  []string{"snap snap_${step:04d}.h5 - -", "restart restart_${div(step, 2):04d}.h5 2 -"}},
		{name: "a family from step 1",
			files: []string{"snap_0000.h5", "snap_0001.h5", "late_0000.h5", "snap_0002.h5", "snap_0003.h5", "late_0001.h5"},
			want:  []string{"snap snap_${step:04d}.h5 - -", "late late_${div(step - 1, 2):04d}.h5 - step >= 1 && (step - 1) % 2 == 0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &Profile{Traced: true, Ranks: 2, Calls: map[string]Call{}}
			for _, f := range c.files {
				f = "/d/" + f
				name := "/" + strings.Split(filepath.Base(f), "_")[0]
				p.Records = append(p.Records, Record{Module: "H5D", File: f, Name: name, Rank: -1,
					Info: json.RawMessage(`{"type_class":1,"type_size":8,"layout":1,"dims":[8],"maxdims":[8]}`)})
				for r := range 2 {
					p.Events = append(p.Events, Event{Rank: r, Module: "H5F", Call: "H5Fcreate", File: f, FAPL: &FAPL{Driver: "mpio"}})
				}
				for r := range 2 {
					p.Events = append(p.Events, Event{Rank: r, Module: "H5D", Call: "H5Dwrite", File: f, Name: name, Collective: true,
						Selection: json.RawMessage(fmt.Sprintf(`{"start":[%d],"stride":[1],"count":[4],"block":[1]}`, 4*r))})
				}
				for r := range 2 {
					p.Events = append(p.Events, Event{Rank: r, Module: "H5F", Call: "H5Fclose", File: f})
				}
			}
			d := captureOf(t, p)
			checked(t, d)
			var got []string
			for _, a := range d.Desc.Timeline {
				f := fileOf(t, d.Desc, a.Write.Text)
				every, when := a.Every.Text, a.When.Text
				got = append(got, fmt.Sprintf("%s %s %s %s", f.ID, f.Name.Text, cmp.Or(every, "-"), cmp.Or(when, "-")))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("actions\n%s\nwant\n%s\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"), d.YAML)
			}
			if d.Desc.Steps.Text != "4" && d.Desc.Steps.Text != "3" {
				t.Errorf("steps %s", d.Desc.Steps.Text)
			}
		})
	}
}

// TestCaptureSeriesReopen: a series dataset written on its creation's handle, closed, then
// opened again to be extended and written (PETSc's VecView at each time step) is handles
// series: reopen; a series kept open between its extensions, and a dataset reopened
// without an extension, are not.
func TestCaptureSeriesReopen(t *testing.T) {
	for _, c := range []struct {
		name  string
		calls []string
		want  bool
	}{
		{"closed and reopened to extend", []string{"H5Fcreate mpio", "H5Dcreate2 /u", "H5Dwrite /u coll", "H5Dclose /u",
			"H5Dopen2 /u", "H5Dset_extent /u", "H5Dwrite /u coll", "H5Dclose /u", "H5Fclose"}, true},
		{"kept open between extensions", []string{"H5Fcreate mpio", "H5Dcreate2 /u", "H5Dwrite /u coll",
			"H5Dset_extent /u", "H5Dwrite /u coll", "H5Dclose /u", "H5Fclose"}, false},
		{"reopened, not extended", []string{"H5Fcreate mpio", "H5Dcreate2 /u", "H5Dwrite /u coll", "H5Dclose /u",
			"H5Dopen2 /u", "H5Dwrite /u coll", "H5Dclose /u", "H5Fclose"}, false},
		{"created, closed unwritten, reopened per write (hold: call)", []string{"H5Fcreate mpio", "H5Dcreate2 /u", "H5Dclose /u",
			"H5Dopen2 /u", "H5Dset_extent /u", "H5Dwrite /u coll", "H5Dclose /u", "H5Fclose"}, false},
	} {
		w := inferWays(wayTrace(t, c.calls, c.calls), "/d/f.h5", 2)
		if w.reopenSeries != c.want {
			t.Errorf("%s: series reopened %v, want %v", c.name, w.reopenSeries, c.want)
		}
	}
}

// TestCaptureCreationOrder: the creation order flags the profiler records on H5Fcreate
// (the root group's) and H5Gcreate2 events become creation_order on the file and on each
// group, whatever the writer; a group created without them keeps none.
func TestCaptureCreationOrder(t *testing.T) {
	calls := []string{"H5Fcreate mpio", "H5Gcreate2 /g", "H5Gcreate2 /plain", "H5Dcreate2 /g/x", "H5Dwrite /g/x coll", "H5Dclose /g/x", "H5Gclose /g", "H5Gclose /plain", "H5Fclose"}
	p := wayTrace(t, calls, calls)
	for i := range p.Events {
		switch e := &p.Events[i]; {
		case e.Call == "H5Fcreate":
			e.CrtOrder = []int{3, 1} // links indexed (tracked|indexed), attributes tracked
		case e.Call == "H5Gcreate2" && e.Object == "/g":
			e.CrtOrder = []int{1, 0}
		}
	}
	d := captureOf(t, p)
	checked(t, d)
	f := fileOf(t, d.Desc, "f")
	order := func(c *desc.Content) string {
		return c.CreationOrder.Links.Text + "/" + c.CreationOrder.Attributes.Text
	}
	if got := order(&f.Content); got != "indexed/tracked" {
		t.Errorf("file's creation order %s, want indexed/tracked:\n%s", got, d.YAML)
	}
	if got := order(contentAt(t, f, "/g")); got != "tracked/" {
		t.Errorf("/g's creation order %s, want tracked/:\n%s", got, d.YAML)
	}
	if got := order(contentAt(t, f, "/plain")); got != "/" {
		t.Errorf("/plain's creation order %s, want none:\n%s", got, d.YAML)
	}
}
