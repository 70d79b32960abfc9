package profile

import (
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
