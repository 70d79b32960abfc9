package concat

import (
	"fmt"
	"path"
	"slices"

	"github.com/h5proxy/h5proxy/proxy/internal/h5"
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

// probeSchema reads of input f what compareSchema compares with the reference ref, at the
// least cost: each dataset is opened once for its type (as encoded) and extent, attributes
// are described only where the input or the reference has some, creation properties not at
// all (copying a dataset's creation property list costs HDF5 about as much as opening it).
// It returns the objects in Walk's order and, in the same order, the datasets left open
// because keep said so for their extent (0 for the others); on error nothing is left open.
func probeSchema(f h5.ID, ref []object, keep func(dims []uint64) bool) (got []object, open []h5.ID, err error) {
	objs, err := h5.Walk(f)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			closeDatasets(open)
			open = nil
		}
	}()
	got = make([]object, 1, len(objs)+1)
	open = make([]h5.ID, len(objs)+1)
	got[0] = object{path: "/"}
	if got[0].info.Attrs, err = h5.Attributes(f, "/"); err != nil {
		return nil, open, err
	}
	var at map[string]int // the reference's objects by path, when the orders differ
	var enc []byte
	for k, o := range objs {
		// The reference in the same order as got (the first check) or found by path.
		r, ok := object{}, false
		if k+1 < len(ref) && ref[k+1].path == o.Path {
			r, ok = ref[k+1], true
		} else {
			if at == nil {
				at = make(map[string]int, len(ref))
				for i, x := range ref {
					at[x.path] = i
				}
			}
			var i int
			if i, ok = at[o.Path]; ok {
				r = ref[i]
			}
		}
		g := object{path: o.Path, dataset: o.Dataset}
		attrs := o.Attrs || len(r.info.Attrs) > 0
		if !o.Dataset {
			if attrs {
				if g.info, err = h5.Describe(f, o.Path, false); err != nil {
					return nil, open, err
				}
			}
			got = append(got, g)
			continue
		}
		d, err := h5.OpenDataset(f, o.Path)
		if err != nil {
			return nil, open, err
		}
		if enc, g.info.Dims, err = h5.Probe(d, enc); err == nil && attrs {
			g.info.Attrs, err = h5.Attributes(d, o.Path)
		}
		if err != nil {
			h5.CloseDataset(d)
			return nil, open, err
		}
		g.info.Type.Enc = r.info.Type.Enc // shared when equal: one allocation less per dataset
		if !ok || !r.dataset || !slices.Equal(enc, r.info.Type.Enc) {
			g.info.Type.Enc = slices.Clone(enc)
		}
		if keep(g.info.Dims) {
			open[len(got)] = d
		} else if err := h5.CloseDataset(d); err != nil {
			return nil, open, err
		}
		got = append(got, g)
	}
	return got, open, nil
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
