package profile

import (
	"encoding/json"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/app"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// TestCapturePlacement traces tests/profile/placement.c (netCDF-4's and PETSc's
// attribute placements in plain HDF5 calls, one rank) and captures it: _NCProperties
// written once the definitions are done (at: defined), the scales set at their datasets'
// creation (scale_at: create) with the attributes after them at: scale, a dimension's
// dimid written twice (writes: 2), PETSc's timestepping after each write and flush
// (at: each_write, no H5Oopen listed as not expressed). The captured description passes
// check, and its plan makes the program's creates, scales, attribute writes (a rewrite
// opening the attribute), flushes and writes in the program's order, file by file.
func TestCapturePlacement(t *testing.T) {
	build(t) // the profiler
	prog := filepath.Join(t.TempDir(), "placement")
	args := []string{"-O2", "-Wall", "-Werror", "-o", prog, filepath.Join(srcDir, "tests/profile/placement.c")}
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "hdf5-openmpi").Output()
	if err != nil {
		t.Fatalf("pkg-config hdf5-openmpi: %v", err)
	}
	if out, err := exec.Command("mpicc", append(args, strings.Fields(string(flags))...)...).CombinedOutput(); err != nil {
		t.Fatalf("mpicc placement.c: %v\n%s", err, out)
	}
	_, records, out, err := runProgram(t, 1, []string{prog}, "place", "H5PROXY_PROFILE_TRACE=1")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p := mustMerge(t, records)
	d, err := Capture(p, "placement")
	if err != nil {
		t.Fatal(err)
	}
	checked(t, d)
	if len(d.Unexpressed) > 0 {
		t.Errorf("unexpressed: %q\n%s", d.Unexpressed, d.YAML)
	}
	place, series := fileOf(t, d.Desc, "place"), fileOf(t, d.Desc, "series")
	at := func(as []*desc.Attribute, name string) string {
		for _, a := range as {
			if a.Name == name {
				return strings.TrimSpace(a.At.Text + " " + a.Writes.Text)
			}
		}
		return "missing"
	}
	for _, c := range []struct{ what, got, want string }{
		{"title", at(place.Attributes, "title"), ""},
		{"_NCProperties", at(place.Attributes, "_NCProperties"), "defined"},
		{"/v@coords", at(datasetOf(t, place, "/v").Attributes, "coords"), ""},
		{"/time@coords", at(datasetOf(t, place, "/time").Attributes, "coords"), ""},
		{"/time@dimid", at(datasetOf(t, place, "/time").Attributes, "dimid"), "scale"},
		{"/time@units", at(datasetOf(t, place, "/time").Attributes, "units"), "scale"},
		{"/lev@dimid", at(datasetOf(t, place, "/lev").Attributes, "dimid"), "scale 2"},
		{"/time scale_at", datasetOf(t, place, "/time").ScaleAt.Text, "create"},
		{"/lev scale_at", datasetOf(t, place, "/lev").ScaleAt.Text, "create"},
		{"/u@timestepping", at(datasetOf(t, series, "/u").Attributes, "timestepping"), "each_write"},
	} {
		if c.got != c.want {
			t.Errorf("%s: placed %q, want %q\n%s", c.what, c.got, c.want, d.YAML)
		}
	}

	// The program's order, file by file, against the replay's plan.
	traced := map[string][]string{}
	for _, e := range p.Events {
		if e.Rank != 0 || e.File == "" {
			continue
		}
		f, s := filepath.Base(e.File), ""
		switch {
		case strings.HasPrefix(e.Call, "H5Dcreate"):
			s = "create " + e.Name
		case e.Call == "H5Dwrite":
			s = "write " + e.Name
		case e.Call == "H5Fflush":
			s = "flush"
		case e.Call == "H5Awrite":
			var a attrEvent
			if json.Unmarshal(e.Attribute, &a) != nil {
				t.Fatalf("attribute event %s", e.Attribute)
			}
			switch a.Name {
			case dsClass:
				s = "scale " + a.Object
			case dsName:
			default:
				s = a.Object + "@" + a.Name
			}
		}
		if s != "" {
			traced[f] = append(traced[f], s)
		}
	}
	pd, err := desc.Load(filepath.Join(t.TempDir(), "app.yaml"), []byte(d.YAML))
	if err != nil {
		t.Fatal(err)
	}
	pat, err := app.FromDescription(pd)
	if err != nil {
		t.Fatal(err)
	}
	planned := map[string][]string{}
	env := patterns.Env{Rank: 0, Size: 1, Path: filepath.Join(t.TempDir(), "run.h5")}
	ph := pat.Phases()[0]
	pl, err := pat.Begin(ph, env)
	if err != nil {
		t.Fatal(err)
	}
	ops := slices.Clone(pl.Ops)
	n := patterns.StepsOf(pat, ph, 1)
	for s := range n {
		if pl, err = pat.Step(ph, s, env); err != nil {
			t.Fatal(err)
		}
		ops = append(ops, pl.Ops...)
	}
	if pl, err = pat.End(ph, n, env); err != nil {
		t.Fatal(err)
	}
	cur := ""
	for _, op := range append(ops, pl.Ops...) {
		s := ""
		switch op.Kind {
		case plan.CreateFile, plan.OpenFile, plan.SelectFile:
			cur = path.Base(op.Path)
		case plan.CreateDataset:
			s = "create " + op.Path
		case plan.Write:
			s = "write " + op.Path
		case plan.FlushFile:
			s = "flush"
		case plan.Scale:
			if op.Scale.Attach == "" {
				s = "scale " + op.Path
			}
		case plan.WriteAttribute:
			s = op.Path + "@" + op.Attribute.Name
			if op.Attribute.Exists != slices.Contains(planned[cur], s) {
				t.Errorf("%s: %s written with Exists %v", cur, s, op.Attribute.Exists)
			}
		}
		if s != "" {
			planned[cur] = append(planned[cur], s)
		}
	}
	for _, f := range []string{"place.h5", "series.h5"} {
		if g, w := strings.Join(planned[f], ", "), strings.Join(traced[f], ", "); g != w {
			t.Errorf("%s: the replay plans\n  %s\nthe program made\n  %s\n%s", f, g, w, d.YAML)
		}
	}
}
