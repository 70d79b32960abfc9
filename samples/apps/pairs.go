// Package apps holds the sample descriptions of this directory (embedded) and the table
// pairing those that re-express a built-in pattern with that pattern's configuration: one
// list for cmd/h5proxy's TestAppSamples, which compares their files and censuses, and for
// bench/app, which compares their costs.
package apps

import (
	"embed"
	"fmt"
	"math"
)

//go:embed *.yaml
var files embed.FS

// Source is the text of the sample description name (a file name such as "vpic-1d-contig.yaml").
func Source(name string) ([]byte, error) { return files.ReadFile(name) }

// Pair is a sample description and the built-in pattern configuration it re-expresses.
type Pair struct {
	Desc    string   // description file name in this directory
	Builtin string   // native JSON configuration of the built-in pattern, at the description's default sizes
	Files   []string // BUILTIN:DESCRIPTION file names the two write, relative to the run directory
	// Ordered: each rank plans the built-in's operations in the built-in's order
	// (cmd/h5proxy's TestPairPlansInOrder), as a trace of the calls would compare them.
	Ordered bool
	// Data are repository files (paths from the repository root) both runs read, copied
	// into each run directory under their base names: E3SM's map file.
	Data []string
	// Args are the description's KEY=VALUE parameters that match it to Builtin (Builtin
	// names its own options), for pairs whose defaults are larger than a test's.
	Args []string
	// Scale returns the keys that size both sides at about n elements per rank and
	// variable on np ranks, as KEY=VALUE: the built-in's (h5proxy run -set) and the
	// description's parameters. Nil when the pair only matches at its default sizes.
	Scale func(n uint64, np int) (builtin, desc []string)
}

// Name is the pair's name: its description's file name without ".yaml".
func (p Pair) Name() string { return p.Desc[:len(p.Desc)-len(".yaml")] }

// vpic1D sizes a 1-D VPIC pair: DIM_1 is the description's particles.
func vpic1D(n uint64, _ int) (builtin, desc []string) {
	return []string{fmt.Sprintf("DIM_1=%d", n)}, []string{fmt.Sprintf("particles=%d", n)}
}

// Pairs are the samples that re-express a built-in pattern.
var Pairs = []Pair{
	{Desc: "vpic-1d-contig.yaml", Files: []string{"vpic.h5:vpic.h5"}, Ordered: true, Scale: vpic1D,
		Builtin: `{"pattern":"vpic","phases":["write"],"session":{"file":"vpic.h5"},"options":{"MEM_PATTERN":"CONTIG","FILE_PATTERN":"CONTIG","NUM_DIMS":1,"DIM_1":64,"TIMESTEPS":2,"COLLECTIVE_DATA":"YES"}}`},
	// 3-D: DIM_2 x DIM_3 stay 16 x 16, DIM_1 takes the rest of n.
	{Desc: "vpic-3d-contig.yaml", Files: []string{"vpic3.h5:vpic3.h5"}, Ordered: true,
		Scale: func(n uint64, _ int) (builtin, desc []string) {
			d1 := max(1, n/256)
			return []string{fmt.Sprintf("DIM_1=%d", d1), "DIM_2=16", "DIM_3=16"},
				[]string{fmt.Sprintf("dim1=%d", d1), "dim2=16", "dim3=16"}
		},
		Builtin: `{"pattern":"vpic","phases":["write"],"session":{"file":"vpic3.h5"},"options":{"MEM_PATTERN":"CONTIG","FILE_PATTERN":"CONTIG","NUM_DIMS":3,"DIM_1":4,"DIM_2":4,"DIM_3":4,"TIMESTEPS":2,"COLLECTIVE_DATA":"YES"}}`},
	{Desc: "vpic-1d-interleaved.yaml", Files: []string{"vpicmi.h5:vpicmi.h5"}, Ordered: true, Scale: vpic1D,
		Builtin: `{"pattern":"vpic","phases":["write"],"session":{"file":"vpicmi.h5"},"options":{"MEM_PATTERN":"INTERLEAVED","FILE_PATTERN":"CONTIG","NUM_DIMS":1,"DIM_1":64,"TIMESTEPS":2,"COLLECTIVE_DATA":"YES"}}`},
	// BD-CATS opens the file once for its reads and each Timestep group before its
	// datasets: so do the description's consecutive restart reads.
	{Desc: "bd-cats-full.yaml", Files: []string{"bdcats.h5:bdcats.h5"}, Ordered: true, Scale: vpic1D,
		Builtin: `{"pattern":"vpic","phases":["write","read"],"session":{"file":"bdcats.h5"},"options":{"MEM_PATTERN":"CONTIG","FILE_PATTERN":"CONTIG","NUM_DIMS":1,"DIM_1":64,"TIMESTEPS":2,"COLLECTIVE_DATA":"YES","READ_OPTION":"FULL"}}`},
	// openPMD-api's handles (the sample's handles key): parent groups opened around each
	// create, datasets reopened per write, attributes written through H5Oopen and H5Oclose.
	// Not scaled: the sample's chunk shapes are the ones openPMD-api chose at its default
	// size. Not Ordered: the series' particlesPath is written as the particles are first
	// flushed, then again with the series' attributes, and a description writes it twice
	// at the latter place (the sample's writes: 2).
	{Desc: "openpmd-8a.yaml", Files: []string{"8a_parallel_3Db_0000001.h5:8a_parallel_3Db_0000001.h5"},
		Builtin: `{"pattern":"openpmd","phases":["write"],"session":{"file":"8a_parallel_3Db_0000001.h5"},"options":{"dim":3,"balanced":"true","ratio":1,"steps":1,"minBlock":"4 8 8","grid":"4 4 4"}}`},
	// AMReX creates each plotfile's metadata on rank 0 alone and reopens it on every
	// rank (create: rank0): every call compares, rank 0's serial creation on rank 0
	// alone. Rank 0 alone writes the box list, the offsets and the box centres
	// independently (the other ranks make no call), every rank the cell data
	// collectively, in one pass over level_0 (independent: true on the former).
	{Desc: "amrex-plotfile.yaml", Files: []string{"amx/plt00000.h5:plt00000.h5", "amx/plt00001.h5:plt00001.h5"},
		Scale: func(n uint64, np int) (builtin, desc []string) {
			// A cubic domain of about n cells per rank, in boxes of 16 cells a side (fewer
			// when small), k boxes a side with k a multiple of np: every rank gets as
			// many boxes (the description decomposes the box list in blocks).
			side := uint64(math.Cbrt(float64(n) * float64(np)))
			k := uint64(np) * max(1, uint64(math.Round(float64(side)/float64(16*np))))
			box := max(1, side/k)
			cells := k * box
			kv := []string{fmt.Sprintf("ncells=%d", cells), fmt.Sprintf("max_grid_size=%d", box)}
			return kv, kv
		},
		Builtin: `{"pattern":"amrex","phases":["write"],"session":{"file":"amx/"},"options":{"ncells":16,"max_grid_size":8,"nlevs":1,"ncomp":2,"nppc":1,"nplotfile":2,"nparticlefile":0}}`},
	// E3SM's F case with the shipped 16-process map, h1 alone at two records: h0's 414
	// variables take minutes at 2 ranks on a loaded machine. Its record variables (series)
	// stay open from their first write to the file's close, as the built-in keeps them.
	{Desc: "e3sm-f.yaml", Files: []string{"e3sm_f_h1.h5:e3sm_f_h1.h5"},
		Data: []string{"data/e3sm/map_f_case_16p.h5"}, Args: []string{"hist=h1", "records=2", "map=map_f_case_16p.h5"},
		Builtin: `{"pattern":"e3sm","phases":["write"],"session":{"file":"e3sm_f.h5"},"options":{"map":"map_f_case_16p.h5","f":1,"r":2}}`},
	// NOvA's input files: two of the sample's four (h5dump of 1,600 datasets takes a while),
	// file s * nranks + r written by rank r at step s alone (on 4 ranks, ranks 2 and 3
	// write none). The compressed sizes differ (the built-in's values repeat in runs, a
	// description's are seeded): the dumps mask them with the values. The sample writes
	// table by table (handles sequence: by_group) in NOvA's column order, as the built-in.
	{Desc: "nova.yaml", Args: []string{"files=2"}, Ordered: true,
		Files:   []string{"nova/nova_00000.h5:nova_00000.h5", "nova/nova_00001.h5:nova_00001.h5"},
		Builtin: `{"pattern":"nova","phases":["write"],"session":{"file":"nova"},"options":{"files":2}}`},
}
