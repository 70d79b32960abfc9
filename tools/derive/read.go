// Package derive writes an application description (docs/apps.md) from existing HDF5
// files: `h5proxy derive FILE.h5 ...`. It reads each file serially through the project's
// own HDF5 binding (internal/h5, the sec2 driver), keeps every group, dataset (type,
// shape, max shape, layout, chunking, filters, fill, allocation time), link (hard, soft,
// external) and attribute (type, shape, values of small ones), and builds the description
// model (patterns/app/desc) a person could have written: parameters pulled out, datasets
// of one type and shape folded into a list parameter, per-step groups and time-series
// file names turned into templates over step, and notes where a file cannot tell
// (decomposition, compute time, collective or not) or the format cannot say yet (each
// with a valid stand-in). The description writer (desc.Marshal) writes it; derive never
// builds YAML text.
package derive

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// Group is a group (or a file's root group) as read: its attributes, subgroups, datasets
// and links in name order, or in creation order where the group tracks it (LinkOrder,
// AttrOrder: tracked or indexed), as HDF5 lists them by H5_INDEX_CRT_ORDER.
type Group struct {
	Name     string
	Attrs    []plan.AttributeSpec
	Groups   []*Group
	Datasets []*Dataset
	// Path is the group's path in its file ("/" for the root).
	Path string
	// Links are the group's links that are not its tree: hard links to an object already
	// listed under another path, soft and external links.
	Links []Link
	// Unread are what could not be read as the model holds it: attributes of a datatype
	// the binding does not describe, links of a user-defined kind.
	Unread []Unread
	// LinkOrder and AttrOrder are the creation orders its links and attributes keep:
	// none, tracked or indexed.
	LinkOrder, AttrOrder string
	// Interleaved names a member created before one of a kind a run creates first (a run
	// creates a group's subgroups, then its datasets, then its links), where the group
	// keeps its links' creation order ("" when the file's order is the run's).
	Interleaved string
}

// Link is a link beside the tree: Kind hard (Target the object's first path), soft
// (Target the stored path) or external (File and Target).
type Link struct {
	Name         string
	Kind         h5.LinkKind
	Target, File string
}

// Unread is an object part derive read only in outline: its name, what it is in the file
// (a datatype's class, "a link of a user-defined kind"), its size and shape.
type Unread struct {
	Name, What string
	Size       int
	Shape      []uint64
	// Refs are the paths an attribute of object references names, per element (per
	// dimension for DIMENSION_LIST).
	Refs [][]string
}

// Dataset is a dataset as read: its type, extents and creation properties, and attributes.
type Dataset struct {
	Name     string
	Info     h5.Info
	Creation h5.Creation
	Attrs    []plan.AttributeSpec
	Unread   []Unread
	// StandIn names the file's datatype when Info.Type is a stand-in of its size (a type
	// the binding does not describe: enum, array, opaque, reference, vlen).
	StandIn string
	// Virtual reports a virtual dataset, Mappings its mappings (H5Pget_virtual_*).
	Virtual  bool
	Mappings []h5.VirtualMap
	// AttrOrder is the creation order its attributes keep: none, tracked or indexed.
	AttrOrder string
	// Unallocated reports a dataset with elements and no storage: created, never written.
	Unallocated bool
	// Refs are the targets of a dataset of object or region references (nil for another
	// type), as a reference attribute's plan value: its type, shape and targets' paths.
	Refs *plan.AttributeSpec
}

// File is one input file: its path and root group.
type File struct {
	Path string
	Root *Group
	// Timed and Untimed count the file's datasets whose headers record their times and
	// those created without them (H5Pset_obj_track_times false): the description's
	// track_times. A hard-linked dataset counts at each path.
	Timed, Untimed int
}

// Read reads the structure of every file in paths, in order. An error names the file and
// the object that could not be read.
func Read(paths []string) ([]*File, error) {
	var out []*File
	for _, p := range paths {
		f, err := readFile(p)
		if err != nil {
			return nil, fmt.Errorf("derive: %s: %w", p, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// reader reads one file: its objects' first paths by address, for hard links.
type reader struct {
	f              h5.ID
	timed, untimed int               // objects with and without their times (File.Timed, Untimed)
	first          map[uint64]string // object address -> the path the visit lists it under
	tree           map[string]bool   // paths the visit lists
	refs           []*plan.AttributeSpec
}

func readFile(path string) (_ *File, err error) {
	f, err := h5.OpenFile(path, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := h5.CloseFile(f); err == nil && cerr != nil {
			err = cerr
		}
	}()
	objs, err := h5.Walk(f)
	if err != nil {
		return nil, err
	}
	r := &reader{f: f, first: map[uint64]string{}, tree: map[string]bool{"/": true}}
	root, err := r.group("/", "/")
	if err != nil {
		return nil, err
	}
	groups := map[string]*Group{"": root}
	for _, o := range objs {
		r.tree[o.Path] = true
		dir, name := filepath.Split(o.Path)
		parent := groups[strings.TrimSuffix(dir, "/")]
		if parent == nil {
			return nil, fmt.Errorf("%s: parent group not listed before it", o.Path)
		}
		if !o.Dataset {
			g, err := r.group(o.Path, name)
			if err != nil {
				return nil, err
			}
			groups[o.Path] = g
			parent.Groups = append(parent.Groups, g)
			continue
		}
		d, err := r.dataset(o.Path, name)
		if err != nil {
			return nil, err
		}
		parent.Datasets = append(parent.Datasets, d)
	}
	// References and links once every object's first path is known.
	for _, a := range r.refs {
		if err := r.firstPaths(a); err != nil {
			return nil, err
		}
	}
	var gs []*Group
	for _, g := range groups {
		gs = append(gs, g)
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].Path < gs[j].Path })
	for _, g := range gs {
		if err := r.links(g); err != nil {
			return nil, err
		}
		if err := r.creationOrder(g); err != nil {
			return nil, err
		}
	}
	return &File{Path: path, Root: root, Timed: r.timed, Untimed: r.untimed}, nil
}

// note records the address of the open object at path, the first path it is listed under.
func (r *reader) note(obj h5.ID, path string) error {
	st, err := h5.ObjectStat(obj)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := r.first[st.Addr]; !ok {
		r.first[st.Addr] = path
	}
	return nil
}

// times counts whether the dataset open at path keeps its times (File.Timed, Untimed). Only
// datasets tell: the version-1 headers of HDF5's default bounds keep none on groups,
// whatever the program asked.
func (r *reader) times(obj h5.ID, path string) error {
	timed, err := h5.ObjectTimed(obj)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if timed {
		r.timed++
	} else {
		r.untimed++
	}
	return nil
}

func (r *reader) group(path, name string) (*Group, error) {
	id, err := h5.OpenGroup(r.f, path)
	if err != nil {
		return nil, err
	}
	defer h5.CloseGroup(id)
	if err := r.note(id, path); err != nil {
		return nil, err
	}
	g := &Group{Name: name, Path: path}
	if g.LinkOrder, g.AttrOrder, err = h5.CreationOrder(id); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	g.Attrs, g.Unread, err = attrsOf(id, path, tracks(g.AttrOrder))
	r.noteRefs(g.Attrs)
	return g, err
}

// tracks reports a creation order kept in the file: tracked or indexed.
func tracks(order string) bool { return order == "tracked" || order == "indexed" }

// creationOrder puts g's subgroups, datasets and links in the order their links were
// created, where g tracks it (a writer that lists by creation order, as netCDF-4 does
// its variables, then lists the replay's as the original's).
func (r *reader) creationOrder(g *Group) error {
	if !tracks(g.LinkOrder) {
		return nil
	}
	id, err := h5.OpenGroup(r.f, g.Path)
	if err != nil {
		return err
	}
	defer h5.CloseGroup(id)
	names, err := h5.LinkNamesByCreation(id)
	if err != nil {
		return fmt.Errorf("%s: %w", g.Path, err)
	}
	at := make(map[string]int, len(names))
	for i, n := range names {
		at[n] = i
	}
	slices.SortStableFunc(g.Groups, func(a, b *Group) int { return at[a.Name] - at[b.Name] })
	slices.SortStableFunc(g.Datasets, func(a, b *Dataset) int { return at[a.Name] - at[b.Name] })
	slices.SortStableFunc(g.Links, func(a, b Link) int { return at[a.Name] - at[b.Name] })
	var run []string // the run's order: subgroups, datasets, links
	for _, x := range g.Groups {
		run = append(run, x.Name)
	}
	for _, x := range g.Datasets {
		run = append(run, x.Name)
	}
	for _, x := range g.Links {
		run = append(run, x.Name)
	}
	for i := 1; i < len(run); i++ {
		if at[run[i]] < at[run[i-1]] {
			g.Interleaved = fmt.Sprintf("%s was created before %s", run[i], run[i-1])
			break
		}
	}
	return nil
}

// noteRefs keeps the object reference attributes among as, whose targets firstPaths
// names once the visit is done.
func (r *reader) noteRefs(as []plan.AttributeSpec) {
	for i := range as {
		if as[i].Type.Class == plan.Reference && !as[i].Type.Region {
			r.refs = append(r.refs, &as[i])
		}
	}
}

// firstPaths names each target of the reference attribute a by the path the visit lists
// it under (H5Rget_name names one of its paths: another name of an object reached by a
// hard link is the link, which a description makes after the object).
func (r *reader) firstPaths(a *plan.AttributeSpec) error {
	n := int(plan.Product(a.Shape))
	paths := make([]string, n)
	width := 1
	for i := range paths {
		p := scalar(a.Type, a.Value[i*a.Type.Size:(i+1)*a.Type.Size])
		if f, err := r.firstPath(p); err != nil {
			return err
		} else if f != "" {
			p = f
		}
		paths[i], width = p, max(width, len(p))
	}
	a.Type.Size = width
	a.Value = make([]byte, n*width)
	for i, p := range paths {
		copy(a.Value[i*width:], p)
	}
	return nil
}

// links reads the links of g that are not its tree: a hard link to an object the visit
// lists under another path, soft, external and user-defined links.
func (r *reader) links(g *Group) error {
	id, err := h5.OpenGroup(r.f, g.Path)
	if err != nil {
		return err
	}
	defer h5.CloseGroup(id)
	ls, err := h5.ListLinks(id)
	if err != nil {
		return fmt.Errorf("%s: %w", g.Path, err)
	}
	for _, l := range ls {
		child := strings.TrimSuffix(g.Path, "/") + "/" + l.Name
		switch l.Kind {
		case h5.LinkHard:
			if r.tree[child] {
				continue
			}
			target, err := r.firstPath(child)
			if err != nil {
				return err
			}
			if target == "" { // a named datatype: the visit lists groups and datasets only
				g.Unread = append(g.Unread, Unread{Name: l.Name, What: "a hard link to an object that is no group or dataset (a named datatype)"})
				continue
			}
			g.Links = append(g.Links, Link{Name: l.Name, Kind: l.Kind, Target: target})
		case h5.LinkSoft, h5.LinkExternal:
			g.Links = append(g.Links, Link{Name: l.Name, Kind: l.Kind, Target: l.Target, File: l.File})
		default:
			g.Unread = append(g.Unread, Unread{Name: l.Name, What: "a link of a user-defined kind"})
		}
	}
	return nil
}

// firstPath returns the path the visit lists the object at path under ("" for an object
// it does not list).
func (r *reader) firstPath(path string) (string, error) {
	o, err := h5.OpenObject(r.f, path, false)
	if err != nil {
		return "", nil // not a group or dataset
	}
	defer h5.CloseObject(o)
	st, err := h5.ObjectStat(o)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return r.first[st.Addr], nil
}

func (r *reader) dataset(path, name string) (*Dataset, error) {
	id, err := h5.OpenDataset(r.f, path)
	if err != nil {
		return nil, err
	}
	defer h5.CloseDataset(id)
	if err := r.note(id, path); err != nil {
		return nil, err
	}
	if err := r.times(id, path); err != nil {
		return nil, err
	}
	d := &Dataset{Name: name}
	d.Info, err = h5.DatasetInfo(id)
	if isUnsupported(err) {
		err = r.standIn(path, d)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if d.Creation, err = h5.DatasetCreation(id); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, d.AttrOrder, err = h5.CreationOrder(id); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if maps, virtual, err := h5.VirtualMappings(id); err == nil {
		d.Virtual, d.Mappings = virtual, maps
	}
	if alloc, err := h5.Allocated(id); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	} else if !alloc && !d.Virtual && plan.Product(d.Info.Shape) > 0 {
		d.Unallocated = true
	}
	if d.Info.Type.Class == plan.Reference && !d.Unallocated {
		t, names, ok, err := h5.ReadReferences(id)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if ok {
			d.Refs = &plan.AttributeSpec{Name: name, Type: t, Shape: d.Info.Shape, Value: names}
			if !t.Region {
				r.refs = append(r.refs, d.Refs)
			}
		}
	}
	d.Attrs, d.Unread, err = attrsOf(id, path, tracks(d.AttrOrder))
	r.noteRefs(d.Attrs)
	return d, err
}

// standIn reads a dataset of a datatype the binding does not describe in outline (its
// extents and layout) and gives it a stand-in type of the same size.
func (r *reader) standIn(path string, d *Dataset) error {
	o, err := h5.Describe(r.f, path, true)
	if err != nil {
		return err
	}
	d.Info = h5.Info{Type: standInType(o.Type.Size), Shape: o.Dims, MaxShape: o.MaxDims, Chunk: o.Chunk, Deflate: o.Deflate,
		FillNever: o.FillTime == plan.FillTimeNever, FillAlloc: o.FillTime == plan.FillTimeAlloc, Compact: o.Layout == h5.LayoutCompact}
	d.StandIn = className(o.Type)
	return nil
}

// isUnsupported reports the binding's refusal of a datatype it does not describe or
// cannot read into a plan's buffer (a compound with a reference member: REFERENCE_LIST).
func isUnsupported(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "unsupported datatype") || strings.Contains(err.Error(), "h5: datatype"))
}

// standInType is a type of size bytes the description format has: an unsigned integer of
// 1, 2, 4 or 8 bytes, else a fixed string.
func standInType(size int) plan.Type {
	switch size {
	case 1:
		return plan.U8
	case 2:
		return plan.U16
	case 4:
		return plan.U32
	case 8:
		return plan.U64
	}
	return plan.Str(max(size, 1))
}

// classNames name HDF5's datatype classes (H5T_class_t) the binding does not describe.
var classNames = map[int]string{2: "time", 4: "bitfield", 5: "opaque", 6: "compound", 7: "reference", 8: "enum", 9: "variable-length sequence", 10: "array"}

// className names a raw type for a note: "an enum of 1 byte".
func className(t h5.RawType) string {
	var cls, size int
	if _, err := fmt.Sscanf(t.Desc, "class %d of %d bytes", &cls, &size); err == nil {
		if n, ok := classNames[cls]; ok {
			return fmt.Sprintf("%s of %d bytes", n, t.Size)
		}
	}
	return t.Desc
}

// attrsOf reads the attributes of obj: their values, or in outline those of a datatype
// the binding does not describe. They are in creation order when byCreation (obj tracks
// it), else in name order.
func attrsOf(obj h5.ID, path string, byCreation bool) ([]plan.AttributeSpec, []Unread, error) {
	var names []string
	var err error
	if byCreation {
		names, err = h5.AttributeNamesByCreation(obj)
	} else {
		names, err = h5.AttributeNames(obj)
		sort.Strings(names)
	}
	if err != nil {
		return nil, nil, err
	}
	var out []plan.AttributeSpec
	var unread []Unread
	var raw map[string]h5.AttrInfo
	for _, n := range names {
		a, err := h5.ReadAttribute(obj, n)
		if isUnsupported(err) {
			if raw == nil {
				infos, err := h5.Attributes(obj, path)
				if err != nil {
					return nil, nil, err
				}
				raw = map[string]h5.AttrInfo{}
				for _, i := range infos {
					raw[i.Name] = i
				}
			}
			i, ok := raw[n]
			if !ok {
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
			u := Unread{Name: n, What: className(i.Type), Size: i.Type.Size, Shape: i.Dims}
			if u.Refs, _, err = h5.ReferenceNames(obj, n); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
			unread = append(unread, u)
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, a)
	}
	return out, unread, nil
}
