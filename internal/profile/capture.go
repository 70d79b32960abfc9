package profile

import (
	"bytes"
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
	"unicode/utf8"
)

// Description is an application description folded from a traced profile, in the format of
// docs/apps.md (patterns/app): the model (Desc) and its YAML as the one writer writes it,
// the sidecar files it names, and the HDF5 calls the description cannot express (listed
// by name, each with a valid stand-in commented at its key; the rest is still written).
type Description struct {
	Desc        *desc.Description
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
	// capturedRanksOnly: a stand-in decomposition keeps the captured rank count's
	// extents (the description runs at that count alone).
	capturedRanksOnly bool
	// dimLists are the traced DIMENSION_LIST values by attribute owner (attributeOwner):
	// per dimension the paths of the scales attached to it.
	dimLists map[string][][]string
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
	// Tree is the type whole where the fields above cannot say it (capture_tree.go).
	Tree *typeTree `json:"type_tree"`
	// AttrCrtOrder is the creation order flags of the dataset's attributes (1 tracked,
	// 2 indexed; H5Pset_attr_creation_order on its creation list).
	AttrCrtOrder int `json:"attr_crt_order"`
	// Untimed: the program's creation list turned the dataset's object times off
	// (H5Pset_obj_track_times false).
	Untimed bool `json:"untimed"`
	// Virtual are a virtual dataset's mappings (H5Pset_virtual).
	Virtual []virtualMapping `json:"virtual"`
}

// virtualMapping is one traced mapping of a virtual dataset: the source's file and
// dataset, the bounding box of the virtual selection (ends exclusive) and the start of the
// source selection's; Box false when the virtual selection is not its box whole.
type virtualMapping struct {
	File    string  `json:"file"`
	Dataset string  `json:"dataset"`
	VStart  []int64 `json:"vstart"`
	VEnd    []int64 `json:"vend"`
	SStart  []int64 `json:"sstart"`
	Box     *bool   `json:"box"`
	// VAll and SAll: the virtual and the source selection are H5S_SEL_ALL.
	VAll bool `json:"vall"`
	SAll bool `json:"sall"`
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

// mayHash says whether a selection's JSON may hold a blocks_hash, which encoding/json
// matches in any case: false only when it is ASCII without escapes and without
// "blocks_hash" in any case (decoding every selection of a 10^5-call trace to find none
// took a fifth of the fold).
func mayHash(raw []byte) bool {
	const key = "blocks_hash"
	for i, c := range raw {
		if c >= utf8.RuneSelf || c == '\\' {
			return true // a fold of k or s outside ASCII (K, ſ) would match too, or an escape
		}
		if c|0x20 == 'b' && i+len(key) <= len(raw) && bytes.EqualFold(raw[i:i+len(key)], []byte(key)) {
			return true
		}
	}
	return false
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
	// memSize is the memory type's size of its first write (bytes over elements): a
	// float written from doubles (FLASH's single-precision plot files) has a memory type.
	memSize int
	// independent: written with independent transfers only, in a file whose other
	// datasets of the same cadence are written collectively (independent: true, one
	// write action for both).
	independent bool
	// emptyCalls: ranks without elements called H5Dwrite independently with an empty
	// selection (empty_calls: true).
	emptyCalls bool
	// refs are the references (hex) rank 0's first write at the first step wrote, when
	// traced; targets their H5Rcreate events' targets (nil when one is not traced),
	// inexact the first region that is not its bounding box (capture_refs.go).
	refs    string
	targets []desc.Value
	inexact string
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
	c := &Description{Files: map[string]string{}, Desc: &desc.Description{}}
	p, fams := foldFilesPerStep(p)
	perStep := fams.names
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
	// numbered is complete: stepOf is a function of its arguments from here on, asked of
	// every event's dataset (10^5 times in a long trace), so it is worked out once per path.
	type stepOfKey struct{ file, path string }
	type stepOfValue struct {
		template string
		n        int
		stepped  bool
	}
	stepOfMemo := map[stepOfKey]stepOfValue{}
	stepOf := func(file, dsPath string) (string, int, bool) {
		k := stepOfKey{file, dsPath}
		v, ok := stepOfMemo[k]
		if !ok {
			v.template, v.n, v.stepped = template(file, dsPath, false)
			stepOfMemo[k] = v
		}
		return v.template, v.n, v.stepped
	}
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
	// The files in the order rank 0 first reached them: the timeline's order in a step.
	firstEvent := map[string]int{}
	for i, e := range p.Events {
		if _, ok := firstEvent[e.File]; !ok && e.Rank == 0 {
			firstEvent[e.File] = i
		}
	}
	slices.SortStableFunc(fileOrder, func(a, b string) int {
		ia, okA := firstEvent[a]
		ib, okB := firstEvent[b]
		if !okA || !okB {
			return 0
		}
		return cmp.Compare(ia, ib)
	})
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
	steps = c.series(p, files, stepAt, steps)
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
			if n != 0 && !(write && mayHash(e.Selection)) {
				continue // neither a first step's access nor a hash: the rest is not needed
			}
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
			if n := sel.elements(); n > 0 && e.Length > 0 && d.memSize == 0 {
				d.memSize = int(e.Length / n)
			}
			d.writes[e.Rank] = append(d.writes[e.Rank], sel)
			if e.Rank == 0 {
				d.nwrites++
				if d.refs == "" {
					d.refs = e.Refs
				}
			}
			d.coll = d.coll || e.Collective
			d.indep = d.indep || !e.Collective
		} else {
			d.reads[e.Rank] = append(d.reads[e.Rank], sel)
		}
	}
	d := c.Desc
	d.Name = desc.V(name)
	d.Steps = desc.V(strconv.Itoa(steps))
	d.Ranks = desc.V(strconv.Itoa(max(p.Ranks, 1)))
	d.NoteAt("ranks").Line = "the traced run's ranks: h5proxy run's default -np"
	if p.MPIThread != "" && p.MPIThread != "multiple" {
		// h5proxy's own level is multiple: a program below it gets the replay below it too.
		d.MPIThread = desc.V(p.MPIThread)
		d.NoteAt("mpi_thread").Line = "the thread level MPI provided the traced program"
	}
	if compute := meanGap(stepStart, stepEnd, steps); compute > 0.001 {
		d.Compute = desc.Vf("%.3fs", compute)
		d.NoteAt("compute").Line = "the mean time between rank 0's steps of I/O"
	}
	fileHints := c.hints(p, fileOrder)
	ids := map[string]string{}
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
	refDatasets(p, files)
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
			c.unexpressed("", fmt.Sprintf("%s: an input the program read but did not write (a description reads back only the files it writes)", filepath.Base(f)))
			continue
		}
		id := fileID(f, i, ids)
		if name, ok := perStep[f]; ok { // named without the step: plt${step:05d}.h5 is plt
			delete(ids, id)
			id = fileID(filepath.Join(filepath.Dir(f), stepField.ReplaceAllString(name, "")), i, ids)
		}
		fpath := "files." + id
		ds := files[f]
		file := &desc.File{ID: id, Name: desc.V(filepath.Base(f))}
		d.Files = append(d.Files, file)
		if name, ok := perStep[f]; ok {
			file.Name = desc.V(name)
			d.NoteAt(fpath + ".name").Line = "a file per step"
			if _, own := fams.cadences[f]; own {
				d.NoteAt(fpath + ".name").Line = "a file at each of its steps, numbered on its own"
			}
		}
		h5f, hasH5F := fileRecord(p, f)
		var fa fileAccess
		if hasH5F && len(h5f.Info) > 0 {
			_ = json.Unmarshal(h5f.Info, &fa)
		}
		ways := inferWays(p, f, p.Ranks)
		if !ways.known && (fa.Ops || fa.Write) { // a trace without each open's access list
			ways.collMeta, ways.wOps, ways.wWrite = "true", fa.Ops, fa.Write
			ways.guesses = append(ways.guesses, "collective_metadata: the file's last open asked for it (the trace, of an older library, has no access list per open: how the file was created and which opens asked cannot be told)")
		}
		// Objects written at several steps through the handles of their creation: held
		// until the file's close (the file stays open between consecutive writes of it).
		ways.holdFile = ways.handleWrites > 1 && steps > 1 && !ways.holdCall
		if hasH5F && h5f.Counters["H5F_USE_MPIIO"] == 0 && !ways.serialWriter {
			c.unexpressed(fpath, fmt.Sprintf("%s: opened without the MPI-IO driver (H5Pset_fapl_mpio never called): written as a shared file opened through MPI-IO, the same datasets and writers (a description's shared files use MPI-IO)", filepath.Base(f)))
		}
		if ways.reopen && !ways.holdCall && placedReopen(ways.reopened, attrs[f]) {
			ways.reopen = false // the placement's writes open their objects with H5Oopen
		}
		c.ways(file, fpath, f, ways)
		if file.Hints = fileHints[f]; len(file.Hints) > 0 {
			d.Comment(fpath+".hints", "the MPI-IO hints of its file access list")
		}
		switch lv, ok := libverNames(fa.Libver, p.HDF5Version); {
		case fa.LibverLatest:
			file.Libver = desc.V("latest")
		case len(fa.Libver) != 2 || lv == [2]string{"earliest", "latest"}: // HDF5's default
		case ok:
			file.Libver = desc.Value{List: desc.Vs(lv[0], lv[1]), Set: true}
		default:
			c.unexpressed(fpath, fmt.Sprintf("%s: library version bounds %v of HDF5 %s (a description's bounds are %s)", filepath.Base(f), fa.Libver, p.HDF5Version, strings.Join(desc.LibverNames, ", ")))
		}
		upfront, defineFlush := defineOf(p, f)
		cad, placed := fams.cadences[f]
		defineFlush = defineFlush && !placed // a family's flushes follow its steps
		switch {
		case defineFlush:
			file.Define = desc.V("upfront_flush")
			d.NoteAt(fpath + ".define").Line = "every dataset created before the first write, then H5Fflush (a define mode, as netCDF-4's nc_enddef)"
		case upfront:
			file.Define = desc.V("upfront")
			d.NoteAt(fpath + ".define").Line = "every dataset created before the first write (a define mode)"
		}
		fileAttrs := attrs[f]
		for t, cd := range ds {
			cd.attrs = fileAttrs[t]
		}
		markIndependent(ds, ways)
		file.Attributes = c.attributes(fpath, id, fileAttrs["/"])
		c.tree(file, fpath, id, ds, fileAttrs, groupsOf(p, f, ds, fileAttrs, stepOf), links(p, f, stepOf), p.Ranks)
		traced := creationOrders(p, f, file, stepOf)
		c.trackTimes(p, f, file, fpath, ds)
		c.scales(file, fpath, id, traced)
		c.objectOrder(p, f, file, fpath, stepOf)
		read := false
		// One write action per transfer mode and cadence (every step, or a series'
		// first step alone); the datasets are named only when the file has several (a
		// program that writes some datasets collectively and others independently, as
		// rank 0's small arrays often are, or fixed variables beside record ones).
		var groups [4][]string // collective, independent; each every step, then once
		first := [4]int{}      // each group's first dataset in creation order
		for _, t := range sortedTemplates(ds) {
			cd := ds[t]
			read = read || len(cd.reads) > 0
			unwritten := len(cd.writes) == 0 && len(cd.reads) == 0 // created alone (netCDF's dimension scales)
			if !unwritten && len(cd.writes) == 0 || ways.serialDataset(t) {
				continue
			}
			g := 0
			if unwritten && steps > 1 {
				g = 2
			}
			if cd.indep && !cd.coll && !cd.independent {
				g = 1
			}
			if cd.once {
				g += 2
			}
			if len(groups[g]) == 0 {
				first[g] = cd.order
			}
			groups[g] = append(groups[g], path.Base(t))
		}
		several := 0
		for _, g := range groups {
			if len(g) > 0 {
				several++
			}
		}
		action := func(a *desc.Action) string {
			if placed && a.Read.Text == "" { // written at some steps only
				a.Every, a.When = desc.Value{}, desc.Value{}
				if cad.every != "" {
					a.Every = desc.V(cad.every)
				}
				if cad.when != "" {
					a.When = desc.V(cad.when)
				}
			}
			d.Timeline = append(d.Timeline, a)
			return fmt.Sprintf("timeline[%d]", len(d.Timeline)-1)
		}
		// The actions in the order of their first datasets' creation: the engine creates
		// each dataset at its first write, and HDF5 allocates contiguous ones in that order.
		byFirst := []int{0, 1, 2, 3}
		slices.SortStableFunc(byFirst, func(a, b int) int { return cmp.Compare(first[a], first[b]) })
		// A flush after each dataset's write (PETSc's VecView): a write action per
		// dataset, each followed by its flush, when one action writes them all.
		var split []string
		if several == 1 && !placed && hasH5F && h5f.Counters["H5F_FLUSHES"] > 0 {
			split = flushedWrites(p, f)
			for _, n := range split {
				if !slices.ContainsFunc(groups[:], func(g []string) bool { return slices.Contains(g, n) }) {
					split = nil
					break
				}
			}
		}
		for _, g := range byFirst {
			names := groups[g]
			if len(names) == 0 {
				continue
			}
			if len(split) > 0 {
				for _, n := range split {
					a := &desc.Action{Write: desc.V(id), Datasets: desc.Vs(n)}
					if g%2 == 1 {
						a.Collective = desc.V("false")
					}
					if g >= 2 {
						a.Every = desc.V(strconv.Itoa(steps))
					}
					d.NoteAt(action(a) + ".datasets").Line = "the file flushed after each dataset's write"
					action(&desc.Action{Flush: desc.V(id)})
				}
				continue
			}
			a := &desc.Action{Write: desc.V(id)}
			if g%2 == 1 {
				a.Collective = desc.V("false")
			}
			if several > 1 {
				a.Datasets = desc.Vs(names...)
			}
			if g >= 2 {
				a.Every = desc.V(strconv.Itoa(steps))
			}
			if at := action(a); g >= 2 && !placed {
				d.NoteAt(at + ".every").Line = "the first step alone"
			}
		}
		// Flushes per step when every rank flushed at least once a step (PETSc's after each
		// VecView: as many actions as whole flushes a step, the rest at the end), else one
		// at the end and the others at the first steps (netCDF's at nc_close; its nc_enddef's
		// is the define's, upfront_flush, where the trace places it).
		if hasH5F && h5f.Counters["H5F_FLUSHES"] > 0 {
			perRank := h5f.Counters["H5F_FLUSHES"] / int64(max(p.Ranks, 1))
			if defineFlush { // the define's own
				perRank--
			}
			if len(split) > 0 { // each after its dataset's write
				perRank -= int64(len(split) * max(steps, 1))
			}
			switch {
			case perRank <= 0:
			case placed: // at its steps
				action(&desc.Action{Flush: desc.V(id)})
			case perRank >= int64(steps) && steps > 1:
				for range perRank / int64(steps) {
					action(&desc.Action{Flush: desc.V(id)})
				}
				for range perRank % int64(steps) {
					action(&desc.Action{Flush: desc.V(id), At: desc.V("end")})
				}
			case perRank > 1:
				action(&desc.Action{Flush: desc.V(id), When: desc.Vf("step < %d", perRank-1)})
				fallthrough
			default:
				action(&desc.Action{Flush: desc.V(id), At: desc.V("end")})
			}
		}
		written := several > 0
		if read {
			// One read per step the program read (a stepped group's), in its order: a
			// read's default step is the last written.
			rs := readSteps(p, f, stepOf)
			areads := attrReads(p, f, fileAttrs)
			readAt := func(step int) {
				a := &desc.Action{Read: desc.V(id), Attributes: areads}
				if written {
					a.At = desc.V("restart")
				}
				if step >= 0 {
					a.Step = desc.V(strconv.Itoa(step))
				}
				action(a)
			}
			if len(rs) == 0 || len(rs) == 1 && rs[0] == steps-1 {
				readAt(-1)
			}
			for _, n := range rs {
				if len(rs) > 1 || n != steps-1 {
					readAt(n)
				}
			}
		}
	}
	if traced := slices.ContainsFunc(p.Events, func(e Event) bool { return len(e.Attribute) > 0 }); !traced && p.Calls["H5Acreate2"].N+p.Calls["H5Awrite"].N > 0 {
		c.unexpressed("", fmt.Sprintf("H5Acreate2 ×%d, H5Awrite ×%d: the trace has no attribute names, types or values (a library older than this h5proxy)", p.Calls["H5Acreate2"].N, p.Calls["H5Awrite"].N))
	}
	for _, t := range c.compounds {
		d.Types = append(d.Types, t.decl)
	}
	if len(d.Types) > 0 {
		d.Comment("types", "the compound, enum, array and opaque types of the traced datasets and attributes")
	}
	head := []string{fmt.Sprintf("Captured by h5proxy capture from %s (%d ranks).", strings.Join(p.Command, " "), p.Ranks)}
	if c.Map != nil {
		head = append(head, fmt.Sprintf("%s: the ranks' unions of hyperslabs as an E3SM-IO map, one map process per captured rank (%s)", c.MapName, c.Map.summary()))
	}
	if len(c.Unexpressed) > 0 {
		head = append(head, "Not expressed (each a stand-in, commented at its key):")
		for _, u := range c.Unexpressed {
			head = append(head, "  "+u)
		}
	}
	d.Comment("", head...)
	b, err := desc.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	c.YAML = string(b)
	// Never an invalid description: what cannot be said has a stand-in and a comment, so
	// a description that does not parse is capture's bug, reported rather than written.
	if _, err := desc.Parse("(captured)", b, nil); err != nil {
		return nil, fmt.Errorf("capture wrote a description h5proxy check refuses (a capture bug): %w\n%s", err, c.YAML)
	}
	return c, nil
}

// unexpressed lists what the description cannot say the way the program did and, when
// path names a key, says it in a comment above that key, beside its stand-in.
func (c *Description) unexpressed(path, text string) {
	c.Unexpressed = append(c.Unexpressed, text)
	if path != "" {
		c.Desc.Comment(path, "not expressed: "+text)
	}
}

// series finds the datasets written as series by extension (an unlimited first
// dimension, grown by H5Dset_extent between writes, as netCDF's and E3SM's record
// variables) and returns the steps they make: the most writes of any, or stepped (the
// steps files per step make) when more. With series, the other datasets written once are
// written at the first step alone.
func (c *Description) series(p *Profile, files map[string]map[string]*capDataset, stepAt func(string, string, int) (string, int, bool), stepped int) int {
	last, firstExtent := map[*capDataset]int64{}, map[*capDataset]int64{}
	written := map[*capDataset]bool{} // rank 0 wrote it before its first extension
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
			if e.Rank == 0 && d.extents == 0 {
				written[d] = true
			}
		case e.Call == "H5Dset_extent" && e.Rank == 0:
			d.extents++
			if len(e.Extent) > 0 {
				last[d] = e.Extent[0]
				if d.extents == 1 {
					firstExtent[d] = e.Extent[0]
				}
			}
		}
	}
	steps, any := stepped, false // the steps of the files per step (or 1), any series
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
			// Created empty and extended before each write (netCDF's record variables), or
			// created with the first write's records and extended before each later one
			// (PETSc's timestepping, whose record keeps the extent of the last open);
			// created holding other records and grown by others is no series of equal
			// writes.
			grow := last[d] / int64(w)
			if firstExtent[d] != grow*map[bool]int64{true: 2, false: 1}[written[d]] {
				continue
			}
			d.series, d.grow, d.empty = true, grow, !written[d]
			steps = max(steps, w)
			any = true
		}
	}
	if !any || steps == 1 {
		return steps
	}
	for _, ds := range files {
		for _, d := range ds {
			w := 0
			for _, n := range d.writesBy {
				w = max(w, n)
			}
			switch {
			case d.series && w != steps:
				c.unexpressed("", fmt.Sprintf("%s %s: written %d times, the other series %d (written at every step)", filepath.Base(d.fileOf), d.template, w, steps))
			case !d.series && w == 1:
				d.once = true
			case !d.series && w > 1:
				c.unexpressed("", fmt.Sprintf("%s %s: %d writes, not a series by extension (written at every step)", filepath.Base(d.fileOf), d.template, w))
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

// decomposition folds the first step's selections of every rank: block along the one
// dimension the ranks split (shape[dim] then an expression over nranks, so the
// description runs at other rank counts), rank0, replicated, or uneven 1-D counts in
// rank order (a counts file). A rank that selects nothing takes part without elements.
// Where none fits, the ranks' selections are listed as not expressed, at path, and the
// decomposition is the default (zero: block over the slowest dimension).
func (c *Description) decomposition(path, id string, d *capDataset, nranks int) (dc desc.Decompose, splitDim int, shape string) {
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
			if !s.None && !s.empty() {
				acc[r] = append(acc[r], s)
				irregular = irregular || len(s.Blocks) > 0 || s.NBlocks > 0
			}
		}
	}
	if len(acc) == 0 {
		return dc, -1, ""
	}
	// Ranks that call H5Dwrite with nothing selected under independent transfers, as
	// PETSc's VecView on the ranks owning no element: empty_calls.
	d.emptyCalls = len(all) > len(acc) && d.indep && !d.coll && len(d.writes) > 0
	if irregular && len(dims) > 0 {
		if dc, ok := c.unionDecomposition(path, id, d, acc, dims, nranks); ok {
			return dc, -1, ""
		}
		return c.standIn(dims, nranks)
	}
	if len(dims) == 0 { // a scalar: written by rank 0 alone, or by every rank
		if _, only0 := acc[0]; only0 && len(acc) == 1 {
			return desc.Decompose{Kind: desc.V("rank0")}, -1, ""
		}
		return desc.Decompose{Kind: desc.V("replicated")}, -1, ""
	}
	box := func(sels []selection) (lo, hi []int64, ok bool) {
		for _, s := range sels {
			if len(s.Start) != len(dims) || len(s.Count) != len(dims) {
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
	full := func(lo, hi []int64, except int) bool {
		for i := range dims {
			if i != except && (lo[i] != 0 || hi[i] != dims[i]) {
				return false
			}
		}
		return true
	}
	// The whole extent passed as H5S_ALL, or selected as a hyperslab (select: hyperslab).
	whole := func(kind string) desc.Decompose {
		dc := desc.Decompose{Kind: desc.V(kind)}
		for _, ss := range acc {
			for _, s := range ss {
				if !s.whole {
					dc.Select = desc.V("hyperslab")
					return dc
				}
			}
		}
		return dc
	}
	if len(acc) == 1 && len(acc[0]) > 0 {
		if lo, hi, ok := box(acc[0]); ok && full(lo, hi, -1) {
			return whole("rank0"), -1, ""
		}
	}
	var lows, highs [][]int64
	for r := 0; r < nranks; r++ {
		lo, hi, ok := box(acc[r])
		if !ok {
			c.listPerRank(path, id, d, acc, nranks)
			return c.standIn(dims, nranks)
		}
		lows, highs = append(lows, lo), append(highs, hi)
	}
	allFull := true
	for r := range lows {
		allFull = allFull && full(lows[r], highs[r], -1)
	}
	if allFull {
		return whole("replicated"), -1, ""
	}
	// contiguous runs in rank order along the one dimension the ranks split, the rest
	// full (a record dimension of 1 is not split: netCDF's T[1, lev, ncol] by columns)
	for k := range dims {
		counts, next, ok := make([]int64, nranks), int64(0), true
		for r := range lows {
			if lows[r][k] != next || !full(lows[r], highs[r], k) {
				ok = false
				break
			}
			counts[r] = highs[r][k] - lows[r][k]
			next = highs[r][k]
		}
		if !ok || next != dims[k] {
			continue
		}
		if !slices.ContainsFunc(counts, func(n int64) bool { return n != counts[0] }) {
			dc = desc.Decompose{Kind: desc.V("block")}
			if len(dims) > 1 {
				grid := make([]string, len(dims))
				for i := range grid {
					grid[i] = "1"
				}
				grid[k] = "0"
				dc.Grid = desc.Vs(grid...)
			}
			return dc, k, fmt.Sprintf("%d * nranks", counts[0])
		}
		if len(dims) != 1 {
			break
		}
		file := fmt.Sprintf("%s-%s.counts", id, strings.NewReplacer("/", "_", "${step}", "N").Replace(strings.TrimPrefix(d.template, "/")))
		var txt strings.Builder
		for _, n := range counts {
			fmt.Fprintln(&txt, n)
		}
		c.Files[file] = txt.String()
		return desc.Decompose{Kind: desc.V("uneven"), File: desc.V(file)}, 0, "auto"
	}
	c.listPerRank(path, id, d, acc, nranks)
	return c.standIn(dims, nranks)
}

// elements is the number of elements the selection holds (0 when it cannot tell: points,
// unions).
func (s selection) elements() int64 {
	if s.None || s.Points > 0 || len(s.Blocks) > 0 || s.NBlocks > 0 {
		return max(s.Points, 0)
	}
	n := int64(1)
	for i, c := range s.Count {
		if len(s.Block) == len(s.Count) {
			c *= s.Block[i]
		}
		n *= c
	}
	return n
}

// empty reports whether a hyperslab selects no element (a count or block of 0: a rank
// taking part in a collective transfer with nothing, as PETSc's ranks without entries).
func (s selection) empty() bool {
	if s.whole || len(s.Blocks) > 0 || s.NBlocks > 0 || s.Points > 0 || len(s.Count) == 0 {
		return false
	}
	for i, n := range s.Count {
		if n == 0 || len(s.Block) == len(s.Count) && s.Block[i] == 0 {
			return true
		}
	}
	return false
}

// unionDecomposition folds unions of hyperslabs: each rank's elements as runs of the
// flattened array become a decomposition of the description's map file (a series of one
// record per write is mapped without its record dimension, as E3SM-IO's maps are).
func (c *Description) unionDecomposition(path, id string, d *capDataset, acc map[int][]selection, dims []int64, nranks int) (desc.Decompose, bool) {
	perRank := make([][]run, nranks)
	for r := range nranks {
		rs, ok := selectionRuns(acc[r], dims)
		if !ok {
			c.listPerRank(path, id, d, acc, nranks)
			return desc.Decompose{}, false
		}
		perRank[r] = rs
	}
	mdims := dims
	if d.series && d.grow == 1 && len(dims) > 1 {
		mdims = dims[1:]
	}
	dc, err := c.mapDecomposition(mdims, perRank)
	if err != nil {
		c.unexpressed(path, fmt.Sprintf("%s %s: %v (a map writes each element once; %s)", id, d.template, err, standInText))
		return desc.Decompose{}, false
	}
	return dc, true
}

// listPerRank records a dataset whose selections fold into no decomposition, with each
// rank's selections (the description keeps the default block decomposition).
func (c *Description) listPerRank(path, id string, d *capDataset, acc map[int][]selection, nranks int) {
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
	c.unexpressed(path, fmt.Sprintf("%s %s: no decomposition fits (%s): %s", id, d.template, standInText, strings.Join(parts, "; ")))
}

// standInText says what standIn writes.
const standInText = "written as block over dimension 0 at the captured rank count, or by rank 0 alone where the ranks do not divide it"

// standIn is the decomposition written for selections none fits: the default block along
// dimension 0 with the traced extent when the ranks divide it (it runs at the captured
// rank count: at another, check names the key), else rank 0 alone.
func (c *Description) standIn(dims []int64, nranks int) (desc.Decompose, int, string) {
	if len(dims) > 0 && dims[0]%int64(max(nranks, 1)) == 0 && dims[0] > 0 {
		c.capturedRanksOnly = true
		return desc.Decompose{}, -1, ""
	}
	return desc.Decompose{Kind: desc.V("rank0")}, -1, ""
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

// filterList is the pipeline's filters in the description's words (HDF5's filter ids:
// 1 deflate, 2 shuffle, 3 fletcher32, 4 szip, 5 nbit, 6 scaleoffset).
func filterList(in datasetInfo) []desc.Filter {
	var out []desc.Filter
	for _, f := range in.FilterIDs {
		name := map[int]string{1: "deflate", 2: "shuffle", 3: "fletcher32", 4: "szip", 5: "nbit", 6: "scaleoffset"}[f[0]]
		if name == "" {
			continue
		}
		fl := desc.Filter{Name: name}
		if f[0] == 1 {
			fl.Level = desc.V(strconv.Itoa(f[1]))
		}
		out = append(out, fl)
	}
	return out
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

// libverNames names the H5F_libver_t bounds [low, high] a program passed, as a
// description's libver spells them: latest where a bound is the tracing library's newest
// (H5F_LIBVER_LATEST: 2 in HDF5 1.10, 3 in 1.12, 4 in 1.14); false for a bound a
// description cannot name (v112 or v114 below the library's latest).
func libverNames(b []int, version string) ([2]string, bool) {
	var out [2]string
	if len(b) != 2 {
		return out, false
	}
	latest := -1
	var major, minor int
	if _, err := fmt.Sscanf(version, "%d.%d", &major, &minor); err == nil && major == 1 && minor >= 8 {
		latest = (minor - 6) / 2 // 1.8: V18 1, 1.10: 2, 1.12: 3, 1.14: 4
	}
	for i, v := range b {
		switch {
		case v == latest:
			out[i] = "latest"
		case v >= 0 && v < len(desc.LibverNames)-1:
			out[i] = desc.LibverNames[v]
		default:
			return out, false
		}
	}
	return out, true
}
