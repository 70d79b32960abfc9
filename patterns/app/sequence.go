package app

import (
	pathpkg "path"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// callOrder is the order of an action's calls under hold: action (the file's handles key's
// sequence and close, desc.Handles).
type callOrder struct {
	// byCall: every create and open first, then every transfer, then the closes
	// (sequence: by_call); else each dataset's calls before the next's (by_object).
	byCall bool
	// close is "auto", "forward" or "reverse".
	close string
}

// sequenceOf evaluates a file's handles key's sequence and close; checkSequence has
// validated them.
func sequenceOf(f *desc.File) callOrder {
	h := f.Handles
	return callOrder{byCall: strings.EqualFold(h.Sequence.Text, "by_call"), close: strings.ToLower(h.Close.Text)}
}

// checkSequence rejects sequence and close under hold: call: there each object is closed
// right after its one call.
func checkSequence(f *desc.File) error {
	h := f.Handles
	if !strings.EqualFold(h.Hold.Text, "call") {
		return nil
	}
	for _, c := range []struct {
		v   desc.Value
		def string
	}{{h.Sequence, "by_object"}, {h.Close, "auto"}} {
		if !strings.EqualFold(c.v.Text, c.def) {
			return &desc.Error{Pos: c.v.Pos, Key: c.v.Path, Value: c.v.Text,
				Reason: "an order of an action's calls or closes while the code opens and closes each object for each call (hold: call)", Allowed: c.def + ", or hold: action with it"}
		}
	}
	return nil
}

// sequence rearranges the calls an action planned from s.cur.Ops[mark] on, before its
// closes, and the datasets and groups it will close (closed by the callers last to
// first: datasets then groups), as the file's sequence and close say. read: the action
// is a read (closes its datasets first to last today, its groups last to first).
func (s *sim) sequence(in *instance, a *desc.Action, mark int, datasets, groups []string, read bool) {
	sq := sequenceOf(in.file)
	if sq.byCall {
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
	case sq.close == "forward":
		if !read {
			slices.Reverse(datasets)
		}
		slices.Reverse(groups)
	case sq.close == "reverse" && read:
		slices.Reverse(datasets)
	}
}
