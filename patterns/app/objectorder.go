package app

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// A file's object_order (desc/objectorder.go): the order the program creates the file's
// groups and datasets in. A write action creates its objects in that order, and with
// them every object listed before its last creation that does not exist yet (as a write
// would create it, unwritten: the program created it there and writes it later). Only
// the creations are put in order: the writes of objects created earlier, the links,
// reference attributes, scales and closes keep their places.

// templatePaths lists the paths of a content's groups and datasets as the description
// writes them (names as templates), by kind.
func templatePaths(c *desc.Content, parent string, out map[string]string) {
	for _, ds := range c.Datasets {
		out[path.Join(parent, ds.Name)] = "dataset"
	}
	for _, g := range c.Groups {
		gp := path.Join(parent, g.Name.Text)
		out[gp] = "group"
		templatePaths(&g.Content, gp, out)
	}
}

// checkObjectOrder rejects an object_order entry that names no group or dataset of the
// file, or one named twice, and an object_order with the handles that order an action's
// calls themselves (hold: call, or a sequence other than by_object); and dims_at without
// dims.
func checkObjectOrder(f *desc.File) error {
	if err := checkDimsAt(&f.Content); err != nil {
		return err
	}
	if len(f.ObjectOrder) == 0 {
		return nil
	}
	h := f.Handles
	first := f.ObjectOrder[0]
	if strings.EqualFold(h.Hold.Text, "call") || h.Sequence.Set && !strings.EqualFold(h.Sequence.Text, "by_object") {
		return &desc.Error{Pos: first.Pos, Key: first.Path, Value: first.Text,
			Reason:  fmt.Sprintf("an order of the file's creations while its handles order an action's calls themselves (hold: %s, sequence: %s)", h.Hold.Text, h.Sequence.Text),
			Allowed: "handles hold: action or file with sequence: by_object, or no object_order"}
	}
	known := map[string]string{}
	templatePaths(&f.Content, "/", known)
	seen := map[string]bool{}
	for _, v := range f.ObjectOrder {
		p := path.Join("/", strings.TrimSpace(v.Text))
		if known[p] == "" {
			return errAt(v, "no group or dataset of file %s has this path", "an absolute path of one of the file's groups or datasets, as its names are written (templates included)", f.ID)
		}
		if seen[p] {
			return errAt(v, "named twice in file %s's object_order", "each group or dataset once", f.ID)
		}
		if slices.ContainsFunc(f.ObjectOrder, func(o desc.Value) bool { return path.Join("/", strings.TrimSpace(o.Text)) == path.Dir(p) }) && !seen[path.Dir(p)] {
			return errAt(v, "listed before its group "+path.Dir(p)+" in file "+f.ID+"'s object_order", "a group before its members")
		}
		seen[p] = true
	}
	return nil
}

// checkDimsAt rejects dims_at on a dataset without dims.
func checkDimsAt(c *desc.Content) error {
	for _, d := range c.Datasets {
		if d.DimsAt.Set && len(d.Dims) == 0 {
			return errAt(d.DimsAt, "dataset %s: when its dimension scales are attached, but it has no dims key", "dims: [...] beside it", d.Name)
		}
	}
	for _, g := range c.Groups {
		if err := checkDimsAt(&g.Content); err != nil {
			return err
		}
	}
	return nil
}

// objectRanks evaluates file f's object_order at the current step: each object's path
// to its place (nil without object_order).
func (s *sim) objectRanks(f *desc.File) (map[string]int, error) {
	if len(f.ObjectOrder) == 0 {
		return nil, nil
	}
	out := make(map[string]int, len(f.ObjectOrder))
	for i, v := range f.ObjectOrder {
		t, err := s.sc.Text(v)
		if err != nil {
			return nil, err
		}
		out[path.Join("/", strings.TrimSpace(t))] = i
	}
	return out, nil
}

// rankOf is an object's place in the object order: the unlisted after every listed one.
func rankOf(ranks map[string]int, p string) int {
	if r, ok := ranks[p]; ok {
		return r
	}
	return len(ranks)
}

// orderVisits puts the datasets of vs not created yet in the object order, in the places
// they hold among vs (those created before keep theirs).
func orderVisits(vs []visit, created map[string]bool, ranks map[string]int) []visit {
	if ranks == nil {
		return vs
	}
	out := slices.Clone(vs)
	var slots []int
	var fresh []visit
	for i, v := range out {
		if !created[v.path] {
			slots = append(slots, i)
			fresh = append(fresh, v)
		}
	}
	slices.SortStableFunc(fresh, func(a, b visit) int { return rankOf(ranks, a.path) - rankOf(ranks, b.path) })
	for k, i := range slots {
		out[i] = fresh[k]
	}
	return out
}

// lastCreate is the highest place in the object order among the datasets of vs the
// action creates (want: the action writes it) and the groups it creates (-1: none).
func lastCreate(vs []visit, made []string, created map[string]bool, ranks map[string]int, want func(visit) bool) int {
	last := -1
	for _, v := range vs {
		if r, ok := ranks[v.path]; ok && !created[v.path] && want(v) {
			last = max(last, r)
		}
	}
	for _, g := range made {
		if r, ok := ranks[g]; ok {
			last = max(last, r)
		}
	}
	return last
}

// orderCreations reorders the operations from s.cur.Ops[mark] on that belong to the
// objects made (created by the action: their creates, attributes, scales and writes) by
// their places in the object order, each object's own operations kept in order, in the
// places those operations hold: the other operations keep theirs.
func (s *sim) orderCreations(mark int, made map[string]bool, ranks map[string]int) {
	if ranks == nil || len(made) == 0 {
		return
	}
	ops := s.cur.Ops[mark:]
	var slots []int
	var moved []plan.Op
	for i, o := range ops {
		if made[o.Path] {
			slots = append(slots, i)
			moved = append(moved, o)
		}
	}
	slices.SortStableFunc(moved, func(a, b plan.Op) int { return rankOf(ranks, a.Path) - rankOf(ranks, b.Path) })
	for k, i := range slots {
		ops[i] = moved[k]
	}
}
