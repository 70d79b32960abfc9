package app

import (
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// orderFlags are the plan's creation order flags of a creation_order value: tracked, or
// indexed (tracked and indexed); none or unset: 0.
func orderFlags(v desc.Value) int {
	switch strings.ToLower(strings.TrimSpace(v.Text)) {
	case "tracked":
		return plan.OrderTracked
	case "indexed":
		return plan.OrderTracked | plan.OrderIndexed
	}
	return 0
}

// groupSpec is a group's creation properties: nil for HDF5's defaults (the plan of a
// description without creation_order is as before).
func groupSpec(c *desc.Content) *plan.GroupSpec {
	g := plan.GroupSpec{LinkOrder: orderFlags(c.CreationOrder.Links), AttrOrder: orderFlags(c.CreationOrder.Attributes)}
	if g == (plan.GroupSpec{}) {
		return nil
	}
	return &g
}

// virtualMaps evaluates a virtual dataset's mappings (layout: virtual) for its shape.
func virtualMaps(ds *desc.Dataset, shape []uint64, sc *desc.Scope) ([]plan.VirtualSource, error) {
	at := ds.Layout
	if !at.Set {
		at = desc.Value{Text: "virtual", Pos: ds.Pos, Path: ds.Type.Path, Set: true}
	}
	if len(ds.Virtual) == 0 {
		return nil, errAt(at, "a virtual dataset without mappings", "virtual: [{dataset: /PATH}, ...]")
	}
	if len(ds.Chunk) > 0 || len(ds.Filters) > 0 || ds.Extend.Set {
		return nil, errAt(at, "a virtual dataset has no chunks, filters or extension", "layout: virtual with virtual mappings only")
	}
	dims := func(vs []desc.Value, def []uint64, what string) ([]uint64, error) {
		if len(vs) == 0 {
			return def, nil
		}
		if len(vs) != len(shape) {
			return nil, errAt(vs[0], "%s has %d entries, %s has %d dimensions", "one entry per dimension", what, len(vs), ds.Name, len(shape))
		}
		out := make([]uint64, len(vs))
		for i, v := range vs {
			n, err := sc.Uint(v)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	}
	zeros := make([]uint64, len(shape))
	var out []plan.VirtualSource
	for _, m := range ds.Virtual {
		file, err := sc.Text(m.File)
		if err != nil {
			return nil, err
		}
		if file == "" {
			file = "."
		}
		dset, err := sc.Text(m.Dataset)
		if err != nil {
			return nil, err
		}
		start, err := dims(m.Start, zeros, "start")
		if err != nil {
			return nil, err
		}
		count, err := dims(m.Count, shape, "count")
		if err != nil {
			return nil, err
		}
		src, err := dims(m.SourceStart, zeros, "source_start")
		if err != nil {
			return nil, err
		}
		for d := range shape {
			if start[d]+count[d] > shape[d] {
				return nil, errAt(m.Dataset, "the block at %v of %v passes %s's extent %v", "start + count within the shape", start, count, ds.Name, shape)
			}
		}
		all := len(m.Start) == 0 && len(m.Count) == 0 && len(m.SourceStart) == 0 // both dataspaces unselected
		out = append(out, plan.VirtualSource{File: file, Dataset: dset, Start: start, Count: count, SourceStart: src, All: all})
	}
	return out, nil
}

// unwritten reports whether dataset ds is created and never written (written: false).
func (s *sim) unwritten(ds *desc.Dataset) (bool, error) {
	if !ds.Written.Set {
		return false, nil
	}
	w, err := s.sc.Bool(ds.Written)
	return !w, err
}

// createUnwritten creates dataset v, virtual or written: false, at its first action (later
// ones leave it), never written: no transfer, no recorded write, so reads leave it too.
func (s *sim) createUnwritten(in *instance, v visit, sp *dsSpec, step int, h handles, dsOpen *[]string) error {
	created := s.created[in.path]
	if created[v.path] {
		return nil
	}
	created[v.path] = true
	ds := sp.create
	op := plan.Op{Kind: plan.CreateDataset, Path: v.path, Collective: in.parallel, Step: step, Dataset: &ds}
	if h.perCall {
		return s.createHeld(in, h, op, v.ds.Attributes)
	}
	s.cur.Add(op)
	if err := s.attributes(in, v.path, v.ds.Attributes, step); err != nil {
		return err
	}
	if err := s.scaleAtCreate(in, v, step); err != nil {
		return err
	}
	if err := s.dimsAtCreate(in, v, step); err != nil {
		return err
	}
	if h.perFile {
		in.keep(v.path, false)
	} else {
		*dsOpen = append(*dsOpen, v.path)
	}
	return nil
}
