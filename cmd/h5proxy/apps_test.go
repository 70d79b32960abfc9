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

	"github.com/h5proxy/h5proxy/samples/apps"
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

// loadJSON decodes the JSON file path (a run's report) into v.
func loadJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// censusOf reads each phase's census from a run's JSON report: the HDF5 calls (count over
// the ranks, the largest count of one rank, bytes), the collective transfers and the I/O
// modes; calls in skip are left out.
func censusOf(t *testing.T, report string, skip []string) []string {
	t.Helper()
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
	loadJSON(t, report, &r)
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
// re-expresses (the table apps.Pairs, which bench/app also times), at 1, 2 and 4 ranks:
// the files are equal under h5dump -pH (addresses masked) and, where the description
// models the call sequence, so is the census per phase: HDF5 calls with their counts (all
// ranks, and the most of one rank) and bytes, collective transfers and I/O modes.
func TestAppSamples(t *testing.T) {
	if _, err := exec.LookPath("h5dump"); err != nil {
		t.Skip("h5dump not installed")
	}
	for _, c := range apps.Pairs {
		for _, np := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/np%d", c.Name(), np), func(t *testing.T) {
				dir := t.TempDir()
				b, d := filepath.Join(dir, "builtin"), filepath.Join(dir, "desc")
				for _, sub := range []string{b, d} {
					if err := os.Mkdir(sub, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(b, "builtin.json"), []byte(c.Builtin), 0o644); err != nil {
					t.Fatal(err)
				}
				src, err := apps.Source(c.Desc)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, c.Desc), src, 0o644); err != nil {
					t.Fatal(err)
				}
				n := fmt.Sprint(np)
				h5proxy(t, b, "run", "-np", n, "-quiet", "-report", "report.json", "builtin.json").expect(t, 0, nil, nil)
				h5proxy(t, d, "run", "-np", n, "-quiet", "-report", "report.json", c.Desc).expect(t, 0, nil, nil)
				for _, f := range c.Files {
					bf, df, _ := strings.Cut(f, ":")
					if got, want := maskedDump(t, filepath.Join(d, df)), maskedDump(t, filepath.Join(b, bf)); got != want {
						t.Errorf("%s differs from the built-in's %s under h5dump -pH:\n%s", df, bf, lineDiff(want, got))
					}
				}
				if !c.Census {
					return
				}
				want, got := censusOf(t, filepath.Join(b, "report.json"), c.Skip), censusOf(t, filepath.Join(d, "report.json"), c.Skip)
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
