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

// links creates the links of file in's content not created yet: each at the end of the
// first write action that finds its group created and, for a hard link, its target (a hard
// link names an existing object). A hard link whose target is not there yet waits for a
// later action (pending); run reports those the run never creates. Every rank of a shared
// file creates them alike (HDF5's metadata is collective).
func (s *sim) links(in *instance, step int) error {
	created := s.created[in.path]
	if s.linked[in.path] == nil {
		s.linked[in.path] = map[string]bool{}
	}
	linked := s.linked[in.path]
	var walk func(c *desc.Content, parent string) error
	walk = func(c *desc.Content, parent string) error {
		if parent != "/" && !created[parent] {
			return nil
		}
		for _, l := range c.Links {
			name, err := s.sc.Text(l.Name)
			if err != nil {
				return err
			}
			lp := joinPath(parent, name)
			if linked[lp] {
				continue
			}
			if created[lp] {
				return &desc.Error{Pos: l.Name.Pos, Key: l.Name.Path, Value: name,
					Reason:  fmt.Sprintf("the link %s of file %s has the path of a group or dataset the description creates", lp, in.path),
					Allowed: "a name no group or dataset of the same group takes"}
			}
			spec := plan.LinkSpec{}
			switch l.Kind() {
			case "hard":
				t, err := s.sc.Text(l.Hard)
				if err != nil {
					return err
				}
				target := t
				if !strings.HasPrefix(t, "/") {
					target = path.Join(parent, t)
				}
				target = path.Clean(target)
				if !created[target] {
					s.pendingLink(in.path, lp, l)
					continue
				}
				spec = plan.LinkSpec{Kind: plan.HardLink, Target: target}
			case "soft":
				t, err := s.sc.Text(l.Soft)
				if err != nil {
					return err
				}
				spec = plan.LinkSpec{Kind: plan.SoftLink, Target: t}
			default:
				f, err := s.sc.Text(l.External.File)
				if err != nil {
					return err
				}
				t, err := s.sc.Text(l.External.Path)
				if err != nil {
					return err
				}
				spec = plan.LinkSpec{Kind: plan.ExternalLink, Target: t, File: f}
			}
			linked[lp] = true
			delete(s.pending[in.path], lp)
			s.cur.Add(plan.Op{Kind: plan.CreateLink, Path: lp, Collective: in.parallel, Step: step, Link: &spec})
		}
		for _, g := range c.Groups {
			name, err := s.sc.Text(g.Name)
			if err != nil {
				return err
			}
			if err := walk(&g.Content, joinPath(parent, name)); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(&in.file.Content, "/")
}

// pendingLink records a hard link whose target does not exist yet in file fp.
func (s *sim) pendingLink(fp, lp string, l *desc.Link) {
	if s.pending[fp] == nil {
		s.pending[fp] = map[string]*desc.Link{}
	}
	s.pending[fp][lp] = l
}

// unlinked reports a hard link the run never created because its target never existed.
func (s *sim) unlinked() error {
	for _, fp := range slices.Sorted(maps.Keys(s.pending)) {
		ls := s.pending[fp]
		for _, lp := range slices.Sorted(maps.Keys(ls)) {
			l := ls[lp]
			return &desc.Error{Pos: l.Hard.Pos, Key: l.Hard.Path, Value: l.Hard.Text,
				Reason:  fmt.Sprintf("hard link %s of file %s: its target is never created in that file (a hard link names an existing object)", lp, fp),
				Allowed: "the path of a group or dataset of the same file that a write creates (absolute, or relative to the link's group), or a soft link for a path that may not exist"}
		}
	}
	return nil
}
