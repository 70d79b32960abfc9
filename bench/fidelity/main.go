// Command fidelity times h5proxy against the C reference programs of bench/ref, which issue
// the real kernels' HDF5 call sequences (h5bench's VPIC-IO write and BD-CATS read, E3SM-IO's
// canonical HDF5 write), case by case: it runs the reference and `bin/h5proxy run` with the
// equivalent h5bench configuration interleaved (A B A B ...), each under the MPI launcher
// at the given rank count, deletes each run's files after it (outside both programs' timed
// windows), and prints per case the medians and min–max spreads of the observed and raw
// times and the ratio h5proxy / reference of the medians.
//
//	make bench-ref build && go run ./bench/fidelity -np 2 -reps 7     # or: make bench
//	go run ./bench/fidelity -cases vpic-write -reps 3 -dim1 1048576
//
// Cases (issue 12): vpic-write (1-D CONTIG/CONTIG, collective data and metadata, DIM_1
// particles per rank, -steps steps, DELAYED_CLOSE_TIMESTEPS -delay, no compute), vpic-read
// (BD-CATS -read FULL, PARTIAL or STRIDED over a file h5proxy wrote once before the runs) and e3sm-f, e3sm-g,
// e3sm-i (E3SM-IO's F case, h0 and h1; G, one file; I, h0 and h1; from the 16p maps in -maps). Times are as each program reports them: h5proxy's JSON
// report (observed_time, raw_time.max and, for insight, observed − prep_in_window_time.max:
// h5bench configurations default to fill=once, which prepares the data before the window) and the
// reference's printed lines (h5bench's "Observed completion time", "Raw write time", ...;
// for the e3sm cases the sum over the files of E3SM-IO's end-to-end maxima and of its "posting
// write requests" maxima).
//
// -e3sm-order picks the request order of both programs: sorted (the default: the
// read_decomp that sorts and coalesces each rank's requests, whose cost is the measured
// E3SM-IO's, docs/fidelity-notes.md §3) or map (read_decomp after E3SM-IO's pull request
// 165; h5proxy then runs with order=map).
//
// The e3sm references write the variables of h5proxy's patterns/e3sm (names, shapes,
// decompositions, attributes and their types; char variables H5T_NATIVE_CHAR, signed, in
// both).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/internal/warm"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns/e3sm"
)

// sample is one run's times in seconds; prep is h5proxy's data preparation inside its
// window (0 for the references, which prepare outside).
type sample struct{ observed, raw, prep float64 }

// side is one of the two programs of a case.
type side struct {
	argv  func(run int) []string       // program and arguments (without the launcher)
	parse func([]byte) (sample, error) // times from its output
	files func(run int) []string       // files to delete after the run
}

type benchCase struct {
	name, what string
	ref, proxy side
}

func main() {
	np, reps := benchmain.NP(2, "ranks of every run"), benchmain.Reps(7, "runs of each program per case (interleaved)")
	benchmain.WarmBytes(&warmBytes, 1<<30)
	benchmain.AA(&aa, "the reference on both sides (its h5proxy column is a second reference run)")
	cases := flag.String("cases", "vpic-write,vpic-read,e3sm-f", "cases to run, comma-separated")
	dim1 := flag.Uint64("dim1", 2097152, "VPIC particles per rank (DIM_1)")
	steps := flag.Int("steps", 4, "VPIC timesteps")
	delay := flag.Int("delay", 2, "VPIC DELAYED_CLOSE_TIMESTEPS")
	mapDir := flag.String("maps", filepath.Join("data", "e3sm"), "directory of E3SM-IO's maps (HDF5 form) map_<f|g|i>_case_16p.h5 for e3sm-f, e3sm-g and e3sm-i")
	records := flag.Int("r", 1, "E3SM-IO records (-r) of the F h1, G and I h0 files")
	order := flag.String("e3sm-order", "sorted", "request order of the E3SM reference and h5proxy: sorted (E3SM-IO read_decomp sorting and merging each rank's requests; h5proxy's default) or map (E3SM-IO after its pull request 165; h5proxy order=map)")
	bin := flag.String("bin", "bin", "directory holding h5proxy and ref/ (make build bench-ref)")
	dir := benchmain.Dir()
	var ro readOpts
	flag.StringVar(&ro.option, "read", "FULL", "vpic-read READ_OPTION: FULL, PARTIAL or STRIDED")
	flag.Uint64Var(&ro.toRead, "to-read", 0, "PARTIAL: TO_READ_NUM_PARTICLES (default DIM_1/2)")
	flag.Uint64Var(&ro.stride, "stride", 0, "STRIDED: STRIDE_SIZE (default 16)")
	flag.Uint64Var(&ro.block, "block", 0, "STRIDED: BLOCK_SIZE (default 8)")
	flag.Uint64Var(&ro.count, "block-cnt", 0, "STRIDED: BLOCK_CNT (default DIM_1/(STRIDE_SIZE+BLOCK_SIZE))")
	flag.Parse()
	if *order != "sorted" && *order != "map" {
		fmt.Fprintf(os.Stderr, "fidelity: -e3sm-order %q: want sorted or map\n", *order)
		os.Exit(2)
	}
	benchmain.Check("fidelity", 2, ro.resolve(*dim1))
	benchmain.Exit("fidelity", 1, run(*np, *reps, *cases, *dim1, *steps, *delay, *mapDir, *records, *order == "sorted", *bin, *dir, ro))
}

// readOpts are the vpic-read case's BD-CATS selection (READ_OPTION and its parameters).
type readOpts struct {
	option                       string
	toRead, stride, block, count uint64
}

// resolve checks the option and fills the parameters left at 0 with defaults for dim1.
func (o *readOpts) resolve(dim1 uint64) error {
	switch o.option {
	case "FULL":
	case "PARTIAL":
		if o.toRead == 0 {
			o.toRead = max(1, dim1/2)
		}
		if o.toRead > dim1 {
			return fmt.Errorf("-to-read %d exceeds -dim1 %d", o.toRead, dim1)
		}
	case "STRIDED":
		if o.stride == 0 {
			o.stride = 16
		}
		if o.block == 0 {
			o.block = 8
		}
		if o.count == 0 {
			o.count = dim1 / (o.stride + o.block)
		}
		if o.count == 0 || (o.stride+o.block)*o.count > dim1 {
			return fmt.Errorf("-stride %d -block %d -block-cnt %d: (STRIDE_SIZE + BLOCK_SIZE) * BLOCK_CNT must be positive and at most -dim1 %d (h5bench's bound)", o.stride, o.block, o.count, dim1)
		}
	default:
		return fmt.Errorf("-read %q: want FULL, PARTIAL or STRIDED", o.option)
	}
	return nil
}

// conf adds the read selection's keys to an h5bench read configuration.
func (o readOpts) conf(c map[string]string) {
	c["READ_OPTION"] = o.option
	switch o.option {
	case "PARTIAL":
		c["TO_READ_NUM_PARTICLES"] = strconv.FormatUint(o.toRead, 10)
	case "STRIDED":
		// h5proxy's kernel takes the strided selection from the strided file pattern.
		c["FILE_PATTERN"] = "STRIDED"
		c["STRIDE_SIZE"] = strconv.FormatUint(o.stride, 10)
		c["BLOCK_SIZE"] = strconv.FormatUint(o.block, 10)
		c["BLOCK_CNT"] = strconv.FormatUint(o.count, 10)
	}
}

// args are the reference's READ_OPTION arguments.
func (o readOpts) args() []string {
	switch o.option {
	case "PARTIAL":
		return []string{o.option, strconv.FormatUint(o.toRead, 10)}
	case "STRIDED":
		return []string{o.option, strconv.FormatUint(o.stride, 10), strconv.FormatUint(o.block, 10), strconv.FormatUint(o.count, 10)}
	}
	return []string{o.option}
}

func (o readOpts) String() string {
	switch o.option {
	case "PARTIAL":
		return fmt.Sprintf("PARTIAL (TO_READ_NUM_PARTICLES=%d)", o.toRead)
	case "STRIDED":
		return fmt.Sprintf("STRIDED (STRIDE_SIZE=%d, BLOCK_SIZE=%d, BLOCK_CNT=%d)", o.stride, o.block, o.count)
	}
	return o.option
}

func run(np, reps int, caseList string, dim1 uint64, steps, delay int, mapDir string, records int, sorted bool, bin, dir string, ro readOpts) error {
	if np < 1 || reps < 1 || steps < 1 || delay < 0 || dim1 < 1 || records < 1 {
		return fmt.Errorf("-np, -reps, -steps, -dim1 and -r must be positive and -delay not negative")
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	for _, p := range []string{"h5proxy", "ref/vpic_write", "ref/vpic_read", "ref/e3sm_canonical"} {
		if _, err := os.Stat(filepath.Join(bin, p)); err != nil {
			return fmt.Errorf("-bin %s: %s missing (run make build bench-ref): %w", bin, p, err)
		}
	}
	dir, done, err := benchmain.TempDir("fidelity", dir)
	if err != nil {
		return err
	}
	defer done()
	names := strings.Split(caseList, ",")
	var todo []benchCase
	for _, n := range names {
		var c benchCase
		var err error
		switch strings.TrimSpace(n) {
		case "vpic-write":
			c = vpicWrite(bin, dir, np, dim1, steps, delay)
		case "vpic-read":
			c, err = vpicRead(bin, dir, np, dim1, steps, ro)
		case "e3sm-f", "e3sm-g", "e3sm-i":
			c, err = e3smCase(strings.TrimPrefix(strings.TrimSpace(n), "e3sm-"), bin, dir, np, mapDir, records, sorted)
		default:
			return fmt.Errorf("-cases: unknown case %q (known: vpic-write, vpic-read, e3sm-f, e3sm-g, e3sm-i)", n)
		}
		if err != nil {
			return fmt.Errorf("case %s: %w", n, err)
		}
		if aa {
			c.proxy = c.ref
		}
		todo = append(todo, c)
	}
	if aa {
		fmt.Println("A/A check: the h5proxy column is a second run of the reference")
	}
	fmt.Printf("fidelity: %d ranks, %d interleaved runs per program; seconds (median [min–max])\n", np, reps)
	for _, c := range todo {
		var ref, px []sample
		for i := 0; i < reps; i++ {
			// A B, then B A: neither program always runs first after the other's file was
			// deleted; and memory is touched before each run, since these VMs hand idle
			// memory back to the host and the first touch (page cache included) is slow.
			order := []bool{true, false}
			if i%2 == 1 {
				order = []bool{false, true}
			}
			for _, isRef := range order {
				if err := warm.Memory(warmBytes); err != nil {
					return err
				}
				side, who := c.proxy, "h5proxy"
				if isRef {
					side, who = c.ref, "reference"
				}
				s, err := execute(np, side, i)
				if err != nil {
					return fmt.Errorf("%s %s run %d: %w", c.name, who, i, err)
				}
				if isRef {
					ref = append(ref, s)
				} else {
					px = append(px, s)
				}
			}
		}
		report(c, ref, px)
	}
	return nil
}

// warmBytes is how much memory is touched before each run (-warm).
var warmBytes int

// aa runs the reference on both sides (-aa).
var aa bool

// execute runs one side under the launcher and deletes its files afterwards.
func execute(np int, s side, i int) (sample, error) {
	out, _, err := benchmain.Launched(np, "", nil, s.argv(i)...)
	var smp sample
	if err == nil {
		if smp, err = s.parse(out); err != nil {
			err = fmt.Errorf("%s: %w\n%s", strings.Join(s.argv(i), " "), err, out)
		}
	}
	for _, f := range s.files(i) {
		os.Remove(f)
	}
	return smp, err
}

func report(c benchCase, ref, px []sample) {
	fmt.Printf("\n%s: %s\n", c.name, c.what)
	rows := []struct {
		name string
		get  func(sample) float64
	}{
		{"observed", func(s sample) float64 { return s.observed }},
		{"raw", func(s sample) float64 { return s.raw }},
		{"observed - prep", func(s sample) float64 { return s.observed - s.prep }},
	}
	fmt.Printf("  %-16s %-26s %-26s %s\n", "time", "reference", "h5proxy", "h5proxy/reference")
	for _, r := range rows {
		rm, rlo, rhi := benchstat.Summary(benchstat.Of(ref, r.get))
		pm, plo, phi := benchstat.Summary(benchstat.Of(px, r.get))
		ratio := math.NaN()
		if rm > 0 {
			ratio = pm / rm
		}
		fmt.Printf("  %-16s %-26s %-26s %.3f\n", r.name, fmt.Sprintf("%.3f [%.3f–%.3f]", rm, rlo, rhi),
			fmt.Sprintf("%.3f [%.3f–%.3f]", pm, plo, phi), ratio)
	}
}

// h5benchConfig writes an h5bench-style configuration with one benchmark and returns its path.
func h5benchConfig(dir, name, benchmark, file string, np int, conf map[string]string) (string, error) {
	doc := map[string]any{
		"mpi":        map[string]string{"command": "mpirun", "ranks": strconv.Itoa(np)},
		"directory":  dir,
		"benchmarks": []any{map[string]any{"benchmark": benchmark, "file": file, "configuration": conf}},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, name+".json")
	return p, os.WriteFile(p, b, 0o644)
}

// proxySide runs `h5proxy run` on a configuration and reads its JSON report.
func proxySide(bin, dir, name, cfg string, files func(int) []string) side {
	rep := filepath.Join(dir, name+"-report.json")
	return side{
		argv: func(int) []string {
			return []string{filepath.Join(bin, "h5proxy"), "run", "-quiet", "-report", rep, cfg}
		},
		files: func(i int) []string { return append(files(i), rep) },
		parse: func([]byte) (sample, error) { return proxyReport(rep) },
	}
}

// proxyReport reads the first phase of h5proxy's JSON report.
func proxyReport(path string) (sample, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return sample{}, err
	}
	var r struct {
		Phases []struct {
			Observed float64 `json:"observed_time"`
			Raw      struct {
				Max float64 `json:"max"`
			} `json:"raw_time"`
			Prep struct {
				Max float64 `json:"max"`
			} `json:"prep_in_window_time"`
		} `json:"phases"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return sample{}, fmt.Errorf("report %s: %w", path, err)
	}
	if len(r.Phases) == 0 {
		return sample{}, fmt.Errorf("report %s: no phase", path)
	}
	p := r.Phases[0]
	return sample{observed: p.Observed, raw: p.Raw.Max, prep: p.Prep.Max}, nil
}

// lineValue finds the first number after the text matched by re in out.
func lineValue(out []byte, re *regexp.Regexp) (float64, error) {
	m := re.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no line matching %q", re)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

var (
	reObserved = regexp.MustCompile(`Observed (?:read )?completion time: ([0-9.]+) s`)
	reRawWrite = regexp.MustCompile(`Raw write time: ([0-9.]+) s`)
	reRawRead  = regexp.MustCompile(`Raw read time: ([0-9.]+) s`)
	reE2E      = regexp.MustCompile(`Total end-to-end time \(all files, max over ranks\): ([0-9.]+) s`)
	rePost     = regexp.MustCompile(`Time of posting write requests +min/max = +[0-9.]+ / +([0-9.]+)`)
)

// h5benchParser reads a reference's h5bench summary: observed and raw time.
func h5benchParser(raw *regexp.Regexp) func([]byte) (sample, error) {
	return func(out []byte) (sample, error) {
		o, err := lineValue(out, reObserved)
		if err != nil {
			return sample{}, err
		}
		r, err := lineValue(out, raw)
		return sample{observed: o, raw: r}, err
	}
}

func yes(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

func vpicConf(dim1 uint64, steps int) map[string]string {
	return map[string]string{"MEM_PATTERN": "CONTIG", "FILE_PATTERN": "CONTIG", "NUM_DIMS": "1",
		"DIM_1": strconv.FormatUint(dim1, 10), "TIMESTEPS": strconv.Itoa(steps), "COLLECTIVE_DATA": yes(true), "MODE": "SYNC"}
}

func vpicWrite(bin, dir string, np int, dim1 uint64, steps, delay int) benchCase {
	refFile := filepath.Join(dir, "ref-vpic-write.h5")
	conf := vpicConf(dim1, steps)
	conf["COLLECTIVE_METADATA"] = yes(true)
	conf["DELAYED_CLOSE_TIMESTEPS"] = strconv.Itoa(delay)
	conf["IO_OPERATION"] = "WRITE"
	return benchCase{
		name: "vpic-write",
		what: fmt.Sprintf("VPIC-IO 1-D CONTIG/CONTIG, DIM_1=%d, %d steps, DELAYED_CLOSE_TIMESTEPS=%d, collective data+metadata, no compute", dim1, steps, delay),
		ref: side{
			argv: func(int) []string {
				return []string{filepath.Join(bin, "ref", "vpic_write"), refFile, strconv.FormatUint(dim1, 10),
					strconv.Itoa(steps), "yes", "yes", strconv.Itoa(delay)}
			},
			parse: h5benchParser(reRawWrite),
			files: func(int) []string { return []string{refFile} },
		},
		proxy: lazyProxy(bin, dir, "proxy-vpic-write", "write", "proxy-vpic-write.h5", np, conf),
	}
}

// lazyProxy is proxySide over a configuration written now; a failure to write it surfaces
// at the first run.
func lazyProxy(bin, dir, name, benchmark, file string, np int, conf map[string]string) side {
	cfg, err := h5benchConfig(dir, name, benchmark, file, np, conf)
	if err != nil {
		return side{argv: func(int) []string { return []string{"false"} },
			parse: func([]byte) (sample, error) { return sample{}, err }, files: func(int) []string { return nil }}
	}
	out := filepath.Join(dir, file)
	return proxySide(bin, dir, name, cfg, func(int) []string {
		if benchmark == "read" {
			return nil // the shared input stays
		}
		return []string{out}
	})
}

// vpicRead writes the input once with h5proxy (same parameters as vpic-write, independent
// closes) and reads it with both programs.
func vpicRead(bin, dir string, np int, dim1 uint64, steps int, ro readOpts) (benchCase, error) {
	const input = "vpic-read-input.h5"
	wconf := vpicConf(dim1, steps)
	wconf["IO_OPERATION"] = "WRITE"
	wcfg, err := h5benchConfig(dir, "vpic-read-input", "write", input, np, wconf)
	if err != nil {
		return benchCase{}, err
	}
	if _, _, err := benchmain.Launched(np, "", nil, filepath.Join(bin, "h5proxy"), "run", "-quiet", wcfg); err != nil {
		return benchCase{}, fmt.Errorf("writing the read input: %w", err)
	}
	rconf := vpicConf(dim1, steps)
	ro.conf(rconf)
	rconf["IO_OPERATION"] = "READ"
	rconf["VERIFY"] = "NO"
	return benchCase{
		name: "vpic-read",
		what: fmt.Sprintf("BD-CATS %s, DIM_1=%d, %d steps, collective data", ro, dim1, steps),
		ref: side{
			argv: func(int) []string {
				return append([]string{filepath.Join(bin, "ref", "vpic_read"), filepath.Join(dir, input), strconv.FormatUint(dim1, 10),
					strconv.Itoa(steps), "yes"}, ro.args()...)
			},
			parse: h5benchParser(reRawRead),
			files: func(int) []string { return nil },
		},
		proxy: lazyProxy(bin, dir, "proxy-vpic-read", "read", input, np, rconf),
	}, nil
}

// e3smCase prepares E3SM-IO's F, G or I case (letter f, g or i): the reference's header
// files from patterns/e3sm and the map's shapes, and both programs' commands.
func e3smCase(letter, bin, dir string, np int, mapDir string, records int, sorted bool) (benchCase, error) {
	mapFile := filepath.Join(mapDir, "map_"+letter+"_case_16p.h5")
	abs, err := filepath.Abs(mapFile)
	if err != nil {
		return benchCase{}, err
	}
	if _, err := os.Stat(abs); err != nil {
		return benchCase{}, fmt.Errorf("-maps %s: %w (pass the directory of E3SM-IO's 16p maps, e.g. data/e3sm)", mapDir, err)
	}
	headers, hists, err := writeHeaders(bin, dir, abs, np, records)
	if err != nil {
		return benchCase{}, err
	}
	refOut := filepath.Join(dir, "ref-e3sm.h5")
	conf := map[string]string{"a": "hdf5", "x": "canonical", "r": strconv.Itoa(records), "map": abs, "order": "map"}
	if sorted {
		conf["order"] = "sorted"
	}
	px := lazyProxy(bin, dir, "proxy-e3sm-"+letter, "e3sm", "proxy-e3sm-"+letter+".h5", np, conf)
	outs := func(base string) func(int) []string {
		return func(int) []string {
			var fs []string
			for _, h := range hists {
				fs = append(fs, e3sm.HistoryPath(base, h))
			}
			return fs
		}
	}
	px.files = func(next func(int) []string) func(int) []string {
		return func(i int) []string {
			return append(next(i), outs(filepath.Join(dir, "proxy-e3sm-"+letter+".h5"))(i)...)
		}
	}(px.files)
	return benchCase{
		name: "e3sm-" + letter,
		what: fmt.Sprintf("E3SM-IO %s canonical, %d history file(s) (r=%d), map %s, requests %s in both; reference raw = posting write requests",
			strings.ToUpper(letter), len(hists), records, filepath.Base(mapFile), map[bool]string{true: "sorted and coalesced", false: "in map order"}[sorted]),
		ref: side{
			argv: func(int) []string {
				argv := []string{filepath.Join(bin, "ref", "e3sm_canonical")}
				if sorted {
					argv = append(argv, "--sorted")
				}
				return append(append(argv, abs, refOut), headers...)
			},
			parse: func(out []byte) (sample, error) {
				o, err := lineValue(out, reE2E)
				if err != nil {
					return sample{}, err
				}
				var raw float64
				for _, m := range rePost.FindAllSubmatch(out, -1) {
					v, err := strconv.ParseFloat(string(m[1]), 64)
					if err != nil {
						return sample{}, err
					}
					raw += v
				}
				return sample{observed: o, raw: raw}, nil
			},
			files: outs(refOut),
		},
		proxy: px,
	}, nil
}

// writeHeaders asks the reference for the map's shapes, builds the case's histories with
// patterns/e3sm (the case follows from the map's decomposition count) and writes one header
// file per history; it returns their paths and the histories' names ("" for G's one file).
func writeHeaders(bin, dir, mapFile string, np, records int) (paths, hists []string, err error) {
	cmd := exec.Command(filepath.Join(bin, "ref", "e3sm_canonical"), "--dims", mapFile)
	_, env, err := launch.Launcher(1)
	if err != nil {
		return nil, nil, err
	}
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("reading the shapes of %s: %w", mapFile, err)
	}
	m, err := shapesMap(mapFile, out)
	if err != nil {
		return nil, nil, err
	}
	// The pattern only needs the shapes to define the files: serve them as the map.
	e3sm.RegisterMapReader(func(string) (*e3sm.Map, error) { return m, nil })
	hs, err := e3sm.HistoriesOf([]options.KV{{Key: "map", Value: mapFile}, {Key: "r", Value: strconv.Itoa(records)}}, np)
	if err != nil {
		return nil, nil, err
	}
	for _, h := range hs {
		p := filepath.Join(dir, fmt.Sprintf("e3sm-%s-%s.hdr", filepath.Base(mapFile), h.Name))
		if err := os.WriteFile(p, headerText(h), 0o644); err != nil {
			return nil, nil, err
		}
		paths = append(paths, p)
		hists = append(hists, h.Name)
	}
	return paths, hists, nil
}

// shapesMap turns the reference's "--dims" lines (nprocs N, D<k> len...) into a map that
// holds shapes only (no requests).
func shapesMap(path string, out []byte) (*e3sm.Map, error) {
	m := &e3sm.Map{Source: path}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		if f[0] == "nprocs" {
			n, err := strconv.Atoi(f[1])
			if err != nil {
				return nil, fmt.Errorf("map %s: nprocs %q", path, f[1])
			}
			m.NProcs = n
			continue
		}
		var d e3sm.Decomp
		for _, s := range f[1:] {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("map %s: %s length %q", path, f[0], s)
			}
			d.Dims = append(d.Dims, n)
		}
		m.Decomps = append(m.Decomps, d)
	}
	for k := range m.Decomps {
		m.Decomps[k].Starts = make([]int, m.NProcs+1)
		m.Decomps[k].Used = make([]int, m.NProcs)
		m.Decomps[k].Fill = make([]int, m.NProcs)
	}
	return m, sc.Err()
}

// headerText renders a history in the reference's header format (e3sm.History.RefHeader).
func headerText(h *e3sm.History) []byte { return h.RefHeader() }
