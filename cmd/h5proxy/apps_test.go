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

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/samples/apps"
)

// maskedDump is h5dump -pH of path with what differs between equal structures masked:
// the file name, the addresses of datasets and the stored sizes of filtered ones, which
// their values decide (values are not dumped).
func maskedDump(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("h5dump", "-p", "-H", path).CombinedOutput()
	if err != nil {
		t.Fatalf("h5dump -pH %s: %v\n%s", path, err, out)
	}
	s := regexp.MustCompile(`OFFSET \d+`).ReplaceAllString(string(out), "OFFSET _")
	s = regexp.MustCompile(`SIZE \d+ \([0-9.]+:1 COMPRESSION\)`).ReplaceAllString(s, "SIZE _ (_:1 COMPRESSION)")
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
// modes.
func censusOf(t *testing.T, report string) []string {
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
			out = append(out, fmt.Sprintf("%s %s count=%d max=%d bytes=%d", p.Phase, k.Call, k.Count, k.MaxCount, k.Bytes))
		}
		out = append(out, fmt.Sprintf("%s collective=%d modes=%v", p.Phase, c.CollectiveTransfers, c.IOModes))
	}
	slices.Sort(out)
	return out
}

// TestAppSamples runs each description of samples/apps beside the built-in pattern it
// re-expresses (the table apps.Pairs, which bench/app also times), at 1, 2 and 4 ranks (2
// alone in make test's 1.14 suite: mpitest.Sweep):
// the files are equal under h5dump -pH (addresses masked), and so is the census per phase,
// every call included: HDF5 calls with their counts (all ranks, and the most of one rank)
// and bytes, collective transfers and I/O modes. The 2-rank run's files are also
// TestDeriveSamples' for the pairs: derived and checked here (deriveChecks), so that each
// sample is run once for both tests.
func TestAppSamples(t *testing.T) {
	if _, err := exec.LookPath("h5dump"); err != nil {
		t.Skip("h5dump not installed")
	}
	for _, c := range apps.Pairs {
		for _, np := range mpitest.Sweep(1, 2, 4) {
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
				inputs := copyPairData(t, c, b, d)
				n := fmt.Sprint(np)
				h5proxy(t, b, "run", "-np", n, "-quiet", "-report", "report.json", "builtin.json").expect(t, 0, nil, nil)
				h5proxy(t, d, append([]string{"run", "-np", n, "-quiet", "-report", "report.json", c.Desc}, c.Args...)...).expect(t, 0, nil, nil)
				for _, f := range c.Files {
					bf, df, _ := strings.Cut(f, ":")
					if got, want := maskedDump(t, filepath.Join(d, df)), maskedDump(t, filepath.Join(b, bf)); got != want {
						t.Errorf("%s differs from the built-in's %s under h5dump -pH:\n%s", df, bf, lineDiff(want, got))
					}
				}
				want, got := censusOf(t, filepath.Join(b, "report.json")), censusOf(t, filepath.Join(d, "report.json"))
				if !reflect.DeepEqual(got, want) {
					t.Errorf("census differs:\n%s", lineDiff(strings.Join(want, "\n"), strings.Join(got, "\n")))
				}
				if np == 2 {
					deriveChecks(t, d, c.Name(), inputs)
				}
			})
		}
	}
}

// copyPairData copies the repository files a pair reads (c.Data) into each of dirs under
// their base names, and returns those names.
func copyPairData(t *testing.T, c apps.Pair, dirs ...string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for _, f := range c.Data {
		data, err := os.ReadFile(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, dir := range dirs {
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		names[filepath.Base(f)] = true
	}
	return names
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

// TestE3SMFPlan: the whole F case, h0's 414 variables and h1's 51 (TestAppSamples leaves
// h0 out for its run time), plans the operations of the built-in (no I/O) on rank 1 of 2
// and rank 3 of 4: the same creates, attributes, extensions, closes and writes
// with their selections, collective or not, compared sorted and with the buffers' names
// aside (the built-in names them w:VAR, a description by path). Planning prints every
// block of the D3 variables' selections: a few seconds per rank.
func TestE3SMFPlan(t *testing.T) {
	dir := t.TempDir()
	src, err := apps.Source("e3sm-f.yaml")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "data", "e3sm", "map_f_case_16p.h5"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"e3sm-f.yaml": src, "map_f_case_16p.h5": data} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ops := func(r result) []string { return sortedPlanOps(t, r) }
	for _, c := range []struct{ rank, np int }{{1, 2}, {3, 4}} {
		flags := []string{"plan", "-rank", fmt.Sprint(c.rank), "-size", fmt.Sprint(c.np)}
		want := ops(h5proxy(t, dir, append(flags, "e3sm", "map=map_f_case_16p.h5", "file=e3sm_f.h5")...))
		got := ops(h5proxy(t, dir, append(flags, "e3sm-f.yaml", "map=map_f_case_16p.h5")...))
		if len(want) < 3000 {
			t.Fatalf("rank %d of %d: the built-in plans %d operations, want both files' thousands", c.rank, c.np, len(want))
		}
		if !slices.Equal(got, want) {
			d := lineDiff(strings.Join(want, "\n"), strings.Join(got, "\n"))
			t.Errorf("rank %d of %d: the description's plan differs from the built-in's:\n%.4000s", c.rank, c.np, d)
		}
	}
}
