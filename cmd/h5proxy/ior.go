package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/ior"
	"github.com/h5proxy/h5proxy/proxy"
)

// iorHintPrefix names IOR's MPI hint environment variables (IOR_HINT__MPI__key=value;
// utilities.c: SetHints), read from the environment and from the -U hints file.
const iorHintPrefix = "IOR_HINT__MPI__"

// iorTime is IOR's CurrentTimeString (ctime without its newline).
const iorTime = "Mon Jan _2 15:04:05 2006"

// cmdIOR runs an IOR command line: h5proxy's own flags first (-np N, -no-launch), then
// IOR's options as users type them. Outside an MPI launcher it launches itself on -np
// ranks (default 1).
func cmdIOR(args []string, stdout, stderr io.Writer) error {
	np, noLaunch, htmlOut := 1, false, ""
	var sets settingsFlag // -set KEY=VALUE: session keys over the test's own, parsed as h5proxy run's
	for len(args) > 0 {
		switch a := args[0]; {
		case a == "-np" || a == "--np":
			if len(args) < 2 {
				return usageError{error: fmt.Errorf("-np needs a number of ranks")}
			}
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 1 {
				return usageError{error: fmt.Errorf("-np %s: the number of ranks must be at least 1", args[1])}
			}
			np, args = n, args[2:]
			continue
		case a == "-no-launch" || a == "--no-launch":
			noLaunch, args = true, args[1:]
			continue
		case a == "-html" || a == "--html":
			if len(args) < 2 {
				return usageError{error: fmt.Errorf("-html needs a file name (the test's HTML page)")}
			}
			htmlOut, args = args[1], args[2:]
			continue
		case a == "-set" || a == "--set":
			if len(args) < 2 || sets.Set(args[1]) != nil {
				return usageError{error: fmt.Errorf("-set needs a session key and its value, KEY=VALUE (e.g. -set transfer_runs=NO)")}
			}
			args = args[2:]
			continue
		case a == "-h" || a == "--help" || a == "-help":
			fmt.Fprint(stdout, iorUsage)
			return nil
		}
		break
	}
	c, warns, err := ior.Parse(args)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return usageError{error: err, printed: true}
	}
	if len(sets) > 0 { // a bad key or value stops here, before any rank is launched
		if _, err := iorConfig(c, args, sets); err != nil {
			fmt.Fprintln(stderr, err)
			return usageError{error: err, printed: true}
		}
	}
	if !launch.Underneath() && !noLaunch {
		if htmlOut != "" {
			args = append([]string{"-html", htmlOut}, args...)
		}
		for i := len(sets) - 1; i >= 0; i-- {
			args = append([]string{"-set", sets[i].Key + "=" + sets[i].Value}, args...)
		}
		// The ranks inherit the environment (mpirun passes it to local ranks).
		if err := os.Setenv("GODEBUG", iorGODEBUG(os.Getenv("GODEBUG"))); err != nil {
			return err
		}
		return relaunch(&job{ranks: np, command: "ior"}, args, stdout, stderr)
	}
	if err := iorReexec(); err != nil {
		fmt.Fprintf(stderr, "h5proxy ior: %v (the rank runs with Go's asynchronous preemption on)\n", err)
	}
	return runIOR(c, warns, args, sets, htmlOut, stdout, stderr)
}

const iorUsage = `Usage: h5proxy ior [-np N] [-no-launch] [-html PAGE.html] [-set KEY=VALUE ...] [IOR options]

IOR's options as IOR takes them (docs/ior.md): -a POSIX|MPIIO|HDF5, -b, -t, -s, -F, -c,
-C, -Q, -Z, -X, -z, -e, -Y, -w, -r, -W, -R, -k, -K, -i, -d, -o, -O key=value,..., -g, -x,
-H, -J, -n, -A, -G, -U, -v, -V (--mpiio.useFileView). Sizes take k, m or g (x1024^n). MPI hints come from
IOR_HINT__MPI__<key>=<value> variables or the -U file. h5proxy ior prints IOR 3.3's
report on rank 0; -np N launches N ranks when not started by mpirun; -html writes the
results as one self-contained HTML page (table and figure) as well. -set KEY=VALUE sets a
session key over the test's own (e.g. -set transfer_runs=NO for an A/B comparison).
`

// iorGODEBUG is the GODEBUG h5proxy ior launches its ranks with: the user's, plus
// asyncpreemptoff=1 unless the user set asyncpreemptoff. A rank spends its transfers in C
// (a run of 64 reads of 4 MiB is one C call of tens of milliseconds); the Go runtime's
// monitor signals a thread that has been in one call for 10 ms (SIGURG, a tgkill) to
// preempt it, which cannot preempt C code and only interrupts the copy. IOR has no such
// signals; without async preemption Go still preempts at function calls.
// (`bench/ior/syscalls.sh`: rank 0's read phase, docs/metrics.md.)
func iorGODEBUG(user string) string {
	for _, kv := range strings.Split(user, ",") {
		if k, _, _ := strings.Cut(kv, "="); strings.TrimSpace(k) == "asyncpreemptoff" {
			return user
		}
	}
	if user == "" {
		return "asyncpreemptoff=1"
	}
	return user + ",asyncpreemptoff=1"
}

// iorReexecEnv marks a rank that re-executed itself with iorGODEBUG's setting
// (iorReexec): such a rank never re-executes again.
const iorReexecEnv = "H5PROXY_IOR_REEXEC"

// iorReexec re-executes this rank of h5proxy ior, started by the user's own launcher
// (mpirun -np N h5proxy ior ...) or with -no-launch, with iorGODEBUG's setting when its
// GODEBUG lacks it: the Go runtime reads asyncpreemptoff once, at start-up, so the only
// way to turn it on for a running process is to start it again. The same executable
// (/proc/self/exe) gets the same argv and environment (the launcher's OMPI_* and PMIx
// variables included) plus GODEBUG and the marker iorReexecEnv, and keeps the process
// id and every descriptor not opened close-on-exec (stdin, stdout, stderr), so the
// launcher sees the same rank. It does nothing when the marker is set (no loop), when
// the user's GODEBUG names asyncpreemptoff (their choice stands), when the process is
// not the command line's ior command, or when MPI is already initialized or finalized:
// internal/mpi/preinit starts MPI in a C constructor before main under the Cache and Log
// VOL connectors, and a rank that has called MPI_Init must not exec (its launcher would
// see it initialize twice); such a rank keeps preemption on. It returns only when it does
// not re-execute, with exec's error if exec failed.
func iorReexec() error {
	if _, ok := os.LookupEnv(iorReexecEnv); ok || len(os.Args) < 2 || os.Args[1] != "ior" {
		return nil
	}
	user := os.Getenv("GODEBUG")
	g := iorGODEBUG(user)
	if g == user || mpi.Initialized() || mpi.Finalized() {
		return nil
	}
	env := make([]string, 0, len(os.Environ())+2)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") {
			env = append(env, kv)
		}
	}
	env = append(env, "GODEBUG="+g, iorReexecEnv+"=1")
	err := syscall.Exec("/proc/self/exe", os.Args, env)
	return fmt.Errorf("re-executing with GODEBUG=%s: %w", g, err)
}

// iorConfig is the session configuration of an IOR test: the ior pattern with the
// command line's parameters, the API's layout, data that stay the same over iterations
// (fill=once), verified reads with -W or -R, posix fsyncs with -e or -Y, and the hints;
// then the session keys of -set (KEY=VALUE), in order.
func iorConfig(c ior.Config, args []string, sets []options.KV) (proxy.Config, error) {
	kvs, err := ior.ParseArgs(args)
	if err != nil {
		return proxy.Config{}, err
	}
	verify := "no"
	if c.CheckWrite || c.CheckRead {
		verify = "yes"
	}
	kvs = append(kvs, options.KV{Key: "file", Value: c.TestFile}, options.KV{Key: "layout", Value: c.Layout()},
		options.KV{Key: "fill", Value: "once"}, options.KV{Key: "verify", Value: verify})
	if c.API == "POSIX" && (c.Fsync || c.FsyncPerWrite) {
		kvs = append(kvs, options.KV{Key: "posix.fsync", Value: "flush"})
	}
	cfg, err := proxy.ParseOptions("ior", kvs)
	if err != nil {
		return cfg, err
	}
	for _, kv := range sets {
		if err := cfg.Set(kv.Key, kv.Value); err != nil {
			return cfg, fmt.Errorf("-set %s=%s: %w", kv.Key, kv.Value, err)
		}
	}
	cfg.Phases = nil
	if c.WriteFile {
		cfg.Phases = append(cfg.Phases, patterns.PhaseWrite)
	}
	if c.ReadFile || c.CheckRead || c.CheckWrite {
		cfg.Phases = append(cfg.Phases, patterns.PhaseRead)
	}
	if cfg.MPIInfo, err = iorHints(c.HintsFile); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

// iorHints are the MPI hints of IOR_HINT__MPI__ variables, then of the hints file's lines
// (utilities.c: SetHints); IOR's other hint families (GPFS) have no counterpart here.
func iorHints(file string) (map[string]string, error) {
	hints := map[string]string{}
	add := func(line string) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && strings.HasPrefix(k, iorHintPrefix) {
			hints[strings.TrimPrefix(k, iorHintPrefix)] = v
		}
	}
	for _, e := range os.Environ() {
		add(e)
	}
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("ior ERROR: cannot open hints file %s: %w", file, err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			add(sc.Text())
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	if len(hints) == 0 {
		return nil, nil
	}
	return hints, nil
}

// runIOR runs the test in this MPI process and prints IOR's report on rank 0.
func runIOR(c ior.Config, warns, args []string, sets []options.KV, htmlOut string, stdout, stderr io.Writer) error {
	cfg, err := iorConfig(c, args, sets)
	if err != nil {
		return err
	}
	world, done, err := startRank("warn")
	if err != nil {
		return err
	}
	defer done()
	// What the tests check from inside a rank (TestIORReexec): the setting the Go
	// runtime started with, and whether this rank re-executed itself for it.
	_, reexec := os.LookupEnv(iorReexecEnv)
	lg := proxy.RankLogger(world.Rank())
	lg.Debug().Str("godebug", os.Getenv("GODEBUG")).Bool("reexecuted", reexec).Int("pid", os.Getpid()).Msg("ior rank")
	out := stdout
	if world.Rank() != 0 {
		out = io.Discard
	}
	began := time.Now()
	host, _ := os.Hostname()
	fmt.Fprintf(out, "IOR-%s: MPI Coordinated Test of Parallel I/O\n", ior.Version)
	for _, w := range warns {
		fmt.Fprintf(out, "ior WARNING: %s\n", w)
	}
	apiVersion := iorAPIVersion(c.API)
	lines := []string{ior.KV("Began", began.Format(iorTime)), ior.KV("Command line", "h5proxy ior "+strings.Join(args, " ")),
		ior.KV("Machine", "Linux "+host), ior.KV("TestID", "0"), ior.KV("StartTime", time.Now().Format(iorTime))}
	lines = append(lines, fsLines(c.TestFile)...)
	lines = append(lines, "")
	lines = append(lines, c.OptionsBlock(c.TestFile, apiVersion, world.Size())...)
	for _, l := range lines {
		fmt.Fprintln(out, l)
	}
	if c.ShowHints {
		fmt.Fprintf(out, "\nhints passed to MPI_File_open {\n")
		keys := make([]string, 0, len(cfg.MPIInfo))
		for k := range cfg.MPIInfo {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(out, "\t%s = %s\n", k, cfg.MPIInfo[k])
		}
		fmt.Fprintf(out, "}\n")
	}
	fmt.Fprintf(out, "\nResults: \n\n%s\n", ior.ResultsHeader)
	s, err := proxy.NewSession(world, cfg)
	if err != nil {
		return err
	}
	calls := &iorCalls{c: c, hints: cfg.MPIInfo, world: mpi.World(), file: cfg.File}
	removals, runErr := runIORIterations(s, calls, cfg)
	var rep *proxy.Report
	if runErr == nil {
		rep, runErr = s.Report()
	}
	if cerr := s.Close(); runErr == nil {
		runErr = cerr
	}
	if runErr != nil && !c.KeepFile && !c.KeepFileWithError && cfg.StoresData() && calls.mine() {
		// What a failed iteration left (IOR aborts): no collective call, the ranks may
		// not all be here.
		if err := os.Remove(calls.name(world.Rank())); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stderr, "h5proxy ior: removing %s: %v\n", calls.name(world.Rank()), err)
		}
	}
	if runErr != nil {
		if errors.Is(runErr, proxy.ErrVerify) {
			return fmt.Errorf("ior ERROR: data check error: %w", runErr)
		}
		return runErr
	}
	printIORResults(out, c, rep, max(1, len(cfg.Phases)), removals)
	fmt.Fprintln(out, ior.KV("Finished", time.Now().Format(iorTime)))
	if htmlOut != "" && world.Rank() == 0 {
		pg, err := iorPage("h5proxy ior "+strings.Join(args, " "), rep)
		if err != nil {
			return err
		}
		return pg.WriteFile(htmlOut)
	}
	return nil
}

// runIORIterations runs IOR's iterations in IOR's order (ior.c: TestIoSys): the check
// whether the file exists, then per iteration the file's removal (untimed, -k or not), the
// write, the read (or check), each access followed by IOR's file-size check, then, unless
// -k, the timed removal of the file last accessed, whose times it returns. Each access of
// an iteration is a phase of one step, so the session's reports come in IOR's order. A
// failed iteration stops the test; the caller removes what is left.
func runIORIterations(s *proxy.Session, k *iorCalls, cfg proxy.Config) ([]float64, error) {
	c, rank, size := k.c, k.world.Rank(), k.world.Size()
	stores := cfg.StoresData()
	if stores {
		k.existing()
	}
	pat := ior.Pattern{}
	pat.C = c
	moved := int64(c.Segments) * int64(c.BlockSize) // a task's bytes per access
	var removals []float64
	for i := 0; i < c.Repetitions; i++ {
		if err := s.Iterate(i); err != nil {
			return removals, err
		}
		last := k.name(rank)
		for _, ph := range cfg.Phases {
			write := ph == patterns.PhaseWrite
			if write && stores {
				// IOR removes the file(s) before each write, -k or not.
				if err := k.removeFile(last); err != nil {
					return removals, err
				}
			}
			if err := s.RunPhase(ph); err != nil {
				return removals, err
			}
			if !stores || (!write && !c.ReadFile && !c.CheckRead) {
				continue // IOR's write check alone has no size check
			}
			file := last
			if !write {
				// The file read: another task's with -F and a reordered read.
				file = k.name((rank + pat.RankOffset(rank, size, i)) % size)
			}
			if _, err := k.checkFileSize(file, moved); err != nil {
				return removals, err
			}
			if !write && !c.ReorderRandom {
				last = file // RemoveFile removes the file last named (its own after -Z)
			}
		}
		if !c.KeepFile && stores {
			t, err := k.timedRemove(last)
			if err != nil {
				return removals, err
			}
			removals = append(removals, t)
		}
	}
	return removals, nil
}

// iorAPIVersion is IOR 3.3's apiVersion line (its backends' get_version): HDF5's library
// version and "(Parallel)", MPI-IO's MPI standard version in parentheses, nothing for
// POSIX.
func iorAPIVersion(api string) string {
	switch api {
	case "HDF5":
		return proxy.HDF5Version() + " (Parallel)"
	case "MPIIO":
		major, minor := proxy.MPIStandardVersion()
		return fmt.Sprintf("(%d.%d)", major, minor)
	}
	return ""
}

// fsLines are IOR's Path and FS lines (utilities.c: ShowFileSystemSize) for the test
// file's directory.
func fsLines(file string) []string {
	dir, _ := filepath.Abs(filepath.Dir(file))
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return []string{ior.KV("Path", dir)}
	}
	total := float64(st.Blocks) * float64(st.Bsize)
	used := 100 * (1 - float64(st.Bfree)/max(float64(st.Blocks), 1))
	unit, div := "GiB", float64(1<<30)
	if total >= 1<<40 {
		unit, div = "TiB", float64(1<<40)
	}
	inodesUsed := 100 * (1 - float64(st.Ffree)/max(float64(st.Files), 1))
	return []string{ior.KV("Path", dir), ior.KV("FS", fmt.Sprintf("%.1f %s   Used FS: %2.1f%%   Inodes: %.1f Mi   Used Inodes: %2.1f%%",
		total/div, unit, used, float64(st.Files)/(1<<20), inodesUsed))}
}

// printIORResults prints the results rows in the order the session ran them (write, then
// read, per iteration, as IOR: perIter phases an iteration), each iteration's removal
// after its rows, the Max lines and the summary table; the Max and summary lines of an
// access are those of its last phase run, which cover all its iterations.
func printIORResults(out io.Writer, c ior.Config, rep *proxy.Report, perIter int, removals []float64) {
	var maxLines, summary [2]string // write, read
	for i := range rep.Phases {
		p := &rep.Phases[i]
		k := p.Kernel
		slot := 0
		if p.Phase != patterns.PhaseWrite.String() {
			slot = 1
		}
		// A write check alone (-W without -r or -R) is not timed in IOR: no read rows.
		if len(k) >= 2 && (slot == 0 || c.ReadFile || c.CheckRead) {
			for _, l := range k[:len(k)-2] {
				fmt.Fprintln(out, l.Text)
			}
			maxLines[slot], summary[slot] = k[len(k)-2].Text, k[len(k)-1].Text
		}
		if iter := i / perIter; (i+1)%perIter == 0 && iter < len(removals) {
			fmt.Fprintln(out, ior.RemoveRow(removals[iter], iter))
		}
	}
	for _, l := range maxLines {
		if l != "" {
			fmt.Fprintln(out, l)
		}
	}
	fmt.Fprintf(out, "\nSummary of all tests:\n%s\n", ior.SummaryHeader)
	for _, l := range summary {
		if l != "" {
			fmt.Fprintln(out, l)
		}
	}
}
