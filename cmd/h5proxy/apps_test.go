package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// maskedDump is h5dump -pH of path with what differs between equal structures masked:
// the file name and the addresses of datasets (values are not dumped).
func maskedDump(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("h5dump", "-p", "-H", path).CombinedOutput()
	if err != nil {
		t.Fatalf("h5dump -pH %s: %v\n%s", path, err, out)
	}
	s := regexp.MustCompile(`OFFSET \d+`).ReplaceAllString(string(out), "OFFSET _")
	_, s, _ = strings.Cut(s, "\n") // HDF5 "path" {
	return s
}

// censusOf reads each phase's census from a run's JSON report: the HDF5 calls (count over
// the ranks, the largest count of one rank, bytes), the collective transfers and the I/O
// modes; calls in skip are left out.
func censusOf(t *testing.T, report string, skip []string) []string {
	t.Helper()
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Phases []struct {
			Phase  string
			Census struct {
				Calls []struct {
					Call     string
					Count    int64
					MaxCount int64 `json:"max_count"`
					Bytes    int64
				}
				CollectiveTransfers int64            `json:"collective_transfers"`
				IOModes             map[string]int64 `json:"io_modes"`
			}
		}
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", report, err)
	}
	var out []string
	for _, p := range r.Phases {
		c := p.Census
		for _, k := range c.Calls {
			if !slices.Contains(skip, k.Call) {
				out = append(out, fmt.Sprintf("%s %s count=%d max=%d bytes=%d", p.Phase, k.Call, k.Count, k.MaxCount, k.Bytes))
			}
		}
		out = append(out, fmt.Sprintf("%s collective=%d modes=%v", p.Phase, c.CollectiveTransfers, c.IOModes))
	}
	slices.Sort(out)
	return out
}

// TestAppSamples runs each description of samples/apps beside the built-in pattern it
// re-expresses, at 1, 2 and 4 ranks: the files are equal under h5dump -pH (addresses
// masked) and, where the description models the call sequence, so is the census per
// phase: HDF5 calls with their counts (all ranks, and the most of one rank) and bytes,
// collective transfers and I/O modes.
func TestAppSamples(t *testing.T) {
	if _, err := exec.LookPath("h5dump"); err != nil {
		t.Skip("h5dump not installed")
	}
	cases := []struct {
		desc    string
		builtin string   // native configuration of the built-in pattern
		files   []string // BUILTIN:DESCRIPTION file names, relative to the run directory
		census  bool
		skip    []string // calls the description issues differently (see the sample's comments)
	}{
		{desc: "vpic-1d-contig.yaml", files: []string{"vpic.h5:vpic.h5"}, census: true,
			builtin: `{"pattern":"vpic","phases":["write"],"session":{"file":"vpic.h5"},"options":{"MEM_PATTERN":"CONTIG","FILE_PATTERN":"CONTIG","NUM_DIMS":1,"DIM_1":64,"TIMESTEPS":2,"COLLECTIVE_DATA":"YES"}}`},
		{desc: "vpic-3d-contig.yaml", files: []string{"vpic3.h5:vpic3.h5"}, census: true,
			builtin: `{"pattern":"vpic","phases":["write"],"session":{"file":"vpic3.h5"},"options":{"MEM_PATTERN":"CONTIG","FILE_PATTERN":"CONTIG","NUM_DIMS":3,"DIM_1":4,"DIM_2":4,"DIM_3":4,"TIMESTEPS":2,"COLLECTIVE_DATA":"YES"}}`},
		{desc: "vpic-1d-interleaved.yaml", files: []string{"vpicmi.h5:vpicmi.h5"}, census: true,
			builtin: `{"pattern":"vpic","phases":["write"],"session":{"file":"vpicmi.h5"},"options":{"MEM_PATTERN":"INTERLEAVED","FILE_PATTERN":"CONTIG","NUM_DIMS":1,"DIM_1":64,"TIMESTEPS":2,"COLLECTIVE_DATA":"YES"}}`},
		// The description reopens the file for each restart read and opens datasets by
		// path: BD-CATS opens the file once and each Timestep group.
		{desc: "bd-cats-full.yaml", files: []string{"bdcats.h5:bdcats.h5"}, census: true, skip: []string{"H5Fopen", "H5Fclose", "H5Gopen2", "H5Gclose"},
			builtin: `{"pattern":"vpic","phases":["write","read"],"session":{"file":"bdcats.h5"},"options":{"MEM_PATTERN":"CONTIG","FILE_PATTERN":"CONTIG","NUM_DIMS":1,"DIM_1":64,"TIMESTEPS":2,"COLLECTIVE_DATA":"YES","READ_OPTION":"FULL"}}`},
		// openPMD-api reopens groups and datasets to write their attributes; the
		// description writes them on the objects it creates.
		{desc: "openpmd-8a.yaml", files: []string{"8a_parallel_3Db_0000001.h5:8a_parallel_3Db_0000001.h5"}, census: true, skip: []string{"H5Dopen2", "H5Dclose", "H5Gopen2", "H5Gclose"},
			builtin: `{"pattern":"openpmd","phases":["write"],"session":{"file":"8a_parallel_3Db_0000001.h5"},"options":{"dim":3,"balanced":"true","ratio":1,"steps":1,"minBlock":"4 8 8","grid":"4 4 4"}}`},
		// AMReX creates each plotfile's metadata on rank 0 alone and reopens it on every
		// rank: descriptions have no serial pre-creation, so only the files compare.
		{desc: "amrex-plotfile.yaml", files: []string{"amx/plt00000.h5:plt00000.h5", "amx/plt00001.h5:plt00001.h5"},
			builtin: `{"pattern":"amrex","phases":["write"],"session":{"file":"amx/"},"options":{"ncells":16,"max_grid_size":8,"nlevs":1,"ncomp":2,"nppc":1,"nplotfile":2,"nparticlefile":0}}`},
	}
	for _, c := range cases {
		for _, np := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/np%d", strings.TrimSuffix(c.desc, ".yaml"), np), func(t *testing.T) {
				dir := t.TempDir()
				b, d := filepath.Join(dir, "builtin"), filepath.Join(dir, "desc")
				for _, sub := range []string{b, d} {
					if err := os.Mkdir(sub, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(b, "builtin.json"), []byte(c.builtin), 0o644); err != nil {
					t.Fatal(err)
				}
				src, err := os.ReadFile(filepath.Join("..", "..", "samples", "apps", c.desc))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, c.desc), src, 0o644); err != nil {
					t.Fatal(err)
				}
				n := fmt.Sprint(np)
				h5proxy(t, b, "run", "-np", n, "-quiet", "-report", "report.json", "builtin.json").expect(t, 0, nil, nil)
				h5proxy(t, d, "run", "-np", n, "-quiet", "-report", "report.json", c.desc).expect(t, 0, nil, nil)
				for _, f := range c.files {
					bf, df, _ := strings.Cut(f, ":")
					if got, want := maskedDump(t, filepath.Join(d, df)), maskedDump(t, filepath.Join(b, bf)); got != want {
						t.Errorf("%s differs from the built-in's %s under h5dump -pH:\n%s", df, bf, lineDiff(want, got))
					}
				}
				if !c.census {
					return
				}
				want, got := censusOf(t, filepath.Join(b, "report.json"), c.skip), censusOf(t, filepath.Join(d, "report.json"), c.skip)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("census differs:\n%s", lineDiff(strings.Join(want, "\n"), strings.Join(got, "\n")))
				}
			})
		}
	}
}

// lineDiff lists the lines of want missing from got (-) and of got missing from want (+).
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range w {
		if !slices.Contains(g, l) {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			b.WriteString("+ " + l + "\n")
		}
	}
	if b.Len() == 0 {
		return "(same lines, in another order)"
	}
	return b.String()
}
