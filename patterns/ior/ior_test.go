package ior

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

func mustParse(t *testing.T, args ...string) Config {
	t.Helper()
	c, _, err := Parse(args)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return c
}

// TestParseDefaults: IOR's defaults, and with none of -w -r -W -R a write and a read.
func TestParseDefaults(t *testing.T) {
	c := mustParse(t)
	want := Config{API: "POSIX", BlockSize: 1 << 20, TransferSize: 256 << 10, Segments: 1, TaskPerNodeOffset: 1, WriteFile: true, ReadFile: true,
		Repetitions: 1, TestFile: "testFile", Alignment: 1}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("defaults\n got %+v\nwant %+v", c, want)
	}
}

// TestParseEveryOption: each supported letter sets its parameter, in the spellings users
// type (separate value, attached value, "=value", sizes with suffixes).
func TestParseEveryOption(t *testing.T) {
	cases := []struct {
		args  []string
		check func(c Config) bool
	}{
		{[]string{"-a", "MPIIO"}, func(c Config) bool { return c.API == "MPIIO" && c.Layout() == "mpiio" }},
		{[]string{"-a", "hdf5"}, func(c Config) bool { return c.API == "HDF5" && c.Layout() == "native" }},
		{[]string{"-a", "POSIX"}, func(c Config) bool { return c.API == "POSIX" && c.Layout() == "posix" }},
		{[]string{"-b", "4m", "-t", "64k"}, func(c Config) bool { return c.BlockSize == 4<<20 && c.TransferSize == 64<<10 }},
		{[]string{"-b2g", "-t=1M"}, func(c Config) bool { return c.BlockSize == 2<<30 && c.TransferSize == 1<<20 }},
		{[]string{"-b", "4096", "-t", "8"}, func(c Config) bool { return c.BlockSize == 4096 && c.TransferSize == 8 }},
		{[]string{"-s", "16"}, func(c Config) bool { return c.Segments == 16 }},
		{[]string{"-F"}, func(c Config) bool { return c.FilePerProc }},
		{[]string{"-a", "MPIIO", "-c"}, func(c Config) bool { return c.Collective }},
		{[]string{"-C", "-Q", "3"}, func(c Config) bool { return c.ReorderTasks && c.TaskPerNodeOffset == 3 }},
		{[]string{"-Z", "-X", "-7"}, func(c Config) bool { return c.ReorderRandom && c.ReorderSeed == -7 }},
		{[]string{"-z"}, func(c Config) bool { return c.RandomOffset }},
		{[]string{"-e"}, func(c Config) bool { return c.Fsync }},
		{[]string{"-Y"}, func(c Config) bool { return c.FsyncPerWrite }},
		{[]string{"-w"}, func(c Config) bool { return c.WriteFile && !c.ReadFile }},
		{[]string{"-r"}, func(c Config) bool { return c.ReadFile && !c.WriteFile }},
		{[]string{"-W"}, func(c Config) bool { return c.CheckWrite && !c.WriteFile && !c.ReadFile }},
		{[]string{"-w", "-R"}, func(c Config) bool { return c.CheckRead && c.WriteFile }},
		{[]string{"-k"}, func(c Config) bool { return c.KeepFile }},
		{[]string{"-K"}, func(c Config) bool { return c.KeepFileWithError }},
		{[]string{"-i", "5"}, func(c Config) bool { return c.Repetitions == 5 }},
		{[]string{"-d", "2"}, func(c Config) bool { return c.InterTestDelay == 2 }},
		{[]string{"-o", "/scratch/f"}, func(c Config) bool { return c.TestFile == "/scratch/f" }},
		{[]string{"-O", "checkRead=1,blockSize=2m,transferSize=1m,collective=1,api=MPIIO,writefile=1"}, func(c Config) bool {
			return c.CheckRead && c.WriteFile && c.BlockSize == 2<<20 && c.TransferSize == 1<<20 && c.Collective && c.API == "MPIIO"
		}},
		{[]string{"-g"}, func(c Config) bool { return c.IntraTestBarriers }},
		{[]string{"-x"}, func(c Config) bool { return c.SingleXferAttempt }},
		{[]string{"-a", "HDF5", "-H"}, func(c Config) bool { return c.ShowHints }},
		{[]string{"-J", "4k"}, func(c Config) bool { return c.Alignment == 4096 }},
		{[]string{"-a", "HDF5", "-n"}, func(c Config) bool { return c.NoFill }},
		{[]string{"-A", "42"}, func(c Config) bool { return c.RefNum == 42 }},
		{[]string{"-G", "9"}, func(c Config) bool { return c.Signature == 9 }},
		{[]string{"-U", "hints.txt"}, func(c Config) bool { return c.HintsFile == "hints.txt" }},
		{[]string{"-v", "-v"}, func(c Config) bool { return c.Verbose == 2 }},
		// The last of a repeated option wins, as in IOR.
		{[]string{"-s", "2", "-s", "3"}, func(c Config) bool { return c.Segments == 3 }},
	}
	for _, tc := range cases {
		if c := mustParse(t, tc.args...); !tc.check(c) {
			t.Errorf("%q: %+v", tc.args, c)
		}
	}
}

// TestParseErrors: each bad option gets IOR's message (or, for the letters h5proxy does
// not model, a refusal naming them), and nothing is half-parsed.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-y"}, "Error invalid argument: -y\nInvalid options"},
		{[]string{"foo"}, "Error invalid argument: foo"},
		{[]string{"--blockSize=1m"}, "Error invalid argument: --blockSize=1m"},
		{[]string{"--hdf5.noFill=1"}, "--hdf5.noFill takes no value"},
		{[]string{"--hdf5.chunkSize=lots"}, "chunkSize must be an integer"},
		{[]string{"--hdf5.setAlignment"}, "--hdf5.setAlignment (missing value)"},
		{[]string{"-Fc"}, "Error invalid argument: -Fc"},
		{[]string{"-b"}, "Error invalid argument: -b (missing value)"},
		{[]string{"-b", "1x"}, `-b 1x (size "1x": unknown suffix "x" (k, m or g))`},
		{[]string{"-t", "k"}, `size "k" is not a number`},
		{[]string{"-s", "two"}, "segmentCount must be an integer"},
		{[]string{"-a", "NCMPI"}, "Could not load backend API NCMPI"},
		{[]string{"-O", "nosuch=1"}, `Unrecognized parameter "nosuch"`},
		{[]string{"-O", "checkRead"}, "Syntax error in configuration options: checkRead"},
		{[]string{"-O", "checkRead=maybe"}, "checkRead must be 0 or 1"},
		{[]string{"-D", "10"}, "deadlineForStonewalling is not supported by h5proxy ior"},
		{[]string{"-S"}, "useStridedDatatype is not supported by h5proxy ior"},
		{[]string{"-V"}, "ior ERROR: --mpiio.useFileView (-V, useFileView) is an option of the MPIIO backend: use -a MPIIO"},
		{[]string{"-a", "HDF5", "--mpiio.useFileView"}, "is an option of the MPIIO backend"},
		{[]string{"-a", "MPIIO", "-V", "-z"}, "ior ERROR: random offset not available with MPIIO fileviews"},
		{[]string{"-s", "0"}, "Error invalid argument: -s 0"},
		{[]string{"-i", "0"}, "Error invalid argument: -i 0"},
		{[]string{"-b", "1m", "-t", "300k"}, "ior ERROR: block size must be a multiple of transfer size"},
		{[]string{"-b", "64k", "-t", "128k"}, "ior ERROR: block size must be a multiple of transfer size"},
		{[]string{"-b", "12", "-t", "12"}, "ior ERROR: block size must be a multiple of access size"},
		{[]string{"-b", "16", "-t", "12"}, "ior ERROR: transfer size must be a multiple of access size"},
		{[]string{"-t", "0"}, "ior ERROR: test will not complete with zero transfer size"},
		{[]string{"-C", "-Z"}, "ior ERROR: Both Constant and Random task re-ordering specified"},
		{[]string{"-z", "-Z"}, "ior ERROR: random offset and random reorder tasks specified with single-shared-file"},
		{[]string{"-z", "-C"}, "ior ERROR: random offset and constant reorder tasks specified with single-shared-file"},
		{[]string{"-w", "-z", "-R"}, "ior ERROR: random offset not available with read check option (use write check)"},
		{[]string{"-a", "MPIIO", "-z", "-c"}, "ior ERROR: random offset not available with collective MPIIO"},
		{[]string{"-a", "HDF5", "-z"}, "ior ERROR: random offset not available with HDF5"},
		{[]string{"-n"}, "ior ERROR: 'no fill' option only available in HDF5"},
		{[]string{"-R"}, "ior ERROR: using readCheck only requires to write a timeStampSignature -- use -G"},
	}
	for _, tc := range cases {
		_, _, err := Parse(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
		var ae *ArgError
		var ie *Error
		if err != nil && !errors.As(err, &ae) && !errors.As(err, &ie) {
			t.Errorf("%q: %T, want *ArgError or *Error", tc.args, err)
		}
	}
	// IOR's warnings that reset a value.
	for _, tc := range []struct {
		args  []string
		warn  string
		reset func(c Config) bool
	}{
		{[]string{"-c"}, "collective not available in POSIX.  Using value of 0.", func(c Config) bool { return !c.Collective }},
		{[]string{"-H"}, "hints not available in POSIX", func(c Config) bool { return !c.ShowHints }},
		{[]string{"-a", "HDF5", "-e"}, "fsync() not supported in selected backend", func(c Config) bool { return !c.Fsync }},
		{[]string{"-a", "MPIIO", "-x"}, "retry only available in POSIX", func(c Config) bool { return !c.SingleXferAttempt }},
	} {
		c, warns, err := Parse(tc.args)
		if err != nil || len(warns) != 1 || !strings.Contains(warns[0], tc.warn) || !tc.reset(c) {
			t.Errorf("%q: %v %q %+v, want warning %q", tc.args, err, warns, c, tc.warn)
		}
	}
}

// build builds the pattern from an IOR command line through its option table and factory,
// as `h5proxy ior` does.
func build(t *testing.T, args ...string) *Pattern {
	t.Helper()
	kvs, err := ParseArgs(args)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	p, _, err := plantest.For[*Pattern](Factory).BuildKV(kvs)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return p
}

// fileBytes is where each transfer of a plan lands: file, byte offset in IOR's file
// (segment datasets one after the other from byte 0), bytes.
type landed struct {
	file       string
	off, bytes uint64
}

func transfersOf(t *testing.T, p *Pattern, ph patterns.Phase, rank, size, step int) ([]landed, plan.Plan) {
	t.Helper()
	pl, err := p.Step(ph, step, patterns.Env{Rank: rank, Size: size, Path: "f", Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	var file string
	var out []landed
	for _, op := range pl.Ops {
		switch op.Kind {
		case plan.CreateFile, plan.OpenFile:
			file = op.Path
		case plan.Write, plan.Read:
			var seg int
			if _, err := fmt.Sscanf(op.Path, "/Dataset-0000.%04d", &seg); err != nil {
				t.Fatalf("dataset %s", op.Path)
			}
			tr := op.Transfer
			segBytes := tr.FileShape[0] * 8
			out = append(out, landed{file, uint64(seg)*segBytes + tr.Selection.Blocks[0].Start[0]*8, tr.Bytes()})
		}
	}
	return out, pl
}

// TestOffsets: every transfer lands at IOR's offset: s*N*B + t*B + j*T in the shared file,
// s*B + j*T in testFile.NNNNNNNN with -F, at 1, 2 and 4 ranks.
func TestOffsets(t *testing.T) {
	const B, T, S = 4096, 1024, 3
	for _, fpp := range []bool{false, true} {
		for _, n := range []int{1, 2, 4} {
			args := []string{"-b", "4k", "-t", "1k", "-s", "3"}
			if fpp {
				args = append(args, "-F")
			}
			p := build(t, args...)
			for r := 0; r < n; r++ {
				got, _ := transfersOf(t, p, patterns.PhaseWrite, r, n, 0)
				var want []landed
				for s := uint64(0); s < S; s++ {
					for j := uint64(0); j < B/T; j++ {
						if fpp {
							want = append(want, landed{fmt.Sprintf("f.%08d", r), s*B + j*T, T})
						} else {
							want = append(want, landed{"f", s*uint64(n)*B + uint64(r)*B + j*T, T})
						}
					}
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("fpp=%v %d ranks rank %d:\n got %v\nwant %v", fpp, n, r, got, want)
				}
			}
		}
	}
}

// TestHDF5Structure: IOR's HDF5 calls: the file created (opened read-only) on all tasks
// or per task, one "Dataset-0000.SSSS" per segment, native long long, 1-D of N*B/8 (B/8
// per process), created before the segment's first transfer and closed after its last;
// transfers collective with -c; no fill with -n; alignment with -J; -e and -Y plan no
// flush under HDF5 and a flush each under POSIX.
func TestHDF5Structure(t *testing.T) {
	p := build(t, "-a", "HDF5", "-b", "4k", "-t", "2k", "-s", "2", "-c", "-n", "-J", "64k")
	_, pl := transfersOf(t, p, patterns.PhaseWrite, 1, 4, 0)
	var seq []string
	for _, op := range pl.Ops {
		s := op.Kind.String() + " " + op.Path
		switch op.Kind {
		case plan.CreateFile:
			if !op.File.Parallel || !op.Collective || op.File.AlignLen != 65536 || op.File.AlignThreshold != 65536 {
				t.Errorf("file spec %+v", op.File)
			}
		case plan.CreateDataset:
			if d := op.Dataset; !d.Type.Equal(plan.I64) || !reflect.DeepEqual(d.Shape, []uint64{4 * 4096 / 8}) || d.Chunk != nil || !d.FillNever {
				t.Errorf("dataset %+v", *d)
			}
		case plan.Write:
			if !op.Collective || !reflect.DeepEqual(op.Transfer.MemShape, []uint64{256}) {
				t.Errorf("write %+v", op)
			}
			s += fmt.Sprint(op.Transfer.Selection.Blocks[0].Start)
		}
		seq = append(seq, s)
	}
	want := "create-file f,create-dataset /Dataset-0000.0000,write /Dataset-0000.0000[512],write /Dataset-0000.0000[768],close-dataset /Dataset-0000.0000," +
		"create-dataset /Dataset-0000.0001,write /Dataset-0000.0001[512],write /Dataset-0000.0001[768],close-dataset /Dataset-0000.0001,close-file f"
	if got := strings.Join(seq, ","); got != want {
		t.Errorf("call sequence\n got %s\nwant %s", got, want)
	}
	// Read: opened read-only; -F: each task's own file, not collective.
	p = build(t, "-a", "HDF5", "-b", "4k", "-t", "4k", "-F")
	_, pl = transfersOf(t, p, patterns.PhaseRead, 2, 4, 0)
	if op := pl.Ops[0]; op.Kind != plan.OpenFile || op.Path != "f.00000002" || op.File.Parallel || !op.File.ReadOnly || op.Collective {
		t.Errorf("read open %+v %+v", op, op.File)
	}
	if op := pl.Ops[1]; op.Kind != plan.OpenDataset || !reflect.DeepEqual(op.Dataset.Shape, []uint64{512}) {
		t.Errorf("dataset open %+v", op)
	}
	flushes := func(args ...string) int {
		_, pl := transfersOf(t, build(t, args...), patterns.PhaseWrite, 0, 2, 0)
		n := 0
		for _, op := range pl.Ops {
			if op.Kind == plan.FlushFile {
				n++
			}
		}
		return n
	}
	if a, b, c := flushes("-a", "HDF5", "-Y", "-b", "4k", "-t", "1k"), flushes("-e", "-b", "4k", "-t", "1k"), flushes("-a", "MPIIO", "-e", "-Y", "-b", "4k", "-t", "1k"); a != 0 || b != 1 || c != 5 {
		t.Errorf("flushes: HDF5 -Y %d (want 0), POSIX -e %d (want 1), MPIIO -e -Y %d (want 4+1)", a, b, c)
	}
}

// TestReorder: -C reads task (r + Q) % N (2 for a write check alone); -Z draws a
// per-rank offset, the same for the same seed, changing with the iteration only for a
// negative seed; the read plan then opens (-F) or selects (shared) that task's data.
func TestReorder(t *testing.T) {
	p := build(t, "-C", "-Q", "3", "-b", "4k", "-t", "4k")
	for r, want := range []int{3, 0, 1, 2} {
		if got := (r + p.RankOffset(r, 4, 0)) % 4; got != want {
			t.Errorf("-C -Q 3: rank %d reads task %d, want %d", r, got, want)
		}
	}
	if got := build(t, "-C", "-W").RankOffset(0, 4, 0); got != 2 {
		t.Errorf("-C -W alone: offset %d, want 2", got)
	}
	if got := build(t, "-C").RankOffset(0, 1, 0); got != 0 {
		t.Errorf("one task: offset %d", got)
	}
	got, _ := transfersOf(t, build(t, "-C", "-b", "4k", "-t", "4k"), patterns.PhaseRead, 1, 4, 0)
	if len(got) != 1 || got[0].off != 2*4096 {
		t.Errorf("-C read of rank 1: %v, want task 2's block at 8192", got)
	}
	got, _ = transfersOf(t, build(t, "-C", "-F", "-b", "4k", "-t", "4k"), patterns.PhaseRead, 3, 4, 0)
	if len(got) != 1 || got[0].file != "f.00000000" {
		t.Errorf("-C -F read of rank 3: %v, want task 0's file", got)
	}
	z := build(t, "-Z", "-X", "5")
	z2 := build(t, "-Z", "-X", "-5")
	differs, stepDiffers := false, false
	for r := 0; r < 16; r++ {
		o := z.RankOffset(r, 16, 0)
		if o < 0 || o >= 16 || o != z.RankOffset(r, 16, 3) {
			t.Errorf("-Z rank %d: offset %d, step 3 %d", r, o, z.RankOffset(r, 16, 3))
		}
		differs = differs || o != z.RankOffset(0, 16, 0)
		stepDiffers = stepDiffers || z2.RankOffset(r, 16, 0) != z2.RankOffset(r, 16, 1)
	}
	if !differs || !stepDiffers {
		t.Errorf("-Z draws: differ by rank %v, by iteration with a negative seed %v", differs, stepDiffers)
	}
}

// TestRandomOffsets: -z visits the same transfers in another order: in a shared file the
// tasks together cover every transfer exactly once; with -F each its own file's.
func TestRandomOffsets(t *testing.T) {
	for _, fpp := range []bool{false, true} {
		args := []string{"-z", "-b", "8k", "-t", "1k", "-s", "2"}
		if fpp {
			args = append(args, "-F")
		}
		p := build(t, args...)
		seen := map[landed]int{}
		sequential := true
		for r := 0; r < 4; r++ {
			got, _ := transfersOf(t, p, patterns.PhaseWrite, r, 4, 0)
			for i, l := range got {
				seen[landed{l.file, l.off, 0}]++
				if i > 0 && l.off < got[i-1].off {
					sequential = false
				}
			}
		}
		want := 4 * 2 * 8
		if len(seen) != want || sequential {
			t.Errorf("fpp=%v: %d distinct transfers (want %d), sequential %v", fpp, len(seen), want, sequential)
		}
		for l, n := range seen {
			if n != 1 || l.off%1024 != 0 || (fpp && l.off >= 16384) || (!fpp && l.off >= 4*16384) {
				t.Errorf("fpp=%v: transfer %v x%d", fpp, l, n)
			}
		}
	}
}

// TestReportText: rows and tables character for character against IOR 3.3.0's output
// (the README of a public IOR run: 10 tasks, -t 1m -b 16m -s 16).
func TestReportText(t *testing.T) {
	it := Iteration{Access: "write", BW: 678.06 * mebi, IOPS: 678.07, Latency: 0.118931, BlockKiB: 16384, XferKiB: 1024,
		Open: 0.770489, WrRd: 3.78, Close: 3.59, Total: 3.78}
	if got, want := it.Row(), "write     678.06     678.07     0.118931    16384      1024.00    0.770489   3.78       3.59       3.78       0   "; got != want {
		t.Errorf("row\n got %q\nwant %q", got, want)
	}
	it = Iteration{Access: "read", BW: 4233.46 * mebi, IOPS: 4234, Latency: 0.019146, BlockKiB: 16384, XferKiB: 1024,
		Open: 0.000035, WrRd: 0.604695, Close: 0.298354, Total: 0.604706}
	if got, want := it.Row(), "read      4233       4234       0.019146    16384      1024.00    0.000035   0.604695   0.298354   0.604706   0   "; got != want {
		t.Errorf("row\n got %q\nwant %q", got, want)
	}
	if got, want := RemoveRow(3.20, 0), "remove    -          -          -           -          -          -          -          -          3.20       0   "; got != want {
		t.Errorf("remove\n got %q\nwant %q", got, want)
	}
	if want := "Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  Mean(OPs)     StdDev    Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt   blksiz    xsize aggs(MiB)   API RefNum"; SummaryHeader != want {
		t.Errorf("summary header\n got %q\nwant %q", SummaryHeader, want)
	}
	p := build(t, "-t", "1m", "-b", "16m", "-s", "16")
	agg := 16.0 * 16 * mebi * 10
	its := []Iteration{{Access: "write", Bytes: agg, Total: 3.77548}}
	if got, want := p.SummaryRow(its, 10), "write         678.06     678.06     678.06       0.00     678.06     678.06     678.06       0.00    3.77548         NA            NA     0     10  10    1   0     0        1         0    0     16 16777216  1048576    2560.0 POSIX      0"; got != want {
		t.Errorf("summary row\n got %q\nwant %q", got, want)
	}
	its[0].BW = agg / 3.77548
	if got := MaxLine(its); got != "Max Write: 678.06 MiB/sec (711.00 MB/sec)" {
		t.Errorf("max line %q", got)
	}
	// Two iterations: max, min, mean and population standard deviation.
	its = []Iteration{{Access: "read", Bytes: 100 * mebi, Total: 1}, {Access: "read", Bytes: 100 * mebi, Total: 0.5}}
	if got := p.SummaryRow(its, 10); !strings.HasPrefix(got, "read          200.00     100.00     150.00      50.00     200.00     100.00     150.00      50.00    0.75000 ") {
		t.Errorf("two iterations: %q", got)
	}
	opts := strings.Join(p.C.OptionsBlock("testFile", "", 10), "\n")
	want := "Options: \napi                 : POSIX\napiVersion          : \ntest filename       : testFile\naccess              : single-shared-file\n" +
		"type                : independent\nsegments            : 16\nordering in a file  : sequential\nordering inter file : no tasks offsets\n" +
		"nodes               : 1\ntasks               : 10\nclients per node    : 10\nrepetitions         : 1\nxfersize            : 1 MiB\n" +
		"blocksize           : 16 MiB\naggregate filesize  : 2.50 GiB"
	if opts != want {
		t.Errorf("options\n got %q\nwant %q", opts, want)
	}
	if got := strings.Join(build(t, "-Z", "-X", "3", "-F", "-c", "-a", "HDF5").C.OptionsBlock("f", "", 4)[4:11], "|"); got !=
		"access              : file-per-process|type                : collective|segments            : 1|ordering in a file  : sequential|"+
			"ordering inter file : random task offset|task offset         : 1|reorder random seed : 3" {
		t.Errorf("options of -Z -F -c: %s", got)
	}
	for v, want := range map[uint64]string{262144: "262144 bytes", 1 << 20: "1 MiB", 16 << 30: "16 GiB", 5 << 29: "2.50 GiB", 3 << 19: "1.50 MiB"} {
		if got := HumanReadable(v); got != want {
			t.Errorf("HumanReadable(%d) = %q, want %q", v, got, want)
		}
	}
}

// stepAt is a step whose two ranks overlap as IOR's timers see them: opens from t0 to
// t0+open (the faster rank's ends at half), transfers until open/2+wrrd, closes from there
// less close/2 to t0+open/2+wrrd+close/2; the fastest rank's transfers take wrrd/4.
func stepAt(i int, t0, open, wrrd, close float64) patterns.StepTimes {
	return patterns.StepTimes{Step: i, Bytes: 4 * 2 * mebi, FirstStart: patterns.Timing{Min: t0, Max: t0 + open/4},
		FirstEnd: patterns.Timing{Min: t0 + open/2, Max: t0 + open}, LastStart: patterns.Timing{Min: t0 + open/2 + wrrd - close/2, Max: t0 + open/2 + wrrd},
		LastEnd: patterns.Timing{Min: t0 + open/2 + wrrd, Max: t0 + open/2 + wrrd + close/2}, Inner: patterns.Timing{Min: wrrd / 4, Max: wrrd}}
}

// TestKernelReport: a phase's lines from the session's step stamps, reduced as IOR
// reduces its timers: open, wr/rd and close each from the earliest start to the latest
// end over the ranks, total from the earliest open start to the latest close end (less
// than their sum when the ranks overlap), bandwidth over total; the Max line and the
// summary row last.
func TestKernelReport(t *testing.T) {
	p := build(t, "-b", "1m", "-t", "256k", "-s", "2", "-i", "2")
	const t0 = 1.7e9
	lines := p.KernelReport(patterns.PhaseTimes{Phase: patterns.PhaseRead, Ranks: 4, Steps: []patterns.StepTimes{stepAt(0, t0, 0.25, 0.5, 0.25), stepAt(1, t0+10, 0.5, 1, 0.5)}})
	var names []string
	for _, l := range lines {
		names = append(names, l.Name)
	}
	sort.Strings(names)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-3 }
	if strings.Join(names, ",") != "iter0-bw,iter1-bw,max-bw,mean-bw" || !near(lines[0].Value, 8/0.75) || !near(lines[1].Value, 4/0.75) || !near(lines[2].Value, 8/0.75) || !near(lines[3].Value, 8) {
		t.Fatalf("lines %+v", lines)
	}
	// 32 transfers over 0.5 s of wr/rd; latency 0.125 s over the 4 transfers of a block.
	if want := "read      10.67      64.00      0.031250    1024.00    256.00     0.250000   0.500000   0.250000   0.750000   0   "; lines[0].Text != want {
		t.Errorf("row\n got %q\nwant %q", lines[0].Text, want)
	}
	if !strings.HasPrefix(lines[2].Text, "Max Read:  10.67 MiB/sec") || !strings.HasPrefix(lines[3].Text, "read           10.67       5.33       8.00       2.67") {
		t.Errorf("max %q summary %q", lines[2].Text, lines[3].Text)
	}
}

// TestKernelReportPerIteration: with the iterations run one at a time by the session, a
// run's row is numbered by its iteration, and its Max line and summary cover the earlier
// iterations' runs of the same access.
func TestKernelReportPerIteration(t *testing.T) {
	p := build(t, "-b", "1m", "-t", "256k", "-s", "2", "-i", "2")
	const t0 = 1.7e9
	write0 := patterns.PhaseTimes{Phase: patterns.PhaseWrite, Ranks: 4, Steps: []patterns.StepTimes{stepAt(0, t0, 0.1, 0.2, 0.1)}, ByIteration: true}
	read0 := patterns.PhaseTimes{Phase: patterns.PhaseRead, Ranks: 4, Steps: []patterns.StepTimes{stepAt(0, t0+1, 0.25, 0.5, 0.25)}, ByIteration: true}
	write1 := patterns.PhaseTimes{Phase: patterns.PhaseWrite, Ranks: 4, Steps: []patterns.StepTimes{stepAt(0, t0+2, 0.1, 0.2, 0.1)}, ByIteration: true, Iteration: 1}
	read1 := patterns.PhaseTimes{Phase: patterns.PhaseRead, Ranks: 4, Steps: []patterns.StepTimes{stepAt(0, t0+3, 0.5, 1, 0.5)},
		Earlier: []patterns.PhaseTimes{write0, read0, write1}, ByIteration: true, Iteration: 1}
	lines := p.KernelReport(read1)
	if len(lines) != 3 || lines[0].Name != "iter1-bw" || !strings.HasSuffix(lines[0].Text, " 1   ") {
		t.Fatalf("lines %+v", lines)
	}
	if !strings.HasPrefix(lines[1].Text, "Max Read:  10.67 MiB/sec") || !strings.HasPrefix(lines[2].Text, "read           10.67       5.33       8.00       2.67") ||
		!strings.Contains(lines[2].Text, "  4   4    2 ") {
		t.Errorf("max %q summary %q", lines[1].Text, lines[2].Text)
	}
	if p.Steps() != 2 || p.Iterations() != 2 {
		t.Errorf("steps %d, iterations %d, want 2 and 2 (one step an iteration)", p.Steps(), p.Iterations())
	}
}

// TestFileAccess: IOR's HDF5 backend opens a file per process through MPI-IO on
// MPI_COMM_SELF (SelfMPIIO), a shared file through MPI-IO on all tasks; the raw APIs'
// files per process are the tasks' own. Run one iteration at a time, a phase is one step,
// planned as the iteration Env names: a -Z -X -1 read draws the task of that iteration.
func TestFileAccess(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		parallel, self bool
	}{
		{[]string{"-a", "HDF5", "-F"}, false, true},
		{[]string{"-a", "HDF5"}, true, false},
		{[]string{"-a", "POSIX", "-F"}, false, false},
		{[]string{"-a", "MPIIO", "-F"}, false, false},
	} {
		p := build(t, tc.args...)
		for _, ph := range []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead} {
			pl, err := p.Step(ph, 0, patterns.Env{Rank: 1, Size: 2, Path: "f", Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			if fs := pl.Ops[0].File; fs.Parallel != tc.parallel || fs.SelfMPIIO != tc.self {
				t.Errorf("%v %s: parallel %v self %v, want %v %v", tc.args, ph, fs.Parallel, fs.SelfMPIIO, tc.parallel, tc.self)
			}
		}
	}
	p := build(t, "-a", "POSIX", "-F", "-Z", "-X", "-1", "-i", "8")
	for it := 0; it < 8; it++ {
		pl, err := p.Step(patterns.PhaseRead, 0, patterns.Env{Rank: 0, Size: 4, Path: "f", Seed: 7, Iteration: it})
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("f.%08d", p.RankOffset(0, 4, it)); pl.Ops[0].Path != want {
			t.Errorf("iteration %d reads %s, want %s", it, pl.Ops[0].Path, want)
		}
	}
	if _, err := p.Step(patterns.PhaseRead, 1, patterns.Env{Rank: 0, Size: 4, Path: "f", Iteration: 7}); err == nil {
		t.Error("step 1 of the last iteration's one-step phase planned")
	}
}

// TestHDF5Options: IOR 4's --hdf5.collectiveMetadata sets collective metadata reads and
// writes on both file opens, --hdf5.chunkSize chunks every segment's dataset (alone: one
// element, IOR 4.0's flag); both are refused outside -a HDF5, and a chunk longer than the
// dataset is refused by key and value before any I/O.
func TestHDF5Options(t *testing.T) {
	p := build(t, "-a", "HDF5", "-b", "4k", "-t", "2k", "-c", "--hdf5.collectiveMetadata", "--hdf5.noFill", "--hdf5.chunkSize=256")
	for _, ph := range []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead} {
		_, pl := transfersOf(t, p, ph, 0, 4, 0)
		if fs := pl.Ops[0].File; !fs.CollMetadataOps || !fs.CollMetadataWrite {
			t.Errorf("%s: file spec %+v lacks collective metadata", ph, fs)
		}
		if d := pl.Ops[1].Dataset; !reflect.DeepEqual(d.Chunk, []uint64{256}) || !d.FillNever {
			t.Errorf("%s: dataset %+v, want chunks of 256 without fill", ph, *d)
		}
	}
	if d := build(t, "-a", "HDF5", "-b", "4k", "-t", "2k", "--hdf5.chunkSize").Spec(2); !reflect.DeepEqual(d.Chunk, []uint64{1}) {
		t.Errorf("--hdf5.chunkSize alone: chunk %v, want [1]", d.Chunk)
	}
	if fs := build(t, "-a", "HDF5").fileSpec(false); fs.CollMetadataOps || fs.CollMetadataWrite {
		t.Errorf("default file spec %+v asks for collective metadata", fs)
	}
	kvs, err := ParseArgs([]string{"-a", "MPIIO", "--hdf5.collectiveMetadata"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := plantest.For[*Pattern](Factory).BuildKV(kvs); err == nil || !strings.Contains(err.Error(), "use -a HDF5") {
		t.Errorf("MPIIO with --hdf5.collectiveMetadata: %v", err)
	}
	big := build(t, "-a", "HDF5", "-b", "4k", "-t", "2k", "--hdf5.chunkSize=4096")
	if _, err := big.Step(patterns.PhaseWrite, 0, patterns.Env{Rank: 0, Size: 2, Path: "f"}); err == nil ||
		!strings.Contains(err.Error(), `"chunkSize"`) || !strings.Contains(err.Error(), `"4096"`) || !strings.Contains(err.Error(), "1024 elements") {
		t.Errorf("chunk longer than the dataset: %v", err)
	}
}

// TestFileView: with -V every open carries IOR's view (aiori-MPIIO.c: MPIIO_Open): one
// transfer as etype, the task's block among the file's tasks (its own file: 1 task, task
// 0); a read shifted by -C views the task it reads. Each transfer's bytes are the view's
// transfer at IOR's SeekOffset position: in the rank's order, 0, 1, 2, ... (segments x
// transfers per block), and the bytes land where they land without -V.
func TestFileView(t *testing.T) {
	const n = 4
	for _, fpp := range []bool{false, true} {
		args := []string{"-a", "MPIIO", "-c", "-C", "-b", "16k", "-t", "4k", "-s", "3"}
		if fpp {
			args = append(args, "-F")
		}
		p, plain := build(t, append(args, "-V")...), build(t, args...)
		for r := 0; r < n; r++ {
			for _, ph := range []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead} {
				got, pl := transfersOf(t, p, ph, r, n, 0)
				want, _ := transfersOf(t, plain, ph, r, n, 0)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%v rank %d %s: -V moves %v, without %v", fpp, r, ph, got, want)
				}
				v := pl.Ops[0].File.View
				task := r
				if ph == patterns.PhaseRead {
					task = (r + 1) % n
				}
				wv := plan.FileView{Transfer: 4 << 10, Block: 16 << 10, Tasks: n, Task: task}
				if fpp {
					wv.Tasks, wv.Task = 1, 0
				}
				if v == nil || *v != wv {
					t.Fatalf("fpp=%v rank %d %s: view %+v, want %+v", fpp, r, ph, v, wv)
				}
				for k, l := range got {
					if pos, ok := v.Offset(l.off); !ok || pos != uint64(k) {
						t.Errorf("fpp=%v rank %d %s transfer %d at byte %d: view position %d (%v), want %d", fpp, r, ph, k, l.off, pos, ok, k)
					}
				}
			}
		}
	}
	if v := build(t, "-a", "MPIIO").C; v.UseFileView {
		t.Error("useFileView without -V")
	}
}
