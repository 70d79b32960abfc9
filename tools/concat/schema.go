package concat

import (
	"fmt"
	"path"
	"slices"

	"github.com/h5proxy/h5proxy/internal/h5"
)

// object is one group or dataset of an input, with what the schema compares.
type object struct {
	path    string
	dataset bool
	info    h5.ObjectInfo
}

// readSchema lists the root group and every group and dataset of the open input f.
func readSchema(f h5.ID) ([]object, error) {
	objs, err := h5.Walk(f)
	if err != nil {
		return nil, err
	}
	out := make([]object, 0, len(objs)+1)
	out = append(out, object{path: "/"})
	for _, o := range objs {
		out = append(out, object{path: o.Path, dataset: o.Dataset})
	}
	for i := range out {
		if out[i].info, err = h5.Describe(f, out[i].path, out[i].dataset); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// A probe reads of an input what compareSchema compares with the reference, at the least
// cost: each dataset is opened once for its type (as encoded) and extent, attributes are
// described only where the input or the reference has some, creation properties not at all
// (copying a dataset's creation property list costs HDF5 about as much as opening it). The
// non-empty datasets are left open for the data pass, at most budget of them.
type probe struct {
	f      h5.ID
	ref    []object
	budget int
	kept   int
	enc    []byte // scratch for type encodings
	// got are the input's objects; open[k] is got[k]'s dataset when left open, else 0.
	got  []object
	open []h5.ID
}

// dataset probes the dataset name of loc, the input's object of path p, whose reference is
// r (ok false: none), the attributes described when hasAttrs or r has some; stat, when set,
// is called on the open dataset first, can refuse it and says whether it has attributes.
func (pr *probe) dataset(loc h5.ID, name, p string, r object, ok, hasAttrs bool, stat func(d h5.ID) (good, attrs bool, err error)) (bool, error) {
	d, err := h5.OpenDataset(loc, name)
	if err != nil {
		return false, err
	}
	g := object{path: p, dataset: true}
	good := true
	if stat != nil {
		good, hasAttrs, err = stat(d)
	}
	if good && err == nil {
		pr.enc, g.info.Dims, err = h5.Probe(d, pr.enc)
	}
	if good && err == nil && (hasAttrs || len(r.info.Attrs) > 0) {
		g.info.Attrs, err = h5.Attributes(d, p)
	}
	if !good || err != nil {
		h5.CloseDataset(d)
		return false, err
	}
	g.info.Type.Enc = r.info.Type.Enc // shared when equal: one allocation less per dataset
	if !ok || !r.dataset || !slices.Equal(pr.enc, r.info.Type.Enc) {
		g.info.Type.Enc = slices.Clone(pr.enc)
	}
	if len(g.info.Dims) > 0 && g.info.Dims[0] > 0 && pr.kept < pr.budget {
		pr.open = append(pr.open, d)
		pr.kept++
	} else {
		pr.open = append(pr.open, 0)
		if err := h5.CloseDataset(d); err != nil {
			return false, err
		}
	}
	pr.got = append(pr.got, g)
	return true, nil
}

// reset closes what the probe left open and forgets what it found.
func (pr *probe) reset() {
	closeDatasets(pr.open)
	pr.got, pr.open, pr.kept = pr.got[:0], pr.open[:0], 0
}

// probeSchema probes input f (see probe) and returns its objects and, in the same order, the
// datasets left open (0 for the others); on error nothing is left open. The input is probed
// in the reference's order without a visit when it is a tree of the reference's objects
// (probe.tree), else visited in Walk's order, as the first input was.
func probeSchema(f h5.ID, ref []object, children map[string]int, budget int) ([]object, []h5.ID, error) {
	pr := &probe{f: f, ref: ref, budget: budget, got: make([]object, 0, len(ref)), open: make([]h5.ID, 0, len(ref))}
	ok, err := pr.tree(children)
	if err == nil && !ok {
		pr.reset()
		err = pr.visit()
	}
	if err != nil {
		pr.reset()
		return nil, nil, err
	}
	return pr.got, pr.open, nil
}

// tree probes the reference's objects by name, each opened from its open parent group, and
// reports whether the input is exactly a tree of them: every object there, of its kind, at
// an address of its own in this file, every group holding as many links as the reference
// has members in it (so no other link). Whatever else (a missing object, a soft or external
// link, another member) reports false, for visit to find, without an error.
func (pr *probe) tree(children map[string]int) (bool, error) {
	root, err := h5.ObjectStat(pr.f)
	if err != nil {
		return false, err
	}
	seen := make(map[uint64]bool, len(pr.ref))
	// mine checks an object's identity and link count.
	mine := func(st h5.Stat, p string, group bool) bool {
		if st.FileNo != root.FileNo || seen[st.Addr] || group != (st.Links >= 0) || (group && st.Links != children[p]) {
			return false
		}
		seen[st.Addr] = true
		return true
	}
	if !mine(root, "/", true) {
		return false, nil
	}
	g := object{path: "/"}
	if root.Attrs > 0 || len(pr.ref[0].info.Attrs) > 0 {
		if g.info.Attrs, err = h5.Attributes(pr.f, "/"); err != nil {
			return false, err
		}
	}
	pr.got, pr.open = append(pr.got, g), append(pr.open, 0)
	groups := map[string]h5.ID{"/": pr.f}
	defer func() {
		for p, id := range groups {
			if p != "/" {
				h5.CloseGroup(id)
			}
		}
	}()
	for _, r := range pr.ref[1:] {
		loc, ok := groups[path.Dir(r.path)]
		if !ok {
			return false, nil
		}
		name := path.Base(r.path)
		if r.dataset {
			stat := func(d h5.ID) (bool, bool, error) {
				st, err := h5.ObjectStat(d)
				return err == nil && mine(st, r.path, false), st.Attrs > 0, err
			}
			if ok, err := pr.dataset(loc, name, r.path, r, true, false, stat); !ok || err != nil {
				return false, nil // an error here is the visit's to report
			}
			continue
		}
		id, err := h5.OpenGroup(loc, name)
		if err != nil {
			return false, nil
		}
		groups[r.path] = id
		st, err := h5.ObjectStat(id)
		if err != nil || !mine(st, r.path, true) {
			return false, nil
		}
		g := object{path: r.path}
		if st.Attrs > 0 || len(r.info.Attrs) > 0 {
			if g.info.Attrs, err = h5.Attributes(id, r.path); err != nil {
				return false, nil
			}
		}
		pr.got, pr.open = append(pr.got, g), append(pr.open, 0)
	}
	return true, nil
}

// visit probes the objects a visit of the input finds, in Walk's order.
func (pr *probe) visit() error {
	objs, err := h5.Walk(pr.f)
	if err != nil {
		return err
	}
	g := object{path: "/"}
	if g.info.Attrs, err = h5.Attributes(pr.f, "/"); err != nil {
		return err
	}
	pr.got, pr.open = append(pr.got, g), append(pr.open, 0)
	var at map[string]int // the reference's objects by path, when the orders differ
	for k, o := range objs {
		// The reference in the same order (the first check) or found by path.
		r, ok := object{}, false
		if k+1 < len(pr.ref) && pr.ref[k+1].path == o.Path {
			r, ok = pr.ref[k+1], true
		} else {
			if at == nil {
				at = make(map[string]int, len(pr.ref))
				for i, x := range pr.ref {
					at[x.path] = i
				}
			}
			var i int
			if i, ok = at[o.Path]; ok {
				r = pr.ref[i]
			}
		}
		if o.Dataset {
			if _, err := pr.dataset(pr.f, o.Path, o.Path, r, ok, o.Attrs, nil); err != nil {
				return err
			}
			continue
		}
		g := object{path: o.Path}
		if o.Attrs || len(r.info.Attrs) > 0 {
			if g.info, err = h5.Describe(pr.f, o.Path, false); err != nil {
				return err
			}
		}
		pr.got, pr.open = append(pr.got, g), append(pr.open, 0)
	}
	return nil
}

// closeDatasets closes the open datasets of ids (0 entries skipped) and zeroes them.
func closeDatasets(ids []h5.ID) error {
	var first error
	for k, d := range ids {
		if d > 0 {
			if err := h5.CloseDataset(d); first == nil {
				first = err
			}
			ids[k] = 0
		}
	}
	return first
}

// checkReference refuses what cannot be concatenated row-wise: scalar datasets,
// variable-length types, virtual datasets, and (with the partition key) an existing object
// of the key's name.
func checkReference(ref []object, key bool) error {
	for _, o := range ref {
		if key && path.Base(o.path) == KeyName {
			return fmt.Errorf("%s: the partition key %s would replace it", o.path, KeyName)
		}
		if !o.dataset {
			continue
		}
		switch {
		case len(o.info.Dims) == 0:
			return fmt.Errorf("dataset %s is scalar: only datasets with rows can be concatenated", o.path)
		case o.info.Type.VarLen:
			return fmt.Errorf("dataset %s has a variable-length type (%s): not supported", o.path, o.info.Type.Desc)
		case o.info.Layout != h5.LayoutCompact && o.info.Layout != h5.LayoutContiguous && o.info.Layout != h5.LayoutChunked:
			return fmt.Errorf("dataset %s has a %s layout: not supported", o.path, o.info.Layout)
		}
	}
	return nil
}

// kind names an object for messages.
func kind(o object) string {
	if o.dataset {
		return "dataset"
	}
	return "group"
}

// compareSchema returns the first difference of got from ref (both in Walk's order) or nil:
// the objects, their kinds, the datasets' types, ranks and non-concatenated extents, and
// the attributes' names, types and extents (attribute values may differ: the output takes
// the first input's).
func compareSchema(ref, got []object) error {
	gi := map[string]int{}
	for i, o := range got {
		gi[o.path] = i
	}
	for _, r := range ref {
		i, ok := gi[r.path]
		if !ok {
			return fmt.Errorf("%s %s is missing", kind(r), r.path)
		}
		if err := compareObject(r, got[i]); err != nil {
			return err
		}
	}
	if len(got) > len(ref) {
		ri := map[string]bool{}
		for _, r := range ref {
			ri[r.path] = true
		}
		for _, g := range got {
			if !ri[g.path] {
				return fmt.Errorf("%s %s is not in the first input", kind(g), g.path)
			}
		}
	}
	return nil
}

func compareObject(r, g object) error {
	if r.dataset != g.dataset {
		return fmt.Errorf("%s is a %s, in the first input a %s", g.path, kind(g), kind(r))
	}
	if r.dataset {
		ri, gi := r.info, g.info
		if !slices.Equal(ri.Type.Enc, gi.Type.Enc) {
			return fmt.Errorf("dataset %s: type %s, in the first input %s", g.path, gi.Type.Desc, ri.Type.Desc)
		}
		if len(ri.Dims) != len(gi.Dims) {
			return fmt.Errorf("dataset %s: rank %d, in the first input %d", g.path, len(gi.Dims), len(ri.Dims))
		}
		if len(ri.Dims) > 0 && !slices.Equal(ri.Dims[1:], gi.Dims[1:]) {
			return fmt.Errorf("dataset %s: shape %v, in the first input %v (only the first dimension may differ)", g.path, gi.Dims, ri.Dims)
		}
	}
	ga := map[string]h5.AttrInfo{}
	for _, a := range g.info.Attrs {
		ga[a.Name] = a
	}
	for _, ra := range r.info.Attrs {
		a, ok := ga[ra.Name]
		switch {
		case !ok:
			return fmt.Errorf("%s %s: attribute %q is missing", kind(g), g.path, ra.Name)
		case !slices.Equal(ra.Type.Enc, a.Type.Enc):
			return fmt.Errorf("%s %s: attribute %q: type %s, in the first input %s", kind(g), g.path, ra.Name, a.Type.Desc, ra.Type.Desc)
		case !slices.Equal(ra.Dims, a.Dims):
			return fmt.Errorf("%s %s: attribute %q: shape %v, in the first input %v", kind(g), g.path, ra.Name, a.Dims, ra.Dims)
		}
		delete(ga, ra.Name)
	}
	for _, a := range g.info.Attrs {
		if _, extra := ga[a.Name]; extra {
			return fmt.Errorf("%s %s: attribute %q is not in the first input", kind(g), g.path, a.Name)
		}
	}
	return nil
}
