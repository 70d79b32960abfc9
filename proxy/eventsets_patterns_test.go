package proxy_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5diff"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// esPatternCase is one pattern run by TestEventSetsEveryPattern in sync mode and through
// event sets.
type esPatternCase struct {
	name, pattern, kv string
	// phases, when set, are the phases run (else the pattern's default).
	phases []patterns.Phase
	// desc is a description file (pattern app) the case copies into its directory first:
	// a path relative to the package, or text when it holds a newline.
	desc string
	// clock names attributes (h5diff's "NAME of <PATH>") holding the time of the run.
	clock []string
	// esKV are keys of the event-set run only.
	esKV string
}

var bothPhases = []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}

// esPatternCases are every pattern whose plans hold the calls the event-set mode has no
// _async form for, or makes on objects created in a set still pending: attributes on new
// datasets (E3SM F, G and I's variables), on groups (AMReX, openPMD through H5Oopen),
// attribute reads (AMReX's restart, attr_read.yaml), links (links.yaml), dimension
// scales, variable-length strings and compound attributes (features.yaml), 1.6-API creates
// (MACSio), extents and the concatenation's reads (NOvA, MACSio's growth), handles held
// across steps (handles.yaml), writes from lent memory (async.write_memcpy=NO).
var esPatternCases = []esPatternCase{
	{name: "vpic", pattern: "vpic", kv: "DIM_1=4096;TIMESTEPS=3;COLLECTIVE_DATA=YES;verify=yes", phases: bothPhases},
	{name: "e3sm-F", pattern: "e3sm", kv: "case=F;ne=2;lev=4;r=2"},
	{name: "e3sm-G", pattern: "e3sm", kv: "case=G;g_cells=40;g_levels=5;r=2"},
	{name: "e3sm-I", pattern: "e3sm", kv: "case=I;i_lat=12;i_lon=20;r=1;u=YES"},
	{name: "amrex", pattern: "amrex", kv: amrexExample + ";verify=yes", phases: bothPhases},
	{name: "openpmd-g", pattern: "openpmd", kv: "dim=2;minBlock=3 2;grid=4 4;encoding=g;steps=6;balanced=false;rankBlocks=false;ratio=2;pattern=sx", phases: bothPhases, clock: []string{"date of </>"}},
	{name: "openpmd-f", pattern: "openpmd", kv: "dim=3;minBlock=2 2 2;grid=4 2 2;encoding=f;steps=2;balanced=false;OPENPMD_HDF5_INDEPENDENT=OFF;pattern=fz", phases: bothPhases, clock: []string{"date of </>"}},
	{name: "nova", pattern: "nova", kv: novaKV},
	{name: "macsio-sif", pattern: "macsio", kv: "parallel_file_mode=SIF 3;part_size=16000;part_dim=1;vars_per_part=20;num_dumps=3;dataset_growth=1.5;mdc=hdf5"},
	{name: "macsio-mif", pattern: "macsio", kv: "parallel_file_mode=MIF 2;avg_num_parts=1.5;part_size=10000;vars_per_part=20;num_dumps=1;mdc=hdf5"},
	{name: "app-links", pattern: "app", desc: "testdata/apps/links.yaml"},
	{name: "app-attr-read", pattern: "app", desc: "../patterns/app/testdata/attr_read.yaml"},
	{name: "app-handles", pattern: "app", desc: "testdata/apps/handles.yaml"},
	{name: "app-scales", pattern: "app", desc: scalesDescription},
	{name: "app-features", pattern: "app", desc: "../examples/apps/features.yaml"},
	// Writes generated in lent staging memory (the VOL's default build, which copies
	// nothing), the variable-length ones made as ordinary calls.
	{name: "app-features-lent", pattern: "app", desc: "../examples/apps/features.yaml", esKV: "async.write_memcpy=NO"},
}

// esModes are the two runs of each case: the event-set run's files must equal the sync
// run's.
var esModes = []struct{ name, kv string }{{"sync", "mode=sync"}, {"es", "mode=async;async.event_sets=YES"}}

// TestEventSetsEveryPattern runs every pattern at 2 ranks in sync mode and through event
// sets (mode=async, async.event_sets=YES) on HDF5 1.14 under the native connector, where
// each _async call runs at once: CI's run of the event-set path. The internal/h5 package
// refuses an ordinary call on an object whose _async create or open is in a set not yet
// waited (h5.ErrPending: under the Async VOL that call is an implicit wait behind every
// queued operation, the wait that stalled E3SM F's attributes, docs/modes.md), so a
// pattern whose plan makes one the mode does not route into a set or wait for first fails
// here without the connector. Every run completes, its reads verify, it reports the event
// sets, and every HDF5 file it writes equals the sync run's (h5diff -r; openPMD's date
// attribute, the wall clock of the write, excepted).
func TestEventSetsEveryPattern(t *testing.T) {
	if v := proxy.HDF5Version(); !strings.HasPrefix(v, "1.14") {
		t.Skipf("needs HDF5 1.14's event sets (HDF5 1.13 and later): this build loads HDF5 %s, which has none (run with HDF5=1.14)", v)
	}
	dir := testDir(t)
	sub := func(c esPatternCase, mode string) string { return filepath.Join(dir, c.name+"-"+mode) }
	if !mpitest.Child() { // the directories and descriptions, before the ranks start
		for _, c := range esPatternCases {
			for _, m := range esModes {
				if err := os.MkdirAll(sub(c, m.name), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if c.desc == "" {
				continue
			}
			text := []byte(c.desc)
			if !strings.Contains(c.desc, "\n") {
				var err error
				if text, err = os.ReadFile(c.desc); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, c.name+".yaml"), text, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if mpitest.Run(t, 2) {
		if t.Failed() {
			return
		}
		for _, c := range esPatternCases {
			compareTrees(t, c, sub(c, "sync"), sub(c, "es"))
		}
		return
	}
	for _, c := range esPatternCases {
		for _, m := range esModes {
			kv := c.kv
			if c.desc != "" {
				kv = "description=" + filepath.Join(dir, c.name+".yaml")
			}
			out := filepath.Join(sub(c, m.name), "run.h5")
			if c.pattern == "amrex" || c.pattern == "nova" || c.pattern == "macsio" {
				out = filepath.Join(sub(c, m.name), "out")
			}
			if m.name == "es" && c.esKV != "" {
				kv += ";" + c.esKV
			}
			cfg := patternConfig(t, c.pattern, kv+";"+m.kv, out)
			if c.phases != nil {
				cfg.Phases = c.phases
			}
			rep := runReport(t, cfg, c.name+" "+m.name)
			if m.name == "es" && !strings.Contains(rep.ModeImpl, "event sets") {
				t.Errorf("%s: mode_impl %q, want the event sets", c.name, rep.ModeImpl)
			}
			for _, p := range rep.Phases {
				if p.Mismatches != 0 || p.Phase == "read" && !p.Verified {
					t.Errorf("%s %s %s: verified %v, %v mismatches", c.name, m.name, p.Phase, p.Verified, p.Mismatches)
				}
			}
		}
	}
}

// compareTrees requires the HDF5 files under a (the sync run's) and b to be the same set,
// each pair equal by h5diff -r but for c's clock attributes.
func compareTrees(t *testing.T, c esPatternCase, a, b string) {
	t.Helper()
	files := func(root string) []string {
		var out []string
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			head := make([]byte, 8)
			if f, err := os.Open(p); err == nil {
				f.Read(head)
				f.Close()
			}
			if bytes.Equal(head, []byte("\x89HDF\r\n\x1a\n")) {
				rel, _ := filepath.Rel(root, p)
				out = append(out, rel)
			}
			return nil
		})
		slices.Sort(out)
		return out
	}
	fa, fb := files(a), files(b)
	if len(fa) == 0 || !slices.Equal(fa, fb) {
		t.Errorf("%s: the sync run wrote HDF5 files %v, the event-set run %v", c.name, fa, fb)
		return
	}
	for _, f := range fa {
		out, err := exec.Command("h5diff", "-r", filepath.Join(a, f), filepath.Join(b, f)).CombinedOutput()
		if err != nil && !h5diff.OnlyAttributesDiffer(string(out), c.clock) {
			t.Errorf("%s: %s differs between the sync and the event-set run: %v\n%s", c.name, f, err, out)
		}
	}
	t.Logf("%s: %d files equal", c.name, len(fa))
}
