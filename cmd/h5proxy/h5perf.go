package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns/h5perf"
	"github.com/h5proxy/h5proxy/proxy"
)

// launchedFlag marks the per-process-count jobs `h5proxy h5perf` starts: they print no
// parameters block (the starting process did) and run their world's size.
const launchedFlag = "--h5proxy-launched"

// h5perfUsage is h5perf's usage text (pio_perf.c's usage()), abridged to its option list.
const h5perfUsage = `usage: h5perf [OPTIONS]
  OPTIONS
     -h, --help                  Print a usage message and exit
     -a S, --align=S             Alignment of objects in HDF5 file [default: 1]
     -A AL, --api=AL             Which APIs to test [default: all of them]
     -B S, --block-size=S        Block size within transfer buffer
                                 [default: half the number of bytes per process
                                           per dataset]
     -c, --chunk                 Create HDF5 datasets using chunked storage
     -C, --collective            Use collective I/O for MPI and HDF5 APIs
     -d N, --num-dsets=N         Number of datasets per file [default: 1]
     -D DL, --debug=DL           Indicate the debugging level
     -e S, --num-bytes=S         Number of bytes per process per dataset
                                 [default: 256K for 1D, 8K for 2D]
     -F N, --num-files=N         Number of files [default: 1]
     -g, --geometry              Use 2D geometry [default: 1D geometry]
     -i N, --num-iterations=N    Number of iterations to perform [default: 1]
     -I, --interleaved           Interleaved access pattern
     -o F, --output=F            Output raw data into file F [default: none]
     -p N, --min-num-processes=N Minimum number of processes to use [default: 1]
     -P N, --max-num-processes=N Maximum number of processes to use
                                 [default: all MPI_COMM_WORLD processes ]
     -T S, --threshold=S         Threshold for alignment of objects in HDF5 file
     -w, --write-only            Perform write tests not the read tests
     -x S, --min-xfer-size=S     Minimum transfer buffer size
     -X S, --max-xfer-size=S     Maximum transfer buffer size

  S  - a size: an integer >=0 followed by K, M or G (1024-based)
  AL - a list of APIs: phdf5, mpiio, posix (e.g. --api=mpiio,phdf5)
  DL - a list of debugging flags: 1-4, r (raw data rates), t (times), v (verify)

  h5proxy runs POSIX on its posix layout, MPIO on mpiio and PHDF5 on native; started
  without mpirun it launches each process count of -P..-p (halving) on its own.
  Environment: HDF5_NOCLEANUP (keep the data files), HDF5_PARAPREFIX (their directory).
`

// cmdH5perf runs h5perf's command line: outside a launcher it prints the parameters and
// launches one job per process count; inside one it runs every transfer size and API on
// the job's ranks.
func cmdH5perf(args []string, stdout, stderr io.Writer) error {
	launched := len(args) > 0 && args[0] == launchedFlag
	if launched {
		args = args[1:]
	}
	if !launch.Underneath() {
		a, err := parseH5perf(args, 1, stdout)
		if err != nil {
			return err
		}
		out, closeOut, err := h5perfOutput(a, true, stdout)
		if err != nil {
			return err
		}
		writeParameters(a, 0, stdout, out)
		if err := closeOut(); err != nil {
			return err
		}
		for _, n := range a.Procs() {
			code, err := launch.Self(n, append([]string{"h5perf", launchedFlag}, args...)...)
			if err != nil {
				return err
			}
			if code != 0 {
				return fmt.Errorf("h5perf: the %d-process run failed (exit status %d)", n, code)
			}
		}
		return nil
	}
	return h5perfJob(args, launched, stdout, stderr)
}

// parseH5perf parses and checks every run of the command line before any I/O.
func parseH5perf(args []string, world int, stdout io.Writer) (h5perf.Args, error) {
	a, err := h5perf.Parse(args, world)
	if errors.Is(err, h5perf.ErrUsage) {
		fmt.Fprint(stdout, h5perfUsage)
		if err == h5perf.ErrUsage {
			return a, usageError{error: err, printed: true}
		}
		return a, usageError{error: err}
	}
	if err != nil {
		return a, usageError{error: err}
	}
	for _, n := range a.Procs() {
		for _, x := range a.Sizes() {
			for _, api := range h5perf.APIs {
				if a.APIs&api.Bit == 0 {
					continue
				}
				c := a.Run(api.Name, x)
				if _, err := c.Check(n); err != nil {
					return a, fmt.Errorf("%s API, %d processes, transfer size %d: %w", api.Label, n, x, err)
				}
			}
		}
	}
	return a, nil
}

// h5perfOutput opens the report's destination: standard output, or -o's file (truncated
// by the first writer, appended to by the launched jobs).
func h5perfOutput(a h5perf.Args, first bool, stdout io.Writer) (io.Writer, func() error, error) {
	if a.Output == "" {
		return stdout, func() error { return nil }, nil
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if first {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(a.Output, flags, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("h5perf: cannot open output file: %w", err)
	}
	return f, f.Close, nil
}

// writeParameters prints h5perf's parameters block: its version line and MPI info dump to
// standard output (printf), the rest to the report's output.
func writeParameters(a h5perf.Args, rank int, stdout, out io.Writer) {
	for _, l := range a.Parameters(rank, proxy.HDF5Version(), os.Getenv("HDF5_PARAPREFIX")) {
		fmt.Fprint(out, l.Prefix)
		if l.Stdout {
			fmt.Fprintln(stdout, l.Text)
		} else {
			fmt.Fprintln(out, l.Text)
		}
	}
}

// h5perfJob runs inside an MPI job: the job's size is the process count.
func h5perfJob(args []string, launched bool, stdout, stderr io.Writer) error {
	_ = proxy.SetDefaultLogLevel("warn")
	finalize, err := proxy.InitMPI()
	if err != nil {
		return err
	}
	defer finalize()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	world := proxy.World()
	rank, n := world.Rank(), world.Size()
	usageOut := io.Discard // the usage, like the report, comes from rank 0
	if rank == 0 {
		usageOut = stdout
	}
	a, err := parseH5perf(args, n, usageOut)
	if err != nil {
		return err
	}
	if !slices.Contains(a.Procs(), n) {
		return usageError{error: fmt.Errorf("h5perf: started under mpirun with %d processes, -p %d -P %d asks for %v: h5proxy runs the job's own size only (start h5proxy h5perf without mpirun to launch each count)", n, a.MinProcs, a.MaxProcs, a.Procs())}
	}
	out := io.Discard
	if rank == 0 {
		w, closeOut, err := h5perfOutput(a, !launched, stdout)
		if err != nil {
			return err
		}
		defer closeOut()
		out = w
		if !launched {
			writeParameters(a, 0, stdout, out)
			if len(a.Procs()) > 1 {
				fmt.Fprintf(stderr, "h5proxy: warning: h5perf under mpirun runs the job's %d processes only, not %v\n", n, a.Procs())
			}
		}
		if os.Getenv("HDF5_MPI_INFO") != "" {
			fmt.Fprintln(stderr, "h5proxy: warning: HDF5_MPI_INFO is not applied (h5proxy's layouts open files with MPI_INFO_NULL)")
		}
	}
	dir, err := h5perfDir()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Number of processors = %d\n", n)
	for _, x := range a.Sizes() {
		for _, l := range a.SizeHeader(n, x) {
			fmt.Fprintln(out, l)
		}
		for _, api := range h5perf.APIs {
			if a.APIs&api.Bit == 0 {
				continue
			}
			lines, err := h5perfRun(world, a.Run(api.Name, x), api.Layout, dir)
			if err != nil {
				return fmt.Errorf("h5perf: %s, transfer size %d: %w", api.Label, x, err)
			}
			for _, l := range lines {
				fmt.Fprintln(out, l)
			}
		}
	}
	return nil
}

// h5perfDir is where h5perf puts its files: HDF5_PARAPREFIX/$USER (or $LOGIN, created if
// missing; the prefix itself when it cannot be), else the current directory.
func h5perfDir() (string, error) {
	prefix := os.Getenv("HDF5_PARAPREFIX")
	if prefix == "" {
		return ".", nil
	}
	sub := os.Getenv("USER")
	if sub == "" {
		sub = os.Getenv("LOGIN")
	}
	if sub == "" {
		return prefix, nil
	}
	d := filepath.Join(prefix, sub)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return prefix, nil
	}
	return d, nil
}

// h5perfRun runs one API at one transfer size as a session and returns its report lines
// (collective).
func h5perfRun(world proxy.Comm, c h5perf.Config, layout, dir string) ([]string, error) {
	c.NoCleanup = os.Getenv("HDF5_NOCLEANUP") != ""
	kvs := append(c.KVs(), options.KV{Key: "layout", Value: layout}, options.KV{Key: "file", Value: filepath.Join(dir, "h5perf")})
	if c.FileView() {
		kvs = append(kvs, options.KV{Key: "mpiio.file_view", Value: "YES"})
	}
	cfg, err := proxy.ParseOptions("h5perf", kvs)
	if err != nil {
		return nil, err
	}
	s, err := proxy.NewSession(world, cfg)
	if err != nil {
		return nil, err
	}
	err = s.Run()
	var r *proxy.Report
	if err == nil {
		r, err = s.Report()
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, ph := range r.Phases {
		for _, l := range ph.Kernel {
			if l.Text != "" {
				lines = append(lines, l.Text)
			}
		}
	}
	return lines, nil
}
