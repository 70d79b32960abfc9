package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
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

// all returns every plan of a phase on one rank: begin, steps, end, each valid.
func all(t testing.TB, p patterns.Pattern, ph patterns.Phase, env patterns.Env) []plan.Plan {
	t.Helper()
	return plantest.MustPhase(t, p, ph, env)
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

// TestLifecycle: with one file open at a time (reopen), every phase's plans open and
// close files and objects in pairs, objects inside open parents, transfers on open
// datasets (plantest.CheckLifecycle), at 1 and 3 ranks, and through the registry.
func TestLifecycle(t *testing.T) {
	path, err := filepath.Abs("testdata/particles.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(t.TempDir(), "one.yaml")
	if err := os.WriteFile(one, []byte(strings.Replace(string(src), "    name: particles.h5\n", "    name: particles.h5\n    reopen: true\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	p := plantest.For[patterns.Pattern](Factory).Must(t, "description="+one, "steps=5", "vars=x,v")
	for _, size := range []int{1, 3} {
		for _, ph := range p.Phases() {
			plans := all(t, p, ph, patterns.Env{Rank: size - 1, Size: size, Path: "/out/run.h5"})
			if err := plantest.CheckLifecycle(ph, plans, plantest.Lifecycle{}); err != nil {
				t.Errorf("%s phase on %d ranks: %v", ph, size, err)
			}
		}
	}
	if _, _, err := plantest.For[patterns.Pattern](Factory).Build("description="+one, "vars=x", "nosuch=1"); err == nil ||
		!strings.Contains(err.Error(), `key "nosuch"`) || !strings.Contains(err.Error(), "allowed: description, particles, steps, vars") {
		t.Errorf("unknown parameter: %v", err)
	}
}

// TestComputeAfter: a description's compute is a patterns.Computer whose time may depend
// on the step; without compute, the pattern leaves the session's compute_time alone.
func TestComputeAfter(t *testing.T) {
	src := "params: {c: 0.25s}\nsteps: 3\ncompute: c * (step + 1)\nfiles: {o: {name: o.h5, datasets: {x: {type: i8, shape: [4]}}}}\ntimeline: [{write: o}]\n"
	p, err := FromDescription(mustParse(t, src))
	if err != nil {
		t.Fatal(err)
	}
	c, ok := p.(patterns.Computer)
	if !ok {
		t.Fatalf("%T is not a patterns.Computer", p)
	}
	env := patterns.Env{Rank: 0, Size: 1}
	if d := c.ComputeAfter(patterns.PhaseWrite, 2, env); d != 750*time.Millisecond {
		t.Errorf("compute after step 2: %v", d)
	}
	if d := c.ComputeAfter(patterns.PhaseRead, 0, env); d != 0 {
		t.Errorf("compute after a read: %v", d)
	}
	p, err = FromDescription(mustParse(t, strings.Replace(src, "compute: c * (step + 1)\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(patterns.Computer); ok {
		t.Error("a description without compute overrides the session's compute_time")
	}
}
