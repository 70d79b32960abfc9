package h5perf

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestParseDefaults: without options, h5perf's defaults (parse_command_line) on a world of
// 4: 256K per process, transfers 128K..256K, block 128K, all APIs, processes 1..4.
func TestParseDefaults(t *testing.T) {
	a, err := Parse(nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := Args{APIs: POSIX | MPIO | PHDF5, NumDsets: 1, NumFiles: 1, NumBPP: 256 * KB, NumIters: 1, MaxProcs: 4, MinProcs: 1,
		MaxXfer: 256 * KB, MinXfer: 128 * KB, BlkSize: 128 * KB, Align: 1, Threshold: 1, ProcsDefault: true}
	if a != want {
		t.Errorf("defaults\n got %+v\nwant %+v", a, want)
	}
	if g, err := Parse([]string{"-g"}, 2); err != nil || g.NumBPP != 8*KB || g.MinXfer != 4*KB || g.BlkSize != 4*KB {
		t.Errorf("2-D defaults: %+v %v", g, err)
	}
	big, err := Parse([]string{"-g", "-x", "3", "-X", "8589934591G"}, 1) // just below 2^63
	if sz := big.Sizes(); err != nil || len(sz) != 62 || sz[61] != 3<<61 {
		t.Errorf("sizes up to 2^63: %v, %v", sz, err)
	}
	if got := a.Sizes(); !reflect.DeepEqual(got, []int64{128 * KB, 256 * KB}) {
		t.Errorf("sizes %v", got)
	}
	if got := a.Procs(); !reflect.DeepEqual(got, []int{4, 2, 1}) {
		t.Errorf("procs %v", got)
	}
}

// TestParseEveryOption: each option in its short and long spellings, with attached and
// separate values, clustered flags, and h5perf's adjustments.
func TestParseEveryOption(t *testing.T) {
	cases := []struct {
		args  []string
		check func(Args) bool
	}{
		{[]string{"-a", "4K"}, func(a Args) bool { return a.Align == 4*KB }},
		{[]string{"--align=2M"}, func(a Args) bool { return a.Align == 2*MB }},
		{[]string{"-A", "posix"}, func(a Args) bool { return a.APIs == POSIX }},
		{[]string{"--api", "MPIIO,phdf5"}, func(a Args) bool { return a.APIs == MPIO|PHDF5 }},
		{[]string{"-B1K"}, func(a Args) bool { return a.BlkSize == KB }},
		{[]string{"--block-size=1G"}, func(a Args) bool { return a.BlkSize == 256*KB }}, // capped at -e
		{[]string{"-c"}, func(a Args) bool { return a.Chunk }},
		{[]string{"--chunk"}, func(a Args) bool { return a.Chunk }},
		{[]string{"-C"}, func(a Args) bool { return a.Collective }},
		{[]string{"--collective"}, func(a Args) bool { return a.Collective }},
		{[]string{"-d", "3"}, func(a Args) bool { return a.NumDsets == 3 }},
		{[]string{"--num-dsets=5"}, func(a Args) bool { return a.NumDsets == 5 }},
		{[]string{"-D", "2,r,t,v"}, func(a Args) bool { return a.Debug == 2 && a.PrintRaw && a.PrintTimes && a.Verify }},
		{[]string{"--debug=9"}, func(a Args) bool { return a.Debug == 4 }},
		{[]string{"-e", "1M"}, func(a Args) bool { return a.NumBPP == MB && a.MinXfer == MB/2 && a.MaxXfer == MB && a.BlkSize == MB/2 }},
		{[]string{"--num-bytes", "64 k"}, func(a Args) bool { return a.NumBPP == 64*KB }},
		{[]string{"-F", "2"}, func(a Args) bool { return a.NumFiles == 2 }},
		{[]string{"--num-files=3"}, func(a Args) bool { return a.NumFiles == 3 }},
		{[]string{"-g"}, func(a Args) bool { return a.Dim2D }},
		{[]string{"--geometry"}, func(a Args) bool { return a.Dim2D }},
		{[]string{"-i", "7"}, func(a Args) bool { return a.NumIters == 7 }},
		{[]string{"--num-iterations=0"}, func(a Args) bool { return a.NumIters == 1 }},
		{[]string{"-I"}, func(a Args) bool { return a.Interleaved }},
		{[]string{"--interleaved", "yes"}, func(a Args) bool { return a.Interleaved }}, // h5perf's long form takes a value
		{[]string{"-o", "out.txt"}, func(a Args) bool { return a.Output == "out.txt" }},
		{[]string{"--output=r.txt"}, func(a Args) bool { return a.Output == "r.txt" }},
		{[]string{"-p", "2"}, func(a Args) bool { return a.MinProcs == 2 && a.MaxProcs == 4 }},
		{[]string{"--min-num-processes=8"}, func(a Args) bool { return a.MinProcs == 4 }}, // capped at -P
		{[]string{"-P", "2"}, func(a Args) bool { return a.MaxProcs == 2 && !a.ProcsDefault }},
		{[]string{"--max-num-processes=0"}, func(a Args) bool { return a.MaxProcs == 1 && a.MinProcs == 1 }},
		{[]string{"-T", "1M"}, func(a Args) bool { return a.Threshold == MB }},
		{[]string{"--threshold=4k"}, func(a Args) bool { return a.Threshold == 4*KB }},
		{[]string{"-w"}, func(a Args) bool { return a.WriteOnly }},
		{[]string{"--write-only", "1"}, func(a Args) bool { return a.WriteOnly }},
		{[]string{"-x", "8K"}, func(a Args) bool { return a.MinXfer == 8*KB }},
		{[]string{"--min-xfer-size=1M"}, func(a Args) bool { return a.MinXfer == 256*KB }}, // capped at -e in 1-D
		{[]string{"-X", "16K"}, func(a Args) bool { return a.MaxXfer == 16*KB && a.MinXfer == 16*KB }},
		{[]string{"-g", "--max-xfer-size=1M"}, func(a Args) bool { return a.MaxXfer == MB }}, // not capped in 2-D
		{[]string{"-cCIgw"}, func(a Args) bool { return a.Chunk && a.Collective && a.Interleaved && a.Dim2D && a.WriteOnly }},
		{[]string{"-wd2"}, func(a Args) bool { return a.WriteOnly && a.NumDsets == 2 }},
		{[]string{"-c", "--", "-C"}, func(a Args) bool { return a.Chunk && !a.Collective }},
		{[]string{"-c", "extra", "-C"}, func(a Args) bool { return a.Chunk && !a.Collective }},
	}
	for _, c := range cases {
		a, err := Parse(c.args, 4)
		if err != nil || !c.check(a) {
			t.Errorf("%q: %+v, %v", c.args, a, err)
		}
	}
}

// TestParseErrors: each bad option gets h5perf's message.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-q"}, `h5perf: unknown option "q"`},
		{[]string{"--bogus"}, `h5perf: unknown option "bogus"`},
		{[]string{"-d"}, `h5perf: value expected for option "d"`},
		{[]string{"--api"}, `h5perf: option required for "--api" flag`},
		{[]string{"--interleaved"}, `h5perf: option required for "--interleaved" flag`},
		{[]string{"--chunk=yes"}, `h5perf: no option required for "chunk=yes" flag`},
		{[]string{"-A", "hdf4"}, "pio_perf: invalid --api option hdf4"},
		{[]string{"-A", "posix,,mpiio"}, "pio_perf: invalid --api option "},
		{[]string{"-D", "x"}, "pio_perf: invalid --debug option x"},
		{[]string{"-D", "2a"}, "pio_perf: invalid --debug option 2a"},
		{[]string{"-e", "12Q"}, "Illegal size specifier 'Q'"},
		{[]string{"-x", "lots"}, "Illegal size specifier 'l'"},
		{[]string{"-B", "-4K"}, `h5perf: -B value "-4K" is negative`},
		{[]string{"--num-files=two"}, `h5perf: --num-files value "two" is not an integer`},
		{[]string{"-i", "3x"}, `h5perf: -i value "3x" is not an integer`},
		{[]string{"-m"}, `h5perf: option "m" is declared but not implemented by h5perf`},
		{[]string{"-X", "9000000000G"}, `h5perf: -X value "9000000000G" is out of range`},
	}
	for _, c := range cases {
		_, err := Parse(c.args, 2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.args, err, c.want)
		}
	}
	for _, h := range [][]string{{"-h"}, {"--help"}, {"-n"}, {"-s"}, {"-t"}} {
		if _, err := Parse(h, 1); !errors.Is(err, ErrUsage) {
			t.Errorf("%q: %v, want the usage", h, err)
		}
	}
}

// TestGeometryChecks: do_pio's checks, with its messages, per process count and size.
func TestGeometryChecks(t *testing.T) {
	base := Config{API: "phdf5", NumBPP: 64 * KB, Xfer: 16 * KB, Block: 4 * KB, NumDsets: 1, NumFiles: 1, NumIters: 1}
	cases := []struct {
		edit  func(*Config)
		procs int
		want  string
	}{
		{func(c *Config) {}, 2, ""},
		{func(c *Config) { c.Xfer = 6 * KB }, 2, "Transfer buffer size (6144) must be a multiple of the interleaved I/O block size (4096)"},
		{func(c *Config) { c.Block = 0 }, 2, "Transfer block size (0) must be > 0"},
		{func(c *Config) { c.Xfer = 0 }, 2, "Transfer buffer size (0) must be > 0"},
		{func(c *Config) { c.NumBPP, c.Xfer, c.Block = 5, 1, 1 }, 3, ""},
		{func(c *Config) { c.Xfer = 48 * KB; c.Block = 16 * KB }, 2, "Dataset size/process (65536) must be a multiple of the trasfer buffer size (49152)"},
		{func(c *Config) { c.NumFiles = -1 }, 1, "number of files must be >= 0 (-1)"},
		{func(c *Config) { c.NumDsets = -2 }, 1, "number of datasets per file must be >= 0 (-2)"},
		{func(c *Config) {}, 0, "maximum number of process to use must be > 0 (0)"},
		{func(c *Config) { c.Dim2D, c.NumBPP, c.Xfer, c.Block = true, 96, 128, 16 }, 2, "Dataset side size (192) must be a multiple of the trasfer buffer size (128)"},
		{func(c *Config) { c.Dim2D, c.NumBPP, c.Xfer, c.Block = true, 64, 32, 16 }, 4, ""},
		{func(c *Config) { c.Dim2D, c.NumBPP, c.Xfer, c.Block = true, 40, 80, 16 }, 2, "Dataset side size/process (40) must be a multiple of the block size (16)"},
		{func(c *Config) { c.Dim2D, c.Interleaved, c.NumBPP, c.Xfer, c.Block = true, true, 48, 32, 32 }, 2, "must be a multiple of block size x processes (64)"},
	}
	for i, c := range cases {
		cfg := base
		c.edit(&cfg)
		_, err := cfg.Geometry(c.procs)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: %v, want %q", i, err, c.want)
		}
	}
	views := map[Config]bool{
		{API: "mpiio", Collective: true, Interleaved: true}: true, {API: "mpiio", Collective: true, Dim2D: true}: true,
		{API: "mpiio", Collective: true}: false, {API: "mpiio", Interleaved: true}: false, {API: "phdf5", Collective: true, Interleaved: true}: false,
	}
	for c, want := range views {
		if c.FileView() != want {
			t.Errorf("%+v: file view %v, want %v", c, !want, want)
		}
	}
}
