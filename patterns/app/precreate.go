package app

import (
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// transferColl reports whether a dataset's transfers are collective in an action whose
// transfers are coll: not when the dataset is independent (a table rank 0 writes alone
// between collective writes).
func (s *sim) transferColl(ds *desc.Dataset, coll bool) (bool, error) {
	if !coll || !ds.Independent.Set {
		return coll, nil
	}
	ind, err := s.sc.Bool(ds.Independent)
	return !ind, err
}

// createdSerially reports whether a dataset of file f is one of its serial creation's
// (create.datasets): written there, whole, once; the timeline's writes leave it.
func createdSerially(f *desc.File, v visit) bool {
	return f.Create.ByRank0() && len(f.Create.Datasets) > 0 && selected(&desc.Action{Datasets: f.Create.Datasets}, v.path, v.ds.Name)
}

// createByRank0 creates file f at path as AMReX creates its plotfiles (create: rank0):
// the file's first rank creates it alone with HDF5's default driver, writes the file's
// attributes, creates every group with its attributes and the datasets create.datasets
// lists (their attributes, a whole write, independent), closes it; then every rank opens
// it as the file is shared (through MPI-IO). On every rank the objects count as created,
// so that the writes open the groups they create datasets in rather than create them.
func (s *sim) createByRank0(f *desc.File, path string, sh sharing, step int) (*instance, error) {
	vs, groups, err := s.collect(&f.Content, "/")
	if err != nil {
		return nil, err
	}
	nr, idx := (&instance{parallel: sh.par, group: sh.group}).share(s.env)
	pre := serialCreation{s: s, f: f, path: path, step: step, nranks: nr, emit: idx == 0, specs: map[string]*dsSpec{}}
	if pre.sets, err = pre.datasets(vs); err != nil {
		return nil, err
	}
	if pre.emit {
		fs := &plan.FileSpec{MakeDirs: true, SharedLater: true,
			LinkOrder: orderFlags(f.CreationOrder.Links), AttrOrder: orderFlags(f.CreationOrder.Attributes), NoTimes: s.untimed[path]}
		libverBounds(f, fs)
		s.cur.Add(plan.Op{Kind: plan.CreateFile, Path: path, Step: step, File: fs})
	}
	if err := pre.content(&f.Content, "/", f.Attributes); err != nil {
		return nil, err
	}
	if pre.emit {
		s.cur.Add(plan.Op{Kind: plan.CloseFile, Path: path, Step: step})
	}
	s.existing[path] = true // the open below opens what rank 0 created
	header := s.attrs[path] // the attributes written (or noted) above, which the open forgets
	in, err := s.openFile(f, path, sh, step, false)
	if err != nil {
		return nil, err
	}
	for k, a := range header {
		s.attrs[path][k] = a
	}
	created := s.created[path]
	for _, g := range groups {
		created[g.path] = true
	}
	for p, sp := range pre.specs {
		created[p] = true
		s.specs[path][p] = sp
		s.writes[path][p] = []int{step}
	}
	return in, nil
}

// serialCreation is the first rank's serial creation of a file (create: rank0). Every
// rank evaluates it (the datasets' specs are the file's bookkeeping); the first alone
// emits its operations.
type serialCreation struct {
	s      *sim
	f      *desc.File
	path   string
	step   int
	nranks int  // the ranks sharing the file (a rank0 decomposition over them)
	emit   bool // this rank creates the file
	sets   map[*desc.Dataset]bool
	specs  map[string]*dsSpec // by dataset path
}

// datasets returns the datasets create.datasets names: each entry must name one of the
// file's datasets, each decomposed rank0 and not a series (written once, whole, by rank 0).
func (c *serialCreation) datasets(vs []visit) (map[*desc.Dataset]bool, error) {
	out := map[*desc.Dataset]bool{}
	for _, e := range c.f.Create.Datasets {
		n := 0
		for _, v := range vs {
			if !selected(&desc.Action{Datasets: []desc.Value{e}}, v.path, v.ds.Name) {
				continue
			}
			if !strings.EqualFold(v.ds.Decompose.Kind.Text, "rank0") {
				return nil, errAt(e, "dataset %s of the serial creation is decomposed %q: rank 0 writes it alone, before the other ranks open the file", "datasets with decompose: rank0", v.path, v.ds.Decompose.Kind.Text)
			}
			if v.ds.Extend.Set {
				return nil, errAt(e, "dataset %s of the serial creation is a series (extend): it is written once, at the creation", "datasets without extend", v.path)
			}
			out[v.ds] = true
			n++
		}
		if n == 0 {
			return nil, errAt(e, "names none of file %s's datasets", "dataset names or paths of the file", c.f.ID)
		}
	}
	return out, nil
}

// content creates an object's attributes, its datasets of the serial creation, then its
// groups, each closed before the next as AMReX's header writer does.
func (c *serialCreation) content(ct *desc.Content, owner string, attrs []*desc.Attribute) error {
	s, serial := c.s, &instance{file: c.f, path: c.path}
	if c.emit {
		if err := s.attributes(serial, owner, attrs, c.step); err != nil {
			return err
		}
	} else if err := s.noteAttributes(c.path, owner, attrs, c.step); err != nil {
		return err
	}
	for _, ds := range ct.Datasets {
		if c.sets[ds] {
			if err := c.dataset(ds, owner); err != nil {
				return err
			}
		}
	}
	for _, g := range ct.Groups {
		name, err := s.sc.Text(g.Name)
		if err != nil {
			return err
		}
		gp := joinPath(owner, name)
		if c.emit {
			s.cur.Add(plan.Op{Kind: plan.CreateGroup, Path: gp, Step: c.step, Group: groupSpec(&g.Content)})
		}
		if err := c.content(&g.Content, gp, g.Attributes); err != nil {
			return err
		}
		if c.emit {
			s.cur.Add(plan.Op{Kind: plan.CloseGroup, Path: gp, Step: c.step})
		}
	}
	return nil
}

// dataset creates a dataset of the serial creation, writes its attributes and rank 0's
// part of it (the whole: a rank0 decomposition), independently, and closes it.
func (c *serialCreation) dataset(ds *desc.Dataset, parent string) error {
	s, path := c.s, joinPath(parent, ds.Name)
	sp, err := s.e.spec(ds, s.sc)
	if err != nil {
		return err
	}
	dec, err := s.e.decomposer(ds, sp, s.sc, c.nranks, s.e.d.Dir)
	if err != nil {
		return err
	}
	sp.shape, sp.create.Shape = dec.shape, slices.Clone(dec.shape)
	c.specs[path] = sp
	if !c.emit { // the values a later read of them verifies
		return s.noteAttributes(c.path, path, ds.Attributes, c.step)
	}
	create := sp.create
	s.cur.Add(plan.Op{Kind: plan.CreateDataset, Path: path, Step: c.step, Dataset: &create})
	if err := s.attributes(&instance{file: c.f, path: c.path}, path, ds.Attributes, c.step); err != nil {
		return err
	}
	if unwritten, err := s.unwritten(ds); err != nil || unwritten {
		if err == nil {
			s.cur.Add(plan.Op{Kind: plan.CloseDataset, Path: path, Step: c.step})
		}
		return err
	}
	p := dec.part(0)
	t := &plan.Transfer{Variable: path, Buffer: path, MemType: sp.mem, MemShape: p.mem, FileType: sp.create.Type,
		FileShape: slices.Clone(sp.shape), Selection: p.sel}
	if sp.buffer != "" {
		t.Buffer = sp.buffer + " " + parent
	}
	if len(sp.shape) == 0 {
		t.MemShape = nil
	}
	ghosted(t, sp.ghost)
	s.cur.Add(plan.Op{Kind: plan.Write, Path: path, Step: c.step, Transfer: t})
	s.cur.Add(plan.Op{Kind: plan.CloseDataset, Path: path, Step: c.step})
	return nil
}
