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
