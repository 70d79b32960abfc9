package derive

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// Options are derive's settings.
type Options struct {
	// Ranks is the number of ranks the description decomposes over (its default nranks).
	Ranks int
	// SmallValues is the largest attribute (in elements) whose values are kept; larger
	// ones are generated (seeded).
	SmallValues int
}

// maxInline is the default of Options.SmallValues.
const maxInline = 16

// maxRefs is the most references a dataset of them may hold to be derived with its
// targets (value:); a larger one gets a stand-in of their size.
const maxRefs = 4096

// Write writes the description of files (as Read returns them) for o.Ranks ranks: Build's
// model through the description writer.
func Write(w io.Writer, files []*File, o Options) error {
	d, err := Build(files, o)
	if err != nil {
		return err
	}
	text, err := desc.Marshal(d)
	if err != nil {
		return err
	}
	// Never an invalid description: what a file cannot tell or the format cannot say has
	// a stand-in and a note, so one that does not parse, or parses to another model than
	// the one built, is derive's bug, reported rather than written.
	got, err := desc.Load("(derived)", text)
	if err == nil {
		_, err = got.With(nil)
	}
	if err != nil {
		return fmt.Errorf("derive wrote a description h5proxy check refuses (a derive bug): %w\n%s", err, text)
	}
	if diff := desc.Diff(d, got); diff != "" {
		return fmt.Errorf("derive wrote a description that reads back otherwise (a derive bug): at %s\n%s", diff, text)
	}
	_, err = w.Write(text)
	return err
}

// Build returns the description of files (as Read returns them) for o.Ranks ranks as the
// description model.
func Build(files []*File, o Options) (*desc.Description, error) {
	if o.Ranks < 1 {
		return nil, fmt.Errorf("derive: -np %d: need at least one rank", o.Ranks)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("derive: no input files")
	}
	if o.SmallValues == 0 {
		o.SmallValues = maxInline
	}
	// Twice: the first pass finds the parameters (per-rank extents, lists of folded
	// datasets), whose names depend on how many there are; the second uses the names.
	first := newBuilder(o, nil)
	first.build(files)
	b := newBuilder(o, first.names())
	return b.build(files), nil
}

// builder builds the model: the description and what it collects on the way
// (parameters, compound types, steps).
type builder struct {
	o       Options
	d       *desc.Description
	group   string // the group whose datasets are being built
	perRank []perRank
	byValue map[uint64]int // per-rank extent -> index in perRank
	lists   []desc.Param
	listAt  map[string]int // a list's names, joined -> index in lists
	listIn  []string       // the group each list was first used in
	types   []namedType
	steps   string
	series  []desc.Param // parameters of a file series or per-step groups
	named   *names       // the parameter names (second pass), nil in the first
	serial  bool         // the file being built has a serial writer (writer: rank0)
}

// perRank is a per-rank extent parameter: its value and the dataset it was first seen on.
type perRank struct {
	value      uint64
	base, qual string // ident(dataset), ident(group_dataset)
	seen       string
}

// names are the parameter names the first pass chose.
type names struct {
	perRank []string
	lists   []string
}

type namedType struct {
	name string
	t    plan.Type
	decl *desc.Compound // the declaration when compound() cannot write it (offsets, enum, ...)
}

func newBuilder(o Options, n *names) *builder {
	return &builder{o: o, d: &desc.Description{}, byValue: map[uint64]int{}, listAt: map[string]int{}, named: n}
}

// unit is one file id of the description: a single file or a time series of files.
type unit struct {
	id, name string
	file     *File
	every    int
	comment  string
}

var seriesRE = regexp.MustCompile(`^(.*?)(\d+)(\D*)$`)

// splitSeries splits a file name around its last number, the extension apart (plt00010.h5:
// "plt", "00010", ".h5"); nil when the name has no number.
func splitSeries(base string) []string {
	ext := filepath.Ext(base)
	if strings.ContainsAny(ext, "0123456789") && !strings.ContainsAny(ext, "abcdefghijklmnopqrstuvwxyz") {
		ext = "" // a numeric suffix (FLASH's sod_hdf5_chk_0001) is the number itself
	}
	m := seriesRE.FindStringSubmatch(strings.TrimSuffix(base, ext))
	if m == nil {
		return nil
	}
	return []string{m[0], m[1], m[2], m[3] + ext}
}

func (b *builder) build(files []*File) *desc.Description {
	d := b.d
	units := b.units(files)
	for _, u := range units {
		path := "files." + u.id
		f := &desc.File{ID: u.id, Name: desc.V(u.name)}
		if u.comment != "" {
			d.Comment(path, u.comment)
		}
		root := u.file.Root
		if u.every == 0 && b.steps == "" {
			root = b.foldSteps(root)
		}
		var why string
		b.serial, why = serialWriter(u.file.Root)
		b.content(&f.Content, root, path)
		if b.serial {
			f.Writer = desc.V("rank0")
			d.Guess(path+".writer", why)
		}
		b.trackTimes(f, u.file, path)
		d.Files = append(d.Files, f)
	}
	for i, u := range units {
		a := &desc.Action{Write: desc.V(u.id), Collective: desc.V("true")}
		if u.every > 1 {
			a.Every = desc.V("output_every")
		}
		d.Timeline = append(d.Timeline, a)
		d.NoteAt(fmt.Sprintf("timeline[%d].collective", i)).Line = "a file cannot tell collective from independent transfers"
	}
	d.NoteAt("timeline").Head = "Steps and cadences: what the files show. Reads (a restart, an analysis) are not\nin a file: add {read: ID, at: restart} actions for them."

	var base []string
	for _, f := range files {
		base = append(base, filepath.Base(f.Path))
	}
	d.Comment("", "Derived by h5proxy derive from "+strings.Join(base, ", ")+".",
		"What the files cannot tell, and where to set it:",
		" - the decomposition: each dataset's decompose (here a block over the slowest",
		fmt.Sprintf("   dimension for %d ranks; rank0 where that dimension does not divide);", b.o.Ranks),
		" - the compute time between steps: compute (0s here);",
		" - collective or independent transfers: each timeline action's collective;",
		" - data values: datasets are filled with seeded values, attributes keep small values.")
	name := strings.TrimSuffix(base[0], filepath.Ext(base[0]))
	if m := splitSeries(name); m != nil && m[1] != "" {
		name = strings.TrimRight(m[1], "_-.")
	}
	d.Name = desc.V(name)
	d.Params = append(d.Params, b.series...)
	for i, p := range b.perRank {
		n := b.paramName(i)
		d.Params = append(d.Params, desc.Param{Name: n, Value: desc.V(sizeText(p.value))})
		d.NoteAt("params." + n).Line = "elements per rank along dim 0 (first seen on " + p.seen + ")"
	}
	d.Params = append(d.Params, b.lists...)
	if b.steps != "" {
		d.Steps = desc.V(b.steps)
	}
	d.Ranks = desc.V(strconv.Itoa(b.o.Ranks))
	d.NoteAt("ranks").Line = "the ranks derive decomposed over (-np): h5proxy run's default"
	d.Compute = desc.V("0s")
	d.NoteAt("compute").Line = "the compute time after each step: not in a file"
	for _, t := range b.types {
		if t.decl != nil {
			d.Types = append(d.Types, t.decl)
			continue
		}
		d.Types = append(d.Types, compound(t.name, t.t))
	}
	return d
}

// serialWriter reports a file one process wrote through a serial driver, and why: it
// holds a dataset of region references, which parallel HDF5 does not write, or it has
// datasets that are not compact, and each is allocated late or incrementally, which none
// of a file opened through MPI-IO is (HDF5 sets H5D_ALLOC_TIME_EARLY on every dataset of
// such a file).
func serialWriter(root *Group) (bool, string) {
	n, early, regions := 0, false, false
	var walk func(g *Group)
	walk = func(g *Group) {
		for _, d := range g.Datasets {
			regions = regions || d.Refs != nil && d.Refs.Type.Region
			if d.Info.Compact || d.Virtual {
				continue
			}
			n++
			t := d.Creation.AllocTime
			early = early || t != plan.AllocTimeLate && t != plan.AllocTimeIncr
		}
		for _, s := range g.Groups {
			walk(s)
		}
	}
	walk(root)
	if regions {
		return true, "a dataset of region references, which parallel HDF5 does not write (\"Parallel IO does not support writing VL or region reference datatypes yet\"): one process wrote it through a serial driver"
	}
	return n > 0 && !early, "the datasets' storage is allocated late or incrementally, which a file opened through MPI-IO never has (it allocates early): one process wrote it through a serial driver"
}

// literalShape is an extent as numbers, for a dataset whose values are written with it.
func literalShape(dims []uint64) []string {
	out := make([]string, len(dims))
	for j, v := range dims {
		out[j] = strconv.FormatUint(v, 10)
	}
	return out
}

// paramName is the name of per-rank parameter i: the first pass's choice, a placeholder
// in the first pass.
func (b *builder) paramName(i int) string {
	if b.named != nil && i < len(b.named.perRank) {
		return b.named.perRank[i]
	}
	return fmt.Sprintf("n%d", i)
}

// names names the parameters the pass found: "n" for a lone per-rank extent, else n_DATASET
// after the first dataset that uses each; "vars" for a lone list of folded datasets, else
// vars_FIRST.
func (b *builder) names() *names {
	taken := map[string]bool{"steps": true, "outputs": true, "output_every": true, "first_output": true, "nranks": true, "rank": true, "step": true}
	out := &names{}
	unique := func(name string) string {
		for taken[name] {
			name += "_"
		}
		taken[name] = true
		return name
	}
	for _, p := range b.perRank {
		name := "n"
		if len(b.perRank) > 1 {
			name = "n_" + p.base
		}
		if taken[name] {
			name = "n_" + p.qual // the same dataset name in another group
		}
		out.perRank = append(out.perRank, unique(name))
	}
	for i, l := range b.lists {
		name := "vars"
		if len(b.lists) > 1 {
			name = "vars_" + ident(l.Value.List[0].Text)
		}
		if taken[name] {
			name = "vars_" + ident(b.listIn[i]+"_"+l.Value.List[0].Text) // the same first name in another group
		}
		out.lists = append(out.lists, unique(name))
	}
	return out
}

// units groups the input files into file ids: files named like a time series (a common
// prefix and suffix around step numbers of one width) with equal structure become one id
// with a step cadence; the others are one id each.
func (b *builder) units(files []*File) []unit {
	type key struct{ pre, suf string }
	bySeries := map[key][]int{}
	var order []key
	for i, f := range files {
		m := splitSeries(filepath.Base(f.Path))
		k := key{filepath.Base(f.Path), ""}
		if m != nil {
			k = key{m[1] + "\x00" + strconv.Itoa(len(m[2])), m[3]}
		}
		if _, ok := bySeries[k]; !ok {
			order = append(order, k)
		}
		bySeries[k] = append(bySeries[k], i)
	}
	var out []unit
	ids := map[string]bool{}
	nonID := regexp.MustCompile(`[^A-Za-z0-9]+`)
	newID := func(base string) string {
		id := strings.Trim(nonID.ReplaceAllString(base, "_"), "_")
		if id == "" || (id[0] >= '0' && id[0] <= '9') {
			id = "file_" + id
		}
		for n, try := 2, id; ; n++ {
			if !ids[try] {
				ids[try] = true
				return try
			}
			try = fmt.Sprintf("%s_%d", id, n)
		}
	}
	series := 0
	for _, k := range order {
		idx := bySeries[k]
		if len(idx) >= 2 && series == 0 && sameStructure(files, idx) {
			if u, ok := b.series1(files, idx); ok {
				u.id = newID(strings.SplitN(k.pre, "\x00", 2)[0])
				out = append(out, u)
				series++
				continue
			}
		}
		for _, i := range idx {
			base := filepath.Base(files[i].Path)
			out = append(out, unit{id: newID(strings.TrimSuffix(base, filepath.Ext(base))), name: base, file: files[i]})
		}
	}
	return out
}

// series1 turns files idx (sorted by their numbers) into one id written every cadence
// steps: steps = (outputs-1)*cadence+1 and the name substitutes first + step.
func (b *builder) series1(files []*File, idx []int) (unit, bool) {
	type num struct {
		n int
		i int
	}
	var nums []num
	var pre, suf string
	width := 0
	for _, i := range idx {
		m := splitSeries(filepath.Base(files[i].Path))
		n, err := strconv.Atoi(m[2])
		if err != nil {
			return unit{}, false
		}
		pre, suf, width = m[1], m[3], len(m[2])
		nums = append(nums, num{n, i})
	}
	sort.Slice(nums, func(a, b int) bool { return nums[a].n < nums[b].n })
	cad := nums[1].n - nums[0].n
	for j := 1; j < len(nums); j++ {
		if cad <= 0 || nums[j].n-nums[j-1].n != cad {
			return unit{}, false
		}
	}
	first := nums[0].n
	b.param(desc.Param{Name: "outputs", Value: desc.Vf("%d", len(nums))}, "files in the series")
	b.param(desc.Param{Name: "output_every", Value: desc.Vf("%d", cad)}, "steps between outputs (the numbers in the names)")
	expr := "step"
	if first != 0 {
		b.param(desc.Param{Name: "first_output", Value: desc.Vf("%d", first)}, "the first file's number")
		expr = "first_output + step"
	}
	b.steps = "(outputs - 1) * output_every + 1"
	name := fmt.Sprintf("%s${%s:0%dd}%s", pre, expr, width, suf)
	return unit{name: name, file: files[nums[0].i], every: cad,
		comment: fmt.Sprintf("a time series of %d files, %s .. %s: one every output_every steps", len(nums),
			filepath.Base(files[nums[0].i].Path), filepath.Base(files[nums[len(nums)-1].i].Path))}, true
}

// param declares a series parameter with its comment.
func (b *builder) param(p desc.Param, comment string) {
	b.series = append(b.series, p)
	b.d.NoteAt("params." + p.Name).Line = comment
}

// sameStructure reports whether files idx have the same groups, datasets, links and
// attributes (names, types, shapes, properties; attribute values aside).
func sameStructure(files []*File, idx []int) bool {
	ref := signature(files[idx[0]].Root)
	for _, i := range idx[1:] {
		if signature(files[i].Root) != ref {
			return false
		}
	}
	return true
}

func signature(g *Group) string {
	var b strings.Builder
	sigGroup(&b, g)
	return b.String()
}

func sigGroup(b *strings.Builder, g *Group) {
	fmt.Fprintf(b, "G%s{", g.Name)
	sigAttrs(b, g.Attrs)
	for _, s := range g.Groups {
		sigGroup(b, s)
	}
	for _, ds := range g.Datasets {
		fmt.Fprintf(b, "D%s%s", ds.Name, dsSig(ds))
		sigAttrs(b, ds.Attrs)
	}
	fmt.Fprintf(b, "L%v U%v O%s%s}", g.Links, g.Unread, g.LinkOrder, g.AttrOrder)
}

func sigAttrs(b *strings.Builder, as []plan.AttributeSpec) {
	for _, a := range as {
		t := a.Type.String()
		if a.Type.VarLen { // sized by its value when read: the file's type is one
			t = stringName(a.Type)
		}
		fmt.Fprintf(b, "A%s:%s%v;", a.Name, t, a.Shape)
	}
}

func dsSig(ds *Dataset) string {
	i := ds.Info
	return fmt.Sprintf("%s%v%v%v%d%v%v%v%v%v|%v|%s|%v|%v|%s", i.Type, i.Shape, i.MaxShape, i.Chunk, i.Deflate, i.Filters,
		i.FillNever, i.FillUndefined, i.FillAlloc, i.Compact, ds.Creation, ds.StandIn, ds.Virtual, ds.Unread, ds.AttrOrder) + refsSig(ds.Refs) + fmt.Sprint(ds.Mappings)
}

var stepGroupRE = regexp.MustCompile(`^(.*?)(\d+)$`)

// foldSteps replaces sibling groups named PREFIX0, PREFIX1, ... of equal structure (a
// group per step, as VPIC and h5bench write) by one template group PREFIX${step} and sets
// the steps. It folds one family, the first found (steps are the description's own).
func (b *builder) foldSteps(root *Group) *Group {
	fams := map[string][]*Group{}
	var order []string
	for _, g := range root.Groups {
		m := stepGroupRE.FindStringSubmatch(g.Name)
		if m == nil {
			continue
		}
		if _, ok := fams[m[1]]; !ok {
			order = append(order, m[1])
		}
		fams[m[1]] = append(fams[m[1]], g)
	}
	for _, pre := range order {
		gs := fams[pre]
		if len(gs) < 2 {
			continue
		}
		nums := map[int]*Group{}
		ref := ""
		ok := true
		for _, g := range gs {
			n, err := strconv.Atoi(strings.TrimPrefix(g.Name, pre))
			s := signature(&Group{Attrs: g.Attrs, Groups: g.Groups, Datasets: g.Datasets})
			if err != nil || strconv.Itoa(n) != strings.TrimPrefix(g.Name, pre) || (ref != "" && s != ref) || len(g.Links) > 0 {
				ok = false
				break
			}
			ref = s
			nums[n] = g
		}
		for n := 0; ok && n < len(gs); n++ {
			ok = nums[n] != nil
		}
		if !ok {
			continue
		}
		out := *root
		out.Groups = nil
		for _, g := range root.Groups {
			if !slices.Contains(gs, g) {
				out.Groups = append(out.Groups, g)
			} else if g == nums[0] {
				t := *g
				t.Name = pre + "${step}"
				out.Groups = append(out.Groups, &t)
			}
		}
		b.param(desc.Param{Name: "steps", Value: desc.Vf("%d", len(gs))}, fmt.Sprintf("groups %s0 .. %s%d: one per step", pre, pre, len(gs)-1))
		b.steps = "steps"
		return &out
	}
	return root
}

// content builds a group's (or a file's root group's) attributes, datasets, subgroups and
// links at path (the key path of the file or group).
func (b *builder) content(c *desc.Content, g *Group, path string) {
	c.CreationOrder = desc.CreationOrder{Links: order(g.LinkOrder), Attributes: order(g.AttrOrder)}
	if g.Interleaved != "" {
		b.d.Comment(path, "not expressed: the link creation order mixes kinds ("+g.Interleaved+"): a run creates a group's subgroups, then its datasets, then its links, each in the order listed")
	}
	b.unread(g.Unread, path)
	c.Attributes = b.attrs(g.Attrs, g.Unread, path)
	b.group = g.Name
	for _, set := range fold(g.Datasets, tracks(g.LinkOrder)) {
		c.Datasets = append(c.Datasets, b.dataset(set, join(path, "datasets")))
	}
	for _, s := range g.Groups {
		grp := &desc.Group{Name: desc.V(s.Name)}
		b.content(&grp.Content, s, join(path, "groups."+s.Name))
		c.Groups = append(c.Groups, grp)
	}
	for _, l := range g.Links {
		dl := &desc.Link{Name: desc.V(l.Name)}
		switch l.Kind {
		case h5.LinkHard:
			dl.Hard = desc.V(l.Target)
		case h5.LinkSoft:
			dl.Soft = desc.V(l.Target)
		default:
			dl.External = desc.ExternalLink{File: desc.V(l.File), Path: desc.V(l.Target)}
		}
		c.Links = append(c.Links, dl)
	}
}

// order is a creation_order value: unset for none (HDF5's default).
func order(o string) desc.Value {
	if o == "" || o == "none" {
		return desc.Value{}
	}
	return desc.V(o)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// fold groups datasets of equal type, shape and properties and equal attributes (values
// included) into lists of names, in the order of their first member. With adjacent (the
// group keeps its links' creation order) only neighbours fold, so that the list's
// creates keep the file's order.
func fold(ds []*Dataset, adjacent bool) [][]*Dataset {
	var out [][]*Dataset
	at := map[string]int{}
	for _, x := range ds {
		s := dsSig(x)
		for _, a := range x.Attrs {
			s += fmt.Sprintf("|%s:%s%v=%x", a.Name, a.Type, a.Shape, a.Value)
		}
		if i, ok := at[s]; ok && (!adjacent || i == len(out)-1) {
			out[i] = append(out[i], x)
			continue
		}
		at[s] = len(out)
		out = append(out, []*Dataset{x})
	}
	return out
}

// dataset builds one dataset, or a list of equal ones as "${LIST}" with a list parameter.
func (b *builder) dataset(set []*Dataset, parent string) *desc.Dataset {
	x := set[0]
	name := x.Name
	if len(set) > 1 {
		var ns []string
		for _, s := range set {
			ns = append(ns, s.Name)
		}
		k, ok := b.listAt[strings.Join(ns, "\x00")]
		if !ok { // a list met again (the same names in another group) is the same parameter
			k = len(b.lists)
			b.listAt[strings.Join(ns, "\x00")] = k
			b.lists = append(b.lists, desc.Param{Value: desc.VList(ns...), IsList: true})
			b.listIn = append(b.listIn, b.group)
		}
		b.lists[k].Name = fmt.Sprintf("vars%d", k)
		if b.named != nil && k < len(b.named.lists) {
			b.lists[k].Name = b.named.lists[k]
		}
		name = "${" + b.lists[k].Name + "}"
	}
	path := join(parent, name)
	i := x.Info
	standIn := x.StandIn
	var refs desc.Value // a dataset of references: its targets
	if i.Type.Class == plan.Reference {
		var ok bool
		if x.Refs != nil {
			refs, ok = values(*x.Refs, max(b.o.SmallValues, maxRefs))
		}
		if !ok { // unwritten, or too many to list
			standIn = fmt.Sprintf("%s of %d bytes", map[bool]string{false: "an object reference", true: "a dataset region reference"}[i.Type.Region], i.Type.Size)
			i.Type = standInType(i.Type.Size)
		}
	}
	ds := &desc.Dataset{Name: name, Type: desc.V(b.typeName(i.Type, x.Name)), Value: refs}
	shape, decomp := literalShape(i.Shape), "" // with values: written whole (decompose's default rank0)
	if !refs.Set {
		shape, decomp = b.shape(i.Shape, i.MaxShape, x.Name)
	}
	ds.Shape = desc.Vs(shape...)
	if len(shape) == 0 {
		ds.Give("shape") // a scalar dataset: shape: []
	}
	if !slices.Equal(i.Shape, i.MaxShape) && len(i.MaxShape) > 0 {
		for j, m := range i.MaxShape {
			switch {
			case m == plan.MaxUnlimited:
				ds.MaxShape = append(ds.MaxShape, desc.V("unlimited"))
			case m == i.Shape[j]:
				ds.MaxShape = append(ds.MaxShape, desc.V(shape[j]))
			default:
				ds.MaxShape = append(ds.MaxShape, desc.V(strconv.FormatUint(m, 10)))
			}
		}
	}
	switch {
	case i.Compact:
		ds.Layout = desc.V("compact")
	case i.Chunk != nil:
		np := uint64(b.o.Ranks)
		for j, c := range i.Chunk {
			e := strconv.FormatUint(c, 10)
			if k, ok := b.byValue[c]; ok && j == 0 && i.Shape[0]%np == 0 && c == i.Shape[0]/np {
				e = b.paramName(k) // a chunk of one rank's rows (the per-rank parameter)
			}
			ds.Chunk = append(ds.Chunk, desc.V(e))
		}
		ds.Filters = b.filters(i, path)
	}
	if i.FillUndefined {
		ds.Fill = desc.V("undefined")
	} else if x.Creation.FillSet && numeric(i.Type) && standIn == "" {
		ds.Fill = desc.V(fillText(i.Type, x.Creation.Fill))
	}
	switch {
	case i.FillNever:
		ds.FillTime = desc.V("never")
	case i.FillAlloc:
		ds.FillTime = desc.V("alloc")
	}
	// Early is what a file opened through MPI-IO gets whatever is set, and the compact
	// layout's only time: said only when the file has another.
	if t := x.Creation.AllocTime; t == plan.AllocTimeLate || t == plan.AllocTimeIncr {
		ds.AllocTime = desc.V(plan.AllocTimeNames[t-1])
	}
	switch {
	case decomp == "rank0":
		ds.Decompose.Kind = desc.V("rank0")
	case b.serial:
		// One rank writes the file: every dataset whole, no grid over the ranks.
	case decomp == "grid" || decomp == "empty" && len(i.Shape) > 1:
		// The ranks along dim 0, or along the first empty dimension (no rank writes an
		// element of an empty dataset, and any count divides 0).
		grid := slices.Repeat([]string{"1"}, len(i.Shape))
		grid[max(slices.Index(i.Shape, 0), 0)] = "nranks"
		ds.Decompose.Grid = desc.Vs(grid...)
	}
	switch {
	case decomp == "empty":
		b.d.NoteAt(path).Line = "empty"
	case decomp == "rank0" && appended(i.MaxShape):
		b.d.Guess(path, "dim 0 is unlimited (appended to, as a time series): rank 0 writes it whole, not split over the ranks")
	case decomp == "rank0" && len(i.Shape) > 0:
		b.d.NoteAt(path).Line = "dim 0 does not divide over the ranks: rank 0 writes it"
	}
	if standIn != "" {
		b.d.Comment(path, fmt.Sprintf("not expressed: the file's datatype is %s, which descriptions cannot say yet: %s stands in (same size)", standIn, ds.Type.Text))
	}
	if x.Unallocated {
		ds.Written = desc.V("false")
		b.d.NoteAt(path + ".written").Line = "no storage allocated: created, never written"
	}
	if x.Virtual {
		var ok bool
		if ds.Virtual, ok = virtualMaps(x.Mappings, i.Shape); !ok {
			b.d.Comment(path, "not expressed: a virtual dataset (H5Pset_virtual) whose mappings are not one block of each dataspace: a contiguous one of its extent stands in")
		}
	}
	attrs := x.Attrs
	if name, ok := scaleName(attrs); ok { // H5DSset_scale: its CLASS and NAME are scale's
		ds.Scale = desc.V(name)
		attrs = slices.DeleteFunc(slices.Clone(attrs), func(a plan.AttributeSpec) bool { return a.Name == "CLASS" || a.Name == "NAME" })
	}
	for _, u := range x.Unread {
		if u.Name == "DIMENSION_LIST" && u.Refs != nil {
			ds.Dims = scaleDims(u.Refs, len(i.Shape))
		}
	}
	b.unread(x.Unread, path)
	ds.Attributes = b.attrs(attrs, x.Unread, path)
	ds.CreationOrder = order(x.AttrOrder)
	return ds
}

// scaleName returns the name of a dimension scale (H5DSset_scale: a string attribute CLASS
// "DIMENSION_SCALE" and, when named, NAME), ok false for a dataset that is none.
func scaleName(as []plan.AttributeSpec) (string, bool) {
	class, name := "", ""
	for _, a := range as {
		if a.Type.Class == plan.String && len(a.Shape) == 0 && !a.Type.NullPad && !a.Type.VarLen {
			switch a.Name {
			case "CLASS":
				class = scalar(a.Type, a.Value)
			case "NAME":
				name = scalar(a.Type, a.Value)
			}
		}
	}
	return name, class == "DIMENSION_SCALE"
}

// scaleDims turns a DIMENSION_LIST's scales per dimension into dims entries: a path, a
// list of paths, or "" for none.
func scaleDims(refs [][]string, rank int) []desc.Value {
	dims := make([]desc.Value, rank)
	for j := range dims {
		var r []string
		if j < len(refs) {
			r = refs[j]
		}
		switch len(r) {
		case 0:
			dims[j] = desc.V("")
		case 1:
			dims[j] = desc.V(r[0])
		default:
			dims[j] = desc.VList(r...)
		}
	}
	return dims
}

// shape renders a dataset's extents: the slowest as PARAM * nranks when it divides over
// the ranks (a parameter per distinct per-rank extent), the others as numbers. The
// decomposition is a block over the slowest dimension, or rank0 when it does not divide.
func (b *builder) shape(dims, maxDims []uint64, name string) ([]string, string) {
	if len(dims) == 0 {
		return nil, "rank0"
	}
	out := literalShape(dims)
	np := uint64(b.o.Ranks)
	if slices.Contains(dims, 0) {
		return out, "empty"
	}
	if dims[0]%np != 0 || appended(maxDims) {
		return out, "rank0"
	}
	out[0] = b.perRankParam(dims[0]/np, name) + " * nranks"
	if len(dims) == 1 {
		return out, ""
	}
	return out, "grid"
}

// appended reports whether a dataset's slowest dimension is unlimited: a file grown one
// record at a time (H5MD's time series, netCDF's record variables), which a file cannot
// tell from a block of rows per rank, so derive does not split it over the ranks.
func appended(maxDims []uint64) bool { return len(maxDims) > 0 && maxDims[0] == plan.MaxUnlimited }

// perRankParam returns the parameter of a per-rank extent, declaring it at its first use.
func (b *builder) perRankParam(v uint64, name string) string {
	if k, ok := b.byValue[v]; ok {
		return b.paramName(k)
	}
	b.byValue[v] = len(b.perRank)
	b.perRank = append(b.perRank, perRank{value: v, base: ident(name), qual: ident(b.group + "_" + name),
		seen: strings.TrimPrefix(b.group+"/"+name, "//")})
	return b.paramName(len(b.perRank) - 1)
}

// sizeText renders a count with a binary unit when it has one (2097152: 2Mi), as a person
// writes sizes in a description.
func sizeText(v uint64) string {
	for _, u := range []struct {
		unit string
		n    uint64
	}{{"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
		if v >= u.n && v%u.n == 0 {
			return strconv.FormatUint(v/u.n, 10) + u.unit
		}
	}
	return strconv.FormatUint(v, 10)
}

// trackTimes sets track_times: false on a file whose datasets all lack their times (a
// file records whether each object header keeps them; netCDF-4 and h5py create theirs
// without). The key is the file's: datasets that differ keep the default, with a note.
func (b *builder) trackTimes(f *desc.File, in *File, path string) {
	switch {
	case in.Untimed == 0:
	case in.Timed == 0:
		f.TrackTimes = desc.V("false")
		b.d.Comment(path+".track_times", "no dataset of the file records its times")
	default:
		b.d.Comment(path, fmt.Sprintf("%d of the file's %d datasets record no times (H5Pset_obj_track_times false): track_times is the whole file's, left at its default", in.Untimed, in.Untimed+in.Timed))
	}
}
