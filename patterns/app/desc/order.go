package desc

import "go.yaml.in/yaml/v3"

// Creation order: a group's (or the file's root group's) links and an object's attributes
// tracked, and indexed, in the order they were created, as netCDF-4 creates every group
// (H5Pset_link_creation_order, H5Pset_attr_creation_order with
// H5P_CRT_ORDER_TRACKED|H5P_CRT_ORDER_INDEXED).

// OrderNames are the values of a creation order: none (HDF5's default), tracked, indexed
// (tracked and indexed).
var OrderNames = []string{"none", "tracked", "indexed"}

// CreationOrder is the creation order of a file's or group's links and attributes.
type CreationOrder struct {
	Links, Attributes Value
}

// orderNode declares creation_order on files and groups.
var orderNode = &Node{Key: "creation_order", Kind: Map, Short: "the same order for links and attributes (e.g. creation_order: indexed)",
	Help:    "track (tracked) or track and index (indexed) the creation order of the group's links and of its attributes (H5Pset_link_creation_order, H5Pset_attr_creation_order on its creation list, the file's for its root group), as netCDF-4 creates every group; default none (HDF5's: name order only); made by the native and subfiling-vfd layouts",
	Example: "creation_order: {links: indexed, attributes: tracked}",
	Fields: []*Node{
		{Key: "links", Kind: Enum, Allowed: OrderNames, Default: "none", Help: "the links' creation order"},
		{Key: "attributes", Kind: Enum, Allowed: OrderNames, Default: "none", Help: "the attributes' creation order"},
	}}

// dsOrderNode declares datasets.NAME.creation_order: a dataset's attributes.
var dsOrderNode = &Node{Key: "creation_order", Kind: Enum, Allowed: OrderNames, Default: "none",
	Help: "track (tracked) or track and index (indexed) the creation order of the dataset's attributes (H5Pset_attr_creation_order on its creation list)"}

// creationOrder reads a creation_order key: the short form sets both.
func (p *parser) creationOrder(n *yaml.Node, path string) (CreationOrder, error) {
	if n == nil {
		return CreationOrder{}, nil
	}
	n = resolve(n)
	if n.Kind == yaml.ScalarNode {
		v := p.scalar(n, path)
		if err := checkEnum(v, orderNode.Fields[0]); err != nil {
			return CreationOrder{}, err
		}
		l, a := v, v
		l.Path, a.Path = join(path, "links"), join(path, "attributes")
		return CreationOrder{Links: l, Attributes: a}, nil
	}
	x := p.mapOf(n, path)
	return CreationOrder{Links: x.value("links", orderNode), Attributes: x.value("attributes", orderNode)}, nil
}

// creationOrder writes a creation order: the short form when both are set alike.
func (wr *writer) creationOrder(o CreationOrder, path string) *yaml.Node {
	if o.Links.Set && o.Attributes.Set && o.Links.Text == o.Attributes.Text && wr.d.Notes[join(path, "links")].empty() && wr.d.Notes[join(path, "attributes")].empty() {
		return scalar(o.Links.Text)
	}
	m := wr.mapping(path).flow()
	m.value("links", o.Links)
	m.value("attributes", o.Attributes)
	return m.node(false)
}
