package app

import (
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// readContent reads back the datasets of an open file that an action selects, each
// element verified against the step that wrote it: an extended dataset is read one slab
// per write. nranks ranks read, each its part of the dataset's decomposition, or of the
// action's select. The groups above the datasets read open first (parents first) and
// close last (innermost first); each dataset opens before its reads and closes, in open
// order, after the action's last read, as BD-CATS opens a Timestep_N group, its datasets,
// reads them, closes the datasets and then the group.
func (s *sim) readContent(in *instance, a *desc.Action, step int, coll bool) error {
	if err := s.readAttributes(in, a, step); err != nil {
		return err
	}
	nranks, rank := in.share(s.env)
	vs, groups, err := s.collect(&in.file.Content, "/")
	if err != nil {
		return err
	}
	reads := func(v visit) bool { return selected(a, v.path, v.ds.Name) && len(s.writes[in.path][v.path]) > 0 }
	var opened, dsOpen []string // groups, datasets to close after the action
	mark := len(s.cur.Ops)
	for _, g := range groups {
		if s.openHolding(in, g.path, vs, reads, step) {
			opened = append(opened, g.path)
		}
	}
	n := 0
	for _, v := range vs {
		written := s.writes[in.path][v.path]
		if !reads(v) {
			continue
		}
		n++
		sp := s.specs[in.path][v.path]
		if !in.isKept(v.path) {
			s.cur.Add(plan.Op{Kind: plan.OpenDataset, Path: v.path, Collective: in.parallel, CollMetadata: in.objCollMeta(), Step: step})
			dsOpen = append(dsOpen, v.path)
		}
		slabs := written
		if sp.extend < 0 {
			slabs = written[len(written)-1:] // the last write's values
		}
		for k, ws := range slabs {
			// The seeded values of an element follow its linear index in the extent it
			// was written in: a series along dimension 0 keeps the indices of the slabs
			// written before (the whole extent serves), along any other dimension the
			// slab's indices are those of the extent right after its write.
			full := slices.Clone(sp.shape)
			switch {
			case sp.extend == 0:
				full[0] = uint64(len(written)) * sp.shape[0]
			case sp.extend > 0:
				full[sp.extend] = uint64(k+1) * sp.shape[sp.extend]
			}
			sel, mem, err := s.readPart(a, v.ds, sp, nranks, rank)
			if err != nil {
				return err
			}
			if sp.extend >= 0 {
				sel = shift(sel, sp.extend, uint64(k)*sp.shape[sp.extend])
			}
			t := &plan.Transfer{Variable: v.path, Buffer: v.path, MemType: sp.mem, MemShape: mem, FileType: sp.create.Type, FileShape: full, Selection: sel}
			if sp.buffer != "" {
				t.Buffer = sp.buffer + " " + v.parent
			}
			if len(sp.shape) == 0 {
				t.MemShape = nil
			}
			if v.ds.Value.Set { // literal contents: no seeded values to verify them against
				if sp.mem.Class == plan.Reference {
					return errAt(v.ds.Value, "a read of %s, a dataset of references", "reads of datasets of other types (the run writes references and reads none back)", v.path)
				}
				t.Unchecked = true
			}
			ghosted(t, sp.ghost)
			dcoll, err := s.transferColl(v.ds, coll)
			if err != nil {
				return err
			}
			issued, err := s.issues(v.ds, t, dcoll)
			if err != nil {
				return err
			}
			if issued {
				s.cur.Add(plan.Op{Kind: plan.Read, Path: v.path, Collective: dcoll, Step: ws, Transfer: t})
			}
		}
	}
	if n == 0 {
		_, fv := a.Verb()
		return errAt(fv, "nothing to read in %s at step %d: no selected dataset has been written", "a read after the writes of the datasets it names", in.path, step)
	}
	dsOpen, opened = s.sequence(in, a, mark, dsOpen, opened, true)
	for _, p := range dsOpen {
		s.cur.Add(plan.Op{Kind: plan.CloseDataset, Path: p, Collective: in.parallel, Step: step})
	}
	for i := len(opened) - 1; i >= 0; i-- {
		s.cur.Add(plan.Op{Kind: plan.CloseGroup, Path: opened[i], Collective: in.parallel, Step: step})
	}
	return nil
}

// readPart is this rank's part of one slab of a dataset read by nranks ranks.
func (s *sim) readPart(a *desc.Action, ds *desc.Dataset, sp *dsSpec, nranks, r int) (plan.Selection, []uint64, error) {
	if len(sp.shape) == 0 {
		return plan.Selection{}, nil, nil
	}
	if a.Select == nil {
		dec, err := s.e.decomposer(ds, &dsSpec{shape: sp.shape}, s.sc, nranks, s.e.d.Dir)
		if err != nil {
			return plan.Selection{}, nil, err
		}
		p := dec.part(r)
		return p.sel, p.mem, nil
	}
	sel := a.Select
	nd := len(sp.shape)
	start, count, stride := make([]uint64, nd), make([]uint64, nd), ones(nd)
	for d := range nd {
		var err error
		if d < len(sel.Start) {
			if start[d], err = s.sc.Uint(sel.Start[d]); err != nil {
				return plan.Selection{}, nil, err
			}
		}
		if d < len(sel.Stride) {
			if stride[d], err = s.sc.Uint(sel.Stride[d]); err != nil {
				return plan.Selection{}, nil, err
			}
			if stride[d] == 0 {
				return plan.Selection{}, nil, errAt(sel.Stride[d], "a stride of 0", "stride >= 1")
			}
		}
		if start[d] >= sp.shape[d] {
			v := desc.Value{Path: "select.start"}
			if d < len(sel.Start) {
				v = sel.Start[d]
			}
			return plan.Selection{}, nil, errAt(v, "start %d is outside extent %d of %s", "start < extent", start[d], sp.shape[d], ds.Name)
		}
		avail := (sp.shape[d] - start[d] + stride[d] - 1) / stride[d]
		count[d] = avail
		if d < len(sel.Count) {
			if count[d], err = s.sc.Uint(sel.Count[d]); err != nil {
				return plan.Selection{}, nil, err
			}
			if count[d] > avail || count[d] == 0 {
				return plan.Selection{}, nil, errAt(sel.Count[d], "count %d of dimension %d: %d elements fit from start %d with stride %d in extent %d", "1 to the elements that fit", count[d], d, avail, start[d], stride[d], sp.shape[d])
			}
		}
	}
	// Split dimension 0 of the sub-volume over the readers (the first ranks take one more),
	// or give it all to rank 0.
	first, n := uint64(0), count[0]
	if !strings.EqualFold(sel.To.Text, "rank0") {
		first, n = evenShare(count[0], uint64(nranks), uint64(r))
	} else if r != 0 {
		n = 0
	}
	if n == 0 {
		return plan.None(), []uint64{0}, nil
	}
	st := slices.Clone(start)
	st[0] += first * stride[0]
	cnt := slices.Clone(count)
	cnt[0] = n
	h := plan.Hyperslab{Start: st, Stride: stride, Count: cnt, Block: ones(nd)}
	return plan.Selection{Blocks: []plan.Hyperslab{h}}, cnt, nil
}

// evenShare splits n items over parts parts as the engine splits rows: the first n%parts
// parts take one more. It returns part i's first item and count.
func evenShare[T ~int | ~uint64](n, parts, i T) (first, count T) {
	q, rem := n/parts, n%parts
	if i < rem {
		return i * (q + 1), q + 1
	}
	return rem*(q+1) + (i-rem)*q, q
}

// restart plans the read phase's step k: restart action k reads the file a writer of
// writers ranks left at its last write (or at the action's step).
func (e *engine) restart(a *desc.Action, env patterns.Env) (plan.Plan, error) {
	sc, err := e.d.Scope(env.Size, env.Rank)
	if err != nil {
		return plan.Plan{}, err
	}
	writers := env.Size
	if a.WrittenBy.Set {
		if writers, err = sc.Int(a.WrittenBy); err != nil {
			return plan.Plan{}, err
		}
		if writers < 1 {
			return plan.Plan{}, errAt(a.WrittenBy, "%d writers", "written_by >= 1", writers)
		}
	}
	_, fv := a.Verb()
	f, err := e.file(fv)
	if err != nil {
		return plan.Plan{}, err
	}
	// Replay the writers' run: a shared file is the same for every writer (rank 0's
	// replay); per-rank files are read by as many readers as writers, each its own; the
	// files of groups of K writers (N-to-M) by as many groups of readers, each file by its
	// group (the replay of the writers' group's first rank). Fewer readers than files
	// read a contiguous share of the files each (the first files%readers readers one more),
	// every file alone and serially, as a code's restart reading several ranks' files on
	// one rank does.
	wenv := patterns.Env{Rank: 0, Size: writers, Path: env.Path, Seed: env.Seed}
	w, err := e.newSim(wenv)
	if err != nil {
		return plan.Plan{}, err
	}
	sh, err := w.parallel(f)
	if err != nil {
		return plan.Plan{}, err
	}
	par, readGroup := sh.par, 0
	files, perFile := 0, 1 // when readers are fewer: the writers' files and writers per file
	switch {
	case !par:
		if env.Size < writers {
			files = writers
			break
		}
		if writers != env.Size {
			return plan.Plan{}, errAt(a.WrittenBy, "files per rank are read back by as many ranks as wrote them (%d) or fewer, not %d", "written_by: nranks or more for per-rank files", writers, env.Size)
		}
		wenv.Rank = env.Rank
	case sh.group > 0:
		n := (writers + sh.group - 1) / sh.group
		if env.Size < n {
			files, perFile = n, sh.group
			break
		}
		if env.Size%n != 0 {
			v := a.WrittenBy
			if !v.Set {
				v = f.Ranks
			}
			return plan.Plan{}, errAt(v, "%d writers in groups of %d wrote %d files; %d readers do not split into %d equal groups", "fewer readers than files, or a multiple of the file count (each file read by its group of readers)", writers, sh.group, n, env.Size, n)
		}
		readGroup = env.Size / n
		wenv.Rank = env.Rank / readGroup * sh.group
		if readGroup == env.Size { // one file: every reader shares it
			readGroup = 0
		}
	}
	if serialRank0(f) { // rank 0 reads back what it wrote alone; the others never open it
		if env.Rank != 0 {
			return plan.Plan{}, nil
		}
		wenv.Rank = 0
		return e.readBack(a, env, sc, f, wenv, false, 0)
	}
	if files == 0 {
		return e.readBack(a, env, sc, f, wenv, par, readGroup)
	}
	var pl plan.Plan
	first, n := evenShare(files, env.Size, env.Rank)
	for file := first; file < first+n; file++ {
		wenv.Rank = file * perFile // the file's (first) writer
		one, err := e.readBack(a, env, sc, f, wenv, false, 0)
		if err != nil {
			return plan.Plan{}, err
		}
		pl.Add(one.Ops...)
	}
	return pl, nil
}

// readBack plans this reader's read of the file f that the writer wenv wrote (its run
// replayed once per reader, writerRun): opened read-only, shared by the readers through MPI-IO (par, in groups
// of readGroup) or alone, its datasets read back as w left them at its last write of f
// (or at the action's step, evaluated in the reader's scope sc).
func (e *engine) readBack(a *desc.Action, env patterns.Env, sc *desc.Scope, f *desc.File, wenv patterns.Env, par bool, readGroup int) (plan.Plan, error) {
	w, err := e.writerRun(wenv, env)
	if err != nil {
		return plan.Plan{}, err
	}
	_, fv := a.Verb()
	step, written := w.lastWrite[f.ID]
	if !written {
		step = -1
	}
	if a.Step.Set {
		if step, err = sc.Int(a.Step); err != nil {
			return plan.Plan{}, err
		}
	}
	if step < 0 {
		return plan.Plan{}, errAt(fv, "file %s is never written", "a restart read of a file the timeline writes", f.ID)
	}
	w.sc.SetStep(step)
	path, err := w.filePath(f, step)
	if !a.Step.Set { // the last write's file: an end action's too (its family's count)
		path, err = w.lastPath[f.ID], nil
	}
	if err != nil {
		return plan.Plan{}, err
	}
	if w.writes[path] == nil {
		return plan.Plan{}, errAt(a.Step, "no write of %s happens at step %d (file %s)", "a step at which the file is written", f.ID, step, path)
	}
	// Read as the readers: this rank of env.Size, with the writers' shapes.
	r := *w
	r.env = env
	r.sc, err = e.d.Scope(env.Size, env.Rank)
	if err != nil {
		return plan.Plan{}, err
	}
	r.sc.SetStep(step)
	var pl plan.Plan
	r.cur = &pl
	coll, err := r.sc.Bool(a.Collective)
	if err != nil {
		return pl, err
	}
	in := &instance{file: f, path: path, parallel: par, group: readGroup, readOnly: true}
	fs := sharing{par: par, group: readGroup}.spec()
	cm := par && collMetadata(f, true)
	fs.ReadOnly, fs.CollMetadataOps, fs.CollMetadataWrite = true, cm, cm
	fs.Info = fileHints(f, par)
	pl.Add(plan.Op{Kind: plan.OpenFile, Path: path, Collective: par, Step: step, File: fs})
	if err := r.readContent(in, a, step, coll && par); err != nil {
		return pl, err
	}
	pl.Add(plan.Op{Kind: plan.CloseFile, Path: path, Collective: par})
	return pl, nil
}
