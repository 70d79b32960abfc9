package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/internal/darshan"
	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/internal/profile"
	"github.com/h5proxy/h5proxy/internal/report"
	"github.com/h5proxy/h5proxy/proxy/e3smmap"
)

// EnvProfileLib names the environment variable giving libh5proxy-profile.so's path.
const envProfileLib = "H5PROXY_PROFILE_LIB"

// profileLib finds libh5proxy-profile.so: the -lib flag, $H5PROXY_PROFILE_LIB, beside
// this executable (make build puts both in bin/), or in ../lib of it (an installed prefix).
func profileLib(flagValue string) (string, error) {
	var tried []string
	try := func(p string) (string, bool) {
		if p == "" {
			return "", false
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", false
		}
		tried = append(tried, abs)
		st, err := os.Stat(abs)
		return abs, err == nil && st.Mode().IsRegular()
	}
	if flagValue != "" {
		if p, ok := try(flagValue); ok {
			return p, nil
		}
		return "", fmt.Errorf("-lib %s: no such file", flagValue)
	}
	if env := os.Getenv(envProfileLib); env != "" {
		if p, ok := try(env); ok {
			return p, nil
		}
		return "", fmt.Errorf("%s=%s: no such file", envProfileLib, env)
	}
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		for _, c := range []string{filepath.Join(dir, "libh5proxy-profile.so"), filepath.Join(dir, "..", "lib", "libh5proxy-profile.so")} {
			if p, ok := try(c); ok {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("libh5proxy-profile.so not found (tried %s): `make build` puts it in bin/ beside h5proxy; or give -lib PATH or %s", strings.Join(tried, ", "), envProfileLib)
}

// profiledRun is one run of a program under the profiler.
type profiledRun struct {
	np      int    // 0: run directly, without a launcher
	lib     string // libh5proxy-profile.so
	dir     string // record directory
	trace   bool
	argv    []string
	stdout  io.Writer
	stderr  io.Writer
	noPreld bool // run without the library (timing runs)
}

// command builds the run: under the MPI launcher with the library exported to the ranks
// only (OpenMPI's -x; the launcher itself is not profiled), or directly with LD_PRELOAD.
func (r profiledRun) command() (*exec.Cmd, error) {
	env := []string{}
	if !r.noPreld {
		env = append(env, "LD_PRELOAD="+r.lib, "H5PROXY_PROFILE_DIR="+r.dir)
		if r.trace {
			env = append(env, "H5PROXY_PROFILE_TRACE=1")
		}
	}
	if r.np == 0 {
		cmd := exec.Command(r.argv[0], r.argv[1:]...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdout, cmd.Stderr = r.stdout, r.stderr
		return cmd, nil
	}
	argv, lenv, err := launch.Launcher(r.np)
	if err != nil {
		return nil, err
	}
	switch filepath.Base(argv[0]) {
	case "mpirun", "mpiexec", "orterun":
		for _, e := range env {
			argv = append(argv, "-x", e)
		}
		env = nil
	default:
		// other launchers pass their environment to the ranks: the launcher is profiled
		// too, and writes no record unless it does file I/O of its own
	}
	argv = append(argv, r.argv...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), lenv...), env...)
	cmd.Stdout, cmd.Stderr = r.stdout, r.stderr
	return cmd, nil
}

// run runs the program and returns its exit status (the program's failure is not an
// error: its records are still read).
func (r profiledRun) run() (int, error) {
	cmd, err := r.command()
	if err != nil {
		return 1, err
	}
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return max(ee.ExitCode(), 1), nil
		}
		return 1, fmt.Errorf("%s: %w", r.argv[0], err)
	}
	return 0, nil
}

// profileOnce runs argv under the library into a fresh record directory and returns the
// merged profile and the program's exit status.
func profileOnce(np int, lib string, trace bool, argv []string, stdout, stderr io.Writer) (*profile.Profile, int, error) {
	dir, err := os.MkdirTemp("", "h5proxy-profile-")
	if err != nil {
		return nil, 1, err
	}
	defer os.RemoveAll(dir)
	code, err := profiledRun{np: np, lib: lib, dir: dir, trace: trace, argv: argv, stdout: stdout, stderr: stderr}.run()
	if err != nil {
		return nil, code, err
	}
	procs, err := profile.ReadDir(dir)
	if err != nil {
		return nil, code, fmt.Errorf("%s (exit status %d): %w", argv[0], code, err)
	}
	p := profile.Merge(procs)
	p.Command = argv
	return p, code, nil
}

func cmdProfile(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "diff" {
		return cmdProfileDiff(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "show" {
		return cmdProfileShow(args[1:], stdout, stderr)
	}
	fs := newFlags("profile", "profile [-np N] [-o profile.json] [-darshan OUT.darshan] [-trace] -- PROGRAM ARGS...\n       h5proxy profile diff [-v] A B (profiles or Darshan logs)\n       h5proxy profile show PROFILE.json|LOG.darshan", stderr)
	np := fs.Int("np", 0, "ranks: run PROGRAM under the MPI launcher (mpirun -np N); 0 runs it directly")
	out := fs.String("o", "h5proxy-profile.json", "merged profile (JSON); the CSV, the histogram and the timeline plots are written beside it (.csv, -sizes.png/.svg, -timeline.png/.svg)")
	trace := fs.Bool("trace", false, "record every call with its offset and size (DXT-like), for call sequences and the timeline")
	lib := fs.String("lib", "", "libh5proxy-profile.so (default: $"+envProfileLib+", beside h5proxy, or ../lib)")
	records := fs.String("records", "", "keep the per-rank record files in this directory (default: a temporary one, removed)")
	noPlot := fs.Bool("noplot", false, "write no plots")
	darshanOut := fs.String("darshan", "", "also write the profile as a Darshan 3.5 log (NAME.darshan), for darshan-parser and PyDarshan")
	htmlOut := fs.String("html", "", "also write the profile as one self-contained HTML page (h5proxy report)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{error: errors.New("no PROGRAM: h5proxy profile [flags] -- PROGRAM ARGS...")}
	}
	if *darshanOut != "" && !strings.HasSuffix(*darshanOut, ".darshan") {
		return usageError{error: fmt.Errorf("-darshan %s: %w", *darshanOut, errNotDarshan)}
	}
	if *np < 0 {
		return usageError{error: fmt.Errorf("-np %d: the number of ranks must be at least 1 (0: no launcher)", *np)}
	}
	if !strings.HasSuffix(*out, ".json") {
		return usageError{error: fmt.Errorf("-o %s: the profile is JSON, name it NAME.json", *out)}
	}
	if st, err := os.Stat(filepath.Dir(*out)); err != nil || !st.IsDir() {
		return usageError{error: fmt.Errorf("-o %s: directory %s does not exist", *out, filepath.Dir(*out))}
	}
	path, err := profileLib(*lib)
	if err != nil {
		return err
	}
	dir := *records
	if dir == "" {
		d, err := os.MkdirTemp("", "h5proxy-profile-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-records %s: %w", dir, err)
	}
	dir, _ = filepath.Abs(dir)
	code, err := profiledRun{np: *np, lib: path, dir: dir, trace: *trace, argv: fs.Args(), stdout: stdout, stderr: stderr}.run()
	if err != nil {
		return err
	}
	procs, err := profile.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("%s (exit status %d): %w", fs.Arg(0), code, err)
	}
	p := profile.Merge(procs)
	p.Command = fs.Args()
	fmt.Fprintln(stdout)
	p.Summary(stdout)
	base := strings.TrimSuffix(*out, ".json")
	files := []string{*out, base + ".csv"}
	if err := p.WriteJSON(*out); err != nil {
		return err
	}
	if err := p.WriteCSV(base + ".csv"); err != nil {
		return err
	}
	if !*noPlot {
		plots, err := p.Plot(base)
		if err != nil {
			return err
		}
		files = append(files, plots...)
	}
	if *darshanOut != "" {
		if err := writeDarshanLog(p, procs, *darshanOut); err != nil {
			return err
		}
		files = append(files, *darshanOut)
	}
	if *htmlOut != "" {
		cmd := "h5proxy profile " + strings.Join(args, " ")
		if err := report.ProfilePage(p, report.ProfileOptions{Command: cmd}).WriteFile(*htmlOut); err != nil {
			return err
		}
		files = append(files, *htmlOut)
	}
	fmt.Fprintf(stdout, "\nWrote %s\n", strings.Join(files, ", "))
	if code != 0 {
		return fmt.Errorf("%s exited with status %d (its profile is written%s)", fs.Arg(0), code, map[bool]string{true: ", marked partial", false: ""}[p.Partial])
	}
	return nil
}

// errDiffer is returned by profile diff when the profiles differ: exit status 1 with the
// verdict already printed.
var errDiffer = errors.New("profiles differ")

func cmdProfileDiff(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("profile diff", "profile diff [-v] [-rename OLD=NEW] [-file NAME] A B (h5proxy profiles or Darshan logs)", stderr)
	verbose := fs.Bool("v", false, "list every compared counter, the equal ones too")
	var renames settingsFlag
	fs.Var(&renames, "rename", "OLD=NEW: replace OLD by NEW in the base names of A's files before matching them with B's (repeatable)")
	only := fs.String("file", "", "compare only the records of the file of this base name")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var rename []string
	for _, kv := range renames {
		rename = append(rename, kv.Key+"="+kv.Value)
	}
	if fs.NArg() != 2 {
		return usageError{error: fmt.Errorf("need two profiles (A.json B.json), got %d arguments", fs.NArg())}
	}
	a, la, err := loadAnyProfile(fs.Arg(0))
	if err != nil {
		return usageError{error: err}
	}
	b, lb, err := loadAnyProfile(fs.Arg(1))
	if err != nil {
		return usageError{error: err}
	}
	if la != nil || lb != nil {
		// DXT keeps reads and writes, not HDF5 calls nor which call made them: call
		// sequences compare between two h5proxy traces only.
		a.Traced, b.Traced = false, false
	}
	// Darshan names a dataset opened through a group without the separator
	// (/Timestep_0x): matched to the other profile's /Timestep_0/x
	if la != nil && lb == nil {
		darshan.AlignDatasetNames(a, b)
	}
	if lb != nil && la == nil {
		darshan.AlignDatasetNames(b, a)
	}
	if *only != "" {
		a.Records, b.Records = onlyFile(a.Records, *only), onlyFile(b.Records, *only)
		if len(a.Records) == 0 && len(b.Records) == 0 {
			return usageError{error: fmt.Errorf("-file %s: neither profile has a record of that file", *only)}
		}
		a.Traced, b.Traced = false, false
	}
	d := profile.CompareRenamed(a, b, rename)
	d.Print(stdout, *verbose)
	if !d.Identical() {
		return errDiffer
	}
	return nil
}

// cmdCompare runs a real program and its proxy interleaved: their profiles diffed, their
// times against the A/A band (the real program against itself) of the same run.
func cmdCompare(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("compare", "compare [-np N] [-reps R] -- REAL ARGS... -- PROXY-CONFIG [h5proxy run flags]", stderr)
	np := fs.Int("np", 2, "ranks of both programs")
	reps := fs.Int("reps", 5, "timed repetitions of each (interleaved: real, real again, proxy)")
	lib := fs.String("lib", "", "libh5proxy-profile.so (default: $"+envProfileLib+", beside h5proxy, or ../lib)")
	trace := fs.Bool("trace", false, "trace both profiles (call sequences compared too)")
	out := fs.String("o", "", "write the two profiles as OUT-real.json and OUT-proxy.json")
	htmlOut := fs.String("html", "", "also write the comparison as one self-contained HTML page: counters side by side, times against the A/A band")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	sep := -1
	for i, a := range rest {
		if a == "--" {
			sep = i
			break
		}
	}
	if sep <= 0 || sep == len(rest)-1 {
		return usageError{error: errors.New("need REAL ARGS... -- PROXY-CONFIG: h5proxy compare -reps 5 -- ./real -x 1 -- proxy.json")}
	}
	if *reps < 2 {
		return usageError{error: fmt.Errorf("-reps %d: at least 2 (the A/A band needs two pairs)", *reps)}
	}
	if *np < 1 {
		return usageError{error: fmt.Errorf("-np %d: at least 1", *np)}
	}
	real := rest[:sep]
	self, err := os.Executable()
	if err != nil {
		return err
	}
	proxyArgv := append([]string{self, "run"}, rest[sep+1:]...)
	path, err := profileLib(*lib)
	if err != nil {
		return err
	}
	// 1. the profiles
	pr, code, err := profileOnce(*np, path, *trace, real, io.Discard, stderr)
	if err != nil {
		return fmt.Errorf("profiling the real program: %w", err)
	}
	if code != 0 {
		return fmt.Errorf("the real program %s exited with status %d", real[0], code)
	}
	pp, code, err := profileOnce(*np, path, *trace, proxyArgv, io.Discard, stderr)
	if err != nil {
		return fmt.Errorf("profiling the proxy: %w", err)
	}
	if code != 0 {
		return fmt.Errorf("the proxy (h5proxy run %s) exited with status %d", strings.Join(rest[sep+1:], " "), code)
	}
	if *out != "" {
		if err := pr.WriteJSON(*out + "-real.json"); err != nil {
			return err
		}
		if err := pp.WriteJSON(*out + "-proxy.json"); err != nil {
			return err
		}
	}
	d := profile.Compare(pr, pp)
	fmt.Fprintln(stdout, "Profiles (A: real, B: proxy):")
	d.Print(stdout, false)
	// 2. the times, interleaved
	timed := func(argv []string) (float64, error) {
		t := time.Now()
		code, err := profiledRun{np: *np, argv: argv, stdout: io.Discard, stderr: stderr, noPreld: true}.run()
		if err == nil && code != 0 {
			err = fmt.Errorf("%s exited with status %d", argv[0], code)
		}
		return time.Since(t).Seconds(), err
	}
	var aa, ratio, real1, real2, proxyT []float64
	for i := 0; i < *reps; i++ {
		a1, err := timed(real)
		if err != nil {
			return err
		}
		a2, err := timed(real)
		if err != nil {
			return err
		}
		p, err := timed(proxyArgv)
		if err != nil {
			return err
		}
		aa = append(aa, a2/a1)
		ratio = append(ratio, p/a1)
		real1, real2, proxyT = append(real1, a1), append(real2, a2), append(proxyT, p)
		fmt.Fprintf(stdout, "rep %d: real %.3f s, real again %.3f s, proxy %.3f s\n", i+1, a1, a2, p)
	}
	verdict := compareVerdict(aa, ratio)
	fmt.Fprintln(stdout, verdict)
	if *htmlOut != "" {
		pg := report.ComparePage(report.Comparison{Real: pr, Proxy: pp, Diff: d, Real1: real1, Real2: real2, ProxyTimes: proxyT,
			Verdict: verdict, Command: "h5proxy compare " + strings.Join(args, " ")})
		if err := writePage(stdout, pg, *htmlOut); err != nil {
			return err
		}
	}
	if !d.Identical() {
		return errDiffer
	}
	return nil
}

// compareVerdict judges the proxy/real time ratios against the A/A ratios (the real
// program against itself): indistinguishable when the proxy's median ratio lies inside
// the A/A band, else the ratio with its spread.
func compareVerdict(aa, ratio []float64) string {
	amed, alo, ahi := benchstat.Summary(aa)
	med, lo, hi := benchstat.Summary(ratio)
	band := fmt.Sprintf("A/A band %.3f-%.3f (median %.3f)", alo, ahi, amed)
	if med >= alo && med <= ahi {
		return fmt.Sprintf("Time: indistinguishable at this machine's noise (proxy/real median %.3f inside the %s)", med, band)
	}
	return fmt.Sprintf("Time: proxy/real = %.3f (range %.3f-%.3f over %d reps), outside the %s", med, lo, hi, len(ratio), band)
}

// profiled reports whether any benchmark of the job asks for profile=yes.
func (j *job) profiled() bool {
	for _, r := range j.runs {
		if r.Config.Profile {
			return true
		}
	}
	return false
}

// selfProfile is an h5proxy run launched under libh5proxy-profile.so (profile=yes).
type selfProfile struct {
	records string   // the ranks' record directory
	out     string   // the merged profile: h5proxy-profile.json in the run directory
	preload []string // LD_PRELOAD and H5PROXY_PROFILE_DIR
	env     []string // the same, for launchers that pass their environment on
}

func newSelfProfile(j *job) (*selfProfile, error) {
	lib, err := profileLib("")
	if err != nil {
		return nil, fmt.Errorf("profile=yes: %w", err)
	}
	dir, err := os.MkdirTemp("", "h5proxy-profile-")
	if err != nil {
		return nil, err
	}
	return &selfProfile{records: dir, out: filepath.Join(j.dir, "h5proxy-profile.json"),
		preload: []string{"LD_PRELOAD=" + lib, "H5PROXY_PROFILE_DIR=" + dir}}, nil
}

// launcherArgs adds the library to the launcher's command line for OpenMPI's mpirun (-x:
// the ranks get it, the launcher is not profiled); other launchers get it through their
// environment.
func (p *selfProfile) launcherArgs(argv []string) []string {
	switch filepath.Base(argv[0]) {
	case "mpirun", "mpiexec", "orterun":
		for _, e := range p.preload {
			argv = append(argv, "-x", e)
		}
	default:
		p.env = p.preload
	}
	return argv
}

// finish merges the ranks' records, prints the summary and writes the profile and its CSV.
func (p *selfProfile) finish(stdout io.Writer) error {
	procs, err := profile.ReadDir(p.records)
	if err != nil {
		return fmt.Errorf("profile=yes: %w", err)
	}
	pr := profile.Merge(procs)
	pr.Command = os.Args
	fmt.Fprintln(stdout)
	pr.Summary(stdout)
	if err := pr.WriteJSON(p.out); err != nil {
		return fmt.Errorf("profile=yes: %w", err)
	}
	csv := strings.TrimSuffix(p.out, ".json") + ".csv"
	if err := pr.WriteCSV(csv); err != nil {
		return fmt.Errorf("profile=yes: %w", err)
	}
	dlog := strings.TrimSuffix(p.out, ".json") + ".darshan"
	if err := writeDarshanLog(pr, procs, dlog); err != nil {
		return fmt.Errorf("profile=yes: %w", err)
	}
	fmt.Fprintf(stdout, "\nWrote %s, %s, %s\n", p.out, csv, dlog)
	return nil
}

func (p *selfProfile) cleanup() { os.RemoveAll(p.records) }

// writeCapturedMap writes a description's decomposition map as an E3SM-IO map file.
func writeCapturedMap(path string, m *profile.MapFile) error {
	ds := make([]e3smmap.Decomposition, len(m.Decomps))
	for k, d := range m.Decomps {
		dims := make([]uint64, len(d.Dims))
		for i, v := range d.Dims {
			dims[i] = uint64(v)
		}
		ds[k] = e3smmap.Decomposition{Dims: dims, Offsets: d.Offsets, Lengths: d.Lengths, FullyCovered: d.FullyCovered}
	}
	return e3smmap.Write(path, ds)
}

// cmdCapture turns a program's traced profile into an application description
// (docs/apps.md's format): h5proxy capture [-np N] -o my-app.yaml -- PROGRAM ARGS...
func cmdCapture(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("capture", "capture [-np N] -o APP.yaml [-from P.json|LOG.darshan] -- PROGRAM ARGS...", stderr)
	np := fs.Int("np", 0, "ranks: run PROGRAM under the MPI launcher (mpirun -np N); 0 runs it directly")
	out := fs.String("o", "", "the description to write (YAML; sidecar files such as uneven counts go beside it)")
	from := fs.String("from", "", "fold this traced profile (h5proxy profile -trace -o P.json) or Darshan log (LOG.darshan) instead of running a program")
	name := fs.String("name", "", "the description's name (default: the program's base name)")
	lib := fs.String("lib", "", "libh5proxy-profile.so (default: $"+envProfileLib+", beside h5proxy, or ../lib)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" || !(strings.HasSuffix(*out, ".yaml") || strings.HasSuffix(*out, ".yml")) {
		return usageError{error: fmt.Errorf("-o %q: name the description APP.yaml", *out)}
	}
	if st, err := os.Stat(filepath.Dir(*out)); err != nil || !st.IsDir() {
		return usageError{error: fmt.Errorf("-o %s: directory %s does not exist", *out, filepath.Dir(*out))}
	}
	if (*from == "") == (fs.NArg() == 0) {
		return usageError{error: errors.New("give either -- PROGRAM ARGS... or -from P.json")}
	}
	var p *profile.Profile
	var err error
	if *from != "" {
		var log *darshan.Log
		if p, log, err = loadAnyProfile(*from); err != nil {
			return usageError{error: err}
		}
		if log != nil {
			return captureDarshan(log, *name, *out, stdout, stderr)
		}
	} else {
		path, err := profileLib(*lib)
		if err != nil {
			return err
		}
		var code int
		if p, code, err = profileOnce(*np, path, true, fs.Args(), stdout, stderr); err != nil {
			return err
		}
		if code != 0 {
			return fmt.Errorf("%s exited with status %d: no description captured", fs.Arg(0), code)
		}
	}
	n := *name
	if n == "" && len(p.Command) > 0 {
		n = filepath.Base(p.Command[0])
	}
	c, err := profile.Capture(p, n)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, []byte(c.YAML), 0o644); err != nil {
		return err
	}
	written := []string{*out}
	for f, text := range c.Files {
		path := filepath.Join(filepath.Dir(*out), f)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
		written = append(written, path)
	}
	if c.Map != nil {
		path := filepath.Join(filepath.Dir(*out), c.MapName)
		if err := writeCapturedMap(path, c.Map); err != nil {
			return err
		}
		written = append(written, path)
	}
	for _, u := range c.Unexpressed {
		fmt.Fprintf(stderr, "h5proxy capture: not expressed: %s\n", u)
	}
	fmt.Fprintf(stdout, "Wrote %s\n", strings.Join(written, ", "))
	return nil
}
