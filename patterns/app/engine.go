package app

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// engine turns a description into the plans of one rank: it replays the timeline step by
// step, tracking which files are open and which objects exist, as the application would.
type engine struct {
	d     *desc.Description
	types *typeSet
	steps int // on one rank (Steps); stepsFor evaluates steps for a rank count
	seed  uint64
	// decomps caches decomposers by dataset, shape and rank count (they hold every rank's
	// counts or a map).
	decomps map[decompKey]*decomposer
	writers writerRuns // restart reads' replays of the writers' runs
}

type decompKey struct {
	ds     *desc.Dataset
	shape  string
	nranks int
}

// instance is an open file.
type instance struct {
	file     *desc.File
	path     string
	parallel bool
	group    int // ranks per file of an N-to-M file (0: every rank, or one)
	readOnly bool
	// kept are the series datasets (extend) left open between writes, in open order, as
	// programs keep their record variables open, and under hold: file every group and
	// dataset (keptGroups marks the groups); they close with the file, the last first.
	kept       []string
	keptGroups map[string]bool
}

// keep holds the object at path open until the file closes.
func (in *instance) keep(path string, group bool) {
	in.kept = append(in.kept, path)
	if group {
		if in.keptGroups == nil {
			in.keptGroups = map[string]bool{}
		}
		in.keptGroups[path] = true
	}
}

// sharing is how the ranks share a file: through MPI-IO by every rank (group 0) or by
// groups of group consecutive ranks (N-to-M files), or one file per rank (not par).
type sharing struct {
	par   bool
	group int
}

// spec is the file access of a file shared so.
func (sh sharing) spec() *plan.FileSpec {
	return &plan.FileSpec{Parallel: sh.par, GroupRanks: sh.group}
}

// groupShare returns the ranks of rank's group of group ranks among size (the last group
// may be smaller) and rank's index in it.
func groupShare(group, size, rank int) (nranks, idx int) {
	g := rank / group
	return min(group, size-g*group), rank % group
}

// isKept reports whether dataset path is open until the file closes.
func (in *instance) isKept(path string) bool { return slices.Contains(in.kept, path) }

// share returns the ranks among which a file's datasets are decomposed and this rank's
// index among them: every rank for a shared file, the group's ranks for an N-to-M file,
// this rank alone for its own file.
func (in *instance) share(env patterns.Env) (nranks, rank int) {
	switch {
	case in.parallel && in.group > 0:
		return groupShare(in.group, env.Size, env.Rank)
	case in.parallel:
		return env.Size, env.Rank
	}
	return 1, 0
}

// sim is one replay of the write phase (or the writes a restart read needs).
type sim struct {
	e         *engine
	env       patterns.Env
	sc        *desc.Scope
	dir       string
	open      map[string]*instance                       // by file id
	order     []string                                   // paths of the open files as the layout stacks them: the last is current
	existing  map[string]bool                            // file paths created so far
	created   map[string]map[string]bool                 // file path → objects created
	writes    map[string]map[string][]int                // file path → dataset path → steps written (extend slabs)
	specs     map[string]map[string]*dsSpec              // file path → dataset path → spec of its writes
	attrs     map[string]map[attrKey]*plan.AttributeSpec // file path → attribute → its last write (a read's verification)
	lastWrite map[string]int                             // file id → last step written (-1: never)
	lastPath  map[string]string                          // file id → the path of its last write
	fired     map[string][]bool                          // counter → the steps a write of its files runs at (families.go)
	scaled    map[string]*scaleState                     // file path → its dimension scales (scales.go)
	limit     int                                        // steps replayed before the end actions
	now       int                                        // the step planned (the last for the end actions and the final closes)
	steps     int                                        // the write phase's steps on this rank count
	firstUse  map[string]int                             // file id → first step an action opened it
	linked    map[string]map[string]bool                 // file path → links created
	pending   map[string]map[string]*desc.Link           // file path → hard links waiting for their target
	refs      map[string][]pendingRef                    // file path → reference attributes waiting for their targets
	placed    map[string][]placedAttr                    // file path → attributes waiting for their place (placement.go)
	due       map[string][]placedAttr                    // file path → attributes due after its writes (at: each_write)
	openNow   func(string) bool                          // during finish: whether the action holds an object open
	plans     []plan.Plan                                // per step
	end       plan.Plan
	cur       *plan.Plan
	untimed   map[string]bool // file path → its objects are created without their times (times.go)
}

// stepsFor is the write phase's steps on nranks ranks: steps may use nranks (a run
// spreading a fixed number of files over its ranks).
func (e *engine) stepsFor(nranks int) (int, error) {
	if nranks == 1 {
		return e.steps, nil
	}
	sc, err := e.d.Scope(nranks, 0)
	if err != nil {
		return 0, err
	}
	n, err := sc.Int(e.d.Steps)
	if err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, errAt(e.d.Steps, "%d steps on %d ranks", "steps >= 1", n, nranks)
	}
	return n, nil
}

func (e *engine) newSim(env patterns.Env) (*sim, error) {
	sc, err := e.d.Scope(env.Size, env.Rank)
	if err != nil {
		return nil, err
	}
	steps, err := e.stepsFor(env.Size)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(env.Path)
	if env.Path == "" {
		dir = "."
	}
	return &sim{e: e, env: env, sc: sc, dir: dir, open: map[string]*instance{}, existing: map[string]bool{},
		lastWrite: map[string]int{}, lastPath: map[string]string{}, firstUse: map[string]int{}, linked: map[string]map[string]bool{}, pending: map[string]map[string]*desc.Link{}, limit: steps, steps: steps, created: map[string]map[string]bool{}, writes: map[string]map[string][]int{}, specs: map[string]map[string]*dsSpec{},
		attrs: map[string]map[attrKey]*plan.AttributeSpec{}}, nil
}

// fires reports whether action a runs at step (at: step).
func (s *sim) fires(a *desc.Action, step int) (bool, error) {
	if !strings.EqualFold(a.At.Text, "step") && a.At.Text != "" {
		return false, nil
	}
	s.sc.SetStep(step)
	k, err := s.sc.Int(a.Every)
	if err != nil {
		return false, err
	}
	if k < 1 {
		return false, errAt(a.Every, "a cadence of %d", "every >= 1", k)
	}
	if step%k != 0 {
		return false, nil
	}
	return s.when(a, step)
}

// when evaluates an action's condition at step (true without one).
func (s *sim) when(a *desc.Action, step int) (bool, error) {
	if !a.When.Set {
		return true, nil
	}
	s.sc.SetStep(step)
	return s.sc.Bool(a.When)
}

// file returns the description's file an action names.
func (e *engine) file(v desc.Value) (*desc.File, error) {
	for _, f := range e.d.Files {
		if f.ID == v.Text {
			return f, nil
		}
	}
	ids := make([]string, len(e.d.Files))
	for i, f := range e.d.Files {
		ids[i] = f.ID
	}
	return nil, errAt(v, "no such file", strings.Join(ids, ", "))
}

// filePath evaluates a file's name at the scope's step for this rank, its family's count
// at occasion occ (the step; s.limit or more: the end actions) set first (families.go).
func (s *sim) filePath(f *desc.File, occ int) (string, error) {
	if err := s.setCount(f, occ); err != nil {
		return "", err
	}
	name, err := s.sc.Text(f.Name)
	if err != nil {
		return "", err
	}
	return relTo(s.dir, name), nil
}

// parallel says how the ranks share a file: every rank (MPI-IO), groups of ranks (N-to-M,
// MPI-IO on each group's communicator) or one file per rank.
func (s *sim) parallel(f *desc.File) (sharing, error) {
	if serialRank0(f) { // rank 0 alone, serially (the others skip its actions)
		return sharing{}, nil
	}
	n, err := s.sc.Int(f.Ranks)
	if err != nil {
		return sharing{}, err
	}
	switch {
	case strings.TrimSpace(f.Ranks.Text) == "1": // a file per rank: serial, on one rank too
		return sharing{}, nil
	case n == s.env.Size && n == 1:
		// A lone rank opens a file of variable-length string datasets with HDF5's serial
		// driver: parallel HDF5 writes no variable-length data through MPI-IO.
		vl, err := s.e.varLenIn(&f.Content, s.sc)
		return sharing{par: !vl}, err
	case n == s.env.Size:
		return sharing{par: true}, nil
	case n == 1:
		return sharing{}, nil
	case n > 1 && n < s.env.Size:
		return sharing{par: true, group: n}, nil
	}
	return sharing{}, errAt(f.Ranks, "%d ranks per file with %d ranks", "1 (a file per rank) to nranks (one shared file): K shares a file among ranks rank/K*K .. (N-to-M)", n, s.env.Size)
}

// run replays the write phase: the plans of every step and of the end.
func (s *sim) run() error {
	for step := range s.limit {
		s.now = step
		s.plans = append(s.plans, plan.Plan{})
		s.cur = &s.plans[step]
		for i, a := range s.e.d.Timeline {
			ok, err := s.fires(a, step)
			if err != nil {
				return err
			}
			if ok {
				if err := s.action(a, i, step); err != nil {
					return err
				}
			}
		}
	}
	s.cur = &s.end
	last := max(s.limit-1, 0)
	s.now = last
	for i, a := range s.e.d.Timeline {
		if strings.EqualFold(a.At.Text, "end") {
			if err := s.action(a, i, last); err != nil {
				return err
			}
		}
	}
	for _, f := range s.e.d.Files {
		if in := s.open[f.ID]; in != nil {
			if err := s.closeFile(in); err != nil {
				return err
			}
		}
	}
	if err := s.unreferenced(); err != nil {
		return err
	}
	if err := s.unscaled(); err != nil {
		return err
	}
	s.markUntimed()
	return s.unlinked()
}

// action carries out one timeline action at step.
func (s *sim) action(a *desc.Action, idx, step int) error {
	verb, fv := a.Verb()
	f, err := s.e.file(fv)
	if err != nil {
		return err
	}
	if serialRank0(f) && s.env.Rank != 0 { // a serial writer's file: never opened here
		return nil
	}
	s.sc.SetStep(step)
	path, err := s.filePath(f, s.occasion(step))
	if err != nil {
		return err
	}
	sh, err := s.parallel(f)
	if err != nil {
		return err
	}
	par := sh.par
	coll, err := s.sc.Bool(a.Collective)
	if err != nil {
		return err
	}
	coll = coll && par
	in := s.open[f.ID]
	if in != nil && in.path != path {
		if err := s.closeFile(in); err != nil {
			return err
		}
		in = nil
	}
	if in != nil {
		s.use(in, step)
		if verb != "flush" { // the attributes due after the last writes come first
			if err := s.writeDue(in, step); err != nil {
				return err
			}
		}
	}
	switch verb {
	case "flush":
		if in == nil {
			return errAt(fv, "flush at step %d: file %s is not open (no write to it is pending)", "a flush after a write to the same file, before a write to another name", step, path)
		}
		s.cur.Add(plan.Op{Kind: plan.FlushFile, Path: path, Collective: par, Step: step, File: sh.spec()})
		if err := s.writeDue(in, step); err != nil { // after the flush that follows the writes
			return err
		}
	case "write":
		if in == nil {
			if in, err = s.openFile(f, path, sh, step, false); err != nil {
				return err
			}
		}
		if upfront, flush := defineUpfront(f.Define.Text); upfront {
			if err := s.define(in, step, flush, sh.spec()); err != nil {
				return err
			}
		}
		if err := s.writeContent(in, a, step, coll); err != nil {
			return err
		}
		s.lastWrite[f.ID], s.lastPath[f.ID] = step, path
	case "read":
		readOnly := in == nil
		if readOnly {
			if !s.existing[path] {
				return errAt(fv, "read at step %d: file %s has not been written yet", "a read after a write of the same file", step, path)
			}
			if in, err = s.openFile(f, path, sh, step, true); err != nil {
				return err
			}
		}
		if err := s.readContent(in, a, step, coll); err != nil {
			return err
		}
		if readOnly {
			if err := s.closeFile(in); err != nil {
				return err
			}
			return nil
		}
	}
	// Close the file unless the next action naming it (this step or later) names the same path.
	next, nextStep, ok, err := s.nextUse(f, idx, step)
	if err != nil {
		return err
	}
	reopen, err := s.sc.Bool(f.Reopen)
	if err != nil {
		return err
	}
	if !ok || next != path || reopen && nextStep != step {
		if err := s.closeFile(in); err != nil {
			return err
		}
	}
	return nil
}

// nextUse returns the path the next action naming file f opens after action idx at step,
// and the step it runs at (steps for an end action).
func (s *sim) nextUse(f *desc.File, idx, step int) (string, int, bool, error) {
	defer s.sc.SetStep(step)
	tl := s.e.d.Timeline
	// The same step's later actions, then each action's next firing step.
	bestStep, bestIdx := -1, -1
	for i, a := range tl {
		_, fv := a.Verb()
		if fv.Text != f.ID {
			continue
		}
		at := strings.ToLower(a.At.Text)
		var st int
		switch {
		case at == "restart":
			continue
		case at == "end":
			if s.cur == &s.end && i <= idx {
				continue
			}
			st = s.steps // after the last step
		default:
			if s.cur == &s.end {
				continue
			}
			s.sc.SetStep(step)
			k, err := s.sc.Int(a.Every)
			if err != nil {
				return "", 0, false, err
			}
			if k < 1 {
				return "", 0, false, errAt(a.Every, "a cadence of %d", "every >= 1", k)
			}
			st = (step/k + 1) * k
			if i > idx && step%k == 0 {
				st = step
			}
			for ; st < s.steps; st += k { // the next step of the cadence that meets when
				ok, err := s.when(a, st)
				if err != nil {
					return "", 0, false, err
				}
				if ok {
					break
				}
			}
			if st >= s.steps {
				continue
			}
		}
		if bestStep < 0 || st < bestStep || st == bestStep && i < bestIdx {
			bestStep, bestIdx = st, i
		}
	}
	if bestStep < 0 {
		return "", 0, false, nil
	}
	s.sc.SetStep(min(bestStep, max(s.steps-1, 0)))
	p, err := s.filePath(f, bestStep)
	if s.cur == &s.end {
		bestStep = step // end actions all run at the last step
	}
	return p, bestStep, true, err
}

// openFile creates (first time, mode truncate) or opens a file and writes its attributes
// on creation.
func (s *sim) openFile(f *desc.File, path string, sh sharing, step int, readOnly bool) (*instance, error) {
	collMeta := collMetadata(f, readOnly)
	par := sh.par
	fs := sh.spec()
	fs.ReadOnly, fs.CollMetadataOps, fs.CollMetadataWrite, fs.MakeDirs = readOnly, collMeta && par, collMeta && par, !readOnly
	libverBounds(f, fs)
	fs.Info = fileHints(f, par)
	fs.LinkOrder, fs.AttrOrder = orderFlags(f.CreationOrder.Links), orderFlags(f.CreationOrder.Attributes)
	untimed, err := s.untimedFile(f)
	if err != nil {
		return nil, err
	}
	if fs.NoTimes = untimed; untimed {
		if s.untimed == nil {
			s.untimed = map[string]bool{}
		}
		s.untimed[path] = true
	}
	kind := plan.CreateFile
	if readOnly || s.existing[path] || strings.EqualFold(f.Mode.Text, "append") {
		kind = plan.OpenFile
		fs.MakeDirs = false
	}
	if kind == plan.CreateFile && f.Create.ByRank0() {
		return s.createByRank0(f, path, sh, step)
	}
	s.cur.Add(plan.Op{Kind: kind, Path: path, Collective: par, Step: step, File: fs})
	in := &instance{file: f, path: path, parallel: par, group: sh.group, readOnly: readOnly}
	// A created file starts empty; a file appended to that this run has not written holds
	// objects of an earlier run the description does not know of: this run's objects are
	// created in it.
	if kind == plan.CreateFile || s.created[path] == nil {
		s.created[path] = map[string]bool{}
		s.linked[path] = map[string]bool{}
		s.writes[path] = map[string][]int{}
		s.specs[path] = map[string]*dsSpec{}
		s.attrs[path] = map[attrKey]*plan.AttributeSpec{}
		delete(s.scaled, path)
	}
	s.existing[path] = true
	s.open[f.ID] = in
	s.order = append(s.order, path)
	if _, ok := s.firstUse[f.ID]; !ok {
		s.firstUse[f.ID] = step
	}
	if kind == plan.CreateFile {
		return in, s.fileAttributes(in, step)
	}
	return in, nil
}

// closeFile closes a file, current or not (the layout closes the file the operation
// names); the file opened or selected before it becomes current.
func (s *sim) closeFile(in *instance) error {
	// The closes belong to the step planned: the last for the file's close after the end
	// actions, so that a series kept open to the close is charged to that step.
	if len(in.kept) > 0 || len(s.due[in.path]) > 0 || s.placedFor(in.path, desc.AtClose) { // its open series close first, in it
		s.use(in, s.now)
	}
	// The attributes due after its last writes, then those placed at its close.
	if err := s.writeDue(in, s.now); err != nil {
		return err
	}
	if err := s.placedAt(in, desc.AtClose, "", s.now, func(string) bool { return false }); err != nil {
		return err
	}
	for i := len(in.kept) - 1; i >= 0; i-- {
		kind := plan.CloseDataset
		if in.keptGroups[in.kept[i]] {
			kind = plan.CloseGroup
		}
		s.cur.Add(plan.Op{Kind: kind, Path: in.kept[i], Collective: in.parallel, Step: s.now})
	}
	s.cur.Add(plan.Op{Kind: plan.CloseFile, Path: in.path, Collective: in.parallel, Step: s.now})
	delete(s.open, in.file.ID)
	if i := slices.Index(s.order, in.path); i >= 0 {
		s.order = slices.Delete(s.order, i, i+1)
	}
	return nil
}

// use makes an open file the current one before operations on it: a plan.SelectFile when
// another file was opened or selected since, as a program holding both files' handles
// switches between them without reopening (no library call).
func (s *sim) use(in *instance, step int) {
	if n := len(s.order); n > 0 && s.order[n-1] == in.path {
		return
	}
	if i := slices.Index(s.order, in.path); i >= 0 {
		s.order = slices.Delete(s.order, i, i+1)
	}
	s.order = append(s.order, in.path)
	s.cur.Add(plan.Op{Kind: plan.SelectFile, Path: in.path, Step: step})
}

// attributes writes the attributes of an object just created. Attributes are written by
// every rank of a shared file with the same value (HDF5's metadata is collective).
// Those its at key places later wait for their place (placement.go); writes: N writes
// one N times.
func (s *sim) attributes(in *instance, owner string, as []*desc.Attribute, step int) error {
	for _, a := range s.placeLater(in, owner, as) {
		spec, err := s.e.attribute(a, owner, s.sc, step)
		if err != nil {
			return err
		}
		if spec.Type.Class == plan.Reference { // written once its targets exist
			s.deferRef(in, owner, a, spec)
			continue
		}
		n, err := s.writesOf(a)
		if err != nil {
			return err
		}
		s.attributeOps(in, owner, spec, n, step, false)
	}
	return nil
}

// selected reports whether an action's dataset subset includes a dataset.
func selected(a *desc.Action, dsPath, name string) bool {
	if len(a.Datasets) == 0 {
		return true
	}
	for _, v := range a.Datasets {
		t := strings.TrimPrefix(v.Text, "/")
		if t == name || t == strings.TrimPrefix(dsPath, "/") {
			return true
		}
	}
	return false
}

// visit is a dataset of a file with its parent group's path and its own at the current
// step.
type visit struct {
	ds     *desc.Dataset
	parent string
	path   string
}

// groupAt is a group of a file with its path at the current step.
type groupAt struct {
	g    *desc.Group
	path string
}

// collect lists a content's datasets and groups (depth first, parents before children)
// with their paths at the current step.
func (s *sim) collect(c *desc.Content, parent string) (vs []visit, groups []groupAt, err error) {
	for _, ds := range c.Datasets {
		vs = append(vs, visit{ds: ds, parent: parent, path: joinPath(parent, ds.Name)})
	}
	for _, g := range c.Groups {
		name, err := s.sc.Text(g.Name)
		if err != nil {
			return nil, nil, err
		}
		gp := joinPath(parent, name)
		groups = append(groups, groupAt{g, gp})
		v, gs, err := s.collect(&g.Content, gp)
		if err != nil {
			return nil, nil, err
		}
		vs, groups = append(vs, v...), append(groups, gs...)
	}
	return vs, groups, nil
}

// createGroup adds a group's create (op) and its attributes; the group is kept open for
// the file's life when its handles are held per file, otherwise appended to opened, the
// groups the action closes at its end.
func (s *sim) createGroup(in *instance, h handles, op plan.Op, as []*desc.Attribute, opened []string) ([]string, error) {
	s.cur.Add(op)
	if err := s.attributes(in, op.Path, as, op.Step); err != nil {
		return opened, err
	}
	if h.perFile {
		in.keep(op.Path, true)
	} else {
		opened = append(opened, op.Path)
	}
	return opened, nil
}

func (s *sim) writeContent(in *instance, a *desc.Action, step int, coll bool) error {
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
	made := map[string]bool{} // the groups and datasets the action creates (object_order)
	var madeGroups []string
	var opened []string // groups then datasets to close, in open order
	// Groups: created once; reopened when a dataset below is written.
	for _, g := range groups {
		if !created[g.path] {
			made[g.path] = true
			madeGroups = append(madeGroups, g.path)
		}
		if h.perCall { // created and closed; datasets are opened by path
			if !created[g.path] {
				created[g.path] = true
				if err := s.createHeld(in, h, plan.Op{Kind: plan.CreateGroup, Path: g.path, Collective: in.parallel, Step: step, Group: groupSpec(&g.g.Content)}, g.g.Attributes); err != nil {
					return err
				}
			}
			continue
		}
		if !created[g.path] {
			created[g.path] = true
			op := plan.Op{Kind: plan.CreateGroup, Path: g.path, Collective: in.parallel, Step: step, Group: groupSpec(&g.g.Content)}
			if opened, err = s.createGroup(in, h, op, g.g.Attributes, opened); err != nil {
				return err
			}
			continue
		}
		if s.openHolding(in, g.path, vs, func(v visit) bool { return selected(a, v.path, v.ds.Name) && !createdSerially(in.file, v) }, step) {
			if h.perFile {
				in.keep(g.path, true)
			} else {
				opened = append(opened, g.path)
			}
		}
	}
	var dsOpen []string // datasets to close after the action
	written := 0
	vs = orderVisits(refsLast(vs), created, ranks)
	writes := func(v visit) bool { return selected(a, v.path, v.ds.Name) && !createdSerially(in.file, v) }
	last := lastCreate(vs, madeGroups, created, ranks, writes)
	for _, v := range vs {
		if !writes(v) {
			// object_order: created here, before the last object the action creates
			if ranks != nil && !created[v.path] && !createdSerially(in.file, v) && rankOf(ranks, v.path) < last {
				made[v.path] = true
				if err := s.createEarly(in, v, step, h, &dsOpen); err != nil {
					return err
				}
			}
			continue
		}
		if !created[v.path] {
			made[v.path] = true
		}
		sp, err := s.e.spec(v.ds, s.sc)
		if err != nil {
			return err
		}
		if old := s.specs[in.path][v.path]; old != nil && !slices.Equal(old.shape, sp.shape) && !sp.auto {
			return &desc.Error{Pos: v.ds.Pos, Key: v.ds.Type.Path, Value: v.ds.Name,
				Reason: fmt.Sprintf("the shape of %s changes from %v to %v at step %d in the same file", v.path, old.shape, sp.shape, step)}
		}
		if sp.create.Type.HasVarLen() && in.parallel {
			return errAt(v.ds.Type, "dataset %s of variable-length strings in file %s, which %d ranks share through MPI-IO: parallel HDF5 writes no variable-length data so (HDF5 1.10 and 1.14: \"Parallel IO does not support writing VL datatypes\")",
				"ranks: 1 (a file per rank: HDF5's serial driver, as for a shared file on one rank), a fixed-length strN (in a compound too), or vstr attributes (parallel HDF5 writes those)", v.path, in.path, s.env.Size)
		}
		unwritten, err := s.unwritten(v.ds)
		if err != nil {
			return err
		}
		if len(sp.create.Virtual) > 0 || unwritten { // created, never written
			if err := s.createUnwritten(in, v, sp, step, h, &dsOpen); err != nil {
				return err
			}
			written++
			continue
		}
		nr, rank := in.share(s.env)
		dec, err := s.e.decomposer(v.ds, sp, s.sc, nr, s.e.d.Dir)
		if err != nil {
			return err
		}
		sp.shape = dec.shape
		sp.create.Shape = slices.Clone(dec.shape)
		prev := s.writes[in.path][v.path]
		if !created[v.path] {
			if err := s.createWritten(in, v, sp, dec, step, h); err != nil {
				return err
			}
		} else if !in.isKept(v.path) && !h.perCall {
			s.cur.Add(plan.Op{Kind: plan.OpenDataset, Path: v.path, Collective: in.parallel, Step: step})
		}
		written++
		s.holdWritten(in, v.path, sp, h, &dsOpen)
		s.specs[in.path][v.path] = sp
		p := dec.part(rank)
		fileShape := slices.Clone(sp.shape)
		sel := p.sel
		extend, mark := sp.extend >= 0 && (len(prev) > 0 || sp.startEmpty), len(s.cur.Ops)
		if extend {
			k, x := uint64(len(prev)), sp.extend
			fileShape[x] = (k + 1) * sp.shape[x]
			s.cur.Add(plan.Op{Kind: plan.ExtendDataset, Path: v.path, Collective: in.parallel, Step: step, Dataset: &plan.DatasetSpec{Shape: slices.Clone(fileShape)}})
			sel = shift(sel, x, k*sp.shape[x])
		}
		t := &plan.Transfer{Variable: v.path, Buffer: v.path, MemType: sp.mem, MemShape: p.mem, FileType: sp.create.Type, FileShape: fileShape, Selection: sel}
		if sp.buffer != "" {
			t.Buffer = sp.buffer + " " + v.parent
		}
		if len(sp.shape) == 0 { // a scalar dataset: rank 0 writes it (replicated: every rank)
			t.MemShape = nil
			if p.mem == nil && dec.kind == "rank0" && rank != 0 {
				t.Selection = plan.None()
			}
		}
		if err := s.literal(in, v, sp, t); err != nil {
			return err
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
			s.cur.Add(plan.Op{Kind: plan.Write, Path: v.path, Collective: dcoll, Step: step, Transfer: t})
		}
		if h.perCall {
			s.heldWrite(in, v.path, step, mark, dcoll, extend, issued)
		}
		s.writes[in.path][v.path] = append(prev, step)
		s.wrote(in, v.path, v.ds)
	}
	if len(a.Datasets) > 0 && written == 0 {
		return errAt(a.Datasets[0], "the action's datasets name none of file %s's datasets at step %d", "dataset names or paths of the file", in.file.ID, step)
	}
	s.orderCreations(mark, made, ranks)
	dsOpen, opened = s.sequence(in, a, mark, dsOpen, opened, false)
	return s.finish(in, step, dsOpen, opened)
}

// createWritten creates dataset v, which writes reach, with the shape of its
// decomposition dec (a series with 0 along its extended dimension when it starts empty),
// and its attributes (and scale) placed at its creation; its spec, with that shape, is
// the one its writes are checked against. A write action creates it at its first write,
// a define: upfront before any write (define.go), the same way.
func (s *sim) createWritten(in *instance, v visit, sp *dsSpec, dec *decomposer, step int, h handles) error {
	sp.shape = dec.shape
	sp.create.Shape = slices.Clone(dec.shape)
	ds := sp.create
	if sp.startEmpty {
		ds.Shape = slices.Clone(ds.Shape)
		ds.Shape[sp.extend] = 0
	}
	op := plan.Op{Kind: plan.CreateDataset, Path: v.path, Collective: in.parallel, Step: step, Dataset: &ds}
	s.created[in.path][v.path] = true
	s.specs[in.path][v.path] = sp
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
	return s.dimsAtCreate(in, v, step)
}

// holdWritten decides who closes dataset path once created or opened for a write: no one
// under hold: call (each call closes it), the file when it keeps it (hold: file, or a
// series kept until the file closes unless series: reopen), else the action (dsOpen).
func (s *sim) holdWritten(in *instance, path string, sp *dsSpec, h handles, dsOpen *[]string) {
	switch {
	case h.perCall, in.isKept(path):
	case h.perFile, sp.extend >= 0 && !h.reopenSeries:
		in.keep(path, false)
	default:
		*dsOpen = append(*dsOpen, path)
	}
}

// finish ends a write action's (or a define's) creations: the links, reference
// attributes and dimension scales whose objects now exist, then the closes of the
// datasets and groups it opened, the last opened first.
func (s *sim) finish(in *instance, step int, dsOpen, opened []string) error {
	if err := s.links(in, step); err != nil {
		return err
	}
	if err := s.refAttributes(in, step, dsOpen, opened); err != nil {
		return err
	}
	s.openNow = func(p string) bool { return slices.Contains(dsOpen, p) || slices.Contains(opened, p) }
	defer func() { s.openNow = nil }()
	if err := s.scales(in, step); err != nil {
		return err
	}
	if err := s.placedAt(in, desc.AtDefined, "", step, s.openNow); err != nil {
		return err
	}
	for i := len(dsOpen) - 1; i >= 0; i-- {
		s.cur.Add(plan.Op{Kind: plan.CloseDataset, Path: dsOpen[i], Collective: in.parallel, Step: step})
	}
	for i := len(opened) - 1; i >= 0; i-- {
		s.cur.Add(plan.Op{Kind: plan.CloseGroup, Path: opened[i], Collective: in.parallel, Step: step})
	}
	return nil
}

// issues reports whether a rank makes the H5Dwrite or H5Dread of transfer t: always in a
// collective transfer (every rank of the file's communicator must call), and under
// independent transfer only when it selects something, as a real code does (a rank that
// owns no part of a rank-0 dataset makes no call; an empty call would show in the census
// and in a profile as a write the program never makes).
func issues(t *plan.Transfer, coll bool) bool { return coll || !t.Selection.IsNone() }

// issues is issues for dataset ds, whose empty_calls has every rank call under
// independent transfers too, a rank without elements with an empty selection (PETSc).
func (s *sim) issues(ds *desc.Dataset, t *plan.Transfer, coll bool) (bool, error) {
	if issues(t, coll) || !ds.EmptyCalls.Set {
		return issues(t, coll), nil
	}
	return s.sc.Bool(ds.EmptyCalls)
}

// shift moves a selection by off along dimension dim (a series' slab k of an extended
// dataset lies k slabs along the dimension it grows by).
func shift(sel plan.Selection, dim int, off uint64) plan.Selection {
	out := plan.Selection{Blocks: make([]plan.Hyperslab, len(sel.Blocks))}
	if sel.Kind == plan.Points {
		out.Kind = plan.Points
	}
	for i, h := range sel.Blocks {
		st := slices.Clone(h.Start)
		st[dim] += off
		out.Blocks[i] = plan.Hyperslab{Start: st, Stride: h.Stride, Count: h.Count, Block: h.Block}
	}
	return out
}

// decomposer returns the (cached) decomposition of a dataset's shape over nranks.
func (e *engine) decomposer(ds *desc.Dataset, sp *dsSpec, sc *desc.Scope, nranks int, dir string) (*decomposer, error) {
	k := decompKey{ds, fmt.Sprint(sp.shape, sp.auto), nranks}
	if d, ok := e.decomps[k]; ok {
		return d, nil
	}
	// Datasets of one map decomposition and shape share it (E3SM's hundreds of variables
	// on a few decompositions): the key names no dataset.
	var shared decompKey
	if dc := &ds.Decompose; strings.EqualFold(dc.Kind.Text, "map") {
		path, err1 := sc.Text(dc.File)
		kk, err2 := sc.Int(dc.Decomp)
		if err1 == nil && err2 == nil {
			shared = decompKey{nil, fmt.Sprint(relTo(dir, path), kk, strings.ToLower(dc.Order.Text), sp.shape), nranks}
			if d, ok := e.decomps[shared]; ok {
				e.decomps[k] = d
				return d, nil
			}
		}
	}
	dc := &ds.Decompose
	if ds.Value.Set && !dc.Kind.Set { // literal contents: rank 0 writes them whole
		rank0 := *dc
		rank0.Kind = desc.Value{Text: "rank0", Pos: ds.Value.Pos, Path: dc.Kind.Path}
		dc = &rank0
	}
	d, err := newDecomposer(ds, dc, sc, slices.Clone(sp.shape), sp.auto, nranks, dir)
	if err != nil {
		return nil, err
	}
	e.decomps[k] = d
	if shared.shape != "" {
		e.decomps[shared] = d
	}
	return d, nil
}

// libverBounds sets the library version bounds file f's libver key gives on fs:
// latest/latest as LibverLatest, another pair as the bounds (a high bound of latest left
// unset: HDF5's latest); the session's hdf5.libver_* knobs apply over them.
func libverBounds(f *desc.File, fs *plan.FileSpec) {
	l, _ := desc.LibverOf(f.Libver) // checked by the parser
	switch {
	case l.Latest():
		fs.LibverLatest = true
	case l.Set:
		bound := []plan.Libver{plan.LibverEarliest, plan.LibverV18, plan.LibverV110, plan.LibverUnset}
		fs.Tuning.LibverLow, fs.Tuning.LibverHigh = bound[l.Low], bound[l.High]
	}
}
