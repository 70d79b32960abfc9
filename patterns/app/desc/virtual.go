package desc

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// VirtualMap is one mapping of a virtual dataset (datasets.NAME.virtual): the block of
// Count elements at Start of the dataset shows the block of Count elements at
// SourceStart of dataset Dataset in file File.
type VirtualMap struct {
	Pos                       Pos
	File, Dataset             Value
	Start, Count, SourceStart []Value
}

// virtualNode declares datasets.NAME.virtual.
var virtualNode = &Node{Key: "virtual", Kind: List,
	Help:    "the mappings of a virtual dataset (layout: virtual, implied; H5Pset_virtual): each shows a block of a source dataset; with none of start, count and source_start a mapping selects both dataspaces whole (H5Sselect_all, as a program passing them unselected), else one hyperslab block of each; the run creates the dataset and never writes or reads it (HDF5 1.10 makes virtual datasets in files opened without MPI-IO: a file per rank, writer: rank0, or one rank); made by the native and subfiling-vfd layouts",
	Example: `view: {type: i32, shape: [8], virtual: [{dataset: /table}, {file: part.h5, dataset: /u, start: [4], count: [4]}]}`,
	Elem: &Node{Kind: Map, Fields: []*Node{
		{Key: "file", Kind: Template, Default: ".", Help: "the source's file, \".\" this file (HDF5 looks for a relative name beside the virtual dataset's file)"},
		{Key: "dataset", Kind: Template, Help: "the source dataset's absolute path in that file"},
		{Key: "start", Kind: List, Elem: &Node{Kind: Expr}, Help: "the block's start in the virtual dataset (default: 0 in every dimension)"},
		{Key: "count", Kind: List, Elem: &Node{Kind: Expr}, Help: "the block's extent (default: the virtual dataset's shape)"},
		{Key: "source_start", Kind: List, Elem: &Node{Kind: Expr}, Help: "the block's start in the source (default: 0 in every dimension)"},
	}}}

// virtual reads a dataset's virtual mappings.
func (p *parser) virtual(n *yaml.Node, path string) ([]VirtualMap, error) {
	if n == nil {
		return nil, nil
	}
	var out []VirtualMap
	for i, e := range resolve(n).Content {
		ep := fmt.Sprintf("%s[%d]", path, i)
		x := p.mapOf(resolve(e), ep)
		s := virtualNode.Elem
		m := VirtualMap{Pos: p.pos(e), File: x.value("file", s), Dataset: x.value("dataset", s),
			Start: x.list("start"), Count: x.list("count"), SourceStart: x.list("source_start")}
		if !m.Dataset.Set {
			return nil, &Error{Pos: m.Pos, Key: join(ep, "dataset"), Reason: "a mapping needs its source dataset", Allowed: "{dataset: /PATH}, with file: NAME for another file"}
		}
		out = append(out, m)
	}
	return out, nil
}

// virtual writes a dataset's virtual mappings.
func (wr *writer) virtual(vs []VirtualMap, path string) *yaml.Node {
	if len(vs) == 0 {
		return nil
	}
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for i, v := range vs {
		m := wr.mapping(fmt.Sprintf("%s[%d]", path, i)).flow()
		m.value("file", v.File)
		m.value("dataset", v.Dataset)
		m.list("start", v.Start, false)
		m.list("count", v.Count, false)
		m.list("source_start", v.SourceStart, false)
		n.Content = append(n.Content, m.node(true))
	}
	return n
}
