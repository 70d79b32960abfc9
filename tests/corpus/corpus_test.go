// Package corpus is issue 33's acceptance harness: real writers (the programs beside this
// file, each reproducing a real code's HDF5 I/O) captured, replayed, derived and compared
// at 1, 2 and 4 ranks.
//
// For every program and rank count it records a verdict per check: "pass", or the first
// difference in one line. The test then asserts that every verdict equals the one recorded
// in expect.txt, so a regression fails and an improvement must be recorded (`go test
// ./tests/corpus -run TestCorpus -update` rewrites expect.txt and the "real writers" table
// of docs/apps.md). A description that capture or derive writes and `h5proxy check`
// refuses is a verdict like any other: it passes only where expect.txt names that refusal.
package corpus

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/internal/profile"
	"github.com/h5proxy/h5proxy/internal/profile/preloadtest"
)

var update = flag.Bool("update", false, "record the verdicts in expect.txt and the real writers table in docs/apps.md (with -only, those programs' lines)")

// bin is the directory of the h5proxy command and the profiler built for the run; srcDir
// examples/corpus, the programs' sources.
var bin, srcDir string

// replayHDF5 is the HDF5 version of the h5proxy under test (buildHDF5).
var replayHDF5 string

var only = flag.String("only", "", "run these programs alone (comma-separated), comparing their verdicts only")

// TestMain builds bin/h5proxy and libh5proxy-profile.so (beside it, where `h5proxy run
// ... profile=yes` looks for it) with the environment of the test run (make env).
func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "h5proxy-corpus-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	if srcDir, err = filepath.Abs("../../examples/corpus"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "h5proxy"), "../../cmd/h5proxy").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build ../../cmd/h5proxy: %v\n%s", err, out)
		os.Exit(1)
	}
	if err := preloadtest.Build(filepath.Join(dir, "libh5proxy-profile.so")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	replayHDF5 = buildHDF5()
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func pkgFlags(args ...string) []string {
	out, _ := exec.Command("pkg-config", args...).Output()
	return strings.Fields(string(out))
}

// systemHDF5 is Debian's parallel HDF5 1.10 (libhdf5-openmpi-dev), which libnetcdf-mpi,
// PETSc and h5py's MPI build link: their programs load it whichever HDF5 h5proxy is built
// against (HDF5=1.14), so their traces are taken by a profiler built on its headers.
const systemHDF5 = "/usr/include/hdf5/openmpi"

// program is one real writer of the corpus.
type program struct {
	name string
	what string   // what it exercises, for the table
	pkgs []string // the Debian packages it needs (scripts/deps-corpus.sh)
	// system: linked against Debian's HDF5 1.10 through a library, whatever the build
	system bool
	netcdf bool // a netCDF-4 file: its replay is read back through ncdump -h
	build  func(t *testing.T, dir string) (argv, env []string)
}

func multiarch() string {
	out, _ := exec.Command("gcc", "-print-multiarch").Output()
	return strings.TrimSpace(string(out))
}

func mpicc(t *testing.T, dir, name string, flags ...string) string {
	t.Helper()
	exe := filepath.Join(dir, name)
	args := append([]string{"-O2", "-Wall", "-Werror", "-o", exe, filepath.Join(srcDir, name+".c")}, flags...)
	if out, err := exec.Command("mpicc", args...).CombinedOutput(); err != nil {
		t.Fatalf("mpicc %s: %v\n%s", name, err, out)
	}
	return exe
}

// withHL links HDF5's high-level library (dimension scales) of the build's HDF5.
func withHL(libs []string) []string {
	var out []string
	for _, l := range libs {
		if l == "-lhdf5" {
			out = append(out, "-lhdf5_hl")
		}
		out = append(out, l)
	}
	return out
}

var programs = []program{
	{name: "netcdf_par", what: "netCDF-4 in parallel (PIO's NETCDF4P): unlimited and fixed dimensions, attributes, collective and independent variable access",
		pkgs: []string{"libnetcdf-mpi-dev", "netcdf-bin"}, system: true, netcdf: true,
		build: func(t *testing.T, dir string) ([]string, []string) {
			inc := "/usr/lib/" + multiarch() + "/netcdf/mpi/include"
			return []string{mpicc(t, dir, "netcdf_par", append([]string{"-I" + inc}, pkgFlags("--libs", "netcdf-mpi")...)...)}, nil
		}},
	{name: "h5py_series", what: "h5py with MPI: driver='mpio', a resizable dataset appended per step",
		pkgs: []string{"python3-h5py-mpi", "python3-mpi4py"}, system: true,
		build: func(t *testing.T, dir string) ([]string, []string) {
			// Python loads mpi4py's and h5py's modules, and with them libmpi and libhdf5,
			// RTLD_LOCAL: the profiler finds MPI's and HDF5's functions in those modules'
			// scope (preload/profile-core.c's sym), with nothing preloaded beside it.
			return []string{"/usr/bin/python3", filepath.Join(srcDir, "h5py_series.py")}, []string{"H5PY_ALWAYS_USE_MPI=1"}
		}},
	{name: "petsc_vec", what: "PETSc's HDF5 viewer: a distributed Vec per time step (timestepping)",
		pkgs: []string{"libpetsc-real-dev"}, system: true,
		build: func(t *testing.T, dir string) ([]string, []string) {
			return []string{mpicc(t, dir, "petsc_vec", append([]string{"-I" + systemHDF5}, pkgFlags("--cflags", "--libs", "petsc")...)...)}, nil
		}},
	{name: "h5md_lammps", what: "H5MD as LAMMPS/ch5md: rank 0 alone, serial driver, hard-linked step/time, groups held, one row per dump",
		build: func(t *testing.T, dir string) ([]string, []string) {
			return []string{mpicc(t, dir, "h5md_lammps", pkgFlags("--cflags", "--libs", "hdf5-openmpi")...)}, nil
		}},
	{name: "flash_amr", what: "FLASH's checkpoints and plot files: compound tables out of declaration order, hints, two families and a forced plot file, rank 0's tables between collective writes",
		build: func(t *testing.T, dir string) ([]string, []string) {
			return []string{mpicc(t, dir, "flash_amr", pkgFlags("--cflags", "--libs", "hdf5-openmpi")...)}, nil
		}},
	{name: "features", what: "every issue-33 feature: links, references, dimension scales, enum/array/opaque, explicit offsets, vlen strings, creation order, compact and virtual layouts, a serial writer, held handles, two families, hints",
		build: func(t *testing.T, dir string) ([]string, []string) {
			return []string{mpicc(t, dir, "features", append(pkgFlags("--cflags", "hdf5-openmpi"), withHL(pkgFlags("--libs", "hdf5-openmpi"))...)...)}, nil
		}},
}

// checks are the verdicts recorded per program and rank count, in order.
var checks = []string{"program", "one-hdf5", "capture", "check", "np-default", "run", "files", "h5dump", "profile-h5", "profile-io", "ncdump",
	"derive", "derive-check", "derive-run", "derive-files", "derive-h5dump", "derive-ncdump"}

// missingPackages lists the packages of p not installed.
func missingPackages(p program) []string {
	var miss []string
	for _, pkg := range p.pkgs {
		out, _ := exec.Command("dpkg-query", "-W", "-f=${Status}", pkg).Output()
		if !strings.Contains(string(out), "install ok installed") {
			miss = append(miss, pkg)
		}
	}
	return miss
}

// result is one command's outcome.
type result struct {
	code           int
	stdout, stderr string
}

// firstLine is the first line of an error output that says something (h5proxy's own
// message, not a launcher's banner), shortened to one line of the expectations file.
func firstLine(s string) string {
	lines := strings.Split(s, "\n")
	for _, l := range lines { // h5proxy's own message first, then a signal the launcher saw
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "h5proxy") && !strings.Contains(l, "launching") {
			return clip(l)
		}
	}
	for _, l := range lines {
		if strings.Contains(l, "exited on signal") {
			return clip(strings.TrimSpace(l))
		}
	}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "----") || strings.HasPrefix(l, "[") {
			continue
		}
		return clip(l)
	}
	return "(no message)"
}

var tmpRe = regexp.MustCompile(`/tmp/[^ :"']*`)

var pidRe = regexp.MustCompile(`PID \d+`)

// lineRe matches a description's file:line:col in an error: the line moves with comments
// capture writes from timings (compute), so verdicts keep the key, not the line.
var lineRe = regexp.MustCompile(`TMP:\d+:\d+`)

// clip masks temporary directories and keeps a verdict on one short line.
func clip(s string) string {
	s = pidRe.ReplaceAllString(tmpRe.ReplaceAllString(s, "TMP"), "PID *")
	s = lineRe.ReplaceAllString(s, "TMP:L:C")
	s = strings.ReplaceAll(s, "\t", " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// run runs a command in dir with env added, stopping its process group after timeout.
func run(dir string, env []string, timeout time.Duration, argv ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(userEnv(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if err != nil {
		code = -1
		if x, ok := err.(*exec.ExitError); ok {
			code = x.ExitCode()
		}
		if ctx.Err() != nil {
			e.WriteString("timed out after " + timeout.String())
		}
	}
	return result{code, o.String(), e.String()}
}

// userEnv is the environment outside any MPI launcher.
func userEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "H5PROXY_MPIEXEC" || strings.HasPrefix(k, "OMPI_COMM_WORLD") || strings.HasPrefix(k, "PMIX_") || strings.HasPrefix(k, "PMI_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func h5proxy(dir string, args ...string) result {
	return run(dir, nil, 3*time.Minute, append([]string{filepath.Join(bin, "h5proxy")}, args...)...)
}

// hdf5Files lists the HDF5 files (by their signature) directly in dir, by base name.
func hdf5Files(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		sig := make([]byte, 8)
		n, _ := f.Read(sig)
		f.Close()
		if n == 8 && string(sig) == "\x89HDF\r\n\x1a\n" {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

var offsetRe = regexp.MustCompile(`OFFSET \d+`)

// dump is a file's `h5dump -pH` without its first line, the storage addresses masked.
func dump(path string) (string, error) {
	out, err := exec.Command("h5dump", "-pH", path).Output()
	if err != nil {
		return "", fmt.Errorf("h5dump -pH %s: %v", filepath.Base(path), err)
	}
	_, rest, _ := strings.Cut(string(out), "\n")
	return offsetRe.ReplaceAllString(rest, "OFFSET *"), nil
}

// firstDiff names the first line where a and b part.
func firstDiff(a, b string) string {
	return diffLines(a, b, func(x, y string) bool { return x == y })
}

// diffLines names the first pair of lines of a and b (trimmed; "" past an end) that ok
// refuses ("" when none). ok sees every pair, in order.
func diffLines(a, b string, ok func(x, y string) bool) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = strings.TrimSpace(la[i])
		}
		if i < len(lb) {
			y = strings.TrimSpace(lb[i])
		}
		if !ok(x, y) {
			return fmt.Sprintf("line %d: %q against %q", i+1, x, y)
		}
	}
	return ""
}

// compareFiles compares the HDF5 files of two directories: the set, then each common
// file under h5dump -pH (addresses masked). It returns the two verdicts. v names the HDF5
// releases that wrote a's files and b's: when they are libraryPair, the REFERENCE_LIST
// dimension's signedness is allowed to differ (versions_test.go) and the verdict says so.
func compareFiles(a, b string, v versionPair) (files, h5dump string) {
	fa, fb := hdf5Files(a), hdf5Files(b)
	files = "pass"
	if !slices.Equal(fa, fb) {
		files = clip(fmt.Sprintf("program wrote %d %v, replay %d %v", len(fa), fa, len(fb), fb))
	}
	h5dump = "pass"
	n, unsigned := 0, false
	for _, f := range fa {
		if !slices.Contains(fb, f) {
			continue
		}
		n++
		da, err := dump(filepath.Join(a, f))
		if err != nil {
			return files, clip(err.Error())
		}
		db, err := dump(filepath.Join(b, f))
		if err != nil {
			return files, clip(err.Error())
		}
		d, took := dumpDiff(da, db, v)
		unsigned = unsigned || took
		if d != "" {
			return files, clip(f + ": " + d)
		}
	}
	if n == 0 {
		h5dump = "no file in common"
	} else if unsigned {
		h5dump = v.note(dimNote)
	}
	return files, h5dump
}

// profileVerdicts diffs the program's profile and the replay's: the H5F and H5D levels,
// and the POSIX and MPI-IO levels of the HDF5 files (names: the program's files). When
// the profiles' HDF5 releases are libraryPair, 1.14's hints at every view are allowed
// (versions_test.go) and the verdict says so.
func profileVerdicts(refPath, replayPath string, names []string) (h5, io string) {
	pa, err := profile.Load(refPath)
	if err != nil {
		return clip(err.Error()), clip(err.Error())
	}
	pb, err := profile.Load(replayPath)
	if err != nil {
		return clip(err.Error()), clip(err.Error())
	}
	d := profile.Compare(pa, pb)
	differ, hints := d.Differ, false
	v, lib := libraryDiffers(pa.HDF5Version, pb.HDF5Version)
	if lib {
		differ, hints = hintsAtViews(differ, pb)
	}
	var h5d, iod []string
	for _, c := range differ {
		rec := c.Module + " " + filepath.Base(c.File)
		if c.Name != "" {
			rec += ":" + c.Name
		}
		line := fmt.Sprintf("%s %s %d against %d", rec, c.Counter, c.A, c.B)
		switch {
		case c.Module == "H5F" || c.Module == "H5D":
			h5d = append(h5d, line)
		case slices.Contains(names, filepath.Base(c.File)):
			iod = append(iod, line)
		}
	}
	for _, r := range append(slices.Clone(d.OnlyA), d.OnlyB...) {
		line := "only in one profile: " + r
		switch {
		case strings.HasPrefix(r, "H5F") || strings.HasPrefix(r, "H5D"):
			h5d = append(h5d, line)
		default:
			for _, n := range names {
				if strings.Contains(r, n) {
					iod = append(iod, line)
					break
				}
			}
		}
	}
	verdict := func(ds []string) string {
		if len(ds) == 0 {
			return "pass"
		}
		sort.Strings(ds)
		return clip(fmt.Sprintf("%d differ, first %s", len(ds), ds[0]))
	}
	h5, io = verdict(h5d), verdict(iod)
	if io == "pass" && hints {
		io = v.note(hintsNote)
	}
	return h5, io
}

// ncdumpVerdict compares `ncdump -h` of the netCDF files of the two directories.
func ncdumpVerdict(a, b string) string {
	if _, err := exec.LookPath("ncdump"); err != nil {
		return "ncdump absent (netcdf-bin: make deps-corpus)"
	}
	for _, f := range hdf5Files(a) {
		oa, err := exec.Command("ncdump", "-h", filepath.Join(a, f)).CombinedOutput()
		if err != nil {
			return clip("ncdump -h of the program's " + f + ": " + firstLine(string(oa)))
		}
		ob, err := exec.Command("ncdump", "-h", filepath.Join(b, f)).CombinedOutput()
		if err != nil {
			return clip("ncdump -h of the replay's " + f + ": " + firstLine(string(ob)))
		}
		if d := firstDiff(string(oa), string(ob)); d != "" {
			return clip(f + ": " + d)
		}
	}
	return "pass"
}

// oneHDF5 checks that the program (or, for Python, h5py's MPI module) loads one libhdf5.
func oneHDF5(argv []string) string {
	target := argv[0]
	if strings.Contains(strings.Join(argv, " "), "python3") {
		if target = h5pyMPIModule(); target == "" {
			return "h5py's MPI module not found"
		}
	}
	out, err := exec.Command("ldd", target).Output()
	if err != nil {
		return clip("ldd: " + err.Error())
	}
	libs := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && regexp.MustCompile(`^libhdf5(_openmpi)?\.so`).MatchString(f[0]) {
			libs[f[0]] = true
		}
	}
	if len(libs) != 1 {
		return clip(fmt.Sprintf("loads %d libhdf5: %v", len(libs), libs))
	}
	return "pass"
}

// h5pyMPIModule is a shared object of Debian's h5py MPI build ("" when absent).
func h5pyMPIModule() string {
	m, _ := filepath.Glob("/usr/lib/python3/dist-packages/h5py/_debian_h5py_mpi/defs*.so")
	if len(m) == 0 {
		return ""
	}
	return m[0]
}

// accept runs one program at np ranks through every check and returns the verdicts.
func accept(t *testing.T, p program, argv, env []string, lib string, np int) map[string]string {
	v := map[string]string{}
	for _, c := range checks {
		v[c] = "not run"
	}
	if !p.netcdf {
		v["ncdump"], v["derive-ncdump"] = "not netCDF", "not netCDF"
	}
	v["one-hdf5"] = oneHDF5(argv)
	dir := filepath.Join(t.TempDir(), fmt.Sprintf("%s-%d", p.name, np))
	ref, replay, derived := filepath.Join(dir, "ref"), filepath.Join(dir, "replay"), filepath.Join(dir, "derived")
	for _, d := range []string{ref, replay, derived} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	nps := strconv.Itoa(np)
	refJSON := filepath.Join(dir, "ref.json")
	args := append([]string{filepath.Join(bin, "h5proxy"), "profile", "-lib", lib, "-np", nps, "-trace", "-noplot", "-o", refJSON, "--"}, argv...)
	if r := run(ref, env, 3*time.Minute, args...); r.code != 0 {
		v["program"] = clip(fmt.Sprintf("exit %d: %s", r.code, firstLine(r.stderr)))
		return v
	}
	v["program"] = "pass"
	names := hdf5Files(ref)
	// The HDF5 releases of the program (its profile) and of h5proxy, which writes the
	// replay's and the derived run's files.
	var versions versionPair
	if pa, err := profile.Load(refJSON); err == nil {
		versions = versionPair{release(pa.HDF5Version), release(replayHDF5)}
	}

	app := filepath.Join(dir, "app.yaml")
	if r := h5proxy(dir, "capture", "-from", refJSON, "-o", app); r.code != 0 {
		v["capture"] = clip(fmt.Sprintf("exit %d: %s", r.code, firstLine(r.stderr)))
	} else {
		v["capture"] = "pass"
		v["check"] = checkVerdict(dir, app, nps)
		v["np-default"], v["run"] = replayRun(replay, app, np)
		if v["run"] == "pass" {
			v["files"], v["h5dump"] = compareFiles(ref, replay, versions)
			v["profile-h5"], v["profile-io"] = profileVerdicts(refJSON, filepath.Join(replay, "h5proxy-profile.json"), names)
			if p.netcdf {
				v["ncdump"] = ncdumpVerdict(ref, replay)
			}
		}
	}

	// derive of every output file, run, compared
	dapp := filepath.Join(dir, "derived.yaml")
	dargs := []string{"derive"}
	for _, n := range names {
		dargs = append(dargs, filepath.Join(ref, n))
	}
	if r := h5proxy(dir, append(dargs, "-np", nps, "-o", dapp)...); r.code != 0 {
		v["derive"] = clip(fmt.Sprintf("exit %d: %s", r.code, firstLine(r.stderr)))
		return v
	}
	v["derive"] = "pass"
	v["derive-check"] = checkVerdict(dir, dapp, nps)
	if r := h5proxy(dir, "run", "-np", nps, "-quiet", "-dir", derived, dapp); r.code != 0 {
		v["derive-run"] = clip(fmt.Sprintf("exit %d: %s", r.code, firstLine(r.stderr)))
		return v
	}
	v["derive-run"] = "pass"
	v["derive-files"], v["derive-h5dump"] = compareFiles(ref, derived, versions)
	if p.netcdf {
		v["derive-ncdump"] = ncdumpVerdict(ref, derived)
	}
	return v
}

func checkVerdict(dir, app, nps string) string {
	if r := h5proxy(dir, "check", "-np", nps, app); r.code != 0 {
		return clip(firstLine(r.stderr + r.stdout))
	}
	return "pass"
}

// replayRun runs the description with no -np, under the profiler (profile=yes), into dir.
// The captured rank count should be the run's default: when the run took another count,
// np-default says so and the description runs again with -np (until descriptions carry
// the count).
func replayRun(dir, app string, np int) (npDefault, verdict string) {
	r := h5proxy(dir, "run", "-quiet", "-dir", dir, app, "profile=yes")
	if r.code != 0 {
		return "not run", clip(fmt.Sprintf("exit %d: %s", r.code, firstLine(r.stderr)))
	}
	p, err := profile.Load(filepath.Join(dir, "h5proxy-profile.json"))
	if err != nil {
		return "not run", clip(err.Error())
	}
	if p.Ranks == np {
		return "pass", "pass"
	}
	npDefault = fmt.Sprintf("ran at %d ranks, captured at %d", p.Ranks, np)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
	r = h5proxy(dir, "run", "-np", strconv.Itoa(np), "-quiet", "-dir", dir, app, "profile=yes")
	if r.code != 0 {
		return npDefault, clip(fmt.Sprintf("exit %d with -np: %s", r.code, firstLine(r.stderr)))
	}
	return npDefault, "pass"
}

// build is the HDF5 switch of the test run (make env exports it).
func build() string {
	if b := os.Getenv("H5PROXY_HDF5"); b != "" {
		return b
	}
	return "1.10"
}

// expectations reads expect.txt: "PROGRAM NP CHECK: VERDICT" lines, optionally prefixed by
// "[1.14] " for a verdict that differs on that build.
func expectations(t *testing.T) (common map[string]string, perBuild map[string]map[string]string) {
	common, perBuild = map[string]string{}, map[string]map[string]string{}
	f, err := os.Open("expect.txt")
	if err != nil {
		t.Fatalf("expectations: %v (record them with go test ./tests/corpus -run TestCorpus -update)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		target := common
		if strings.HasPrefix(line, "[") {
			b, rest, _ := strings.Cut(line[1:], "] ")
			if perBuild[b] == nil {
				perBuild[b] = map[string]string{}
			}
			target, line = perBuild[b], rest
		}
		k, val, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("expect.txt: %q is no \"PROGRAM NP CHECK: VERDICT\" line", line)
		}
		target[k] = val
	}
	return common, perBuild
}

var rankCounts = []int{1, 2, 4}

// TestCorpus runs every corpus program at 1, 2 and 4 ranks through capture, run, derive
// and the comparisons, and asserts each verdict equals expect.txt's.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the corpus runs each program 3 times under mpirun with its replays: not in -short")
	}
	begin := time.Now()
	got := map[string]string{}
	lib := filepath.Join(bin, "libh5proxy-profile.so")
	var sysLib string
	for _, p := range programs {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), p.name) {
			continue
		}
		if miss := missingPackages(p); len(miss) > 0 {
			t.Errorf("%s needs the Debian packages %v (make deps-corpus installs them)", p.name, miss)
			continue
		}
		plib := lib
		if p.system && build() != "1.10" {
			if sysLib == "" { // the program loads Debian's HDF5 1.10: a profiler on its headers
				sysLib = filepath.Join(t.TempDir(), "libh5proxy-profile-1.10.so")
				// The system HDF5's headers first: they win over the build's.
				if err := preloadtest.Build(sysLib, "-I"+systemHDF5); err != nil {
					t.Fatal(err)
				}
			}
			plib = sysLib
		}
		argv, env := p.build(t, t.TempDir())
		for _, np := range rankCounts {
			start := time.Now()
			v := accept(t, p, argv, env, plib, np)
			t.Logf("%s at %d ranks: %.1f s", p.name, np, time.Since(start).Seconds())
			for _, c := range checks {
				k := fmt.Sprintf("%s %d %s", p.name, np, c)
				got[k] = v[c]
				t.Logf("%s: %s", k, v[c])
			}
		}
	}
	t.Logf("corpus: %.0f s", time.Since(begin).Seconds())
	if *update {
		record(t, got)
		return
	}
	common, perBuild := expectations(t)
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want, ok := perBuild[build()][k]
		if !ok {
			want, ok = common[k]
		}
		if !ok {
			t.Errorf("%s: %q, and expect.txt has no verdict for it (record it: -update)", k, got[k])
		} else if want != got[k] {
			t.Errorf("%s: %q, expect.txt records %q (a regression, or an improvement to record with -update)", k, got[k], want)
		}
	}
}

// record writes expect.txt (the verdicts of this build: the common ones on 1.10, a
// [build] section of those that differ elsewhere) and docs/apps.md's table. With -only,
// the other programs' lines stay as they were.
func record(t *testing.T, got map[string]string) {
	common, perBuild := map[string]string{}, map[string]map[string]string{}
	if _, err := os.Stat("expect.txt"); err == nil {
		common, perBuild = expectations(t)
	}
	b := build()
	if b == "1.10" {
		if *only == "" {
			common = map[string]string{}
		}
		for k, v := range got {
			common[k] = v
		}
	} else {
		if *only == "" || perBuild[b] == nil {
			perBuild[b] = map[string]string{}
		}
		for k := range got {
			delete(perBuild[b], k)
		}
		for k, v := range got {
			if common[k] != v {
				perBuild[b][k] = v
			}
		}
	}
	var sb strings.Builder
	sb.WriteString("# Verdicts of tests/corpus (TestCorpus): PROGRAM RANKS CHECK: VERDICT, \"pass\" or the first\n")
	sb.WriteString("# difference. Lines prefixed [1.14] hold where the HDF5=1.14 build differs. Rewritten by\n")
	sb.WriteString("# `go test ./tests/corpus -run TestCorpus -update` (with make env's environment).\n")
	var keys []string
	for k := range common {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
	for _, k := range keys {
		fmt.Fprintf(&sb, "%s: %s\n", k, common[k])
	}
	var builds []string
	for bb := range perBuild {
		builds = append(builds, bb)
	}
	sort.Strings(builds)
	for _, bb := range builds {
		var ks []string
		for k := range perBuild[bb] {
			ks = append(ks, k)
		}
		sort.Slice(ks, func(i, j int) bool { return keyLess(ks[i], ks[j]) })
		for _, k := range ks {
			fmt.Fprintf(&sb, "[%s] %s: %s\n", bb, k, perBuild[bb][k])
		}
	}
	if err := os.WriteFile("expect.txt", []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if b == "1.10" {
		writeTable(t, common)
	}
}

// keyLess orders "PROGRAM NP CHECK" keys by the programs' order, ranks, checks' order.
func keyLess(a, b string) bool {
	pa, pb := strings.Fields(a), strings.Fields(b)
	ia := slices.IndexFunc(programs, func(p program) bool { return p.name == pa[0] })
	ib := slices.IndexFunc(programs, func(p program) bool { return p.name == pb[0] })
	if ia != ib {
		return ia < ib
	}
	if pa[1] != pb[1] {
		return pa[1] < pb[1]
	}
	return slices.Index(checks, pa[2]) < slices.Index(checks, pb[2])
}

const tableBegin, tableEnd = "<!-- BEGIN REAL WRITERS (tests/corpus -update) -->", "<!-- END REAL WRITERS -->"

// summary is a program's verdict over a chain of checks: "pass", or at the smallest rank
// count where one fails, the first failing check of the chain with its verdict ("not run"
// when the chain's first check never ran: the program failed).
func summary(v map[string]string, prog string, chain []string) string {
	for _, np := range rankCounts {
		for i, c := range chain {
			s := v[fmt.Sprintf("%s %d %s", prog, np, c)]
			if s == "not run" && i == 0 {
				return "not run: the program failed"
			}
			if !strings.HasPrefix(s, "pass") && s != "not netCDF" && s != "not run" {
				if len(s) > 150 {
					s = s[:150] + "..."
				}
				return fmt.Sprintf("%s at %d: %s", c, np, strings.ReplaceAll(s, "|", "/"))
			}
		}
	}
	return "pass"
}

// TestRealWritersTable keeps docs/apps.md's real writers table the one expect.txt's
// verdicts make (with -update, rewrites it from expect.txt without running the corpus).
func TestRealWritersTable(t *testing.T) {
	common, _ := expectations(t)
	want := table(common)
	doc, err := os.ReadFile(appsDoc)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		writeTable(t, common)
		return
	}
	if !strings.Contains(string(doc), want) {
		t.Errorf("%s's real writers table is not the one expect.txt makes (go test ./tests/corpus -run TestRealWritersTable -update):\n%s", appsDoc, want)
	}
}

const appsDoc = "../../docs/apps.md"

// table is docs/apps.md's real writers table, markers included, from verdicts v.
func table(v map[string]string) string {
	var sb strings.Builder
	sb.WriteString(tableBegin + "\n")
	sb.WriteString("| Program | What it exercises | Capture | Derive |\n|---|---|---|---|\n")
	for _, p := range programs {
		c := summary(v, p.name, []string{"program", "one-hdf5", "capture", "check", "np-default", "run", "files", "h5dump", "profile-h5", "profile-io", "ncdump"})
		d := summary(v, p.name, []string{"derive", "derive-check", "derive-run", "derive-files", "derive-h5dump", "derive-ncdump"})
		fmt.Fprintf(&sb, "| `examples/corpus/%s` | %s | %s | %s |\n", p.name, p.what, c, d)
	}
	sb.WriteString(tableEnd)
	return sb.String()
}

func writeTable(t *testing.T, v map[string]string) {
	doc, err := os.ReadFile(appsDoc)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(doc, []byte(tableBegin)), bytes.Index(doc, []byte(tableEnd))
	if i < 0 || j < i {
		t.Fatalf("%s: no %q ... %q markers", appsDoc, tableBegin, tableEnd)
	}
	out := append(append(slices.Clone(doc[:i]), table(v)...), doc[j+len(tableEnd):]...)
	if err := os.WriteFile(appsDoc, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
