package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// TestReportCommand writes the pages of a profile, a comparison and a study from files,
// and refuses inputs it cannot read with the reason.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	p := &profile.Profile{SchemaVersion: profile.SchemaVersion, Exe: "/bin/prog", Ranks: 1, Calls: map[string]profile.Call{},
		Records: []profile.Record{{Module: "POSIX", File: "/d/f.h5", Counters: map[string]int64{"POSIX_OPENS": 3, "POSIX_WRITES": 9}}}}
	a := filepath.Join(dir, "a.json")
	if err := p.WriteJSON(a); err != nil {
		t.Fatal(err)
	}
	p.Records[0].Counters["POSIX_WRITES"] = 8
	b := filepath.Join(dir, "b.json")
	if err := p.WriteJSON(b); err != nil {
		t.Fatal(err)
	}
	study := filepath.Join(dir, "study")
	os.MkdirAll(study, 0o755)
	os.WriteFile(filepath.Join(study, "sweep.csv"), []byte("run,rep,mode,error,seconds,write.observed_rate\n0,0,sync,,1.5,100\n1,0,async,,1.2,150\n"), 0o644)
	os.WriteFile(filepath.Join(study, sweepCommandFile), []byte("h5proxy sweep c.json mode=sync,async\n"), 0o644)

	for _, c := range []struct {
		args       []string
		page, want string
	}{
		{[]string{"report", a}, filepath.Join(dir, "a.html"), "<td>POSIX_WRITES</td><td class=\"num\">9</td>"},
		{[]string{"report", "-o", filepath.Join(dir, "c.html"), "-compare", a, b}, filepath.Join(dir, "c.html"), `<td class="num mark">9</td><td class="num mark">8</td>`},
		{[]string{"report", study}, filepath.Join(study, "sweep.html"), "h5proxy sweep c.json mode=sync,async"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errb.String())
		}
		if !strings.Contains(out.String(), "Wrote "+c.page) {
			t.Fatalf("%v: does not name the page: %s", c.args, out.String())
		}
		html, err := os.ReadFile(c.page)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(html), c.want) {
			t.Fatalf("%v: the page lacks %q", c.args, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", filepath.Join(dir, "none.json")}, "none.json"},
		{[]string{"report", "-compare", a}, "-compare needs two profiles"},
		{[]string{"report", filepath.Join(study, sweepCommandFile)}, "not an h5proxy profile"},
		{[]string{"report", "-metric", "read.raw_rate", study}, `metric "read.raw_rate"`},
		{[]string{"report", "-run", a, study}, "goes with a profile"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code == 0 || !strings.Contains(errb.String(), c.want) {
			t.Fatalf("%v: exit %d, stderr %q; want an error with %q", c.args, code, errb.String(), c.want)
		}
	}
}
