package desc

import "go.yaml.in/yaml/v3"

// handlesNode is a file's handles key: how the code holds the HDF5 identifiers of the
// groups and datasets it writes. The default is a code that holds each from its creation
// (or open) to the end of the action and writes attributes on it; hold: call is a code
// that keeps only the file's identifier and opens each object by path for each HDF5 task
// (openPMD-api's HDF5 backend).
var handlesNode = &Node{Key: "handles", Kind: Map,
	Help:    "how the code holds the identifiers of the groups and datasets it writes (default: each from its creation or open until the action ends, its attributes written on it)",
	Example: `handles: {hold: call, attributes: reopen, open_parents: true}`,
	Fields: []*Node{
		{Key: "hold", Kind: Enum, Allowed: []string{"action", "call", "file"}, Default: "action",
			Help: "action: a group or dataset stays open from its creation (or open) until the action ends, one close each; call: closed right after its creation (H5Gcreate2/H5Dcreate2 then H5Gclose/H5Dclose), and each write opens its dataset by path (H5Dopen2, H5Dset_extent for a series, H5Dwrite, H5Dclose), as a code that keeps only the file's identifier; file: each group and dataset stays open from its creation (or first open) until the file closes, for the whole run when the file stays open, no H5Gopen2 or H5Dopen2 at later steps, closed (datasets and groups, the last opened first) before H5Fclose, as H5MD writers (LAMMPS's ch5md) and h5py scripts that keep their objects hold them (sequence by_object only)"},
		{Key: "attributes", Kind: Enum, Allowed: []string{"object", "reopen"}, Default: "object",
			Help: "object: written on the object's identifier at its creation; reopen (with hold: call): after its creation each attribute opens the object with H5Oopen, is created and written, and the object is closed with H5Oclose (openPMD-api's writeAttribute), the file's own through its root group \"/\""},
		{Key: "open_parents", Kind: Bool, Default: "false",
			Help: "with hold: call: each group or dataset is created in its parent group opened by path (H5Gopen2 before the create, H5Gclose after its close; the root too), as openPMD-api's createPath and createDataset; false: created by its path from the file"},
		{Key: "sequence", Kind: Enum, Allowed: []string{"by_object", "by_call", "by_group", "depth_first"}, Default: "by_object",
			Help:    "the order of an action's calls: by_object: each dataset is created (with its attributes) or opened, then written or read, before the next; by_call (hold: action): every group and dataset is created or opened first, then every dataset written (extended) or read, then all are closed, each step of it in the order of the action's datasets list when it has one (else the file's), as h5bench's VPIC-IO writes and BD-CATS reads a timestep; by_group (hold: action, close: auto, writes): group by group in the file's order, each group created (or opened), then each of its datasets created, written and closed in the file's order, then the group closed before the next, as h5py-style writers and NOvA's files are written; depth_first (hold: call, writes): from the root group, each group's members in name order (groups and datasets together), each created, a dataset's data written, then with attributes: reopen its attributes after its members' (early ones right after its creation), the file's last, as openPMD-api flushes",
			Example: `handles: {sequence: by_call, close: forward}`},
		{Key: "close", Kind: Enum, Allowed: []string{"auto", "forward", "reverse"}, Default: "auto",
			Help: "with hold: action, the order of an action's closes, datasets before groups: forward: in the order they were created or opened (h5bench's VPIC-IO and BD-CATS); reverse: the last first; auto: reverse for a write, forward for a read's datasets and reverse for its groups"},
		{Key: "series", Kind: Enum, Allowed: []string{"keep", "reopen"}, Default: "keep",
			Help: "with hold: action, a series dataset's (extend) handle between its writes: keep: open from its creation (or first open) until the file closes, as programs keep their record variables; reopen: closed when the action ends like any other and opened again at its next write (H5Dopen2, H5Dset_extent, H5Dwrite, H5Dclose), as PETSc's HDF5 viewer writes a Vec per time step"},
	}}

// Handles is a file's handles key as written.
type Handles struct {
	Hold        Value
	Attributes  Value
	OpenParents Value
	Sequence    Value // the order of an action's calls: by_object, by_call, by_group or depth_first
	Close       Value // the order of an action's closes: auto, forward or reverse
	Series      Value // a series dataset's handle between writes: keep or reopen
}

// handles reads a file's handles key n (nil when absent: the schema's defaults).
func (p *parser) handles(n *yaml.Node, path string) Handles {
	x, s := p.mapOf(resolve(n), path), handlesNode
	return Handles{Hold: x.value("hold", s), Attributes: x.value("attributes", s), OpenParents: x.value("open_parents", s),
		Sequence: x.value("sequence", s), Close: x.value("close", s), Series: x.value("series", s)}
}
