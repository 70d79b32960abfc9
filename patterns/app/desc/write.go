package desc

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The writer: a Description to YAML, the one emitter of the format (derive and capture
// build a Description and call Write; they never write text). It builds yaml.v3 nodes, so
// keys keep the schema's order and every Note becomes comments beside its key. Each
// model type has one function below (file, content, group, dataset, attribute, ...): a
// new key is written by adding it to its type's function, in the schema's order.
//
// What is written is what is Set: a Value with Set false is the schema's default and is
// left out, as a person would leave it out. A Dataset made by Parse records the keys it
// was given (Given); one built in Go writes the keys whose Value is Set or whose list is
// not empty, and those marked with Give.

// V returns a written scalar value (Set), for descriptions built in Go.
func V(text string) Value { return Value{Text: text, Set: true} }

// Vf returns a written scalar value from a format, for descriptions built in Go.
func Vf(format string, args ...any) Value { return V(fmt.Sprintf(format, args...)) }

// Vs returns a list of written scalar values.
func Vs(texts ...string) []Value {
	out := make([]Value, len(texts))
	for i, t := range texts {
		out[i] = V(t)
	}
	return out
}

// VList returns a written list value (a list parameter, an array attribute's value).
func VList(texts ...string) Value { return Value{List: Vs(texts...), Set: true} }

// Given reports whether the dataset's key was written (or copied by like:) in the
// description it was parsed from, or marked with Give.
func (ds *Dataset) Given(key string) bool { return ds.set[key] }

// Give marks dataset keys as written: a list key (shape, max_shape, chunk, filters,
// attributes) that is empty but meant, as `shape: []` for a scalar dataset.
func (ds *Dataset) Give(keys ...string) {
	if ds.set == nil {
		ds.set = map[string]bool{}
	}
	for _, k := range keys {
		ds.set[k] = true
	}
}

// Write writes d as YAML: every key that is set, in the schema's order, with d's notes as
// comments.
func Write(w io.Writer, d *Description) error {
	b, err := Marshal(d)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Marshal returns d as YAML (Write).
func Marshal(d *Description) ([]byte, error) {
	wr := &writer{d: d}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{wr.description()}}
	if n := d.Notes[""]; !n.empty() {
		doc.HeadComment = n.headComment()
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("description: writing YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("description: writing YAML: %w", err)
	}
	return b.Bytes(), nil
}

type writer struct{ d *Description }

// mapping is a mapping node being built: keys in the order added, each with the note at
// its path.
type mapping struct {
	w    *writer
	path string
	n    *yaml.Node
}

func (wr *writer) mapping(path string) *mapping {
	return &mapping{w: wr, path: path, n: &yaml.Node{Kind: yaml.MappingNode}}
}

// flow makes the mapping print on one line ({a: 1, b: 2}).
func (m *mapping) flow() *mapping { m.n.Style = yaml.FlowStyle; return m }

// add appends key: v (nothing when v is nil), with the note at the key's path.
func (m *mapping) add(key string, v *yaml.Node) {
	if v == nil {
		return
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Value: key}
	if n := m.w.d.Notes[join(m.path, key)]; !n.empty() {
		k.HeadComment = n.headComment()
		if n.Line != "" {
			if v.Kind == yaml.ScalarNode || v.Style == yaml.FlowStyle {
				v.LineComment = "# " + n.Line
			} else {
				k.LineComment = "# " + n.Line
			}
		}
		m.n.Style = 0 // comments need the block style
	}
	m.n.Content = append(m.n.Content, k, v)
}

// value adds a scalar key when it is set.
func (m *mapping) value(key string, v Value) {
	if v.Set {
		m.add(key, scalarOrList(v))
	}
}

// list adds a list key when it has elements or given says it was written.
func (m *mapping) list(key string, vs []Value, given bool) {
	if len(vs) > 0 || given {
		m.add(key, seq(vs))
	}
}

// node returns the mapping, or nil when it is empty and not wanted empty.
func (m *mapping) node(keepEmpty bool) *yaml.Node {
	if len(m.n.Content) == 0 && !keepEmpty {
		return nil
	}
	if len(m.n.Content) == 0 {
		m.n.Style = yaml.FlowStyle // an empty map: {}
	}
	return m.n
}

func scalar(text string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: text} }

// scalarOrList renders a Value as written: a scalar, a list (flow) or a member map.
func scalarOrList(v Value) *yaml.Node {
	switch {
	case v.Map != nil:
		n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		for _, e := range v.Map {
			n.Content = append(n.Content, scalar(e.Key), scalarOrList(e))
		}
		return n
	case v.List != nil:
		return seq(v.List)
	}
	return scalar(v.Text)
}

func seq(vs []Value) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, v := range vs {
		n.Content = append(n.Content, scalarOrList(v))
	}
	return n
}

func (wr *writer) description() *yaml.Node {
	d := wr.d
	m := wr.mapping("")
	m.value("name", d.Name)
	m.value("about", d.About)
	if len(d.Params) > 0 {
		p := wr.mapping("params")
		for _, pa := range d.Params {
			v := scalarOrList(pa.Value)
			if pa.IsList && pa.Value.List == nil {
				v = seq(nil)
			}
			p.add(pa.Name, v)
		}
		m.add("params", p.node(false))
	}
	m.value("steps", d.Steps)
	m.value("ranks", d.Ranks)
	m.value("mpi_thread", d.MPIThread)
	m.value("compute", d.Compute)
	m.add("hints", wr.hints(d.Hints, "hints"))
	if len(d.Types) > 0 {
		t := wr.mapping("types")
		for _, c := range d.Types {
			t.add(c.Name, wr.typeDecl(c, join("types", c.Name)))
		}
		m.add("types", t.node(false))
	}
	if len(d.Files) > 0 {
		f := wr.mapping("files")
		for _, file := range d.Files {
			f.add(file.ID, wr.file(file, join("files", file.ID)))
		}
		m.add("files", f.node(false))
	}
	if len(d.Timeline) > 0 {
		t := &yaml.Node{Kind: yaml.SequenceNode}
		for i, a := range d.Timeline {
			t.Content = append(t.Content, wr.action(a, fmt.Sprintf("timeline[%d]", i)))
		}
		m.add("timeline", t)
	}
	return m.node(true)
}

func (wr *writer) file(f *File, path string) *yaml.Node {
	m := wr.mapping(path)
	m.value("name", f.Name)
	m.value("ranks", f.Ranks)
	m.value("writer", f.Writer)
	m.value("mode", f.Mode)
	m.value("reopen", f.Reopen)
	m.value("collective_metadata", f.CollectiveMetadata)
	m.value("libver", f.Libver)
	m.value("define", f.Define)
	m.value("track_times", f.TrackTimes)
	m.value("counter", f.Counter)
	m.add("hints", wr.hints(f.Hints, join(path, "hints")))
	m.add("handles", wr.handles(f.Handles, join(path, "handles")))
	m.list("object_order", f.ObjectOrder, false)
	m.add("create", wr.create(f.Create, join(path, "create")))
	wr.content(m, &f.Content)
	return m.node(true)
}

func (wr *writer) handles(h Handles, path string) *yaml.Node {
	m := wr.mapping(path).flow()
	m.value("hold", h.Hold)
	m.value("attributes", h.Attributes)
	m.value("open_parents", h.OpenParents)
	m.value("sequence", h.Sequence)
	m.value("close", h.Close)
	m.value("series", h.Series)
	return m.node(false)
}

func (wr *writer) create(c Create, path string) *yaml.Node {
	if len(c.Datasets) == 0 {
		if c.By.Set {
			return scalar(c.By.Text) // the short form, create: rank0
		}
		return nil
	}
	m := wr.mapping(path).flow()
	m.value("by", c.By)
	m.list("datasets", c.Datasets, false)
	return m.node(false)
}

// content adds a file's or group's attributes, datasets and groups to m.
func (wr *writer) content(m *mapping, c *Content) {
	if len(c.Attributes) > 0 {
		m.add("attributes", wr.attributes(c.Attributes, join(m.path, "attributes")))
	}
	if len(c.Datasets) > 0 {
		ds := wr.mapping(join(m.path, "datasets"))
		for _, d := range c.Datasets {
			ds.add(d.Name, wr.dataset(d, join(ds.path, d.Name)))
		}
		m.add("datasets", ds.node(false))
	}
	if len(c.Groups) > 0 {
		gs := wr.mapping(join(m.path, "groups"))
		for _, g := range c.Groups {
			gs.add(g.Name.Text, wr.group(g, join(gs.path, g.Name.Text)))
		}
		m.add("groups", gs.node(false))
	}
	if len(c.Links) > 0 {
		ls := wr.mapping(join(m.path, "links"))
		for _, l := range c.Links {
			ls.add(l.Name.Text, wr.link(l, join(ls.path, l.Name.Text)))
		}
		m.add("links", ls.node(false))
	}
	m.add("creation_order", wr.creationOrder(c.CreationOrder, join(m.path, "creation_order")))
}

// link writes a link as a map naming its kind ({hard: PATH}, {soft: PATH}, {external:
// {file: F, path: P}}), never the scalar short form, so that its kind reads at a glance.
func (wr *writer) link(l *Link, path string) *yaml.Node {
	m := wr.mapping(path).flow()
	m.value("hard", l.Hard)
	m.value("soft", l.Soft)
	if l.External.File.Set {
		e := wr.mapping(join(path, "external")).flow()
		e.value("file", l.External.File)
		e.value("path", l.External.Path)
		m.add("external", e.node(false))
	}
	return m.node(true)
}

// group writes a group's content; an empty group is an empty map ({}), never a scalar.
func (wr *writer) group(g *Group, path string) *yaml.Node {
	m := wr.mapping(path)
	wr.content(m, &g.Content)
	return m.node(true)
}

func (wr *writer) attributes(as []*Attribute, path string) *yaml.Node {
	m := wr.mapping(path)
	for _, a := range as {
		m.add(a.Name, wr.attribute(a, join(path, a.Name)))
	}
	return m.node(true)
}

// attribute writes the short form (name: value) for a scalar literal alone, else a map.
func (wr *writer) attribute(a *Attribute, path string) *yaml.Node {
	if a.Value.Set && a.Value.List == nil && a.Value.Map == nil && !a.Type.Set && a.Shape == nil && !a.Generate.Set && !a.Early.Set && !a.At.Set && !a.Writes.Set {
		return scalar(a.Value.Text)
	}
	m := wr.mapping(path).flow()
	m.value("type", a.Type)
	m.list("shape", a.Shape, false)
	m.value("value", a.Value)
	m.value("generate", a.Generate)
	m.value("early", a.Early)
	m.value("at", a.At)
	m.value("writes", a.Writes)
	return m.node(true)
}

func (wr *writer) dataset(ds *Dataset, path string) *yaml.Node {
	m := wr.mapping(path).flow()
	m.value("like", ds.Like)
	m.value("type", ds.Type)
	m.list("shape", ds.Shape, ds.set["shape"])
	m.list("max_shape", ds.MaxShape, false)
	m.value("extend", ds.Extend)
	m.value("start_empty", ds.StartEmpty)
	m.value("layout", ds.Layout)
	m.list("chunk", ds.Chunk, false)
	if len(ds.Filters) > 0 {
		f := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, fl := range ds.Filters {
			f.Content = append(f.Content, wr.filter(fl))
		}
		m.add("filters", f)
	}
	m.value("fill", ds.Fill)
	m.value("fill_time", ds.FillTime)
	m.value("alloc_time", ds.AllocTime)
	m.add("decompose", wr.decompose(ds.Decompose, join(path, "decompose")))
	m.add("memory", wr.memory(ds.Memory, join(path, "memory")))
	m.value("independent", ds.Independent)
	m.value("empty_calls", ds.EmptyCalls)
	m.value("written", ds.Written)
	m.value("scale", ds.Scale)
	m.value("scale_at", ds.ScaleAt)
	m.list("dims", ds.Dims, false)
	m.value("dims_at", ds.DimsAt)
	m.value("creation_order", ds.CreationOrder)
	m.add("virtual", wr.virtual(ds.Virtual, join(path, "virtual")))
	m.value("value", ds.Value)
	if len(ds.Attributes) > 0 {
		m.add("attributes", wr.attributes(ds.Attributes, join(path, "attributes")))
	}
	if len(m.n.Content) > 8 {
		m.n.Style = 0 // a long dataset reads better one key a line
	}
	return m.node(true)
}

// filter writes a filter: its name alone when no parameter is set, else {name: params}.
func (wr *writer) filter(f Filter) *yaml.Node {
	var v *yaml.Node
	switch f.Name {
	case "deflate":
		if f.Level.Set {
			v = scalar(f.Level.Text)
		}
	case "szip", "scaleoffset":
		m := wr.mapping("").flow()
		if f.Name == "szip" {
			m.value("coding", f.Coding)
			m.value("pixels", f.Pixels)
		} else {
			m.value("scale", f.Scale)
			m.value("factor", f.Factor)
		}
		v = m.node(false)
	}
	if v == nil {
		return scalar(f.Name)
	}
	return &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: []*yaml.Node{scalar(f.Name), v}}
}

// decompose writes the short form (decompose: rank0) when only the kind is set.
func (wr *writer) decompose(c Decompose, path string) *yaml.Node {
	m := wr.mapping(path).flow()
	m.value("kind", c.Kind)
	m.list("grid", c.Grid, false)
	m.value("block", c.Block)
	m.value("count", c.Count)
	m.value("distribution", c.Distribution)
	m.value("mean", c.Mean)
	m.value("stddev", c.Stddev)
	m.value("min", c.Min)
	m.value("max", c.Max)
	m.value("seed", c.Seed)
	m.value("file", c.File)
	m.value("decomp", c.Decomp)
	m.value("order", c.Order)
	m.value("select", c.Select)
	if len(m.n.Content) == 2 && c.Kind.Set && m.w.d.Notes[join(path, "kind")].empty() {
		return scalar(c.Kind.Text)
	}
	return m.node(false)
}

func (wr *writer) memory(mem Memory, path string) *yaml.Node {
	m := wr.mapping(path).flow()
	m.value("type", mem.Type)
	m.value("struct", mem.Struct)
	m.value("ghost", mem.Ghost)
	return m.node(false)
}

func (wr *writer) action(a *Action, path string) *yaml.Node {
	m := wr.mapping(path).flow()
	m.value("write", a.Write)
	m.value("read", a.Read)
	m.value("flush", a.Flush)
	m.value("every", a.Every)
	m.value("when", a.When)
	m.value("at", a.At)
	m.list("datasets", a.Datasets, false)
	m.value("collective", a.Collective)
	m.value("step", a.Step)
	m.value("written_by", a.WrittenBy)
	m.list("attributes", a.Attributes, false)
	if a.Select != nil {
		s := wr.mapping(join(path, "select")).flow()
		s.list("start", a.Select.Start, false)
		s.list("count", a.Select.Count, false)
		s.list("stride", a.Select.Stride, false)
		s.value("to", a.Select.To)
		m.add("select", s.node(true))
	}
	n := m.node(true)
	if note := wr.d.Notes[path]; !note.empty() {
		n.HeadComment = note.headComment()
		n.Style = 0
	}
	return n
}

// String renders d as YAML for messages and tests (Marshal's text, or the error).
func String(d *Description) string {
	b, err := Marshal(d)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return strings.TrimRight(string(b), "\n")
}
