package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// base is a valid description the error cases change one line of.
const base = `params: {n: 12, steps: 2}
steps: steps
files:
  out:
    name: out.h5
    datasets:
      x: {type: f64, shape: [n * nranks]}
timeline:
  - write: out
`

// patternFrom writes src as d.yaml into a temporary directory, which it returns, and
// builds its pattern: the parse's or the build's error.
func patternFrom(t *testing.T, src string) (patterns.Pattern, string, error) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "d.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := desc.ParseFile(path, nil)
	if err != nil {
		return nil, dir, err
	}
	p, err := FromDescription(d)
	return p, dir, err
}

// planErr parses src, builds the pattern and plans every write step of rank 0 of size
// ranks: the first error.
func planErr(t *testing.T, src string, size int) error {
	t.Helper()
	p, dir, err := patternFrom(t, src)
	if err != nil {
		return err
	}
	for _, ph := range p.Phases() {
		for r := range min(size, 3) {
			if _, err := p.Begin(ph, patterns.Env{Rank: r, Size: size, Path: filepath.Join(dir, "run.h5")}); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestErrorsNameFileLineKeyValue: every error is found before any I/O and names the
// file:line:column, the key, the value, and what is allowed.
func TestErrorsNameFileLineKeyValue(t *testing.T) {
	tmp := t.TempDir()
	pts, holes := filepath.Join(tmp, "twice.txt"), filepath.Join(tmp, "holes.txt")
	if err := os.WriteFile(pts, []byte("0 0 0\n0 0 1  # rank i j\n1 0 1\n1 1 0\n1 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	onePoint := filepath.Join(tmp, "one.txt") // rank 0 the first row, rank 1 the second
	if err := os.WriteFile(onePoint, []byte("0 0 0\n0 0 1\n1 1 0\n1 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(holes, []byte("0 0 0\n0 0 1\n1 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, old, new string
		size           int
		want           []string
	}{
		{"unknown key", "{type: f64, shape", "{typ: f64, shape", 1,
			[]string{"d.yaml:7:11:", "key files.out.datasets.x.typ", "unknown key (did you mean type?)", "allowed: like, type, shape"}},
		{"unknown top-level key", "steps: steps", "stpes: steps", 1, []string{"d.yaml:2:1:", "key stpes", "did you mean steps?"}},
		{"bad expression", "[n * nranks]", "[n ** nranks + ]", 1, []string{"d.yaml:7:30:", "shape[0]", `"n ** nranks +"`, "bad expression", "the parameters n, steps"}},
		{"unknown variable", "[n * nranks]", "[m * nranks]", 1, []string{"d.yaml:7:30:", "bad expression", "unknown name m"}},
		{"not an integer", "[n * nranks]", "[n / 5]", 1, []string{"d.yaml:7:30:", "evaluates to 2.4, not an integer", "div(a, b)"}},
		{"grid does not divide", "{type: f64, shape: [n * nranks]}", "{type: f64, shape: [10]}", 3,
			[]string{"d.yaml:7:7:", "shape[0] = 10 of dataset x is not divisible by the 3 ranks", "decompose: {kind: uneven}"}},
		{"bad enum", "{type: f64, shape: [n * nranks]}", "{type: f64, shape: [n], layout: chunky}", 1,
			[]string{"d.yaml:7:42:", "key files.out.datasets.x.layout", `value "chunky"`, "did you mean chunked?", "allowed: contiguous, chunked, compact"}},
		{"unknown type", "type: f64", "type: f65", 1, []string{"d.yaml:7:17:", `value "f65"`, "unknown type", "i8, u8, i16"}},
		{"no conversion", "{type: f64, shape: [n * nranks]}", "{type: f64, shape: [n * nranks], memory: {type: str8}}", 1,
			[]string{"d.yaml:7:58:", "memory.type", "HDF5 has no conversion between str(8) and f64"}},
		{"no conversion between character sets", "{type: f64, shape: [n * nranks]}", "{type: ustr8, shape: [n * nranks], memory: {type: str8}}", 1,
			[]string{"memory.type", "memory type str(8) and file type ustr(8) of x: HDF5 converts no ASCII string to a UTF-8 one, nor back"}},
		{"element written twice", "{type: f64, shape: [n * nranks]}", "{type: f64, shape: [2, 2], decompose: {kind: points, file: " + pts + "}}", 2,
			[]string{"decompose.file", "element [0 1] is written by rank 0 and rank 1"}},
		{"element unwritten", "{type: f64, shape: [n * nranks]}", "{type: f64, shape: [2, 2], decompose: {kind: points, file: " + holes + "}}", 2,
			[]string{"decompose.file", "element [1 0] is written by no rank"}},
		{"shared name uses rank", "name: out.h5", "name: out_${rank % 2}.h5", 2,
			[]string{"d.yaml:5:11:", "the shared file's name differs across ranks", "ranks: 1 for a file per rank"}},
		{"per-rank names collide", "name: out.h5", "name: out_${rank % 2}.h5\n    ranks: 1", 3,
			[]string{"d.yaml:5:11:", "ranks 0 and 2 both name their own file out_0.h5"}},
		{"group names collide", "name: out.h5", "name: out_${rank % 2}.h5\n    ranks: 2", 4,
			[]string{"d.yaml:5:11:", "the name of the file of ranks 0..1 differs between them", "data_${div(rank, 2)}.h5"}},
		{"groups share a name", "name: out.h5", "name: out_${div(rank, 4)}.h5\n    ranks: 2", 4,
			[]string{"d.yaml:5:11:", "ranks 0 and 2 of different groups of 2 both name their group's file out_0.h5"}},
		{"more ranks per file than ranks", "name: out.h5", "name: out.h5\n    ranks: 3", 2,
			[]string{"d.yaml:6:12:", "key files.out.ranks", "3 ranks per file with 2 ranks", "N-to-M"}},
		{"ghost counts per dimension on points", "{type: f64, shape: [n * nranks]}", "{type: f64, shape: [2, 2], decompose: {kind: points, file: " + onePoint + "}, memory: {ghost: [1, 1]}}", 2,
			[]string{"key files.out.datasets.x.memory.ghost", "2 ghost counts for a points decomposition: a rank's elements are a list (a 1-D buffer), not a block with neighbours along the dataset's 2 dimensions", "allowed: one count"}},
		{"struct ghosts differ", "files:\n  out:\n    name: out.h5\n    datasets:\n      x: {type: f64, shape: [n * nranks]}",
			"types:\n  s: {a: f64, b: f64}\n  a: {a: f64}\n  b: {b: f64}\nfiles:\n  out:\n    name: out.h5\n    datasets:\n" +
				"      x: {type: a, shape: [n * nranks], memory: {struct: s, ghost: 2}}\n      y: {type: b, shape: [n * nranks], memory: {struct: s}}", 1,
			[]string{"d.yaml:11:68:", "key files.out.datasets.x.memory.ghost", "ghost cells [2] of x, but none of y, which shares its struct s buffer", "allowed: the same memory.ghost on every dataset of a group naming one memory.struct"}},
		{"ghost on a scalar", "{type: f64, shape: [n * nranks]}", "{type: f64, memory: {ghost: 1}}", 1,
			[]string{"key files.out.datasets.x.memory.ghost", "ghost cells around a scalar"}},
		{"ghost counts", "{type: f64, shape: [n * nranks]}", "{type: f64, shape: [n * nranks], memory: {ghost: [1, 1]}}", 1,
			[]string{"key files.out.datasets.x.memory.ghost", "2 ghost counts for 1 dimensions", "one count, or one per dimension"}},
		{"no such file", "- write: out", "- write: output", 1, []string{"d.yaml:9:12:", `value "output"`, "no such file", "allowed: out"}},
		{"like loop", "x: {type: f64, shape: [n * nranks]}", "x: {like: y}\n      y: {like: x}", 1, []string{"refers back to itself"}},
		{"builtin as parameter", "params: {n: 12, steps: 2}", "params: {n: 12, steps: 2, rank: 1}", 1, []string{"d.yaml:1:27: key params.rank: not a parameter name"}},
		{"two filters in one entry", "{type: f64, shape: [n * nranks]}", "{type: f64, shape: [n * nranks], filters: [{shuffle: true, deflate: 3}]}", 1,
			[]string{"d.yaml:7:53: key files.out.datasets.x.filters[0]: a filter entry names 2 filters"}},
		{"subset names nothing", "- write: out", "- write: out\n    datasets: [y]", 1, []string{"d.yaml:10:16: key timeline[0].datasets[0]", "name none of file out's datasets"}},
		{"create by whom", "name: out.h5", "name: out.h5\n    create: rank1", 1,
			[]string{"d.yaml:6:13:", "key files.out.create.by", `value "rank1"`, "did you mean rank0?", "allowed: all, rank0"}},
		{"create by rank0, files per rank", "name: out.h5", "name: out_${rank}.h5\n    ranks: 1\n    create: rank0", 2,
			[]string{"d.yaml:7:13:", "key files.out.create.by", "each rank has its own file (ranks: 1)", "by: all"}},
		{"create by rank0, appending", "name: out.h5", "name: out.h5\n    mode: append\n    create: {by: rank0}", 1,
			[]string{"d.yaml:7:18:", "opened to append (mode: append), never created"}},
		{"serial datasets, every rank creating", "name: out.h5", "name: out.h5\n    create: {datasets: [x]}", 1,
			[]string{"d.yaml:6:25:", "key files.out.create.datasets[0]", "every rank creates the file (by: all)", "allowed: by: rank0 with datasets"}},
		{"serial dataset decomposed", "name: out.h5", "name: out.h5\n    create: {by: rank0, datasets: [x]}", 2,
			[]string{"d.yaml:6:36:", "key files.out.create.datasets[0]", `dataset /x of the serial creation is decomposed "block"`, "allowed: datasets with decompose: rank0"}},
		{"serial datasets name nothing", "name: out.h5", "name: out.h5\n    create: {by: rank0, datasets: [y]}", 1,
			[]string{"d.yaml:6:36:", `value "y"`, "names none of file out's datasets"}},
		{"libver bounds reversed", "name: out.h5", "name: out.h5\n    libver: [latest, v18]", 1,
			[]string{"d.yaml:6:14:", "key files.out.libver", `value "latest"`, "the low bound is after the high bound v18", "[v18, latest]"}},
		{"libver bound unknown", "name: out.h5", "name: out.h5\n    libver: [v18, v114x]", 1,
			[]string{"d.yaml:6:19:", `value "v114x"`, "not a library version", "earliest, v18, v110, latest"}},
		{"libver scalar unknown", "name: out.h5", "name: out.h5\n    libver: newest", 1,
			[]string{"d.yaml:6:13:", `value "newest"`, "not a library version bound pair"}},
		{"independent not a boolean", "{type: f64, shape: [n * nranks]}", "{type: f64, shape: [n * nranks], independent: yes}", 1,
			[]string{"d.yaml:7:56:", "key files.out.datasets.x.independent", "not a boolean"}},
		{"uneven sum", "{type: f64, shape: [n * nranks]}", "{type: f64, shape: [100], decompose: {kind: uneven, count: 10 + rank}}", 2,
			[]string{"the 2 ranks' counts sum to 21, shape[0] of x is 100", "shape: [auto, ...]"}},
	}
	for _, c := range cases {
		src := strings.Replace(base, c.old, c.new, 1)
		if src == base {
			t.Fatalf("%s: %q not in the base description", c.name, c.old)
		}
		err := planErr(t, src, c.size)
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
