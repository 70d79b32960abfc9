package app

import (
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
)

// objectOrderSrc is the features corpus program's shape: root datasets a and b written
// once, a group g with a dimension scale x written once and a series s written at every
// step by another action, s attached to x; the program creates g, x, s, then a and b.
const objectOrderSrc = `params: {n: 4}
steps: 2
files:
  out:
    name: out.h5
    handles: {hold: file}
    object_order: [/g, /g/x, /g/s, /a, /b]
    datasets:
      a: {type: f64, shape: [n * nranks]}
      b: {type: i32, shape: [n * nranks]}
    groups:
      g:
        datasets:
          x: {type: f64, shape: [n * nranks], scale: x, scale_at: create}
          s: {type: f64, shape: [1, n * nranks], extend: 0, start_empty: true, decompose: {grid: [1, 0]}, dims: ["", x], dims_at: create}
timeline:
  - {write: out, when: step == 0, datasets: [x, a, b]}
  - {write: out, datasets: [s]}
`

// TestObjectOrder pins object_order and dims_at: create: the first action creates g, x,
// then s (another action's series, created empty and not written, as the program
// creates it there), s attached to x right after its creation, then a and b, each
// object's calls together; the series' writes at each step keep their place, and the
// file holds every object to its close (hold: file, as capture writes features). Without
// the keys the description's own order comes back: the root's datasets first, the
// series created by its own action, the attachment after its first write.
func TestObjectOrder(t *testing.T) {
	want := "create-file /o/out.h5 C\n" +
		"create-group /g C\n" +
		"create-dataset /g/x C\nscale /g/x C\nwrite /g/x C\n" +
		"create-dataset /g/s C\nscale /g/s C\n" + // the attachment to x
		"create-dataset /a C\nwrite /a C\ncreate-dataset /b C\nwrite /b C\n" +
		"extend-dataset /g/s C\nwrite /g/s C\n" +
		"extend-dataset /g/s C\nwrite /g/s C\n" +
		"close-dataset /b C\nclose-dataset /a C\nclose-dataset /g/s C\nclose-dataset /g/x C\nclose-group /g C\nclose-file /o/out.h5 C\n"
	for _, rank := range []int{0, 1} {
		if got := opLines(opsOf(t, objectOrderSrc, rank, 2)); got != want {
			t.Errorf("rank %d of 2:\n%s\nwant:\n%s", rank, got, want)
		}
		p := buildSrc(t, objectOrderSrc)
		if err := plantest.CheckLifecycle(patterns.PhaseWrite, all(t, p, patterns.PhaseWrite, patterns.Env{Rank: rank, Size: 2, Path: "/o/r.h5"}), plantest.Lifecycle{FullPaths: true}); err != nil {
			t.Errorf("rank %d of 2: %v", rank, err)
		}
	}
	plain := strings.Replace(strings.Replace(objectOrderSrc, "    object_order: [/g, /g/x, /g/s, /a, /b]\n", "", 1), ", dims_at: create", "", 1)
	wantPlain := "create-file /o/out.h5 C\n" +
		"create-group /g C\n" +
		"create-dataset /a C\nwrite /a C\ncreate-dataset /b C\nwrite /b C\n" +
		"create-dataset /g/x C\nscale /g/x C\nwrite /g/x C\n" +
		"create-dataset /g/s C\nextend-dataset /g/s C\nwrite /g/s C\nscale /g/s C\n" +
		"extend-dataset /g/s C\nwrite /g/s C\n" +
		"close-dataset /g/s C\nclose-dataset /g/x C\nclose-dataset /b C\nclose-dataset /a C\nclose-group /g C\nclose-file /o/out.h5 C\n"
	if got := opLines(opsOf(t, plain, 0, 2)); got != wantPlain {
		t.Errorf("without object_order and dims_at:\n%s\nwant:\n%s", got, wantPlain)
	}
	// define: upfront creates every object in the object order before the writes, which
	// keep the action's order (of objects created before them).
	upfront := strings.Replace(objectOrderSrc, "    handles: {hold: file}\n", "    handles: {hold: file}\n    define: upfront\n", 1)
	wantUpfront := "create-file /o/out.h5 C\n" +
		"create-group /g C\n" +
		"create-dataset /g/x C\nscale /g/x C\ncreate-dataset /g/s C\nscale /g/s C\ncreate-dataset /a C\ncreate-dataset /b C\n" +
		"write /a C\nwrite /b C\nwrite /g/x C\n" +
		"extend-dataset /g/s C\nwrite /g/s C\n" +
		"extend-dataset /g/s C\nwrite /g/s C\n" +
		"close-dataset /b C\nclose-dataset /a C\nclose-dataset /g/s C\nclose-dataset /g/x C\nclose-group /g C\nclose-file /o/out.h5 C\n"
	if got := opLines(opsOf(t, upfront, 0, 2)); got != wantUpfront {
		t.Errorf("define: upfront:\n%s\nwant:\n%s", got, wantUpfront)
	}
}

// TestObjectOrderRefused pins the refusals: a path that names no group or dataset, one
// named twice, object_order with handles that order the calls themselves, dims_at
// without dims; each with its file:line:col, key and value.
func TestObjectOrderRefused(t *testing.T) {
	for _, c := range []struct {
		name, old, new string
		want           []string
	}{
		{"unknown path", "[/g, /g/x, /g/s, /a, /b]", "[/g, /g/y]", []string{"d.yaml:7:24:", "key files.out.object_order[1]", `value "/g/y"`, "no group or dataset of file out has this path"}},
		{"twice", "[/g, /g/x, /g/s, /a, /b]", "[/g, /a, /g]", []string{"d.yaml:7:28:", "key files.out.object_order[2]", `value "/g"`, "named twice"}},
		{"child first", "[/g, /g/x, /g/s, /a, /b]", "[/g/x, /g, /g/s, /a, /b]", []string{"key files.out.object_order[0]", `value "/g/x"`, "listed before its group /g", "allowed: a group before its members"}},
		{"by_call", "{hold: file}", "{sequence: by_call}", []string{"key files.out.object_order", `value "/g"`, "sequence: by_call", "allowed: handles hold: action or file with sequence: by_object"}},
		{"dims_at alone", "scale_at: create}", "scale_at: create, dims_at: create}", []string{"key files.out.groups.g.datasets.x.dims_at", `value "create"`, "no dims key"}},
		{"dims_at value", "dims_at: create}", "dims_at: later}", []string{"key files.out.groups.g.datasets.s.dims_at", `value "later"`, "allowed: create, defined"}},
	} {
		src := strings.Replace(objectOrderSrc, c.old, c.new, 1)
		wantErr(t, c.name, planErr(t, src, 1), c.want)
	}
}
