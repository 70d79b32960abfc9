package app

import (
	"fmt"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// bdcatsLike is BD-CATS's read of VPIC's file, small: two variables per Timestep_N group,
// every step read back by a restart read each. FILE and REOPEN are filled in.
const bdcatsLike = `name: bd
params: {n: 4}
steps: 2
files:
  out:
    name: FILE
    reopen: REOPEN
    groups:
      Timestep_${step}:
        datasets:
          x: {type: f32, shape: [n * nranks]}
          id: {type: i32, shape: [n * nranks]}
timeline:
  - write: out
  - {read: out, at: restart, step: 0}
  - {read: out, at: restart, step: 1}
`

// opLine is a plan op's kind, path and collective flag (reads also their step).
func opLine(op plan.Op) string {
	s := fmt.Sprintf("%s %s", op.Kind, op.Path)
	if op.Collective {
		s += " coll"
	}
	if op.Kind == plan.Read {
		s += fmt.Sprintf(" step=%d", op.Step)
	}
	return s
}

// readSteps lists the read phase's plans of rank of size: its steps, then its end after
// steps steps (all of them when steps < 0).
func readSteps(t *testing.T, p *Pattern, rank, size, steps int) [][]string {
	t.Helper()
	env := patterns.Env{Rank: rank, Size: size, Path: "/o/r.h5"}
	if _, err := p.Begin(patterns.PhaseRead, env); err != nil {
		t.Fatal(err)
	}
	if steps < 0 {
		steps = p.PhaseSteps(patterns.PhaseRead, size)
	}
	var out [][]string
	for k := 0; k <= steps; k++ {
		var pl plan.Plan
		var err error
		if k < steps {
			pl, err = p.Step(patterns.PhaseRead, k, env)
		} else {
			pl, err = p.End(patterns.PhaseRead, steps, env)
		}
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, op := range pl.Ops {
			lines = append(lines, opLine(op))
		}
		out = append(out, lines)
	}
	return out
}

// groupRead is the ops of one Timestep group's read: the group, its datasets opened
// relative to it and read, the datasets closed in open order, then the group.
func groupRead(step int, coll string) []string {
	g := fmt.Sprintf("/Timestep_%d", step)
	return []string{
		"open-group " + g + coll,
		"open-dataset " + g + "/x" + coll, fmt.Sprintf("read %s/x%s step=%d", g, coll, step),
		"open-dataset " + g + "/id" + coll, fmt.Sprintf("read %s/id%s step=%d", g, coll, step),
		"close-dataset " + g + "/x" + coll, "close-dataset " + g + "/id" + coll,
		"close-group " + g + coll,
	}
}

func joined(parts ...[]string) string {
	var all []string
	for _, p := range parts {
		all = append(all, p...)
	}
	return strings.Join(all, "\n")
}

// TestReadPhaseKeepsFileOpen: consecutive restart reads of one file open it once, at the
// first, and close it after the last, as BD-CATS does (and as consecutive write-phase
// actions keep a file open); each read opens the Timestep group of what it reads, then
// the datasets. reopen: true opens and closes it at every read; a read phase ended
// early closes the file at its end; reads of files named per step open each.
func TestReadPhaseKeepsFileOpen(t *testing.T) {
	open, close := "open-file /o/bd.h5 coll", "close-file /o/bd.h5 coll"
	for _, c := range []struct {
		name, file, reopen string
		rank, size, steps  int
		want               [][]string
	}{
		{"kept open", "bd.h5", "false", 1, 2, -1, [][]string{
			append([]string{open}, groupRead(0, " coll")...), append(groupRead(1, " coll"), close), nil}},
		{"one rank", "bd.h5", "false", 0, 1, -1, [][]string{
			append([]string{open}, groupRead(0, " coll")...), append(groupRead(1, " coll"), close), nil}},
		{"reopen", "bd.h5", "true", 1, 2, -1, [][]string{
			append(append([]string{open}, groupRead(0, " coll")...), close),
			append(append([]string{open}, groupRead(1, " coll")...), close), nil}},
		{"reopen by expression", "bd.h5", "step == 1", 0, 2, -1, [][]string{
			append(append([]string{open}, groupRead(0, " coll")...), close),
			append(append([]string{open}, groupRead(1, " coll")...), close), nil}},
		{"ended after one read", "bd.h5", "false", 0, 2, 1, [][]string{
			append([]string{open}, groupRead(0, " coll")...), {close}}},
		{"a file per step", "bd_${step}.h5", "false", 0, 2, -1, [][]string{
			append(append([]string{"open-file /o/bd_0.h5 coll"}, groupRead(0, " coll")...), "close-file /o/bd_0.h5 coll"),
			append(append([]string{"open-file /o/bd_1.h5 coll"}, groupRead(1, " coll")...), "close-file /o/bd_1.h5 coll"), nil}},
	} {
		src := strings.NewReplacer("FILE", c.file, "REOPEN", c.reopen).Replace(bdcatsLike)
		got := readSteps(t, buildSrc(t, src), c.rank, c.size, c.steps)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d plans, want %d", c.name, len(got), len(c.want))
			continue
		}
		for k := range got {
			if g, w := joined(got[k]), joined(c.want[k]); g != w {
				t.Errorf("%s: plan %d:\n%s\nwant\n%s", c.name, k, g, w)
			}
		}
	}
}

// TestReadOpensGroups: a read in the write phase (at: end) of a dataset two groups deep
// opens both groups, parents first, then the dataset, and closes them innermost last;
// a dataset the action does not name, and a group holding none it reads, are not opened.
func TestReadOpensGroups(t *testing.T) {
	ops := opsOf(t, `name: g
steps: 1
files:
  f:
    name: g.h5
    datasets:
      w: {type: f64, shape: [4]}
    groups:
      a:
        groups:
          b:
            datasets:
              v: {type: f64, shape: [4]}
      c:
        datasets:
          u: {type: f64, shape: [4]}
timeline:
  - write: f
  - {read: f, at: end, datasets: [v]}
`, 0, 1)
	i := len(ops) - 1
	for i >= 0 && ops[i].Kind != plan.Read {
		i--
	}
	var got []string
	for _, op := range ops[i-3 : i+5] { // the read and the opens and closes around it
		got = append(got, opLine(op))
	}
	want := []string{"open-group /a coll", "open-group /a/b coll", "open-dataset /a/b/v coll", "read /a/b/v coll step=0",
		"close-dataset /a/b/v coll", "close-group /a/b coll", "close-group /a coll", "close-file /o/g.h5 coll"}
	if g, w := joined(got), joined(want); g != w {
		t.Errorf("ops around the read:\n%s\nwant\n%s", g, w)
	}
	if n := len(find(ops, plan.OpenGroup, "/c")); n != 0 {
		t.Errorf("group /c opened %d times, holds nothing read", n)
	}
}

// TestCollectiveMetadataOnReads: collective_metadata: read asks for collective metadata
// operations on the opens for reading alone (BD-CATS's fapl, where VPIC-IO's writer by
// default does not), and then on the reads' group and dataset opens too (BD-CATS's gapl
// and dapl); true on every file open, false on none; another value is an error naming
// the key, the value and what is allowed.
func TestCollectiveMetadataOnReads(t *testing.T) {
	for _, c := range []struct {
		value       string
		write, read bool
	}{{"false", false, false}, {"true", true, true}, {"read", false, true}} {
		src := strings.NewReplacer("FILE", "bd.h5", "REOPEN", "false\n    collective_metadata: "+c.value).Replace(bdcatsLike)
		p := buildSrc(t, src)
		for _, ph := range []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead} {
			want := map[patterns.Phase]bool{patterns.PhaseWrite: c.write, patterns.PhaseRead: c.read}[ph]
			n := 0
			for _, pl := range all(t, p, ph, patterns.Env{Rank: 1, Size: 2, Path: "/o/r.h5"}) {
				for _, op := range pl.Ops {
					if (op.Kind == plan.OpenGroup || op.Kind == plan.OpenDataset) && op.CollMetadata != (want && ph == patterns.PhaseRead) {
						t.Errorf("collective_metadata: %s, %s phase: %s %s asks for collective metadata %v on its access list", c.value, ph, op.Kind, op.Path, op.CollMetadata)
					}
					if op.Kind != plan.CreateFile && op.Kind != plan.OpenFile {
						continue
					}
					n++
					if op.File.CollMetadataOps != want || op.File.CollMetadataWrite != want {
						t.Errorf("collective_metadata: %s, %s phase: %s %s asks for collective metadata ops %v, writes %v; want %v",
							c.value, ph, op.Kind, op.Path, op.File.CollMetadataOps, op.File.CollMetadataWrite, want)
					}
				}
			}
			if n != 1 {
				t.Errorf("collective_metadata: %s, %s phase: %d file opens, want 1", c.value, ph, n)
			}
		}
	}
	err := planErr(t, strings.Replace(base, "name: out.h5", "name: out.h5\n    collective_metadata: yes", 1), 1)
	wantErr(t, "collective_metadata: yes", err, []string{"d.yaml:6:26:", "key files.out.collective_metadata", `value "yes"`, "allowed: false, true, read"})
}
