// Package benchmain is what the benchmarks under bench/ share at start-up, so that each
// bench's main.go holds only its own study: the flags they all take (ranks, repetitions,
// the directory of the files, the memory warm-up, the A/A check, the results file of a
// launched run), the exit with the bench's name on an error, the split between the parent
// that launches the study on MPI ranks and the ranks' own part, the ranks' MPI start-up,
// a temporary directory, and a session from KEY=VALUE settings.
//
//	func main() {
//		nps := benchmain.NPs("2,4")
//		dir, results := benchmain.Dir(), benchmain.Results()
//		flag.Parse()
//		benchmain.Split("e3sm bench", func() int { return parent(*nps, *dir) }, func() error { return child(*dir, *results) })
//	}
package benchmain

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/internal/warm"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// NP declares the -np flag: the ranks of every run.
func NP(def int, usage string) *int { return flag.Int("np", def, usage) }

// NPs declares the -nps flag: the rank counts of the study, comma-separated
// (launch.Counts parses them).
func NPs(def string) *string { return flag.String("nps", def, "rank counts, comma-separated") }

// Reps declares the -reps flag: the runs of each side or point.
func Reps(def int, usage string) *int { return flag.Int("reps", def, usage) }

// Dir declares the -dir flag: the directory of the files, a temporary one when empty
// (TempDir).
func Dir() *string {
	return flag.String("dir", "", "directory for the files (default: a new temporary directory, removed at the end)")
}

// Results declares the -results flag, by which the parent tells a launched run where to
// append its lines (launch.SelfPerCount, launch.AppendLines).
func Results() *string {
	return flag.String("results", "", "internal: results file of a launched run")
}

// WarmBytes declares the -warm flag as the bytes of memory to touch before each run
// (warm.Memory).
func WarmBytes(p *int, def int) {
	flag.IntVar(p, "warm", def, "bytes of memory to touch before each run: "+warm.FlagUsage)
}

// Warm declares the -warm flag as a switch: touch as much memory as each run writes.
func Warm(p *bool) { flag.BoolVar(p, "warm", true, warm.FlagUsage) }

// AA declares the -aa flag of a comparison with a real program: both sides run that
// program (same says how), so the spread of the ratio shows the noise floor.
func AA(p *bool, same string) {
	flag.BoolVar(p, "aa", false, "A/A check: "+same+": the spread of the ratio when nothing differs, the comparison's noise floor")
}

// Exit ends the bench: with code 0 when err is nil, else with err printed after the
// bench's name and code.
func Exit(name string, code int, err error) {
	if err == nil {
		os.Exit(0)
	}
	fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	os.Exit(code)
}

// Check ends the bench as Exit does when err is not nil, and returns otherwise.
func Check(name string, code int, err error) {
	if err != nil {
		Exit(name, code, err)
	}
}

// Split runs the bench's parent or its ranks' part: child when this process was started
// by an MPI launcher (it runs on every rank; an error ends the rank with code 1), else
// parent, which launches the ranks (launch.SelfInDir, launch.SelfPerCount) and returns the
// exit code.
func Split(name string, parent func() int, child func() error) {
	if launch.Underneath() {
		Exit(name, 1, child())
	}
	os.Exit(parent())
}

// TempDir returns dir made absolute (the runs it is handed to may change directory), or
// when it is empty a new temporary directory named after the bench; done removes what
// TempDir created (nothing for a given dir).
func TempDir(name, dir string) (string, func(), error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		return abs, func() {}, err
	}
	d, err := os.MkdirTemp("", "h5proxy-"+name+"-")
	if err != nil {
		return "", nil, err
	}
	return d, func() { os.RemoveAll(d) }, nil
}

// Ranks starts a launched rank's part: MPI initialized (for the background modes' threads
// too, proxy.InitMPI), the calling goroutine locked to its thread (HDF5 and MPI calls
// are issued on it), and the world communicator. done finalizes MPI.
func Ranks() (world proxy.Comm, done func() error, err error) {
	done, err = proxy.InitMPI()
	if err != nil {
		return proxy.Comm{}, nil, err
	}
	runtime.LockOSThread()
	return proxy.World(), done, nil
}

// Session opens a session of pattern on world with settings kv ("KEY=VALUE;..."),
// running phases (all of the pattern's when none is given).
func Session(world proxy.Comm, pattern, kv string, phases ...patterns.Phase) (*proxy.Session, error) {
	kvs, err := proxy.ParseKV(kv)
	if err != nil {
		return nil, err
	}
	cfg, err := proxy.ParseOptions(pattern, kvs)
	if err != nil {
		return nil, err
	}
	if len(phases) > 0 {
		cfg.Phases = phases
	}
	return proxy.NewSession(world, cfg)
}

// Launched runs argv on np ranks under the MPI launcher (launch.Launcher; np < 1: argv
// directly), in dir when it is not empty, with extra variables added to the environment,
// and returns its combined output and its process state (the CPU time of the launcher
// and its waited-for descendants). A failure names the command line and holds the output.
func Launched(np int, dir string, extra []string, argv ...string) ([]byte, *os.ProcessState, error) {
	var env []string
	if np > 0 {
		pre, e, err := launch.Launcher(np)
		if err != nil {
			return nil, nil, err
		}
		argv, env = append(pre, argv...), e
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, append(append(os.Environ(), env...), extra...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, cmd.ProcessState, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, out)
	}
	return out, cmd.ProcessState, nil
}

// Report is what the benches read of an h5proxy JSON report (h5proxy run -report): each
// phase's name, observed time and slowest rank's raw I/O time.
type Report struct {
	Phases []struct {
		Phase        string  `json:"phase"`
		ObservedTime float64 `json:"observed_time"`
		RawTime      struct {
			Max float64 `json:"max"`
		} `json:"raw_time"`
	} `json:"phases"`
}

// ReadReport reads the h5proxy JSON report at path; a report without phases is an error.
func ReadReport(path string) (Report, error) {
	var r Report
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("report %s: %w", path, err)
	}
	if len(r.Phases) == 0 {
		return r, fmt.Errorf("report %s: no phase", path)
	}
	return r, nil
}

// Dim1 declares the -dim1 flag of the VPIC benches: particles per rank (DIM_1, a size
// such as 2097152 or 1M), 32 bytes each per step.
func Dim1(def string) *string {
	return flag.String("dim1", def, "particles per rank (DIM_1): 32 bytes each per step")
}

// Steps declares the -steps flag of the VPIC benches: timesteps per run.
func Steps(def int) *int { return flag.Int("steps", def, "timesteps per run") }

// VPICBytes is what a rank writes in a VPIC run of dim1 particles per rank (-dim1) and
// steps timesteps: 8 variables of 4 bytes per particle and step; 0 when dim1 is not a
// size (the session refuses it, naming DIM_1).
func VPICBytes(dim1 string, steps int) int {
	n, _ := options.ParseSize(dim1)
	return int(n) * 32 * steps
}
