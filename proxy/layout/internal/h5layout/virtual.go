package h5layout

import (
	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// VirtualMaps are the h5 mappings of a plan's virtual dataset: each block of the virtual
// dataset from the same-sized block of its source, whose dataspace is given as the block's
// bounds (HDF5 keeps only those of a fixed-size source); a mapping of whole dataspaces
// selects all of both.
func VirtualMaps(vs []plan.VirtualSource) []h5.VirtualMap {
	out := make([]h5.VirtualMap, len(vs))
	for i, v := range vs {
		bound := make([]uint64, len(v.Count))
		for d := range v.Count {
			bound[d] = v.SourceStart[d] + v.Count[d]
		}
		out[i] = h5.VirtualMap{File: v.File, Dataset: v.Dataset, SourceShape: bound,
			Virtual: plan.Selection{Kind: plan.Hyperslabs, Blocks: []plan.Hyperslab{plan.Block(v.Start, v.Count)}},
			Source:  plan.Selection{Kind: plan.Hyperslabs, Blocks: []plan.Hyperslab{plan.Block(v.SourceStart, v.Count)}}}
		if v.All { // H5Sselect_all on both
			out[i].Virtual.Kind, out[i].Source.Kind = plan.Whole, plan.Whole
		}
	}
	return out
}
