package nova

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

// kit builds the pattern from "KEY=VALUE" pairs.
var kit = plantest.For[*Pattern](Factory)

func env(rank, size int) patterns.Env {
	return patterns.Env{Rank: rank, Size: size, Path: "/d", Seed: 7}
}

// schemaOf lists a generated file's datasets: path, type, max shape, chunk and deflate,
// everything but the extent.
func schemaOf(pl plan.Plan) (out []string, empty, total int) {
	for _, op := range pl.Ops {
		if op.Kind == plan.CreateDataset {
			d := op.Dataset
			out = append(out, fmt.Sprintf("%s %s %v %v %d", op.Path, d.Type, d.MaxShape, d.Chunk, d.Deflate))
			total++
			if d.Shape[0] == 0 {
				empty++
			}
		}
	}
	return out, empty, total
}

// TestGenerate: rank r of 3 writes files r, r+3, ...; every file has the same schema
// (groups, datasets, types, chunks of 128 rows, deflate 6, extensible rows), the
// configured share of empty datasets (never /spill's) and its own row counts; the write
// phase's plans open and close everything they create.
func TestGenerate(t *testing.T) {
	p := kit.Must(t, "files=7", "groups=50", "datasets_per_group=10", "datasets_2d=3", "empty_fraction=0.8", "rows_mean=40")
	if got := p.PhaseSteps(patterns.PhaseWrite, 3); got != 3 {
		t.Fatalf("write steps on 3 ranks: %d, want 3", got)
	}
	var first []string
	files := map[string]bool{}
	for r := 0; r < 3; r++ {
		var plans []plan.Plan
		for step := 0; step < 3; step++ {
			pl, err := p.Step(patterns.PhaseWrite, step, env(r, 3))
			if err != nil {
				t.Fatal(err)
			}
			if err := pl.Validate(); err != nil {
				t.Fatal(err)
			}
			if f := step*3 + r; f >= 7 {
				if len(pl.Ops) != 0 {
					t.Errorf("rank %d step %d: %d ops past the last file", r, step, len(pl.Ops))
				}
				continue
			}
			files[pl.Ops[0].Path] = true
			if pl.Ops[0].Path != InputName("/d", step*3+r) {
				t.Errorf("rank %d step %d creates %s", r, step, pl.Ops[0].Path)
			}
			s, empty, total := schemaOf(pl)
			if first == nil {
				first = s
			} else if !slices.Equal(s, first) {
				t.Fatalf("file %s schema differs", pl.Ops[0].Path)
			}
			if total != 500 || empty != 400 {
				t.Errorf("file %s: %d datasets, %d empty; want 500, 400", pl.Ops[0].Path, total, empty)
			}
			plans = append(plans, pl)
		}
		if err := plantest.CheckLifecycle(patterns.PhaseWrite, plans, plantest.Lifecycle{CreateOnly: true}); err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	if len(files) != 7 {
		t.Errorf("%d files written, want 7", len(files))
	}
	s := p.Schema(7)
	if s.Tables[0].Name != "spill" || s.Tables[0].Empty {
		t.Errorf("table 0: %+v", s.Tables[0])
	}
	wide := 0
	for _, tb := range s.Tables {
		for _, c := range tb.Columns {
			if c.Width > 1 {
				wide++
				if c.Width != 4 || tb.Empty {
					t.Errorf("2-D column %s/%s: width %d, table empty %v", tb.Name, c.Name, c.Width, tb.Empty)
				}
			}
		}
	}
	if wide != 3 {
		t.Errorf("%d 2-D datasets, want 3", wide)
	}
	if first[0] != "/spill/run u32 [18446744073709551615 1] [128 1] 6" {
		t.Errorf("first dataset %q", first[0])
	}
}

// TestRows: the non-empty tables' rows over many files are skewed (median below the mean)
// around rows_mean, every one at least 1; the same seed gives the same rows, another
// seed others.
func TestRows(t *testing.T) {
	p := kit.Must(t, "files=200", "groups=20", "empty_fraction=0.5", "rows_mean=100")
	s := p.Schema(1)
	var rows []float64
	for f := range s.Rows {
		for g, tb := range s.Tables {
			n := s.Rows[f][g]
			if tb.Empty != (n == 0) {
				t.Fatalf("file %d table %s: %d rows, empty %v", f, tb.Name, n, tb.Empty)
			}
			if n > 0 {
				rows = append(rows, float64(n))
			}
		}
	}
	sort.Float64s(rows)
	var sum float64
	for _, r := range rows {
		sum += r
	}
	mean, median := sum/float64(len(rows)), rows[len(rows)/2]
	if math.Abs(mean-100) > 15 || median > 0.8*mean || rows[len(rows)-1] < 4*mean {
		t.Errorf("rows: mean %.1f median %.1f max %.0f over %d tables; want mean ~100, median < 0.8 mean, max > 4 mean", mean, median, rows[len(rows)-1], len(rows))
	}
	if q := NewSchema(p.C, 1); !slices.EqualFunc(q.Rows, s.Rows, slices.Equal) {
		t.Error("same seed, other rows")
	}
	if q := NewSchema(p.C, 2); slices.EqualFunc(q.Rows, s.Rows, slices.Equal) {
		t.Error("other seed, same rows")
	}
}

// deflated is the size of b deflated at level 6 chunk by chunk of 128 rows.
func deflated(t *testing.T, b []byte, rowBytes int) int {
	n := 0
	for off := 0; off < len(b); off += 128 * rowBytes {
		var out bytes.Buffer
		w, _ := zlib.NewWriterLevel(&out, 6)
		w.Write(b[off:min(len(b), off+128*rowBytes)])
		w.Close()
		n += out.Len()
	}
	return n
}

// TestCompressRatio: the data columns deflate about compress_ratio times, bounded by the
// 128-row chunks: far better at 64 than at 1; evt grows by one every run of rows.
func TestCompressRatio(t *testing.T) {
	ratio := func(run string) float64 {
		p := kit.Must(t, "files=1", "groups=2", "empty_fraction=0", "rows_mean=20000", "datasets_per_group=8", "compress_ratio="+run)
		s := p.Schema(3)
		var raw, z int
		for d := 4; d < 8; d++ {
			b := s.Piece(0, 0, d)
			raw += len(b)
			z += deflated(t, b, s.Tables[0].Columns[d].Type.Size)
		}
		evt := s.Piece(0, 0, 2)
		if got := binary.NativeEndian.Uint32(evt[4*200:]); got != uint32(1+200/p.C.Run) {
			t.Errorf("compress_ratio=%s: evt[200] = %d", run, got)
		}
		return float64(raw) / float64(z)
	}
	r1, r8, r64 := ratio("1"), ratio("8"), ratio("64")
	t.Logf("deflate ratios of the data columns: %.1f at compress_ratio=1, %.1f at 8, %.1f at 64, %.1f at 128", r1, r8, r64, ratio("128"))
	if !(r1 < 2.5 && r8 > 2*r1 && r64 > 12 && r64 > 2*r8) {
		t.Errorf("deflate ratios: %.1f at 1, %.1f at 8, %.1f at 64", r1, r8, r64)
	}
}

// output collects, over the ranks, each output dataset's written rows and bytes.
type written struct {
	rows  []uint64 // [start, end) pairs
	bytes []byte
}

// TestConcat: over 3 ranks, file and dataset partitioning: the output's datasets have the
// inputs' total rows; the ranks' collective writes tile every non-empty dataset in file
// order with the inputs' bytes (ranks without rows join with empty selections); each rank
// reads only its pieces, verified against the bytes the generation wrote; zero-size
// datasets take the configured layout and are closed at creation.
func TestConcat(t *testing.T) {
	for _, part := range []string{"file", "dataset"} {
		p := kit.Must(t, "files=5", "groups=12", "datasets_per_group=6", "datasets_2d=2", "empty_fraction=0.5", "rows_mean=30",
			"partition="+part, "empty_layout=compact", "chunk=256", "deflate=2", "fill_time=never")
		s := p.Schema(7)
		got := map[string]*written{}
		reads := map[string]int{}
		for r := 0; r < 3; r++ {
			e := env(r, 3)
			var all plan.Plan
			for step := 0; step < concatSteps; step++ {
				pl, err := p.Step(patterns.PhaseRead, step, e)
				if err != nil {
					t.Fatal(err)
				}
				if err := pl.Validate(); err != nil {
					t.Fatal(err)
				}
				all.Add(pl.Ops...)
			}
			for _, op := range all.Ops {
				switch op.Kind {
				case plan.Read:
					reads[op.Path]++
					if !bytes.Equal(op.Transfer.Data, s.Piece(fileOf(t, all, op), groupOf(s, op.Path), colOf(s, op.Path))) {
						t.Fatalf("%s: read of %s expects other bytes", part, op.Path)
					}
				case plan.CreateDataset:
					d := op.Dataset
					if d.Shape[0] == 0 && (!d.Compact || d.Chunk != nil || d.Deflate != 0) {
						t.Errorf("zero-size %s: %+v", op.Path, d)
					}
					if d.Shape[0] > 0 && (d.Deflate != 2 || !d.FillNever || d.Chunk[0] != min(d.Shape[0], max(1, 256/(d.Shape[1]*uint64(d.Type.Size))))) {
						t.Errorf("%s: %+v", op.Path, d)
					}
				case plan.Write:
					if !op.Collective {
						t.Errorf("%s: independent write", op.Path)
					}
					w := got[op.Path]
					if w == nil {
						w = &written{}
						got[op.Path] = w
					}
					if sel := op.Transfer.Selection; !sel.IsNone() {
						h := sel.Blocks[0]
						w.rows = append(w.rows, h.Start[0], h.Start[0]+h.Count[0]*h.Block[0])
						w.bytes = append(w.bytes, op.Transfer.Data...)
					}
				}
			}
		}
		for g, tb := range s.Tables {
			total := s.Total(g, 0, 5)
			for d := range tb.Columns {
				path := s.path(g, d)
				w := got[path]
				if total == 0 {
					if w != nil {
						t.Errorf("%s: write to a zero-size dataset", path)
					}
					continue
				}
				var want []byte
				for f := 0; f < 5; f++ {
					want = append(want, s.Piece(f, g, d)...)
				}
				if w == nil || w.rows[0] != 0 || w.rows[len(w.rows)-1] != total || !bytes.Equal(w.bytes, want) {
					t.Fatalf("%s %s: rows %v of %d", part, path, w, total)
				}
				for i := 1; i+1 < len(w.rows); i += 2 {
					if w.rows[i] != w.rows[i+1] {
						t.Errorf("%s: rows %v do not tile", path, w.rows)
					}
				}
				if nonEmptyFiles := countNonEmpty(s, g); reads[path] != nonEmptyFiles {
					t.Errorf("%s %s: read %d times, want %d", part, path, reads[path], nonEmptyFiles)
				}
			}
		}
	}
}

func countNonEmpty(s *Schema, g int) int {
	n := 0
	for f := range s.Rows {
		if s.Rows[f][g] > 0 {
			n++
		}
	}
	return n
}

// fileOf is the input file current at op in pl (plan.OpenFiles: opens and selections).
func fileOf(t *testing.T, pl plan.Plan, target plan.Op) int {
	var open plan.OpenFiles
	for _, op := range pl.Ops {
		open.Apply(&op)
		if op.Transfer == target.Transfer {
			f := -1
			fmt.Sscanf(open.Current(), "/d/nova_%05d.h5", &f)
			return f
		}
	}
	t.Fatalf("op %s not in plan", target.Path)
	return -1
}

func groupOf(s *Schema, path string) int {
	for g, tb := range s.Tables {
		for d := range tb.Columns {
			if s.path(g, d) == path {
				return g
			}
		}
	}
	return -1
}

func colOf(s *Schema, path string) int {
	g := groupOf(s, path)
	for d := range s.Tables[g].Columns {
		if s.path(g, d) == path {
			return d
		}
	}
	return -1
}

// TestCreateRank0: with create=rank0, rank 0 alone creates the output through sec2 and
// closes it; then every rank opens it in parallel with the fixed metadata cache and opens
// the non-empty datasets; the inputs go through the core driver.
func TestCreateRank0(t *testing.T) {
	p := kit.Must(t, "files=2", "groups=6", "empty_fraction=0.5", "create=rank0", "mdc=fixed", "meta_block=1M", "input_driver=core")
	for r := 0; r < 2; r++ {
		pl, _ := p.Step(patterns.PhaseRead, StepCreate, env(r, 2))
		creates, opens := 0, 0
		for _, op := range pl.Ops {
			switch op.Kind {
			case plan.CreateFile:
				creates++
				if op.File.Parallel || r != 0 {
					t.Errorf("rank %d: create %+v", r, op.File)
				}
			case plan.OpenFile:
				fs := op.File
				if !fs.Parallel || fs.MDCInitialSize != 128<<20 || fs.MDCMaxSize != 128<<20 || fs.MetaBlockSize != 1<<20 || !fs.CollMetadataOps {
					t.Errorf("rank %d: open %+v", r, fs)
				}
			case plan.OpenDataset:
				opens++
			}
		}
		if wantC := map[int]int{0: 1, 1: 0}[r]; creates != wantC || opens != 3*16 {
			t.Errorf("rank %d: %d creates, %d dataset opens; want %d, 48", r, creates, opens, wantC)
		}
		in, _ := p.Step(patterns.PhaseRead, StepInputs, env(r, 2))
		if !in.Ops[0].File.Tuning.Core || in.Ops[0].File.Parallel {
			t.Errorf("input open %+v", in.Ops[0].File)
		}
	}
}

// TestOptionErrors: bad values name their key.
func TestOptionErrors(t *testing.T) {
	for _, tc := range [][]string{
		{"empty_fraction=1", "empty_fraction"},
		{"datasets_2d=10", "groups=5", "datasets_2d"},
		{"partition_key=true", "partition_key", "h5proxy concat"},
		{"output=a/b.h5", "output"},
		{"empty_layout=virtual", "empty_layout", "compact"},
		{"compress_ratio=0", "compress_ratio"},
	} {
		pairs := tc[:1]
		if tc[0] == "datasets_2d=10" {
			pairs = tc[:2]
		}
		_, _, err := kit.Build(pairs...)
		plantest.CheckOptionsError(t, tc, err, tc[len(pairs):]...)
	}
}

// TestConcatOrder: the calls come in ph5concat's order (strategy 2): the first step opens
// the inputs and their datasets and reads nothing; the write step takes the 1-D datasets,
// then the 2-D ones, each read from every file that has rows (selected, not reopened) and
// that input dataset closed, then written to the output and closed; the last step closes
// the inputs, then the output.
func TestConcatOrder(t *testing.T) {
	p := kit.Must(t, "files=4", "groups=8", "datasets_per_group=5", "datasets_2d=2", "empty_fraction=0.25", "rows_mean=20")
	e := env(1, 2)
	s := p.Schema(e.Seed)
	in, _ := p.Step(patterns.PhaseRead, StepInputs, e)
	for _, op := range in.Ops {
		if op.Kind == plan.Read || op.Kind == plan.CloseFile {
			t.Fatalf("inputs step: %s %s", op.Kind, op.Path)
		}
	}
	w, _ := p.Step(patterns.PhaseRead, StepWrite, e)
	out := p.outPath(e)
	var open plan.OpenFiles
	for _, path := range []string{InputName("/d", 2), InputName("/d", 3), out} {
		open.Apply(&plan.Op{Kind: plan.OpenFile, Path: path})
	}
	wide, reads := false, map[string]int{}
	for _, op := range w.Ops {
		open.Apply(&op)
		switch op.Kind {
		case plan.Read:
			if open.Current() == out {
				t.Fatalf("read of %s from the output", op.Path)
			}
			reads[op.Path]++
		case plan.Write:
			col := s.Tables[groupOf(s, op.Path)].Columns[colOf(s, op.Path)]
			if col.Width == 1 && wide {
				t.Errorf("1-D %s written after a 2-D dataset", op.Path)
			}
			wide = wide || col.Width > 1
			if open.Current() != out {
				t.Errorf("write of %s to %s", op.Path, open.Current())
			}
			g := groupOf(s, op.Path)
			if want := int(min(s.Rows[2][g], 1) + min(s.Rows[3][g], 1)); reads[op.Path] != want {
				t.Errorf("%s: %d reads before its write, want %d (the files with rows)", op.Path, reads[op.Path], want)
			}
		case plan.OpenFile, plan.CreateFile:
			t.Errorf("write step reopens %s", op.Path)
		}
	}
	if !wide {
		t.Error("no 2-D dataset written")
	}
	cl, _ := p.Step(patterns.PhaseRead, StepClose, e)
	var closed []string
	for _, op := range cl.Ops {
		closed = append(closed, op.Path)
	}
	if want := []string{InputName("/d", 2), InputName("/d", 3), out}; !slices.Equal(closed, want) {
		t.Errorf("close step closes %v, want %v", closed, want)
	}
}
