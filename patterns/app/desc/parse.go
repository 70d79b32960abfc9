package desc

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Override is one KEY=VALUE given on the command line (or in a sweep) for a parameter.
type Override struct{ Key, Value string }

// ParseFile reads and parses a description file (YAML; JSON is YAML too).
func ParseFile(path string, overrides []Override) (*Description, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("description: %w", err)
	}
	return Parse(path, b, overrides)
}

// Parse parses a description: checks every key against Schema, builds the typed
// Description, applies the parameter overrides, expands list keys and `like:`, and
// validates it (Check). src names the file in errors and locates relative paths.
func Parse(src string, data []byte, overrides []Override) (*Description, error) {
	d, err := Load(src, data)
	if err != nil {
		return nil, err
	}
	return d.With(overrides)
}

// Load reads a description as written: YAML, every key checked against Schema, the typed
// Description built, before overrides and expansion. With makes the description a run
// uses from it, once per set of overrides, without reading the YAML again: a process
// that asks for a description without and with its parameters parses it once.
func Load(src string, data []byte) (*Description, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{Pos: Pos{File: src}, Key: "(document)", Reason: "not YAML or JSON: " + err.Error()}
	}
	if len(doc.Content) == 0 {
		return nil, &Error{Pos: Pos{File: src, Line: 1, Col: 1}, Key: "(document)", Reason: "empty description", Allowed: strings.Join(Schema.Keys(), ", ")}
	}
	p := &parser{src: src}
	root := resolve(doc.Content[0])
	if err := p.check(root, Schema, ""); err != nil {
		return nil, err
	}
	d := &Description{Source: src, Dir: filepath.Dir(src), Notes: p.notes}
	if n := readNote(&doc, nil); n != nil {
		d.NoteAt("").Head = joinLines(n.Head, d.NoteAt("").Head)
	}
	if err := p.build(d, root); err != nil {
		return nil, err
	}
	d.loaded = true
	return d, nil
}

// With returns the description a run uses: a copy of d (as Load returns it) with the
// parameter overrides applied, list keys and `like:` expanded. d is not changed, so one
// loaded description serves every set of overrides.
func (d *Description) With(overrides []Override) (*Description, error) {
	if !d.loaded {
		return nil, fmt.Errorf("description %s: With on a description already expanded (use Load)", d.Source)
	}
	c := d.copyForExpand()
	if err := c.override(overrides); err != nil {
		return nil, err
	}
	if err := c.expand(); err != nil {
		return nil, err
	}
	c.progs = newPrograms() // here, not at the first Scope: patterns share a parsed description
	return c, nil
}

type parser struct {
	src   string
	notes map[string]*Note // the comments read, by key path
}

// commented reports whether key k or its value v carries a comment (most do not: the
// key's path is made only for those that do).
func commented(k, v *yaml.Node) bool {
	return k.HeadComment != "" || k.LineComment != "" || (v != nil && v.LineComment != "")
}

// note records the comments on key k (value v) at path.
func (p *parser) note(path string, k, v *yaml.Node) {
	if n := readNote(k, v); n != nil {
		if p.notes == nil {
			p.notes = map[string]*Note{}
		}
		p.notes[path] = n
	}
}

// identRe is what a parameter's name must look like to be an expression's variable.
var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// resolve follows aliases and the document node.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && (n.Kind == yaml.AliasNode || n.Kind == yaml.DocumentNode) {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		} else if len(n.Content) > 0 {
			n = n.Content[0]
		} else {
			break
		}
	}
	return n
}

func (p *parser) pos(n *yaml.Node) Pos { return Pos{File: p.src, Line: n.Line, Col: n.Column} }

// pairs returns a mapping's key and value nodes in order, merge keys (<<) expanded with
// the explicit keys taking precedence.
func pairs(n *yaml.Node) (keys, vals []*yaml.Node) {
	seen := map[string]bool{}
	var merged [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if k.Value == "<<" && k.Kind == yaml.ScalarNode {
			srcs := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				srcs = v.Content
			}
			for _, s := range srcs {
				s = resolve(s)
				if s.Kind == yaml.MappingNode {
					mk, mv := pairs(s)
					for j := range mk {
						merged = append(merged, [2]*yaml.Node{mk[j], mv[j]})
					}
				}
			}
			continue
		}
		keys, vals = append(keys, k), append(vals, v)
		seen[k.Value] = true
	}
	for _, m := range merged {
		if !seen[m[0].Value] {
			keys, vals = append(keys, m[0]), append(vals, m[1])
			seen[m[0].Value] = true
		}
	}
	return keys, vals
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	}
	return "a scalar"
}

// check validates the node's form and keys against the schema, before anything is built:
// an unknown key is reported with the nearest known one.
func (p *parser) check(n *yaml.Node, s *Node, path string) error {
	n = resolve(n)
	bad := func(want string) error {
		return &Error{Pos: p.pos(n), Key: orRoot(path), Value: scalarText(n), Reason: fmt.Sprintf("%s here is %s", want, kindName(n))}
	}
	switch s.Kind {
	case Map:
		if n.Kind == yaml.ScalarNode && s.Short != "" {
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return bad("want a map")
		}
		keys, vals := pairs(n)
		seen := map[string]bool{}
		for i, k := range keys {
			f := s.Field(k.Value)
			if f == nil {
				reason := "unknown key"
				if near := nearest(k.Value, s.Keys()); near != "" {
					reason += " (did you mean " + near + "?)"
				}
				return &Error{Pos: p.pos(k), Key: join(path, k.Value), Reason: reason, Allowed: strings.Join(s.Keys(), ", ")}
			}
			if seen[k.Value] {
				return &Error{Pos: p.pos(k), Key: join(path, k.Value), Reason: "given twice"}
			}
			seen[k.Value] = true
			if commented(k, vals[i]) {
				p.note(join(path, k.Value), k, vals[i])
			}
			if err := p.check(vals[i], f, join(path, k.Value)); err != nil {
				return err
			}
		}
	case Named:
		if n.Kind != yaml.MappingNode {
			if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
				return nil
			}
			return bad("want a map of names")
		}
		keys, vals := pairs(n)
		for i, k := range keys {
			name := keyName(k)
			if name == "" {
				return &Error{Pos: p.pos(k), Key: join(path, "(name)"), Reason: "an empty name"}
			}
			if commented(k, vals[i]) {
				p.note(join(path, name), k, vals[i])
			}
			if err := p.check(vals[i], s.Elem, join(path, name)); err != nil {
				return err
			}
		}
	case List:
		if n.Kind != yaml.SequenceNode {
			return bad("want a list")
		}
		for i, e := range n.Content {
			if e.HeadComment != "" && s.Elem.Kind == Map {
				p.note(fmt.Sprintf("%s[%d]", path, i), e, nil)
			}
			if err := p.check(e, s.Elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case Literal:
		if n.Kind == yaml.MappingNode {
			return bad("want a number, a string or a list")
		}
		for _, e := range n.Content {
			if resolve(e).Kind != yaml.ScalarNode {
				return &Error{Pos: p.pos(e), Key: path, Reason: "a list of numbers or strings here holds " + kindName(resolve(e))}
			}
		}
	case Data:
		return p.checkData(n, path, true)
	case TypeDecl:
		return p.checkTypeDecl(n, path)
	case TypeName:
		if n.Kind == yaml.MappingNode && strings.HasPrefix(path, "types.") {
			return p.check(n, memberMapNode, path) // a nested member map
		}
		if n.Kind != yaml.ScalarNode {
			return bad("want a type name")
		}
	case Enum:
		if n.Kind != yaml.ScalarNode {
			return bad("want one of " + strings.Join(s.Allowed, ", "))
		}
		if !containsFold(s.Allowed, n.Value) {
			reason := "not allowed"
			if near := nearest(n.Value, s.Allowed); near != "" {
				reason += " (did you mean " + near + "?)"
			}
			return &Error{Pos: p.pos(n), Key: path, Value: n.Value, Reason: reason, Allowed: strings.Join(s.Allowed, ", ")}
		}
	case Bool:
		if _, err := strconv.ParseBool(n.Value); n.Kind != yaml.ScalarNode || err != nil {
			return &Error{Pos: p.pos(n), Key: path, Value: scalarText(n), Reason: "not a boolean", Allowed: "true, false"}
		}
	default:
		if n.Kind != yaml.ScalarNode {
			return bad("want " + s.Kind.String())
		}
	}
	return nil
}

// checkData checks a Data value: a scalar, a map of member values (scalars or maps), or,
// at the top, a list of scalars or maps.
func (p *parser) checkData(n *yaml.Node, path string, top bool) error {
	n = resolve(n)
	switch n.Kind {
	case yaml.MappingNode:
		keys, vals := pairs(n)
		seen := map[string]bool{}
		for i, k := range keys {
			if seen[k.Value] {
				return &Error{Pos: p.pos(k), Key: join(path, k.Value), Reason: "member given twice"}
			}
			seen[k.Value] = true
			if err := p.checkData(vals[i], join(path, k.Value), false); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		if !top {
			return &Error{Pos: p.pos(n), Key: path, Reason: "a list inside a member map", Allowed: "a member's value is a number, a string or a map (a nested compound); a list of maps is an array of compounds"}
		}
		for i, e := range n.Content {
			if resolve(e).Kind == yaml.SequenceNode {
				return &Error{Pos: p.pos(e), Key: fmt.Sprintf("%s[%d]", path, i), Reason: "a list inside a list", Allowed: "attributes are 1-D: a list of numbers, strings or member maps"}
			}
			if err := p.checkData(e, fmt.Sprintf("%s[%d]", path, i), false); err != nil {
				return err
			}
		}
	}
	return nil
}

func orRoot(path string) string {
	if path == "" {
		return "(top level)"
	}
	return path
}

func scalarText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	return ""
}

// keyName renders a mapping key: a scalar as is, a list of names as "[a, b]".
func keyName(k *yaml.Node) string {
	k = resolve(k)
	if k.Kind == yaml.SequenceNode {
		var s []string
		for _, e := range k.Content {
			s = append(s, resolve(e).Value)
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	return k.Value
}

func containsFold(list []string, s string) bool {
	for _, a := range list {
		if strings.EqualFold(a, s) {
			return true
		}
	}
	return false
}

// m is a checked mapping's values by key, for building.
type m struct {
	p    *parser
	path string
	vals map[string]*yaml.Node
	set  map[string]bool
}

func (p *parser) mapOf(n *yaml.Node, path string) m {
	r := m{p: p, path: path, vals: map[string]*yaml.Node{}, set: map[string]bool{}}
	if n != nil && n.Kind == yaml.MappingNode {
		keys, vals := pairs(n)
		for i, k := range keys {
			r.vals[k.Value] = vals[i]
			r.set[k.Value] = true
		}
	}
	return r
}

// value returns a scalar key's Value, or the schema default when the key is absent.
func (x m) value(key string, s *Node) Value {
	path := join(x.path, key)
	n, ok := x.vals[key]
	if !ok {
		def := ""
		if f := s.Field(key); f != nil {
			def = f.Default
		}
		return Value{Text: def, Path: path}
	}
	return x.p.scalar(n, path)
}

func (p *parser) scalar(n *yaml.Node, path string) Value {
	n = resolve(n)
	v := Value{Text: n.Value, Pos: p.pos(n), Path: path, Set: true}
	switch n.Kind {
	case yaml.SequenceNode:
		for i, e := range n.Content {
			v.List = append(v.List, p.scalar(e, fmt.Sprintf("%s[%d]", path, i)))
		}
		v.Text = ""
	case yaml.MappingNode:
		keys, vals := pairs(n)
		for i, k := range keys {
			m := p.scalar(vals[i], join(path, k.Value))
			m.Key = k.Value
			v.Map = append(v.Map, m)
		}
		v.Text = ""
	}
	return v
}

func (x m) list(key string) []Value {
	n, ok := x.vals[key]
	if !ok {
		return nil
	}
	return x.p.scalar(n, join(x.path, key)).List
}

func (p *parser) build(d *Description, root *yaml.Node) error {
	top := p.mapOf(root, "")
	d.Name, d.About = top.value("name", Schema), top.value("about", Schema)
	d.Steps, d.Compute = top.value("steps", Schema), top.value("compute", Schema)
	if d.Ranks = top.value("ranks", Schema); d.Ranks.Set {
		if n, err := strconv.Atoi(strings.TrimSpace(d.Ranks.Text)); err != nil || n < 1 {
			return errAt(d.Ranks, "not a number of ranks", "a whole number, at least 1 (h5proxy run's default -np)")
		}
	}
	d.MPIThread = top.value("mpi_thread", Schema)
	if n := top.vals["params"]; n != nil && n.Kind == yaml.MappingNode {
		keys, vals := pairs(n)
		for i, k := range keys {
			if !identRe.MatchString(k.Value) || slices.Contains(builtinVars, k.Value) {
				return &Error{Pos: p.pos(k), Key: "params." + k.Value, Reason: "not a parameter name",
					Allowed: "a name of letters, digits and _ (not starting with a digit), other than " + strings.Join(builtinVars, ", ")}
			}
			if err := p.checkParamName(k); err != nil {
				return err
			}
			v := p.scalar(vals[i], "params."+k.Value)
			d.Params = append(d.Params, Param{Name: k.Value, Pos: p.pos(k), Value: v, IsList: resolve(vals[i]).Kind == yaml.SequenceNode})
		}
	}
	d.Hints = p.hints(top.vals["hints"], "hints")
	if n := top.vals["types"]; n != nil && n.Kind == yaml.MappingNode {
		keys, vals := pairs(n)
		for i, k := range keys {
			c, err := p.typeDecl(k.Value, p.pos(k), vals[i], "types."+k.Value)
			if err != nil {
				return err
			}
			d.Types = append(d.Types, c)
		}
	}
	if n := top.vals["files"]; n != nil && n.Kind == yaml.MappingNode {
		keys, vals := pairs(n)
		fs := fileNode.Elem
		for i, k := range keys {
			path := "files." + k.Value
			x := p.mapOf(vals[i], path)
			f := &File{ID: k.Value, Pos: p.pos(k), Name: x.value("name", fs), Ranks: x.value("ranks", fs), Writer: x.value("writer", fs),
				Mode: x.value("mode", fs), Reopen: x.value("reopen", fs), CollectiveMetadata: x.value("collective_metadata", fs),
				Libver: x.value("libver", fs), Define: x.value("define", fs), TrackTimes: x.value("track_times", fs), Counter: x.value("counter", fs), Hints: p.hints(x.vals["hints"], path+".hints"),
				Handles: p.handles(x.vals["handles"], path+".handles"), ObjectOrder: x.list("object_order")}
			if _, err := LibverOf(f.Libver); err != nil {
				return err
			}
			cr, cerr := p.create(x.vals["create"], path+".create", f)
			if cerr != nil {
				return cerr
			}
			f.Create = cr
			if !f.Name.Set {
				return &Error{Pos: f.Pos, Key: path + ".name", Reason: "a file needs a name", Allowed: "a name template, e.g. out_${step:04d}.h5"}
			}
			var err error
			if f.Content, err = p.content(vals[i], path); err != nil {
				return err
			}
			d.Files = append(d.Files, f)
		}
	}
	if n := top.vals["timeline"]; n != nil {
		for i, e := range n.Content {
			a, err := p.action(resolve(e), fmt.Sprintf("timeline[%d]", i))
			if err != nil {
				return err
			}
			d.Timeline = append(d.Timeline, a)
		}
	}
	return nil
}

// DefaultRanks is the number of ranks `h5proxy run` launches for the description when no
// -np is given: its ranks key (1 when absent).
func (d *Description) DefaultRanks() int {
	n, err := strconv.Atoi(strings.TrimSpace(d.Ranks.Text))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// MPIThreadLevel is the MPI thread level `h5proxy run` initializes MPI with for the
// description: its mpi_thread key (multiple when absent, h5proxy's own level).
func (d *Description) MPIThreadLevel() string {
	if t := strings.ToLower(strings.TrimSpace(d.MPIThread.Text)); t != "" {
		return t
	}
	return "multiple"
}

// SessionKey, when set, reports whether a name is one of the session's keys (or their
// aliases), and which: package proxy installs it, since the session's keys are its own and
// this package may not import it. A parameter of that name could never be set (KEY=VALUE
// goes to the session first), so the parser rejects it.
var SessionKey func(name string) (key string, ok bool)

// ownKeys are the app pattern's own option keys, which a parameter cannot take either.
var ownKeys = []string{"description"}

// checkParamName rejects a parameter named like a session key or the pattern's own key
// (compared as options compare keys: case ignored).
func (p *parser) checkParamName(k *yaml.Node) error {
	key, ok := "", false
	for _, o := range ownKeys {
		if strings.EqualFold(o, k.Value) {
			key, ok = "app pattern key "+o, true
		}
	}
	if !ok && SessionKey != nil {
		if key, ok = SessionKey(k.Value); ok {
			key = "session key " + key
		}
	}
	if !ok {
		return nil
	}
	return &Error{Pos: p.pos(k), Key: "params." + k.Value, Value: k.Value,
		Reason:  "the parameter's name collides with the " + key + " (KEY=VALUE would set that key, never the parameter)",
		Allowed: "a name that is no session key (h5proxy help session lists them) and not description, e.g. " + k.Value + "_"}
}

func (p *parser) content(n *yaml.Node, path string) (Content, error) {
	var c Content
	x := p.mapOf(resolve(n), path)
	c.Attributes = p.attributes(x.vals["attributes"], join(path, "attributes"))
	var err error
	if c.CreationOrder, err = p.creationOrder(x.vals["creation_order"], join(path, "creation_order")); err != nil {
		return c, err
	}
	if g := x.vals["groups"]; g != nil && g.Kind == yaml.MappingNode {
		keys, vals := pairs(g)
		for i, k := range keys {
			gp := join(path, "groups."+keyName(k))
			in, err := p.content(vals[i], gp)
			if err != nil {
				return c, err
			}
			// A list key makes one group per name, as for datasets ("${list}" once the
			// parameters are known: expand); each copy gets its own datasets.
			for j, name := range p.names(k) {
				cc := in
				if j > 0 {
					cc = in.clone()
				}
				c.Groups = append(c.Groups, &Group{Name: Value{Text: name, Pos: p.pos(k), Path: gp, Set: true}, Content: cc})
			}
		}
	}
	if ln := x.vals["links"]; ln != nil && ln.Kind == yaml.MappingNode {
		keys, vals := pairs(ln)
		for i, k := range keys {
			l, err := p.link(k, vals[i], join(path, "links."+k.Value))
			if err != nil {
				return c, err
			}
			c.Links = append(c.Links, l)
		}
	}
	if ds := x.vals["datasets"]; ds != nil && ds.Kind == yaml.MappingNode {
		keys, vals := pairs(ds)
		for i, k := range keys {
			dp := join(path, "datasets."+keyName(k))
			if names := p.names(k); len(names) > 0 && names[0] != keyName(k) {
				moveNotes(p.notes, dp, join(path, "datasets."+names[0]))
			}
			for _, name := range p.names(k) {
				ds, err := p.dataset(name, p.pos(k), vals[i], dp)
				if err != nil {
					return c, err
				}
				c.Datasets = append(c.Datasets, ds)
			}
		}
	}
	return c, nil
}

// link builds one link: a scalar is a hard link's target; a map names exactly one kind.
func (p *parser) link(k, n *yaml.Node, path string) (*Link, error) {
	n = resolve(n)
	l := &Link{Name: Value{Text: k.Value, Pos: p.pos(k), Path: path, Set: true}}
	if n.Kind == yaml.ScalarNode {
		l.Hard = p.scalar(n, join(path, "hard"))
	} else {
		s := linkNode.Elem
		x := p.mapOf(n, path)
		l.Hard, l.Soft = x.value("hard", s), x.value("soft", s)
		if en := x.vals["external"]; en != nil {
			ex := p.mapOf(resolve(en), join(path, "external"))
			es := s.Field("external")
			l.External = ExternalLink{File: ex.value("file", es), Path: ex.value("path", es)}
			if !l.External.File.Set {
				return nil, &Error{Pos: p.pos(en), Key: join(path, "external.file"), Reason: "an external link needs the other file's name",
					Allowed: "external: {file: NAME, path: /PATH}"}
			}
		}
	}
	kinds := 0
	for _, v := range []Value{l.Hard, l.Soft, l.External.File} {
		if v.Set {
			kinds++
		}
	}
	if kinds != 1 {
		return nil, &Error{Pos: p.pos(k), Key: path, Reason: fmt.Sprintf("a link names %d of hard, soft, external", kinds),
			Allowed: "exactly one: {hard: PATH}, {soft: PATH} or {external: {file: NAME, path: PATH}}"}
	}
	for _, v := range []Value{l.Hard, l.Soft, l.External.Path} {
		if v.Set && strings.TrimSpace(v.Text) == "" {
			return nil, errAt(v, "an empty path", "a path: absolute (/a/b) or relative to the link's group")
		}
	}
	if v := l.External.Path; l.External.File.Set && !strings.HasPrefix(v.Text, "/") {
		return nil, errAt(v, "an external link's path is absolute in its file", "a path from the other file's root, e.g. /grid")
	}
	return l, nil
}

// names returns the names a dataset key stands for: itself, the elements of a list key,
// or "${list}" (expanded once the parameters are known).
func (p *parser) names(k *yaml.Node) []string {
	k = resolve(k)
	if k.Kind == yaml.SequenceNode {
		var s []string
		for _, e := range k.Content {
			s = append(s, resolve(e).Value)
		}
		return s
	}
	return []string{k.Value}
}

func (p *parser) attributes(n *yaml.Node, path string) []*Attribute {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out []*Attribute
	keys, vals := pairs(n)
	as := attrNode.Elem
	for i, k := range keys {
		ap := join(path, k.Value)
		a := &Attribute{Name: k.Value, Pos: p.pos(k)}
		v := resolve(vals[i])
		if v.Kind != yaml.MappingNode {
			a.Value = p.scalar(v, ap)
		} else {
			x := p.mapOf(v, ap)
			a.Type, a.Value, a.Generate = x.value("type", as), x.value("value", as), x.value("generate", as)
			a.Early = x.value("early", as)
			a.At, a.Writes = x.value("at", as), x.value("writes", as)
			a.Shape = x.list("shape")
		}
		out = append(out, a)
	}
	return out
}

func (p *parser) dataset(name string, pos Pos, n *yaml.Node, path string) (*Dataset, error) {
	s := datasetNode.Elem
	x := p.mapOf(resolve(n), path)
	d := &Dataset{Name: name, Pos: pos, set: x.set,
		Like: x.value("like", s), Type: x.value("type", s), Shape: x.list("shape"), MaxShape: x.list("max_shape"),
		Extend: x.value("extend", s), StartEmpty: x.value("start_empty", s), Layout: x.value("layout", s), Chunk: x.list("chunk"),
		Fill: x.value("fill", s), FillTime: x.value("fill_time", s), AllocTime: x.value("alloc_time", s),
		Attributes: p.attributes(x.vals["attributes"], join(path, "attributes")),
	}
	if f := x.vals["filters"]; f != nil {
		for i, e := range f.Content {
			fl, err := p.filter(resolve(e), fmt.Sprintf("%s.filters[%d]", path, i))
			if err != nil {
				return nil, err
			}
			d.Filters = append(d.Filters, fl)
		}
	}
	d.Decompose = p.decompose(x.vals["decompose"], join(path, "decompose"))
	mx := p.mapOf(x.vals["memory"], join(path, "memory"))
	d.Memory = Memory{Type: mx.value("type", memNode), Struct: mx.value("struct", memNode), Ghost: mx.value("ghost", memNode)}
	d.Independent = x.value("independent", s)
	d.EmptyCalls = x.value("empty_calls", s)
	d.Written = x.value("written", s)
	d.Scale, d.Dims = x.value("scale", s), x.list("dims")
	d.ScaleAt, d.DimsAt = x.value("scale_at", s), x.value("dims_at", s)
	d.CreationOrder = x.value("creation_order", s)
	var err error
	if d.Virtual, err = p.virtual(x.vals["virtual"], join(path, "virtual")); err != nil {
		return nil, err
	}
	d.Value = x.value("value", s)
	if err := d.checkValue(); err != nil {
		return nil, err
	}
	return d, nil
}

func (p *parser) filter(n *yaml.Node, path string) (Filter, error) {
	if n.Kind == yaml.ScalarNode {
		return Filter{Name: n.Value, Pos: p.pos(n), Level: Value{Text: "6", Path: path}, Coding: Value{Text: "nn", Path: path},
			Pixels: Value{Text: "16", Path: path}, Scale: Value{Text: "int", Path: path}, Factor: Value{Text: "0", Path: path}}, nil
	}
	keys, vals := pairs(n)
	if len(keys) != 1 {
		return Filter{}, &Error{Pos: p.pos(n), Key: path, Reason: fmt.Sprintf("a filter entry names %d filters", len(keys)),
			Allowed: "one filter per entry of the list, in pipeline order: [shuffle, {deflate: 6}]"}
	}
	k, v := keys[0], resolve(vals[0])
	f := Filter{Name: k.Value, Pos: p.pos(k)}
	fp := join(path, k.Value)
	switch k.Value {
	case "deflate":
		f.Level = p.scalar(v, fp)
	case "szip":
		x := p.mapOf(v, fp)
		s := filterNode.Elem.Field("szip")
		f.Coding, f.Pixels = x.value("coding", s), x.value("pixels", s)
	case "scaleoffset":
		x := p.mapOf(v, fp)
		s := filterNode.Elem.Field("scaleoffset")
		f.Scale, f.Factor = x.value("scale", s), x.value("factor", s)
	}
	return f, nil
}

func (p *parser) decompose(n *yaml.Node, path string) Decompose {
	s := decompNode
	if n != nil && n.Kind == yaml.ScalarNode {
		return Decompose{Kind: p.scalar(n, join(path, "kind")), Block: Value{Text: "1", Path: join(path, "block")},
			Seed: Value{Text: "1", Path: join(path, "seed")}, Decomp: Value{Text: "1", Path: join(path, "decomp")}, Order: Value{Text: "map", Path: join(path, "order")},
			Select: Value{Text: "all", Path: join(path, "select")}}
	}
	x := p.mapOf(n, path)
	return Decompose{Kind: x.value("kind", s), Grid: x.list("grid"), Block: x.value("block", s), Count: x.value("count", s),
		Distribution: x.value("distribution", s), Mean: x.value("mean", s), Stddev: x.value("stddev", s),
		Min: x.value("min", s), Max: x.value("max", s), Seed: x.value("seed", s), File: x.value("file", s), Decomp: x.value("decomp", s), Order: x.value("order", s),
		Select: x.value("select", s)}
}

func (p *parser) action(n *yaml.Node, path string) (*Action, error) {
	s := actionNode.Elem
	x := p.mapOf(n, path)
	a := &Action{Pos: p.pos(n), Write: x.value("write", s), Read: x.value("read", s), Flush: x.value("flush", s),
		Every: x.value("every", s), When: x.value("when", s), At: x.value("at", s), Datasets: x.list("datasets"), Collective: x.value("collective", s), Step: x.value("step", s), WrittenBy: x.value("written_by", s),
		Attributes: x.list("attributes")}
	verbs := 0
	for _, v := range []Value{a.Write, a.Read, a.Flush} {
		if v.Set {
			verbs++
		}
	}
	if verbs != 1 {
		return nil, &Error{Pos: a.Pos, Key: path, Reason: fmt.Sprintf("an action names %d of write, read, flush", verbs), Allowed: "exactly one of write: FILE, read: FILE, flush: FILE"}
	}
	if len(a.Attributes) > 0 && !a.Read.Set {
		v := a.Attributes[0]
		return nil, &Error{Pos: v.Pos, Key: join(path, "attributes"), Value: v.Text, Reason: "a write or flush reads no attributes (a write writes the attributes its objects declare)", Allowed: "attributes on a read: FILE action"}
	}
	if sn := x.vals["select"]; sn != nil {
		sx := p.mapOf(sn, join(path, "select"))
		a.Select = &Select{Start: sx.list("start"), Count: sx.list("count"), Stride: sx.list("stride"), To: sx.value("to", s.Field("select"))}
	}
	return a, nil
}

// Sniff reports whether a file is a description rather than a JSON configuration: a
// .yaml or .yml file, or a JSON object whose top level names files or timeline and
// neither benchmarks (h5bench) nor pattern (native).
func Sniff(path string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return true
	}
	var top map[string]any
	if err := yaml.Unmarshal(data, &top); err != nil {
		return false
	}
	_, files := top["files"]
	_, timeline := top["timeline"]
	_, bench := top["benchmarks"]
	_, pattern := top["pattern"]
	return (files || timeline) && !bench && !pattern
}
