// Command subfiling runs seed 002's subfiling study with h5proxy's model of subfiling
// (layout subfiling: per-group subfiles under a virtual-dataset master) and the real
// subfiling VFD of HDF5 1.14 (layout subfiling-vfd): stripe size × I/O concentrators, at
// several rank counts, with VPIC-IO and E3SM-IO writes and reads. It prints a table of
// write and read times (median and range of the interleaved repetitions), file counts and
// sizes, writes it as CSV, and draws one figure per pattern and phase (time against the
// I/O concentrators, a line per stripe size and one for the model, band = range of the
// repetitions) for docs/studies.md.
//
//	eval "$(HDF5=1.14 make -s env)"   # the VFD needs the 1.14 build; on 1.10 only the model runs
//	go run ./bench/subfiling -nps 1,2,4 -stripes 1MiB,4MiB,32MiB -iocs 1,2,4 -reps 5 -out studies/subfiling
//	go run ./bench/subfiling -nps 1,2 -stripes 64KiB -iocs 1,2 -reps 1 -vpic DIM_1=4096 -e3sm 'ne=2;lev=3'   # a check
//	go run ./bench/subfiling -nps 1,2,4 -stripes 1MiB,32MiB -iocs 1,2,4 -patterns e3sm -reps 5 -out docs/studies/subfiling-e3sm   # E3SM (its own subfiling.csv)
//
// The model has no stripe size: its points are run once per I/O concentrator count (its
// subfiling.count: one group of ranks per concentrator, at most one per rank, as the VFD
// caps its concentrators at the ranks of a node), and, with -aggregate (the default), once
// per stripe size with one collective-buffering aggregator per subfile writing buffers of
// the stripe size (ROMIO's cb_nodes=1, cb_buffer_size): the VFD's concentrator, which
// alone writes its subfile in stripes, in MPI-IO's terms. All ranks run on one node here, so the
// VFD's concentrators are subfiling_vfd.ioc_per_node. Times are the phases' observed
// windows without the data preparation and verification inside them (h5proxy's
// ObservedIORate); sizes are apparent (st_size) and on disk (st_blocks), summed over every
// file of the phase's files' names (stub or master, .config, subfiles).
package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/internal/sweep"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// opts are the study's settings, passed from the parent to each launched run.
type opts struct {
	stripes, iocs, pats []string
	reps                int
	vpic, e3sm, dir     string
	aggregate           bool
}

func main() {
	nps := benchmain.NPs("1,2,4")
	stripes := flag.String("stripes", "1MiB,4MiB,32MiB", "VFD stripe sizes, comma-separated")
	iocs := flag.String("iocs", "1,2,4", "I/O concentrators (VFD: per node; model: subfile groups), comma-separated")
	pats := flag.String("patterns", "vpic,e3sm", "patterns: vpic, e3sm")
	reps := benchmain.Reps(3, "repetitions, interleaved over every point")
	aggregate := flag.Bool("aggregate", true, "also run the model with one collective-buffering aggregator per subfile writing stripe-size buffers (mpiio.cb_nodes=1, mpiio.cb_buffer_size=stripe, through ROMIO: OMPI_MCA_io=romio321 unless set): the VFD's I/O concentrator in MPI-IO's terms")
	yield := flag.Bool("yield", true, "launch every run with OMPI_MCA_mpi_yield_when_idle=1 unless set: waiting ranks give up the core, which the VFD's concentrator threads (1 + thread_pool per concentrator, polling MPI) need when ranks and threads outnumber the cores; without it E3SM's VFD write at 2 ranks on 2 cores took 159 s instead of 17 s")
	vpicKV := flag.String("vpic", "NUM_DIMS=1;DIM_1=1048576;TIMESTEPS=2;COLLECTIVE_DATA=YES;COLLECTIVE_METADATA=YES", "VPIC-IO settings (per rank: 8 variables of DIM_1 4-byte elements per step)")
	e3smKV := flag.String("e3sm", "ne=2;lev=12;r=1", "E3SM-IO F-case settings (a synthesized map: 218 columns, 12 levels, 71,256 runs per rank at 2 ranks, each a request to a concentrator through the VFD; the 16p map's size, ne=4;lev=72;r=2, is about 25 times as many)")
	dir := benchmain.Dir()
	out := flag.String("out", "", "directory for subfiling.csv and the figures (default: none)")
	results := benchmain.Results()
	flag.Parse()
	o := opts{split(*stripes), split(*iocs), split(*pats), *reps, *vpicKV, *e3smKV, *dir, *aggregate}
	benchmain.Split("subfiling bench", func() int {
		if _, set := os.LookupEnv("OMPI_MCA_mpi_yield_when_idle"); *yield && !set {
			os.Setenv("OMPI_MCA_mpi_yield_when_idle", "1") // the launched ranks inherit it
		}
		return parent(o, *nps, *out)
	}, func() error { return child(o, *results) })
}

func split(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// vfdAvailable reports whether this build has the subfiling-vfd layout usable.
func vfdAvailable() error {
	kvs, _ := proxy.ParseKV("layout=subfiling-vfd;file=x.h5")
	_, err := proxy.ParseOptions("vpic", kvs)
	return err
}

// parent launches one MPI run per rank count, then summarizes every result line.
func parent(o opts, nps string, outDir string) int {
	counts, err := launch.Counts(nps)
	if err != nil {
		fmt.Fprintf(os.Stderr, "subfiling bench: -nps: %v\n", err)
		return 2
	}
	for _, p := range o.pats {
		if p != "vpic" && p != "e3sm" {
			fmt.Fprintf(os.Stderr, "subfiling bench: -patterns: %q is not vpic or e3sm\n", p)
			return 2
		}
	}
	if err := vfdAvailable(); err != nil {
		fmt.Printf("note: %v\nnote: only the model runs\n", err)
	}
	dir, done, err := benchmain.TempDir("subfiling-bench", o.dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "subfiling bench:", err)
		return 1
	}
	defer done()
	o.dir = dir
	if _, set := os.LookupEnv("OMPI_MCA_io"); o.aggregate && !set {
		os.Setenv("OMPI_MCA_io", "romio321") // OMPIO ignores cb_nodes; the launched ranks inherit it
	}
	res := filepath.Join(o.dir, "results.txt")
	var runs []run
	lines, err := launch.SelfPerCount(counts, res, "-stripes", strings.Join(o.stripes, ","), "-iocs", strings.Join(o.iocs, ","), "-patterns", strings.Join(o.pats, ","), "-aggregate="+strconv.FormatBool(o.aggregate),
		"-reps", strconv.Itoa(o.reps), "-vpic", o.vpic, "-e3sm", o.e3sm, "-dir", o.dir, "-results", res)
	if err == nil {
		runs, err = parseResults(lines)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "subfiling bench:", err)
		return 1
	}
	if err := report(os.Stdout, runs, o.reps); err != nil {
		fmt.Fprintln(os.Stderr, "subfiling bench:", err)
		return 1
	}
	if outDir != "" {
		if err := save(outDir, runs); err != nil {
			fmt.Fprintln(os.Stderr, "subfiling bench:", err)
			return 1
		}
	}
	return 0
}

// run is one repetition of one point.
type run struct {
	ranks                int
	pattern, layout      string
	stripe, iocs         string
	rep                  int
	write, read          float64 // seconds
	files                int
	bytes, disk, largest int64
}

// point names a run's point without its repetition.
func (r run) point() string {
	return fmt.Sprintf("%d %s %s %s %s", r.ranks, r.pattern, r.layout, r.stripe, r.iocs)
}

const resultFormat = "%d %s %s %s %s %d %g %g %d %d %d %d"

func (r run) line() string {
	return fmt.Sprintf(resultFormat, r.ranks, r.pattern, r.layout, r.stripe, r.iocs, r.rep, r.write, r.read, r.files, r.bytes, r.disk, r.largest)
}

// parseResults reads the results lines of the launched runs (resultFormat).
func parseResults(lines []string) ([]run, error) {
	var out []run
	for _, l := range lines {
		var r run
		if _, err := fmt.Sscanf(l, resultFormat, &r.ranks, &r.pattern, &r.layout, &r.stripe, &r.iocs, &r.rep, &r.write, &r.read, &r.files, &r.bytes, &r.disk, &r.largest); err != nil {
			return nil, fmt.Errorf("results line %q: %w", l, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// group collects the repetitions of each point, in first-run order.
func group(runs []run) (keys []string, by map[string][]run) {
	by = map[string][]run{}
	for _, r := range runs {
		k := r.point()
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], r)
	}
	return keys, by
}

// report prints the table: per point the median and range of the write and read times,
// the file count and the sizes (of the first repetition: the same files every time).
func report(w io.Writer, runs []run, reps int) error {
	keys, by := group(runs)
	fmt.Fprintf(w, "Subfiling study: model (layout subfiling; stripe -: plain, else one aggregator per subfile with cb_buffer_size = stripe) and the subfiling VFD (subfiling-vfd); MPI-IO %s, OMPI_MCA_mpi_yield_when_idle=%s; median [min-max] of %d interleaved repetitions, seconds\n", mpiio(), os.Getenv("OMPI_MCA_mpi_yield_when_idle"), reps)
	fmt.Fprintln(w, "| ranks | pattern | layout | stripe | IOCs | write s | read s | files | apparent MiB | on disk MiB | largest file MiB |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, k := range keys {
		rs := by[k]
		r := rs[0]
		wm, wl, wh := benchstat.Summary(benchstat.Of(rs, func(r run) float64 { return r.write }))
		rm, rl, rh := benchstat.Summary(benchstat.Of(rs, func(r run) float64 { return r.read }))
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %.3f [%.3f-%.3f] | %.3f [%.3f-%.3f] | %d | %.1f | %.1f | %.1f |\n",
			r.ranks, r.pattern, r.layout, r.stripe, r.iocs, wm, wl, wh, rm, rl, rh, r.files, mib(r.bytes), mib(r.disk), mib(r.largest))
	}
	return nil
}

// mpiio names the MPI-IO component the launched ranks use.
func mpiio() string {
	if v := os.Getenv("OMPI_MCA_io"); v != "" {
		return "OMPI_MCA_io=" + v
	}
	return "the default component"
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// save writes subfiling.csv (every run) and the figures: per pattern and phase, at the
// largest rank count, time against the I/O concentrators with one line per stripe size
// of the VFD and one for the model.
func save(dir string, runs []run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "subfiling.csv"))
	if err != nil {
		return err
	}
	cw := csv.NewWriter(f)
	cw.Write([]string{"ranks", "pattern", "layout", "stripe", "iocs", "rep", "write_s", "read_s", "files", "apparent_bytes", "disk_bytes", "largest_bytes"})
	for _, r := range runs {
		cw.Write(strings.Fields(r.line()))
	}
	cw.Flush()
	if err := firstErr(cw.Error(), f.Close()); err != nil {
		return err
	}
	maxRanks := slices.MaxFunc(runs, func(a, b run) int { return a.ranks - b.ranks }).ranks
	for _, pat := range []string{"vpic", "e3sm"} {
		var iocs, variants []string
		var rows []sweep.Row
		for _, r := range runs {
			if r.pattern != pat || r.ranks != maxRanks {
				continue
			}
			v := variant(r)
			if !slices.Contains(iocs, r.iocs) {
				iocs = append(iocs, r.iocs)
			}
			if !slices.Contains(variants, v) {
				variants = append(variants, v)
			}
			rows = append(rows, sweep.Row{Point: sweep.Point{Rep: r.rep, Values: []string{r.iocs, v}},
				Metrics: map[string]float64{"write_time": r.write, "read_time": r.read}})
		}
		if len(rows) == 0 {
			continue
		}
		axes := []sweep.Axis{{Key: "IOCs", Values: iocs}, {Key: "layout", Values: variants}}
		for _, m := range []string{"write_time", "read_time"} {
			base := filepath.Join(dir, fmt.Sprintf("subfiling-%s-%s-np%d", pat, strings.TrimSuffix(m, "_time"), maxRanks))
			if _, err := sweep.Plot(axes, rows, sweep.PlotSpec{Metric: m, X: "IOCs", By: "layout"}, base); err != nil {
				return err
			}
		}
	}
	return nil
}

// variant names a run's line in the figures: the model, the model with an aggregator
// per subfile writing stripe-size buffers, or the VFD with its stripe size.
func variant(r run) string {
	switch {
	case r.layout != "subfiling":
		return "VFD " + r.stripe
	case r.stripe == "-":
		return "model"
	}
	return "model agg " + r.stripe
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// child runs under MPI: every point of this rank count, repetitions interleaved, and rank
// 0 appends one line per run to the results file.
func child(o opts, results string) error {
	world, finalize, err := benchmain.Ranks()
	if err != nil {
		return err
	}
	defer finalize()
	size := world.Size()
	vfd := vfdAvailable() == nil
	type pt struct{ pattern, layout, stripe, iocs string }
	var pts []pt
	for _, pat := range o.pats {
		for _, ioc := range o.iocs {
			n, err := strconv.Atoi(ioc)
			if err != nil || n < 1 {
				return fmt.Errorf("-iocs: %q is not a count", ioc)
			}
			if n > size && ioc != o.iocs[0] {
				continue // both cap at the ranks: the same point as a smaller count
			}
			pts = append(pts, pt{pat, "subfiling", "-", ioc})
			for _, s := range o.stripes {
				if o.aggregate {
					pts = append(pts, pt{pat, "subfiling", s, ioc}) // the model with an aggregator per subfile
				}
			}
			if vfd {
				for _, s := range o.stripes {
					pts = append(pts, pt{pat, "subfiling-vfd", s, ioc})
				}
			}
		}
	}
	var lines []string
	for rep := 0; rep < o.reps; rep++ {
		for i, p := range pts {
			file := filepath.Join(o.dir, fmt.Sprintf("%s-np%d-%d.h5", p.pattern, size, i))
			r, err := measure(world, p.pattern, p.layout, p.stripe, p.iocs, file, o)
			if err != nil {
				return fmt.Errorf("%s %s stripe %s IOCs %s: %w", p.pattern, p.layout, p.stripe, p.iocs, err)
			}
			r.rep = rep
			lines = append(lines, r.line())
		}
	}
	if world.Rank() != 0 {
		return nil
	}
	return launch.AppendLines(results, lines)
}

// measure writes and reads one point once and returns its times and files (rank 0's
// view; the times are reduced over ranks by the session).
func measure(world proxy.Comm, pattern, layout, stripe, iocs, file string, o opts) (run, error) {
	size := world.Size()
	n, _ := strconv.Atoi(iocs)
	kv := o.vpic
	if pattern == "e3sm" {
		kv = o.e3sm
	}
	kv += ";file=" + file + ";layout=" + layout + ";verify=yes"
	switch {
	case layout == "subfiling" && stripe == "-":
		kv += ";subfiling.count=" + strconv.Itoa(min(n, size))
	case layout == "subfiling":
		kv += ";subfiling.count=" + strconv.Itoa(min(n, size)) + ";mpiio.cb_nodes=1;mpiio.cb_buffer_size=" + stripe
	default:
		kv += ";subfiling_vfd.stripe_size=" + stripe + ";subfiling_vfd.ioc_per_node=" + iocs
	}
	s, err := benchmain.Session(world, pattern, kv, patterns.PhaseWrite, patterns.PhaseRead)
	if err != nil {
		return run{}, err
	}
	if err := s.Run(); err != nil {
		s.Close()
		return run{}, err
	}
	rep, err := s.Report()
	if err != nil {
		s.Close()
		return run{}, err
	}
	if err := s.Close(); err != nil {
		return run{}, err
	}
	r := run{ranks: size, pattern: pattern, layout: layout, stripe: stripe, iocs: iocs}
	for _, p := range rep.Phases {
		if p.Phase == "read" && (!p.Verified || p.Mismatches != 0) {
			return run{}, fmt.Errorf("read not verified (%v mismatches)", p.Mismatches)
		}
		t := p.ObservedTime
		if p.ObservedIORate > 0 {
			t = p.Bytes / p.ObservedIORate
		}
		if p.Phase == "write" {
			r.write = t
			for _, f := range p.Files {
				if err := r.addFiles(f); err != nil {
					return run{}, err
				}
			}
		} else {
			r.read = t
		}
	}
	return r, world.Barrier()
}

// addFiles counts the file at path and every file named after it (subfiles, .config).
func (r *run) addFiles(path string) error {
	names, err := filepath.Glob(path + ".subfile_*")
	if err != nil {
		return err
	}
	for _, name := range append([]string{path}, names...) {
		st, err := os.Stat(name)
		if err != nil {
			return err
		}
		r.files++
		r.bytes += st.Size()
		r.largest = max(r.largest, st.Size())
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			r.disk += sys.Blocks * 512
		}
	}
	return nil
}
