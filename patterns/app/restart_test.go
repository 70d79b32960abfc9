package app

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// perRankRestart (a file per rank whose shape and last step depend on the writer, so
// only the replay of the file's own writer plans its read right) is shared with
// cmd/h5proxy's run of it.
const perRankRestart = "testdata/restart_own.yaml"

// restartSummary lists a read phase's files and transfers: each open with its access,
// each read with its step, its file shape and the elements it selects.
func restartSummary(t *testing.T, pls []plan.Plan) string {
	t.Helper()
	var b strings.Builder
	var ops []plan.Op
	for _, pl := range pls { // the phase's begin, its step and its end
		ops = append(ops, pl.Ops...)
	}
	for _, op := range ops {
		switch op.Kind {
		case plan.OpenFile:
			fmt.Fprintf(&b, "open %s par=%v group=%d ro=%v step=%d; ", op.Path, op.File.Parallel, op.File.GroupRanks, op.File.ReadOnly, op.Step)
		case plan.CloseFile:
			fmt.Fprintf(&b, "close %s; ", op.Path)
		case plan.Read:
			tr := op.Transfer
			fmt.Fprintf(&b, "read %s step=%d shape=%v points=%d coll=%v; ", op.Path, op.Step, tr.FileShape, tr.Selection.NPoints(tr.FileShape), op.Collective)
		case plan.CreateFile, plan.Write:
			t.Errorf("a restart read plans %v %s", op.Kind, op.Path)
		}
	}
	return b.String()
}

// ownFile is the summary of the whole read of writer w's file of perRankRestart.
func ownFile(w int) string {
	return fmt.Sprintf("open /o/own_%d.h5 par=false group=0 ro=true step=%d; read /x step=%d shape=[%d] points=%d coll=false; "+
		"read /y step=%d shape=[2 3] points=6 coll=false; close /o/own_%d.h5; ", w, w, w, 3+w, 3+w, w, w)
}

// TestRestartFewerReaders: per-rank files written by 4 ranks are read back by 4, 2, 3
// and 1 ranks; with fewer readers than files each reader reads a contiguous share of
// them (the first files%readers readers one more), every file alone, serially and
// whole, with the shapes and the step of the writer that wrote it.
func TestRestartFewerReaders(t *testing.T) {
	p := load(t, "restart_own.yaml")
	for _, c := range []struct {
		readers int
		files   [][]int // per reader
	}{
		{4, [][]int{{0}, {1}, {2}, {3}}},
		{2, [][]int{{0, 1}, {2, 3}}},
		{3, [][]int{{0, 1}, {2}, {3}}},
		{1, [][]int{{0, 1, 2, 3}}},
	} {
		for r, ws := range c.files {
			pls := all(t, p, patterns.PhaseRead, patterns.Env{Rank: r, Size: c.readers, Path: "/o/run.h5"})
			want := ""
			for _, w := range ws {
				want += ownFile(w)
			}
			if got := restartSummary(t, pls); got != want {
				t.Errorf("%d readers, rank %d:\n got %s\nwant %s", c.readers, r, got, want)
			}
		}
	}
}

// TestRestartGroupFilesFewerReaders: 4 writers in groups of 2 leave 2 files; one reader
// reads both, each alone and whole (the group's shapes), serially; 2 readers read one
// each through MPI-IO in a group of one, and 4 read them in pairs, as before.
func TestRestartGroupFilesFewerReaders(t *testing.T) {
	p, err := FromDescription(mustParse(t, `
params: {n: 4, group: 2, writers: 4}
files:
  part:
    name: part_${div(rank, group)}.h5
    ranks: group
    datasets:
      x: {type: f64, shape: [n * group]}
      meta: {type: i64, shape: [4], decompose: rank0}
timeline:
  - write: part
  - read: part
    at: restart
    written_by: writers
`))
	if err != nil {
		t.Fatal(err)
	}
	file := func(g int, par string, group, xPoints, metaPoints int) string {
		return fmt.Sprintf("open /o/part_%d.h5 par=%s group=%d ro=true step=0; read /x step=0 shape=[8] points=%d coll=%s; "+
			"read /meta step=0 shape=[4] points=%d coll=%s; close /o/part_%d.h5; ", g, par, group, xPoints, par, metaPoints, par, g)
	}
	for _, c := range []struct {
		readers, rank int
		want          string
	}{
		{1, 0, file(0, "false", 0, 8, 4) + file(1, "false", 0, 8, 4)},
		{2, 1, file(1, "true", 1, 8, 4)},
		{4, 3, file(1, "true", 2, 4, 0)},
	} {
		pls := all(t, p, patterns.PhaseRead, patterns.Env{Rank: c.rank, Size: c.readers, Path: "/o/run.h5"})
		if got := restartSummary(t, pls); got != c.want {
			t.Errorf("%d readers, rank %d:\n got %s\nwant %s", c.readers, c.rank, got, c.want)
		}
	}
}

// TestRestartMoreReadersThanFiles: more readers than per-rank files, or a count of
// readers that neither is fewer than the group files nor splits into equal groups, is an
// error naming the file:line:column, the key and the value, before any I/O.
func TestRestartMoreReadersThanFiles(t *testing.T) {
	src, err := os.ReadFile(perRankRestart)
	if err != nil {
		t.Fatal(err)
	}
	own := string(src)
	groups := strings.Replace(strings.Replace(own, "own_${rank}.h5", "own_${div(rank, 2)}.h5", 1), "ranks: 1", "ranks: 2", 1)
	for _, c := range []struct {
		src     string
		readers int
		want    []string
	}{
		{own, 5, []string{"d.yaml:19:17:", "key timeline[1].written_by", `value "writers"`,
			"files per rank are read back by as many ranks as wrote them (4) or fewer, not 5"}},
		{groups, 3, []string{"d.yaml:19:17:", "key timeline[1].written_by", `value "writers"`,
			"4 writers in groups of 2 wrote 2 files; 3 readers do not split into 2 equal groups", "fewer readers than files, or a multiple"}},
	} {
		p, err := FromDescription(mustParse(t, c.src))
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Begin(patterns.PhaseRead, patterns.Env{Rank: 0, Size: c.readers, Path: "/o/run.h5"})
		if err == nil {
			t.Errorf("%d readers: no error", c.readers)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%d readers: error %q lacks %q", c.readers, err, w)
			}
		}
	}
}

// TestRestartReplaysEachWriterOnce: one reader of four per-rank files, with two restart
// reads of them, replays each writer's run once (4 replays), not once per file, per read
// and per plan of a read (Begin checks every read, then each read's step plans it again:
// 16 before the cache); its plans are those of TestRestartFewerReaders, twice. Another
// reader starts its own replays.
func TestRestartReplaysEachWriterOnce(t *testing.T) {
	src, err := os.ReadFile(perRankRestart)
	if err != nil {
		t.Fatal(err)
	}
	twice := string(src) + "  - read: own\n    at: restart\n    written_by: writers\n"
	p, err := FromDescription(mustParse(t, twice))
	if err != nil {
		t.Fatal(err)
	}
	e := p.(*Pattern).e
	one := ownFile(0) + ownFile(1) + ownFile(2) + ownFile(3)
	env := patterns.Env{Rank: 0, Size: 1, Path: "/o/run.h5"}
	if got := restartSummary(t, all(t, p, patterns.PhaseRead, env)); got != one+one {
		t.Errorf("1 reader, two reads:\n got %s\nwant %s", got, one+one)
	}
	if f := p.(*Pattern).FilePath(env); f != "/o/own_0.h5" {
		t.Errorf("first file %q, want /o/own_0.h5", f)
	}
	if e.writers.replays != 4 {
		t.Errorf("%d replays of the writers' runs for one reader of 4 files, read twice; want 4", e.writers.replays)
	}
	// Reader 1 of 2 reads files 2 and 3: two more replays, rank 0's kept no longer.
	if got, want := restartSummary(t, all(t, p, patterns.PhaseRead, patterns.Env{Rank: 1, Size: 2, Path: "/o/run.h5"})), ownFile(2)+ownFile(3); got != want+want {
		t.Errorf("reader 1 of 2:\n got %s\nwant %s", got, want+want)
	}
	if e.writers.replays != 6 || len(e.writers.runs) != 2 {
		t.Errorf("after reader 1 of 2: %d replays, %d runs held; want 6 and 2", e.writers.replays, len(e.writers.runs))
	}
}
