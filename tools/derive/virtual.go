package derive

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// virtualMaps says a virtual dataset's mappings (of a dataset of extent shape) as the
// virtual key does: the file only when another ("." is the dataset's own), no start or
// count when both dataspaces are selected whole, else one block of each (start, count and
// a source_start when not at the origin). ok is false when a mapping selects something
// else (several blocks, a strided pattern, points), which the key cannot say.
func virtualMaps(maps []h5.VirtualMap, shape []uint64) (out []desc.VirtualMap, ok bool) {
	nums := func(v []uint64) []desc.Value {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.FormatUint(x, 10)
		}
		return desc.Vs(s...)
	}
	for _, m := range maps {
		vm := desc.VirtualMap{Dataset: desc.V(m.Dataset)}
		if m.File != "." && m.File != "" {
			vm.File = desc.V(m.File)
		}
		vWhole, sWhole := m.Virtual.Kind == plan.Whole, m.Source.Kind == plan.Whole
		if !vWhole || !sWhole {
			vs, vc, ok1 := box(m.Virtual, shape)
			ss, sc, ok2 := box(m.Source, m.SourceShape)
			if !ok1 || !ok2 || !slices.Equal(vc, sc) {
				return nil, false
			}
			vm.Start, vm.Count = nums(vs), nums(vc)
			if slices.ContainsFunc(ss, func(x uint64) bool { return x != 0 }) {
				vm.SourceStart = nums(ss)
			}
		}
		out = append(out, vm)
	}
	return out, len(out) > 0
}

// box returns the one block a selection of a dataspace of extent shape makes: its start
// and extent (the whole extent for a whole selection); ok false for anything else.
func box(sel plan.Selection, shape []uint64) (start, extent []uint64, ok bool) {
	if sel.Kind == plan.Whole {
		return make([]uint64, len(shape)), slices.Clone(shape), true
	}
	if sel.Kind != plan.Hyperslabs || len(sel.Blocks) != 1 {
		return nil, nil, false
	}
	h := sel.Blocks[0]
	at := func(v []uint64, k int) uint64 {
		if k < len(v) {
			return v[k]
		}
		return 1
	}
	for k := range h.Start {
		count, block, stride := at(h.Count, k), at(h.Block, k), at(h.Stride, k)
		if count > 1 && stride != block {
			return nil, nil, false // blocks apart: no single box
		}
		extent = append(extent, count*block)
	}
	return slices.Clone(h.Start), extent, true
}

// refsSig tells datasets of references apart by their targets (nil: none).
func refsSig(r *plan.AttributeSpec) string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("|refs %s %q", r.Type, r.Value)
}
