package desc

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gen makes random descriptions over the model's shapes: every key of every type, scalar
// texts that need quoting in YAML, empty groups, nested compounds and groups, notes and
// guesses on keys at every level.
type gen struct {
	r *rand.Rand
	d *Description
}

var texts = []string{"8", "n * nranks", "8Mi", "${step}", "plt_${step:04d}.h5", "a: b", "#x", "true", "1.5s",
	"-3", "[x]", "{y}", "'q'", `"dq"`, "x # y", "null", "~", "0x10", "step >= 1", "m/s", "a\\b", "é"}

func (g *gen) text() string { return texts[g.r.Intn(len(texts))] }
func (g *gen) v() Value     { return V(g.text()) }
func (g *gen) maybe() bool  { return g.r.Intn(2) == 0 }
func (g *gen) opt(s func() Value) Value {
	if g.maybe() {
		return s()
	}
	return Value{}
}
func (g *gen) pick(s ...string) Value { return V(s[g.r.Intn(len(s))]) }
func (g *gen) vs(n int) []Value {
	out := make([]Value, g.r.Intn(n+1))
	for i := range out {
		out[i] = g.v()
	}
	return out
}
func (g *gen) bool() Value { return g.pick("true", "false") }

func (g *gen) note(path string) {
	switch g.r.Intn(6) {
	case 0:
		g.d.Comment(path, "a comment on "+path, "and a second line")
	case 1:
		g.d.Guess(path, "what the source could not tell: "+path)
	case 2:
		g.d.Comment(path, "both")
		g.d.Guess(path, "one guess")
		g.d.Guess(path, "another")
	}
}

func (g *gen) description() *Description {
	d := &Description{}
	g.d = d
	if g.maybe() {
		d.Comment("", "Written by the property test.", "Second line.")
	}
	d.Name, d.About = g.opt(g.v), g.opt(g.v)
	for i := range g.r.Intn(4) {
		p := Param{Name: fmt.Sprintf("p%d", i), Value: g.v()}
		if g.maybe() {
			p.IsList, p.Value = true, VList("a", "b c", "1")
		}
		d.Params = append(d.Params, p)
		g.note("params." + p.Name)
	}
	d.Steps, d.Compute = g.opt(g.v), g.opt(g.v)
	d.Ranks = g.opt(func() Value { return g.pick("1", "2", "16") })
	d.MPIThread = g.opt(func() Value { return g.pick("single", "funneled", "serialized", "multiple") })
	for i := range g.r.Intn(3) {
		d.Hints = append(d.Hints, Param{Name: fmt.Sprintf("romio_%d", i), Value: g.v()})
	}
	for i := range g.r.Intn(3) {
		d.Types = append(d.Types, g.compound(fmt.Sprintf("t%d", i), 2))
	}
	d.Types = append(d.Types, g.moreTypes()...)
	for i := range 1 + g.r.Intn(3) {
		d.Files = append(d.Files, g.file(fmt.Sprintf("f%d", i)))
	}
	for i := range g.r.Intn(4) {
		d.Timeline = append(d.Timeline, g.action(fmt.Sprintf("timeline[%d]", i)))
	}
	return d
}

func (g *gen) compound(name string, depth int) *Compound {
	c := &Compound{Name: name}
	for i := range 1 + g.r.Intn(3) {
		m := CompoundMember{Name: fmt.Sprintf("m%d", i)}
		if depth > 0 && g.r.Intn(4) == 0 {
			m.Nested = g.compound(m.Name, depth-1)
		} else {
			m.Type = g.pick("i32", "f64", "str80", "vstr", "f64[3]", "i8[2][4]", "f64be", "i32be[2]")
			if g.r.Intn(3) == 0 {
				m.Offset = g.pick("0", "4", "80")
			}
		}
		c.Members = append(c.Members, m)
	}
	return c
}

func (g *gen) file(id string) *File {
	path := "files." + id
	g.note(path)
	f := &File{ID: id, Name: g.v(), Ranks: g.opt(g.v), Mode: g.opt(func() Value { return g.pick("truncate", "append") }),
		Reopen: g.opt(g.v), CollectiveMetadata: g.opt(func() Value { return g.pick("false", "true", "read") }),
		Libver: g.opt(func() Value {
			if g.maybe() {
				return Value{List: []Value{g.pick("earliest", "v18"), g.pick("v110", "latest")}, Set: true}
			}
			return g.pick("default", "latest")
		}), Writer: g.opt(func() Value { return g.pick("all", "rank0") })}
	g.note(path + ".name")
	f.Counter = g.opt(func() Value { return g.pick("f0", "plots", id) })
	f.Define = g.opt(func() Value { return g.pick("lazy", "upfront", "upfront_flush") })
	f.TrackTimes = g.opt(g.bool)
	for range g.r.Intn(3) {
		f.ObjectOrder = append(f.ObjectOrder, g.pick("/fields", "/fields/x", "/Step#${step}/rho", "/state"))
	}
	for i := range g.r.Intn(3) {
		f.Hints = append(f.Hints, Param{Name: fmt.Sprintf("cb_%d", i), Value: g.v()})
		g.note(path + ".hints." + f.Hints[i].Name)
	}
	f.Handles = Handles{Hold: g.opt(func() Value { return g.pick("action", "call", "file") }), Attributes: g.opt(func() Value { return g.pick("object", "reopen") }),
		OpenParents: g.opt(g.bool), Sequence: g.opt(func() Value { return g.pick("by_object", "by_call", "by_group", "depth_first") }),
		Close: g.opt(func() Value { return g.pick("auto", "forward", "reverse") }), Series: g.opt(func() Value { return g.pick("keep", "reopen") })}
	if !strings.EqualFold(f.Mode.Text, "append") && !strings.EqualFold(f.Ranks.Text, "1") {
		switch g.r.Intn(3) {
		case 0:
			f.Create.By = V("rank0")
		case 1:
			f.Create = Create{By: V("rank0"), Datasets: Vs("a", "g/b")}
		}
	}
	f.Content = g.content(path, 2)
	return f
}

func (g *gen) content(path string, depth int) Content {
	var c Content
	c.Attributes = g.attributes(join(path, "attributes"))
	for i := range g.r.Intn(3) {
		c.Datasets = append(c.Datasets, g.dataset(fmt.Sprintf("d%d", i), join(path, "datasets")))
	}
	if depth > 0 {
		for i := range g.r.Intn(3) {
			name := fmt.Sprintf("g%d", i)
			if i == 1 {
				name = "Step_${step}"
			}
			gp := join(path, "groups."+name)
			g.note(gp)
			c.Groups = append(c.Groups, &Group{Name: V(name), Content: g.content(gp, depth-1)}) // often empty
		}
	}
	switch g.r.Intn(3) {
	case 0:
		o := g.pick(OrderNames...)
		c.CreationOrder = CreationOrder{Links: o, Attributes: o}
	case 1:
		c.CreationOrder = CreationOrder{Links: g.opt(func() Value { return g.pick(OrderNames...) }), Attributes: g.opt(func() Value { return g.pick(OrderNames...) })}
	}
	for i := range g.r.Intn(3) {
		l := &Link{Name: Vf("l%d", i)}
		switch g.r.Intn(3) {
		case 0:
			l.Hard = g.v()
		case 1:
			l.Soft = g.v()
		default:
			l.External = ExternalLink{File: g.v(), Path: g.opt(func() Value { return g.pick("/grid", "/a/${step}") })}
		}
		g.note(join(path, "links."+l.Name.Text))
		c.Links = append(c.Links, l)
	}
	return c
}

func (g *gen) attributes(path string) []*Attribute {
	var as []*Attribute
	for i := range g.r.Intn(3) {
		a := &Attribute{Name: fmt.Sprintf("a%d", i)}
		switch g.r.Intn(4) {
		case 0:
			a.Value = g.v()
		case 1:
			a.Type, a.Shape, a.Value = g.pick("f64", "str8"), Vs("3"), VList("1", "x y", "3")
		case 2:
			a.Type, a.Value = V("t0"), Value{Set: true, Map: []Value{{Key: "m0", Text: "1", Set: true}, {Key: "m1", Text: "s", Set: true}}}
		case 3:
			a.Type, a.Generate, a.Early = g.opt(g.v), g.pick("seeded", "index"), g.opt(g.bool)
		}
		if g.r.Intn(3) == 0 { // a placement (placement.go)
			a.At = g.opt(func() Value { return g.pick(AtCreate, AtScale, AtDefined, AtEachWrite, AtClose) })
			a.Writes = g.opt(func() Value { return g.pick("1", "2", "nranks") })
		}
		g.note(join(path, a.Name))
		as = append(as, a)
	}
	return as
}

func (g *gen) dataset(name, path string) *Dataset {
	path = join(path, name)
	g.note(path)
	ds := &Dataset{Name: name, Type: g.opt(g.v), Shape: g.vs(3), MaxShape: g.vs(2), Extend: g.opt(g.v), StartEmpty: g.opt(g.bool),
		Layout: g.opt(func() Value { return g.pick("contiguous", "chunked", "compact") }), Chunk: g.vs(2),
		Fill: g.opt(g.v), FillTime: g.opt(func() Value { return g.pick("ifset", "never", "alloc") }),
		AllocTime: g.opt(func() Value { return g.pick("default", "early", "late", "incr") }), Independent: g.opt(g.bool), EmptyCalls: g.opt(g.bool), Written: g.opt(g.bool)}
	if len(ds.Shape) == 0 && g.maybe() {
		ds.Give("shape") // a scalar dataset: shape: []
	}
	for range g.r.Intn(3) {
		switch g.r.Intn(4) {
		case 0:
			ds.Filters = append(ds.Filters, Filter{Name: "shuffle"})
		case 1:
			ds.Filters = append(ds.Filters, Filter{Name: "deflate", Level: g.opt(func() Value { return V("4") })})
		case 2:
			ds.Filters = append(ds.Filters, Filter{Name: "szip", Coding: g.opt(func() Value { return V("ec") }), Pixels: g.opt(func() Value { return V("8") })})
		case 3:
			ds.Filters = append(ds.Filters, Filter{Name: "scaleoffset", Scale: g.opt(func() Value { return V("float_dscale") }), Factor: g.opt(func() Value { return V("3") })})
		}
	}
	switch g.r.Intn(3) {
	case 0:
		ds.Decompose.Kind = g.pick("block", "rank0", "replicated")
	case 1:
		ds.Decompose = Decompose{Kind: g.opt(func() Value { return g.pick("uneven", "cyclic", "map") }), Grid: g.vs(2), Block: g.opt(g.v), Count: g.opt(g.v),
			Distribution: g.opt(func() Value { return g.pick("uniform", "normal") }), Mean: g.opt(g.v), Stddev: g.opt(g.v), Min: g.opt(g.v), Max: g.opt(g.v),
			Seed: g.opt(g.v), File: g.opt(g.v), Decomp: g.opt(g.v), Order: g.opt(func() Value { return g.pick("map", "sorted") }),
			Select: g.opt(func() Value { return g.pick("all", "hyperslab") })}
	}
	ds.Memory = Memory{Type: g.opt(g.v), Struct: g.opt(g.v), Ghost: g.opt(g.v)}
	if g.r.Intn(4) == 0 {
		ds.Memory.Ghost = VList("2", "2", "0")
	}
	ds.CreationOrder = g.opt(func() Value { return g.pick(OrderNames...) })
	for range g.r.Intn(3) {
		ds.Virtual = append(ds.Virtual, VirtualMap{File: g.opt(g.v), Dataset: g.v(), Start: g.vs(2), Count: g.vs(2), SourceStart: g.vs(2)})
	}
	if g.r.Intn(3) == 0 { // literal contents, where the other keys allow them
		ds.Value = g.pick("3", "/x")
		if g.maybe() {
			ds.Value = VList("/a[0:2]", "/b", "x y")
		}
		if ds.checkValue() != nil {
			ds.Value = Value{}
		}
	}
	ds.Scale = g.opt(func() Value {
		return g.pick("x", "", "This is a netCDF dimension but not a netCDF variable.         4")
	})
	ds.ScaleAt = g.opt(func() Value { return g.pick(AtCreate, AtDefined) })
	ds.DimsAt = g.opt(func() Value { return g.pick(AtCreate, AtDefined) })
	for range g.r.Intn(3) {
		switch g.r.Intn(3) {
		case 0:
			ds.Dims = append(ds.Dims, g.v())
		case 1:
			ds.Dims = append(ds.Dims, V(""))
		default:
			ds.Dims = append(ds.Dims, VList("x", "/g/y"))
		}
	}
	ds.Attributes = g.attributes(join(path, "attributes"))
	return ds
}

func (g *gen) action(path string) *Action {
	g.note(path)
	a := &Action{Every: g.opt(g.v), When: g.opt(g.v), At: g.opt(func() Value { return g.pick("step", "end", "restart") }),
		Datasets: g.vs(2), Collective: g.opt(g.bool), Step: g.opt(g.v), WrittenBy: g.opt(g.v)}
	switch g.r.Intn(3) {
	case 0:
		a.Write = V("f0")
	case 1:
		a.Read = V("f0")
		a.Attributes = g.vs(2)
		if g.maybe() {
			a.Select = &Select{Start: g.vs(2), Count: g.vs(2), Stride: g.vs(1), To: g.opt(func() Value { return g.pick("all", "rank0") })}
		}
	default:
		a.Flush = V("f0")
	}
	return a
}

// TestWriteParseRoundTrip: for generated descriptions, Parse(Write(m)) is m (positions,
// paths and unwritten defaults aside), comments and guesses included, and writing the
// parsed description again gives the same text.
func TestWriteParseRoundTrip(t *testing.T) {
	for seed := range 300 {
		g := &gen{r: rand.New(rand.NewSource(int64(seed)))}
		m := g.description()
		text, err := Marshal(m)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		got, err := Parse("gen.yaml", text, nil)
		if err != nil {
			t.Fatalf("seed %d: the written description does not parse: %v\n%s", seed, err, text)
		}
		again, err := Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if d := Diff(m, got); d != "" {
			t.Fatalf("seed %d: parse(write(m)) differs from m at %s\n%s", seed, d, text)
		}
		if string(again) != string(text) {
			t.Fatalf("seed %d: written again differs\nfirst:\n%s\nagain:\n%s", seed, text, again)
		}
	}
}

// TestWriteStableOnShipped: every description in samples/apps and examples/apps, parsed
// and written, parses to the same description, and writing that gives the same text.
func TestWriteStableOnShipped(t *testing.T) {
	var paths []string
	for _, glob := range []string{"../../../samples/apps/*.yaml", "../../../examples/apps/*.yaml"} {
		m, _ := filepath.Glob(glob)
		paths = append(paths, m...)
	}
	if len(paths) < 5 {
		t.Fatalf("found %d descriptions under samples/apps and examples/apps", len(paths))
	}
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Parse(path, src, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		text, err := Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		d2, err := Parse(path, text, nil)
		if err != nil {
			t.Fatalf("%s written again does not parse: %v\n%s", path, err, text)
		}
		text2, _ := Marshal(d2)
		if string(text) != string(text2) {
			t.Errorf("%s: write(parse(write(parse(src)))) differs from write(parse(src))", path)
		}
		if diff := Diff(d, d2); diff != "" {
			t.Errorf("%s: parse(write(parse(src))) differs from parse(src) at %s", path, diff)
		}
	}
}
