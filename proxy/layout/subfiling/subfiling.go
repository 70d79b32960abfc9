// Package subfiling is the subfiled layout: ranks grouped (one group per node by default)
// each write a subfile through MPI-IO, and a master file maps them as virtual datasets;
// Fuse turns a master and its subfiles into one plain file.
package subfiling

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/layout/internal/h5layout"
	"github.com/h5proxy/h5proxy/proxy/layout/log"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// The subfiling layout follows the VDS-based design of the subfiling paper (layouts.md
// 5.5). At create, the ranks are split into groups of consecutive ranks (default: one per
// node; subfiling.count groups, or subfiling.ranks_per_file ranks per group). Group k of n
// creates the subfile <file>.subfile_<k>_of_<n> (k from 1, zero-padded to the digits of
// n, like the subfiling VFD's names without the inode) through MPI-IO on its own
// communicator and carries out the plan there: every group creates every group, dataset
// (same name, type, shape and creation properties) and attribute, and writes its ranks'
// selections in place. At close each group records its ranks' written selections in the
// subfile's /_h5proxy_subfiling_index (index records, layout_index.go, without data),
// closes the subfile, and after a barrier rank 0 writes the master <file> serially: the
// same groups and attributes, and every dataset as a virtual dataset with one mapping per
// group that wrote it (the union of the group's selections, same selection in the source;
// a dataset nobody wrote maps all of subfile 1's, which reads as fill values), source
// names relative to the master's directory. Any HDF5 reader sees one file. Reads open the
// master serially on every rank (HDF5 1.10 refuses virtual dataset reads through
// MPI-IO), so any number of ranks can read.
const subfilingIndexPath = "/_h5proxy_subfiling_index"

// subfileName is the name of group k's subfile (k from 0) of n, in generation gen: 0 for
// the subfiles written at creation, g > 0 (suffix ".g") for the g-th reopening for writing.
func subfileName(master string, gen, k, n int) string {
	name := fmt.Sprintf("%s.subfile_%0*d_of_%d", master, len(strconv.Itoa(n)), k+1, n)
	if gen > 0 {
		name += "." + strconv.Itoa(gen)
	}
	return name
}

type subfilingLayout struct {
	env            stack.Env
	count, perFile int
	files          plan.FileStack[*subFile]
	// groups are this rank's group k of n by the parent communicator split, for the
	// splits the session keeps (env.Groups).
	groups map[mpi.Comm][2]int
}

// Options are the subfiling layout's keys.
var Options = &options.Table{Name: "subfiling", Specs: []options.Spec{
	{Key: "SUBFILING", Kind: options.Bool, Default: "NO", Help: "h5bench SUBFILING=YES selects the subfiling layout"},
	{Key: "subfiling.count", Kind: options.Int, Default: "0", Min: options.Bound(0), Help: "subfiling layout: number of subfiles, each written by a group of consecutive ranks (at most the number of ranks); 0: one per node, unless subfiling.ranks_per_file is set"},
	{Key: "subfiling.ranks_per_file", Kind: options.Int, Default: "0", Min: options.Bound(0), Help: "subfiling layout: ranks per subfile (consecutive ranks); 0: see subfiling.count; exclusive with subfiling.count"},
}}

func init() {
	stack.RegisterLayout(stack.Strategy{Name: "subfiling", Caps: stack.StoresData | stack.Subfiles | stack.MemorySpaces, Options: Options, SelectKey: "SUBFILING",
		Summary:  "one subfile per rank group under a master of virtual datasets (the VDS design of the subfiling paper)",
		Validate: validate,
		NewLayout: func(env stack.Env) (stack.Layout, error) {
			v := env.Setting()
			return &subfilingLayout{env: env, count: int(v.Int("subfiling.count")), perFile: int(v.Int("subfiling.ranks_per_file"))}, nil
		}})
}

// validate rejects grouping keys that exclude each other.
func validate(v *options.Values) error {
	if n, per := v.Int("subfiling.count"), v.Int("subfiling.ranks_per_file"); n > 0 && per > 0 {
		return &options.Error{Table: "session", Key: "subfiling.ranks_per_file", Value: fmt.Sprint(per),
			Reason: fmt.Sprintf("exclusive with subfiling.count=%d", n), Allowed: "0 when subfiling.count is set"}
	}
	return nil
}

// subFile is one open file: a subfile being written, or a master opened for reading.
type subFile struct {
	master   string
	id       h5.ID
	reading  bool // id is the master, opened serially read-only
	parallel bool
	comm     mpi.Comm // the file's communicator (write)
	ownComm  bool
	group    mpi.Comm // the group's communicator (write)
	ownGroup bool     // group is the file's to free (no session keeps the split)
	k, n     int
	// gen is the generation of the subfiles written (subfileName); existing lists the
	// objects the master held when it was reopened for writing (true: a dataset).
	gen      int
	existing map[string]bool
	objs     h5layout.ObjTable
	specs    map[string]*plan.DatasetSpec
	// record lists the structure operations in plan order, for the master.
	record  []plan.Op
	written log.Selections
}

// FilePath is the plan path the file was opened at (its master's).
func (f *subFile) FilePath() string { return f.master }

// Exec performs one plan operation.
func (l *subfilingLayout) Exec(op *plan.Op, buf []byte) error {
	switch op.Kind {
	case plan.CreateFile:
		return l.create(op, false)
	case plan.OpenFile:
		if !op.File.ReadOnly {
			return l.create(op, true)
		}
		return l.openMaster(op)
	}
	if ok, err := l.files.FileOp(op, l.close); ok {
		return err
	}
	f, err := l.files.Current()
	if err != nil {
		return err
	}
	switch op.Kind {
	case plan.FlushFile:
		if f.reading {
			return nil
		}
		return h5.FlushFile(f.id, op.File != nil && op.File.FlushLocal)
	case plan.CreateGroup, plan.OpenGroup, plan.CreateDataset, plan.OpenDataset:
		return f.openObject(op)
	case plan.CloseGroup, plan.CloseDataset:
		return f.objs.Close(op.Path)
	case plan.Scale:
		return fmt.Errorf("subfiling layout: dimension scale on %s: the master file's virtual datasets take no dimension scales here; run the native or subfiling-vfd layout", op.Path)
	case plan.CreateLink:
		// The subfile holds the group's part of each dataset; the links go in the master,
		// after the virtual datasets they may name (buildMaster replays them in order).
		if f.reading {
			return fmt.Errorf("subfiling layout: link %s: the file is open read-only", op.Path)
		}
		f.record = append(f.record, *op)
		return nil
	case plan.ExtendDataset:
		id, ok := f.objs.IDs[op.Path]
		if !ok || h5layout.IsGroupKind(f.objs.Kinds[op.Path]) {
			return fmt.Errorf("dataset %s is not open", op.Path)
		}
		if f.reading {
			return fmt.Errorf("subfiling layout: %s: the file is open read-only", op.Path)
		}
		if err := h5.SetExtent(id, op.Dataset.Shape); err != nil {
			return err
		}
		if d, ok := f.specs[op.Path]; ok {
			d.Shape = append([]uint64(nil), op.Dataset.Shape...)
		}
		return nil
	case plan.ReadAttribute: // from the master when reading, else from the group's subfile
		loc, err := f.objs.AttributeLoc(f.id, op)
		if err != nil {
			return err
		}
		_, err = h5.ReadAttributeAs(loc, *op.Attribute)
		return err
	case plan.WriteAttribute:
		if f.reading {
			return fmt.Errorf("subfiling layout: attribute %s on %s: the file is open read-only", op.Attribute.Name, op.Path)
		}
		loc, err := f.objs.AttributeLoc(f.id, op)
		if err != nil {
			return err
		}
		if err := h5.WriteAttribute(loc, *op.Attribute); err != nil {
			return err
		}
		f.record = append(f.record, *op)
		return nil
	case plan.Write, plan.Read:
		id, ok := f.objs.IDs[op.Path]
		if !ok || h5layout.IsGroupKind(f.objs.Kinds[op.Path]) {
			return fmt.Errorf("dataset %s is not open", op.Path)
		}
		if op.Kind == plan.Read {
			// Reading: the master through HDF5's virtual dataset code, serially. Writing:
			// the group's own subfile (what the group wrote so far).
			return h5.Read(id, op.Transfer, op.Collective && !f.reading && f.parallel, buf)
		}
		if f.reading {
			return fmt.Errorf("subfiling layout: %s: the file is open read-only", op.Path)
		}
		if err := h5.Write(id, op.Transfer, op.Collective && f.parallel, buf); err != nil {
			return err
		}
		if !op.Transfer.Selection.IsNone() {
			f.written.Add(op.Path, op.Transfer.Selection)
		}
		return nil
	}
	return fmt.Errorf("subfiling layout: unsupported operation %s", op.Kind)
}

// groupOf returns this rank's group k of n and the group's communicator (collective on c
// at c's first file): the session keeps the split (stack.GroupComms), made at the first
// file opened on c and reused by the later ones, as the subfiling VFD's application
// splits once; own says the caller frees it (no session keeps it).
func (l *subfilingLayout) groupOf(c mpi.Comm) (k, n int, g mpi.Comm, own bool, err error) {
	if l.env.Groups == nil {
		k, n, g, err = l.splitGroups(c)
		return k, n, g, true, err
	}
	g, err = l.env.Groups.Keep("subfiling", c, 0, func() (mpi.Comm, error) {
		k, n, g, err := l.splitGroups(c)
		if err == nil {
			if l.groups == nil {
				l.groups = map[mpi.Comm][2]int{}
			}
			l.groups[c] = [2]int{k, n}
		}
		return g, err
	})
	kn := l.groups[c]
	return kn[0], kn[1], g, false, err
}

// splitGroups splits c into the subfile groups: this rank's group k of n and the group's
// communicator (collective on c).
func (l *subfilingLayout) splitGroups(c mpi.Comm) (k, n int, g mpi.Comm, err error) {
	rank, size := c.Rank(), c.Size()
	switch {
	case size == 1:
		g, err = c.Split(0, 0)
		return 0, 1, g, err
	case l.perFile > 0:
		k, n = rank/l.perFile, (size+l.perFile-1)/l.perFile
	case l.count > size:
		// Checked when a file is created, not at session creation: a read phase may run on
		// fewer ranks than the write with the same settings.
		return 0, 0, mpi.Comm{}, fmt.Errorf("config: key %q value \"%d\": more subfiles than the %d ranks writing the file; allowed: 0 (one per node) to %d", "subfiling.count", l.count, size, size)
	case l.count > 0:
		n = l.count
		k = rank * n / size
	default:
		return nodeGroups(c)
	}
	g, err = c.Split(k, rank)
	return k, n, g, err
}

// nodeGroups makes one group per shared-memory node, numbered in the order of the nodes'
// lowest ranks.
func nodeGroups(c mpi.Comm) (k, n int, g mpi.Comm, err error) {
	if g, err = c.SplitNode(); err != nil {
		return 0, 0, mpi.Comm{}, err
	}
	leader, err := g.AllreduceInt64([]int64{int64(c.Rank())}, mpi.OpMin)
	if err == nil {
		var leaders []float64
		isLeader := 0.0
		if g.Rank() == 0 {
			isLeader = 1
		}
		if leaders, err = c.AllgatherFloat64([]float64{isLeader}); err == nil {
			for r, v := range leaders {
				if v == 1 {
					if int64(r) < leader[0] {
						k++
					}
					n++
				}
			}
			return k, n, g, nil
		}
	}
	g.Free()
	return 0, 0, mpi.Comm{}, err
}

// create starts writing a subfiled file and creates this group's subfile. A new file
// first loses the previous master and subfiles of its path. A file reopened for writing
// (reopen) keeps them: its writes go to a new generation of subfiles, created with the
// master's groups so the plan can open them, and at close the master gains the new
// objects. Collective on the file's communicator.
func (l *subfilingLayout) create(op *plan.Op, reopen bool) (err error) {
	comm, own, err := h5layout.FileComm(l.env, op.File)
	if err != nil {
		return err
	}
	f := &subFile{master: op.Path, parallel: op.File.Parallel, comm: comm, ownComm: own, objs: h5layout.NewObjTable(), specs: map[string]*plan.DatasetSpec{}}
	defer func() {
		if err != nil {
			f.freeComms()
		}
	}()
	if reopen {
		err = f.learnMaster()
	} else {
		rmErr := h5layout.MakeDirs(op)
		if comm.Rank() == 0 && rmErr == nil {
			rmErr = removeSubfiled(op.Path)
		}
		err = comm.Agree(rmErr, "subfiling layout: removing the previous files of "+op.Path)
	}
	if err != nil {
		return err
	}
	if f.k, f.n, f.group, f.ownGroup, err = l.groupOf(comm); err != nil {
		return err
	}
	a := h5.Access{FileSpec: *op.File}
	if op.File.Parallel {
		a.Comm, a.Info = f.group.Fortran(), h5layout.Hints(l.env, op.File)
	}
	if f.id, err = h5.CreateFile(subfileName(op.Path, f.gen, f.k, f.n), a); err != nil {
		return err
	}
	for _, path := range slices.Sorted(maps.Keys(f.existing)) { // parents sort first
		if f.existing[path] {
			continue
		}
		g, err := h5.CreateGroup(f.id, path)
		if err == nil {
			err = h5.CloseGroup(g)
		}
		if err != nil {
			h5.CloseFile(f.id)
			return err
		}
	}
	l.files.Push(f)
	return nil
}

// learnMaster reads, on rank 0, which objects the master of a file reopened for writing
// holds and which subfile generation comes next, and tells every rank (collective on the
// file's communicator).
func (f *subFile) learnMaster() error {
	var desc []byte
	var err error
	if f.comm.Rank() == 0 {
		desc, err = describeMaster(f.master)
	}
	if err := f.comm.Agree(err, "subfiling layout: reading the master file "+f.master); err != nil {
		return err
	}
	if desc, err = f.comm.BcastBytes(desc, 0); err != nil {
		return err
	}
	f.gen, f.existing, err = parseDescription(f.master, desc)
	return err
}

// parseDescription decodes what describeMaster wrote: the next subfile generation, then
// the master's objects (true for a dataset). Rank 0 reads it from a file others may have
// written, so a malformed description is an error naming the master and the line.
func parseDescription(master string, desc []byte) (gen int, existing map[string]bool, err error) {
	first, objs, _ := strings.Cut(string(desc), "\n")
	if gen, err = strconv.Atoi(first); err != nil || gen < 1 {
		return 0, nil, fmt.Errorf("subfiling layout: %s: bad master description: generation %q", master, first)
	}
	existing = map[string]bool{}
	if objs == "" {
		return gen, existing, nil
	}
	for i, line := range strings.Split(objs, "\n") {
		kind, path, ok := strings.Cut(line, " ")
		if !ok || (kind != "d" && kind != "g") || !strings.HasPrefix(path, "/") {
			return 0, nil, fmt.Errorf("subfiling layout: %s: bad master description: object line %d %q", master, i+1, line)
		}
		existing[path] = kind == "d"
	}
	return gen, existing, nil
}

// describeMaster lists a master's groups and datasets ("g PATH" or "d PATH" lines) after
// the next free subfile generation.
func describeMaster(master string) ([]byte, error) {
	id, err := h5.OpenFile(master, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		return nil, fmt.Errorf("subfiling layout: reopening %s for writing: %w", master, err)
	}
	objs, err := h5.Walk(id)
	if cerr := h5.CloseFile(id); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	subs, err := filepath.Glob(globEscape(master) + ".subfile_*_of_*")
	if err != nil {
		return nil, err
	}
	gen := 1
	for _, sub := range subs {
		rest := sub[strings.LastIndex(sub, "_of_")+len("_of_"):]
		if _, g, ok := strings.Cut(rest, "."); ok {
			if n, err := strconv.Atoi(g); err == nil && n >= gen {
				gen = n + 1
			}
		}
	}
	b := []byte(strconv.Itoa(gen))
	for _, o := range objs {
		kind := "g"
		if o.Dataset {
			kind = "d"
		}
		b = fmt.Appendf(b, "\n%s %s", kind, o.Path)
	}
	return b, nil
}

// removeSubfiled deletes a master and every subfile of its name.
func removeSubfiled(master string) error {
	old, err := filepath.Glob(globEscape(master) + ".subfile_*_of_*")
	if err != nil {
		return err
	}
	for _, p := range append(old, master) {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// globEscape quotes the glob metacharacters of a path.
func globEscape(p string) string {
	var b []byte
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?', '[', '\\':
			b = append(b, '\\')
		}
		b = append(b, p[i])
	}
	return string(b)
}

// openMaster opens a subfiled file's master serially for reading.
func (l *subfilingLayout) openMaster(op *plan.Op) error {
	id, err := h5.OpenFile(op.Path, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		return err
	}
	if err := checkSources(op.Path, id); err != nil {
		h5.CloseFile(id)
		return err
	}
	l.files.Push(&subFile{master: op.Path, id: id, reading: true, objs: h5layout.NewObjTable(), specs: map[string]*plan.DatasetSpec{}})
	return nil
}

// openObject creates or opens a group or dataset (in the subfile, or the master).
func (f *subFile) openObject(op *plan.Op) error {
	if f.reading && (op.Kind == plan.CreateGroup || op.Kind == plan.CreateDataset) {
		return fmt.Errorf("subfiling layout: %s %s: the file is open read-only", op.Kind, op.Path)
	}
	if isDataset, ok := f.existing[op.Path]; ok && isDataset {
		return fmt.Errorf("subfiling layout: %s %s: the dataset was written before the file was reopened; "+
			"its virtual dataset cannot gain mappings (HDF5 fixes them at creation)", op.Kind, op.Path)
	}
	if err := f.objs.Open(f.id, op); err != nil {
		return err
	}
	if op.Kind == plan.CreateDataset {
		d := *op.Dataset
		f.specs[op.Path] = &d
	}
	if op.Kind == plan.CreateGroup || op.Kind == plan.CreateDataset {
		f.record = append(f.record, *op)
	}
	return nil
}

// close ends a file. Writing: the group records its selections and closes its subfile,
// then rank 0 writes the master (collective on the file's communicator).
func (l *subfilingLayout) close(f *subFile) error {
	l.files.Remove(f.master)
	leaked := f.objs.CloseForFileClose()
	if f.reading {
		err := h5.CloseFile(f.id)
		if err == nil {
			err = leaked
		}
		return err
	}
	err := f.writeIndex()
	if cerr := h5.CloseFile(f.id); err == nil {
		err = cerr
	}
	// Every subfile is complete before rank 0 reads the indexes.
	if err = f.comm.Agree(err, "subfiling layout: closing the subfiles of "+f.master); err == nil {
		var merr error
		if f.comm.Rank() == 0 {
			merr = f.writeMaster()
		}
		err = f.comm.Agree(merr, "subfiling layout: writing the master file "+f.master)
	}
	if ferr := f.freeComms(); err == nil {
		err = ferr
	}
	if err == nil {
		err = leaked
	}
	return err
}

// writeIndex stores the group's written selections in its subfile (collective on the
// group's communicator).
func (f *subFile) writeIndex() error {
	b, err := f.written.Encode()
	if err != nil {
		return fmt.Errorf("subfiling layout: %w", err)
	}
	sizes, err := f.group.AllgatherFloat64([]float64{float64(len(b))})
	if err != nil {
		return err
	}
	return h5layout.WriteShared(f.id, subfilingIndexPath, f.parallel, f.group.Rank(), h5layout.Exscan(sizes), b)
}

// writeMaster builds the master file from the subfiles' indexes and the recorded
// structure (rank 0, serially).
func (f *subFile) writeMaster() error {
	// Per dataset and group, the selections written; entries that share a selection (one
	// decomposition for many variables) share the union, coalesced once.
	parts := map[string][][]plan.Selection{}
	for k := 0; k < f.n; k++ {
		name := subfileName(f.master, f.gen, k, f.n)
		id, err := h5.OpenFile(name, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
		if err != nil {
			return err
		}
		b, err := h5layout.ReadWhole(id, subfilingIndexPath)
		if cerr := h5.CloseFile(id); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("subfiling layout: index of %s: %w", name, err)
		}
		entries, err := log.DecodeSelections(b)
		if err != nil {
			return fmt.Errorf("subfiling layout: index of %s: %w", name, err)
		}
		for _, e := range entries {
			if parts[e.Path] == nil {
				parts[e.Path] = make([][]plan.Selection, f.n)
			}
			parts[e.Path][k] = append(parts[e.Path][k], e.Selection)
		}
	}
	unions := map[string]plan.Selection{}
	written := map[string][]plan.Selection{}
	for path, groups := range parts {
		written[path] = make([]plan.Selection, f.n)
		for k, sels := range groups {
			var key strings.Builder
			var all plan.Selection
			for _, sel := range sels {
				fmt.Fprintf(&key, "%p/%d,", &sel.Blocks[0], len(sel.Blocks))
				all.Blocks = append(all.Blocks, sel.Blocks...)
			}
			u, ok := unions[key.String()]
			if !ok {
				u = sortedBlocks(h5layout.Coalesce(all))
				unions[key.String()] = u
			}
			written[path][k] = u
		}
	}
	create := h5.CreateFile
	if f.existing != nil {
		create = h5.OpenFile // reopened: add to the master
	}
	m, err := create(f.master, h5.Access{})
	if err != nil {
		return err
	}
	err = f.buildMaster(m, written)
	if cerr := h5.CloseFile(m); err == nil {
		err = cerr
	}
	return err
}

func (f *subFile) buildMaster(m h5.ID, written map[string][]plan.Selection) error {
	groups := map[string]bool{}
	for path, isDataset := range f.existing {
		groups[path] = !isDataset
	}
	for _, op := range f.record {
		switch op.Kind {
		case plan.CreateGroup:
			groups[op.Path] = true
			g, err := h5.CreateGroup(m, op.Path)
			if err != nil {
				return err
			}
			if err := h5.CloseGroup(g); err != nil {
				return err
			}
		case plan.CreateDataset:
			d := f.specs[op.Path] // with its final extent
			var maps []h5.VirtualMap
			for k, sel := range written[op.Path] {
				if !sel.IsNone() {
					maps = append(maps, h5.VirtualMap{Virtual: sel, File: filepath.Base(subfileName(f.master, f.gen, k, f.n)), Dataset: op.Path,
						SourceShape: d.Shape, SourceMaxShape: d.MaxShape, Source: sel})
				}
			}
			switch {
			case plan.Product(d.Shape) == 0:
				// Zero elements (NOvA's empty columns): nothing to map, and a selection
				// of no rows is no hyperslab; the virtual dataset has no mappings.
				maps = nil
			case len(maps) <= 1:
				// One group wrote it (or none): its subfile's dataset, whole, holds the
				// same values (fill elsewhere) without the cost of a selection.
				src := 0
				if len(maps) == 1 {
					src = slices.IndexFunc(written[op.Path], func(s plan.Selection) bool { return !s.IsNone() })
				}
				all := plan.All(d.Shape)
				maps = []h5.VirtualMap{{Virtual: all, File: filepath.Base(subfileName(f.master, f.gen, src, f.n)), Dataset: op.Path,
					SourceShape: d.Shape, SourceMaxShape: d.MaxShape, Source: all}}
			}
			id, err := h5.CreateVirtual(m, op.Path, *d, maps)
			if err != nil {
				return err
			}
			if err := h5.CloseDataset(id); err != nil {
				return err
			}
		case plan.WriteAttribute:
			if err := attributeAt(m, op.Path, groups, *op.Attribute); err != nil {
				return err
			}
		case plan.CreateLink:
			if err := h5.CreateLink(m, op.Path, *op.Link); err != nil {
				return err
			}
		}
	}
	return nil
}

// sortedBlocks orders a union's hyperslabs by start (row-major) and drops repeats: the
// same union, which HDF5 builds fastest when each block comes after the previous ones.
func sortedBlocks(sel plan.Selection) plan.Selection {
	b := sel.Blocks
	sort.SliceStable(b, func(i, j int) bool { return slices.Compare(b[i].Start, b[j].Start) < 0 })
	out := b[:0]
	for i, h := range b {
		if i > 0 && reflect.DeepEqual(h, out[len(out)-1]) {
			continue
		}
		out = append(out, h)
	}
	return plan.Selection{Blocks: out}
}

// attributeAt writes an attribute on the object at path ("/": the root group), a group
// when groups[path], else a dataset.
func attributeAt(f h5.ID, path string, groups map[string]bool, a plan.AttributeSpec) error {
	if path == "/" {
		return h5.WriteAttribute(f, a)
	}
	if groups[path] {
		g, err := h5.OpenGroup(f, path)
		if err != nil {
			return err
		}
		err = h5.WriteAttribute(g, a)
		if cerr := h5.CloseGroup(g); err == nil {
			err = cerr
		}
		return err
	}
	d, err := h5.OpenDataset(f, path)
	if err != nil {
		return err
	}
	err = h5.WriteAttribute(d, a)
	if cerr := h5.CloseDataset(d); err == nil {
		err = cerr
	}
	return err
}

// freeComms frees the group's and the file's communicators.
func (f *subFile) freeComms() error {
	var err error
	if f.ownGroup && !f.group.IsNull() {
		err = f.group.Free()
	}
	f.group, f.ownGroup = mpi.Comm{}, false
	if f.ownComm {
		if ferr := f.comm.Free(); err == nil {
			err = ferr
		}
		f.ownComm = false
	}
	return err
}

// Shape returns a dataset's extent: from the plan while writing, from the master while
// reading.
func (l *subfilingLayout) Shape(path string) ([]uint64, error) {
	f, err := l.files.Current()
	if err != nil {
		return nil, err
	}
	if d, ok := f.specs[path]; ok {
		return d.Shape, nil
	}
	if f.existing[path] {
		// A plan asks for the extent to modify the dataset (h5bench's overwrite, append).
		return nil, fmt.Errorf("subfiling layout: %s was written before the file was reopened for writing; subfiled datasets cannot be modified", path)
	}
	return f.objs.Shape(f.id, path)
}

// Abort closes everything still open, innermost first; no master is written.
func (l *subfilingLayout) Abort() error {
	return l.files.Abort(func(f *subFile) error {
		f.objs.CloseAll()
		return errors.Join(h5.CloseFile(f.id), f.freeComms())
	})
}

// Fuse turns the subfiled file whose master is masterPath into one plain HDF5 file at
// outPath: the master's groups and attributes, and every virtual dataset as a dataset
// with the creation properties of its source datasets (chunking, deflate, fill time) and
// the values the virtual dataset reads. Serial.
func Fuse(masterPath, outPath string) (err error) {
	in, err := h5.OpenFile(masterPath, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := h5.CloseFile(in); err == nil {
			err = cerr
		}
	}()
	if err := checkSources(masterPath, in); err != nil {
		return err
	}
	return h5layout.ConvertObjects(in, outPath, "fuse", false, func(o h5.Object, out h5.ID) error {
		if err := fuseObject(in, out, masterPath, o); err != nil {
			return fmt.Errorf("fuse %s: %w", o.Path, err)
		}
		return nil
	})
}

// fuseObject copies one group or dataset of a master into out.
func fuseObject(in, out h5.ID, masterPath string, o h5.Object) error {
	if !o.Dataset {
		src, err := h5.OpenGroup(in, o.Path)
		if err != nil {
			return err
		}
		defer h5.CloseGroup(src)
		dst, err := h5.CreateGroup(out, o.Path)
		if err != nil {
			return err
		}
		defer h5.CloseGroup(dst)
		return h5layout.CopyAttributes(src, dst, false)
	}
	src, err := h5.OpenDataset(in, o.Path)
	if err != nil {
		return err
	}
	defer h5.CloseDataset(src)
	info, err := h5.DatasetInfo(src)
	if err != nil {
		return err
	}
	spec := plan.DatasetSpec{Type: info.Type, Shape: info.Shape, MaxShape: info.MaxShape, Chunk: info.Chunk, Deflate: info.Deflate, Filters: info.Filters, FillNever: info.FillNever, FillUndefined: info.FillUndefined}
	maps, virtual, err := h5.VirtualMappings(src)
	if err != nil {
		return err
	}
	if virtual && len(maps) > 0 {
		// The creation properties live in the sources (every subfile has the same).
		if spec, err = sourceSpec(masterPath, maps[0], spec); err != nil {
			return err
		}
	}
	dst, err := h5.CreateDataset(out, o.Path, spec)
	if err != nil {
		return err
	}
	defer h5.CloseDataset(dst)
	if err := h5layout.CopyAttributes(src, dst, false); err != nil {
		return err
	}
	return h5layout.CopySlabs(dst, spec, func(t *plan.Transfer, buf []byte) (bool, error) {
		return true, h5.Read(src, t, false, buf)
	})
}

// checkSources opens every subfile that the master's first virtual dataset maps: HDF5
// reads a missing or unreadable source of a virtual dataset as fill values without an
// error, so a lost or truncated subfile would otherwise read as zeros. The patterns write
// every dataset from every subfile group, so the first dataset with mappings has all of
// them as its sources (an empty dataset has none).
func checkSources(masterPath string, master h5.ID) error {
	objs, err := h5.Walk(master)
	if err != nil {
		return err
	}
	for _, o := range objs {
		if !o.Dataset {
			continue
		}
		d, err := h5.OpenDataset(master, o.Path)
		if err != nil {
			return err
		}
		maps, virtual, err := h5.VirtualMappings(d)
		h5.CloseDataset(d)
		if err != nil || !virtual {
			return err
		}
		if len(maps) == 0 { // an empty dataset maps no subfile
			continue
		}
		seen := map[string]bool{}
		for _, m := range maps {
			name := sourcePath(masterPath, m)
			if seen[name] {
				continue
			}
			seen[name] = true
			f, err := h5.OpenFile(name, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
			if err != nil {
				return fmt.Errorf("subfiling layout: %s: subfile %s of %s: %w", o.Path, name, masterPath, err)
			}
			h5.CloseFile(f)
		}
		return nil
	}
	return nil
}

// sourcePath resolves a mapping's source file as HDF5 does: "." is the master itself, a
// relative name is relative to the master's directory.
func sourcePath(masterPath string, m h5.VirtualMap) string {
	switch {
	case m.File == ".":
		return masterPath
	case filepath.IsAbs(m.File):
		return m.File
	}
	return filepath.Join(filepath.Dir(masterPath), m.File)
}

// sourceSpec completes a virtual dataset's spec with the creation properties of the
// source dataset of mapping m.
func sourceSpec(masterPath string, m h5.VirtualMap, spec plan.DatasetSpec) (plan.DatasetSpec, error) {
	name := sourcePath(masterPath, m)
	f, err := h5.OpenFile(name, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		return spec, err
	}
	defer h5.CloseFile(f)
	d, err := h5.OpenDataset(f, m.Dataset)
	if err != nil {
		return spec, err
	}
	defer h5.CloseDataset(d)
	info, err := h5.DatasetInfo(d)
	if err != nil {
		return spec, err
	}
	spec.Chunk, spec.Deflate, spec.Filters, spec.FillNever, spec.FillUndefined = info.Chunk, info.Deflate, info.Filters, info.FillNever, info.FillUndefined
	return spec, nil
}
