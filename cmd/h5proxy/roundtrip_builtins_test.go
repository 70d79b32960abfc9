package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCaptureRoundTripBuiltins profiles built-in patterns at 2 ranks (traced), captures
// the traces into descriptions and runs them: the census of every call (counts, the most
// of one rank, bytes, collective transfers, I/O modes) is the built-in's, per phase, and
// so are the files under h5dump -pH. The descriptions say, from the trace alone, how the
// codes reach their objects: AMReX's plotfiles, a file per step (plt${step:05d}.h5),
// created by rank 0 alone with a serial driver and reopened by every rank (create:
// rank0), its box list written independently inside the collective writes (independent:
// true), its compound types and values; openPMD-api's
// per-call handles (attributes through H5Oopen, parent groups opened around creates),
// its iterations group per step from 1 (${step + 1}); BD-CATS reading VPIC-IO's file with collective metadata on its reads alone, one read
// per step. Capture lists nothing as unexpressed for any of them.
func TestCaptureRoundTripBuiltins(t *testing.T) {
	lib := buildProfileLib(t)
	for _, c := range []struct {
		name, config string
		files        []string          // BUILTIN:DESCRIPTION file names, relative to each run directory
		masked       bool              // compare h5dump with addresses masked
		want         map[string]string // the description's keys (capturedKeys, expectKeys)
	}{
		// Addresses masked: AMReX's file access list sets H5Pset_meta_block_size(4 MiB),
		// which the trace does not record and a description cannot say.
		{name: "amrex", masked: true,
			config: `{"pattern":"amrex","phases":["write"],"session":{"file":"amx/"},"options":{"ncells":16,"max_grid_size":8,"nlevs":1,"ncomp":2,"nppc":1,"nplotfile":2,"nparticlefile":0}}`,
			files:  []string{"amx/plt00000.h5:plt00000.h5", "amx/plt00001.h5:plt00001.h5"},
			want: map[string]string{
				"steps": "2", "files.plt.name": "plt${step:05d}.h5", "files.plt.create": "rank0",
				"timeline[0].write":                                          "plt",
				"files.plt.collective_metadata":                              "true",
				"files.plt.groups.level_0.attributes.prob_domain.type":       "prob_domain",
				"files.plt.groups.level_0.attributes.prob_domain.value.lo_i": "0",
				"files.plt.groups.level_0.attributes.prob_domain.value.hi_k": "15",
				"files.plt.groups.Chombo_global.attributes.SpaceDim.value":   "[3]",
				"files.plt.groups.level_0.datasets.boxes.type":               "prob_domain",
				"files.plt.groups.level_0.datasets.boxes.shape":              "[8]",
				"files.plt.groups.level_0.datasets.boxes.decompose.kind":     "rank0",
				"files.plt.groups.level_0.datasets.boxes.decompose.select":   "hyperslab",
				"files.plt.groups.level_0.datasets.boxes.independent":        "true",
				"types.prob_domain.lo_i":                                     "i32", "types.prob_domain.hi_k": "i32", "types.boxcenter.k": "i32",
			}},
		{name: "openpmd",
			config: `{"pattern":"openpmd","phases":["write"],"session":{"file":"8a.h5"},"options":{"dim":3,"balanced":"true","ratio":1,"steps":1,"minBlock":"4 8 8","grid":"4 4 4"}}`,
			files:  []string{"8a.h5:8a.h5"},
			want: map[string]string{
				"files.f8a.collective_metadata": "true", "files.f8a.handles.hold": "call", "files.f8a.handles.attributes": "reopen",
				"files.f8a.handles.open_parents": "true", "timeline[0].write": "f8a", "timeline[0].collective": "false",
			}},
		// Two iterations, group-based: /data/1 and /data/2 (openPMD counts from 1).
		{name: "openpmd-groups",
			config: `{"pattern":"openpmd","phases":["write"],"session":{"file":"8a.h5"},"options":{"dim":3,"balanced":"true","ratio":1,"steps":2,"minBlock":"4 8 8","grid":"4 4 4","encoding":"g"}}`,
			files:  []string{"8a.h5:8a.h5"},
			want: map[string]string{
				"steps": "2", "files.f8a.handles.hold": "call", "files.f8a.handles.attributes": "reopen", "files.f8a.handles.open_parents": "true",
				"files.f8a.groups.data.groups.${step + 1}": "*",
			}},
		{name: "bd-cats",
			config: `{"pattern":"vpic","phases":["write","read"],"session":{"file":"bdcats.h5"},"options":{"MEM_PATTERN":"CONTIG","FILE_PATTERN":"CONTIG","NUM_DIMS":1,"DIM_1":64,"TIMESTEPS":2,"COLLECTIVE_DATA":"YES","READ_OPTION":"FULL"}}`,
			files:  []string{"bdcats.h5:bdcats.h5"},
			want: map[string]string{
				"files.bdcats.name": "bdcats.h5", "files.bdcats.collective_metadata": "read",
				"timeline[*].read & at & step#0": "bdcats & restart & 0", "timeline[*].read & at & step#1": "bdcats & restart & 1",
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			b, d := filepath.Join(dir, "builtin"), filepath.Join(dir, "desc")
			for _, sub := range []string{b, d} {
				if err := os.Mkdir(sub, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(b, "builtin.json"), []byte(c.config), 0o644); err != nil {
				t.Fatal(err)
			}
			ref, desc := filepath.Join(dir, "ref.json"), filepath.Join(d, "app.yaml")
			if r := h5proxy(t, b, "profile", "-lib", lib, "-np", "2", "-trace", "-noplot", "-o", ref, "--",
				binary, "run", "-quiet", "-report", "report.json", "builtin.json"); r.code != 0 {
				t.Fatal(r)
			}
			if r := h5proxy(t, dir, "capture", "-from", ref, "-o", desc); r.code != 0 || strings.Contains(r.stderr, "not expressed") {
				t.Fatal(r)
			}
			y, err := os.ReadFile(desc)
			if err != nil {
				t.Fatal(err)
			}
			expectKeys(t, capturedKeys(t, desc), c.want, string(y))
			h5proxy(t, d, "run", "-np", "2", "-quiet", "-report", "report.json", "app.yaml").expect(t, 0, nil, nil)
			want, got := censusOf(t, filepath.Join(b, "report.json")), censusOf(t, filepath.Join(d, "report.json"))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("census differs:\n%s", lineDiff(strings.Join(want, "\n"), strings.Join(got, "\n")))
			}
			for _, f := range c.files {
				bf, df, _ := strings.Cut(f, ":")
				dump := h5dumpH
				if c.masked {
					dump = maskedDump
				}
				if w, g := dump(t, filepath.Join(b, bf)), dump(t, filepath.Join(d, df)); g != w {
					t.Errorf("%s differs from the built-in's %s under h5dump -pH:\n%s", df, bf, lineDiff(w, g))
				}
			}
		})
	}
}
