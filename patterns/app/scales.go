package app

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// Dimension scales (datasets' scale and dims keys): at the end of each write action,
// after its writes and links, the datasets of the file created so far and marked scale
// are made scales, once each, then each dataset's dims attached, once per dimension and
// scale, when both are created (netCDF-4 makes its dimensions scales and attaches them to
// a variable's dimensions once the variable exists). Every rank of a shared file makes
// the same calls (HDF5's metadata is collective).

// scaleState is a file's dimension scale bookkeeping: what was done, what waits for its
// scale to be created.
type scaleState struct {
	done    map[string]bool
	pending map[string]desc.Value // attach key → the dims entry naming the scale
}

// scales plans the scale operations of file in that can be done at the end of an action.
func (s *sim) scales(in *instance, step int) error {
	vs, _, err := s.collect(&in.file.Content, "/")
	if err != nil {
		return err
	}
	st := s.scaleStateOf(in.path)
	created := s.created[in.path]
	add := func(p string, sp *plan.ScaleSpec) {
		s.cur.Add(plan.Op{Kind: plan.Scale, Path: p, Collective: in.parallel, Step: step, Scale: sp})
	}
	for _, v := range vs {
		if !v.ds.Scale.Set || !created[v.path] || st.done["set "+v.path] {
			continue
		}
		name, err := s.sc.Text(v.ds.Scale)
		if err != nil {
			return err
		}
		st.done["set "+v.path] = true
		add(v.path, &plan.ScaleSpec{Name: name, Named: name != ""})
		open := s.openNow
		if open == nil {
			open = func(string) bool { return false }
		}
		if err := s.placedAt(in, desc.AtScale, v.path, step, open); err != nil { // its attributes at: scale
			return err
		}
	}
	for _, v := range vs {
		if len(v.ds.Dims) == 0 || !created[v.path] {
			continue
		}
		if err := s.attach(in, v, step); err != nil {
			return err
		}
	}
	return nil
}

// attach plans the attachments of dataset v's dims to the scales created so far (once
// each); those whose scale does not exist yet wait for it.
func (s *sim) attach(in *instance, v visit, step int) error {
	if len(v.ds.Dims) != len(v.ds.Shape) {
		return errAt(v.ds.Dims[0], "dims has %d entries, %s has %d dimensions", "one entry per dimension (\"\" for none)", len(v.ds.Dims), v.ds.Name, len(v.ds.Shape))
	}
	st, created := s.scaleStateOf(in.path), s.created[in.path]
	for dim, e := range v.ds.Dims {
		scales := e.List
		if scales == nil {
			scales = []desc.Value{e}
		}
		for _, sv := range scales {
			if desc.NoScale(sv) {
				continue
			}
			t, err := s.sc.Text(sv)
			if err != nil {
				return err
			}
			target := t
			if !strings.HasPrefix(t, "/") {
				target = path.Join(v.parent, t)
			}
			target = path.Clean(target)
			key := fmt.Sprintf("attach %s %d %s", v.path, dim, target)
			if st.done[key] {
				continue
			}
			if target == v.path {
				return errAt(sv, "dataset %s attached to itself as a dimension scale", "another dataset of the file", v.path)
			}
			if !created[target] {
				st.pending[key] = sv
				continue
			}
			delete(st.pending, key)
			st.done[key] = true
			s.cur.Add(plan.Op{Kind: plan.Scale, Path: v.path, Collective: in.parallel, Step: step, Scale: &plan.ScaleSpec{Attach: target, Dim: dim}})
		}
	}
	return nil
}

// scaleStateOf returns the scale bookkeeping of the file at path, made empty at first.
func (s *sim) scaleStateOf(path string) *scaleState {
	if s.scaled == nil {
		s.scaled = map[string]*scaleState{}
	}
	st := s.scaled[path]
	if st == nil {
		st = &scaleState{done: map[string]bool{}, pending: map[string]desc.Value{}}
		s.scaled[path] = st
	}
	return st
}

// unscaled reports a dimension scale the run never created for the dataset naming it.
func (s *sim) unscaled() error {
	for _, fp := range slices.Sorted(maps.Keys(s.scaled)) {
		p := s.scaled[fp].pending
		for _, k := range slices.Sorted(maps.Keys(p)) {
			f := strings.Fields(k) // attach DATASET DIM SCALE
			return errAt(p[k], "dimension %s of %s: its scale %s is never created in file %s", "the path of a dataset of the same file (absolute, or relative to the dataset's group) that a write creates", f[2], f[1], f[3], fp)
		}
	}
	return nil
}
