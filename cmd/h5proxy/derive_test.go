package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/samples/apps"
)

// TestDeriveRoundTrip derives descriptions from files the built-in patterns write (VPIC's
// one file with a group per step; a series of AMReX plotfiles with compound datasets and
// attributes; openPMD's nested groups and string attributes; chunked, filtered,
// extensible checkpoints of a description) and runs them: the files written are equal to
// the inputs under h5dump -pH, addresses aside, and the description reads as a person
// would write it (a step template, folded datasets, a file series with its cadence,
// comments on what a file cannot tell).
func TestDeriveRoundTrip(t *testing.T) {
	if _, err := exec.LookPath("h5dump"); err != nil {
		t.Skip("h5dump not installed")
	}
	cases := []struct {
		name, builtin string   // builtin: a native configuration, or a description's path
		inputs        []string // files the built-in writes, relative to its directory
		want          []string // lines the description holds
		dump          []string // what h5dump -pH shows of the inputs (and so of the outputs)
	}{
		{"vpic", `{"pattern":"vpic","phases":["write"],"session":{"file":"vpic.h5"},"options":{"MEM_PATTERN":"CONTIG","FILE_PATTERN":"CONTIG","NUM_DIMS":1,"DIM_1":64,"TIMESTEPS":2,"COLLECTIVE_DATA":"YES"}}`,
			[]string{"vpic.h5"},
			[]string{"  steps: 2 # groups Timestep_0 .. Timestep_1: one per step", "  n: 64", "      Timestep_${step}:",
				"  vars: [id_2, px, py, pz, x, y, z]", "          ${vars}: {type: f32, shape: [n * nranks]}", "collective: true # a file cannot tell"}, nil},
		{"amrex", `{"pattern":"amrex","phases":["write"],"session":{"file":"amx/"},"options":{"ncells":16,"max_grid_size":8,"nlevs":1,"ncomp":2,"nppc":1,"nplotfile":3,"nparticlefile":0}}`,
			[]string{"amx/plt00000.h5", "amx/plt00001.h5", "amx/plt00002.h5"},
			[]string{"  outputs: 3", "    name: plt${step:05d}.h5", "steps: (outputs - 1) * output_every + 1",
				"  boxcenter: {i: i32, j: i32, k: i32}", "data:offsets=0: {type: i64, shape: [9], decompose: rank0}", "prob_domain: {type: prob_domain, value: {lo_i: 0, lo_j: 0, lo_k: 0, hi_i: 15, hi_j: 15, hi_k: 15}}"}, nil},
		// openPMD's nested groups, string and array attributes, records folded by their
		// equal attributes.
		{"openpmd", `{"pattern":"openpmd","phases":["write"],"session":{"file":"8a_parallel_3Db_0000001.h5"},"options":{"dim":3,"balanced":"true","ratio":1,"steps":1,"minBlock":"4 8 8","grid":"4 4 4"}}`,
			[]string{"8a_parallel_3Db_0000001.h5"},
			[]string{"openPMD: {type: str6, value: 1.1.0}", "[x, y, z]", "axisLabels: {type: str2, shape: [1], value: ["}, nil},
		// Chunked, filtered and extensible datasets, from a description's checkpoints.
		{"chunked", "../../patterns/app/testdata/particles.yaml", []string{"ckpt_0000.h5", "ckpt_0002.h5"},
			[]string{"  output_every: 2", "max_shape: [unlimited]\n", "chunk: [2]\n", "# guess: dim 0 is unlimited", "chunk: [n, 4]\n", "filters: [shuffle, {deflate: 4}]\n"}, nil},
		// UTF-8 strings stay UTF-8 (H5T_CSET_UTF8): datasets, a compound member, fixed and
		// variable-length attributes, with their non-ASCII values.
		{"utf8", "../../patterns/app/testdata/utf8.yaml", []string{"names.h5"},
			[]string{"title: {type: uvstr, value: Ωmega — données}", "code: {type: ustr8, value: naïve}", "plain: {type: str5, value: ascii}",
				"label: {type: ustr12", "ascii: {type: str12", "  rec: {name: ustr6, x: f64}"},
			[]string{"CSET H5T_CSET_UTF8", "CSET H5T_CSET_ASCII"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			b, d := filepath.Join(dir, "builtin"), filepath.Join(dir, "derived")
			for _, sub := range []string{b, d} {
				if err := os.Mkdir(sub, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			config, text := "builtin.json", []byte(c.builtin)
			if strings.HasSuffix(c.builtin, ".yaml") {
				config = filepath.Base(c.builtin)
				var err error
				if text, err = os.ReadFile(c.builtin); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(b, config), text, 0o644); err != nil {
				t.Fatal(err)
			}
			h5proxy(t, b, "run", "-np", "2", "-quiet", config).expect(t, 0, nil, nil)
			args := append([]string{"derive"}, c.inputs...)
			h5proxy(t, b, append(args, "-np", "2", "-o", filepath.Join(d, "derived.yaml"))...).expect(t, 0, nil, nil)
			text, err := os.ReadFile(filepath.Join(d, "derived.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(string(text), w) {
					t.Errorf("derived description lacks %q:\n%s", w, text)
				}
			}
			h5proxy(t, d, "run", "-np", "2", "-quiet", "derived.yaml").expect(t, 0, nil, nil)
			for _, in := range c.inputs {
				got, want := maskedDump(t, filepath.Join(d, filepath.Base(in))), maskedDump(t, filepath.Join(b, in))
				for _, w := range c.dump {
					if !strings.Contains(want, w) || !strings.Contains(got, w) {
						t.Errorf("h5dump -pH of %s lacks %q (input %v, output %v)", filepath.Base(in), w, strings.Contains(want, w), strings.Contains(got, w))
					}
				}
				if got != want {
					t.Errorf("%s written from the derived description differs under h5dump -pH:\n%s", filepath.Base(in), lineDiff(want, got))
				}
			}
		})
	}
}

// TestDeriveErrors: no file, a missing file and -np 0 are errors naming what is wrong,
// before anything is written.
func TestDeriveErrors(t *testing.T) {
	dir := t.TempDir()
	h5proxy(t, dir, "derive").expect(t, 2, nil, []string{"need at least one HDF5 file"})
	h5proxy(t, dir, "derive", "missing.h5", "-o", "out.yaml").expect(t, 1, nil, []string{"missing.h5: file does not exist"})
	h5proxy(t, dir, "derive", "missing.h5", "-np", "0").expect(t, 2, nil, []string{"flag -np value 0"})
	if _, err := os.Stat(filepath.Join(dir, "out.yaml")); !os.IsNotExist(err) {
		t.Errorf("out.yaml written after an error: %v", err)
	}
}

// TestDeriveH5MDLinks derives an H5MD trajectory (testdata/h5md_links.c, ch5md's layout)
// and runs the description: the hard links the file holds are links: naming the objects'
// first paths, the three-string attribute keeps its strings, the time series' unlimited
// axis is written by rank 0 whole rather than split over the ranks, the empty observables
// group is an empty map, and the file written is equal to the input under h5dump -pH (the
// allocation times of a serial writer's datasets included).
func TestDeriveH5MDLinks(t *testing.T) {
	dir := t.TempDir()
	exe := mpiccProgram(t, dir, "h5md_links", "testdata/h5md_links.c")
	cmd := exec.Command(exe)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("h5md_links: %v\n%s", err, out)
	}
	h5proxy(t, dir, "derive", "traj.h5", "-np", "2", "-o", "derived.yaml").expect(t, 0, nil, nil)
	text, err := os.ReadFile(filepath.Join(dir, "derived.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"step: {hard: /particles/all/position/step}", "time: {hard: /particles/all/position/time}",
		"author: {type: str8, shape: [3], value: [ada, bob, cy]}", "observables: {}", "# guess: dim 0 is unlimited",
		"shape: [3, 3]\n", "max_shape: [unlimited, 3]\n", "chunk: [1, 3]\n", "alloc_time: incr\n", "writer: rank0"} {
		if !strings.Contains(string(text), w) {
			t.Errorf("derived description lacks %q:\n%s", w, text)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, filepath.Join(dir, "run"), "run", "-np", "2", "-quiet", "../derived.yaml").expect(t, 0, nil, nil)
	if got, want := maskedDump(t, filepath.Join(dir, "run", "traj.h5")), maskedDump(t, filepath.Join(dir, "traj.h5")); got != want {
		t.Errorf("traj.h5 written from the derived description differs under h5dump -pH:\n%s", lineDiff(want, got))
	}
}

// TestDeriveSamples: everything derive writes passes check. Each sample description of
// examples/apps runs at 2 ranks; derive of every HDF5 file it writes is checked at 2 ranks
// (h5proxy check plans every rank's operations). The samples of samples/apps, at their
// pair's parameters, get the same checks in TestAppSamples, on the files of its 2-rank
// run of the description, which this test would repeat.
func TestDeriveSamples(t *testing.T) {
	ex, _ := filepath.Glob(filepath.Join("..", "..", "examples", "apps", "*.yaml"))
	if n := len(apps.Pairs) + len(ex); n < 5 {
		t.Fatalf("found %d samples", n)
	}
	for _, p := range ex {
		name := strings.TrimSuffix(filepath.Base(p), ".yaml")
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "app.yaml"), src, 0o644); err != nil {
				t.Fatal(err)
			}
			h5proxy(t, dir, "run", "-np", "2", "-quiet", "app.yaml").expect(t, 0, nil, nil)
			deriveChecks(t, dir, name, nil)
		})
	}
}

// deriveChecks derives every HDF5 file in dir that a sample's run wrote (inputs, the
// files it read, aside) at 2 ranks and checks the description at 2 ranks.
func deriveChecks(t *testing.T, dir, name string, inputs map[string]bool) {
	t.Helper()
	var outs []string
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() && !inputs[e.Name()] && checkHDF5(p) == nil {
			outs = append(outs, p)
		}
		return nil
	})
	if len(outs) == 0 {
		t.Fatalf("%s wrote no HDF5 file", name)
	}
	h5proxy(t, dir, append(append([]string{"derive"}, outs...), "-np", "2", "-o", "derived.yaml")...).expect(t, 0, nil, nil)
	h5proxy(t, dir, "check", "-np", "2", "derived.yaml").expect(t, 0, nil, nil)
}
