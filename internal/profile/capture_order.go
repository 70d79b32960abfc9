package profile

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// orderName is a creation_order value of creation order flags (1 tracked, 2 indexed):
// unset for none.
func orderName(f int) desc.Value {
	switch {
	case f&2 != 0:
		return desc.V("indexed")
	case f&1 != 0:
		return desc.V("tracked")
	}
	return desc.Value{}
}

// creationOrders sets the creation order of file's root group and groups from rank 0's
// H5Fcreate and H5Gcreate2 events of it (the profiler records the flags of their creation
// lists when either is set), whatever the writer. A group made at every step
// (Timestep_${step}) takes its first creation's. It reports whether the trace recorded
// any (a trace of an older profiler records none).
func creationOrders(p *Profile, file string, f *desc.File, stepOf func(string, string) (string, int, bool)) bool {
	found := false
	for _, e := range p.Events {
		if e.Rank != 0 || e.File != file || len(e.CrtOrder) != 2 {
			continue
		}
		ct := &f.Content
		switch {
		case e.Call == "H5Fcreate":
		case groupCreate(e.Call) && e.Object != "":
			t, _, _ := stepOf(file, e.Object+"/x")
			if ct = groupContent(&f.Content, strings.TrimSuffix(t, "/x")); ct == nil {
				continue
			}
		default:
			continue
		}
		if !ct.CreationOrder.Links.Set && !ct.CreationOrder.Attributes.Set {
			ct.CreationOrder = desc.CreationOrder{Links: orderName(e.CrtOrder[0]), Attributes: orderName(e.CrtOrder[1])}
		}
		found = true
	}
	return found
}

// groupContent finds the group at path (its names as the description writes them,
// templates included) under c.
func groupContent(c *desc.Content, path string) *desc.Content {
	for _, name := range strings.Split(strings.Trim(path, "/"), "/") {
		if name == "" {
			return c
		}
		var next *desc.Content
		for _, g := range c.Groups {
			if g.Name.Text == name {
				next = &g.Content
				break
			}
		}
		if next == nil {
			return nil
		}
		c = next
	}
	return c
}

// trackTimes sets file's track_times from rank 0's creates of it: false when the root
// group (H5Fcreate), every group (H5Gcreate2) and every dataset (its record) were created
// with their object times off, as netCDF-4 and h5py create theirs. The key is the file's:
// a file whose objects differ keeps the default and names them as not expressed.
func (c *Description) trackTimes(p *Profile, file string, f *desc.File, fpath string, ds map[string]*capDataset) {
	untimed, all := 0, 0
	for _, e := range p.Events {
		if e.Rank != 0 || e.File != file || (e.Call != "H5Fcreate" && !groupCreate(e.Call)) {
			continue
		}
		all++
		if e.Untimed {
			untimed++
		}
	}
	for _, d := range ds {
		all++
		if d.info.Untimed {
			untimed++
		}
	}
	switch {
	case untimed == 0:
	case untimed == all:
		f.TrackTimes = desc.V("false")
		c.Desc.Comment(fpath+".track_times", "every object created with H5Pset_obj_track_times false")
	default:
		c.unexpressed(fpath, fmt.Sprintf("%d of %d objects created without their times (H5Pset_obj_track_times false): track_times is the whole file's", untimed, all))
	}
}

// objectOrder sets file's object_order from rank 0's creates of it (of its first file when
// it is a file per step; a group or dataset made at every step, Timestep_${step}, at its
// first): the groups and datasets of the description in the order the program created
// them, across groups and actions. It is set only when that order is not the one a
// description replays without it (every group first, depth first, then the datasets:
// the root's, then each group's), and only under the handles the key goes with (hold:
// action or file, sequence: by_object).
func (c *Description) objectOrder(p *Profile, file string, f *desc.File, fpath string, stepOf func(string, string) (string, int, bool)) {
	if h := f.Handles; strings.EqualFold(h.Hold.Text, "call") || h.Sequence.Set && !strings.EqualFold(h.Sequence.Text, "by_object") {
		return
	}
	byDefault := desc.OwnOrder(&f.Content)
	var traced []string
	for _, e := range p.Events {
		if e.Rank != 0 || e.File != file || e.fileStep > 1 {
			continue
		}
		var t string
		switch {
		case groupCreate(e.Call) && e.Object != "":
			t, _, _ = stepOf(file, e.Object+"/x")
			t = strings.TrimSuffix(t, "/x")
		case e.Module == "H5D" && strings.HasPrefix(e.Call, "H5Dcreate"):
			t, _, _ = stepOf(file, e.Name)
		default:
			continue
		}
		t = path.Join("/", t)
		if slices.Contains(byDefault, t) && !slices.Contains(traced, t) {
			traced = append(traced, t)
		}
	}
	// the objects the trace does not show created keep their place after those it does
	order := slices.Clone(traced)
	for _, t := range byDefault {
		if !slices.Contains(order, t) {
			order = append(order, t)
		}
	}
	if len(traced) < 2 || slices.Equal(order, byDefault) {
		return
	}
	f.ObjectOrder = desc.Vs(traced...)
	c.Desc.Comment(fpath+".object_order", "the order rank 0 created the groups and datasets in")
}
