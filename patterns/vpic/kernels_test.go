package vpic

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

// The expected plans below are written from h5bench's h5bench_write_unlimited.c,
// h5bench_write_var_normal_dist.c, h5bench_overwrite.c and h5bench_append.c.

// kernel builds the variant f's pattern from "KEY=VALUE" pairs.
func kernel(f patterns.Factory) plantest.Builder[*Pattern] { return plantest.For[*Pattern](f) }

// TestUnlimitedPlan: write-unlimited is the write kernel with chunked, deflate-9 datasets
// whose maximum extents are unlimited; it needs COMPRESS (its default here).
func TestUnlimitedPlan(t *testing.T) {
	p := kernel(UnlimitedFactory).Must(t, "NUM_DIMS=2", "DIM_1=4", "DIM_2=3", "CHUNK_DIM_1=2", "CHUNK_DIM_2=3", "TIMESTEPS=2")
	if p.Name() != "vpic-unlimited" || p.Operation(patterns.PhaseWrite) != "write unlimited" || p.Operation(patterns.PhaseRead) != "" {
		t.Errorf("name %q operation %q", p.Name(), p.Operation(patterns.PhaseWrite))
	}
	pl, err := p.Step(patterns.PhaseWrite, 1, env(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	inf := plan.MaxUnlimited
	var creates []string
	for _, op := range pl.Ops {
		switch op.Kind {
		case plan.CreateDataset:
			creates = append(creates, op.Path[len("/Timestep_1/"):])
			d := op.Dataset
			if !slices.Equal(d.Shape, u(8, 3)) || !slices.Equal(d.MaxShape, u(inf, inf)) || !slices.Equal(d.Chunk, u(2, 3)) || d.Deflate != 9 {
				t.Errorf("%s: %+v", op.Path, d)
			}
		case plan.Write:
			// COMPRESS forces collective data, as in h5bench_write_unlimited.
			if !op.Collective || !slices.Equal(op.Transfer.Selection.Blocks[0].Start, u(4, 0)) {
				t.Errorf("%s: collective %v selection %+v", op.Path, op.Collective, op.Transfer.Selection)
			}
		}
	}
	if !slices.Equal(creates, writeOrder) {
		t.Errorf("datasets %v, want %v", creates, writeOrder)
	}
	if _, _, err := kernel(UnlimitedFactory).Build("COMPRESS=NO"); err == nil || !strings.Contains(err.Error(), "COMPRESS") {
		t.Errorf("COMPRESS=NO: %v", err)
	}
}

// TestNormalDistCounts: the per-rank counts are drawn from the seed (the same on every
// rank and every rerun, other with another seed), around DIM_1, and the 1-D selections
// follow them: rank r writes its count at the sum of the counts before it.
func TestNormalDistCounts(t *testing.T) {
	p := kernel(NormalDistFactory).Must(t, "DIM_1=1000", "STDEV_DIM_1=100", "TIMESTEPS=1")
	e := env(0, 64)
	e.Seed = 7
	a, b := p.counts(e), p.counts(e)
	if !slices.Equal(a, b) {
		t.Fatal("counts differ between two plans with one seed")
	}
	e2 := e
	e2.Seed = 8
	if slices.Equal(a, p.counts(e2)) {
		t.Error("seeds 7 and 8 draw the same counts")
	}
	var sum, sq float64
	distinct := map[uint64]bool{}
	for _, n := range a {
		sum += float64(n)
		distinct[n] = true
	}
	mean := sum / 64
	for _, n := range a {
		sq += (float64(n) - mean) * (float64(n) - mean)
	}
	if sd := math.Sqrt(sq / 64); math.Abs(mean-1000) > 60 || sd < 50 || sd > 160 || len(distinct) < 32 {
		t.Errorf("mean %.1f sd %.1f distinct %d: not a normal draw around 1000 with deviation 100", mean, sd, len(distinct))
	}
	var off uint64
	for r := 0; r < 64; r += 21 {
		er := e
		er.Rank = r
		pl, err := p.Step(patterns.PhaseWrite, 0, er)
		if err != nil {
			t.Fatal(err)
		}
		off = 0
		for _, n := range a[:r] {
			off += n
		}
		for _, op := range pl.Ops {
			if op.Kind == plan.Write {
				h := op.Transfer.Selection.Blocks[0]
				if h.Start[0] != off || h.Block[0] != a[r] || op.Transfer.FileShape[0] != uint64(sum) || op.Transfer.MemShape[0] != a[r] {
					t.Fatalf("rank %d: %s start %v block %v file %v, want %d %d %v", r, op.Path, h.Start, h.Block, op.Transfer.FileShape, off, a[r], sum)
				}
			}
		}
	}
	m := p.Metrics(patterns.PhaseWrite, e)
	if len(m) != 3 || m[0].Value != "0M" || m[1].Value != strings.Split(m[1].Value, ".")[0] {
		t.Errorf("metrics %+v", m)
	}
	if _, _, err := kernel(NormalDistFactory).Build("NUM_DIMS=2"); err == nil || !strings.Contains(err.Error(), "NUM_DIMS") {
		t.Errorf("NUM_DIMS=2: %v", err)
	}
}

// shapeOf answers a plan's extent query with a fixed extent.
func shapeOf(dims ...uint64) func(string) ([]uint64, error) {
	return func(p string) ([]uint64, error) {
		if p != "/Timestep_0/px" {
			return nil, fmt.Errorf("unexpected extent query %s", p)
		}
		return dims, nil
	}
}

// f32s and i32s decode a transfer's explicit data.
func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func i32s(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// TestOverwritePlan: the file is opened read-write with collective metadata; each step
// opens the group and the 8 datasets in the order x, y, z, id_1, id_2, px, py, pz and
// writes DIM_1 rows at r*N/R with int i and float i*0.1, then closes them; no flush.
func TestOverwritePlan(t *testing.T) {
	p := kernel(OverwriteFactory).Must(t, "DIM_1=4", "TIMESTEPS=2", "COLLECTIVE_DATA=YES")
	e := env(1, 2)
	e.Shape = shapeOf(12) // a file of 6 rows per rank: rank 1 writes from row 6
	plans, err := plantest.Phase(p, patterns.PhaseWrite, 2, e)
	if err != nil {
		t.Fatal(err)
	}
	begin := plans[0].Ops
	if len(begin) != 1 || begin[0].Kind != plan.OpenFile || begin[0].File.ReadOnly || !begin[0].File.Parallel || !begin[0].File.CollMetadataOps || !begin[0].File.CollMetadataWrite {
		t.Fatalf("begin %v %+v", begin, begin[0].File)
	}
	var kinds []string
	for _, op := range plans[1].Ops {
		kinds = append(kinds, op.Kind.String()+" "+op.Path)
		if op.Kind == plan.Write {
			tr := op.Transfer
			if h := tr.Selection.Blocks[0]; h.Start[0] != 6 || h.Block[0] != 4 || !op.Collective || !slices.Equal(tr.FileShape, u(12)) {
				t.Errorf("%s: %+v collective %v", op.Path, tr.Selection, op.Collective)
			}
			if strings.HasSuffix(op.Path, "id_1") {
				if got := i32s(tr.Data); !slices.Equal(got, []int32{0, 1, 2, 3}) {
					t.Errorf("id_1 data %v", got)
				}
			} else if got := f32s(tr.Data); !slices.Equal(got, []float32{0, float32(0.1), float32(0.2), float32(float64(3) * 0.1)}) {
				t.Errorf("%s data %v", op.Path, got)
			}
		}
	}
	want := []string{"open-group /Timestep_0"}
	for _, k := range []string{"open-dataset", "write", "close-dataset"} {
		for _, v := range readOrderWant {
			want = append(want, k+" /Timestep_0/"+v)
		}
	}
	want = append(want, "close-group /Timestep_0")
	if !slices.Equal(kinds, want) {
		t.Errorf("step 0:\n%s\nwant\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}
	end := plans[len(plans)-1].Ops
	if len(end) != 1 || end[0].Kind != plan.CloseFile {
		t.Errorf("end %v: the kernel closes without a flush", end)
	}
	// STRIDED: the strided selection from the rank's offset.
	p = kernel(OverwriteFactory).Must(t, "FILE_PATTERN=STRIDED", "DIM_1=10", "STRIDE_SIZE=3", "BLOCK_SIZE=2", "BLOCK_CNT=2")
	e.Shape = shapeOf(24)
	pl, err := p.Step(patterns.PhaseWrite, 0, e)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range pl.Ops {
		if op.Kind == plan.Write {
			if h := op.Transfer.Selection.Blocks[0]; !slices.Equal(h.Start, u(12)) || !slices.Equal(h.Stride, u(3)) || !slices.Equal(h.Count, u(2)) ||
				!slices.Equal(h.Block, u(2)) || !slices.Equal(op.Transfer.MemShape, u(4)) {
				t.Errorf("strided %s: %+v mem %v", op.Path, h, op.Transfer.MemShape)
			}
		}
	}
	// The file's checks: rank count, rows per rank, other extents.
	for _, tc := range []struct {
		dims []uint64
		keys []string
		want string
	}{
		{u(12, 3), nil, "2 dimensions, NUM_DIMS=1"},
		{u(6), nil, "DIM_1=4 exceeds the file's 3 rows per rank"},
		{u(8, 2), []string{"NUM_DIMS=2", "DIM_2=3"}, "DIM_2=3 exceeds the file's extent 2"},
	} {
		p := kernel(OverwriteFactory).Must(t, append([]string{"DIM_1=4"}, tc.keys...)...)
		e.Shape = shapeOf(tc.dims...)
		if _, err := p.Step(patterns.PhaseWrite, 0, e); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("file %v: %v, want %q", tc.dims, err, tc.want)
		}
	}
	for _, kv := range []string{"MEM_PATTERN=INTERLEAVED", "FILE_PATTERN=INTERLEAVED", "READ_OPTION=LDC"} {
		if _, _, err := kernel(OverwriteFactory).Build(kv); err == nil {
			t.Errorf("%s accepted", kv)
		}
	}
}

// TestAppendPlan: every rank extends the 8 datasets to [2*DIM_1, DIM_2, DIM_3] (whatever
// the file's extent) and writes the block at [DIM_1, 0, 0] with int i+j+k and float
// i/(j+1)/(k+1); the read phase reads that block back from the extended datasets.
func TestAppendPlan(t *testing.T) {
	p := kernel(AppendFactory).Must(t, "NUM_DIMS=3", "DIM_1=2", "DIM_2=2", "DIM_3=3", "COLLECTIVE_DATA=YES")
	e := env(3, 4)
	e.Shape = shapeOf(8, 2, 3)
	pl, err := p.Step(patterns.PhaseWrite, 0, e)
	if err != nil {
		t.Fatal(err)
	}
	var extends []string
	for _, op := range pl.Ops {
		switch op.Kind {
		case plan.ExtendDataset:
			extends = append(extends, op.Path[len("/Timestep_0/"):])
			if !slices.Equal(op.Dataset.Shape, u(4, 2, 3)) || !op.Collective {
				t.Errorf("%s: extent %v", op.Path, op.Dataset.Shape)
			}
		case plan.Write:
			tr := op.Transfer
			if h := tr.Selection.Blocks[0]; !slices.Equal(h.Start, u(2, 0, 0)) || !slices.Equal(h.Block, u(2, 2, 3)) || !slices.Equal(tr.FileShape, u(4, 2, 3)) {
				t.Errorf("%s: %+v in %v", op.Path, h, tr.FileShape)
			}
			// Element (1, 1, 2): int 4, float 1/2/3.
			if op.Path == "/Timestep_0/id_1" {
				if got := i32s(tr.Data)[11]; got != 4 {
					t.Errorf("id_1[1,1,2] = %d", got)
				}
			} else if got := f32s(tr.Data)[11]; got != float32(1)/float32(2)/float32(3) {
				t.Errorf("%s[1,1,2] = %v", op.Path, got)
			}
		}
	}
	if !slices.Equal(extends, readOrderWant) {
		t.Errorf("extends %v, want %v", extends, readOrderWant)
	}
	e.Shape = shapeOf(4, 2, 3)
	rd, err := p.Step(patterns.PhaseRead, 0, e)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range rd.Ops {
		if op.Kind == plan.ExtendDataset || op.Kind == plan.Write {
			t.Errorf("read phase has %s", op)
		}
		if op.Kind == plan.Read && (op.Transfer.Data == nil || !slices.Equal(op.Transfer.Selection.Blocks[0].Start, u(2, 0, 0))) {
			t.Errorf("read %s: %+v", op.Path, op.Transfer.Selection)
		}
	}
	e.Shape = shapeOf(3, 2, 3)
	if _, err := p.Step(patterns.PhaseRead, 0, e); err == nil || !strings.Contains(err.Error(), "fewer than the 2*DIM_1 = 4") {
		t.Errorf("read of an unappended file: %v", err)
	}
	if p.Operation(patterns.PhaseWrite) != "append" {
		t.Errorf("operation %q", p.Operation(patterns.PhaseWrite))
	}
}

// TestKernelLifecycles: every variant's phases open and close files, groups and datasets
// in pairs, under sync and async (delayed closes), at 3 ranks; the modify kernels open
// what they write.
func TestKernelLifecycles(t *testing.T) {
	for _, f := range []patterns.Factory{UnlimitedFactory, NormalDistFactory, OverwriteFactory, AppendFactory} {
		p := kernel(f).Must(t, "DIM_1=6", "TIMESTEPS=4", "DELAYED_CLOSE_TIMESTEPS=2", "STDEV_DIM_1=2")
		rules := plantest.Lifecycle{OneFile: true, CreateOnly: !p.C.Kernel.modify()}
		for _, async := range []bool{false, true} {
			for _, ph := range p.Phases() {
				e := env(2, 3)
				e.Async, e.Seed = async, 5
				e.Shape = shapeOf(18)
				if ph == patterns.PhaseRead && p.C.Kernel == KernelNormalDist {
					_, _, total := p.slice(e)
					e.Shape = shapeOf(total)
				}
				plans, err := plantest.Phase(p, ph, 4, e)
				if err == nil {
					err = plantest.CheckLifecycle(ph, plans, rules)
				}
				if err != nil {
					t.Errorf("%s %s async=%v: %v", p.Name(), ph, async, err)
				}
			}
		}
	}
}
