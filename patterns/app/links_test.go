package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// linksSrc has a group per step whose links name the step's data (a hard link relative to
// its group, a soft link) and a root external link.
const linksSrc = `params: {n: 4, steps: 2}
steps: steps
files:
  out:
    name: out.h5
    groups:
      Step_${step}:
        datasets:
          x: {type: f64, shape: [n * nranks]}
        links:
          y: x
          z: {soft: "/Step_${step}/x"}
    links:
      grid: {external: {file: "mesh_${nranks}.h5", path: /grid}}
timeline:
  - write: out
`

// planSrc parses src and plans rank 0's write phase on size ranks.
func planSrc(t *testing.T, src string, size int) []plan.Plan {
	t.Helper()
	p, dir, err := patternFrom(t, src)
	if err != nil {
		t.Fatal(err)
	}
	return all(t, p, patterns.PhaseWrite, patterns.Env{Rank: 0, Size: size, Path: filepath.Join(dir, "run.h5")})
}

// TestLinksPlanned: each link is created once per file and path, after the objects of
// its action, with its target resolved (a hard link's relative target from its group), the
// templates evaluated at the step.
func TestLinksPlanned(t *testing.T) {
	var got []string
	for _, pl := range planSrc(t, linksSrc, 2) {
		for _, op := range pl.Ops {
			if op.Kind == plan.CreateLink {
				got = append(got, op.String())
			}
		}
	}
	want := []string{
		"create-link     /grid [collective] external=mesh_2.h5:/grid",
		"create-link     /Step_0/y [collective] hard=/Step_0/x",
		"create-link     /Step_0/z [collective] soft=/Step_0/x",
		"create-link     /Step_1/y [collective] hard=/Step_1/x",
		"create-link     /Step_1/z [collective] soft=/Step_1/x",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLinkErrors: a link names exactly one kind, an external link's path is absolute, a
// hard link's target must be created, a link's name is no object's; each error names the
// file:line:col, the key and the value.
func TestLinkErrors(t *testing.T) {
	cases := []struct {
		name, old, new string
		want           []string
	}{
		{"two kinds", `z: {soft: "/Step_${step}/x"}`, "z: {soft: /a, hard: x}",
			[]string{"d.yaml:12:11:", "key files.out.groups.Step_${step}.links.z", "a link names 2 of hard, soft, external", "allowed: exactly one"}},
		{"external path relative", "path: /grid}", "path: grid}",
			[]string{"d.yaml:14:58:", "key files.out.links.grid.external.path", `value "grid"`, "absolute in its file"}},
		{"external without file", `{external: {file: "mesh_${nranks}.h5", path: /grid}}`, "{external: {path: /grid}}",
			[]string{"d.yaml:14:24:", "key files.out.links.grid.external.file", "needs the other file's name"}},
		{"unknown kind", `z: {soft: "/Step_${step}/x"}`, "z: {sfot: /a}",
			[]string{"d.yaml:12:15:", "key files.out.groups.Step_${step}.links.z.sfot", "did you mean soft?"}},
		{"hard target never created", "y: x", "y: w",
			[]string{"d.yaml:11:14:", "key files.out.groups.Step_${step}.links.y.hard", `value "w"`, "hard link /Step_0/y of file", "its target is never created", "or a soft link"}},
		{"name of a dataset", "y: x", "x: x",
			[]string{"d.yaml:11:11:", "key files.out.groups.Step_${step}.links.x", "the link /Step_0/x of file", "has the path of a group or dataset"}},
	}
	for _, c := range cases {
		src := strings.Replace(linksSrc, c.old, c.new, 1)
		if src == linksSrc {
			t.Fatalf("%s: %q not in the description", c.name, c.old)
		}
		err := planErr(t, src, 2)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
	}
}

// TestGroupListKeys: a group key that is a YAML list or "${list}" makes one group per name,
// each with its own datasets (not one group named "[velocity force]"), and like: inside
// each resolves on its own.
func TestGroupListKeys(t *testing.T) {
	src := `params: {n: 4, obs: [velocity, force]}
files:
  out:
    name: out.h5
    groups:
      ${obs}:
        datasets:
          value: {type: f64, shape: [n * nranks]}
          step: {like: value, type: i64}
      [a, b]:
        groups:
          inner: {datasets: {v: {type: i32, shape: [n * nranks]}}}
timeline:
  - write: out
`
	var groups, datasets []string
	for _, pl := range planSrc(t, src, 2) {
		for _, op := range pl.Ops {
			switch op.Kind {
			case plan.CreateGroup:
				groups = append(groups, op.Path)
			case plan.CreateDataset:
				datasets = append(datasets, op.Path+":"+op.Dataset.Type.String())
			}
		}
	}
	if g, w := strings.Join(groups, " "), "/velocity /force /a /a/inner /b /b/inner"; g != w {
		t.Errorf("groups %s, want %s", g, w)
	}
	if g, w := strings.Join(datasets, " "), "/velocity/value:f64 /velocity/step:i64 /force/value:f64 /force/step:i64 /a/inner/v:i32 /b/inner/v:i32"; g != w {
		t.Errorf("datasets %s, want %s", g, w)
	}
	err := planErr(t, strings.Replace(src, "obs: [velocity, force]", "obs: []", 1), 1)
	if err == nil || !strings.Contains(err.Error(), "d.yaml:6:7:") || !strings.Contains(err.Error(), "the list parameter is empty") {
		t.Errorf("an empty list: error %v, want the empty list named at d.yaml:6:7", err)
	}
}
