// Command macsio compares MACSio's two parallel file modes with h5bench's VPIC write
// kernel on the same bytes per rank (issue 24): per rank count, MACSio SIF (one shared
// file per dump, collective MPI-IO), MACSio MIF (one file per rank, sec2, each rank its
// own group) and the VPIC 1-D contiguous collective write of as many 32-byte particles as
// a MACSio rank writes bytes per dump, run by run interleaved (SIF MIF VPIC SIF ...),
// each `h5proxy run` of a native configuration under the MPI launcher. It prints per
// variant the median [min-max] of the write phase's observed time per dump and rate, and
// the ratios of the medians.
//
//	make build && go run ./bench/macsio -reps 7                # the comparison of docs/macsio.md
//	go run ./bench/macsio -np 1,2 -reps 1 -part_size 80000     # a quick check
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/h5proxy/h5proxy/internal/benchmain"
	"github.com/h5proxy/h5proxy/internal/benchstat"
	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/patterns/macsio"
)

// variant is one configuration of the comparison.
type variant struct {
	name    string
	pattern string
	opts    map[string]any
}

func main() {
	reps := benchmain.Reps(5, "runs per variant and rank count")
	nps := flag.String("np", "1,2,4", "rank counts")
	partSize := flag.Int64("part_size", 1<<20, "MACSio's --part_size (bytes per part; 20 variables per part)")
	dumps := flag.Int("dumps", 5, "dumps (VPIC timesteps)")
	bin := flag.String("bin", "bin", "directory of the h5proxy binary")
	dir := benchmain.Dir()
	flag.Parse()
	benchmain.Exit("bench/macsio", 1, run(*reps, *nps, *partSize, *dumps, *bin, *dir))
}

func run(reps int, nps string, partSize int64, dumps int, bin, dir string) error {
	counts, err := launch.Counts(nps)
	if err != nil {
		return fmt.Errorf("-np: %w", err)
	}
	dir, done, err := benchmain.TempDir("bench-macsio", dir)
	if err != nil {
		return err
	}
	defer done()
	// The bytes a MACSio rank writes per dump at 1 part per rank: 20 variables, zone-centred
	// ones a little smaller than the part.
	c := macsio.Config{AvgNumParts: 1, PartSize: partSize, PartDim: 2, VarsPerPart: 20, FileExt: "h5"}
	m, err := macsio.NewMesh(&c, 1, 1)
	if err != nil {
		return err
	}
	p := &macsio.Pattern{}
	p.C = c
	perRank := p.ProblemBytes(m, 0)
	particles := int64(perRank) / 32 // VPIC: 8 variables of 4 bytes per particle
	fmt.Printf("bytes per rank per dump: %.0f (MACSio part_size %d, 20 variables); VPIC: %d particles per rank x 32 bytes\n", perRank, partSize, particles)
	common := map[string]any{"part_size": partSize, "vars_per_part": 20, "num_dumps": dumps, "mdc": "macsio"}
	sif, mif := clone(common), clone(common)
	sif["parallel_file_mode"] = "SIF"
	variants := []variant{{"macsio SIF", "macsio", sif}, {"macsio MIF", "macsio", mif},
		{"vpic 1-D", "vpic", map[string]any{"NUM_DIMS": 1, "DIM_1": particles, "TIMESTEPS": dumps, "COLLECTIVE_DATA": "YES"}}}
	for _, np := range counts {
		mif["parallel_file_mode"] = fmt.Sprintf("MIF %d", np)
		times := make([][]float64, len(variants))
		for r := 0; r < reps; r++ {
			for i, v := range variants {
				t, err := once(bin, dir, np, v, r)
				if err != nil {
					return fmt.Errorf("%s at %d ranks: %w", v.name, np, err)
				}
				times[i] = append(times[i], t/float64(dumps))
			}
		}
		fmt.Printf("\n%d ranks, %d runs each (observed write time per dump):\n", np, reps)
		meds := make([]float64, len(variants))
		for i, v := range variants {
			med, lo, hi := benchstat.Summary(times[i])
			meds[i] = med
			fmt.Printf("  %-11s %8.4f s [%.4f-%.4f]  %8.1f MiB/s\n", v.name, med, lo, hi, perRank*float64(np)/med/(1<<20))
		}
		fmt.Printf("  ratios of medians: MIF/SIF %.2f, VPIC/SIF %.2f, VPIC/MIF %.2f\n", meds[1]/meds[0], meds[2]/meds[0], meds[2]/meds[1])
	}
	return nil
}

func clone(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// once runs one write phase of v on np ranks and returns its observed time.
func once(bin, dir string, np int, v variant, rep int) (float64, error) {
	base := filepath.Join(dir, fmt.Sprintf("%s-np%d-%d", strings.ReplaceAll(v.name, " ", "_"), np, rep))
	file := base
	if v.pattern == "vpic" {
		file += ".h5"
	}
	report := base + ".report.json"
	doc := map[string]any{"pattern": v.pattern, "phases": []string{"write"}, "options": v.opts,
		"session": map[string]any{"file": file, "verify": "no", "fill": "once", "report_file": report}}
	data, err := json.Marshal(doc)
	if err != nil {
		return 0, err
	}
	cfg := base + ".json"
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		return 0, err
	}
	if _, _, err := benchmain.Launched(np, "", nil, filepath.Join(bin, "h5proxy"), "run", "-quiet", cfg); err != nil {
		return 0, err
	}
	rep0, err := benchmain.ReadReport(report)
	if err != nil {
		return 0, err
	}
	// The data go: the next run writes afresh.
	files, _ := filepath.Glob(base + "*")
	for _, f := range files {
		os.Remove(f)
	}
	return rep0.Phases[0].ObservedTime, nil
}
