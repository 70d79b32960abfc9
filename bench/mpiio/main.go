// Command bench compares h5proxy's sync HDF5 writes with plain MPI-IO writes of the same
// bytes, side by side in one MPI job: the VPIC 1-D contiguous collective write pattern through the
// native layout (HDF5 over MPI-IO) and through the mpiio layout (the same selections with
// MPI_File_write_at_all, no HDF5), interleaved A B A B so that drifts of the page cache and
// of memory handed back to the host hit both alike; the posix layout (the same bytes with
// pwrite, no MPI-IO) runs in the same rounds as the third side of the comparison. It
// prints every run, the medians and the ratio of the medians, once under each of
// OpenMPI's MPI-IO components (OMPIO and ROMIO), which treat HDF5's file-view writes very
// differently.
//
//	go run ./bench/mpiio -np 2 -reps 7        # or: make bench
//	go run ./bench/mpiio -io ''               # the environment's MPI-IO only
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/internal/warm"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

func main() {
	np := benchmain.NP(2, "ranks")
	reps := benchmain.Reps(7, "runs per layout (medians are reported)")
	dim1, steps := benchmain.Dim1("2097152"), benchmain.Steps(4)
	dir := benchmain.Dir()
	extra := flag.String("opts", "", "extra KEY=VALUE;... options for both layouts (e.g. ALIGN=YES;ALIGN_THRESHOLD=0;ALIGN_LEN=1M)")
	benchmain.Warm(&warmUp)
	ios := flag.String("io", "ompio,romio321", "OpenMPI MPI-IO components to run under, one launch each (OMPI_MCA_io; \"\" keeps the environment's)")
	flag.Parse()
	if !launch.Underneath() {
		// HDF5's collective writes go through file views, which the two MPI-IO
		// implementations OpenMPI ships handle very differently: compare under both.
		for _, io := range strings.Split(*ios, ",") {
			if io != "" {
				os.Setenv("OMPI_MCA_io", io)
			}
			if code := launch.SelfInDir("bench", *np, *dir); code != 0 {
				os.Exit(code)
			}
		}
		return
	}
	benchmain.Exit("bench", 1, run(*reps, *dim1, *steps, *dir, *extra))
}

type result struct{ raw, observed float64 }

// warmUp selects warm.Memory before every run.
var warmUp bool

// run keeps one session per layout for the whole benchmark so both reuse their buffers
// (fresh memory is slow to touch here), and alternates their write phases.
func run(reps int, dim1 string, steps int, dir, extra string) error {
	world, finalize, err := benchmain.Ranks()
	if err != nil {
		return err
	}
	defer finalize()
	// Variants: h5proxy's native HDF5 layout; the same bytes with MPI_File_write_at_all at
	// explicit offsets; with the call sequence HDF5's MPI-IO driver uses (file view); and
	// with pwrite at the same offsets (no MPI-IO).
	layouts := []string{"native", "mpiio", "mpiio-view", "posix"}
	sessions := map[string]*proxy.Session{}
	for _, variant := range layouts {
		layout, view := variant, "NO"
		if variant == "mpiio-view" {
			layout, view = "mpiio", "YES"
		}
		more, err := proxy.ParseKV(extra)
		if err != nil {
			return err
		}
		base := []options.KV{
			{Key: "file", Value: filepath.Join(dir, "bench-"+variant+".h5")}, {Key: "layout", Value: layout},
			{Key: "mpiio.file_view", Value: view},
			{Key: "MEM_PATTERN", Value: "CONTIG"}, {Key: "FILE_PATTERN", Value: "CONTIG"},
			{Key: "NUM_DIMS", Value: "1"}, {Key: "DIM_1", Value: dim1}, {Key: "TIMESTEPS", Value: strconv.Itoa(steps)},
			{Key: "COLLECTIVE_DATA", Value: "YES"},
		}
		// -opts replaces base keys of the same name.
		base = slices.DeleteFunc(base, func(b options.KV) bool {
			return slices.ContainsFunc(more, func(m options.KV) bool { return strings.EqualFold(m.Key, b.Key) })
		})
		cfg, err := proxy.ParseOptions("vpic", append(base, more...))
		if err != nil {
			return err
		}
		s, err := proxy.NewSession(world, cfg)
		if err != nil {
			return err
		}
		defer s.Close()
		sessions[variant] = s
	}
	if world.Rank() == 0 {
		io := os.Getenv("OMPI_MCA_io")
		if io == "" {
			io = "default"
		}
		fmt.Printf("\nVPIC 1-D CONTIG/CONTIG collective write, %d ranks, DIM_1=%s, %d timesteps, %d runs per layout (interleaved), memory warmed: %v, MPI-IO component: %s\n",
			world.Size(), dim1, steps, reps, warmUp, io)
	}
	perRun := benchmain.VPICBytes(dim1, steps) // bytes a rank writes per run
	for i := 0; i < reps; i++ {
		for _, layout := range layouts {
			if warmUp {
				if err := warm.Memory(perRun); err != nil {
					return err
				}
			}
			s := sessions[layout]
			if err := s.RunPhase(patterns.PhaseWrite); err != nil {
				return fmt.Errorf("%s: %w", layout, err)
			}
			// A new file per run, as an application writes: truncating the previous run's
			// file (dropping its cached pages) would land in the next run's file creation.
			if world.Rank() == 0 {
				os.Remove(s.Config().File)
			}
		}
	}
	res := map[string][]result{}
	for _, layout := range layouts {
		rep, err := sessions[layout].Report()
		if err != nil {
			return err
		}
		for _, p := range rep.Phases {
			res[layout] = append(res[layout], result{raw: p.RawRate / (1 << 20), observed: p.ObservedRate / (1 << 20)})
		}
	}
	if world.Rank() != 0 {
		return nil
	}
	fmt.Printf("%-4s %-10s %14s %14s\n", "run", "variant", "raw MiB/s", "observed MiB/s")
	for i := 0; i < reps; i++ {
		for _, l := range layouts {
			fmt.Printf("%-4d %-10s %14.1f %14.1f\n", i, l, res[l][i].raw, res[l][i].observed)
		}
	}
	med := func(l string, f func(result) float64) float64 { return benchstat.Median(benchstat.Of(res[l], f)) }
	// paired is the median over runs of native's rate over the other variant's in the same
	// round: adjacent runs share the machine's state, so drifts cancel.
	paired := func(other string, f func(result) float64) float64 {
		var v []float64
		for i := range res["native"] {
			v = append(v, f(res["native"][i])/f(res[other][i]))
		}
		return benchstat.Median(v)
	}
	raw := func(r result) float64 { return r.raw }
	obs := func(r result) float64 { return r.observed }
	fmt.Println()
	for _, m := range []struct {
		name string
		f    func(result) float64
	}{{"raw", raw}, {"observed", obs}} {
		n := med("native", m.f)
		fmt.Printf("median %-8s rate: native %.1f MiB/s", m.name, n)
		for _, l := range layouts[1:] {
			fmt.Printf(", %s %.1f MiB/s", l, med(l, m.f))
		}
		fmt.Print("; native over each, ratio of medians")
		for _, l := range layouts[1:] {
			fmt.Printf(" %s %.3f", l, n/med(l, m.f))
		}
		fmt.Print(", median of paired ratios")
		for _, l := range layouts[1:] {
			fmt.Printf(" %s %.3f", l, paired(l, m.f))
		}
		fmt.Println()
	}
	return nil
}
