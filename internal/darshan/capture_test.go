package darshan

import (
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// TestCapture folds a log of two steps' groups into a description: one step group, the
// dataset with its shape per rank and chunk, the timeline, and guesses marked.
func TestCapture(t *testing.T) {
	p := sampleProfile()
	for i, step := range []string{"0", "1"} {
		p.Records = append(p.Records, profile.Record{Module: "H5D", File: "/data/out.h5", Name: "/Timestep_" + step + "/grid", Rank: -1,
			Counters: map[string]int64{"H5D_OPENS": 2, "H5D_WRITES": 2, "H5D_DATATYPE_SIZE": 8, "H5D_DATASPACE_NDIMS": 2,
				"H5D_DATASPACE_NPOINTS": 64 * 32, "H5D_ACCESS1_LENGTH_D5": 32, "H5D_ACCESS1_LENGTH_D4": 32,
				"H5D_CHUNK_SIZE_D1": 16, "H5D_CHUNK_SIZE_D2": 8, "H5D_USE_MPIIO_COLLECTIVE": int64(1 - i)}})
	}
	p.Records[2].Counters["H5F_FLUSHES"] = 1
	l, err := FromProfile(p, start)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := l.Bytes()
	if l, err = Read(b); err != nil {
		t.Fatal(err)
	}
	c, err := l.Capture("app")
	if err != nil {
		t.Fatal(err)
	}
	d, err := desc.Parse("captured", []byte(c.YAML), nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, c.YAML)
	}
	if d.Steps.Text != "2" || len(d.Files) != 1 || d.Files[0].Name.Text != "out.h5" {
		t.Fatalf("steps %q, files %d:\n%s", d.Steps.Text, len(d.Files), c.YAML)
	}
	g := d.Files[0].Groups
	if len(g) != 1 || g[0].Name.Text != "Timestep_${step}" || len(g[0].Datasets) != 2 {
		t.Fatalf("groups:\n%s", c.YAML)
	}
	for _, ds := range g[0].Datasets {
		var shape, chunk []string
		for _, v := range ds.Shape {
			shape = append(shape, v.Text)
		}
		for _, v := range ds.Chunk {
			chunk = append(chunk, v.Text)
		}
		got := ds.Name + " " + ds.Type.Text + " " + strings.Join(shape, ",") + " " + strings.Join(chunk, ",")
		want := map[string]string{"x": "x f32 4096 * nranks ", "grid": "grid f64 64,32 8,16"}[ds.Name]
		// x: 32768 bytes of 4-byte points over 2 ranks (no access lengths: the points)
		if ds.Name == "x" {
			want = "x f32 8192 "
		}
		if got != want {
			t.Errorf("dataset %q, want %q", got, want)
		}
	}
	var verbs []string
	for _, a := range d.Timeline {
		v, val := a.Verb()
		verbs = append(verbs, v+" "+val.Text+" "+a.At.Text)
	}
	if strings.Join(verbs, "; ") != "write out step; flush out end" {
		t.Errorf("timeline %q", verbs)
	}
	for _, want := range []string{"# guess: f64 (the log gives a 8-byte type", "# guess: [64, 32] (the log gives 2 dimensions and 2048 points",
		"# guess: flushed at the end", "# DXT: each rank's accesses", "POSIX rank 0: 1 writes in [0, 4096): 4096 B x1"} {
		if !strings.Contains(c.YAML, want) {
			t.Errorf("no %q in\n%s", want, c.YAML)
		}
	}
	if len(c.Guesses) < 5 {
		t.Errorf("guesses %q", c.Guesses)
	}
	// no H5D records: a clear refusal
	l.Records = l.Records[:1]
	if _, err := l.Capture("app"); err == nil || !strings.Contains(err.Error(), "no H5D records") {
		t.Errorf("%v", err)
	}
}

// TestCaptureJoinedNames: a real Darshan 3.5 log names VPIC's datasets /Timestep_0x;
// capture splits them back into the step group and the dataset, and says so.
func TestCaptureJoinedNames(t *testing.T) {
	l, err := ReadFile("testdata/vpic-dxt.darshan")
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Capture("vpic")
	if err != nil {
		t.Fatal(err)
	}
	d, err := desc.Parse("captured", []byte(c.YAML), nil)
	if err != nil {
		t.Fatal(err)
	}
	g := d.Files[0].Groups
	if d.Steps.Text != "2" || len(g) != 1 || g[0].Name.Text != "Timestep_${step}" || len(g[0].Datasets) != 8 {
		t.Fatalf("%s", c.YAML)
	}
	var names []string
	for _, ds := range g[0].Datasets {
		names = append(names, ds.Name)
	}
	if got := strings.Join(names, " "); !strings.Contains(got, "id_1") || !strings.Contains(got, "px") || strings.Contains(got, "Timestep") {
		t.Errorf("datasets %q", got)
	}
	if !strings.Contains(c.YAML, "# guess: 16 dataset names split into a numbered group and a name") {
		t.Errorf("no guess for the split:\n%s", c.YAML)
	}
}
