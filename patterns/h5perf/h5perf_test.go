package h5perf

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

// posixOffsets is the oracle: the file offset of each byte of a rank's transfer buffers,
// transfer after transfer, as pio_engine.c's POSIX branch of do_write seeks and writes them
// (1-D, and 2-D without -c, where h5perf's file is the dataset in row-major order).
func posixOffsets(c Config, procs, rank int) []int64 {
	P, r, blk, buf := int64(procs), int64(rank), c.Block, c.Xfer
	var out []int64
	run := func(off, n int64) {
		for i := int64(0); i < n; i++ {
			out = append(out, off+i)
		}
	}
	if !c.Dim2D {
		nbytes := c.NumBPP * P
		begin := nbytes * r / P
		if c.Interleaved {
			begin = blk * r
		}
		for nx := int64(0); nx < nbytes/P; {
			if !c.Interleaved {
				run(begin+nx, buf)
				nx += buf
				continue
			}
			for left := buf; left > 0; left -= blk {
				run(begin+nx*P, blk)
				nx += blk
			}
		}
		return out
	}
	sn := c.NumBPP * P
	pfo := sn * r / P * sn
	if c.Interleaved {
		pfo = blk * r
	}
	for nx := int64(0); nx < sn*sn/P; {
		var off, adv int64
		if !c.Interleaved {
			off, adv = pfo+nx/blk/sn*(blk*sn)+nx/blk%sn, buf
		} else {
			off, adv = pfo+nx/buf*P/sn*(buf*sn)+nx/buf*P%sn, blk
		}
		for left := buf * blk; left > 0; left -= adv {
			run(off, adv)
			nx += adv
			off += sn
		}
	}
	return out
}

// selectionOffsets lists the linear offsets of a hyperslab's elements in row-major order:
// where HDF5 (and the raw layouts) put the transfer buffer's bytes.
func selectionOffsets(h plan.Hyperslab, shape []uint64) []int64 {
	var out []int64
	if len(shape) == 1 {
		for k := uint64(0); k < h.Count[0]; k++ {
			for b := uint64(0); b < h.Block[0]; b++ {
				out = append(out, int64(h.Start[0]+k*h.Stride[0]+b))
			}
		}
		return out
	}
	for k0 := uint64(0); k0 < h.Count[0]; k0++ {
		for b0 := uint64(0); b0 < h.Block[0]; b0++ {
			row := h.Start[0] + k0*h.Stride[0] + b0
			for k1 := uint64(0); k1 < h.Count[1]; k1++ {
				for b1 := uint64(0); b1 < h.Block[1]; b1++ {
					out = append(out, int64(row*shape[1]+h.Start[1]+k1*h.Stride[1]+b1))
				}
			}
		}
	}
	return out
}

// TestSelectionsAreH5perfOffsets: every rank's transfers select, byte for byte and in
// buffer order, the file offsets h5perf's POSIX I/O uses, for 1-D and 2-D, contiguous and
// interleaved, at 1 to 4 processes, and together they cover each dataset exactly once.
func TestSelectionsAreH5perfOffsets(t *testing.T) {
	configs := []Config{
		{NumBPP: 64, Xfer: 16, Block: 4},
		{NumBPP: 64, Xfer: 16, Block: 4, Interleaved: true},
		{NumBPP: 64, Xfer: 64, Block: 64},
		{NumBPP: 16, Xfer: 8, Block: 4, Dim2D: true},
		{NumBPP: 16, Xfer: 16, Block: 2, Dim2D: true},
		{NumBPP: 16, Xfer: 8, Block: 2, Dim2D: true, Interleaved: true},
		{NumBPP: 8, Xfer: 8, Block: 4, Dim2D: true, Interleaved: true},
	}
	for _, c := range configs {
		for procs := 1; procs <= 4; procs++ {
			g, err := c.Geometry(procs)
			if err != nil {
				if c.Dim2D {
					continue // sizes h5perf would reject at this count
				}
				t.Fatalf("%+v on %d: %v", c, procs, err)
			}
			seen := make([]int, g.Bytes)
			for r := 0; r < procs; r++ {
				var got []int64
				for _, h := range c.Selections(g, r) {
					got = append(got, selectionOffsets(h, c.Shape(g))...)
				}
				if want := posixOffsets(c, procs, r); !reflect.DeepEqual(got, want) {
					t.Fatalf("%+v on %d, rank %d:\n got %v\nwant %v", c, procs, r, got, want)
				}
				for _, o := range got {
					seen[o]++
				}
			}
			for o, n := range seen {
				if n != 1 {
					t.Fatalf("%+v on %d: byte %d written %d times", c, procs, o, n)
				}
			}
		}
	}
}

// kit builds the pattern from "KEY=VALUE" pairs.
var kit = plantest.For[*Pattern](Factory)

// TestPlan: a write step creates #pio_tmp_<n> with the API's suffix and its alignment,
// each Dataset_<d> (u8, chunked by the block with -c), one write per transfer buffer with
// the rank's seeded bytes, closes; the read step opens the same file read-only and reads
// the same selections, checking the same bytes.
func TestPlan(t *testing.T) {
	p := kit.Must(t, "api=mpiio", "num-bytes=8K", "xfer-size=2K", "block-size=1K", "num-dsets=2", "num-files=2", "num-iterations=2", "chunk=true", "align=4K", "threshold=2K", "collective=true")
	if p.Steps() != 8 {
		t.Fatalf("steps %d, want 2 iterations x 2 files x 2 halves", p.Steps())
	}
	env := patterns.Env{Rank: 1, Size: 2, Path: "/d/h5perf", Seed: 7}
	w, err := p.Step(patterns.PhaseWrite, 2, env) // iteration 0, file 2, write
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	ops := w.Ops
	if ops[0].Kind != plan.CreateFile || ops[0].Path != "/d/#pio_tmp_2.mpio" || ops[0].File.AlignLen != 4096 || ops[0].File.AlignThreshold != 2048 {
		t.Fatalf("first op %v %+v", ops[0], ops[0].File)
	}
	if n := len(ops); n != 1+2*(1+4+1)+1 {
		t.Fatalf("%d ops:\n%v", n, ops)
	}
	d := ops[1]
	if d.Kind != plan.CreateDataset || d.Path != "/Dataset_1" || !reflect.DeepEqual(d.Dataset.Shape, []uint64{16384}) || !reflect.DeepEqual(d.Dataset.Chunk, []uint64{1024}) || !d.Dataset.Type.Equal(plan.U8) {
		t.Fatalf("dataset %v", d)
	}
	wr := ops[2]
	if wr.Kind != plan.Write || !wr.Collective || wr.Transfer.Selection.Blocks[0].Start[0] != 8192 || len(wr.Transfer.Data) != 2048 {
		t.Fatalf("write %v", wr)
	}
	if ops[7].Path != "/Dataset_2" || ops[len(ops)-1].Kind != plan.CloseFile {
		t.Fatalf("ops %v", ops)
	}
	r, err := p.Step(patterns.PhaseWrite, 3, env)
	if err != nil {
		t.Fatal(err)
	}
	if r.Ops[0].Kind != plan.OpenFile || !r.Ops[0].File.ReadOnly || r.Ops[0].Path != "/d/#pio_tmp_2.mpio" || r.Ops[1].Kind != plan.OpenDataset || r.Ops[2].Kind != plan.Read {
		t.Fatalf("read ops %v", r.Ops)
	}
	if !reflect.DeepEqual(r.Ops[2].Transfer.Data, wr.Transfer.Data) || !reflect.DeepEqual(r.Ops[2].Transfer.Selection, wr.Transfer.Selection) {
		t.Error("the read does not check the written bytes at the written place")
	}
	other, _ := p.Step(patterns.PhaseWrite, 2, patterns.Env{Rank: 0, Size: 2, Path: "/d/h5perf", Seed: 7})
	if reflect.DeepEqual(other.Ops[2].Transfer.Data, wr.Transfer.Data) {
		t.Error("ranks write the same bytes: a misplaced block would pass the check")
	}
	for step, want := range map[int][]string{0: nil, 1: {"/d/#pio_tmp_1.mpio"}, 2: nil, 3: {"/d/#pio_tmp_2.mpio"}, 7: {"/d/#pio_tmp_2.mpio"}} {
		if got := p.RemoveAfter(patterns.PhaseWrite, step, env); !reflect.DeepEqual(got, want) {
			t.Errorf("removed after step %d: %v, want %v", step, got, want)
		}
	}
	wo := kit.Must(t, "write-only=true", "num-files=3")
	if wo.Steps() != 3 || !reflect.DeepEqual(wo.RemoveAfter(patterns.PhaseWrite, 1, env), []string{"/d/#pio_tmp_2.h5"}) {
		t.Error("write-only steps or removal")
	}
	if kit.Must(t, "nocleanup=true").RemoveAfter(patterns.PhaseWrite, 1, env) != nil {
		t.Error("nocleanup removes")
	}
	odd := kit.Must(t, "num-bytes=8K", "xfer-size=3K", "block-size=1K")
	if _, err := odd.Begin(patterns.PhaseWrite, patterns.Env{Size: 3}); err == nil || err.Error() != "Dataset size/process (8192) must be a multiple of the trasfer buffer size (3072)" {
		t.Errorf("Begin: %v", err)
	}
	for _, c := range [][]string{{"api=hdf5", "api"}, {"num-dsets=-1", "num-dsets"}, {"debug=z", "debug", "invalid --debug option z"}, {"geometry=maybe", "geometry"}} {
		_, _, err := kit.Build(c[0])
		plantest.CheckOptionsError(t, c[0], err, c[1:]...)
	}
}

// TestKernelReport: h5perf's lines for one API from the reduced step times: the rates are
// num-files × num-dsets × dataset bytes over the slowest rank's time summed over the
// files, maximum from the fastest iteration, average from the mean time, minimum from the
// slowest; -D t adds the times, -D 3 the per-iteration details, -D r the raw rates.
func TestKernelReport(t *testing.T) {
	p := kit.Must(t, "api=posix", "num-bytes=1M", "xfer-size=512K", "block-size=256K", "num-files=2", "num-iterations=2", "debug=3,t,r")
	tm := func(lo, hi float64) patterns.Timing { return patterns.Timing{Min: lo, Max: hi, Mean: (lo + hi) / 2} }
	var steps []patterns.StepTimes
	// Iteration 1: writes take 0.1+0.1 s (max), reads 0.05+0.05; iteration 2: 0.3+0.1, 0.1+0.1.
	for i, w := range []float64{0.1, 0.05, 0.1, 0.05, 0.3, 0.1, 0.1, 0.1} {
		ops := map[plan.OpKind]patterns.Timing{plan.Write: tm(w/4, w/2), plan.Read: tm(w/4, w/2)}
		steps = append(steps, patterns.StepTimes{Step: i, Inner: tm(w/2, w), OpsSpan: tm(w, 2*w), FileOpen: tm(0, w/2), FileClose: tm(0, w/4), Ops: ops})
	}
	lines := p.KernelReport(patterns.PhaseTimes{Phase: patterns.PhaseWrite, Ranks: 2, Steps: steps})
	var text []string
	named := map[string]float64{}
	for _, l := range lines {
		if l.Text != "" {
			text = append(text, l.Text)
		}
		if l.Name != "" {
			named[l.Name] = l.Value
		}
	}
	all := strings.Join(text, "\n")
	mb := 2.0 * 2 * 1 // 2 files x 1 dataset x 2 MiB
	for _, want := range []string{
		"        IO API = POSIX",
		"            Raw Data Write (2 iteration(s)):",
		"            Write details:\n                Iteration 1:\n                    Minimum Time: 0.10s\n                    Maximum Time: 0.20s\n                Iteration 2:\n                    Minimum Time: 0.20s\n                    Maximum Time: 0.40s",
		fmt.Sprintf("            Write (2 iteration(s)):\n                Maximum Throughput: %6.2f MB/s (%7.3f s)\n                Average Throughput: %6.2f MB/s (%7.3f s)\n                Minimum Throughput: %6.2f MB/s (%7.3f s)", mb/0.2, 0.2, mb/0.3, 0.3, mb/0.4, 0.4),
		fmt.Sprintf("            Write Open-Close (2 iteration(s)):\n                Maximum Throughput: %6.2f MB/s", mb/0.4),
		"            Write File Open (2 iteration(s)):\n                Minimum Accumulated Time using 2 file(s): 0.10000 s\n                Average Accumulated Time using 2 file(s): 0.15000 s\n                Maximum Accumulated Time using 2 file(s): 0.20000 s",
		"            MPI Read details:\n                Iteration 1:\n                    Minimum Time: 0.00s",
		fmt.Sprintf("            Read (2 iteration(s)):\n                Maximum Throughput: %6.2f MB/s", mb/0.1),
		"            Read Open-Close (2 iteration(s)):",
		"            Read file close details:",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("report lacks\n%s\n--- report:\n%s", want, all)
		}
	}
	if v := named["Write average throughput"]; math.Abs(v-mb/0.3) > 1e-9 {
		t.Errorf("CSV Write average %v, want %v", v, mb/0.3)
	}
	if got := kit.Must(t, "write-only=true").KernelReport(patterns.PhaseTimes{Phase: patterns.PhaseWrite, Ranks: 1, Steps: steps[:1]}); strings.Contains(fmt.Sprint(got), "Read") {
		t.Errorf("write-only report has reads: %v", got)
	}
}

// TestParametersAndHeaders: the parameters block and the per-size lines character for
// character as the real h5perf 1.10.8 printed them (mpirun -np 2 h5perf -e 64K -x 16K
// -X 32K -B 4K -i 2, and -g -I -e 64 -x 32 -X 64 -B 16 -d 2).
func TestParametersAndHeaders(t *testing.T) {
	a, err := Parse(strings.Fields("-e 64K -x 16K -X 32K -B 4K -i 2"), 2)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range a.Parameters(0, "1.10.8", "") {
		b.WriteString(l.Prefix + l.Text + "\n")
	}
	want := `HDF5 Library: Version 1.10.8
rank 0: ==== Parameters ====
rank 0: IO API=posix mpiio phdf5 
rank 0: Number of files=1
rank 0: Number of datasets=1
rank 0: Number of iterations=2
rank 0: Number of processes=1:2
rank 0: Number of bytes per process per dataset=64KB
rank 0: Size of dataset(s)=64KB:128KB
rank 0: File size=64KB:128KB
rank 0: Transfer buffer size=16KB:32KB
rank 0: Block size=4KB
rank 0: Block Pattern in Dataset=Contiguous
rank 0: I/O Method for MPI and HDF5=Independent
rank 0: Geometry=1D
rank 0: VFL used for HDF5 I/O=MPI-IO driver
rank 0: Data storage method in HDF5=Contiguous
rank 0: Env HDF5_PARAPREFIX=not set
rank 0: Dumping MPI Info Object (up to 256 bytes per item):
object is MPI_INFO_NULL
rank 0: ==== End of Parameters ====

`
	if b.String() != want {
		t.Errorf("parameters:\n%s\nwant:\n%s", b.String(), want)
	}
	if got := strings.Join(a.SizeHeader(2, 16*KB), "\n"); got != "Transfer Buffer Size: 16384 bytes, File size: 0.12 MB\n      # of files: 1, # of datasets: 1, dataset size: 0.12 MB" {
		t.Errorf("1-D header %q", got)
	}
	g, _ := Parse(strings.Fields("-g -I -e 64 -x 32 -X 64 -B 16 -d 2 -c -C -A phdf5"), 2)
	var gb strings.Builder
	for _, l := range g.Parameters(0, "1.10.8", "/scratch") {
		if !l.Stdout {
			gb.WriteString(l.Text + "\n")
		}
	}
	for _, w := range []string{"rank 0: IO API=phdf5 \n", "Number of bytes per process per dataset=4KB:8KB\n", "Size of dataset(s)=64x64:128x128\n",
		"File size=8KB:32KB\n", "Transfer buffer size=32x16:64x16\n", "Block size=16x16\n", "Block Pattern in Dataset=Interleaved\n",
		"I/O Method for MPI and HDF5=Collective\n", "Geometry=2D\n", "Data storage method in HDF5=Chunked\n", "Env HDF5_PARAPREFIX=/scratch\n"} {
		if !strings.Contains(gb.String(), w) {
			t.Errorf("2-D parameters lack %q:\n%s", w, gb.String())
		}
	}
	if got := strings.Join(g.SizeHeader(2, 32), "\n"); got != "Transfer Buffer Size: 32x16 bytes, File size: 0.03 MB\n      # of files: 1, # of datasets: 2, dataset size: 0.12x0.12 KB" {
		t.Errorf("2-D header %q", got)
	}
}
