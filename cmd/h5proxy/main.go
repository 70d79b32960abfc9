// Command h5proxy runs HDF5 I/O proxies: h5bench configuration files unchanged, native
// h5proxy configurations, plans printed per rank, and option help.
//
//	h5proxy run [flags] [CONFIG.json]   run (no file: the embedded demo on 2 ranks)
//	h5proxy sweep [flags] CONFIG.json KEY=v1,v2,... [KEY=...]   parameter study, CSV and plots
//	h5proxy check [-np N] DESCRIPTION.yaml [KEY=VALUE ...]   check a description, no I/O
//	h5proxy plan [flags] PATTERN [KEY=VALUE ...]
//	h5proxy ior [-np N] [IOR options]    an IOR command line, IOR's report
//	h5proxy help [TOPIC]                commands, or the keys of a pattern or the session
//	h5proxy inspect FILE.h5             list groups and datasets (independent reader)
//	h5proxy derive FILE.h5... [-np N] [-o F.yaml]   a description of existing files
//	h5proxy replay LOG.h5 OUT.h5        log-layout file to the canonical layout
//	h5proxy fuse MASTER.h5 OUT.h5       subfiled file to one plain file
//	h5proxy concat -o OUT.h5 IN.h5...   concatenate files of one schema in parallel
//	h5proxy schema [DESC.yaml]          JSON Schema of the h5bench files accepted (app entries: DESC's parameters)
//	h5proxy h5perf [h5perf options]     HDF5's parallel h5perf with its report
//	h5proxy profile [-np N] [-o P.json] [-trace] -- PROGRAM ARGS...   profile any program
//	h5proxy profile diff A.json B.json  compare two profiles counter by counter
//	h5proxy compare -reps R -- REAL ARGS... -- PROXY-CONFIG   real program against its proxy
//	h5proxy capture [-np N] -o APP.yaml -- PROGRAM ARGS...   a program's I/O as a description
//	h5proxy macsio [-np N] [options]    MACSio's command line, its log and timings files
//	h5proxy version
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	// MPI before HDF5 starts where HDF5 loads the Cache VOL (see the package).
	_ "github.com/h5proxy/h5proxy/internal/mpi/preinit"
	"github.com/h5proxy/h5proxy/proxy"
)

const usage = `h5proxy: HDF5 I/O proxies of real application and benchmark I/O.

Usage:
  h5proxy run [flags] [CONFIG.json]           run an h5bench or native configuration
                                              (no file: the embedded demo, 2 ranks)
  h5proxy sweep [flags] CONFIG.json KEY=v1,v2,... [KEY=...]
                                              run a configuration over a grid of key
                                              values, repeated; CSV, JSON and plots
  h5proxy run [flags] DESCRIPTION.yaml [KEY=VALUE...]
                                              run an application description (docs/apps.md)
  h5proxy check [-np N] DESCRIPTION.yaml [KEY=VALUE...]
                                              check a description on N ranks, no I/O
  h5proxy plan [flags] PATTERN [KEY=VALUE...] print the operations one rank issues
                                              (a description file in place of PATTERN)
  h5proxy ior [-np N] [IOR options]           run an IOR command line, print IOR's report
  h5proxy help [session|concat|PATTERN]       list configuration keys
  h5proxy inspect FILE.h5                     list a file's groups and datasets
  h5proxy derive FILE.h5... [-np N] [-o F.yaml]
                                              write a description of existing files
  h5proxy replay LOG.h5 OUT.h5                rewrite a log-layout file as a plain HDF5 file
  h5proxy fuse MASTER.h5 OUT.h5               turn a subfiled file into one plain HDF5 file
  h5proxy concat -o OUT.h5 [flags] IN.h5...   concatenate HDF5 files of one schema in parallel
                                              (-np N ranks; tuning flags: h5proxy help concat)
  h5proxy schema [DESC.yaml]                  print the JSON Schema of accepted h5bench files (app entries: DESC's parameters)
  h5proxy h5perf [h5perf options]             HDF5's parallel h5perf (POSIX, MPI-IO, PHDF5)
                                              with its report ('h5proxy h5perf -h')
  h5proxy profile [-np N] [-o P.json] [-trace] -- PROGRAM ARGS...
                                              run any program under libh5proxy-profile.so:
                                              Darshan's POSIX, MPIIO, H5F, H5D counters per
                                              file, JSON, CSV and plots (docs/profile.md)
  h5proxy profile diff [-v] A.json B.json     two profiles counter by counter (exit 1: differ);
                                              either may be a Darshan log (LOG.darshan)
  h5proxy profile show P.json|LOG.darshan     a profile's or a Darshan log's summary
  h5proxy compare [-np N] [-reps R] -- REAL ARGS... -- PROXY-CONFIG
                                              a real program and its proxy: profiles diffed,
                                              times against the A/A band of the same run
  h5proxy report [-o OUT.html] PROFILE.json|SWEEP-DIR|-compare A.json B.json
                                              one self-contained HTML page of a profile,
                                              a comparison or a study (docs/profile.md)
  h5proxy capture [-np N] -o APP.yaml -- PROGRAM ARGS...
                                              a program's traced profile folded into an
                                              application description (docs/apps.md)
  h5proxy macsio [-np N] [MACSio options]     LLNL's MACSio (HDF5 plugin, SIF or MIF) with its
                                              log and timings files ('h5proxy macsio --help')
  h5proxy version                             print versions

Started outside an MPI launcher, 'run' launches itself with the configuration's mpi
section (mpirun -np <ranks>), 'concat -np N' on N ranks; inside mpirun they run directly.
Run 'h5proxy COMMAND --help' for a command's flags.

Environment: H5PROXY_LOG_LEVEL (trace..error), H5PROXY_LOG_RANKS (0, all, 0,3),
H5PROXY_LOG_FORMAT=json, H5PROXY_MPIEXEC (launcher instead of mpirun).
`

func main() {
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	// Under libh5proxy-profile.so (h5proxy profile -- h5proxy inspect ...), a command
	// without MPI writes its records now: os.Exit runs no exit handlers.
	proxy.FlushProfile()
	os.Exit(code)
}

// run dispatches a command and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(args[1:], stdout, stderr)
	case "sweep":
		err = cmdSweep(args[1:], stdout, stderr)
	case "check":
		err = cmdCheck(args[1:], stdout, stderr)
	case "plan":
		err = cmdPlan(args[1:], stdout, stderr)
	case "ior":
		err = cmdIOR(args[1:], stdout, stderr)
	case "help", "-h", "--help", "-help":
		err = cmdHelp(args[1:], stdout)
	case "inspect":
		err = cmdInspect(args[1:], stdout, stderr)
	case "derive":
		err = cmdDerive(args[1:], stdout, stderr)
	case "replay":
		err = cmdReplay(args[1:], stdout, stderr)
	case "fuse":
		err = cmdFuse(args[1:], stdout, stderr)
	case "concat":
		err = cmdConcat(args[1:], stdout, stderr)
	case "h5perf":
		err = cmdH5perf(args[1:], stdout, stderr)
	case "macsio":
		err = cmdMacsio(args[1:], stdout, stderr)
	case "schema":
		err = cmdSchema(args[1:], stdout, stderr)
	case "profile":
		err = cmdProfile(args[1:], stdout, stderr)
	case "compare":
		err = cmdCompare(args[1:], stdout, stderr)
	case "capture":
		err = cmdCapture(args[1:], stdout, stderr)
	case "report":
		err = cmdReport(args[1:], stdout, stderr)
	case "version", "--version":
		err = cmdVersion(stdout)
	default:
		fmt.Fprintf(stderr, "h5proxy: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			if !ue.printed {
				fmt.Fprintf(stderr, "h5proxy %s: %v\n", args[0], err)
			}
			return 2
		}
		fmt.Fprintf(stderr, "h5proxy: %v\n", err)
		return 1
	}
	return 0
}

// usageError marks errors in the command line itself (exit status 2).
type usageError struct {
	error
	printed bool // already reported (by the flag package)
}

func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: h5proxy %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// splitKV turns KEY=VALUE arguments into option text.
func splitKV(args []string) (string, error) {
	for _, a := range args {
		if !strings.Contains(a, "=") {
			return "", usageError{error: fmt.Errorf("argument %q is not KEY=VALUE", a)}
		}
	}
	return strings.Join(args, "\n"), nil
}
