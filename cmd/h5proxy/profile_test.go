package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
	"github.com/h5proxy/h5proxy/internal/profile/preloadtest"
)

// builtProfiler is the profiler the package's tests run: built once, by the first test
// that needs it, into a directory of its own in TestMain's (not beside the command, where
// `h5proxy profile` would find it without being told).
var builtProfiler struct {
	once sync.Once
	path string
	err  error
}

// buildProfileLib returns libh5proxy-profile.so compiled as `make build` compiles it
// (preloadtest.Build: the same sources and flags), built once for the package. The tests
// only load it (LD_PRELOAD, -lib, H5PROXY_PROFILE_LIB); 22 of them built their own copy,
// one cc of the 7 sources each, 4.4-5.3 s of CPU (`cc $(PROFILE_CFLAGS) ... preload/profile-*.c`,
// 3 runs, load 8). Eight of those tests (TestProfileAndDiff, TestRunProfileYes,
// TestIORFileView, TestIORCallsAsIOR, TestAppFileFamilies, TestCaptureAndProfileBadPrograms,
// TestOpenPMDProfileOpens, TestRunDescriptionThread) took 47-71 s of package time with a
// build each, 22-23 s with this (3 runs each, interleaved, load 3-4, 2026-11-30).
func buildProfileLib(t *testing.T) string {
	t.Helper()
	builtProfiler.once.Do(func() {
		dir := filepath.Join(filepath.Dir(binary), "profiler")
		if builtProfiler.err = os.Mkdir(dir, 0o755); builtProfiler.err != nil {
			return
		}
		builtProfiler.path = filepath.Join(dir, "libh5proxy-profile.so")
		builtProfiler.err = preloadtest.Build(builtProfiler.path)
	})
	if builtProfiler.err != nil {
		t.Fatal(builtProfiler.err)
	}
	return builtProfiler.path
}

// TestProfileAndDiff profiles a shell command that writes a file (no MPI, no HDF5), then
// diffs the profile with itself (identical, exit 0) and with one of a longer write
// (differs, exit 1, the counter named).
func TestProfileAndDiff(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t)
	a := h5proxy(t, dir, "profile", "-lib", lib, "-o", "a.json", "--", "sh", "-c", "printf 0123456789 > out.txt")
	if a.code != 0 {
		t.Fatal(a)
	}
	for _, want := range []string{"POSIX_WRITES            1", "MPIIO: no records", "out.txt", "Wrote a.json, a.csv, a-sizes.png"} {
		if !strings.Contains(a.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, a.stdout)
		}
	}
	var p struct {
		SchemaVersion int `json:"schema_version"`
		Records       []struct {
			Module   string           `json:"module"`
			File     string           `json:"file"`
			Counters map[string]int64 `json:"counters"`
		} `json:"records"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &p); err != nil || p.SchemaVersion != 1 {
		t.Fatalf("a.json: %v, %+v", err, p)
	}
	found := false
	for _, r := range p.Records {
		if filepath.Base(r.File) != "out.txt" {
			continue
		}
		found = true
		// the shell opens out.txt and dup2s it onto its standard output: two opens, one dup
		if c := r.Counters; c["POSIX_BYTES_WRITTEN"] != 10 || c["POSIX_SIZE_WRITE_0_100"] != 1 || c["POSIX_OPENS"] != 2 || c["POSIX_DUPS"] != 1 {
			t.Errorf("out.txt's counters %v", c)
		}
	}
	if !found {
		t.Errorf("no record of out.txt in %+v", p.Records)
	}
	same := h5proxy(t, dir, "profile", "diff", "a.json", "a.json")
	if same.code != 0 || !strings.Contains(same.stdout, "identical:") {
		t.Errorf("diff of a profile with itself:\n%v", same)
	}
	// the same write under another file name: equal once renamed
	cc := h5proxy(t, dir, "profile", "-lib", lib, "-noplot", "-o", "c.json", "--", "sh", "-c", "printf 0123456789 > other.txt")
	if cc.code != 0 {
		t.Fatal(cc)
	}
	if r := h5proxy(t, dir, "profile", "diff", "a.json", "c.json"); r.code != 1 || !strings.Contains(r.stdout, "only in A: POSIX out.txt") {
		t.Errorf("two files of different names:\n%v", r)
	}
	if r := h5proxy(t, dir, "profile", "diff", "-rename", "out=other", "a.json", "c.json"); r.code != 0 {
		t.Errorf("-rename out=other:\n%v", r)
	}
	bb := h5proxy(t, dir, "profile", "-lib", lib, "-noplot", "-o", "b.json", "--", "sh", "-c", "printf 0123456789abcdef > out.txt")
	if bb.code != 0 {
		t.Fatal(bb)
	}
	// a profile without -trace cannot be folded into a description
	if c := h5proxy(t, dir, "capture", "-o", "a.yaml", "-from", "a.json"); c.code != 1 || !strings.Contains(c.stderr, "capture needs a traced profile") {
		t.Errorf("capture of an untraced profile:\n%v", c)
	}
	d := h5proxy(t, dir, "profile", "diff", "a.json", "b.json")
	if d.code != 1 || !strings.Contains(d.stdout, "≠ POSIX_BYTES_WRITTEN") || !strings.Contains(d.stdout, "differs in 3 counters") {
		t.Errorf("diff of two writes of different sizes (want exit 1; POSIX_BYTES_WRITTEN, _MAX_BYTE_WRITTEN and _ACCESS1_ACCESS differ):\n%v", d)
	}
}

func TestProfileBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"profile", "-lib", "/nonexistent.so", "--", "true"}, 1, "-lib /nonexistent.so: no such file"},
		{[]string{"profile", "-o", "/nonexistent/p.json", "--", "true"}, 2, "-o /nonexistent/p.json: directory /nonexistent does not exist"},
		{[]string{"profile", "-o", "p.txt", "--", "true"}, 2, "-o p.txt: the profile is JSON"},
		{[]string{"profile"}, 2, "no PROGRAM"},
		{[]string{"profile", "diff", "a.json"}, 2, "need two profiles"},
		{[]string{"profile", "diff", "/nonexistent-a.json", "/nonexistent-b.json"}, 2, "nonexistent-a.json"},
		{[]string{"compare", "-reps", "3", "--", "true"}, 2, "need REAL ARGS... -- PROXY-CONFIG"},
		{[]string{"capture", "--", "true"}, 2, "name the description APP.yaml"},
		{[]string{"capture", "-o", "a.yaml"}, 2, "give either -- PROGRAM ARGS... or -from P.json"},
		{[]string{"capture", "-o", "a.yaml", "-from", "/nonexistent.json"}, 2, "/nonexistent.json"},
	} {
		r := h5proxy(t, dir, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("want exit %d and %q:\n%v", c.code, c.want, r)
		}
	}
}

// TestRunProfileYes runs h5proxy with profile=yes: the launcher runs the ranks under the
// library and writes h5proxy-profile.json with the HDF5, MPI-IO and POSIX levels of the
// run's own file; each phase's report carries the counters made during it (the write
// phase's writes, the read phase's reads), which add up to the run's.
func TestRunProfileYes(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t)
	cfg := filepath.Join(dir, "vpic.json")
	report := filepath.Join(dir, "report.json")
	conf := `{"pattern": "vpic", "phases": ["write", "read"], "session": {"file": "` + filepath.Join(dir, "out", "v.h5") + `", "profile": "yes", "report_file": "` + report + `"},
 "options": {"NUM_DIMS": 1, "DIM_1": 1024, "TIMESTEPS": 1, "COLLECTIVE_DATA": "YES"}}`
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	r := h5proxyEnv(t, dir, []string{"H5PROXY_PROFILE_LIB=" + lib}, "run", "-np", "2", cfg)
	if r.code != 0 || !strings.Contains(r.stdout, "h5proxy-profile.json") {
		t.Fatal(r)
	}
	// and as a Darshan log beside it, that diffs identical with it
	if d := h5proxy(t, dir, "profile", "diff", "out/h5proxy-profile.json", "out/h5proxy-profile.darshan"); d.code != 0 {
		t.Errorf("h5proxy-profile.darshan against the JSON: %+v", d)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "h5proxy-profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Ranks   int `json:"ranks"`
		Records []struct {
			Module   string           `json:"module"`
			File     string           `json:"file"`
			Name     string           `json:"name"`
			Counters map[string]int64 `json:"counters"`
		} `json:"records"`
	}
	if err := json.Unmarshal(b, &p); err != nil || p.Ranks != 2 {
		t.Fatalf("profile: %v, %d ranks", err, p.Ranks)
	}
	seen := map[string]int64{}
	for _, rec := range p.Records {
		if filepath.Base(rec.File) != "v.h5" {
			continue
		}
		switch rec.Module {
		case "H5D":
			seen["H5D "+rec.Name] = rec.Counters["H5D_WRITES"]
		case "MPIIO":
			seen["MPIIO"] = rec.Counters["MPIIO_COLL_WRITES"]
		case "POSIX":
			seen["POSIX"] = rec.Counters["POSIX_BYTES_WRITTEN"]
		}
	}
	// 8 variables, one collective write each per rank; 1024 particles x 4 B per rank each
	if seen["H5D /Timestep_0/x"] != 2 || seen["MPIIO"] < 16 || seen["POSIX"] < 2*8*1024*4 {
		t.Errorf("records of v.h5: %v", seen)
	}

	// Per phase: the report's phases carry their own counters.
	var rep struct {
		Phases []struct {
			Phase   string           `json:"phase"`
			Profile map[string]int64 `json:"profile"`
		} `json:"phases"`
	}
	if b, err = os.ReadFile(report); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Phases) != 2 {
		t.Fatalf("report: %v, %d phases", err, len(rep.Phases))
	}
	w, rd := rep.Phases[0].Profile, rep.Phases[1].Profile
	const bytes = 2 * 8 * 1024 * 4
	if w["H5D_WRITES"] != 16 || w["H5D_BYTES_WRITTEN"] != bytes || w["H5D_READS"] != 0 || w["MPIIO_COLL_WRITES"] < 16 || w["POSIX_BYTES_WRITTEN"] < bytes || w["H5F_OPENS"] != 2 {
		t.Errorf("write phase's profile: %v", w)
	}
	if rd["H5D_READS"] != 16 || rd["H5D_BYTES_READ"] != bytes || rd["H5D_WRITES"] != 0 || rd["POSIX_BYTES_READ"] < bytes || rd["H5F_OPENS"] != 2 {
		t.Errorf("read phase's profile: %v", rd)
	}
	var total int64
	for _, rec := range p.Records {
		if rec.Module == "H5D" {
			total += rec.Counters["H5D_WRITES"] + rec.Counters["H5D_READS"]
		}
	}
	if total != w["H5D_WRITES"]+rd["H5D_READS"] {
		t.Errorf("the run's H5D transfers %d, the phases' %d + %d", total, w["H5D_WRITES"], rd["H5D_READS"])
	}
	if !strings.Contains(r.stdout, "Profile H5D (all ranks): writes 16, bytes written 65536, opens 16") {
		t.Errorf("the write phase's summary lacks its profile line:\n%s", r.stdout)
	}
}

func TestCompareVerdict(t *testing.T) {
	aa := []float64{0.9, 1.0, 1.1, 1.05}
	if v := compareVerdict(aa, []float64{1.0, 0.95, 1.08, 1.02}); !strings.Contains(v, "indistinguishable at this machine's noise") {
		t.Errorf("a median ratio inside the A/A band: %s", v)
	}
	v := compareVerdict(aa, []float64{1.3, 1.4, 1.5})
	if !strings.Contains(v, "proxy/real = 1.400 (range 1.300-1.500 over 3 reps)") || !strings.Contains(v, "A/A band 0.900-1.100") {
		t.Errorf("a median ratio outside the A/A band: %s", v)
	}
}

// TestCaptureAndProfileBadPrograms: a program that never touches HDF5 gets no description
// and capture says why (writing nothing); one that dies mid-run keeps its records up to
// then, marked partial, and profile exits 1.
func TestCaptureAndProfileBadPrograms(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t)
	r := h5proxy(t, dir, "capture", "-lib", lib, "-o", "a.yaml", "--", "dd", "if=/dev/zero", "of=x.bin", "bs=1k", "count=4")
	if r.code != 1 || !strings.Contains(r.stderr, "no description: the program made no HDF5 dataset writes or reads") {
		t.Errorf("capture of dd: %v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.yaml")); !os.IsNotExist(err) {
		t.Errorf("capture of dd wrote a description: %v", err)
	}
	r = h5proxy(t, dir, "profile", "-lib", lib, "-noplot", "-o", "crash.json", "--", "sh", "-c", "dd if=/dev/zero of=y.bin bs=1k count=4 2>/dev/null; kill -SEGV $$")
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "PARTIAL: rank 0: SIGSEGV") || !strings.Contains(r.stderr, "marked partial") {
		t.Fatalf("profile of a crash: %v", r)
	}
	p, err := profile.Load(filepath.Join(dir, "crash.json"))
	if err != nil {
		t.Fatal(err)
	}
	var written int64
	for _, rec := range p.Records {
		if rec.Module == "POSIX" && strings.HasSuffix(rec.File, "y.bin") {
			written += rec.Counters["POSIX_BYTES_WRITTEN"]
		}
	}
	if !p.Partial || written != 4096 {
		t.Errorf("crash profile: partial %v, y.bin bytes written %d (want true, 4096: the records up to the crash)", p.Partial, written)
	}
}

// TestOpenPMDProfileOpens profiles the openpmd pattern (8a's group-based write, 2 ranks,
// 2 iterations) and pins each dataset's H5D_OPENS to openPMD-api's call sequence
// (src/IO/HDF5/HDF5IOHandler.cpp): createDataset makes one H5Dcreate per rank,
// writeDataset one H5Dopen per storeChunk (one per rank here: rankBlocks), and
// writeAttribute opens the object with H5Oopen, which Darshan's H5D module (and the
// profiler) do not count; so 4 on every dataset, whatever its number of attributes
// (rho has 10, charge 3). H5D_WRITES: one per rank.
func TestOpenPMDProfileOpens(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t)
	cfg := filepath.Join(dir, "openpmd.json")
	conf := `{"pattern": "openpmd", "phases": ["write"], "session": {"file": "` + filepath.Join(dir, "out", "8a_parallel_3Db.h5") + `", "profile": "yes"},
 "options": {"dim": 3, "minBlock": "8 8 8", "grid": "2 2 2", "steps": 2, "encoding": "g"}}`
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	r := h5proxyEnv(t, dir, []string{"H5PROXY_PROFILE_LIB=" + lib}, "run", "-quiet", "-np", "2", cfg)
	if r.code != 0 {
		t.Fatal(r)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "h5proxy-profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Records []struct {
			Module   string           `json:"module"`
			File     string           `json:"file"`
			Name     string           `json:"name"`
			Rank     int              `json:"rank"`
			Counters map[string]int64 `json:"counters"`
		} `json:"records"`
		Calls map[string]struct {
			N int64 `json:"n"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, rec := range p.Records {
		if rec.Module != "H5D" || filepath.Base(rec.File) != "8a_parallel_3Db.h5" {
			continue
		}
		names = append(names, rec.Name)
		if c := rec.Counters; rec.Rank != -1 || c["H5D_OPENS"] != 4 || c["H5D_WRITES"] != 2 {
			t.Errorf("%s rank %d: H5D_OPENS %d, H5D_WRITES %d, want a shared record with 4 and 2", rec.Name, rec.Rank, c["H5D_OPENS"], c["H5D_WRITES"])
		}
	}
	// per iteration B/x..z, E/x..z, rho, charge, id, position/x
	if len(names) != 2*10 {
		t.Errorf("%d dataset records, want 20: %v", len(names), names)
	}
	// 2 ranks x 2 iterations x 10 datasets: a create and an H5Dopen for the storeChunk each
	if n := p.Calls["H5Dopen2"].N; n != 40 {
		t.Errorf("H5Dopen2 calls %d, want 40 (the attribute writes open objects with H5Oopen)", n)
	}
}
