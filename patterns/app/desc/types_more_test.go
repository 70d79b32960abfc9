package desc

import (
	"fmt"
	"strings"
	"testing"
)

// moreTypes generates the declarations of types_more.go: compounds in the long form
// (a size, members named as the long forms' keys), enums, arrays and opaque types.
func (g *gen) moreTypes() []*Compound {
	var out []*Compound
	for i := range g.r.Intn(4) {
		name := fmt.Sprintf("x%d", i)
		switch g.r.Intn(5) {
		case 0:
			c := g.compound(name, 1)
			c.Size = g.pick("24", "160")
			out = append(out, c)
		case 1:
			c := g.compound(name, 0)
			c.Members = append(c.Members, CompoundMember{Name: g.pick("members", "enum", "array", "opaque").Text, Type: V("i32"), Offset: g.opt(func() Value { return V("16") })})
			out = append(out, c)
		case 2:
			o := &OtherType{Base: g.opt(func() Value { return g.pick("i8", "u16", "i64", "i16be") })}
			for k := range 1 + g.r.Intn(3) {
				o.Enum = append(o.Enum, EnumMember{Name: g.pick("SOLID", "a b", "#x", "true").Text + fmt.Sprint(k), Value: g.pick("0", "1", "-2", "0x10")})
			}
			out = append(out, &Compound{Name: name, Other: o})
		case 3:
			out = append(out, &Compound{Name: name, Other: &OtherType{Array: g.pick("f64", "t0", "str8", "f32be"), Dims: Vs("3", "2")[:1+g.r.Intn(2)]}})
		default:
			out = append(out, &Compound{Name: name, Other: &OtherType{Opaque: g.pick("4", "16"), Tag: g.opt(g.v)}})
		}
		g.note("types." + name)
	}
	return out
}

// TestTypeDeclarations: each form parses to its model, members keep their order and
// offsets, and what is wrong names file:line:col, key and value.
func TestTypeDeclarations(t *testing.T) {
	src := `types:
  log_list: {name: str80@4, value: i32@0}
  padded:
    members: {b: i32@12, a: f64@0}
    size: 24
  phase: {enum: {SOLID: 0, LIQUID: 1, GAS: 2}, base: i8}
  vel3: {array: f64, dims: [3]}
  blob: {opaque: 4, tag: corpus blob}
  odd: {members: {members: i32}}
files: {f: {name: f.h5}}
`
	d, err := Parse("t.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range d.Types {
		var b strings.Builder
		b.WriteString(c.Kind())
		for _, m := range c.Members {
			fmt.Fprintf(&b, " %s:%s@%s", m.Name, m.Type.Text, m.Offset.Text)
		}
		if c.Size.Set {
			b.WriteString(" size " + c.Size.Text)
		}
		if o := c.Other; o != nil {
			for _, e := range o.Enum {
				fmt.Fprintf(&b, " %s=%s", e.Name, e.Value.Text)
			}
			fmt.Fprintf(&b, " base=%s array=%s dims=%d opaque=%s tag=%s", o.Base.Text, o.Array.Text, len(o.Dims), o.Opaque.Text, o.Tag.Text)
		}
		got[c.Name] = b.String()
	}
	want := map[string]string{
		"log_list": "compound name:str80@4 value:i32@0",
		"padded":   "compound b:i32@12 a:f64@0 size 24",
		"phase":    "enum SOLID=0 LIQUID=1 GAS=2 base=i8 array= dims=0 opaque= tag=",
		"vel3":     "array base= array=f64 dims=1 opaque= tag=",
		"blob":     "opaque base= array= dims=0 opaque=4 tag=corpus blob",
		"odd":      "compound members:i32@",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %q, want %q", k, got[k], w)
		}
	}
	text, err := Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"log_list: {name: str80@4, value: i32@0}", "padded: {members: {b: i32@12, a: f64@0}, size: 24}", "odd: {members: {members: i32}}"} {
		if !strings.Contains(string(text), w) {
			t.Errorf("written without %q:\n%s", w, text)
		}
	}

	for _, c := range []struct{ old, new, want string }{
		{"str80@4", "str80@x", `t.yaml:2:20: key types.log_list.name value "str80@x": not a member's type at an offset; allowed: TYPE or TYPE@N`},
		{"size: 24", "size: 0", `t.yaml:5:11: key types.padded.size value "0": not a size in bytes`},
		{"size: 24", "sise: 24", `t.yaml:5:5: key types.padded.sise: unknown key in the members form; allowed: members, size`},
		{"GAS: 2", "GAS: two", `t.yaml:6:44: key types.phase.enum.GAS value "two": an enumeration's value is not a whole number`},
		{"base: i8", "base: f32", `t.yaml:6:54: key types.phase.base value "f32": not allowed (did you mean i32?); allowed: i8, u8`},
		{"dims: [3]", "dims: [0]", `t.yaml:7:29: key types.vel3.dims[0] value "0": not an array extent`},
		{"opaque: 4", "opaque: 0", `t.yaml:8:18: key types.blob.opaque value "0": not a size in bytes`},
		{"  vel3: {array: f64, dims: [3]}", "  vel3: 7", `t.yaml:7:9: key types.vel3 value "7": want a map of members or a long form here is a scalar`},
	} {
		_, err := Parse("t.yaml", []byte(strings.Replace(src, c.old, c.new, 1)), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s: got %v, want %q", c.old, c.new, err, c.want)
		}
	}
}
