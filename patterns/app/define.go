package app

import (
	"strings"

	"github.com/h5proxy/h5proxy/plan"
)

// createEarly creates dataset v before its first write, as that write would create it
// (createWritten: the first write's shape, attributes and scale, the spec recorded, held
// as the write would hold it) or, virtual or written: false, as createUnwritten does; the
// datasets the action is to close are added to dsOpen.
func (s *sim) createEarly(in *instance, v visit, step int, h handles, dsOpen *[]string) error {
	sp, err := s.e.spec(v.ds, s.sc)
	if err != nil {
		return err
	}
	unwritten, err := s.unwritten(v.ds)
	if err != nil {
		return err
	}
	if len(sp.create.Virtual) > 0 || unwritten { // created, never written: as a write's
		return s.createUnwritten(in, v, sp, step, h, dsOpen)
	}
	nr, _ := in.share(s.env)
	dec, err := s.e.decomposer(v.ds, sp, s.sc, nr, s.e.d.Dir)
	if err != nil {
		return err
	}
	if err := s.createWritten(in, v, sp, dec, step, h); err != nil {
		return err
	}
	s.holdWritten(in, v.path, sp, h, dsOpen) // as its first write would hold it
	return nil
}

// defineUpfront reports whether file f's objects are created right after the file
// (define: upfront or upfront_flush), and whether a flush ends their creation.
func defineUpfront(define string) (upfront, flush bool) {
	switch strings.ToLower(define) {
	case "upfront":
		return true, false
	case "upfront_flush":
		return true, true
	}
	return false, false
}

// define creates every group and dataset of file in not yet created, before the action's
// writes, as netCDF-4 creates every variable at nc_enddef (define: upfront): each group
// with its attributes, each dataset in the description's order (its object_order's,
// the groups' creates put in it too) with its attributes
// (a series with 0 along its extended dimension when it starts empty), then the links,
// reference attributes and dimension scales whose objects now exist; the objects the
// file's handles do not keep are closed, and with flush (upfront_flush) an H5Fflush ends
// the definitions, as nc_enddef syncs the file. The writes then find every object
// created. Each dataset is created as a write action creates it (createWritten,
// createUnwritten: the same shapes, attributes, spec recorded and handles held), only
// earlier. It returns without a call when everything exists (a file opened again).
func (s *sim) define(in *instance, step int, flush bool, spec *plan.FileSpec) error {
	vs, groups, err := s.collect(&in.file.Content, "/")
	if err != nil {
		return err
	}
	created := s.created[in.path]
	h, mark := handlesOf(in.file), len(s.cur.Ops)
	ranks, err := s.objectRanks(in.file)
	if err != nil {
		return err
	}
	vs = orderVisits(vs, created, ranks)
	made := map[string]bool{} // what it creates, put in the object order
	var opened, dsOpen []string
	n := 0
	for _, g := range groups {
		if created[g.path] {
			continue
		}
		created[g.path], made[g.path] = true, true
		n++
		op := plan.Op{Kind: plan.CreateGroup, Path: g.path, Collective: in.parallel, Step: step, Group: groupSpec(&g.g.Content)}
		if h.perCall {
			if err := s.createHeld(in, h, op, g.g.Attributes); err != nil {
				return err
			}
			continue
		}
		if opened, err = s.createGroup(in, h, op, g.g.Attributes, opened); err != nil {
			return err
		}
	}
	for _, v := range vs {
		if created[v.path] || createdSerially(in.file, v) {
			continue
		}
		n++
		made[v.path] = true
		if err := s.createEarly(in, v, step, h, &dsOpen); err != nil {
			return err
		}
	}
	if n == 0 {
		return nil
	}
	s.orderCreations(mark, made, ranks)
	if err := s.finish(in, step, dsOpen, opened); err != nil {
		return err
	}
	if flush {
		s.cur.Add(plan.Op{Kind: plan.FlushFile, Path: in.path, Collective: in.parallel, Step: step, File: spec})
	}
	return nil
}
