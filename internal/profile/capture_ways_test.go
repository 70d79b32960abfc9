package profile

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
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

// TestCaptureWays: the keys capture infers from each open's access list and the order of
// opens and closes, on traces built by hand.
func TestCaptureWays(t *testing.T) {
	shared := []string{"H5Fopen mpio ops write", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Fclose"}
	for _, c := range []struct {
		name       string
		ranks      [][]string
		want, not  []string
		unexpected string // in Unexpressed
	}{
		{name: "rank 0 creates serially, with a dataset it writes whole",
			ranks: [][]string{
				append([]string{"H5Fcreate serial", "H5Dcreate2 /meta", "H5Dwrite /meta whole", "H5Dclose /meta", "H5Fclose"}, shared...),
				shared},
			want: []string{"    create: {by: rank0, datasets: [meta]}   #", "    collective_metadata: true\n", "timeline:\n  - write: f\n"},
			not:  []string{"    handles:", "\n    datasets: [", "independent"}},
		{name: "the creation through MPI-IO on every rank is the default",
			ranks: [][]string{{"H5Fcreate mpio", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Fclose"},
				{"H5Fcreate mpio", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Fclose"}},
			not: []string{"create:", "collective_metadata", "    handles:"}},
		{name: "collective metadata on the reading opens alone; a reopen to read is no hold: call",
			ranks: [][]string{
				{"H5Fcreate mpio", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Fclose", "H5Fopen mpio ops", "H5Dopen2 /x", "H5Dread /x coll", "H5Dclose /x", "H5Fclose"},
				{"H5Fcreate mpio", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Fclose", "H5Fopen mpio ops", "H5Dopen2 /x", "H5Dread /x coll", "H5Dclose /x", "H5Fclose"}},
			want: []string{"    collective_metadata: read\n", "  - read: f\n    at: restart\n"},
			not:  []string{"    handles:", "create:"}},
		{name: "collective metadata writes without reads",
			ranks:      [][]string{{"H5Fcreate mpio write", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Fclose"}, {"H5Fcreate mpio write", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Fclose"}},
			want:       []string{"    collective_metadata: true\n"},
			unexpected: "f.h5: collective metadata reads false, writes true (a description sets both)"},
		{name: "hold: call with some datasets written on their creation's handle: a guess",
			ranks: [][]string{
				{"H5Fcreate mpio", "H5Dcreate2 /x", "H5Dclose /x", "H5Dopen2 /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Dcreate2 /y", "H5Dwrite /y coll", "H5Dclose /y", "H5Fclose"},
				{"H5Fcreate mpio", "H5Dcreate2 /x", "H5Dclose /x", "H5Dopen2 /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Dcreate2 /y", "H5Dwrite /y coll", "H5Dclose /y", "H5Fclose"}},
			want: []string{"    handles: {hold: call}   #", "    # guess: hold: call: 1 datasets were written through a reopen after their creation (/x first), 1 on their creation's handle (/y first)"}},
		{name: "attributes through H5Oopen and parents opened, while datasets stay open: listed",
			ranks: [][]string{
				{"H5Fcreate mpio", "H5Gopen2 /", "H5Dcreate2 /x", "H5Gclose /", "H5Oopen /x", "H5Acreate2 /x", "H5Oclose /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Fclose"},
				{"H5Fcreate mpio", "H5Gopen2 /", "H5Dcreate2 /x", "H5Gclose /", "H5Oopen /x", "H5Acreate2 /x", "H5Oclose /x", "H5Dwrite /x coll", "H5Dclose /x", "H5Fclose"}},
			not:        []string{"    handles:"},
			unexpected: "f.h5: attributes through H5Oopen true, parents opened around creates true, while the datasets stay open"},
		{name: "rank 0's independent dataset among collective ones: independent: true, one action",
			ranks: [][]string{
				{"H5Fcreate mpio", "H5Dcreate2 /t", "H5Dcreate2 /x", "H5Dwrite /t whole", "H5Dwrite /x coll", "H5Fclose"},
				{"H5Fcreate mpio", "H5Dcreate2 /t", "H5Dcreate2 /x", "H5Dwrite /x coll", "H5Fclose"}},
			want: []string{"      t:\n        type: f64\n        shape: [8]\n        decompose: {kind: rank0, select: hyperslab}\n        independent: true   #", "timeline:\n  - write: f\n"},
			not:  []string{"collective: false", "\n    datasets: ["}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := captureOf(t, wayTrace(t, c.ranks...))
			for _, w := range c.want {
				if !strings.Contains(d.YAML, w) {
					t.Errorf("description lacks %q:\n%s", w, d.YAML)
				}
			}
			for _, n := range c.not {
				if strings.Contains(d.YAML, n) {
					t.Errorf("description has %q:\n%s", n, d.YAML)
				}
			}
			got := strings.Join(d.Unexpressed, "\n")
			if c.unexpected != "" && !strings.Contains(got, c.unexpected) || c.unexpected == "" && got != "" {
				t.Errorf("unexpressed %q, want %q", got, c.unexpected)
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
	if !strings.Contains(d.YAML, "    collective_metadata: true\n    # guess: collective_metadata: the file's last open asked for it") {
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
	for _, want := range []string{"steps: 3\n", "  out:\n    name: \"out_${step:02d}.h5\"   # a file per step\n    groups:\n      g_0:\n",
		"  ck3:\n    name: ck3.h5\n", "  ck7:\n    name: ck7.h5\n", "timeline:\n  - write: out\n  - write: ck3\n  - write: ck7\n"} {
		if !strings.Contains(d.YAML, want) {
			t.Errorf("description lacks %q:\n%s", want, d.YAML)
		}
	}
	if got := strings.Join(d.Unexpressed, "\n"); !strings.Contains(got, "ck3.h5, ck7.h5: names that differ in a number other than the steps 0..N-1, written as 2 files") {
		t.Errorf("unexpressed %q", got)
	}
}
