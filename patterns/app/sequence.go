package app

import (
	pathpkg "path"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// checkSequence rejects the sequences and closes the file's hold does not allow: by_call,
// by_group and an order of closes under hold: call (each object is closed right after its
// one call), depth_first under hold: action (the objects stay open for the action), and an
// order of closes with by_group (each object is closed after its members).
func checkSequence(f *desc.File) error {
	h := f.Handles
	seq := strings.ToLower(h.Sequence.Text)
	if seq != "depth_first" {
		if a := earlyAttribute(f.Attributes, &f.Content); a != nil {
			return &desc.Error{Pos: a.Early.Pos, Key: a.Early.Path, Value: a.Early.Text,
				Reason: "an attribute written early in a file whose handles sequence is " + h.Sequence.Text + " (attributes are written at their object's creation)", Allowed: "false, or handles sequence: depth_first"}
		}
	}
	if !strings.EqualFold(h.Hold.Text, "call") {
		if seq == "depth_first" {
			return &desc.Error{Pos: h.Sequence.Pos, Key: h.Sequence.Path, Value: h.Sequence.Text,
				Reason: "openPMD-api's flush order, each object's attributes after its members, while the code holds its objects open for the action (hold: " + h.Hold.Text + ")", Allowed: "hold: call with it, or by_object, by_call, by_group"}
		}
		if seq == "by_group" && !strings.EqualFold(h.Close.Text, "auto") {
			return &desc.Error{Pos: h.Close.Pos, Key: h.Close.Path, Value: h.Close.Text,
				Reason: "an order of the closes at the action's end under sequence: by_group, which closes each dataset after its write and each group after its members", Allowed: "auto with by_group"}
		}
		return nil
	}
	for _, c := range []struct {
		v       desc.Value
		bad     bool
		allowed string
	}{{h.Sequence, seq == "by_call" || seq == "by_group", "by_object, depth_first, or hold: action"}, {h.Close, !strings.EqualFold(h.Close.Text, "auto"), "auto, or hold: action"}} {
		if c.bad {
			return &desc.Error{Pos: c.v.Pos, Key: c.v.Path, Value: c.v.Text,
				Reason: "an order of an action's calls or closes while the code opens and closes each object for each call (hold: call)", Allowed: c.allowed}
		}
	}
	return nil
}

// earlyAttribute returns the first attribute set early among as and a content's
// groups' and datasets' (nil when none is).
func earlyAttribute(as []*desc.Attribute, c *desc.Content) *desc.Attribute {
	for _, a := range as {
		if e, _ := strconv.ParseBool(a.Early.Text); e {
			return a
		}
	}
	for _, d := range c.Datasets {
		if a := earlyAttribute(d.Attributes, &desc.Content{}); a != nil {
			return a
		}
	}
	for _, g := range c.Groups {
		if a := earlyAttribute(g.Attributes, &g.Content); a != nil {
			return a
		}
	}
	return nil
}

// sequence rearranges the calls an action planned from s.cur.Ops[mark] on, before its
// closes, and returns the datasets and groups it leaves to close (closed by the callers
// last to first: datasets then groups), as the file's sequence and close say. read: the
// action is a read (closes its datasets first to last today, its groups last to first).
func (s *sim) sequence(in *instance, a *desc.Action, mark int, datasets, groups []string, read bool) ([]string, []string) {
	h := handlesOf(in.file)
	if h.byGroup && !read {
		s.byGroup(mark, datasets, groups, in.parallel)
		return nil, nil
	}
	if h.depthFirst && !read {
		s.depthFirst(in, mark)
	}
	if h.byCall {
		// Within the creates and opens, and within the transfers, the groups' calls come
		// first (planned first), then the datasets' in the action's list order.
		rank := func(o plan.Op) int {
			if o.Kind == plan.CreateGroup || o.Kind == plan.OpenGroup || slices.Contains(groups, o.Path) {
				return -1
			}
			return slices.IndexFunc(a.Datasets, func(v desc.Value) bool {
				t := strings.TrimPrefix(v.Text, "/")
				return t == strings.TrimPrefix(o.Path, "/") || t == pathpkg.Base(o.Path)
			})
		}
		transfer := func(o plan.Op) bool {
			return o.Kind == plan.Write || o.Kind == plan.Read || o.Kind == plan.ExtendDataset
		}
		slices.SortStableFunc(s.cur.Ops[mark:], func(x, y plan.Op) int {
			if tx, ty := transfer(x), transfer(y); tx != ty {
				if tx {
					return 1
				}
				return -1
			}
			return rank(x) - rank(y)
		})
		slices.SortStableFunc(datasets, func(x, y string) int {
			return rank(plan.Op{Path: x}) - rank(plan.Op{Path: y})
		})
	}
	// The callers close datasets last to first for a write, first to last for a read,
	// and groups last to first.
	switch {
	case h.close == "forward":
		if !read {
			slices.Reverse(datasets)
		}
		slices.Reverse(groups)
	case h.close == "reverse" && read:
		slices.Reverse(datasets)
	}
	return datasets, groups
}

// byGroup reorders a write's operations from s.cur.Ops[mark] on group by group (sequence:
// by_group): the file's own operations (attributes) first, then the root's datasets in
// the action's order, each closed after its write, then for each group in the action's
// order its own (create or open, attributes), each of its datasets' (create or open,
// attributes, extension, write) followed by the dataset's close, its subgroups', and the
// group's close. datasets and groups are what the action leaves open to close (kept
// extendible datasets stay open, as under the other sequences); coll: the closes are
// collective (a parallel file).
func (s *sim) byGroup(mark int, datasets, groups []string, coll bool) {
	byPath := map[string][]plan.Op{}
	var front []plan.Op
	isGroup := map[string]bool{}
	for _, g := range groups {
		isGroup[g] = true
	}
	closes := map[string]bool{}
	for _, d := range datasets {
		closes[d] = true
	}
	// The group a dataset's operations go with: its parent, when the action holds it.
	owner := func(path string) string {
		if isGroup[path] {
			return path
		}
		if p := pathpkg.Dir(path); isGroup[p] {
			return p
		}
		return ""
	}
	var order []string // the datasets in planned order, by group
	seen := map[string]bool{}
	for _, o := range s.cur.Ops[mark:] {
		if o.Path == "/" || o.Path == "" { // the file's attributes
			front = append(front, o)
			continue
		}
		if !seen[o.Path] {
			seen[o.Path] = true
			order = append(order, o.Path)
		}
		byPath[o.Path] = append(byPath[o.Path], o)
	}
	out := append([]plan.Op(nil), front...)
	emitDataset := func(d string) {
		out = append(out, byPath[d]...)
		if closes[d] {
			ops := byPath[d]
			out = append(out, plan.Op{Kind: plan.CloseDataset, Path: d, Collective: coll, Step: ops[0].Step})
		}
	}
	for _, d := range order { // the root's datasets
		if !isGroup[d] && owner(d) == "" {
			emitDataset(d)
		}
	}
	var stack []string // the groups open, outermost first
	closeGroup := func() {
		g := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		c := plan.Op{Kind: plan.CloseGroup, Path: g, Collective: coll}
		if op := byPath[g]; len(op) > 0 {
			c.Step = op[0].Step
		}
		out = append(out, c)
	}
	for _, g := range groups {
		for len(stack) > 0 && !strings.HasPrefix(g, stack[len(stack)-1]+"/") {
			closeGroup()
		}
		out = append(out, byPath[g]...)
		stack = append(stack, g)
		for _, d := range order {
			if !isGroup[d] && owner(d) == g {
				emitDataset(d)
			}
		}
	}
	for len(stack) > 0 {
		closeGroup()
	}
	s.cur.Ops = append(s.cur.Ops[:mark], out...)
}

// block is a run of an action's operations on one object under hold: call: its creation
// (with the parent's open and close around it), one attribute through H5Oopen, or one
// write (the dataset's open, extension, transfer, close).
type block struct {
	ops  []plan.Op
	path string
	kind byte   // 'c' creation, 'a' attribute, 'w' write
	attr string // the attribute's name
}

// blocks splits ops (planned under hold: call) into blocks.
func blocks(ops []plan.Op) []block {
	var bs []block
	// through returns the index of the first non-H5Oopen close of path from j on.
	through := func(j int, path string) int {
		for k := j; k < len(ops); k++ {
			if o := ops[k]; !o.AsObject && o.Path == path && (o.Kind == plan.CloseGroup || o.Kind == plan.CloseDataset) {
				return k
			}
		}
		return len(ops) - 1
	}
	for i := 0; i < len(ops); {
		o, end, b := ops[i], i, block{path: ops[i].Path, kind: 'w'}
		switch {
		case o.AsObject && i+2 < len(ops) && ops[i+1].Attribute != nil:
			end, b.kind, b.attr = i+2, 'a', ops[i+1].Attribute.Name
		case o.Kind == plan.OpenGroup && i+1 < len(ops) && (ops[i+1].Kind == plan.CreateGroup || ops[i+1].Kind == plan.CreateDataset):
			end, b.kind, b.path = through(i+1, o.Path), 'c', ops[i+1].Path
		case o.Kind == plan.CreateGroup || o.Kind == plan.CreateDataset:
			end, b.kind = through(i, o.Path), 'c'
		case o.Kind == plan.OpenDataset:
			end = through(i, o.Path)
		}
		b.ops = ops[i : end+1]
		bs = append(bs, b)
		i = end + 1
	}
	return bs
}

// depthFirst reorders the operations a hold: call write planned from ops[mark] on (and
// the file's attributes just before, when the action created the file) as openPMD-api
// flushes (sequence: depth_first): from the root group, each object's members in name
// order, groups and datasets together, each created, a dataset's data written, then its
// attributes after its members' (the early ones right after its creation), the file's
// last.
func (s *sim) depthFirst(in *instance, mark int) {
	start := mark
	for start >= 3 && s.cur.Ops[start-1].AsObject && s.cur.Ops[start-1].Path == "/" {
		start -= 3
	}
	vs, groups, err := s.collect(&in.file.Content, "/")
	if err != nil { // the write evaluated the same names: not reached
		return
	}
	early := map[string]bool{} // PATH@NAME
	members := map[string][]string{}
	note := func(path string, as []*desc.Attribute) {
		for _, a := range as {
			if e, _ := strconv.ParseBool(a.Early.Text); e {
				early[path+"@"+a.Name] = true
			}
		}
		if path != "/" {
			members[pathpkg.Dir(path)] = append(members[pathpkg.Dir(path)], path)
		}
	}
	note("/", in.file.Attributes)
	for _, g := range groups {
		note(g.path, g.g.Attributes)
	}
	for _, v := range vs {
		note(v.path, v.ds.Attributes)
	}
	byPath := map[string][]block{}
	for _, b := range blocks(s.cur.Ops[start:]) {
		byPath[b.path] = append(byPath[b.path], b)
	}
	out := make([]plan.Op, 0, len(s.cur.Ops)-start)
	var emit func(path string)
	take := func(path string, pick func(block) bool) {
		for _, b := range byPath[path] {
			if pick(b) {
				out = append(out, b.ops...)
			}
		}
	}
	emit = func(path string) {
		isEarly := func(b block) bool { return b.kind == 'a' && early[path+"@"+b.attr] }
		take(path, func(b block) bool { return b.kind == 'c' })
		take(path, isEarly)
		take(path, func(b block) bool { return b.kind == 'w' })
		ms := members[path]
		slices.Sort(ms)
		for _, m := range ms {
			emit(m)
		}
		take(path, func(b block) bool { return b.kind == 'a' && !isEarly(b) })
		delete(byPath, path)
	}
	emit("/")
	if len(out) == len(s.cur.Ops)-start { // else an operation on no object of the file: kept as planned
		copy(s.cur.Ops[start:], out)
	}
}
