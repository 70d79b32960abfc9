package profile

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Description is an application description folded from a traced profile, in the format of
// docs/apps.md (patterns/app): YAML text, the sidecar files it names, and the HDF5 calls
// the description cannot express (listed by name; the rest is still written).
type Description struct {
	YAML        string
	Files       map[string]string // sidecar file name (beside the description) -> contents
	Unexpressed []string
	// Map is the decomposition map of the datasets whose ranks wrote unions of hyperslabs
	// (nil when none did), to be written as an E3SM-IO map file named MapName beside the
	// description.
	Map     *MapFile
	MapName string
	// compounds are the compound types the description defines (types:), in order.
	compounds []compound
}

// ErrNoHDF5 says a profile has no HDF5 dataset I/O to fold into a description.
var ErrNoHDF5 = errors.New("no description: the program made no HDF5 dataset writes or reads (its profile has POSIX and MPI-IO records only)")

// datasetInfo is the H5D record's info object (the library's H5Dcreate/H5Dopen probe).
type datasetInfo struct {
	TypeClass int      `json:"type_class"`
	TypeSize  int      `json:"type_size"`
	TypeSign  int      `json:"type_sign"`
	Layout    int      `json:"layout"`
	Filters   int      `json:"filters"`
	FilterIDs [][2]int `json:"filter_ids"`
	Dims      []int64  `json:"dims"`
	MaxDims   []int64  `json:"maxdims"`
	Chunk     []int64  `json:"chunk"`
	// Fill properties (H5D_fill_time_t, H5D_alloc_time_t, H5D_fill_value_t and a user
	// fill value's bytes in hex); absent from records of older libraries.
	FillTime    *int   `json:"fill_time"`
	AllocTime   *int   `json:"alloc_time"`
	FillDefined *int   `json:"fill_defined"`
	FillValue   string `json:"fill_value"`
	// Members are a compound type's members (absent from records of older libraries).
	Members []typeMember `json:"type_members"`
}

// h5dTransfers are the traced calls that move a dataset's data, true for writes: an
// H5Dwrite_multi or H5Dread_multi (HDF5 1.14) leaves one event per dataset.
var h5dTransfers = map[string]bool{"H5Dwrite": true, "H5Dwrite_multi": true, "H5Dread": false, "H5Dread_multi": false}

// selection is the file selection of a traced H5Dread/H5Dwrite: a regular hyperslab
// (start, stride, count, block), none, points, or a union of hyperslabs (HDF5's block list:
// each block's start then end corner, inclusive; the library keeps one list per dataset,
// direction and rank, and the later ones' hash).
type selection struct {
	Start, Stride, Count, Block []int64
	None                        bool
	Points                      int64
	whole                       bool   // H5S_ALL: no file selection
	NBlocks                     int64  `json:"nblocks"`
	Hash                        string `json:"blocks_hash"`
	Blocks                      [][]int64
}

// capDataset is one dataset of the description: its template path, what the records say
// of it and the accesses of each rank at the first step.
type capDataset struct {
	template string // path in the file with ${step} for the step number
	info     datasetInfo
	writes   map[int][]selection // rank -> selections at the first step
	reads    map[int][]selection
	nwrites  int // H5Dwrite calls of rank 0 at the first step
	coll     bool
	indep    bool
	order    int // creation order on rank 0
	fileOf   string
	attrs    []*capAttr
	// A series by extension (an unlimited first dimension grown by H5Dset_extent between
	// writes, as netCDF's record variables): each write adds grow along dimension 0;
	// empty when it was created with none (extended before its first write).
	series   bool
	grow     int64
	empty    bool
	extents  int                     // H5Dset_extent calls of rank 0
	writesBy map[int]int             // rank -> H5Dwrite calls in the whole run
	hashes   map[int]map[string]bool // rank -> the block-list hashes of its union selections
	once     bool                    // written at the first step alone (steps from series)
	// independent: written with independent transfers only, in a file whose other
	// datasets of the same cadence are written collectively (independent: true, one
	// write action for both).
	independent bool
}

var stepNumber = regexp.MustCompile(`^(.*?)(\d+)$`)

// Capture folds p (traced: h5proxy profile -trace, or h5proxy capture) into a description
// named name. Datasets in groups whose names end in a number (Timestep_0, Timestep_1, ...)
// become one group template per step; each dataset's selections at the first step fold
// into a decomposition (block along the slowest dimension, rank0, replicated, or uneven
// 1-D counts in rank order) and are listed per rank in Unexpressed where none fits.
func Capture(p *Profile, name string) (*Description, error) {
	if !p.Traced {
		return nil, errors.New("capture needs a traced profile (h5proxy profile -trace, or h5proxy capture)")
	}
	c := &Description{Files: map[string]string{}}
	p, perStep := foldFilesPerStep(p)
	type fileKey = string
	files := map[fileKey]map[string]*capDataset{}
	var fileOrder []fileKey
	steps := 1
	// A group name ending in a number is a step's when the file has groups of that name
	// with other numbers too (Timestep_0, Timestep_1): AMReX's level_0 alone is a name. The
	// smallest number is step 0.
	numbered := map[string]map[int]bool{} // file and group template -> its numbers
	template := func(file, dsPath string, numbers bool) (string, int, bool) {
		parts := strings.Split(strings.TrimPrefix(dsPath, "/"), "/")
		for i := 0; i < len(parts)-1; i++ {
			if m := stepNumber.FindStringSubmatch(parts[i]); m != nil {
				n, _ := strconv.Atoi(m[2])
				orig := parts[i]
				parts[i] = m[1] + "${step}"
				key := file + "\x00" + strings.Join(parts[:i+1], "/")
				if numbers {
					if numbered[key] == nil {
						numbered[key] = map[int]bool{}
					}
					numbered[key][n] = true
				}
				if len(numbered[key]) > 1 {
					// Numbered from m0 (openPMD's iterations from 1): step 0 is m0.
					if m0 := slices.Min(slices.Collect(maps.Keys(numbered[key]))); m0 != 0 {
						parts[i] = fmt.Sprintf("%s${step + %d}", m[1], m0)
						n -= m0
					}
					return "/" + strings.Join(parts, "/"), n, true
				}
				parts[i] = orig
			}
		}
		return dsPath, 0, false
	}
	for _, r := range p.Records {
		if r.Module == "H5D" {
			template(r.File, r.Name, true)
		}
	}
	for _, e := range p.Events {
		if groupCreate(e.Call) && e.Object != "" {
			template(e.File, e.Object+"/x", true)
		}
	}
	stepOf := func(file, dsPath string) (string, int, bool) { return template(file, dsPath, false) }
	// stepAt is stepOf for a record or event, whose file may be one of a file per step.
	stepAt := func(file, dsPath string, fileStep int) (string, int, bool) {
		t, n, stepped := stepOf(file, dsPath)
		if fileStep > 0 {
			return t, fileStep - 1, true
		}
		return t, n, stepped
	}
	for _, r := range p.Records {
		if r.Module != "H5D" || r.Rank > 0 {
			continue
		}
		tmpl, n, stepped := stepAt(r.File, r.Name, r.fileStep)
		if stepped {
			steps = max(steps, n+1)
		}
		if _, ok := files[r.File]; !ok {
			files[r.File] = map[string]*capDataset{}
			fileOrder = append(fileOrder, r.File)
		}
		if _, ok := files[r.File][tmpl]; ok {
			continue
		}
		d := &capDataset{template: tmpl, fileOf: r.File, writes: map[int][]selection{}, reads: map[int][]selection{}, writesBy: map[int]int{}, hashes: map[int]map[string]bool{}}
		if len(r.Info) > 0 {
			if err := json.Unmarshal(r.Info, &d.info); err != nil {
				return nil, fmt.Errorf("H5D record %s %s: info: %w", r.File, r.Name, err)
			}
		}
		files[r.File][tmpl] = d
	}
	if len(files) == 0 {
		return nil, ErrNoHDF5
	}
	// Creation (or open) order on rank 0: HDF5 allocates contiguous datasets in it.
	order := map[string]int{}
	for _, e := range p.Events {
		if e.Rank == 0 && e.Module == "H5D" && (strings.HasPrefix(e.Call, "H5Dcreate") || strings.HasPrefix(e.Call, "H5Dopen")) {
			tmpl, _, _ := stepOf(e.File, e.Name)
			if _, ok := order[e.File+"\x00"+tmpl]; !ok {
				order[e.File+"\x00"+tmpl] = len(order)
			}
		}
	}
	for f, ds := range files {
		for t, d := range ds {
			d.order = len(order) + 1
			if i, ok := order[f+"\x00"+t]; ok {
				d.order = i
			}
		}
	}
	// Series by extension: the run's writes per rank and rank 0's extensions.
	if steps == 1 {
		steps = c.series(p, files, stepAt)
	}
	// The first step's accesses of every rank (a series' first write); the gaps between
	// steps on rank 0 (a series' writes are its steps).
	stepStart, stepEnd := map[int]float64{}, map[int]float64{}
	seriesWrite := map[*capDataset]map[int]int{} // rank -> writes seen so far
	for _, e := range p.Events {
		write, transfer := h5dTransfers[e.Call]
		if e.Module != "H5D" || !transfer {
			continue
		}
		tmpl, n, _ := stepAt(e.File, e.Name, e.fileStep)
		d := files[e.File][tmpl]
		if d != nil && d.series && write {
			if seriesWrite[d] == nil {
				seriesWrite[d] = map[int]int{}
			}
			n = seriesWrite[d][e.Rank]
			seriesWrite[d][e.Rank]++
		}
		if e.Rank == 0 {
			if s, ok := stepStart[n]; !ok || e.Start < s {
				stepStart[n] = e.Start
			}
			stepEnd[n] = max(stepEnd[n], e.End)
		}
		if d == nil {
			continue
		}
		var sel selection
		if len(e.Selection) > 0 {
			_ = json.Unmarshal(e.Selection, &sel)
		} else {
			sel = selection{Start: make([]int64, len(d.info.Dims)), Count: d.info.Dims, whole: true}
		}
		if sel.Hash != "" && write {
			if d.hashes[e.Rank] == nil {
				d.hashes[e.Rank] = map[string]bool{}
			}
			d.hashes[e.Rank][sel.Hash] = true
		}
		if n != 0 {
			continue
		}
		if write {
			d.writes[e.Rank] = append(d.writes[e.Rank], sel)
			if e.Rank == 0 {
				d.nwrites++
			}
			d.coll = d.coll || e.Collective
			d.indep = d.indep || !e.Collective
		} else {
			d.reads[e.Rank] = append(d.reads[e.Rank], sel)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Captured by h5proxy capture from %s (%d ranks).\n", strings.Join(p.Command, " "), p.Ranks)
	fmt.Fprintf(&b, "name: %s\n", yamlString(name))
	fmt.Fprintf(&b, "steps: %d\n", steps)
	fmt.Fprintf(&b, "ranks: %d   # the traced run's ranks: h5proxy run's default -np\n", max(p.Ranks, 1))
	if compute := meanGap(stepStart, stepEnd, steps); compute > 0.001 {
		fmt.Fprintf(&b, "compute: %.3fs   # the mean time between rank 0's steps of I/O\n", compute)
	}
	c.writeHints(&b, p, fileOrder)
	fmt.Fprintln(&b, "files:")
	ids := map[string]string{}
	var timeline []string
	// Input files (only read, while the program wrote others) are left out: a description
	// reads back only files it writes.
	writes := func(f string) bool {
		for _, d := range files[f] {
			if len(d.writes) > 0 {
				return true
			}
		}
		return false
	}
	anyWritten := slices.ContainsFunc(fileOrder, writes)
	attrs := attributes(p, func(file, obj string) (string, int) {
		if t, n, _ := stepOf(file, obj); files[file][t] != nil { // a dataset
			return t, n
		}
		t, n, _ := stepOf(file, obj+"/x") // a group: its own name may carry the step
		if t = strings.TrimSuffix(t, "/x"); t == "" {
			t = "/"
		}
		return t, n
	})
	c.MapName = fileID(name, 0, map[string]string{}) + ".map.h5"
	c.fileFamilies(fileOrder, files, writes)
	for i, f := range fileOrder {
		if anyWritten && !writes(f) {
			c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s: an input the program read but did not write (a description reads back only the files it writes)", filepath.Base(f)))
			continue
		}
		id := fileID(f, i, ids)
		if name, ok := perStep[f]; ok { // named without the step: plt${step:05d}.h5 is plt
			delete(ids, id)
			id = fileID(filepath.Join(filepath.Dir(f), stepField.ReplaceAllString(name, "")), i, ids)
		}
		ds := files[f]
		if name, ok := perStep[f]; ok {
			fmt.Fprintf(&b, "  %s:\n    name: %s   # a file per step\n", id, yamlString(name))
		} else {
			fmt.Fprintf(&b, "  %s:\n    name: %s\n", id, yamlString(filepath.Base(f)))
		}
		h5f, hasH5F := fileRecord(p, f)
		if hasH5F && h5f.Counters["H5F_USE_MPIIO"] == 0 {
			c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s: opened without the MPI-IO driver (H5Pset_fapl_mpio never called): written as a shared file opened through MPI-IO, the same datasets and writers (a description's shared files use MPI-IO)", filepath.Base(f)))
		}
		var fa fileAccess
		if hasH5F && len(h5f.Info) > 0 {
			_ = json.Unmarshal(h5f.Info, &fa)
		}
		ways := inferWays(p, f, p.Ranks)
		if !ways.known && (fa.Ops || fa.Write) { // a trace without each open's access list
			ways.collMeta, ways.wOps, ways.wWrite = "true", fa.Ops, fa.Write
			ways.guesses = append(ways.guesses, "collective_metadata: the file's last open asked for it (the trace, of an older library, has no access list per open: how the file was created and which opens asked cannot be told)")
		}
		c.writeWays(&b, id, f, ways)
		switch {
		case fa.LibverLatest:
			b.WriteString("    libver: latest\n")
		case len(fa.Libver) == 2 && fa.Libver[0] != 0:
			c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s: library version bounds %v (a description has HDF5's default or latest/latest)", filepath.Base(f), fa.Libver))
		}
		fileAttrs := attrs[f]
		for t, d := range ds {
			d.attrs = fileAttrs[t]
		}
		markIndependent(ds, ways)
		c.writeAttributes(&b, "    ", id, fileAttrs["/"])
		c.writeTree(&b, id, ds, fileAttrs, groupsOf(p, f, ds, fileAttrs, stepOf), p.Ranks)
		read := false
		// One write action per transfer mode and cadence (every step, or a series'
		// first step alone); the datasets are named only when the file has several (a
		// program that writes some datasets collectively and others independently, as
		// rank 0's small arrays often are, or fixed variables beside record ones).
		var groups [4][]string // collective, independent; each every step, then once
		first := [4]int{}      // each group's first dataset in creation order
		for _, t := range sortedTemplates(ds) {
			d := ds[t]
			read = read || len(d.reads) > 0
			if len(d.writes) == 0 || ways.serialDataset(t) {
				continue
			}
			g := 0
			if d.indep && !d.coll && !d.independent {
				g = 1
			}
			if d.once {
				g += 2
			}
			if len(groups[g]) == 0 {
				first[g] = d.order
			}
			groups[g] = append(groups[g], path.Base(t))
		}
		several := 0
		for _, g := range groups {
			if len(g) > 0 {
				several++
			}
		}
		// The actions in the order of their first datasets' creation: the engine creates
		// each dataset at its first write, and HDF5 allocates contiguous ones in that order.
		byFirst := []int{0, 1, 2, 3}
		slices.SortStableFunc(byFirst, func(a, b int) int { return cmp.Compare(first[a], first[b]) })
		for _, g := range byFirst {
			names := groups[g]
			if len(names) == 0 {
				continue
			}
			a := "  - write: " + id
			if g%2 == 1 {
				a += "\n    collective: false"
			}
			if g >= 2 {
				a += fmt.Sprintf("\n    every: %d   # the first step alone", steps)
			}
			if several > 1 {
				a += "\n    datasets: [" + strings.Join(names, ", ") + "]"
			}
			timeline = append(timeline, a)
		}
		// A flush per step when every rank flushed at least once a step, else one at the end.
		if hasH5F && h5f.Counters["H5F_FLUSHES"] > 0 {
			if perRank := h5f.Counters["H5F_FLUSHES"] / int64(max(p.Ranks, 1)); perRank >= int64(steps) && steps > 1 {
				timeline = append(timeline, "  - flush: "+id)
			} else {
				timeline = append(timeline, "  - flush: "+id+"\n    at: end")
			}
		}
		written := several > 0
		if read {
			at := ""
			if written {
				at = "\n    at: restart"
			}
			// One read per step the program read (a stepped group's), in its order: a
			// read's default step is the last written.
			rs := readSteps(p, f, stepOf)
			if len(rs) == 0 || len(rs) == 1 && rs[0] == steps-1 {
				timeline = append(timeline, "  - read: "+id+at)
			}
			for _, n := range rs {
				if len(rs) > 1 || n != steps-1 {
					timeline = append(timeline, fmt.Sprintf("  - read: %s%s\n    step: %d", id, at, n))
				}
			}
		}
	}
	fmt.Fprintln(&b, "timeline:")
	for _, a := range timeline {
		fmt.Fprintln(&b, a)
	}
	if traced := slices.ContainsFunc(p.Events, func(e Event) bool { return len(e.Attribute) > 0 }); !traced && p.Calls["H5Acreate2"].N+p.Calls["H5Awrite"].N > 0 {
		c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("H5Acreate2 ×%d, H5Awrite ×%d: the trace has no attribute names, types or values (a library older than this h5proxy)", p.Calls["H5Acreate2"].N, p.Calls["H5Awrite"].N))
	}
	c.writeTypes(&b)
	if c.Map != nil {
		fmt.Fprintf(&b, "# %s: the ranks' unions of hyperslabs as an E3SM-IO map, one map process per captured rank (%s)\n", c.MapName, c.Map.summary())
	}
	if len(c.Unexpressed) > 0 {
		b.WriteString("# Not expressed:\n")
		for _, u := range c.Unexpressed {
			fmt.Fprintf(&b, "#   %s\n", u)
		}
	}
	c.YAML = b.String()
	// Never an invalid description: what cannot be said has a stand-in and a comment, so
	// a description that does not parse is capture's bug, reported rather than written.
	if _, err := desc.Parse("(captured)", []byte(c.YAML), nil); err != nil {
		return nil, fmt.Errorf("capture wrote a description h5proxy check refuses (a capture bug): %w\n%s", err, c.YAML)
	}
	return c, nil
}

// series finds the datasets written as series by extension (an unlimited first
// dimension, grown by H5Dset_extent between writes, as netCDF's and E3SM's record
// variables) and returns the steps they make: the most writes of any (1 when none). The
// other datasets written once are written at the first step alone.
func (c *Description) series(p *Profile, files map[string]map[string]*capDataset, stepAt func(string, string, int) (string, int, bool)) int {
	last := map[*capDataset]int64{}
	for _, e := range p.Events {
		if e.Module != "H5D" {
			continue
		}
		tmpl, _, stepped := stepAt(e.File, e.Name, e.fileStep)
		d := files[e.File][tmpl]
		if d == nil || stepped {
			continue
		}
		switch {
		case h5dTransfers[e.Call]:
			d.writesBy[e.Rank]++
		case e.Call == "H5Dset_extent" && e.Rank == 0:
			d.extents++
			if len(e.Extent) > 0 {
				last[d] = e.Extent[0]
			}
		}
	}
	steps := 1
	for _, ds := range files {
		for _, d := range ds {
			w := 0
			for _, n := range d.writesBy {
				w = max(w, n)
			}
			in := d.info
			if w == 0 || d.extents == 0 || len(in.MaxDims) == 0 || in.MaxDims[0] != -1 || last[d] == 0 || last[d]%int64(w) != 0 {
				continue
			}
			grow := last[d] / int64(w)
			if in.Dims[0] != 0 && in.Dims[0] != grow {
				continue // created holding some records, grown by others: not a series of equal writes
			}
			d.series, d.grow, d.empty = true, grow, in.Dims[0] == 0
			steps = max(steps, w)
		}
	}
	if steps == 1 {
		return 1
	}
	for _, ds := range files {
		for _, d := range ds {
			w := 0
			for _, n := range d.writesBy {
				w = max(w, n)
			}
			switch {
			case d.series && w != steps:
				c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s %s: written %d times, the other series %d (written at every step)", filepath.Base(d.fileOf), d.template, w, steps))
			case !d.series && w == 1:
				d.once = true
			case !d.series && w > 1:
				c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s %s: %d writes, not a series by extension (written at every step)", filepath.Base(d.fileOf), d.template, w))
			}
		}
	}
	return steps
}

// fileAccess is what an H5F record's info says of the file access list.
type fileAccess struct {
	Ops          bool              `json:"coll_metadata_ops"`
	Write        bool              `json:"coll_metadata_write"`
	Libver       []int             `json:"libver"` // H5F_libver_t low, high
	LibverLatest bool              `json:"libver_latest"`
	Hints        map[string]string `json:"hints"` // the MPI-IO info (traced profiles)
}

// sortedTemplates are a file's dataset templates in creation order (then by name).
func sortedTemplates(ds map[string]*capDataset) []string {
	tmpls := make([]string, 0, len(ds))
	for t := range ds {
		tmpls = append(tmpls, t)
	}
	slices.SortFunc(tmpls, func(a, b string) int { return cmp.Or(cmp.Compare(ds[a].order, ds[b].order), strings.Compare(a, b)) })
	return tmpls
}

// fileRecord is file's H5F record: the one shared by every rank, else rank 0's.
func fileRecord(p *Profile, file string) (Record, bool) {
	for _, rank := range []int{-1, 0} {
		if r, err := p.Find("H5F", file, "", rank); err == nil {
			return r, true
		}
	}
	return Record{}, false
}

// decomposition folds the first step's selections of every rank: block along dim 0
// (shape[0] then an expression over nranks, so the description runs at other rank
// counts), rank0, replicated, or uneven 1-D counts in rank order (a counts file).
func (c *Description) decomposition(id string, d *capDataset, nranks int) (decomp, shape0 string) {
	all := d.writes
	if len(all) == 0 {
		all = d.reads
	}
	dims := slices.Clone(d.info.Dims)
	if d.series {
		dims[0] = d.grow
	}
	// Ranks that select nothing take part in a collective transfer without elements.
	acc, irregular := map[int][]selection{}, false
	for r, ss := range all {
		for _, s := range ss {
			if !s.None {
				acc[r] = append(acc[r], s)
				irregular = irregular || len(s.Blocks) > 0 || s.NBlocks > 0
			}
		}
	}
	if len(acc) == 0 {
		return "", ""
	}
	if irregular && len(dims) > 0 {
		return c.unionDecomposition(id, d, acc, dims, nranks), ""
	}
	if len(dims) == 0 { // a scalar: written by rank 0 alone, or by every rank
		if _, only0 := acc[0]; only0 && len(acc) == 1 {
			return "rank0", ""
		}
		return "replicated", ""
	}
	box := func(sels []selection) (lo, hi []int64, ok bool) {
		for _, s := range sels {
			if len(s.Start) != len(dims) {
				return nil, nil, false
			}
			for i := range dims {
				stride, count, block := int64(1), s.Count[i], int64(1)
				if len(s.Stride) == len(dims) {
					stride = s.Stride[i]
				}
				if len(s.Block) == len(dims) {
					block = s.Block[i]
				}
				if count > 1 && stride != block {
					return nil, nil, false // strided: not a box
				}
				a, z := s.Start[i], s.Start[i]+count*block
				if lo == nil {
					lo, hi = make([]int64, len(dims)), make([]int64, len(dims))
					copy(lo, s.Start)
					for j := range hi {
						hi[j] = -1
					}
				}
				lo[i], hi[i] = min(lo[i], a), max(hi[i], z)
			}
		}
		return lo, hi, lo != nil
	}
	full := func(lo, hi []int64, from int) bool {
		for i := from; i < len(dims); i++ {
			if lo[i] != 0 || hi[i] != dims[i] {
				return false
			}
		}
		return true
	}
	// The whole extent passed as H5S_ALL, or selected as a hyperslab (select: hyperslab).
	whole := func(kind string) string {
		for _, ss := range acc {
			for _, s := range ss {
				if !s.whole {
					return "{kind: " + kind + ", select: hyperslab}"
				}
			}
		}
		return kind
	}
	if len(acc) == 1 && len(acc[0]) > 0 {
		if lo, hi, ok := box(acc[0]); ok && full(lo, hi, 0) {
			return whole("rank0"), ""
		}
	}
	var lows, highs [][]int64
	for r := 0; r < nranks; r++ {
		lo, hi, ok := box(acc[r])
		if !ok {
			c.listPerRank(id, d, acc, nranks)
			return "", ""
		}
		lows, highs = append(lows, lo), append(highs, hi)
	}
	allFull := true
	for r := range lows {
		allFull = allFull && full(lows[r], highs[r], 0)
	}
	if allFull {
		return whole("replicated"), ""
	}
	// contiguous runs along dim 0 in rank order, the rest full
	counts := make([]int64, nranks)
	next := int64(0)
	for r := range lows {
		if lows[r][0] != next || !full(lows[r], highs[r], 1) {
			c.listPerRank(id, d, acc, nranks)
			return "", ""
		}
		counts[r] = highs[r][0] - lows[r][0]
		next = highs[r][0]
	}
	if next != dims[0] {
		c.listPerRank(id, d, acc, nranks)
		return "", ""
	}
	equal := true
	for _, n := range counts {
		equal = equal && n == counts[0]
	}
	if equal {
		grid := ""
		if len(dims) > 1 {
			g := make([]string, len(dims))
			g[0] = "0"
			for i := 1; i < len(dims); i++ {
				g[i] = "1"
			}
			grid = ", grid: [" + strings.Join(g, ", ") + "]"
		}
		return "{kind: block" + grid + "}", fmt.Sprintf("%d * nranks", counts[0])
	}
	if len(dims) != 1 {
		c.listPerRank(id, d, acc, nranks)
		return "", ""
	}
	file := fmt.Sprintf("%s-%s.counts", id, strings.NewReplacer("/", "_", "${step}", "N").Replace(strings.TrimPrefix(d.template, "/")))
	var txt strings.Builder
	for _, n := range counts {
		fmt.Fprintln(&txt, n)
	}
	c.Files[file] = txt.String()
	return fmt.Sprintf("{kind: uneven, file: %s}", yamlString(file)), "auto"
}

// unionDecomposition folds unions of hyperslabs: each rank's elements as runs of the
// flattened array become a decomposition of the description's map file (a series of one
// record per write is mapped without its record dimension, as E3SM-IO's maps are).
func (c *Description) unionDecomposition(id string, d *capDataset, acc map[int][]selection, dims []int64, nranks int) string {
	perRank := make([][]run, nranks)
	for r := range nranks {
		rs, ok := selectionRuns(acc[r], dims)
		if !ok {
			c.listPerRank(id, d, acc, nranks)
			return ""
		}
		perRank[r] = rs
	}
	mdims := dims
	if d.series && d.grow == 1 && len(dims) > 1 {
		mdims = dims[1:]
	}
	dc, err := c.mapDecomposition(mdims, perRank)
	if err != nil {
		c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s %s: %v (a map writes each element once; written as block)", id, d.template, err))
		return ""
	}
	return dc
}

// listPerRank records a dataset whose selections fold into no decomposition, with each
// rank's selections (the description keeps the default block decomposition).
func (c *Description) listPerRank(id string, d *capDataset, acc map[int][]selection, nranks int) {
	var parts []string
	for r := 0; r < nranks; r++ {
		for _, s := range acc[r] {
			switch {
			case s.NBlocks > 0:
				parts = append(parts, fmt.Sprintf("rank %d a union of %d hyperslabs", r, s.NBlocks))
			case s.Points > 0:
				parts = append(parts, fmt.Sprintf("rank %d %d points", r, s.Points))
			default:
				parts = append(parts, fmt.Sprintf("rank %d start %v stride %v count %v block %v", r, s.Start, s.Stride, s.Count, s.Block))
			}
		}
	}
	c.Unexpressed = append(c.Unexpressed, fmt.Sprintf("%s %s: no decomposition fits (written as block): %s", id, d.template, strings.Join(parts, "; ")))
}

// typeName is the description's name of a dataset's datatype (H5T class and size).
func typeName(in datasetInfo) (string, bool) {
	switch in.TypeClass {
	case 0: // H5T_INTEGER
		if slices.Contains([]int{1, 2, 4, 8}, in.TypeSize) {
			if in.TypeSign == 0 {
				return fmt.Sprintf("u%d", 8*in.TypeSize), true
			}
			return fmt.Sprintf("i%d", 8*in.TypeSize), true
		}
	case 1: // H5T_FLOAT
		if in.TypeSize == 4 || in.TypeSize == 8 {
			return fmt.Sprintf("f%d", 8*in.TypeSize), true
		}
	case 3: // H5T_STRING
		return fmt.Sprintf("str%d", in.TypeSize), true
	}
	return "f64", false
}

// filterList names the pipeline's filters in the description's words (HDF5's filter ids:
// 1 deflate, 2 shuffle, 3 fletcher32, 4 szip, 5 nbit, 6 scaleoffset).
func filterList(in datasetInfo) string {
	var out []string
	for _, f := range in.FilterIDs {
		switch f[0] {
		case 1:
			out = append(out, fmt.Sprintf("{deflate: %d}", f[1]))
		case 2:
			out = append(out, "shuffle")
		case 3:
			out = append(out, "fletcher32")
		case 4:
			out = append(out, "szip")
		case 5:
			out = append(out, "nbit")
		case 6:
			out = append(out, "scaleoffset")
		}
	}
	return strings.Join(out, ", ")
}

// fileID is a file's id in the description: its base name without extension, made a
// plain word and unique.
func fileID(file string, i int, used map[string]string) string {
	id := plainWord(strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)), "f")
	if _, taken := used[id]; taken {
		id = fmt.Sprintf("%s_%d", id, i)
	}
	used[id] = file
	return id
}

// plainWord is s with every character but letters, digits and _ made _, prefixed when it
// is empty or starts with a digit: a name YAML and the description's keys take as is.
func plainWord(s, prefix string) string {
	w := strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
	if w == "" || w[0] >= '0' && w[0] <= '9' {
		w = prefix + w
	}
	return w
}

// meanGap is the mean time between the end of one step's I/O and the start of the next on
// rank 0.
func meanGap(start, end map[int]float64, steps int) float64 {
	var sum float64
	n := 0
	for s := 0; s+1 < steps; s++ {
		a, okA := end[s]
		z, okZ := start[s+1]
		if okA && okZ && z > a {
			sum += z - a
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
