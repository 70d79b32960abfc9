package desc

import "path"

// Object order: the order a program creates a file's groups and datasets in, across its
// groups and actions. HDF5 allocates each object's header (and a contiguous dataset's
// data) where the file ends when it is created, so the order of the creates decides
// where every object lies and which metadata a write or a flush moves; a description's
// own order (groups first, a file's datasets before its groups', each dataset at the
// action that first writes it) is not every program's.

// objectOrderNode declares files.ID.object_order.
var objectOrderNode = &Node{Key: "object_order", Kind: List, Elem: &Node{Kind: Template},
	Help:    "the file's groups and datasets (absolute paths as their names are written, templates included) in the order the program creates them, across groups and actions: a write action creates, besides its own objects, every object listed before the last one it creates that does not exist yet (a dataset another action writes created as its first write would create it, not written), and its creates, attributes and writes go object by object in this order (objects not listed after those listed, the file's own attributes first), and define: upfront creates them in this order; each entry names one group or dataset of the file, once, a group before its members; with handles hold: action or file and sequence: by_object; capture writes it from the trace's creates (unset: the description's order)",
	Example: `object_order: [/fields, /fields/x, /fields/rho, /state]`}

// OwnOrder lists a file's groups and datasets (absolute paths as their names are
// written) in the order a description creates them without object_order: every group
// first, depth first, then the root's datasets, then each group's, depth first. Capture
// writes object_order only where the program's order is another.
func OwnOrder(c *Content) []string {
	var out []string
	var groups, datasets func(c *Content, parent string)
	groups = func(c *Content, parent string) {
		for _, g := range c.Groups {
			out = append(out, path.Join(parent, g.Name.Text))
			groups(&g.Content, path.Join(parent, g.Name.Text))
		}
	}
	datasets = func(c *Content, parent string) {
		for _, d := range c.Datasets {
			out = append(out, path.Join(parent, d.Name))
		}
		for _, g := range c.Groups {
			datasets(&g.Content, path.Join(parent, g.Name.Text))
		}
	}
	groups(c, "/")
	datasets(c, "/")
	return out
}
