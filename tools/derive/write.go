package derive

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

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

// Write renders the description of files (as Read returns them) for o.Ranks ranks.
func Write(w io.Writer, files []*File, o Options) error {
	if o.Ranks < 1 {
		return fmt.Errorf("derive: -np %d: need at least one rank", o.Ranks)
	}
	if len(files) == 0 {
		return fmt.Errorf("derive: no input files")
	}
	if o.SmallValues == 0 {
		o.SmallValues = maxInline
	}
	d := &deriver{o: o, params: map[uint64]string{}}
	var b bytes.Buffer
	if err := d.write(&b, files); err != nil {
		return err
	}
	// Never an invalid description: what a file cannot tell has a stand-in and a
	// comment, so one that does not parse is derive's bug, reported rather than written.
	if _, err := desc.Parse("(derived)", b.Bytes(), nil); err != nil {
		return fmt.Errorf("derive wrote a description h5proxy check refuses (a derive bug): %w\n%s", err, b.Bytes())
	}
	_, err := w.Write(b.Bytes())
	return err
}

// deriver holds what the rendering collects: parameters (per-rank extents by value),
// compound types, the steps and the body text.
type deriver struct {
	o         Options
	group     string            // the group whose datasets are being rendered
	params    map[uint64]string // per-rank extent -> parameter name
	paramList []param
	types     []namedType
	steps     string
	series    []string // lines of params for a file series
	notes     []string
}

type param struct {
	name, value, comment string
}

type namedType struct {
	name string
	t    plan.Type
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

func (d *deriver) write(w io.Writer, files []*File) error {
	units, err := d.units(files)
	if err != nil {
		return err
	}
	var body bytes.Buffer
	fmt.Fprintln(&body, "files:")
	for _, u := range units {
		if u.comment != "" {
			fmt.Fprintf(&body, "  # %s\n", u.comment)
		}
		fmt.Fprintf(&body, "  %s:\n    name: %s\n", key(u.id), quoteIf(u.name))
		root := u.file.Root
		if u.every == 0 && d.steps == "" {
			root = d.foldSteps(root)
		}
		d.groupBody(&body, root, "    ")
	}
	fmt.Fprintln(&body, "\n# Steps and cadences: what the files show. Reads (a restart, an analysis) are not")
	fmt.Fprintln(&body, "# in a file: add {read: ID, at: restart} actions for them.")
	fmt.Fprintln(&body, "timeline:")
	for _, u := range units {
		fmt.Fprintf(&body, "  - write: %s\n", key(u.id))
		if u.every > 1 {
			fmt.Fprintf(&body, "    every: output_every\n")
		}
		fmt.Fprintln(&body, "    collective: true    # a file cannot tell collective from independent transfers")
	}

	body = *bytes.NewBuffer(d.nameParams(body.Bytes()))
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f.Path))
	}
	fmt.Fprintf(w, "# Derived by h5proxy derive from %s.\n", strings.Join(names, ", "))
	fmt.Fprintln(w, "# What the files cannot tell, and where to set it:")
	fmt.Fprintln(w, "#  - the decomposition: each dataset's decompose (here a block over the slowest")
	fmt.Fprintf(w, "#    dimension for %d ranks; rank0 where that dimension does not divide);\n", d.o.Ranks)
	fmt.Fprintln(w, "#  - the compute time between steps: compute (0s here);")
	fmt.Fprintln(w, "#  - collective or independent transfers: each timeline action's collective;")
	fmt.Fprintln(w, "#  - data values: datasets are filled with seeded values, attributes keep small values.")
	name := strings.TrimSuffix(names[0], filepath.Ext(names[0]))
	if m := splitSeries(name); m != nil && m[1] != "" {
		name = strings.TrimRight(m[1], "_-.")
	}
	fmt.Fprintf(w, "name: %s\n", quoteIf(name))
	fmt.Fprintln(w, "params:")
	for _, s := range d.series {
		fmt.Fprintln(w, s)
	}
	for _, p := range d.paramList {
		fmt.Fprintf(w, "  %s: %s", p.name, p.value)
		if p.comment != "" {
			fmt.Fprintf(w, "    # %s", p.comment)
		}
		fmt.Fprintln(w)
	}
	if len(d.series) == 0 && len(d.paramList) == 0 {
		fmt.Fprintln(w, "  {}")
	}
	if d.steps != "" {
		fmt.Fprintf(w, "steps: %s\n", d.steps)
	}
	fmt.Fprintln(w, "compute: 0s              # the compute time after each step: not in a file")
	if len(d.types) > 0 {
		fmt.Fprintln(w, "types:")
		for _, t := range d.types {
			fmt.Fprintf(w, "  %s: %s\n", key(t.name), d.members(t.t))
		}
	}
	for _, n := range d.notes {
		fmt.Fprintf(w, "# %s\n", n)
	}
	_, err = w.Write(body.Bytes())
	return err
}

// units groups the input files into file ids: files named like a time series (a common
// prefix and suffix around step numbers of one width) with equal structure become one id
// with a step cadence; the others are one id each.
func (d *deriver) units(files []*File) ([]unit, error) {
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
	newID := func(base string) string {
		id := strings.Trim(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(base, "_"), "_")
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
		if len(idx) >= 2 && series == 0 && d.sameStructure(files, idx) {
			u, ok := d.series1(files, idx)
			if ok {
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
	return out, nil
}

// series1 turns files idx (sorted by their numbers) into one id written every cadence
// steps: steps = (outputs-1)*cadence+1 and the name substitutes first + step.
func (d *deriver) series1(files []*File, idx []int) (unit, bool) {
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
	d.series = append(d.series,
		fmt.Sprintf("  outputs: %d          # files in the series", len(nums)),
		fmt.Sprintf("  output_every: %d     # steps between outputs (the numbers in the names)", cad))
	expr := "step"
	if first != 0 {
		d.series = append(d.series, fmt.Sprintf("  first_output: %d     # the first file's number", first))
		expr = "first_output + step"
	}
	d.steps = "(outputs - 1) * output_every + 1"
	name := fmt.Sprintf("%s${%s:0%dd}%s", pre, expr, width, suf)
	return unit{name: name, file: files[nums[0].i], every: cad,
		comment: fmt.Sprintf("a time series of %d files, %s .. %s: one every output_every steps", len(nums),
			filepath.Base(files[nums[0].i].Path), filepath.Base(files[nums[len(nums)-1].i].Path))}, true
}

// sameStructure reports whether files idx have the same groups, datasets and attributes
// (names, types, shapes, properties; attribute values aside).
func (d *deriver) sameStructure(files []*File, idx []int) bool {
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
	b.WriteString("}")
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
	return fmt.Sprintf("%s%v%v%v%d%v%v%v%v%v", i.Type, i.Shape, i.MaxShape, i.Chunk, i.Deflate, i.Filters,
		i.FillNever, i.FillUndefined, i.FillAlloc, i.Compact)
}

var stepGroupRE = regexp.MustCompile(`^(.*?)(\d+)$`)

// foldSteps replaces sibling groups named PREFIX0, PREFIX1, ... of equal structure (a
// group per step, as VPIC and h5bench write) by one template group PREFIX${step} and sets
// the steps. It folds one family, the first found (steps are the description's own).
func (d *deriver) foldSteps(root *Group) *Group {
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
			if err != nil || strconv.Itoa(n) != strings.TrimPrefix(g.Name, pre) || (ref != "" && s != ref) {
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
		out := &Group{Name: root.Name, Attrs: root.Attrs, Datasets: root.Datasets}
		for _, g := range root.Groups {
			if !slices.Contains(gs, g) {
				out.Groups = append(out.Groups, g)
			} else if g == nums[0] {
				t := *g
				t.Name = pre + "${step}"
				out.Groups = append(out.Groups, &t)
			}
		}
		d.series = append(d.series, fmt.Sprintf("  steps: %d    # groups %s0 .. %s%d: one per step", len(gs), pre, pre, len(gs)-1))
		d.steps = "steps"
		return out
	}
	return root
}

// groupBody renders a group's attributes, datasets and subgroups at indent.
func (d *deriver) groupBody(w *bytes.Buffer, g *Group, ind string) {
	if g.Path == "/" {
		unlisted(w, g, ind)
	}
	d.attrs(w, g.Attrs, ind)
	d.group = g.Name
	if len(g.Datasets) > 0 {
		fmt.Fprintf(w, "%sdatasets:\n", ind)
		for _, f := range fold(g.Datasets) {
			d.dataset(w, f, ind+"  ")
		}
	}
	if len(g.Groups) > 0 {
		fmt.Fprintf(w, "%sgroups:\n", ind)
		for _, s := range g.Groups {
			unlisted(w, s, ind+"  ")
			if len(s.Attrs) == 0 && len(s.Datasets) == 0 && len(s.Groups) == 0 {
				fmt.Fprintf(w, "%s  %s: {}\n", ind, key(s.Name))
				continue
			}
			fmt.Fprintf(w, "%s  %s:\n", ind, key(s.Name))
			d.groupBody(w, s, ind+"    ")
		}
	}
}

// unlisted says, in a comment, that group g has links the description does not hold.
func unlisted(w *bytes.Buffer, g *Group, ind string) {
	if g.Unlisted > 0 {
		fmt.Fprintf(w, "%s# not expressed: %d link(s) of %s to objects listed elsewhere or outside the file (hard, soft or external links; derive cannot name them yet): add them under links: ({NAME: {hard: PATH}})\n", ind, g.Unlisted, g.Path)
	}
}

// fold groups datasets of equal type, shape and properties and equal attributes (values
// included) into lists of names, in the order of their first member.
func fold(ds []*Dataset) [][]*Dataset {
	var out [][]*Dataset
	at := map[string]int{}
	for _, x := range ds {
		s := dsSig(x)
		for _, a := range x.Attrs {
			s += fmt.Sprintf("|%s:%s%v=%x", a.Name, a.Type, a.Shape, a.Value)
		}
		if i, ok := at[s]; ok {
			out[i] = append(out[i], x)
			continue
		}
		at[s] = len(out)
		out = append(out, []*Dataset{x})
	}
	return out
}

func (d *deriver) dataset(w *bytes.Buffer, set []*Dataset, ind string) {
	x := set[0]
	k := key(x.Name)
	if len(set) > 1 {
		var names []string
		for _, s := range set {
			names = append(names, key(s.Name))
		}
		k = "[" + strings.Join(names, ", ") + "]"
	}
	i := x.Info
	var f []string
	f = append(f, "type: "+d.typeName(i.Type, x.Name))
	shape, decomp := d.shape(i.Shape, i.MaxShape, x.Name)
	f = append(f, "shape: ["+strings.Join(shape, ", ")+"]")
	if !slices.Equal(i.Shape, i.MaxShape) && len(i.MaxShape) > 0 {
		var ms []string
		for j, m := range i.MaxShape {
			switch {
			case m == plan.MaxUnlimited:
				ms = append(ms, "unlimited")
			case m == i.Shape[j]:
				ms = append(ms, shape[j])
			default:
				ms = append(ms, strconv.FormatUint(m, 10))
			}
		}
		f = append(f, "max_shape: ["+strings.Join(ms, ", ")+"]")
	}
	switch {
	case i.Compact:
		f = append(f, "layout: compact")
	case i.Chunk != nil:
		var cs []string
		np := uint64(d.o.Ranks)
		for j, c := range i.Chunk {
			e := strconv.FormatUint(c, 10)
			if p, ok := d.params[c]; ok && j == 0 && i.Shape[0]%np == 0 && c == i.Shape[0]/np {
				e = p // a chunk of one rank's rows (the per-rank parameter)
			}
			cs = append(cs, e)
		}
		f = append(f, "chunk: ["+strings.Join(cs, ", ")+"]")
		if fl := filters(i); fl != "" {
			f = append(f, "filters: ["+fl+"]")
		}
	}
	switch {
	case i.FillUndefined:
		f = append(f, "fill: undefined")
	}
	switch {
	case i.FillNever:
		f = append(f, "fill_time: never")
	case i.FillAlloc:
		f = append(f, "fill_time: alloc")
	}
	if decomp != "" {
		f = append(f, "decompose: "+decomp)
	}
	note := ""
	switch {
	case decomp == "rank0" && appended(i.MaxShape):
		note = "    # guess: dim 0 is unlimited (appended to, as a time series): rank 0 writes it whole, not split over the ranks"
	case decomp == "rank0" && len(i.Shape) > 0 && i.Shape[0] == 0:
		note = "    # empty"
	case decomp == "rank0" && len(i.Shape) > 0:
		note = "    # dim 0 does not divide over the ranks: rank 0 writes it"
	}
	if len(x.Attrs) == 0 {
		fmt.Fprintf(w, "%s%s: {%s}%s\n", ind, k, strings.Join(f, ", "), note)
		return
	}
	if note != "" {
		fmt.Fprintf(w, "%s%s\n", ind, strings.TrimSpace(note))
	}
	fmt.Fprintf(w, "%s%s:\n", ind, k)
	for _, s := range f {
		fmt.Fprintf(w, "%s  %s\n", ind, s)
	}
	d.attrs(w, x.Attrs, ind+"  ")
}

// shape renders a dataset's extents: the slowest as PARAM * nranks when it divides over
// the ranks (a parameter per distinct per-rank extent), the others as numbers. The
// decomposition is a block over the slowest dimension, or rank0 when it does not divide.
func (d *deriver) shape(dims, maxDims []uint64, name string) ([]string, string) {
	if len(dims) == 0 {
		return nil, "rank0"
	}
	out := make([]string, len(dims))
	for j, v := range dims {
		out[j] = strconv.FormatUint(v, 10)
	}
	np := uint64(d.o.Ranks)
	if dims[0] == 0 || dims[0]%np != 0 || appended(maxDims) {
		return out, "rank0"
	}
	out[0] = d.perRank(dims[0]/np, name) + " * nranks"
	if np == 1 && d.params[dims[0]] == "" {
		out[0] = d.perRank(dims[0], name) + " * nranks"
	}
	if len(dims) == 1 {
		return out, ""
	}
	grid := []string{"nranks"}
	for range dims[1:] {
		grid = append(grid, "1")
	}
	return out, "{grid: [" + strings.Join(grid, ", ") + "]}"
}

// appended reports whether a dataset's slowest dimension is unlimited: a file grown one
// record at a time (H5MD's time series, netCDF's record variables), which a file cannot
// tell from a block of rows per rank, so derive does not split it over the ranks.
func appended(maxDims []uint64) bool { return len(maxDims) > 0 && maxDims[0] == plan.MaxUnlimited }

// perRank returns the parameter of a per-rank extent, declaring it at its first use.
func (d *deriver) perRank(v uint64, name string) string {
	if p, ok := d.params[v]; ok {
		return p
	}
	// A placeholder: the names are chosen once every parameter is known (one is "n").
	p := fmt.Sprintf("\x00%d\x00", len(d.paramList))
	d.params[v] = p
	d.paramList = append(d.paramList, param{ident(name) + "\x00" + ident(d.group+"_"+name), sizeText(v),
		fmt.Sprintf("elements per rank along dim 0 (first seen on %s)", strings.TrimPrefix(d.group+"/"+name, "//"))})
	return p
}

// nameParams names the per-rank parameters: "n" when there is one, else n_DATASET after
// the first dataset that uses each, and substitutes the placeholders in body.
func (d *deriver) nameParams(body []byte) []byte {
	taken := map[string]bool{"steps": true, "outputs": true, "output_every": true, "first_output": true}
	for i := range d.paramList {
		p := &d.paramList[i]
		base, qualified, _ := strings.Cut(p.name, "\x00")
		name := "n"
		if len(d.paramList) > 1 {
			name = "n_" + base
		}
		if taken[name] {
			name = "n_" + qualified // the same dataset name in another group
		}
		for taken[name] {
			name += "_"
		}
		taken[name] = true
		p.name = name
		body = bytes.ReplaceAll(body, []byte(fmt.Sprintf("\x00%d\x00", i)), []byte(name))
	}
	return body
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
