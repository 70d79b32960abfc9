package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/patterns/h5perf"
	"github.com/h5proxy/h5proxy/proxy"
)

// h5perfBlocks checks the report of one process count: for each transfer size, its
// header, then each API's block with the write and (unless write-only) read sections of
// iters iterations, in h5perf's order, and no zero rate.
func h5perfBlocks(t *testing.T, report string, procs int, sizes []string, apis []string, iters string, writeOnly bool) {
	t.Helper()
	start := strings.Index(report, "Number of processors = "+strconv.Itoa(procs)+"\n")
	if start < 0 {
		t.Fatalf("no run on %d processes:\n%s", procs, report)
	}
	rest := report[start:]
	if next := strings.Index(rest[1:], "Number of processors = "); next >= 0 {
		rest = rest[:next+1]
	}
	sections := []string{"Write", "Write Open-Close", "Read", "Read Open-Close"}
	if writeOnly {
		sections = sections[:2]
	}
	var want []string
	for _, s := range sizes {
		want = append(want, "Transfer Buffer Size: "+s)
		for _, api := range apis {
			want = append(want, "        IO API = "+api+"\n")
			for _, sec := range sections {
				want = append(want, "            "+sec+" ("+iters+" iteration(s)):\n                Maximum Throughput: ")
			}
		}
	}
	at := 0
	for _, w := range want {
		i := strings.Index(rest[at:], w)
		if i < 0 {
			t.Fatalf("the %d-process report lacks %q after offset %d:\n%s", procs, w, at, rest)
		}
		at += i + len(w)
	}
	if writeOnly && strings.Contains(rest, "Read") {
		t.Errorf("write-only report has reads:\n%s", rest)
	}
	if m := regexp.MustCompile(`Throughput: +(0\.00|NaN|\+Inf)`).FindString(rest); m != "" {
		t.Errorf("rate %q in the %d-process report", m, procs)
	}
}

// TestH5perfCommand runs `h5proxy h5perf` as h5perf's users do, each process count of
// -P..-p launched on its own (4, 2 and 1 ranks): 1-D contiguous independent transfers over
// two files of two datasets at two sizes and two iterations through every API with -D t;
// 1-D interleaved collective chunked transfers (MPIO through a file view of each rank's
// blocks) with the report in -o's file and -D 3,r; 2-D contiguous collective chunked
// write-only runs at 4 and 2 ranks. Every read is
// verified (a mismatch fails the run), and the data files are removed afterwards.
func TestH5perfCommand(t *testing.T) {
	dir := t.TempDir()
	r := h5proxy(t, dir, "h5perf", "-P", "4", "-e", "16K", "-x", "4K", "-X", "8K", "-B", "1K", "-i", "2", "-F", "2", "-d", "2", "-D", "t")
	r.expect(t, 0, []string{"HDF5 Library: Version " + proxy.HDF5Version() + "\nrank 0: ==== Parameters ====\nrank 0: IO API=posix mpiio phdf5 \nrank 0: Number of files=2\n",
		"rank 0: Number of processes=1:4\n", "Write File Open (2 iteration(s)):\n                Minimum Accumulated Time using 2 file(s): "}, nil)
	labels := []string{"POSIX", "MPIO", "PHDF5 (w/MPI-IO driver)"}
	for _, n := range []int{4, 2, 1} {
		h5perfBlocks(t, r.stdout, n, []string{"4096 bytes", "8192 bytes"}, labels, "2", false)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "#pio_tmp_*")); len(left) != 0 {
		t.Errorf("data files left: %v", left)
	}

	out := filepath.Join(dir, "report.txt")
	r = h5proxy(t, dir, "h5perf", "-P", "4", "-p", "1", "-I", "-C", "-c", "-e", "16K", "-x", "4K", "-X", "4K", "-B", "1K", "-o", out, "-D", "3,r")
	r.expect(t, 0, []string{"HDF5 Library: Version", "object is MPI_INFO_NULL"}, nil)
	if strings.Contains(r.stdout, "Number of processors") {
		t.Errorf("-o: the report went to standard output:\n%s", r.stdout)
	}
	rep, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"rank 0: Block Pattern in Dataset=Interleaved\n", "rank 0: I/O Method for MPI and HDF5=Collective\n", "rank 0: Data storage method in HDF5=Chunked\n",
		"rank 0: rank 0: ==== End of Parameters ====\n", "            Raw Data Write (1 iteration(s)):",
		"            Write details:\n                Iteration 1:\n                    Minimum Time: ", "            Read file close details:"} {
		if !strings.Contains(string(rep), w) {
			t.Errorf("report lacks %q:\n%s", w, rep)
		}
	}
	for _, n := range []int{4, 2, 1} {
		h5perfBlocks(t, string(rep), n, []string{"4096 bytes"}, labels, "1", false)
	}

	r = h5proxy(t, dir, "h5perf", "-g", "-C", "-c", "-w", "-P", "4", "-p", "2", "-e", "64", "-B", "16", "-x", "32", "-X", "64")
	r.expect(t, 0, []string{"rank 0: Geometry=2D\n", "Transfer Buffer Size: 16x32 bytes, File size: 0.06 MB\n      # of files: 1, # of datasets: 1, dataset size: 0.25x0.25 KB"}, nil)
	for _, n := range []int{4, 2} {
		h5perfBlocks(t, r.stdout, n, []string{"16x32 bytes", "16x64 bytes"}, labels, "1", true)
	}
	if strings.Contains(r.stdout, "Number of processors = 1") {
		t.Error("-p 2 ran 1 process")
	}
}

// TestH5perfFiles keeps the data files of a 2-rank 2-D interleaved collective run of every
// API (MPIO through a file view of each rank's rows) with an alignment (HDF5_NOCLEANUP) and
// checks them: the HDF5 file holds Dataset_1 and Dataset_2, unsigned
// bytes of 128 x 128, read by the independent reader; each rank's transfer buffer sits at
// the places h5perf's do_write puts it in all three files; the POSIX, MPI-IO and HDF5
// datasets hold the same bytes.
func TestH5perfFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HDF5_NOCLEANUP", "1")
	r := h5proxy(t, dir, "h5perf", "-g", "-I", "-C", "-d", "2", "-P", "2", "-p", "2", "-e", "64", "-B", "16", "-x", "32", "-X", "32", "-a", "20000", "-T", "1K")
	r.expect(t, 0, []string{"Number of processors = 2\nTransfer Buffer Size: 32x16 bytes"}, nil)
	// -a 20000 -T 1K: the second dataset's region starts at 20000 in the raw files.
	const side, align = 128, 20000
	posix, err := os.ReadFile(filepath.Join(dir, "#pio_tmp_1.posix"))
	if err != nil {
		t.Fatal(err)
	}
	mpio, err := os.ReadFile(filepath.Join(dir, "#pio_tmp_1.mpio"))
	if err != nil {
		t.Fatal(err)
	}
	if len(posix) != align+side*side || !bytes.Equal(posix, mpio) {
		t.Fatalf("posix %d bytes, mpio %d bytes, equal %v", len(posix), len(mpio), bytes.Equal(posix, mpio))
	}
	h5 := filepath.Join(dir, "#pio_tmp_1.h5")
	tree, err := inspect.Tree(h5)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range tree {
		got = append(got, n.String())
	}
	if want := "/Dataset_1 dataset u8 [128 128]\n/Dataset_2 dataset u8 [128 128]"; strings.Join(got, "\n") != want {
		t.Errorf("HDF5 file:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	c := h5perf.Config{API: "posix", NumBPP: 64, Xfer: 32, Block: 16, NumDsets: 2, NumFiles: 1, NumIters: 1, Interleaved: true, Collective: true, Dim2D: true}
	g, err := c.Geometry(2)
	if err != nil {
		t.Fatal(err)
	}
	for d := 0; d < 2; d++ {
		vals := make([]uint8, side*side)
		if err := inspect.Read(h5, h5perf.DatasetName(d+1), &vals); err != nil {
			t.Fatal(err)
		}
		region := posix[d*align : d*align+side*side]
		if !bytes.Equal(vals, region) {
			t.Errorf("Dataset_%d differs from the POSIX file's region", d+1)
		}
		for rank := 0; rank < 2; rank++ {
			for _, h := range c.Selections(g, rank) {
				i := 0
				for r0 := uint64(0); r0 < h.Count[0]*h.Block[0]; r0++ {
					for c1 := uint64(0); c1 < h.Block[1]; c1++ {
						want := byte(emulate.Bits(proxy.DefaultSeed, "h5perf", rank, uint64(i)))
						if got := region[(h.Start[0]+r0)*side+h.Start[1]+c1]; got != want {
							t.Fatalf("dataset %d rank %d row %d col %d: %#x, want %#x", d+1, rank, h.Start[0]+r0, h.Start[1]+c1, got, want)
						}
						i++
					}
				}
			}
		}
	}
}

// TestH5perfSample runs samples/native-h5perf.json (the pattern from a native JSON
// configuration under the user's mpirun): h5bench's summary with a verified read-back,
// then h5perf's block with the -D t times; the data files are removed.
func TestH5perfSample(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "..", "samples", "native-h5perf.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "native-h5perf.json")
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	argv, env, err := launch.Launcher(2)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], append(argv[1:], binary, "run", cfg)...)
	cmd.Dir, cmd.Env = dir, append(userEnv(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, w := range []string{"Verification: OK", "        IO API = PHDF5 (w/MPI-IO driver)\n            Write (3 iteration(s)):\n                Maximum Throughput: ",
		"            Read File Close (3 iteration(s)):\n                Minimum Accumulated Time using 1 file(s): "} {
		if !strings.Contains(string(out), w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "h5proxy-out", "#pio_tmp_*")); len(left) != 0 {
		t.Errorf("data files left: %v", left)
	}
}

// TestH5perfErrors: bad options and runs h5perf would reject end before any launch with
// h5perf's messages; -h prints the usage; help lists the command and the pattern's keys.
func TestH5perfErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-q"}, 2, `h5perf: unknown option "q"`},
		{[]string{"-A", "hdf4"}, 2, "pio_perf: invalid --api option hdf4"},
		{[]string{"-e", "1Q"}, 2, "Illegal size specifier 'Q'"},
		{[]string{"-x", "6K", "-B", "4K", "-e", "24K"}, 1, "Transfer buffer size (6144) must be a multiple of the interleaved I/O block size (4096)"},
		{[]string{"-g", "-e", "64", "-B", "16", "-x", "48", "-X", "48", "-P", "2"}, 1, "Dataset side size (128) must be a multiple of the trasfer buffer size (48)"},
		{[]string{"--interleaved"}, 2, `h5perf: option required for "--interleaved" flag`},
	} {
		h5proxy(t, dir, append([]string{"h5perf"}, c.args...)...).expect(t, c.code, nil, []string{c.want})
	}
	h5proxy(t, dir, "h5perf", "-h").expect(t, 2, []string{"usage: h5perf [OPTIONS]", "-x S, --min-xfer-size=S"}, nil)
	h5proxy(t, dir, "help").expect(t, 0, []string{"h5proxy h5perf [h5perf options]", "h5perf"}, nil)
	h5proxy(t, dir, "help", "h5perf").expect(t, 0, []string{"api", "num-bytes", "xfer-size", "block-size", "num-dsets", "num-files", "num-iterations",
		"interleaved", "collective", "geometry", "chunk", "write-only", "align", "threshold", "debug", "nocleanup", "[posix|mpiio|phdf5]"}, nil)
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("files written: %v", left)
	}
}
