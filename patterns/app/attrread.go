package app

import (
	"path"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// attrKey names an attribute of a file: the object it hangs on and its name.
type attrKey struct{ object, name string }

// wroteAttribute records the attribute spec written on object of the file at file: the
// value a later read of it is verified against (the last write wins).
func (s *sim) wroteAttribute(file, object string, spec *plan.AttributeSpec) {
	if s.attrs[file] == nil {
		s.attrs[file] = map[attrKey]*plan.AttributeSpec{}
	}
	s.attrs[file][attrKey{path.Clean("/" + object), spec.Name}] = spec
}

// noteAttributes records the attributes as of object of the file at file that another
// rank writes (a serial creation's, rank 0's), as if this rank had written them: every
// rank reads them back.
func (s *sim) noteAttributes(file, object string, as []*desc.Attribute, step int) error {
	for _, a := range as {
		spec, err := s.e.attribute(a, object, s.sc, step)
		if err != nil {
			return err
		}
		s.wroteAttribute(file, object, spec)
	}
	return nil
}

// readAttributes plans a read action's attribute reads (its attributes key), before its
// datasets, as a restart reads a file's header: each attribute of the root group read
// through the file, each of another group or a dataset with that object opened around it
// (H5Gopen2 or H5Dopen2 ... H5Gclose or H5Dclose, unless the file holds it open), and each
// read with the type and shape it was written with and verified against its value.
func (s *sim) readAttributes(in *instance, a *desc.Action, step int) error {
	for _, v := range a.Attributes {
		obj, name := "/", strings.TrimSpace(v.Text)
		if i := strings.LastIndex(name, "/"); i >= 0 {
			obj, name = path.Clean("/"+name[:i]), name[i+1:]
		}
		if name == "" {
			return errAt(v, "no attribute name", "NAME (the root group's) or PATH/NAME (the group's or dataset's at PATH)")
		}
		spec := s.attrs[in.path][attrKey{obj, name}]
		if spec == nil {
			return errAt(v, "attribute %q of %s in %s has not been written before this read", "an attribute declared on the file's root, a group or a dataset, written before the read", name, obj, in.path)
		}
		if t := spec.Type; t.VarLen || t.HasVarLen() || t.Class == plan.Reference {
			return errAt(v, "attribute %q is of type %s: a read verifies fixed-size values only", "an attribute of a fixed-size type without references (no vstr, ref or regref)", name, t)
		}
		open, close := plan.OpenGroup, plan.CloseGroup
		if s.specs[in.path][obj] != nil {
			open, close = plan.OpenDataset, plan.CloseDataset
		}
		hold := obj == "/" || in.isKept(obj)
		if !hold {
			s.cur.Add(plan.Op{Kind: open, Path: obj, Collective: in.parallel, CollMetadata: in.objCollMeta(), Step: step})
		}
		read := *spec
		s.cur.Add(plan.Op{Kind: plan.ReadAttribute, Path: obj, Collective: in.parallel, Step: step, Attribute: &read})
		if !hold {
			s.cur.Add(plan.Op{Kind: close, Path: obj, Collective: in.parallel, Step: step})
		}
	}
	return nil
}
