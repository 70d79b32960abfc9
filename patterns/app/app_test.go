package app

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// load parses a description of testdata and builds its pattern.
func load(t testing.TB, name string, ov ...desc.Override) *Pattern {
	t.Helper()
	d, err := desc.ParseFile("testdata/"+name, ov)
	if err != nil {
		t.Fatal(err)
	}
	p, err := FromDescription(d)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := p.(*computePattern); ok {
		return c.Pattern
	}
	return p.(*Pattern)
}

// all returns every plan of a phase on one rank: begin, steps, end.
func all(t testing.TB, p patterns.Pattern, ph patterns.Phase, env patterns.Env) []plan.Plan {
	t.Helper()
	var out []plan.Plan
	b, err := p.Begin(ph, env)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, b)
	for s := range patterns.StepsOf(p, ph, env.Size) {
		pl, err := p.Step(ph, s, env)
		if err != nil {
			t.Fatalf("step %d: %v", s, err)
		}
		if err := pl.Validate(); err != nil {
			t.Fatalf("step %d: %v", s, err)
		}
		out = append(out, pl)
	}
	e, err := p.End(ph, patterns.StepsOf(p, ph, env.Size), env)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, e)
}

func listing(pls []plan.Plan) string {
	var b strings.Builder
	for _, pl := range pls {
		pl.Print(&b)
	}
	return b.String()
}

func TestParticlesPlan(t *testing.T) {
	p := load(t, "particles.yaml")
	env := patterns.Env{Rank: 1, Size: 4, Path: "/out/run.h5"}
	got := listing(all(t, p, patterns.PhaseWrite, env))
	if os.Getenv("SHOW") != "" {
		t.Log("\n" + got)
		t.Log("\n" + listing(all(t, p, patterns.PhaseRead, env)))
	}
}

// TestDocsExamplesPlan: every YAML block of docs/apps.md is a description that plans on 4
// ranks, and the tutorial is examples/apps/particles.yaml word for word.
func TestDocsExamplesPlan(t *testing.T) {
	doc, err := os.ReadFile("../../docs/apps.md")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile("../../examples/apps/particles.yaml")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(doc), "```yaml\n")[1:]
	if len(blocks) == 0 {
		t.Fatal("docs/apps.md has no yaml block")
	}
	for i, b := range blocks {
		src := b[:strings.Index(b, "```")]
		if i == 0 && src != string(ex) {
			t.Errorf("docs/apps.md's tutorial differs from examples/apps/particles.yaml")
		}
		d, err := desc.Parse("docs/apps.md block "+fmt.Sprint(i), []byte(src), nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := FromDescription(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, ph := range p.Phases() {
			all(t, p, ph, patterns.Env{Rank: 3, Size: 4, Path: "/out/run.h5"})
		}
	}
}
