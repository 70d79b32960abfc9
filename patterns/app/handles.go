package app

import (
	pathpkg "path"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// handles is a file's handles key evaluated (desc.Handles): how the code holds the
// identifiers of the groups and datasets it writes.
type handles struct {
	// perCall: each object is closed right after its creation and each write opens its
	// dataset by path (hold: call); else objects stay open for the action (hold: action).
	perCall bool
	// reopen: each attribute of a group or dataset is written through H5Oopen and H5Oclose
	// of its object (attributes: reopen).
	reopen bool
	// parents: groups and datasets are created in their parent group opened by path
	// (open_parents: true).
	parents bool
	// byCall (hold: action): every create and open first, then every transfer, then the
	// closes (sequence: by_call); else each dataset's calls before the next's (by_object).
	byCall bool
	// depthFirst (hold: call): openPMD-api's flush order (sequence: depth_first).
	depthFirst bool
	// byGroup (hold: action, writes): each group with its datasets created, written and
	// closed, then the group closed, before the next group (sequence: by_group).
	byGroup bool
	// close is the order of an action's closes: "auto", "forward" or "reverse".
	close string
	// perFile (hold: file): each group and dataset stays open from its creation (or first
	// open) until its file closes: no reopen at later steps.
	perFile bool
	// reopenSeries (hold: action, series: reopen): a series dataset is closed at the end
	// of each action like any other and opened again at its next write (PETSc's VecView
	// per time step), not kept open until the file closes.
	reopenSeries bool
}

// handlesOf evaluates a file's handles key; checkHandles and checkSequence have
// validated it.
func handlesOf(f *desc.File) handles {
	h := f.Handles
	parents, _ := strconv.ParseBool(h.OpenParents.Text)
	return handles{perCall: strings.EqualFold(h.Hold.Text, "call"), reopen: strings.EqualFold(h.Attributes.Text, "reopen"), parents: parents,
		byCall: strings.EqualFold(h.Sequence.Text, "by_call"), depthFirst: strings.EqualFold(h.Sequence.Text, "depth_first"),
		byGroup: strings.EqualFold(h.Sequence.Text, "by_group"), close: strings.ToLower(h.Close.Text),
		perFile: strings.EqualFold(h.Hold.Text, "file"), reopenSeries: strings.EqualFold(h.Series.Text, "reopen")}
}

// checkHandles rejects the handles keys that need hold: call under hold: action: a code
// holding an object open writes its attributes and creates its children through it.
func checkHandles(f *desc.File) error {
	h := f.Handles
	if strings.EqualFold(h.Series.Text, "reopen") && h.Hold.Set && !strings.EqualFold(h.Hold.Text, "action") {
		return &desc.Error{Pos: h.Series.Pos, Key: h.Series.Path, Value: h.Series.Text,
			Reason:  "series datasets closed at each action's end while the code holds its objects per call or per file (hold: " + h.Hold.Text + "): hold: call reopens every dataset for each write already, hold: file never closes one",
			Allowed: "keep, or hold: action with reopen"}
	}
	if strings.EqualFold(h.Hold.Text, "call") {
		return nil
	}
	if strings.EqualFold(h.Hold.Text, "file") && h.Sequence.Set && !strings.EqualFold(h.Sequence.Text, "by_object") {
		return &desc.Error{Pos: h.Sequence.Pos, Key: h.Sequence.Path, Value: h.Sequence.Text,
			Reason:  "an order of an action's creates, writes and closes while the code holds its objects open until the file closes (hold: file): they are not closed by the action",
			Allowed: "sequence: by_object with hold: file, or hold: action for " + h.Sequence.Text}
	}
	const allowed = "hold: call with it (objects opened for each call), or attributes: object and open_parents: false"
	if strings.EqualFold(h.Attributes.Text, "reopen") {
		return &desc.Error{Pos: h.Attributes.Pos, Key: h.Attributes.Path, Value: h.Attributes.Text,
			Reason: "attributes reopened with H5Oopen while the code holds their object open (hold: " + h.Hold.Text + ")", Allowed: allowed}
	}
	if p, _ := strconv.ParseBool(h.OpenParents.Text); p {
		return &desc.Error{Pos: h.OpenParents.Pos, Key: h.OpenParents.Path, Value: h.OpenParents.Text,
			Reason: "parent groups opened around each create while the code holds them open (hold: " + h.Hold.Text + ")", Allowed: allowed}
	}
	return nil
}

// collMeta reports whether an open file asks for collective metadata reads: the access
// lists of the opens of parent groups and of attributes' objects (hold: call) ask for them
// too, as openPMD-api's do when its collective metadata is on.
func (in *instance) collMeta() bool {
	return in.parallel && strings.EqualFold(in.file.CollectiveMetadata.Text, "true")
}

// createHeld creates the group or dataset of op under hold: call: in its parent group
// opened by path when open_parents is set (H5Gopen2, the create by name in it, H5Gclose),
// closed right after,
// its attributes written on it before the close, or, with attributes: reopen, after it,
// each through its own H5Oopen and H5Oclose.
func (s *sim) createHeld(in *instance, h handles, op plan.Op, as []*desc.Attribute) error {
	closeKind := plan.CloseDataset
	if op.Kind == plan.CreateGroup {
		closeKind = plan.CloseGroup
	}
	parent := pathpkg.Dir(op.Path)
	if h.parents { // created in the parent by name, as openPMD-api does
		s.cur.Add(plan.Op{Kind: plan.OpenGroup, Path: parent, Collective: op.Collective, Step: op.Step, CollMetadata: in.collMeta()})
		op.InParent = true
	}
	s.cur.Add(op)
	if !h.reopen {
		if err := s.attributes(in, op.Path, as, op.Step); err != nil {
			return err
		}
	}
	s.cur.Add(plan.Op{Kind: closeKind, Path: op.Path, Collective: op.Collective, Step: op.Step})
	if h.parents {
		s.cur.Add(plan.Op{Kind: plan.CloseGroup, Path: parent, Collective: op.Collective, Step: op.Step})
	}
	if !h.reopen {
		return nil
	}
	return s.reopenAttributes(in, op.Path, as, op.Step)
}

// reopenAttributes writes the attributes of the object at path (a group, the root group
// "/" included, or a dataset) each through its own H5Oopen and H5Oclose of the object, as
// openPMD-api's writeAttribute (attributes: reopen).
// Those placed later wait for their place (placement.go).
func (s *sim) reopenAttributes(in *instance, path string, as []*desc.Attribute, step int) error {
	for _, a := range s.placeLater(in, path, as) {
		if err := s.writeAttr(in, path, a, step, true); err != nil {
			return err
		}
	}
	return nil
}

// fileAttributes writes a created file's attributes: on the file, or with attributes:
// reopen through H5Oopen of its root group, one each.
func (s *sim) fileAttributes(in *instance, step int) error {
	if h := handlesOf(in.file); h.reopen {
		return s.reopenAttributes(in, "/", in.file.Attributes, step)
	}
	return s.attributes(in, "/", in.file.Attributes, step)
}

// heldWrite brackets a write (and a series' extension), planned from ops[mark] on, under
// hold: call: the dataset is opened by path before them and closed after, when the rank
// makes either call. The bracket is collective when the extension or the transfer is
// (H5Dset_extent is called by every rank), else this rank's alone, as openPMD-api's
// writeDataset opens the dataset for each stored chunk.
func (s *sim) heldWrite(in *instance, path string, step, mark int, coll, extend, issued bool) {
	if !extend && !issued {
		return
	}
	c := coll || extend && in.parallel
	s.cur.Ops = slices.Insert(s.cur.Ops, mark, plan.Op{Kind: plan.OpenDataset, Path: path, Collective: c, Step: step})
	s.cur.Add(plan.Op{Kind: plan.CloseDataset, Path: path, Collective: c, Step: step})
}
