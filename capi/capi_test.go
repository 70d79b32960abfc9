//go:build cgo

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/proxy"
)

// Unit tests of the boundary's pure-Go parts; the exported functions themselves are
// driven from C by examples/c/misuse.c under ctest.

func TestRegistryIDs(t *testing.T) {
	var r registry
	a, b := &entry{kind: kindSession}, &entry{kind: kindSession}
	ida, idb := r.add(a), r.add(b)
	if ida == 0 || idb <= ida {
		t.Fatalf("ids %#x, %#x: want non-zero and increasing", ida, idb)
	}
	if ida>>kindShift != uint64(kindSession) {
		t.Errorf("id %#x does not carry the session kind in its top byte", ida)
	}
	if e, why := r.get(ida, kindSession); e != a || why != "" {
		t.Errorf("get(%#x) = %v, %q", ida, e, why)
	}
	if !r.remove(ida) || r.remove(ida) {
		t.Error("remove: want true once, then false")
	}
	idc := r.add(&entry{kind: kindSession})
	if idc <= idb {
		t.Errorf("id %#x reused or decreasing after %#x", idc, idb)
	}
	for _, tc := range []struct {
		h    uint64
		want string
	}{
		{0, "handle 0 is never valid"},
		{ida, "is closed"},
		{idb + 100, "never issued"},
		{uint64(7)<<kindShift | 1, "never issued"},
	} {
		if e, why := r.get(tc.h, kindSession); e != nil || !strings.Contains(why, tc.want) {
			t.Errorf("get(%#x) = %v, %q; want an error containing %q", tc.h, e, why, tc.want)
		}
	}
	if got := r.all(); len(got) != 2 || got[0] != b || got[1].id != idc {
		t.Errorf("all() = %v, want [b, c] in creation order", got)
	}
}

func TestRegistryBusy(t *testing.T) {
	var r registry
	id := r.add(&entry{kind: kindSession})
	e, code, _ := r.acquire(id, kindSession)
	if e == nil || code != statusOK {
		t.Fatalf("acquire: %v %v", e, code)
	}
	if e2, code, why := r.acquire(id, kindSession); e2 != nil || code != errState || !strings.Contains(why, "another thread") {
		t.Errorf("second acquire = %v, %v, %q; want STATE naming the other thread", e2, code, why)
	}
	e.busy.Store(false)
	if e2, code, _ := r.acquire(id, kindSession); e2 != e || code != statusOK {
		t.Errorf("acquire after release = %v, %v", e2, code)
	}
}

func TestClassify(t *testing.T) {
	pathErr := &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}
	for _, tc := range []struct {
		err  error
		def  status
		want status
	}{
		{nil, errIO, statusOK},
		{fmt.Errorf("step 1: %w", proxy.ErrState), errIO, errState},
		{fmt.Errorf("%w: layout x is not available", proxy.ErrUnsupported), errConfig, errUnsupported},
		{fmt.Errorf("%w: mode async needs MPI_THREAD_MULTIPLE", proxy.ErrThreadLevel), errConfig, errThreadLevel},
		{fmt.Errorf("read: %w", proxy.ErrVerify), errIO, errVerify},
		{proxy.ErrClosed, errIO, errInvalidHandle},
		{fmt.Errorf("wrapped: %w", &options.Error{Key: "DIM_1"}), errIO, errConfig},
		{fmt.Errorf("config: %w", pathErr), errConfig, errIO},
		// Classification is by type (proxy.IsHDF5Error, IsMPIError: see proxy's tests),
		// never by message: text that looks like a layer's gets the caller's default.
		{errors.New("step 0: write /Timestep_0/x: h5: H5Dwrite failed"), errIO, errIO},
		{errors.New("mpi: MPI_Comm_dup: invalid communicator"), errInternal, errInternal},
		{errors.New("something else"), errInternal, errInternal},
	} {
		if got := classify(tc.err, tc.def); got != tc.want {
			t.Errorf("classify(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func TestBuildConfigOptions(t *testing.T) {
	cfg, code, err := buildConfig("vpic", "TIMESTEPS=3;\n# comment\nDIM_1=16; file=/tmp/x.h5;seed=1;seed=2", "", false)
	if err != nil || code != statusOK {
		t.Fatalf("buildConfig: %v (%d)", err, code)
	}
	if cfg.File != "/tmp/x.h5" || cfg.Seed != 2 {
		t.Errorf("file %q seed %d; want /tmp/x.h5 and the last seed, 2", cfg.File, cfg.Seed)
	}
	for _, tc := range []struct {
		pattern, opts string
		want          status
		needle        string
	}{
		{"", "file=x.h5", errInvalidArgument, "no pattern"},
		{"nosuch", "file=x.h5", errConfig, `"nosuch"`},
		{"vpic", "DIM_1=2;DIM_1=3;file=x.h5", errConfig, "more than once"},
		{"vpic", "BOGUS=1;file=x.h5", errConfig, "BOGUS"},
		{"vpic", "mode=fast;file=x.h5", errConfig, "fast"},
		{"vpic", "novalue", errConfig, "novalue"},
	} {
		_, code, err := buildConfig(tc.pattern, tc.opts, "", false)
		if code != tc.want || err == nil || !strings.Contains(err.Error(), tc.needle) {
			t.Errorf("buildConfig(%q, %q) = %d, %v; want %d and an error containing %q", tc.pattern, tc.opts, code, err, tc.want, tc.needle)
		}
	}
}

// TestBuildConfigIOR: the C ABI (and the Fortran module over it) takes the ior pattern
// with IOR's parameter names; IOR's checks come back as configuration errors.
func TestBuildConfigIOR(t *testing.T) {
	cfg, code, err := buildConfig("ior", "api=HDF5;blockSize=16k;transferSize=4k;segmentCount=2;filePerProc=1;reorderTasks=1;file=/tmp/t;layout=native", "", false)
	if err != nil || code != statusOK || cfg.Pattern != "ior" || len(cfg.Options) != 6 {
		t.Fatalf("buildConfig: %+v %v (%d)", cfg, err, code)
	}
	_, code, err = buildConfig("ior", "blockSize=10k;transferSize=4k;file=/tmp/t", "", false)
	if code != errConfig || err == nil || !strings.Contains(err.Error(), "block size must be a multiple of transfer size") {
		t.Errorf("bad IOR parameters: %d %v", code, err)
	}
}

// TestUnsupportedStrategies checks that every mode and layout the session table declares
// but this build lacks is UNSUPPORTED, and every built one is accepted.
func TestUnsupportedStrategies(t *testing.T) {
	for _, key := range []string{"mode", "layout"} {
		spec, ok := proxy.SessionOptions().Lookup(key)
		if !ok {
			t.Fatalf("no session key %q", key)
		}
		built := proxy.Modes()
		if key == "layout" {
			// Registered layouts this build cannot run (subfiling-vfd without HDF5 1.14's
			// VFD) are UNSUPPORTED too.
			built = slices.DeleteFunc(proxy.Layouts(), func(l string) bool { return proxy.LayoutAvailable(l) != nil })
		}
		for _, v := range spec.Allowed {
			if key == "mode" && v == "log" { // h5bench's MODE=LOG selects the log layout
				continue
			}
			_, code, err := buildConfig("vpic", key+"="+v+";file=x.h5", "", false)
			want := errUnsupported
			if slices.Contains(built, v) {
				want = statusOK
			}
			if code != want || (want != statusOK && !strings.Contains(fmt.Sprint(err), v)) {
				t.Errorf("%s=%s: code %d, err %v; want %d", key, v, code, err, want)
			}
		}
	}
}

func TestBuildConfigFileOverrides(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.json")
	doc := `{"pattern": "vpic", "phases": ["write"],
	  "session": {"file": "a.h5", "CSV_FILE": "a.csv", "seed": 5},
	  "options": {"TIMESTEPS": 4, "dim_1": 8, "COLLECTIVE_DATA": true}}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, code, err := buildConfig("", "DIM_1=32;csv_file=b.csv;file=b.h5", path, true)
	if err != nil || code != statusOK {
		t.Fatalf("buildConfig: %v (%d)", err, code)
	}
	if cfg.File != "b.h5" || cfg.CSVFile != "b.csv" || cfg.Seed != 5 || len(cfg.Phases) != 1 {
		t.Errorf("file %q csv %q seed %d phases %v; want the options over the file's session keys", cfg.File, cfg.CSVFile, cfg.Seed, cfg.Phases)
	}
	eff := cfg.Effective()
	if eff["DIM_1"] != "32" || eff["TIMESTEPS"] != "4" || eff["COLLECTIVE_DATA"] != "YES" {
		t.Errorf("effective DIM_1=%s TIMESTEPS=%s COLLECTIVE_DATA=%s; want 32, 4, YES", eff["DIM_1"], eff["TIMESTEPS"], eff["COLLECTIVE_DATA"])
	}
	if _, code, err := buildConfig("VPIC", "", path, true); err != nil || code != statusOK {
		t.Errorf("pattern given in both, same name in another case: %v", err)
	}
	for _, tc := range []struct {
		file, pattern string
		want          status
		needle        string
	}{
		{filepath.Join(dir, "missing.json"), "", errIO, "missing.json"},
		{path, "other", errConfig, "contradicts"},
	} {
		if _, code, err := buildConfig(tc.pattern, "", tc.file, true); code != tc.want || err == nil || !strings.Contains(err.Error(), tc.needle) {
			t.Errorf("buildConfig(%q, file %s) = %d, %v; want %d containing %q", tc.pattern, tc.file, code, err, tc.want, tc.needle)
		}
	}
	bad := filepath.Join(dir, "bad.json")
	for _, text := range []string{`[1, 2]`, `{"pattern": "vpic", "session": 3}`, `{"pattern": "vpic"`} {
		if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, code, err := buildConfig("", "file=x.h5", bad, true); code != errConfig || err == nil {
			t.Errorf("config file %s: code %d err %v, want CONFIG", text, code, err)
		}
	}
}

func TestOptionsHelp(t *testing.T) {
	text, code, err := optionsHelp("session")
	if err != nil || code != statusOK || !strings.Contains(text, "compute_time") {
		t.Errorf("session help: %v %d %q", err, code, text)
	}
	text, _, err = optionsHelp("vpic")
	if err != nil || !strings.Contains(text, "DIM_1") {
		t.Errorf("vpic help: %v %q", err, text)
	}
	if _, code, err := optionsHelp("nosuch"); code != errConfig || err == nil || !strings.Contains(err.Error(), "vpic") {
		t.Errorf("unknown pattern help: %d %v", code, err)
	}
	if !strings.Contains(patternsList(), "vpic") {
		t.Errorf("patterns list %q lacks vpic", patternsList())
	}
}

// TestNovaByName: the nova pattern is reachable through the C ABI by name, with its help
// and its option errors naming the key.
func TestNovaByName(t *testing.T) {
	cfg, code, err := buildConfig("nova", "files=3;groups=10;empty_layout=compact;file=/tmp/nova-in", "", false)
	if err != nil || code != statusOK || cfg.Pattern != "nova" {
		t.Fatalf("buildConfig nova: %v (%d) %+v", err, code, cfg.Pattern)
	}
	if _, code, err := buildConfig("nova", "empty_layout=virtual;file=x", "", false); code != errConfig || err == nil || !strings.Contains(err.Error(), "empty_layout") {
		t.Errorf("bad nova option: %d %v", code, err)
	}
	if text, _, err := optionsHelp("nova"); err != nil || !strings.Contains(text, "input_driver") {
		t.Errorf("nova help: %v %q", err, text)
	}
}

// TestAppByName: a description runs through the C ABI as pattern app, its parameters as
// options; its help carries the description format; a bad parameter names the key.
func TestAppByName(t *testing.T) {
	desc, err := filepath.Abs("../examples/apps/particles.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, code, err := buildConfig("app", "description="+desc+";steps=2;particles=1Ki;file=/tmp/app-run.h5", "", false)
	if err != nil || code != statusOK || cfg.Pattern != "app" {
		t.Fatalf("buildConfig app: %v (%d) %+v", err, code, cfg.Pattern)
	}
	if _, code, err := buildConfig("app", "description="+desc+";step=2;file=x", "", false); code != errConfig || err == nil || !strings.Contains(err.Error(), "did you mean steps?") {
		t.Errorf("bad app parameter: %d %v", code, err)
	}
	if text, _, err := optionsHelp("app"); err != nil || !strings.Contains(text, "timeline[].every") {
		t.Errorf("app help: %v %q", err, text)
	}
}
