package desc

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// override replaces parameter defaults with KEY=VALUE overrides; a list parameter takes a
// comma-separated list. An unknown parameter is an error naming the declared ones.
func (d *Description) override(ov []Override) error {
	for _, o := range ov {
		i := d.param(o.Key)
		if i < 0 {
			names := make([]string, len(d.Params))
			for j, p := range d.Params {
				names[j] = p.Name
			}
			reason := "not a parameter of " + d.Source
			if near := nearest(o.Key, names); near != "" {
				reason += " (did you mean " + near + "?)"
			}
			return &Error{Key: o.Key, Value: o.Value, Reason: reason, Allowed: strings.Join(names, ", ")}
		}
		p := &d.Params[i]
		v := Value{Text: o.Value, Path: "params." + p.Name, Set: true, Pos: Pos{File: "(override)"}}
		if p.IsList {
			v.Text = ""
			for _, e := range strings.Split(o.Value, ",") {
				v.List = append(v.List, Value{Text: strings.TrimSpace(e), Path: v.Path, Set: true, Pos: v.Pos})
			}
		}
		p.Value = v
	}
	return nil
}

func (d *Description) param(name string) int {
	for i, p := range d.Params {
		if strings.EqualFold(p.Name, name) {
			return i
		}
	}
	return -1
}

// copyForExpand copies what override and expand change: the parameters, the notes' map,
// and the files' content trees down to each dataset (expand replaces datasets lists and
// resolves like: in place). What they only read (values, attributes, types) is shared.
func (d *Description) copyForExpand() *Description {
	c := *d
	c.loaded = false
	c.Params = slices.Clone(d.Params)
	c.Notes = maps.Clone(d.Notes)
	c.Files = make([]*File, len(d.Files))
	for i, f := range d.Files {
		cf := *f
		cf.Content = f.Content.copyForExpand()
		c.Files[i] = &cf
	}
	return &c
}

func (c Content) copyForExpand() Content {
	out := c
	out.Datasets = slices.Clone(c.Datasets)
	for i, ds := range c.Datasets {
		cd := *ds
		cd.set = maps.Clone(ds.set)
		out.Datasets[i] = &cd
	}
	out.Groups = slices.Clone(c.Groups)
	for i, g := range c.Groups {
		cg := *g
		cg.Content = g.Content.copyForExpand()
		out.Groups[i] = &cg
	}
	return out
}

// listParam returns the names of a list parameter referenced as "${name}", if key is one.
func (d *Description) listParam(key string) ([]string, bool) {
	if !strings.HasPrefix(key, "${") || !strings.HasSuffix(key, "}") {
		return nil, false
	}
	i := d.param(strings.TrimSpace(key[2 : len(key)-1]))
	if i < 0 || !d.Params[i].IsList {
		return nil, false
	}
	var names []string
	for _, e := range d.Params[i].Value.List {
		names = append(names, e.Text)
	}
	return names, true
}

// expand makes one dataset per name of a "${list}" key and resolves `like:`.
func (d *Description) expand() error {
	var walk func(c *Content, path string) error
	walk = func(c *Content, path string) error {
		var out []*Dataset
		for _, ds := range c.Datasets {
			names, ok := d.listParam(ds.Name)
			if !ok {
				out = append(out, ds)
				continue
			}
			if len(names) > 0 {
				moveNotes(d.Notes, join(path, "datasets."+ds.Name), join(path, "datasets."+names[0]))
			}
			for _, n := range names {
				cp := *ds
				cp.Name = n
				cp.set = maps.Clone(ds.set)
				out = append(out, &cp)
			}
		}
		c.Datasets = out
		var groups []*Group
		for _, g := range c.Groups {
			names, ok := d.listParam(g.Name.Text)
			if !ok {
				groups = append(groups, g)
				continue
			}
			if len(names) == 0 {
				return errAt(g.Name, "the list parameter is empty: no group would be made", "a list parameter with at least one name")
			}
			for j, n := range names {
				cp := *g
				cp.Name.Text = n
				if j > 0 {
					cp.Content = g.Content.clone()
				}
				groups = append(groups, &cp)
			}
		}
		c.Groups = groups
		for _, g := range c.Groups {
			if err := walk(&g.Content, join(path, "groups."+g.Name.Text)); err != nil {
				return err
			}
		}
		return nil
	}
	for _, f := range d.Files {
		if err := walk(&f.Content, "files."+f.ID); err != nil {
			return err
		}
	}
	for _, f := range d.Files {
		var err error
		f.Content.each(func(ds *Dataset) {
			if err == nil {
				err = d.resolveLike(f, ds, nil)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// clone copies a content for another group of a list key: each group gets datasets of its
// own (like: resolves per dataset), attributes and links are read only and shared.
func (c Content) clone() Content {
	out := Content{Attributes: c.Attributes, Links: c.Links, CreationOrder: c.CreationOrder}
	for _, ds := range c.Datasets {
		cp := *ds
		cp.set = maps.Clone(ds.set)
		out.Datasets = append(out.Datasets, &cp)
	}
	for _, g := range c.Groups {
		cp := *g
		cp.Content = g.Content.clone()
		out.Groups = append(out.Groups, &cp)
	}
	return out
}

// each calls fn on every dataset of the content, groups included, in document order.
func (c *Content) each(fn func(*Dataset)) {
	for _, ds := range c.Datasets {
		fn(ds)
	}
	for _, g := range c.Groups {
		g.Content.each(fn)
	}
}

// find returns the dataset named by ref in file f: a name, or a path inside groups.
func (d *Description) find(f *File, ref string) *Dataset {
	if i := strings.Index(ref, "."); i > 0 {
		for _, o := range d.Files {
			if o.ID == ref[:i] {
				f, ref = o, ref[i+1:]
				break
			}
		}
	}
	ref = strings.TrimPrefix(ref, "/")
	var hit *Dataset
	var walk func(c *Content, prefix string)
	walk = func(c *Content, prefix string) {
		for _, ds := range c.Datasets {
			if hit == nil && (ds.Name == ref || prefix+ds.Name == ref) {
				hit = ds
			}
		}
		for _, g := range c.Groups {
			walk(&g.Content, prefix+g.Name.Text+"/")
		}
	}
	walk(&f.Content, "")
	return hit
}

// likeKeys are the dataset keys `like:` copies when not given.
var likeKeys = []string{"type", "shape", "max_shape", "extend", "start_empty", "layout", "chunk", "filters", "fill", "fill_time", "alloc_time", "decompose", "memory", "independent", "empty_calls", "written", "attributes"}

func (d *Description) resolveLike(f *File, ds *Dataset, seen []*Dataset) error {
	if !ds.Like.Set {
		return nil
	}
	for _, s := range seen {
		if s == ds {
			return errAt(ds.Like, "`like:` refers back to itself", "a dataset that does not use like: on this one")
		}
	}
	src := d.find(f, ds.Like.Text)
	if src == nil {
		return errAt(ds.Like, "no such dataset", "a dataset name in the same file, or FILE.PATH")
	}
	if err := d.resolveLike(f, src, append(seen, ds)); err != nil {
		return err
	}
	for _, k := range likeKeys {
		if ds.set[k] {
			continue
		}
		switch k {
		case "type":
			ds.Type = src.Type
		case "shape":
			ds.Shape = src.Shape
		case "max_shape":
			ds.MaxShape = src.MaxShape
		case "extend":
			ds.Extend = src.Extend
		case "start_empty":
			ds.StartEmpty = src.StartEmpty
		case "layout":
			ds.Layout = src.Layout
		case "chunk":
			ds.Chunk = src.Chunk
		case "filters":
			ds.Filters = src.Filters
		case "fill":
			ds.Fill = src.Fill
		case "fill_time":
			ds.FillTime = src.FillTime
		case "alloc_time":
			ds.AllocTime = src.AllocTime
		case "decompose":
			ds.Decompose = src.Decompose
		case "memory":
			ds.Memory = src.Memory
		case "independent":
			ds.Independent = src.Independent
		case "empty_calls":
			ds.EmptyCalls = src.EmptyCalls
		case "written":
			ds.Written = src.Written
		case "attributes":
			ds.Attributes = src.Attributes
		default:
			panic(fmt.Sprintf("desc: like: key %s not copied", k))
		}
		ds.set[k] = true
	}
	ds.Like = Value{}
	return nil
}
