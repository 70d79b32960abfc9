package profile

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// The model: what capture decided (capture.go: the datasets, steps and actions;
// capture_attr.go, capture_types.go, capture_handles.go and capture_family.go) as a
// desc.Description, the model the parser fills. Capture builds it and never text: the
// description's one writer (desc.Marshal) writes it, with the notes attached here by key
// path as comments.

// hints sets the MPI-IO hints the program passed to its HDF5 files (their access lists'
// MPI_Info): the description's when every file that has hints has the same, else each
// file's own, returned by file (files.ID.hints).
func (c *Description) hints(p *Profile, files []string) map[string][]desc.Param {
	var hints map[string]string
	var from string
	perFile := map[string]map[string]string{}
	same := true
	for _, f := range files {
		var fa fileAccess
		if r, ok := fileRecord(p, f); !ok || len(r.Info) == 0 || json.Unmarshal(r.Info, &fa) != nil || len(fa.Hints) == 0 {
			continue
		}
		perFile[f] = fa.Hints
		if hints == nil {
			hints, from = fa.Hints, f
		}
		same = same && maps.Equal(hints, fa.Hints)
	}
	params := func(h map[string]string) []desc.Param {
		var out []desc.Param
		for _, k := range slices.Sorted(maps.Keys(h)) {
			out = append(out, desc.Param{Name: k, Value: desc.V(h[k])})
		}
		return out
	}
	switch {
	case len(hints) == 0:
		return nil
	case same:
		c.Desc.Hints = params(hints)
		c.Desc.Comment("hints", fmt.Sprintf("MPI-IO hints %s was opened with", filepath.Base(from)))
		return nil
	}
	out := map[string][]desc.Param{}
	for f, h := range perFile {
		out[f] = params(h)
	}
	return out
}

// tree fills a file's groups, datasets and links: templates split at their slashes.
// groups (templates, in creation order) come first: the groups that hold no dataset
// (attributes alone, or nothing) are the file's too.
func (c *Description) tree(file *desc.File, fpath, id string, ds map[string]*capDataset, attrs map[string][]*capAttr, groups []string, links map[string][]*desc.Link, nranks int) {
	type node struct {
		content *desc.Content
		path    string // the key path of its keys
		groups  map[string]*node
	}
	root := &node{content: &file.Content, path: fpath, groups: map[string]*node{}}
	at := func(parts []string) *node {
		n, obj := root, ""
		for _, g := range parts {
			obj += "/" + g
			if n.groups[g] == nil {
				grp := &desc.Group{Name: desc.V(g)}
				n.content.Groups = append(n.content.Groups, grp)
				sub := &node{content: &grp.Content, path: n.path + ".groups." + g, groups: map[string]*node{}}
				grp.Attributes = c.attributes(sub.path, attributeOwner(id, obj), attrs[obj])
				n.groups[g] = sub
			}
			n = n.groups[g]
		}
		return n
	}
	for _, g := range groups {
		at(strings.Split(strings.TrimPrefix(g, "/"), "/"))
	}
	for _, t := range sortedTemplates(ds) {
		parts := strings.Split(strings.TrimPrefix(t, "/"), "/")
		n := at(parts[:len(parts)-1])
		n.content.Datasets = append(n.content.Datasets, c.dataset(n.path+".datasets."+path.Base(t), id, ds[t], nranks))
	}
	for _, g := range slices.Sorted(maps.Keys(links)) {
		n := root
		if g != "/" {
			n = at(strings.Split(strings.TrimPrefix(g, "/"), "/"))
		}
		n.content.Links = append(n.content.Links, links[g]...)
	}
}

// dataset is one captured dataset of the model, at key path dpath.
func (c *Description) dataset(dpath, id string, d *capDataset, nranks int) *desc.Dataset {
	out := &desc.Dataset{Name: path.Base(d.template)}
	typ, ok := typeName(d.info)
	if d.info.Tree != nil { // big-endian numbers, enumerations, arrays, opaque types
		var err error
		if typ, err = c.treeTypeName(out.Name, d.info.Tree); err != nil {
			typ = compoundStandIn(d.info.TypeSize)
			c.unexpressed(dpath, fmt.Sprintf("%s %s: %v: written as %s, the same size", id, d.template, err, typ))
		}
		ok = true
	} else if d.info.TypeClass == h5tCompound {
		if typ, ok = c.compoundName(out.Name, d.info.Members, d.info.TypeSize); !ok {
			typ = compoundStandIn(d.info.TypeSize)
			c.unexpressed(dpath, fmt.Sprintf("%s %s: a compound of %d bytes with members of other classes (nested compounds, arrays, references), or none traced: written as %s, the same size", id, d.template, d.info.TypeSize, typ))
			ok = true
		}
	}
	standIn := func() {
		c.unexpressed(dpath, fmt.Sprintf("%s %s: datatype class %d of %d bytes (written as f64)", id, d.template, d.info.TypeClass, d.info.TypeSize))
	}
	refs := d.info.TypeClass == h5tReference && d.targets != nil // said by refValue, or a stand-in
	if !ok && !refs {
		standIn()
	}
	out.Type = desc.V(typ)
	// a memory type of the same class and another size (HDF5 converts)
	if in := d.info; d.memSize > 0 && d.memSize != in.TypeSize && (in.TypeClass == 0 || in.TypeClass == 1) {
		if mt, ok := typeName(datasetInfo{TypeClass: in.TypeClass, TypeSize: d.memSize, TypeSign: in.TypeSign}); ok {
			out.Memory.Type = desc.V(mt)
		}
	}
	dc, split, shapeAt := c.decomposition(dpath, id, d, nranks)
	shape := make([]string, len(d.info.Dims))
	for i, v := range d.info.Dims {
		shape[i] = strconv.FormatInt(v, 10)
	}
	if d.series {
		shape[0] = strconv.FormatInt(d.grow, 10)
	}
	if split >= 0 && split < len(shape) && shapeAt != "" {
		shape[split] = shapeAt
	}
	out.Shape = desc.Vs(shape...)
	out.Give("shape") // [] is a scalar
	for i, m := range d.info.MaxDims {
		if m < 0 {
			out.Extend = desc.V(strconv.Itoa(i))
			c.Desc.NoteAt(dpath + ".extend").Line = "unlimited along it"
			if d.empty {
				out.StartEmpty = desc.V("true")
				c.Desc.NoteAt(dpath + ".start_empty").Line = "created with 0 along it, extended before each write"
			}
			break
		}
	}
	if d.info.Layout == 2 && len(d.info.Chunk) > 0 {
		ch := make([]string, len(d.info.Chunk))
		for i, v := range d.info.Chunk {
			ch[i] = strconv.FormatInt(v, 10)
		}
		out.Chunk = desc.Vs(ch...)
		// a chunk of the whole extent along the dimension the ranks split is its
		// expression too (PETSc's [1, 64 * nranks] in chunks of one row)
		if split >= 0 && split < len(ch) && shapeAt != "" && d.info.Chunk[split] == d.info.Dims[split] {
			out.Chunk[split] = desc.V(shapeAt)
		}
	} else if d.info.Layout == 0 {
		out.Layout = desc.V("compact")
	}
	out.Filters = filterList(d.info)
	c.fill(out, dpath, id, d)
	out.Decompose = dc
	out.CreationOrder = orderName(d.info.AttrCrtOrder)
	if len(d.info.Virtual) > 0 { // created, never written: the key says so
		out.Virtual = c.virtualMaps(dpath, id, d)
		out.Decompose = desc.Decompose{}
	} else if len(d.writes) == 0 && len(d.reads) == 0 {
		out.Decompose, out.Written = desc.Decompose{}, desc.V("false")
		c.Desc.NoteAt(dpath + ".written").Line = "created and never written"
	}
	if d.independent {
		out.Independent = desc.V("true")
		c.Desc.NoteAt(dpath + ".independent").Line = "written independently between the file's collective writes"
	}
	if d.emptyCalls {
		out.EmptyCalls = desc.V("true")
		c.Desc.NoteAt(dpath + ".empty_calls").Line = "ranks with no element call H5Dwrite too, with an empty selection"
	}
	if refs && !c.refValue(out, dpath, id, d) {
		standIn()
	}
	if d.nwrites > 1 {
		c.unexpressed(dpath, fmt.Sprintf("%s %s: %d H5Dwrite per rank per step (a description writes each dataset once per step: their union)", id, d.template, d.nwrites))
	}
	for r := range nranks {
		if n := len(d.hashes[r]); n > 1 {
			c.unexpressed(dpath, fmt.Sprintf("%s %s: rank %d's union of hyperslabs changes between writes (%d kinds; the first is written at every step)", id, d.template, r, n))
			break
		}
	}
	out.Attributes = c.attributes(dpath, attributeOwner(id, d.template), d.attrs)
	return out
}

// fill sets a dataset's fill properties where they are not HDF5's defaults: an undefined
// or user fill value (H5D_fill_value_t 0 or 2), fill time alloc or never
// (H5D_fill_time_t 0 or 1; 2, ifset, is the default).
func (c *Description) fill(out *desc.Dataset, dpath, id string, d *capDataset) {
	in := d.info
	switch {
	case in.FillDefined == nil:
	case *in.FillDefined == 0:
		out.Fill = desc.V("undefined")
	case *in.FillDefined == 2:
		raw, err := hex.DecodeString(in.FillValue)
		if in.Tree != nil { // a big-endian number, an enumeration: traced in the file type
			if v, ok := treeValue(raw, in.Tree); err == nil && ok && len(raw) == in.TypeSize {
				out.Fill = desc.V(v)
			} else {
				c.unexpressed(dpath, fmt.Sprintf("%s %s: a user fill value the trace does not hold", id, d.template))
			}
			break
		}
		a := &capAttr{value: raw, mem: attrEvent{MemClass: &in.TypeClass, MemSize: in.TypeSize, MemSign: in.TypeSign}}
		typ, _ := typeName(in)
		if v, ok := attrValues(a, typ, 1); err == nil && ok && (in.TypeClass == 0 || in.TypeClass == 1) {
			out.Fill = v[0]
		} else {
			c.unexpressed(dpath, fmt.Sprintf("%s %s: a user fill value the trace does not hold", id, d.template))
		}
	}
	if in.FillTime != nil {
		if name := map[int]string{0: "alloc", 1: "never"}[*in.FillTime]; name != "" {
			out.FillTime = desc.V(name)
		}
	}
}

// attributes are an object's attributes in the model (its key path opath), with what
// the format cannot say about them listed.
func (c *Description) attributes(opath, where string, as []*capAttr) []*desc.Attribute {
	var out []*desc.Attribute
	for _, a := range as {
		out = append(out, c.attribute(opath+".attributes."+a.name, where, a))
	}
	return out
}

// attribute is one attribute: {type, shape, value}, or generated values where the trace
// has none.
func (c *Description) attribute(apath, where string, a *capAttr) *desc.Attribute {
	at := fmt.Sprintf("%s attribute %s", where, a.name)
	if a.name == dsDimensionList && a.seqTargets != nil {
		if c.dimLists == nil {
			c.dimLists = map[string][][]string{}
		}
		c.dimLists[where] = a.seqTargets
	}
	out := &desc.Attribute{Name: a.name}
	placement(out, a)
	typ, ok := typeName(datasetInfo{TypeClass: a.ev.TypeClass, TypeSize: a.ev.TypeSize, TypeSign: a.ev.TypeSign})
	if a.ev.TypeClass == h5tCompound {
		typ, ok = c.compoundName(a.name, a.ev.Members, a.ev.TypeSize)
	}
	var treeErr error
	switch {
	case a.ev.Tree != nil: // big-endian numbers, enumerations, arrays, opaque types
		typ, treeErr = c.treeTypeName(a.name, a.ev.Tree)
		ok = treeErr == nil
	case a.ev.TypeClass == h5tReference && a.targets != nil: // the 1.8 API's references, their targets traced
		typ, ok = map[bool]string{true: "ref", false: "regref"}[a.ev.TypeSize == objRefSize], a.ev.TypeSize == objRefSize || a.ev.TypeSize == regionRefSize
		if a.inexact != "" {
			c.unexpressed(apath, fmt.Sprintf("%s: %s: %s", at, a.inexact, regionTargetNote))
		}
	case a.ev.TypeClass == 3 && a.ev.VLen: // a variable-length string
		typ, ok = "vstr", true
		if a.ev.Cset == csetUTF8 {
			typ = "uvstr"
		}
	case a.ev.TypeClass == 3 && a.ev.StrPad == strNullPad: // numpy's bytes through h5py
		typ = "p" + typ
		if a.ev.Cset == csetUTF8 {
			typ = "u" + typ
		}
	case a.ev.TypeClass == 3 && a.ev.Cset == csetUTF8:
		typ = "u" + typ
	}
	if !ok || a.ev.VLen && a.ev.TypeClass != 3 {
		why := fmt.Sprintf("datatype class %d of %d bytes%s", a.ev.TypeClass, a.ev.TypeSize, map[bool]string{true: ", variable-length", false: ""}[a.ev.VLen])
		if treeErr != nil {
			why = treeErr.Error()
		}
		c.unexpressed(apath, fmt.Sprintf("%s: %s (written as f64)", at, why))
		typ = "f64"
	}
	if a.ev.TypeClass == 3 && !a.ev.VLen && a.ev.StrPad != strNullTerm && a.ev.StrPad != strNullPad {
		c.unexpressed(apath, fmt.Sprintf("%s: string padding %d (a description's fixed strings are NUL-terminated or NUL-padded)", at, a.ev.StrPad))
	}
	out.Type = desc.V(typ)
	n := int64(1)
	for _, d := range a.ev.Dims {
		n *= d
	}
	switch {
	case len(a.ev.Dims) == 1:
		out.Shape = desc.Vs(strconv.FormatInt(a.ev.Dims[0], 10))
	case len(a.ev.Dims) > 1:
		out.Shape = desc.Vs(strconv.FormatInt(n, 10))
		c.unexpressed(apath, fmt.Sprintf("%s: dims %v (a description's attributes are scalars or 1-D: written as %d elements)", at, a.ev.Dims, n))
	}
	vals, ok := attrValues(a, strings.TrimPrefix(strings.TrimPrefix(typ, "u"), "p"), n) // ustrN's and pstrN's values are strN's
	if typ == "ref" || typ == "regref" {
		vals, ok = a.targets, true
	}
	switch {
	case !ok:
		c.unexpressed(apath, fmt.Sprintf("%s: its value is not in the trace (never written, variable-length, or over the library's size limit): generated", at))
		out.Generate = desc.V("index")
	case len(a.ev.Dims) == 0:
		out.Value = vals[0]
	default:
		out.Value = desc.Value{List: vals, Set: true}
	}
	return out
}

// ways sets a file's writer, create, collective_metadata and handles keys, and lists what
// the keys cannot say.
func (c *Description) ways(f *desc.File, fpath, file string, w fileWays) {
	switch {
	case w.serialWriter:
		f.Writer = desc.V("rank0")
		c.Desc.NoteAt(fpath + ".writer").Line = "rank 0 alone wrote it with a serial driver; the other ranks never opened it"
	case w.rank0 && len(w.serial) > 0:
		f.Create = desc.Create{By: desc.V("rank0")}
		for _, s := range w.serial {
			f.Create.Datasets = append(f.Create.Datasets, desc.V(strings.TrimPrefix(s, "/")))
		}
		c.Desc.Comment(fpath+".create", "rank 0 created it alone with a serial driver and wrote these, then every rank opened it")
	case w.rank0:
		f.Create = desc.Create{By: desc.V("rank0")}
		c.Desc.NoteAt(fpath + ".create").Line = "rank 0 created it alone with a serial driver, then every rank opened it"
	}
	if w.collMeta != "" {
		f.CollectiveMetadata = desc.V(w.collMeta)
	}
	if w.collMeta == "true" && w.wOps != w.wWrite {
		c.unexpressed(fpath+".collective_metadata", fmt.Sprintf("%s: collective metadata reads %v, writes %v (a description sets both)", filepath.Base(file), w.wOps, w.wWrite))
	}
	switch {
	case w.holdFile:
		f.Handles.Hold = desc.V("file")
		c.Desc.Comment(fpath+".handles", "groups and datasets held open from their creation until the file's close")
	case w.holdCall:
		f.Handles.Hold = desc.V("call")
		if w.reopen {
			f.Handles.Attributes = desc.V("reopen")
		}
		if w.parents {
			f.Handles.OpenParents = desc.V("true")
		}
		c.Desc.Comment(fpath+".handles", "datasets closed after their creation and opened for each write")
	case w.reopen || w.parents:
		c.unexpressed(fpath, fmt.Sprintf("%s: attributes through H5Oopen %v, parents opened around creates %v, while the datasets stay open (a description's handles reopen with hold: call only)", filepath.Base(file), w.reopen, w.parents))
	}
	if w.reopenSeries && !w.holdFile && !w.holdCall {
		f.Handles.Series = desc.V("reopen")
		c.Desc.Comment(fpath+".handles", "series datasets closed after each step's write and opened again to extend them")
	}
	for _, g := range w.guesses {
		c.Desc.Guess(fpath, g)
	}
}

// virtualMaps are a virtual dataset's traced mappings as the virtual key says them: the
// file only when another ("." is the dataset's own); start and count when the program
// selected hyperslabs, none when it passed both dataspaces unselected. A selection that is not a box is written as its
// bounding box and listed.
func (c *Description) virtualMaps(dpath, id string, d *capDataset) []desc.VirtualMap {
	ints := func(v []int64) []desc.Value {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.FormatInt(x, 10)
		}
		return desc.Vs(s...)
	}
	zero := func(v []int64) bool { return !slices.ContainsFunc(v, func(x int64) bool { return x != 0 }) }
	var out []desc.VirtualMap
	for i, m := range d.info.Virtual {
		vm := desc.VirtualMap{Dataset: desc.V(m.Dataset)}
		if m.File != "." && m.File != "" {
			vm.File = desc.V(m.File)
		}
		count := make([]int64, len(m.VEnd))
		for k := range m.VEnd {
			if k < len(m.VStart) {
				count[k] = m.VEnd[k] - m.VStart[k]
			}
		}
		if !m.VAll || !m.SAll { // hyperslabs: said explicitly (no key selects all of both)
			vm.Start, vm.Count = ints(m.VStart), ints(count)
			if !zero(m.SStart) {
				vm.SourceStart = ints(m.SStart)
			}
		}
		if m.Box != nil && !*m.Box {
			c.unexpressed(dpath, fmt.Sprintf("%s %s: virtual mapping %d selects no box (written as its bounding box)", id, d.template, i))
		}
		out = append(out, vm)
	}
	return out
}
