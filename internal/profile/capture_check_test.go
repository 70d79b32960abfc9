package profile

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/app"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/proxy/e3smmap" // the map reader of map decompositions
)

// checked asserts what `h5proxy check` asserts of a captured description at its captured
// rank count and, unless it names uneven counts per rank (a counts file, which holds the
// captured ranks' alone) or keeps a stand-in's extents, at 1, 2 and 4 ranks, and that its
// model round-trips: the YAML (with its sidecar counts and map files
// beside it) parses, its pattern plans every phase's steps for the first, middle and last
// rank, each plan valid; and the model parsed from the YAML writes the same YAML (the
// writer says everything the model holds, the parser reads everything the writer says).
func checked(t *testing.T, c *Description) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "app.yaml")
	if err := os.WriteFile(path, []byte(c.YAML), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, text := range c.Files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if c.Map != nil {
		ds := make([]e3smmap.Decomposition, len(c.Map.Decomps))
		for k, d := range c.Map.Decomps {
			dims := make([]uint64, len(d.Dims))
			for i, v := range d.Dims {
				dims[i] = uint64(v)
			}
			ds[k] = e3smmap.Decomposition{Dims: dims, Offsets: d.Offsets, Lengths: d.Lengths, FullyCovered: d.FullyCovered}
		}
		if err := e3smmap.Write(filepath.Join(dir, c.MapName), ds); err != nil {
			t.Fatal(err)
		}
	}
	m, err := desc.Load(path, []byte(c.YAML))
	if err != nil {
		t.Fatalf("the captured description does not parse: %v\n%s", err, c.YAML)
	}
	if again, err := desc.Marshal(m); err != nil || string(again) != c.YAML {
		t.Errorf("the captured model does not round-trip (%v): written\n%s\nparsed and written again\n%s", err, c.YAML, again)
	}
	if desc.String(c.Desc) != strings.TrimRight(c.YAML, "\n") {
		t.Errorf("the YAML is not the model's (desc.Marshal)")
	}
	d, err := desc.ParseFile(path, nil)
	if err != nil {
		t.Fatalf("the captured description does not parse: %v\n%s", err, c.YAML)
	}
	pat, err := app.FromDescription(d)
	if err != nil {
		t.Fatalf("check refuses the captured description: %v\n%s", err, c.YAML)
	}
	ranks := []int{}
	if n, err := strconv.Atoi(c.Desc.Ranks.Text); err == nil {
		ranks = append(ranks, n)
	}
	if len(c.Files) == 0 && !c.capturedRanksOnly {
		ranks = append(ranks, 1, 2, 4)
	}
	for _, np := range ranks {
		for _, ph := range pat.Phases() {
			for _, r := range slices.Compact([]int{0, np / 2, np - 1}) {
				env := patterns.Env{Rank: r, Size: np, Path: filepath.Join(dir, "run.h5")}
				if err := planPhase(pat, ph, env); err != nil {
					t.Fatalf("check -np %d refuses the captured description: %s phase, rank %d: %v\n%s", np, ph, r, err, c.YAML)
				}
			}
		}
	}
}

// planPhase plans a phase of pat for env as `h5proxy check` does: its beginning, every
// step and its end, each plan valid.
func planPhase(pat patterns.Pattern, ph patterns.Phase, env patterns.Env) error {
	p, err := pat.Begin(ph, env)
	if err != nil {
		return err
	}
	all := p
	n := patterns.StepsOf(pat, ph, env.Size)
	for s := 0; s < n; s++ {
		if p, err = pat.Step(ph, s, env); err != nil {
			return err
		}
		all.Add(p.Ops...)
	}
	if p, err = pat.End(ph, n, env); err != nil {
		return err
	}
	all.Add(p.Ops...)
	return all.Validate()
}

// fileOf is the captured model's file of id.
func fileOf(t *testing.T, d *desc.Description, id string) *desc.File {
	t.Helper()
	for _, f := range d.Files {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no file %s in\n%s", id, desc.String(d))
	return nil
}

// contentAt is the content of the group at path p (/a/b) in f ("/": the file's).
func contentAt(t *testing.T, f *desc.File, p string) *desc.Content {
	t.Helper()
	c := &f.Content
	for _, g := range strings.Split(strings.Trim(p, "/"), "/") {
		if g == "" {
			continue
		}
		i := slices.IndexFunc(c.Groups, func(x *desc.Group) bool { return x.Name.Text == g })
		if i < 0 {
			t.Fatalf("file %s has no group %s", f.ID, p)
		}
		c = &c.Groups[i].Content
	}
	return c
}

// datasetOf is the dataset at path p (/g/x) in f.
func datasetOf(t *testing.T, f *desc.File, p string) *desc.Dataset {
	t.Helper()
	c := contentAt(t, f, filepath.Dir(p))
	i := slices.IndexFunc(c.Datasets, func(x *desc.Dataset) bool { return x.Name == filepath.Base(p) })
	if i < 0 {
		t.Fatalf("file %s has no dataset %s", f.ID, p)
	}
	return c.Datasets[i]
}

// texts are values' texts (a list's elements).
func texts(vs []desc.Value) string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Text)
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// decompText renders a decomposition as its YAML flow map would read (kind and the keys
// set), for comparisons.
func decompText(dc desc.Decompose) string {
	parts := []string{"kind: " + dc.Kind.Text}
	if len(dc.Grid) > 0 {
		parts = append(parts, "grid: "+texts(dc.Grid))
	}
	for _, kv := range []struct {
		k string
		v desc.Value
	}{{"file", dc.File}, {"decomp", dc.Decomp}, {"select", dc.Select}} {
		if kv.v.Set {
			parts = append(parts, kv.k+": "+kv.v.Text)
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// words joins texts with spaces.
func words(ts ...string) string { return strings.Join(ts, " ") }
