package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/internal/h5diff"
	"github.com/h5proxy/h5proxy/proxy"
)

// connectorSamples are the h5bench samples run under each connector: the write and read
// kernels (VPIC's write, BD-CATS' full read) in 1, 2 and 3 dimensions with contiguous
// (CC) and interleaved (CI) file patterns, and AMReX. Sizes are the stored
// samples' (h5bench/testdata/samples/README.md), ranks their mpi sections' or 2.
var connectorSamples = []connectorSample{
	{name: "sync-write-1d-contig-contig-read-full.json"},
	{name: "sync-write-2d-contig-contig-read-full.json"},
	// 16^3 elements a rank, not the stored 8^3: vol-cache 1.2.1 fails every write after
	// one smaller than a page (8^3 4-byte values: 2 KiB) with pwritev's "Bad address"
	// (its mmap at an offset not page-aligned, unchecked: docs/modes.md, report 2).
	{name: "sync-write-3d-contig-contig-read-full.json", sets: []string{"DIM_1=16", "DIM_2=16", "DIM_3=16"}},
	// The log-based VOL 1.4.0 keeps only the last member of h5bench's member-by-member
	// compound writes (the others read back 0: docs/modes.md), a limitation of the
	// connector: the log columns are not run on the interleaved file pattern.
	{name: "sync-write-1d-contig-interleaved.json", noLog: true},
	{name: "sync-write-2d-contig-interleaved.json", noLog: true},
	// AMReX's rank 0 writes the header with the default (serial) file access, as AMReX
	// does. vol-cache 1.2.1 with its write cache on takes a created file's communicator
	// with H5Pget_fapl_mpio, unchecked ("VFL driver is not MPI-I/O"), and passes the
	// uninitialized handle to MPI_Comm_dup, which aborts (MPI_ERR_COMM): the connector's,
	// as for the real AMReX, when HDF5_CACHE_WR=yes turns the cache on for every file (the
	// implicit column; reproduced by a 10-line C program, docs/modes.md). mode=cache turns
	// it on with the connector's per-file switch for the MPI-IO files only, and passes.
	{name: "sync-amrex.json", fails: map[string]knownFailure{"cache-implicit": {"MPI_Comm_dup", "MPI_Comm_dup"}}},
	// openPMD's write names the series' directory (fileLocation: the sample's
	// "directory", storage), which must hold the series file: `-dir` would put it
	// elsewhere, so each run has a copy of the sample directory of its own (inPlace).
	// Its root attribute date is the wall clock at the write (openPMD-api's), different in
	// every run: the one difference allowed.
	{name: "sync-openpmd.json", inPlace: true, clock: []string{"date of </>"}},
	// E3SM F through h5bench's e3sm benchmark, canonical layout: the repository's sample
	// (h5bench's own reads E3SM-IO's netCDF map, not shipped) with the map it ships, the
	// one the E3SM tests and bench/connectors/study.sh read; one record of h1.
	// The sample names the map relative to the repository; its copy names it absolutely.
	// Under the Cache VOL both columns fail in the connector at E3SM's first small
	// variable, /nsbase, with pwritev's "Bad address": vol-cache 1.2.1's failure of a write
	// after one smaller than a page (docs/modes.md, report 2). Over the Async VOL the same
	// defect crashes: the failed mmap's MAP_FAILED, unchecked, is the buffer the Async VOL
	// (built with ENABLE_WRITE_MEMCPY) copies in the caller's H5Dwrite, so the rank dies
	// with SIGSEGV at address 0xffffffffffffffff (MAP_FAILED) where pwritev reported "Bad
	// address". (The map, the proxy's input, is read through the native connector:
	// TestMapUnderConnectors.)
	{name: "sync-e3sm-canonical.json", src: "samples", subst: []string{"../data/e3sm/", shippedMaps + "/"}, sets: []string{"r=1"},
		fails: map[string]knownFailure{
			"cache-implicit":   {"Bad address", "Bad address"},
			"cache-explicit":   {"Bad address", "Bad address"},
			"cache-over-async": {`SIGSEGV: segmentation violation\s+PC=\S+ m=\d+ sigcode=\d+ addr=0xffffffffffffffff`, "SIGSEGV at MAP_FAILED"},
		}},
}

// shippedMaps is the directory of the E3SM decomposition maps the repository ships.
var shippedMaps, _ = filepath.Abs(filepath.Join("..", "..", "data", "e3sm"))

// connectorSample is one h5bench sample of the matrix: sets are -set keys of every run
// (the native one too); noLog leaves out the log-based VOL's columns, saying why.
type connectorSample struct {
	name  string
	sets  []string
	noLog bool
	// fails are the columns known to fail, each with what its output must show.
	fails map[string]knownFailure
	// src is the sample's directory relative to the repository ("": h5bench's stored
	// samples); inPlace runs each column without -dir, in a copy of its own of the
	// sample's directory (the sample's "directory" then holds the files).
	src     string
	inPlace bool
	// subst are pairs of text to replace in the copy and its replacement.
	subst []string
	// clock are attributes (h5diff's "NAME of <PATH>") holding the time of the run, which
	// may differ from the native run's; every other object must be equal.
	clock []string
}

// knownFailure is a connector's defect a column of the matrix is required to meet: the
// run must fail and its output match match (a regular expression), so that any other
// outcome (a pass, a stall, another error) fails the test; label names it in the matrix.
type knownFailure struct {
	match, label string
}

// connectorRun is one column of the matrix: a connector loaded implicitly (only
// HDF5_VOL_CONNECTOR, the sample's own mode) or chosen explicitly (h5proxy's key).
type connectorRun struct {
	name string
	// vol is HDF5_VOL_CONNECTOR, "" for none; %s is the test's directory.
	vol string
	// sets are -set keys.
	sets []string
	// log: the file is in the log-based VOL's format, compared by what the connector
	// reads back.
	log bool
	// async: the Async VOL, which can hang under load (docs/modes.md): opt-in.
	async bool
}

var connectorRuns = []connectorRun{
	{name: "async-implicit", vol: "async under_vol=0;under_info={}", async: true},
	{name: "async-explicit", vol: "async under_vol=0;under_info={}", sets: []string{"mode=async", "async.event_sets=YES"}, async: true},
	{name: "cache-implicit", vol: "cache_ext config=%s/cache.cfg;under_vol=0;under_info={}", sets: []string{"HDF5_CACHE_WR=yes"}},
	{name: "cache-explicit", vol: "cache_ext config=%s/cache.cfg;under_vol=0;under_info={}", sets: []string{"mode=cache", "cache.connector=YES"}},
	// The Cache VOL stacked over the Async VOL (vol-cache's own samples stack it so): the
	// migration to the file runs in the Async VOL's background.
	{name: "cache-over-async", vol: "cache_ext config=%s/cache.cfg;under_vol=512;under_info={under_vol=0;under_info={}}", sets: []string{"mode=cache", "cache.connector=YES"}, async: true},
	{name: "log-implicit", vol: "LOG under_vol=0;under_info={}", log: true},
	{name: "log-explicit", sets: []string{"layout=log-vol"}, log: true},
}

// TestSamplesUnderConnectors runs h5bench's samples with `h5proxy run` natively, then
// under each real connector where scripts/vol-connectors.sh built them, implicitly
// (HDF5_VOL_CONNECTOR names the connector; the sample's own MODE) and explicitly
// (mode=async with event sets, mode=cache through the Cache VOL, layout=log-vol): every
// run completes and its files equal the native run's (h5diff -r; the log-based VOL's
// files, whose format is its own, by h5dump of every dataset through the connector
// against h5dump of the native file). The Async VOL's columns need
// H5PROXY_TEST_ASYNC_VOL=1 (it can hang under load, docs/modes.md); H5PROXY_CONNECTOR_RUNS
// (comma-separated names) and H5PROXY_CONNECTOR_SAMPLES choose a part. The matrix is
// logged as docs/modes.md's table.
func TestSamplesUnderConnectors(t *testing.T) {
	lib := volLib(t)
	runs := connectorRuns
	if os.Getenv("H5PROXY_TEST_ASYNC_VOL") == "" {
		t.Log("the Async VOL's columns skipped: set H5PROXY_TEST_ASYNC_VOL=1 to run them (the connector can hang under load, docs/modes.md)")
		runs = slices.DeleteFunc(slices.Clone(runs), func(r connectorRun) bool { return r.async })
	}
	if only := os.Getenv("H5PROXY_CONNECTOR_RUNS"); only != "" {
		runs = slices.DeleteFunc(runs, func(r connectorRun) bool { return !slices.Contains(strings.Split(only, ","), r.name) })
	}
	samples := connectorSamples
	if only := os.Getenv("H5PROXY_CONNECTOR_SAMPLES"); only != "" {
		samples = slices.DeleteFunc(slices.Clone(samples), func(s connectorSample) bool { return !slices.Contains(strings.Split(only, ","), s.name) })
	}
	dir := t.TempDir()
	writeCacheConfig(t, dir)
	var matrix strings.Builder
	fmt.Fprintf(&matrix, "| sample |")
	for _, r := range runs {
		fmt.Fprintf(&matrix, " %s |", r.name)
	}
	matrix.WriteString("\n|---|" + strings.Repeat("---|", len(runs)) + "\n")
	for _, smp := range samples {
		sample := smp.name
		name := strings.TrimSuffix(sample, ".json")
		sdir := filepath.Join(dir, name)
		// The sample's directory: AMReX and openPMD write their programs' input files there.
		if err := os.MkdirAll(filepath.Join(sdir, "storage"), 0o755); err != nil {
			t.Fatal(err)
		}
		native, ndir := smp.place(t, sdir, "native")
		r := h5proxyRun(t, 3*time.Minute, ndir, nil, smp.args(native, smp.sets)...)
		if r.code != 0 {
			t.Errorf("%s natively: %s", sample, r)
			continue
		}
		files := h5Files(t, native)
		if len(files) == 0 {
			t.Errorf("%s natively: no HDF5 file in %s\n%s", sample, native, r)
			continue
		}
		fmt.Fprintf(&matrix, "| %s |", name)
		for _, c := range runs {
			if c.log && smp.noLog {
				fmt.Fprintf(&matrix, " not run (partial compound writes) |")
				continue
			}
			out, cdir := smp.place(t, sdir, c.name)
			env := []string{"HDF5_PLUGIN_PATH=" + lib}
			if c.vol != "" {
				env = append(env, "HDF5_VOL_CONNECTOR="+strings.ReplaceAll(c.vol, "%s", dir))
			}
			sets := slices.Clone(smp.sets)
			for _, s := range c.sets {
				if k, v, _ := strings.Cut(s, "="); k == "HDF5_CACHE_WR" {
					env = append(env, k+"="+v) // the connector's own switch, as a user sets it
				} else {
					sets = append(sets, s)
				}
			}
			r := h5proxyRun(t, 4*time.Minute, cdir, env, smp.args(out, sets)...)
			verdict := "equal"
			if want, ok := smp.fails[c.name]; ok {
				// A known failure, pinned: the day it passes, the matrix must change.
				if r.code == 0 || !regexp.MustCompile(want.match).MatchString(r.stdout+r.stderr) {
					t.Errorf("%s, %s: want the known failure (%s: output matching %q), got %s", sample, c.name, want.label, want.match, r)
				}
				fmt.Fprintf(&matrix, " **fails** (%s) |", want.label)
				continue
			}
			if r.code != 0 {
				t.Errorf("%s, %s: %s", sample, c.name, r)
				verdict = "**failed**"
			} else if strings.Contains(r.stdout+r.stderr, "ASYNC VOL ERROR") {
				t.Errorf("%s, %s: the Async VOL reported errors\n%s", sample, c.name, r)
				verdict = "**ASYNC VOL ERROR**"
			} else if diff := compareFiles(t, lib, native, out, files, c.log, smp.clock...); diff != "" {
				t.Errorf("%s, %s: %s", sample, c.name, diff)
				verdict = "**differs**"
			}
			fmt.Fprintf(&matrix, " %s |", verdict)
		}
		matrix.WriteString("\n")
	}
	t.Logf("matrix (h5proxy %s, HDF5 %s):\n%s", "run", proxy.HDF5Version(), matrix.String())
}

// TestMapUnderConnectors checks that E3SM's decomposition map, which `h5proxy run` reads
// in the launcher (to check the configuration) and in every rank, is read through the
// native connector under any other: under the Async VOL the launcher's read printed
// "[ASYNC VOL ERROR] ... ABT_thread_self" (its goroutine is not on HDF5's first thread),
// and under the Cache VOL with its write cache on the map's serial open aborted in
// MPI_Comm_dup (vol-cache 1.2.1's unchecked H5Pget_fapl_mpio, docs/modes.md). The
// launcher here is /bin/true (H5PROXY_MPIEXEC), so only its own read runs: it must exit 0
// with no connector error.
func TestMapUnderConnectors(t *testing.T) {
	lib := volLib(t)
	dir := t.TempDir()
	writeCacheConfig(t, dir)
	e3 := connectorSamples[len(connectorSamples)-1]
	if e3.name != "sync-e3sm-canonical.json" {
		t.Fatalf("the last connector sample is %s, want E3SM's", e3.name)
	}
	e3.copyTo(t, dir)
	for _, c := range []struct{ name, vol, extra string }{
		{"async", "async under_vol=0;under_info={}", ""},
		{"cache", "cache_ext config=" + dir + "/cache.cfg;under_vol=0;under_info={}", "HDF5_CACHE_WR=yes"},
	} {
		env := []string{"HDF5_PLUGIN_PATH=" + lib, "HDF5_VOL_CONNECTOR=" + c.vol, "H5PROXY_MPIEXEC=/bin/true"}
		if c.extra != "" {
			env = append(env, c.extra)
		}
		for i := range 3 { // the Async VOL's lines came when the goroutine had moved: more than once
			r := h5proxyRun(t, time.Minute, dir, env, "run", "-np", "1", "-quiet", "-set", "r=1", "-set", "mode=async", "-dir", filepath.Join(dir, "out"), e3.name)
			if r.code != 0 || strings.Contains(r.stdout+r.stderr, "ASYNC VOL ERROR") || strings.Contains(r.stderr, "MPI_Comm_dup") {
				t.Errorf("%s, launcher run %d: want exit 0 and no connector error\n%s", c.name, i+1, r)
			}
		}
	}
}

// writeCacheConfig writes the Cache VOL's configuration dir/cache.cfg, its SSD storage in
// dir/ssd: 1 GiB, a 256 MiB write buffer (2 ranks' buffers fit, as vol-cache 1.2.1 needs).
func writeCacheConfig(t *testing.T, dir string) {
	t.Helper()
	storage := filepath.Join(dir, "ssd")
	if err := os.Mkdir(storage, 0o755); err != nil {
		t.Fatal(err)
	}
	conf := "HDF5_CACHE_STORAGE_TYPE: SSD\nHDF5_CACHE_STORAGE_PATH: " + storage +
		"\nHDF5_CACHE_STORAGE_SCOPE: LOCAL\nHDF5_CACHE_STORAGE_SIZE: 1073741824\nHDF5_CACHE_WRITE_BUFFER_SIZE: 268435456\n"
	if err := os.WriteFile(filepath.Join(dir, "cache.cfg"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
}

// place prepares the run named run of the sample under sdir and returns the directory
// its files land in and the one it runs in: sdir and sdir/run (given with -dir), or for a
// sample run in place a copy of the sample in sdir/run and its "directory".
func (smp connectorSample) place(t *testing.T, sdir, run string) (out, cwd string) {
	t.Helper()
	if smp.inPlace {
		cwd = filepath.Join(sdir, run)
		if err := os.MkdirAll(cwd, 0o755); err != nil {
			t.Fatal(err)
		}
		smp.copyTo(t, cwd)
		f, err := h5bench.Load(filepath.Join(cwd, smp.name))
		if err != nil {
			t.Fatal(err)
		}
		if out = f.Directory; !filepath.IsAbs(out) {
			out = filepath.Join(cwd, out)
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		return out, cwd
	}
	if _, err := os.Stat(filepath.Join(sdir, smp.name)); err != nil {
		smp.copyTo(t, sdir)
	}
	return filepath.Join(sdir, run), sdir
}

// copyTo copies the sample's file into dir.
func (smp connectorSample) copyTo(t *testing.T, dir string) {
	t.Helper()
	if smp.src == "" {
		copySample(t, dir, smp.name)
		return
	}
	data, err := os.ReadFile(filepath.Join("..", "..", smp.src, smp.name))
	if err == nil {
		text := string(data)
		for i := 0; i+1 < len(smp.subst); i += 2 {
			text = strings.ReplaceAll(text, smp.subst[i], smp.subst[i+1])
		}
		err = os.WriteFile(filepath.Join(dir, smp.name), []byte(text), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// args are `h5proxy run`'s arguments for one run into out: 2 ranks (a sample's own 8
// are more than this test needs), no compute, verified reads; -dir out unless the sample
// runs in place.
func (smp connectorSample) args(out string, sets []string) []string {
	args := []string{"run", "-np", "2", "-quiet", "-set", "stall_timeout=150s"}
	if !smp.inPlace {
		args = append(args, "-dir", out)
	}
	for _, s := range sets {
		args = append(args, "-set", s)
	}
	return append(args, smp.name)
}

// volLib returns the directory of the connectors scripts/vol-connectors.sh built into
// H5PROXY_VOL_PREFIX (default /opt/h5proxy/vol-1.14.5), or skips t naming what is
// missing: no connector comes from the project's package registries.
func volLib(t *testing.T) string {
	t.Helper()
	if v := proxy.HDF5Version(); !strings.HasPrefix(v, "1.14") {
		t.Skipf("needs the VOL connectors, built against HDF5 1.14: this build loads HDF5 %s (run with HDF5=1.14)", v)
	}
	prefix := os.Getenv("H5PROXY_VOL_PREFIX")
	if prefix == "" {
		prefix = "/opt/h5proxy/vol-1.14.5"
	}
	dir := filepath.Join(prefix, "lib")
	for _, lib := range []string{"libh5async.so", "libh5cache_vol.so", "libH5VL_log.so"} {
		if _, err := os.Stat(filepath.Join(dir, lib)); err != nil {
			t.Skipf("needs the VOL connectors (%s) in %s: build them with `make vol-connectors` (VOL_PREFIX=%s), or set H5PROXY_VOL_PREFIX: %v", lib, dir, prefix, err)
		}
	}
	return dir
}

// h5Files lists the HDF5 files under dir, relative to it.
func h5Files(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if f, err := os.Open(p); err == nil {
			sig := make([]byte, 8)
			_, _ = f.Read(sig)
			f.Close()
			if string(sig) == "\x89HDF\r\n\x1a\n" {
				rel, _ := filepath.Rel(dir, p)
				files = append(files, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// compareFiles compares the native run's files with the run's in out and says how they
// differ ("" when equal): h5diff -r, or for the log-based VOL's format h5dump of every
// dataset read through the connector against h5dump of the native file, with the
// header lines naming the file masked.
func compareFiles(t *testing.T, lib, native, out string, files []string, log bool, clock ...string) string {
	t.Helper()
	var diffs []string
	if got := h5Files(t, out); !slices.Equal(got, files) {
		diffs = append(diffs, fmt.Sprintf("files %q, the native run's %q", got, files))
	}
	for _, f := range files {
		a, b := filepath.Join(native, f), filepath.Join(out, f)
		if !log {
			if o, err := exec.Command("h5diff", "-r", a, b).CombinedOutput(); err != nil && !h5diff.OnlyAttributesDiffer(string(o), clock) {
				diffs = append(diffs, fmt.Sprintf("h5diff -r %s: %v\n%s", f, err, o))
			}
			continue
		}
		want, err := dumpData(a, nil)
		if err != nil {
			diffs = append(diffs, fmt.Sprintf("h5dump %s (native): %v", a, err))
			continue
		}
		got, err := dumpData(b, []string{"HDF5_PLUGIN_PATH=" + lib, "HDF5_VOL_CONNECTOR=LOG under_vol=0;under_info={}"})
		if err != nil {
			diffs = append(diffs, fmt.Sprintf("h5dump %s through the log-based VOL: %v", b, err))
			continue
		}
		if len(clock) > 0 { // the clock attributes' times, as h5dump prints them
			want, got = stamp.ReplaceAll(want, []byte(`"TIME"`)), stamp.ReplaceAll(got, []byte(`"TIME"`))
		}
		if !bytes.Equal(want, got) {
			diffs = append(diffs, fmt.Sprintf("%s: the values read back through the log-based VOL differ from the native file's:\n%s", f, firstDiff(want, got)))
		}
	}
	return strings.Join(diffs, "\n")
}

// h5dump114 is the h5dump of the HDF5 1.14 the connectors are built against (it loads a
// connector from HDF5_VOL_CONNECTOR); the system's h5dump (1.10) has no VOL layer.
func h5dump114() string {
	if p := os.Getenv("H5PROXY_H5DUMP"); p != "" {
		return p
	}
	if p := os.Getenv("HDF5_114_PREFIX"); p != "" { // exported by the Makefile's 1.14 env
		return filepath.Join(p, "bin", "h5dump")
	}
	return "/opt/h5proxy/hdf5-1.14.5/bin/h5dump"
}

// stamp is a time as openPMD-api writes its date attribute (strftime "%F %T %z").
var stamp = regexp.MustCompile(`"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}"`)

var fileLine = regexp.MustCompile(`(?m)^HDF5 ".*" \{$`)

// dumpData is h5dump's text of every dataset's values and every attribute in file,
// through the connector env names, with the file's name masked.
func dumpData(file string, env []string) ([]byte, error) {
	cmd := exec.Command(h5dump114(), file)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, stderr.String())
	}
	return fileLine.ReplaceAll(out, []byte(`HDF5 "FILE" {`)), nil
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: native %q, through the connector %q", i+1, x, y)
		}
	}
	return ""
}
