package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"go.uber.org/automaxprocs/maxprocs"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/app"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/proxy"
)

//go:embed demo.json
var demoConfig []byte

// job is what a configuration file asks for: sessions to run in order, on some ranks.
type job struct {
	ranks    int
	mpi      h5bench.MPI
	dir      string
	runs     []h5bench.Run
	warnings []string
	// pluginPath is h5bench's vol.path: HDF5_PLUGIN_PATH of the launched ranks.
	pluginPath string
	// command is the subcommand the launched ranks run ("" is run).
	command string
	// thread is the MPI thread level the ranks ask for (a description's mpi_thread; ""
	// is multiple).
	thread string
}

// loadJob reads an h5bench or native configuration; nil data means the embedded demo.
func loadJob(path string) (*job, error) {
	data := demoConfig
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, err
		}
	}
	if desc.Sniff(path, data) {
		return descriptionJob(path)
	}
	if h5bench.IsH5bench(data) {
		f, err := h5bench.Parse(data)
		if err != nil {
			return nil, err
		}
		return &job{ranks: f.MPI.Ranks, mpi: f.MPI, dir: f.Directory, runs: f.Runs, warnings: f.Warnings, pluginPath: f.PluginPath}, nil
	}
	cfg, err := proxy.DecodeConfig(data)
	if err != nil {
		return nil, err
	}
	return &job{ranks: 1, mpi: h5bench.MPI{Command: "mpirun", Ranks: 1}, dir: filepath.Dir(cfg.File),
		runs: []h5bench.Run{{Benchmark: cfg.Pattern, Config: cfg}}}, nil
}

// descriptionJob runs an application description (docs/apps.md) as pattern app on its
// ranks key's count of ranks (1 without; -np overrides); its files go beside the session file <name>.h5 in the working
// directory (-dir moves them).
func descriptionJob(path string) (*job, error) {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	cfg, err := proxy.ParseOptions("app", []options.KV{{Key: "description", Value: path}, {Key: "file", Value: name + ".h5"}})
	if err != nil {
		return nil, err
	}
	ranks, err := app.DefaultRanks(path) // a captured description's traced count
	if err != nil {
		return nil, err
	}
	thread, err := app.MPIThreadLevel(path) // the captured program's MPI thread level
	if err != nil {
		return nil, err
	}
	return &job{ranks: ranks, mpi: h5bench.MPI{Command: "mpirun", Ranks: ranks}, dir: ".", runs: []h5bench.Run{{Benchmark: "app", Config: cfg}}, thread: thread}, nil
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", "run [flags] [CONFIG.json | DESCRIPTION.yaml [KEY=VALUE ...]]", stderr)
	np := fs.Int("np", 0, "number of ranks to launch (default: the configuration's mpi.ranks)")
	noLaunch := fs.Bool("no-launch", false, "run in this process even outside an MPI launcher (one rank)")
	report := fs.String("report", "", "write the JSON report of each benchmark to this file (suffixed by its index when there are several)")
	quiet := fs.Bool("quiet", false, "do not print the performance summary")
	var sets settingsFlag
	fs.Var(&sets, "set", "KEY=VALUE: set a session or pattern key in every benchmark of the configuration (repeatable)")
	dir := fs.String("dir", "", "write the data files and h5bench CSV files into this directory (same base names)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		// A description takes its parameters (and session keys) after it, as -set does.
		data, err := os.ReadFile(fs.Arg(0))
		if err != nil || !desc.Sniff(fs.Arg(0), data) {
			return usageError{error: fmt.Errorf("one configuration file at most, got %q (KEY=VALUE after the file is for descriptions)", fs.Args())}
		}
		for _, a := range fs.Args()[1:] {
			k, v, ok := strings.Cut(a, "=")
			if !ok || k == "" {
				return usageError{error: fmt.Errorf("%q after the description %s: want KEY=VALUE (flags go before the file)", a, fs.Arg(0))}
			}
			sets = append(sets, options.KV{Key: k, Value: v})
		}
	}
	npSet := false
	fs.Visit(func(f *flag.Flag) { npSet = npSet || f.Name == "np" })
	if npSet && *np < 1 {
		return usageError{error: fmt.Errorf("-np %d: the number of ranks must be at least 1", *np)}
	}
	j, err := loadJob(fs.Arg(0))
	if err != nil {
		return err
	}
	if npSet {
		j.ranks = *np
		j.mpi.Args = nil
	}
	if err := applySettings(j, sets, *dir); err != nil {
		return err
	}
	if err := checkOutputDirs(j); err != nil {
		return err
	}
	if !launch.Underneath() && !*noLaunch {
		return relaunch(j, args, stdout, stderr)
	}
	return runJob(j, *report, *quiet, stdout, stderr)
}

// checkOutputDirs makes sure, before any rank is launched, that the run directory can be
// created and written, and that every writing benchmark's file lands in a writable
// directory: found after MPI start-up, the same error would come from every rank.
func checkOutputDirs(j *job) error {
	if err := os.MkdirAll(j.dir, 0o755); err != nil {
		return fmt.Errorf("output directory %q cannot be created: %w", j.dir, err)
	}
	if err := probeWritable(j.dir); err != nil {
		return err
	}
	checked := map[string]bool{filepath.Clean(j.dir): true}
	for i, r := range j.runs {
		cfg := r.Config
		if !cfg.StoresData() || !slices.Contains(cfg.Phases, patterns.PhaseWrite) {
			continue
		}
		dir := filepath.Clean(filepath.Dir(cfg.File))
		if checked[dir] {
			continue
		}
		checked[dir] = true
		if err := probeWritable(dir); err != nil {
			return fmt.Errorf("benchmark %d (%s): file %q: %w", i, r.Benchmark, cfg.File, err)
		}
	}
	return nil
}

// probeWritable creates and removes a file in dir: permission bits alone do not tell
// (root, read-only mounts, /proc).
func probeWritable(dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("output directory %q does not exist", dir)
	}
	f, err := os.CreateTemp(dir, ".h5proxy-probe-")
	if err != nil {
		return fmt.Errorf("output directory %q is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// parseFlags parses a command's flags. A bad flag is a usage error (exit status 2, as for
// every Go command; the flag package has already printed it with the command's flags);
// -h and --help return flag.ErrHelp (exit status 0).
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return usageError{error: err, printed: true} // the flag package printed it with the usage
	}
	return err
}

// relaunch starts this executable under the launcher with the same arguments, as
// h5bench's runner does with its mpi section.
func relaunch(j *job, args []string, stdout, stderr io.Writer) error {
	argv, env, err := launch.Launcher(j.ranks)
	if err != nil {
		return err
	}
	if os.Getenv(launch.EnvLauncher) == "" && (j.mpi.Command != "" || len(j.mpi.Args) > 0) {
		argv = []string{j.mpi.Command}
		if len(j.mpi.Args) > 0 {
			argv = append(argv, j.mpi.Args...)
		} else {
			argv = append(argv, launch.RankFlag(j.mpi.Command), strconv.Itoa(j.ranks))
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	sub := j.command
	if sub == "" {
		sub = "run"
	}
	var prof *selfProfile
	if j.profiled() {
		if prof, err = newSelfProfile(j); err != nil {
			return err
		}
		defer prof.cleanup()
		argv = prof.launcherArgs(argv)
	}
	argv = append(argv, self, sub)
	argv = append(argv, args...)
	impl, err := j.mpiioImpl()
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	if prof != nil {
		cmd.Env = append(cmd.Env, prof.env...)
	}
	if e := proxy.MPIIOEnv(impl); e != "" {
		cmd.Env = append(cmd.Env, e) // the MPI-IO implementation is chosen at launch
	}
	if j.pluginPath != "" {
		// As h5bench's runner does with vol.path (filter plugins: COMPRESS_FILTER=SZ3, ZFP).
		cmd.Env = append(cmd.Env, "HDF5_PLUGIN_PATH="+j.pluginPath)
	}
	ranksErr := newRankErrors(stderr)
	cmd.Stdout, cmd.Stderr, cmd.Stdin = stdout, ranksErr, nil
	if j.mpi.LauncherCount && os.Getenv(launch.EnvLauncher) == "" {
		fmt.Fprintf(stderr, "h5proxy: launching %s's default number of ranks (mpi.configuration gives no -np): %s\n", argv[0], shellJoin(argv))
	} else {
		fmt.Fprintf(stderr, "h5proxy: launching %d ranks: %s\n", j.ranks, shellJoin(argv))
	}
	err = cmd.Run()
	if ferr := ranksErr.Flush(); err == nil {
		err = ferr
	}
	if prof != nil {
		if perr := prof.finish(stdout); perr != nil && err == nil {
			err = perr
		}
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if lost := ranksErr.Lost(); len(lost) > 0 {
				return fmt.Errorf("launched run failed (%v): lost %s", ee, strings.Join(lost, ", "))
			}
			return fmt.Errorf("launched run failed (%v)", ee)
		}
		return fmt.Errorf("launching %s: %w", argv[0], err)
	}
	return nil
}

// mpiioImpl is the MPI-IO implementation the job's sessions ask for (mpiio.impl), "" for
// OpenMPI's default; sessions of one job run in one launch and must agree.
func (j *job) mpiioImpl() (string, error) {
	impl := ""
	for i, r := range j.runs {
		v := r.Config.MPIIOImpl()
		if i > 0 && v != impl {
			return "", fmt.Errorf("benchmark %d asks mpiio.impl=%q, an earlier one %q: the implementation is chosen once per launch", i, v, impl)
		}
		impl = v
	}
	return impl, nil
}

func shellJoin(argv []string) string {
	s := ""
	for i, a := range argv {
		if i > 0 {
			s += " "
		}
		s += strconv.Quote(a)
	}
	return s
}

// threadLevel is the MPI thread level the job's ranks ask for: the description's, raised
// to multiple (with a warning) when a session calls MPI from threads of its own.
func (j *job) threadLevel() string {
	if j.thread == "" || j.thread == "multiple" {
		return "multiple"
	}
	for _, r := range j.runs {
		if need := proxy.ThreadMultipleNeed(r.Config); need != "" {
			j.warnings = append(j.warnings, fmt.Sprintf("mpi_thread: %s raised to multiple: %s calls MPI from threads of its own", j.thread, need))
			return "multiple"
		}
	}
	return j.thread
}

// startRank sets the default log level, initializes MPI and locks this goroutine to its
// thread (MPI and HDF5 calls stay on the thread that initialized MPI); done unlocks and
// finalizes.
func startRank(logLevel string) (world proxy.Comm, done func(), err error) {
	return startRankAt(logLevel, "multiple")
}

// startRankAt is startRank asking MPI for the thread level named thread.
func startRankAt(logLevel, thread string) (world proxy.Comm, done func(), err error) {
	_ = proxy.SetDefaultLogLevel(logLevel)
	// Locked first: MPI_Init_thread and the first HDF5 call (which starts a connector's
	// threads, the Async VOL's Argobots, on this thread) run on the thread of every later
	// call.
	runtime.LockOSThread()
	finalize, err := proxy.InitMPIThread(thread)
	if err != nil {
		runtime.UnlockOSThread()
		return proxy.Comm{}, nil, err
	}
	_, _ = maxprocs.Set() // honour cgroup CPU quotas; quiet
	return proxy.World(), func() {
		runtime.UnlockOSThread()
		_ = finalize()
	}, nil
}

// runJob runs every session of the job in this MPI process.
func runJob(j *job, report string, quiet bool, stdout, stderr io.Writer) error {
	impl, err := j.mpiioImpl()
	if err != nil {
		return err
	}
	if e := proxy.MPIIOEnv(impl); e != "" {
		// OpenMPI reads its MCA parameters from the environment at MPI_Init: this selects
		// the implementation in a rank launched without it (or with -no-launch).
		k, v, _ := strings.Cut(e, "=")
		os.Setenv(k, v)
	}
	world, done, err := startRankAt("info", j.threadLevel())
	if err != nil {
		return err
	}
	defer done()
	rank := world.Rank()
	if j.ranks != world.Size() && rank == 0 && !j.mpi.LauncherCount {
		fmt.Fprintf(stderr, "h5proxy: warning: configuration asks for %d ranks, running on %d\n", j.ranks, world.Size())
	}
	if rank == 0 {
		if j.profiled() && os.Getenv("H5PROXY_PROFILE_DIR") == "" {
			fmt.Fprintln(stderr, "h5proxy: warning: profile=yes: these ranks were not launched by h5proxy run, so not under libh5proxy-profile.so; profile them with h5proxy profile -np N -- h5proxy run CONFIG")
		}
		for _, w := range j.warnings {
			fmt.Fprintf(stderr, "h5proxy: warning: %s\n", w)
		}
		if p := os.Getenv("HDF5_PLUGIN_PATH"); j.pluginPath != "" && p != j.pluginPath {
			fmt.Fprintf(stderr, "h5proxy: warning: vol.path=%q not applied (h5bench exports it as HDF5_PLUGIN_PATH; the ranks were started with %q)\n", j.pluginPath, p)
		}
	}
	if err := os.MkdirAll(j.dir, 0o755); err != nil {
		return err
	}
	written := map[string]proxy.Config{} // files written with verifiable fills by earlier entries
	for i, r := range j.runs {
		cfg := r.Config
		if report != "" {
			cfg.ReportFile = report
			if len(j.runs) > 1 {
				cfg.ReportFile = fmt.Sprintf("%s.%d", report, i)
			}
		}
		if cfg.TraceFile != "" && len(j.runs) > 1 {
			cfg.TraceFile = indexedPath(cfg.TraceFile, i) // one timeline per benchmark
		}
		if w, ok := written[cfg.File]; ok && cfg.Verify != proxy.VerifyNo && w.Seed == cfg.Seed {
			// A read checks what the earlier entry wrote: its fill (seeded or once).
			cfg.Verify, cfg.Fill = proxy.VerifyYes, w.Fill
		}
		out := stdout
		if quiet || rank != 0 {
			out = nil
		}
		if err := runOne(world, r.Benchmark, cfg, out); err != nil {
			err = fmt.Errorf("benchmark %d (%s): %w", i, r.Benchmark, err)
			if errors.Is(err, proxy.ErrFailedAlone) {
				// The other ranks wait in a collective call: as the host, end the job
				// (the library never does), so that the run ends instead of hanging.
				fmt.Fprintf(stderr, "h5proxy: %v\n", err)
				_ = world.Abort(1)
			}
			return err
		}
		if cfg.Fill.Verifiable() {
			written[cfg.File] = cfg
		}
	}
	return nil
}

func runOne(world proxy.Comm, name string, cfg proxy.Config, out io.Writer) error {
	s, err := proxy.NewSession(world, cfg)
	if err != nil {
		return err
	}
	err = s.Run()
	if err == nil {
		_, err = s.WriteReports(out)
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}
