package app

import (
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// Attribute placement (desc/placement.go): an attribute is written right after its
// object's creation unless its at key places it later: after its dataset became a
// dimension scale (scale), once the action's or the define's creations are done
// (defined), after each write of its dataset and any flush right after it (each_write),
// or right before its file closes (close). Where the object is not open then, the write
// opens it as an object around the attribute (H5Oopen ... H5Oclose), as a code that
// keeps only the file's identifier does.

// placedAttr is an attribute waiting for its place in a file.
type placedAttr struct {
	owner string
	a     *desc.Attribute
	at    string
}

// placeLater records the attributes of owner whose at key places them after its
// creation, and returns those written at it (at: create).
func (s *sim) placeLater(in *instance, owner string, as []*desc.Attribute) []*desc.Attribute {
	var now []*desc.Attribute
	for _, a := range as {
		switch at := a.Placement(); at {
		case desc.AtCreate:
			now = append(now, a)
		case desc.AtEachWrite: // written after its dataset's writes (wrote)
		default:
			if s.placed == nil {
				s.placed = map[string][]placedAttr{}
			}
			s.placed[in.path] = append(s.placed[in.path], placedAttr{owner: owner, a: a, at: at})
		}
	}
	return now
}

// writes is how many times attribute a is written at its place (its writes key).
func (s *sim) writesOf(a *desc.Attribute) (int, error) {
	if !a.Writes.Set {
		return 1, nil
	}
	n, err := s.sc.Int(a.Writes)
	if err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, errAt(a.Writes, "an attribute written %d times", "writes >= 1 (1: written once, the default)", n)
	}
	return n, nil
}

// attributeOps are the operations that write attribute spec on owner n times: the first
// creates it unless the file has it already, each further one opens it and writes it
// again; with reopen each is bracketed by an H5Oopen and H5Oclose of its object.
func (s *sim) attributeOps(in *instance, owner string, spec *plan.AttributeSpec, n, step int, reopen bool) {
	openKind, closeKind := plan.OpenDataset, plan.CloseDataset
	if reopen && s.isGroup(in, owner) {
		openKind, closeKind = plan.OpenGroup, plan.CloseGroup
	}
	for i := range n {
		sp := spec
		if i > 0 || s.attrs[in.path][attrKey{owner, spec.Name}] != nil {
			c := *spec
			c.Exists = true
			sp = &c
		}
		op := plan.Op{Kind: plan.WriteAttribute, Path: owner, Collective: in.parallel, Step: step, Attribute: sp}
		if reopen {
			s.cur.Add(plan.Op{Kind: openKind, Path: owner, Collective: in.parallel, Step: step, AsObject: true, CollMetadata: in.collMeta()},
				op, plan.Op{Kind: closeKind, Path: owner, Collective: in.parallel, Step: step, AsObject: true})
		} else {
			s.cur.Add(op)
		}
		s.wroteAttribute(in.path, owner, spec)
	}
}

// isGroup reports whether path names a group of file in (the root group too).
func (s *sim) isGroup(in *instance, path string) bool {
	if path == "/" {
		return true
	}
	_, groups, err := s.collect(&in.file.Content, "/")
	if err != nil {
		return false
	}
	return slices.ContainsFunc(groups, func(g groupAt) bool { return g.path == path })
}

// writePlaced writes attribute a of owner at its place: on the open object when open
// says it is open (the root group always is, and what the file keeps), else through
// H5Oopen and H5Oclose, one each write.
func (s *sim) writePlaced(in *instance, owner string, a *desc.Attribute, step int, open bool) error {
	return s.writeAttr(in, owner, a, step, !open && owner != "/" && !in.isKept(owner))
}

// writeAttr writes attribute a of owner as many times as its writes key says, each
// through H5Oopen and H5Oclose of the object with reopen.
func (s *sim) writeAttr(in *instance, owner string, a *desc.Attribute, step int, reopen bool) error {
	spec, err := s.e.attribute(a, owner, s.sc, step)
	if err != nil {
		return err
	}
	n, err := s.writesOf(a)
	if err != nil {
		return err
	}
	s.attributeOps(in, owner, spec, n, step, reopen)
	return nil
}

// placedAt writes the attributes of file in waiting for place at (of owner only, when
// owner is not ""), each on its object when open reports it open.
func (s *sim) placedAt(in *instance, at, owner string, step int, open func(string) bool) error {
	var wait []placedAttr
	for _, p := range s.placed[in.path] {
		if p.at != at || owner != "" && p.owner != owner {
			wait = append(wait, p)
			continue
		}
		if err := s.writePlaced(in, p.owner, p.a, step, open(p.owner)); err != nil {
			return err
		}
	}
	if len(s.placed[in.path]) > 0 {
		s.placed[in.path] = wait
	}
	return nil
}

// wrote notes a write of dataset path of file in: its attributes written at each_write
// are due once the write (and any flush right after it) is done.
func (s *sim) wrote(in *instance, path string, ds *desc.Dataset) {
	for _, a := range ds.Attributes {
		if a.Placement() != desc.AtEachWrite {
			continue
		}
		if s.due == nil {
			s.due = map[string][]placedAttr{}
		}
		if !slices.ContainsFunc(s.due[in.path], func(p placedAttr) bool { return p.owner == path && p.a == a }) {
			s.due[in.path] = append(s.due[in.path], placedAttr{owner: path, a: a, at: desc.AtEachWrite})
		}
	}
}

// writeDue writes the attributes due after the writes of file in (at: each_write): at
// the next action naming the file (after it, when it is a flush) or before its close.
// The datasets are closed then unless the file keeps them open.
func (s *sim) writeDue(in *instance, step int) error {
	due := s.due[in.path]
	delete(s.due, in.path)
	for _, p := range due {
		if err := s.writePlaced(in, p.owner, p.a, step, false); err != nil {
			return err
		}
	}
	return nil
}

// scaleAtCreate makes dataset v a dimension scale right after its creation when its
// scale_at says create, then writes its attributes placed at: scale; the dataset is open.
func (s *sim) scaleAtCreate(in *instance, v visit, step int) error {
	if !v.ds.Scale.Set || !v.ds.ScaleAt.Set || !strings.EqualFold(v.ds.ScaleAt.Text, desc.AtCreate) {
		return nil
	}
	name, err := s.sc.Text(v.ds.Scale)
	if err != nil {
		return err
	}
	st := s.scaleStateOf(in.path)
	if st.done["set "+v.path] {
		return nil
	}
	st.done["set "+v.path] = true
	s.cur.Add(plan.Op{Kind: plan.Scale, Path: v.path, Collective: in.parallel, Step: step, Scale: &plan.ScaleSpec{Name: name, Named: name != ""}})
	return s.placedAt(in, desc.AtScale, v.path, step, func(string) bool { return true })
}

// dimsAtCreate attaches dataset v's dims right after its creation when its dims_at says
// create, to the scales that exist then (the others wait for the action's end).
func (s *sim) dimsAtCreate(in *instance, v visit, step int) error {
	if len(v.ds.Dims) == 0 || !strings.EqualFold(v.ds.DimsAt.Text, desc.AtCreate) {
		return nil
	}
	return s.attach(in, v, step)
}

// checkPlacement rejects placements an object cannot have: at: scale on an attribute of
// something that is no dimension scale, at: each_write on one that is not a dataset's,
// scale_at without scale.
func checkPlacement(f *desc.File) error {
	bad := func(as []*desc.Attribute, what string) error {
		for _, a := range as {
			switch a.Placement() {
			case desc.AtScale:
				return errAt(a.At, "attribute %s of %s placed after its dataset becomes a dimension scale, but it is no scale", "create, defined, close, or a scale key on the dataset", a.Name, what)
			case desc.AtEachWrite:
				return errAt(a.At, "attribute %s of %s placed after each write of its dataset, but %s is not a dataset", "create, defined, close (each_write is a dataset's attributes')", a.Name, what, what)
			}
		}
		return nil
	}
	if err := bad(f.Attributes, "file "+f.ID); err != nil {
		return err
	}
	var walk func(c *desc.Content) error
	walk = func(c *desc.Content) error {
		for _, g := range c.Groups {
			if err := bad(g.Attributes, "group "+g.Name.Text); err != nil {
				return err
			}
			if err := walk(&g.Content); err != nil {
				return err
			}
		}
		for _, d := range c.Datasets {
			if d.ScaleAt.Set && !d.Scale.Set {
				return errAt(d.ScaleAt, "dataset %s: when it becomes a dimension scale, but it has no scale key", "scale: NAME beside it", d.Name)
			}
			if d.Scale.Set {
				continue
			}
			for _, a := range d.Attributes {
				if a.Placement() == desc.AtScale {
					return errAt(a.At, "attribute %s of dataset %s placed after it becomes a dimension scale, but it has no scale key", "create, defined, each_write, close, or scale: NAME on the dataset", a.Name, d.Name)
				}
			}
		}
		return nil
	}
	return walk(&f.Content)
}

// placedFor reports whether an attribute of the file at path waits for place at.
func (s *sim) placedFor(path, at string) bool {
	return slices.ContainsFunc(s.placed[path], func(p placedAttr) bool { return p.at == at })
}
