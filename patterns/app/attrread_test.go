package app

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// TestReadAttributes: a restart's attributes key reads the named attributes before the
// datasets, in its order: the root's through the file, a group's and a dataset's with the
// object opened around the read, each with the type and shape written and the value
// written (the writer's nparticles, n * nranks, at 3 ranks).
func TestReadAttributes(t *testing.T) {
	p := load(t, "attr_read.yaml")
	env := patterns.Env{Rank: 1, Size: 3, Path: "/out/run.h5"}
	var got []string
	var reads []*plan.AttributeSpec
	for _, pl := range all(t, p, patterns.PhaseRead, env) {
		for _, op := range pl.Ops {
			switch op.Kind {
			case plan.ReadAttribute:
				got = append(got, fmt.Sprintf("read %s@%s", op.Path, op.Attribute.Name))
				reads = append(reads, op.Attribute)
			case plan.OpenGroup, plan.CloseGroup, plan.OpenDataset, plan.CloseDataset, plan.Read:
				got = append(got, op.Kind.String()+" "+op.Path)
			}
		}
	}
	want := []string{"read /@version_name", "open-group /Chombo_global", "read /Chombo_global@SpaceDim", "close-group /Chombo_global",
		"read /@nparticles", "open-dataset /Chombo_global/x", "read /Chombo_global/x@units", "close-dataset /Chombo_global/x",
		"open-group /Chombo_global", "open-dataset /Chombo_global/x", "read /Chombo_global/x", "close-dataset /Chombo_global/x", "close-group /Chombo_global"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("read phase:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	np := make([]byte, 8)
	binary.LittleEndian.PutUint64(np, 4*3)
	for i, w := range []struct {
		typ   plan.Type
		value string
	}{{plan.Str(26), "Version_Two_Dot_One_double"}, {plan.I32, "\x03\x00\x00\x00"}, {plan.I64, string(np)}, {plan.Str(3), "m\x00\x00"}} {
		if r := reads[i]; r.Type.Class != w.typ.Class || r.Type.Size != w.typ.Size || string(r.Value) != w.value {
			t.Errorf("read %d (%s): type %s value %q, want %s %q (the written)", i, r.Name, r.Type, r.Value, w.typ, w.value)
		}
	}
}

// TestReadAttributesErrors: a bad attributes key names itself, its value and what is
// allowed: on a write, an attribute never written, a variable-length one, a missing name.
func TestReadAttributesErrors(t *testing.T) {
	const src = `params: {n: 4}
steps: 1
files:
  f:
    name: f.h5
    attributes: {title: {type: vstr, value: hello}, n: {type: i32, value: 3}}
    datasets:
      x: {type: f64, shape: [n]}
timeline:
  - write: f
`
	for _, c := range []struct{ action, want string }{
		{"  - write: f\n    attributes: [n]\n", `timeline[1].attributes`},
		{"  - read: f\n    at: restart\n    attributes: [missing]\n", `attribute "missing" of / in`},
		{"  - read: f\n    at: restart\n    attributes: [x/units]\n", `attribute "units" of /x in`},
		{"  - read: f\n    at: restart\n    attributes: [title]\n", "fixed-size values only"},
		{"  - read: f\n    at: restart\n    attributes: [x/]\n", "no attribute name"},
	} {
		p, _, err := patternFrom(t, src+c.action)
		if err == nil {
			_, err = p.Step(patterns.PhaseRead, 0, patterns.Env{Rank: 0, Size: 1, Path: "/o/f.h5"})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "attributes") {
			t.Errorf("%q: %v, want an error naming %q and the key", c.action, err, c.want)
		}
	}
}

// TestReadAttributesOfSerialCreation: a file rank 0 creates alone (create: {by: rank0}, as
// AMReX writes its headers) has its attributes read back by every rank, verified against
// the values rank 0 wrote: the other ranks never write them but know them.
func TestReadAttributesOfSerialCreation(t *testing.T) {
	const src = `params: {n: 4}
steps: 1
files:
  f:
    name: f.h5
    create: {by: rank0}
    attributes: {version_name: v2, nparticles: {type: i64, shape: [1], value: ["${n * nranks}"]}}
    groups:
      level_0:
        attributes: {ngrids: {type: i32, shape: [1], value: [8]}}
        datasets:
          x: {type: f64, shape: [n * nranks]}
timeline:
  - write: f
  - read: f
    at: restart
    attributes: [version_name, nparticles, level_0/ngrids]
`
	p, _, err := patternFrom(t, src)
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 3; r++ {
		var got []string
		for _, pl := range all(t, p, patterns.PhaseRead, patterns.Env{Rank: r, Size: 3, Path: "/o/f.h5"}) {
			for _, op := range pl.Ops {
				if op.Kind == plan.ReadAttribute {
					got = append(got, fmt.Sprintf("%s@%s=%x", op.Path, op.Attribute.Name, op.Attribute.Value))
				}
			}
		}
		if want := "/@version_name=7632 /@nparticles=0c00000000000000 /level_0@ngrids=08000000"; strings.Join(got, " ") != want {
			t.Errorf("rank %d of 3: %v, want %s", r, got, want)
		}
	}
}
