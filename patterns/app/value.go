package app

import (
	"path"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// literals lists a literal value's elements: a list's, or the value alone.
func literals(v desc.Value) []desc.Value {
	if v.Set && v.List == nil {
		return []desc.Value{v}
	}
	return v.List
}

// literalWidth sizes t to its literal values vals when its plan elements have no size of
// their own: variable-length strings and references (whose elements are the targets'
// paths) as long as the longest value, so none is cut (N of vstrN sizes generated values
// only), expressions evaluated.
func literalWidth(t plan.Type, vals []desc.Value, sc *desc.Scope) (plan.Type, error) {
	if !t.VarLen && t.Class != plan.Reference || len(vals) == 0 {
		return t, nil
	}
	t.Size = 1
	for _, v := range vals {
		s := v.Text
		if isExpr(s) {
			var err error
			if s, err = sc.Text(v); err != nil {
				return t, err
			}
		}
		t.Size = max(t.Size, len(s))
	}
	return t, nil
}

// valueType is dataset ds's type t sized to its literal value (ds.Value), which a
// dataset of references needs: references have no other contents.
func valueType(ds *desc.Dataset, t plan.Type, sc *desc.Scope) (plan.Type, error) {
	if !ds.Value.Set {
		if t.Class == plan.Reference {
			return t, errAt(ds.Type, "a dataset of references without its targets", "value: the targets' paths, one per element (ref: /group/dataset; regref: /dataset[START:END,...])")
		}
		return t, nil
	}
	if ds.Extend.Set {
		return t, errAt(ds.Extend, "a dataset with a literal value does not grow", "value on a dataset written whole, without extend")
	}
	return literalWidth(t, literals(ds.Value), sc)
}

// literalData encodes dataset ds's literal value as the bytes of one whole write of its
// n elements of type t (sized by valueType).
func literalData(ds *desc.Dataset, t plan.Type, n uint64, sc *desc.Scope) ([]byte, error) {
	vals := literals(ds.Value)
	if uint64(len(vals)) != n {
		return nil, errAt(ds.Value, "%d values for the %d elements of %s", "one value per element, in row-major order", len(vals), n, ds.Name)
	}
	buf := make([]byte, n*uint64(t.Size))
	for i, v := range vals {
		if t.Class == plan.Reference && isExpr(v.Text) { // a target's path, as valueType sized it
			s, err := sc.Text(v)
			if err != nil {
				return nil, err
			}
			v.Text = s
		}
		if err := encodeElement(t, buf[i*t.Size:(i+1)*t.Size], v, sc); err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// literal gives write t of dataset v its literal contents (v.ds.Value) on the ranks that
// select them; a dataset of region references needs a file opened without MPI-IO.
func (s *sim) literal(in *instance, v visit, sp *dsSpec, t *plan.Transfer) error {
	if !v.ds.Value.Set {
		return nil
	}
	if sp.mem.Class == plan.Reference && sp.mem.Region && in.parallel {
		return errAt(v.ds.Value, "dataset %s of region references in file %s, which %d ranks share through MPI-IO: parallel HDF5 writes no region references so (HDF5 1.10 and 1.14, H5Dwrite: \"Parallel IO does not support writing VL or region reference datatypes yet\")",
			"the file written without MPI-IO (writer: rank0, or ranks: 1), or type: ref (object references)", v.path, in.path, s.env.Size)
	}
	// Every rank checks the value (an error on one rank alone would leave the others
	// waiting); the ranks that select the elements write it.
	data, err := literalData(v.ds, sp.mem, plan.Product(sp.shape), s.sc)
	if err != nil {
		return err
	}
	if sp.mem.Class == plan.Reference {
		for i := range len(data) / sp.mem.Size {
			target := strings.TrimRight(string(data[i*sp.mem.Size:(i+1)*sp.mem.Size]), "\x00")
			if j := strings.IndexByte(target, '['); j >= 0 {
				target = target[:j]
			}
			if !s.created[in.path][path.Clean(target)] {
				return errAt(v.ds.Value, "dataset %s's reference to %s: no write of file %s creates %s before it", "paths of groups and datasets the file's writes create, in this action or before", v.path, target, in.path, target)
			}
		}
	}
	if !t.Selection.IsNone() {
		t.Data = data
	}
	return nil
}

// refsLast orders an action's datasets for writing: datasets of references, whose
// targets must exist when H5Rcreate makes them, after the others (as a program writes
// its table of references after what it points to), and after the datasets of references
// they name; otherwise in their listed order.
func refsLast(vs []visit) []visit {
	isRef := func(v visit) bool { return v.ds.Value.Set && refNamedText(v.ds.Type.Text) }
	out := make([]visit, 0, len(vs))
	var refs []visit
	for _, v := range vs {
		if isRef(v) {
			refs = append(refs, v)
		} else {
			out = append(out, v)
		}
	}
	// names reports whether v's value names a dataset of references still to place.
	names := func(v visit, left []visit) bool {
		for _, x := range literals(v.ds.Value) {
			target, _, _ := strings.Cut(strings.TrimSpace(x.Text), "[")
			for _, o := range left {
				if o.path != v.path && path.Clean(target) == o.path {
					return true
				}
			}
		}
		return false
	}
	for len(refs) > 0 {
		i := slices.IndexFunc(refs, func(v visit) bool { return !names(v, refs) })
		if i < 0 { // a cycle: the listed order (the write names the missing target)
			i = 0
		}
		out = append(out, refs[i])
		refs = slices.Delete(refs, i, i+1)
	}
	return out
}

// refNamedText reports a reference type's name (ref, regref).
func refNamedText(name string) bool {
	_, ok := refNamed(strings.TrimSpace(name))
	return ok
}
