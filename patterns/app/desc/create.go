package desc

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Create says who creates a file. By "all" (the default), every rank that shares the file
// creates it together and creates its objects as the timeline's writes reach them. By
// "rank0", the file's first rank creates it alone, serially, with its attributes, its groups
// (with theirs) and the datasets listed in Datasets, closes it, and then every rank opens it
// (AMReX's plotfiles and particle checkpoints: rank 0 writes the header with HDF5's
// default driver before every rank reopens the file through MPI-IO).
type Create struct {
	By Value
	// Datasets are the datasets (names or paths) rank 0 creates and writes whole in the
	// serial creation; the others are created by every rank after the open.
	Datasets []Value
}

// ByRank0 reports whether the file's first rank creates it alone.
func (c Create) ByRank0() bool { return strings.EqualFold(c.By.Text, "rank0") }

// createNode is the file key create: the serial creation by one rank before the parallel
// open.
var createNode = &Node{Key: "create", Kind: Map, Short: "who creates the file (all, rank0)",
	Help: "who creates the file. all: every rank sharing it creates it together (H5Fcreate through MPI-IO) and creates each group, dataset and attribute when a write first reaches it. " +
		"rank0: the file's first rank (rank 0, or each group's first rank of an N-to-M file) creates it alone with HDF5's default (serial) driver, writes the file's attributes, creates every group with its attributes " +
		"and the datasets listed under datasets (created, their attributes written, written whole by rank 0 with independent transfers, closed: the timeline's writes leave them), and closes it; then every rank opens it (H5Fopen through MPI-IO) " +
		"and the writes open the groups of the datasets they create, as AMReX's HDF5 plotfiles and particle checkpoints are written. Shared files only (not ranks: 1, not mode: append); groups whose names use step " +
		"are created when a write reaches them, as with all; the serial creation writes attributes on the objects it creates, the handles key applies to what follows the open",
	Example: `create: {by: rank0, datasets: [boxes]}`,
	Fields: []*Node{
		{Key: "by", Kind: Enum, Allowed: []string{"all", "rank0"}, Default: "all", Help: "all: every rank creates the file together; rank0: the file's first rank creates it alone, serially, before every rank opens it"},
		{Key: "datasets", Kind: List, Elem: &Node{Kind: Text}, Help: "by rank0: the datasets (names or paths) rank 0 creates and writes whole in the serial creation; each must be decompose: rank0 (default: none, every dataset is created by every rank after the open)"},
	}}

// create reads file f's create key: a map, or the short form `create: rank0`.
func (p *parser) create(n *yaml.Node, path string, f *File) (Create, error) {
	if n == nil {
		return Create{By: Value{Text: "all", Path: join(path, "by")}}, nil
	}
	var c Create
	if n = resolve(n); n.Kind == yaml.ScalarNode {
		c.By = p.scalar(n, join(path, "by"))
		if err := checkEnum(c.By, createNode.Field("by")); err != nil {
			return c, err
		}
	} else {
		x := p.mapOf(n, path)
		c = Create{By: x.value("by", createNode), Datasets: x.list("datasets")}
	}
	switch {
	case len(c.Datasets) > 0 && !c.ByRank0():
		return c, &Error{Pos: c.Datasets[0].Pos, Key: c.Datasets[0].Path, Value: c.Datasets[0].Text,
			Reason: "datasets of the serial creation, but every rank creates the file (by: " + c.By.Text + ")", Allowed: "by: rank0 with datasets, or no datasets"}
	case !c.ByRank0():
	case strings.TrimSpace(f.Ranks.Text) == "1":
		return c, &Error{Pos: c.By.Pos, Key: c.By.Path, Value: c.By.Text,
			Reason: "rank 0 creates the file alone, but each rank has its own file (ranks: 1)", Allowed: "by: rank0 on a file ranks share (ranks: nranks or K), or by: all"}
	case strings.EqualFold(f.Mode.Text, "append"):
		return c, &Error{Pos: c.By.Pos, Key: c.By.Path, Value: c.By.Text,
			Reason: "rank 0 creates the file alone, but the file is opened to append (mode: append), never created", Allowed: "by: rank0 with mode: truncate, or by: all"}
	}
	return c, nil
}

// checkEnum checks a scalar given for an Enum node (the short form of a map, which the
// schema walk lets through).
func checkEnum(v Value, s *Node) error {
	if containsFold(s.Allowed, v.Text) {
		return nil
	}
	reason := "not allowed"
	if near := nearest(v.Text, s.Allowed); near != "" {
		reason += " (did you mean " + near + "?)"
	}
	return &Error{Pos: v.Pos, Key: v.Path, Value: v.Text, Reason: reason, Allowed: strings.Join(s.Allowed, ", ")}
}

// writtenNode is the dataset key written: a dataset the program creates and never writes
// (netCDF-4's dimensions that are not variables: a dimension scale with no data).
var writtenNode = &Node{Key: "written", Kind: Bool, Default: "true",
	Help:    "false: the dataset is created (with its attributes, as a scale where scale is given) where the first write action listing it runs, and never written: no H5Dwrite, reads leave it, its elements read as the fill value (netCDF-4's dimensions that are not variables); its storage stays unallocated where HDF5 allocates late (a serial file's contiguous dataset; a file opened through MPI-IO allocates at creation); true: every write action listing it writes it",
	Example: `ncol: {type: f32, shape: [16], scale: "This is a netCDF dimension but not a netCDF variable.        16", written: false}`}

// emptyCallsNode is the dataset key empty_calls: under independent transfers a rank with
// no element of the dataset calls H5Dwrite anyway, with an empty selection (PETSc's
// VecView of a Vec some ranks own none of).
var emptyCallsNode = &Node{Key: "empty_calls", Kind: Bool, Default: "false",
	Help:    "true: under independent transfers a rank with nothing of this dataset to transfer still calls H5Dwrite (and H5Dread) with an empty selection, as PETSc's VecView writes a Vec some ranks own no element of; false: such a rank makes no call (a collective transfer always has every rank call)",
	Example: `time: {type: f64, shape: [1, 1], extend: 0, decompose: rank0, empty_calls: true}`}

// independentNode is the dataset key independent: a dataset a rank writes alone between
// collective writes (AMReX's box list and offsets, written by rank 0 with an independent
// transfer list in the same pass as the collective cell data).
var independentNode = &Node{Key: "independent", Kind: Bool, Default: "false",
	Help:    "true: this dataset's transfers are independent (H5FD_MPIO_INDEPENDENT) even in a collective action, and a rank with nothing of it to transfer makes no call (a table rank 0 writes alone between collective writes, as AMReX's box list); false: the action's collective decides",
	Example: `boxes: {type: box, shape: [nboxes], decompose: rank0, independent: true}`}
