package proxy_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/tracefile"
)

// macsioCase is one MACSio run of TestMACSio: its keys and the structure MACSio's HDF5
// plugin gives its files (layouts.md §6c), written out per rank count.
type macsioCase struct {
	name, kv string
	dumps    int
	mif      int // MIF file count; 0 for SIF
	gzip     bool
	growth   bool
	// nodes are the node counts of the whole mesh (SIF, slowest first) or of a part (MIF,
	// x first) per rank count; parts the total part count.
	nodes map[int][]uint64
	parts map[int]int
	vars  int
}

// macsioVars20 are the names of 20 variables per part (§6c).
var macsioVars20 = []string{"constant", "random", "spherical", "xramp", "ysin", "noise", "noise_sum", "xlayers",
	"constant_000", "random_000", "spherical_000", "xramp_000", "ysin_000", "noise_000", "noise_sum_000", "xlayers_000",
	"constant_001", "random_001", "spherical_001", "xramp_001"}

// macsioCases: SIF with 2 parts per rank in 2-D (4 parts 2x2 of 25x50 at 2 ranks: node
// (100,50), zone (98,48)), SIF with 1.5 parts per rank in 3-D and 30 variables, SIF in
// 1-D with growth 1.5 over 3 dumps, MIF 2 with 1.5 parts, MIF 1 with gzip and growth over
// 3 dumps (every rank in one group: a strict baton order), SIF independent. gzip runs in
// MIF only: HDF5 1.10.8's collective writes of compressed datasets hung now and then on
// this loaded machine (docs/macsio.md); the SIF plans' compression is checked in
// patterns/macsio.
var macsioCases = []macsioCase{
	{name: "sif2d", kv: "parallel_file_mode=SIF;avg_num_parts=2;part_size=10000;part_dim=2;vars_per_part=20;num_dumps=1", dumps: 1, vars: 20,
		nodes: map[int][]uint64{1: {100, 25}, 2: {100, 50}, 4: {200, 50}}, parts: map[int]int{1: 2, 2: 4, 4: 8}},
	{name: "sif3d", kv: "parallel_file_mode=SIF;avg_num_parts=1.5;part_size=8000;part_dim=3;vars_per_part=30;num_dumps=1", dumps: 1, vars: 30,
		nodes: map[int][]uint64{1: {10, 20, 10}, 2: {10, 30, 10}, 4: {10, 30, 20}}, parts: map[int]int{1: 2, 2: 3, 4: 6}},
	{name: "sif1d", kv: "parallel_file_mode=SIF 3;part_size=16000;part_dim=1;vars_per_part=20;num_dumps=3;dataset_growth=1.5", dumps: 3, vars: 20,
		growth: true, nodes: map[int][]uint64{1: {2000}, 2: {4000}, 4: {8000}}, parts: map[int]int{1: 1, 2: 2, 4: 4}},
	{name: "mif", kv: "parallel_file_mode=MIF 2;avg_num_parts=1.5;part_size=10000;vars_per_part=20;num_dumps=1", dumps: 1, vars: 20, mif: 2,
		nodes: map[int][]uint64{1: {25, 50}, 2: {25, 50}, 4: {25, 50}}, parts: map[int]int{1: 2, 2: 3, 4: 6}},
	{name: "mifgrow", kv: "parallel_file_mode=MIF 1;part_size=10000;vars_per_part=20;num_dumps=3;dataset_growth=1.5;compression=gzip level=9", dumps: 3, vars: 20, mif: 1,
		gzip: true, growth: true, nodes: map[int][]uint64{1: {25, 50}, 2: {25, 50}, 4: {25, 50}}, parts: map[int]int{1: 1, 2: 2, 4: 4}},
	{name: "sifind", kv: "parallel_file_mode=SIF;part_size=10000;vars_per_part=8;num_dumps=1;no_collective=true", dumps: 1, vars: 8,
		nodes: map[int][]uint64{1: {50, 25}, 2: {100, 25}, 4: {100, 50}}, parts: map[int]int{1: 1, 2: 2, 4: 4}},
}

// TestMACSio runs every case at 1, 2 and 4 ranks (2 alone in the 1.14 suite: mpitest.Sweep), writing then reading back (verified);
// the ranks check the census (SIF collective writes, none in MIF, the baton's messages).
// The parent compares each file's structure with MACSio's, follows the growth from the
// files' sizes, checks from the timeline that a MIF rank writes only while it holds the
// baton, and reads MACSio's log and timings files.
func TestMACSio(t *testing.T) {
	dir := testDir(t)
	nps := mpitest.Sweep(1, 2, 4)
	if mpitest.Run(t, nps...) {
		for _, np := range nps {
			handedOn := checkBaton(t, filepath.Join(dir, fmt.Sprintf("mifgrow-np%d.trace.json", np)), np)
			for _, c := range macsioCases {
				checkMACSioFiles(t, c, np, filepath.Join(dir, fmt.Sprintf("%s-np%d", c.name, np)), handedOn)
			}
			checkMACSioOutputs(t, filepath.Join(dir, fmt.Sprintf("sif2d-np%d", np)), np)
		}
		return
	}
	np := world(t).Size()
	for _, c := range macsioCases {
		base := filepath.Join(dir, fmt.Sprintf("%s-np%d", c.name, np))
		// HDF5's metadata cache: with MACSio's, HDF5 1.10.8 hung now and then in a
		// collective H5Dwrite on this loaded machine (docs/macsio.md).
		kv := c.kv + fmt.Sprintf(";mdc=hdf5;log_file_name=%s.log;timings_file_name=%s.timings", base, base)
		if c.name == "mifgrow" {
			kv += ";trace_file=" + base + ".trace.json"
		}
		rep := runReport(t, patternConfig(t, "macsio", kv, base), c.name)
		if len(rep.Phases) != 2 {
			t.Fatalf("%s: %d phases", c.name, len(rep.Phases))
		}
		w, r := rep.Phases[0], rep.Phases[1]
		if !r.Verified || r.Mismatches != 0 || r.Steps != c.dumps {
			t.Errorf("%s: read verified %v, mismatches %v, steps %d", c.name, r.Verified, r.Mismatches, r.Steps)
		}
		calls := map[string]float64{}
		for _, k := range w.Census.Calls {
			calls[k.Call] = k.Count
		}
		switch {
		case c.mif > 0:
			group := np / min(c.mif, np) // every case's groups are even here
			passes := float64((np - np/group) * c.dumps)
			if w.Census.CollectiveTransfers != 0 || len(w.Census.IOModes) != 0 || calls["MPI_Recv"] != passes || calls["MPI_Ssend"] != passes {
				t.Errorf("%s: MIF census: %v collective transfers %v, calls %v; want none and %v baton messages each way", c.name, w.Census.CollectiveTransfers, w.Census.IOModes, calls, passes)
			}
		case strings.Contains(c.kv, "no_collective"):
			if w.Census.CollectiveTransfers != 0 || calls["H5Dwrite"] != float64(np*c.vars) {
				t.Errorf("%s: independent SIF: %v collective transfers, %v writes", c.name, w.Census.CollectiveTransfers, calls["H5Dwrite"])
			}
		case !c.growth:
			// ceil(avg_num_parts) collective writes per variable on every rank: at 2 ranks
			// with 2 parts and 20 variables, 80 per dump (MACSio under Darshan).
			per := int(math.Ceil(float64(c.parts[np]) / float64(np)))
			if want := float64(np * per * c.vars * c.dumps); w.Census.CollectiveTransfers != want || calls["H5Dwrite"] != want {
				t.Errorf("%s: %v collective transfers, %v H5Dwrite, want %v", c.name, w.Census.CollectiveTransfers, calls["H5Dwrite"], want)
			}
			if c.name == "sif2d" && np == 2 && w.Census.CollectiveTransfers != 80 {
				t.Errorf("sif2d at 2 ranks: %v collective writes, want 80", w.Census.CollectiveTransfers)
			}
		}
	}
}

// macsioDS is what the parent reads of one dataset.
type macsioDS struct {
	shape   []uint64
	typ     plan.Type
	chunk   []uint64
	deflate int
	shuffle bool
}

// readMACSioFile lists a file's groups and its datasets' properties.
func readMACSioFile(t *testing.T, path string) (groups []string, ds map[string]macsioDS) {
	t.Helper()
	f, err := h5.OpenFile(path, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := h5.Walk(f)
	h5.CloseFile(f)
	if err != nil {
		t.Fatal(err)
	}
	ds = map[string]macsioDS{}
	for _, o := range objs {
		if !o.Dataset {
			groups = append(groups, o.Path)
			continue
		}
		info := datasetInfo(t, path, o.Path)
		m := macsioDS{shape: info.Shape, typ: info.Type, chunk: info.Chunk, deflate: info.Deflate}
		for _, fl := range info.Filters {
			m.shuffle = m.shuffle || fl.ID == 2
		}
		ds[o.Path] = m
	}
	return groups, ds
}

// macsioGrowth is what MACSio adds after a dump whose files take size bytes, for parts of
// nodes nodes: the whole arrays named, and whether a remainder follows (always).
func macsioGrowth(size int64, nodes int) (whole int) {
	add := int(float32(size)*1.5 - float32(size))
	arrays := float64(add/8) / float64(nodes)
	for w := 1; float64(w) < arrays; w++ {
		whole++
	}
	return whole
}

// checkMACSioFiles compares a case's files with MACSio's structure. A MIF rank that
// hands its file on grows from the file's size as it handed it on (handedOn, by rank and
// dump, from the trace: MACSio stats its files right after its hand-off), the group's
// last rank from the whole file.
func checkMACSioFiles(t *testing.T, c macsioCase, np int, base string, handedOn map[[2]int]int64) {
	t.Helper()
	name := fmt.Sprintf("%s at %d ranks", c.name, np)
	expansions := map[int]int{} // by rank: distinct expansion variables so far
	for d := 0; d < c.dumps; d++ {
		var files []string
		if c.mif == 0 {
			files = []string{fmt.Sprintf("%s_hdf5_%03d.h5", base, d)}
		} else {
			for g := 0; g < min(c.mif, np); g++ {
				files = append(files, fmt.Sprintf("%s_hdf5_%05d_%03d.h5", base, g, d))
			}
		}
		if got, _ := filepath.Glob(base + fmt.Sprintf("_hdf5_*%03d.h5", d)); len(got) != len(files) {
			t.Errorf("%s: dump %d files %v, want %v", name, d, got, files)
		}
		var chunks []int
		for _, file := range files {
			groups, ds := readMACSioFile(t, file)
			if c.mif == 0 {
				if len(groups) != 0 {
					t.Errorf("%s: SIF groups %v", name, groups)
				}
				checkMACSioVars(t, name+" "+file, "", ds, c, c.nodes[np], len(c.nodes[np]), expansions[0])
				continue
			}
			for _, g := range groups {
				var id int
				if _, err := fmt.Sscanf(g, "/domain_%07d", &id); err != nil || len(g) != len("/domain_0000000") {
					t.Errorf("%s: group %s", name, g)
					continue
				}
				chunks = append(chunks, id)
				exp := 0
				if c.growth && (slices.Index(groups, g) == 0 || c.mif == 1) {
					exp = expansions[id] // MIF 1 at 1 part per rank: domain id is rank id's first part
				}
				checkMACSioVars(t, name+" "+file+g, g, ds, c, nil, 2, exp)
			}
			if c.mif > 0 && !slices.IsSorted(chunks) {
				t.Errorf("%s: chunks %v not in rank order", name, chunks)
			}
		}
		if c.mif > 0 {
			sort.Ints(chunks)
			for i := range chunks {
				if chunks[i] != i || len(chunks) != c.parts[np] {
					t.Errorf("%s: dump %d domains %v, want 0..%d", name, d, chunks, c.parts[np]-1)
					break
				}
			}
		}
		if c.growth && d+1 < c.dumps {
			st, err := os.Stat(files[0])
			if err != nil {
				t.Fatal(err)
			}
			nodes := 1
			for _, n := range c.nodes[np] {
				nodes *= int(n)
			}
			if c.mif == 0 {
				nodes /= c.parts[np] // the part's nodes
			}
			for r := 0; r < np; r++ {
				size := st.Size()
				if c.mif == 1 && r < np-1 {
					if size = handedOn[[2]int{r, d}]; size <= 0 || size >= st.Size() {
						t.Errorf("%s: rank %d handed dump %d's file on at %d bytes (the whole file: %d)", name, r, d, size, st.Size())
					}
				}
				w := macsioGrowth(size, nodes)
				if d == 0 {
					expansions[r] += w + 1
				} else {
					expansions[r] += w // the first whole array repeats the last remainder's name
				}
			}
		}
	}
}

// checkMACSioVars checks one SIF file's or MIF domain's variables: the names, types and
// shapes of §6c, the expansion variables, the layout.
func checkMACSioVars(t *testing.T, what, group string, ds map[string]macsioDS, c macsioCase, global []uint64, dim, expansions int) {
	t.Helper()
	names := macsioVars20
	if c.vars == 30 {
		names = append(slices.Clone(macsioVars20), "ysin_001", "noise_001", "noise_sum_001", "xlayers_001", "constant_002", "random_002",
			"spherical_002", "xramp_002", "ysin_002", "noise_002")
	} else if c.vars == 8 {
		names = macsioVars20[:8]
	}
	want := len(names) + expansions
	got := 0
	for p := range ds {
		if strings.HasPrefix(p, group+"/") && strings.Count(p, "/") == strings.Count(group, "/")+1 {
			got++
		}
	}
	if got != want {
		t.Errorf("%s: %d datasets, want %d (%d variables, %d expansions)", what, got, want, len(names), expansions)
	}
	for i, n := range names {
		d, ok := ds[group+"/"+n]
		if !ok {
			t.Errorf("%s: no variable %s", what, n)
			continue
		}
		zone := slices.Contains([]int{0, 1, 2, 7}, i%8)
		wantType := plan.F64
		if i%8 == 7 {
			wantType = plan.I32
		}
		var shape []uint64
		if group == "" {
			shape = slices.Clone(global)
			if zone { // less the parts along each axis (the parts' product is the total)
				shape = zoneShape(global, c, dim)
			}
		} else {
			shape = []uint64{25, 50}
			if zone {
				shape = []uint64{24, 49}
			}
		}
		if !slices.Equal(d.shape, shape) || !d.typ.Equal(wantType) {
			t.Errorf("%s/%s: shape %v type %s, want %v %s", what, n, d.shape, d.typ, shape, wantType)
		}
		checkLayout(t, what+"/"+n, d, c.gzip)
	}
	for e := 0; e < expansions; e++ {
		n := fmt.Sprintf("%s/expansion_%03d", group, e)
		d, ok := ds[n]
		if !ok {
			t.Errorf("%s: no %s", what, n)
			continue
		}
		if group == "" && !slices.Equal(d.shape, global) {
			t.Errorf("%s: %s shape %v, want the node shape %v", what, n, d.shape, global)
		}
		checkLayout(t, what+" "+n, d, c.gzip)
	}
}

// zoneShape is the SIF zone-centred shape: each axis's nodes less its parts, the parts per
// axis recovered from the part's nodes (MACSio's close factors of the part size).
func zoneShape(global []uint64, c macsioCase, dim int) []uint64 {
	var part []uint64
	switch c.name {
	case "sif2d", "sifind":
		part = []uint64{50, 25}
	case "sif3d":
		part = []uint64{10, 10, 10}
	case "sif1d":
		part = []uint64{2000}
	}
	out := make([]uint64, len(global))
	for i := range global {
		out[i] = global[i] - global[i]/part[i]
	}
	return out
}

// checkLayout: contiguous, or with gzip and at least 1024 elements one chunk of the whole
// dataset, shuffled and deflated at level 9.
func checkLayout(t *testing.T, what string, d macsioDS, gzip bool) {
	t.Helper()
	if !gzip || plan.Product(d.shape) < 1024 {
		if d.chunk != nil {
			t.Errorf("%s: chunked %v, want contiguous", what, d.chunk)
		}
		return
	}
	if !slices.Equal(d.chunk, d.shape) || d.deflate != 9 || !d.shuffle {
		t.Errorf("%s: chunk %v deflate %d shuffle %v, want one chunk %v, level 9, shuffled", what, d.chunk, d.deflate, d.shuffle, d.shape)
	}
}

// checkBaton reads a MIF 1 run's timeline: in every dump, each rank's file operations and
// writes lie after the previous rank's close and its baton pass, so one rank writes at
// a time, in rank order.
func checkBaton(t *testing.T, trace string, np int) (handedOn map[[2]int]int64) {
	t.Helper()
	tr, err := tracefile.Read(trace)
	if err != nil {
		t.Fatal(err)
	}
	type span struct{ first, last float64 }
	io := map[[2]int]*span{} // (rank, dump) -> the rank's file I/O in the write phase's dump
	waits := 0
	for _, e := range tr.TraceEvents {
		if e.Cat != "io" || e.Args["step"] == nil {
			continue
		}
		if e.Name == "read" || e.Name == "open-group" || e.Name == "open-dataset" {
			return // the read-back (every rank at once) follows the dumps
		}
		if e.Name == "wait-baton" {
			waits++
			continue
		}
		if e.Name == "pass-baton" {
			if size, ok := e.Args["handed_on_size"].(float64); ok {
				if handedOn == nil {
					handedOn = map[[2]int]int64{}
				}
				handedOn[[2]int{e.Pid, int(e.Args["step"].(float64))}] = int64(size)
			}
			continue
		}
		k := [2]int{e.Pid, int(e.Args["step"].(float64))}
		s, ok := io[k]
		if !ok {
			s = &span{first: e.Ts, last: e.Ts + e.Dur}
			io[k] = s
		}
		s.first, s.last = min(s.first, e.Ts), max(s.last, e.Ts+e.Dur)
	}
	for k, s := range io {
		if k[0] == 0 {
			continue
		}
		prev, ok := io[[2]int{k[0] - 1, k[1]}]
		if !ok || s.first < prev.last {
			t.Errorf("%s: rank %d's I/O of dump %d starts at %.0f us, before rank %d's ends (%v)", trace, k[0], k[1], s.first, k[0]-1, prev)
		}
	}
	if len(io) != 3*np {
		t.Errorf("%s: I/O of %d (rank, dump) pairs, want %d", trace, len(io), 3*np)
	}
	return handedOn
}

// checkMACSioOutputs reads MACSio's log (a region of 64 lines of 128 characters per rank,
// 64 more for rank 0) and timings files of a SIF run.
func checkMACSioOutputs(t *testing.T, base string, np int) {
	t.Helper()
	log, err := os.ReadFile(base + ".log")
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != (64*np+64)*128 {
		t.Errorf("%s.log: %d bytes, want %d", base, len(log), (64*np+64)*128)
	}
	lines := strings.Split(strings.TrimSuffix(string(log), "\n"), "\n")
	for r := 0; r < np; r++ {
		at := 64*r + 64*min(r, 1)
		head := lines[at]
		if !strings.Contains(head, fmt.Sprintf("Processor %06d", r)) || !strings.HasPrefix(head, "----") {
			t.Errorf("%s.log: rank %d heading %q", base, r, head)
		}
		if !strings.HasPrefix(lines[at+1], `Info:"macsio_main.c":674:Dump 00 BW: `) || !strings.HasPrefix(lines[at+2], `Info:"macsio_main.c":679:Dump 00 Stat BW: `) ||
			!strings.HasPrefix(lines[at+3], `Info:"macsio_main.c":705:Overall BW: `) {
			t.Errorf("%s.log: rank %d lines %q", base, r, lines[at+1:at+4])
		}
	}
	if !strings.HasPrefix(lines[4], `Info:"macsio_main.c":723:Summed  BW: `) || !strings.HasPrefix(lines[5], `Info:"macsio_main.c":727:Total Bytes: `) {
		t.Errorf("%s.log: rank 0's sums %q", base, lines[4:6])
	}
	tim, err := os.ReadFile(base + ".timings")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Reduced Timers...", "LAB=H5Dwrite", "LAB=H5Dcreate", "LAB=main", fmt.Sprintf("Processor %06d", np-1)} {
		if !strings.Contains(string(tim), w) {
			t.Errorf("%s.timings lacks %q", base, w)
		}
	}
}
