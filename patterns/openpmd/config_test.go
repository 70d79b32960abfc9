package openpmd

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
)

func TestDefaults(t *testing.T) {
	p := kit.Must(t)
	c := p.C
	want := Config{Dim: 3, Balanced: true, Ratio: 1, Steps: 1, MinBlock: u(64, 32, 32), Grid: u(0, 8, 8), Pattern: "m",
		Encoding: VariableBased, RankBlocks: true, Independent: true, CollectiveMetadata: true, DeferMetadata: true,
		DeferMetadataSize: 32 << 20, Alignment: 1, Chunks: true}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("defaults\n got %+v\nwant %+v", c, want)
	}
	if p.Steps() != 1 || p.Name() != "openpmd" || !reflect.DeepEqual(p.Phases(), []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}) {
		t.Errorf("steps %d name %q phases %v", p.Steps(), p.Name(), p.Phases())
	}
	// Default minBlock and grid follow dim.
	for dim, mb := range map[string][]uint64{"1": u(64), "2": u(64, 32)} {
		c := kit.Must(t, "dim="+dim).C
		if !reflect.DeepEqual(c.MinBlock, mb) || len(c.Grid) != len(mb) || c.Grid[0] != 0 {
			t.Errorf("dim=%s: minBlock %v grid %v", dim, c.MinBlock, c.Grid)
		}
	}
	if Factory.Options != Options || Factory.Name != "openpmd" {
		t.Errorf("factory %+v", Factory)
	}
}

// TestSampleConfig: h5bench's sample write and read entries (keys as h5bench spells
// them; lookup is case-insensitive).
func TestSampleConfig(t *testing.T) {
	c := kit.Must(t, append([]string{"operation=write"}, sample...)...).C
	if c.Operation != "write" || c.Dim != 3 || !c.Balanced || c.Ratio != 1 || c.Steps != 1 ||
		!reflect.DeepEqual(c.MinBlock, u(8, 16, 16)) || !reflect.DeepEqual(c.Grid, u(16, 16, 8)) {
		t.Errorf("sample write: %+v", c)
	}
	r := kit.Must(t, "operation=read", "pattern=sy").C
	if r.Operation != "read" || r.Pattern != "sy" || r.SeriesName() != "8a_parallel_3Db.h5" {
		t.Errorf("sample read: %+v, series %s", r, r.SeriesName())
	}
	c = kit.Must(t, "DIM=2", "MINBLOCK= 4   8 ", "Grid=0 3", "balanced=FALSE", "encoding=groupBased", "steps=4",
		"OPENPMD_HDF5_INDEPENDENT=OFF", "openpmd_hdf5_chunks=NONE", "OPENPMD_HDF5_ALIGNMENT=1 M", "rankBlocks=false").C
	if c.Dim != 2 || !reflect.DeepEqual(c.MinBlock, u(4, 8)) || !reflect.DeepEqual(c.Grid, u(0, 3)) || c.Balanced ||
		c.Encoding != GroupBased || c.Steps != 4 || c.Independent || c.Chunks || c.Alignment != 1<<20 || c.RankBlocks {
		t.Errorf("spellings: %+v", c)
	}
}

func TestSeriesName(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		want string
	}{
		{nil, "8a_parallel_3Db.h5"},
		{[]string{"dim=2", "balanced=false"}, "8a_parallel_2Du.h5"},
		{[]string{"dim=1", "encoding=f"}, "8a_parallel_1Db_%07T.h5"},
		{[]string{"encoding=g", "steps=3"}, "8a_parallel_3Db.h5"},
	} {
		if got := kit.Must(t, tc.keys...).C.SeriesName(); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.keys, got, tc.want)
		}
	}
}

// TestConfigErrors: every error names the key and the value, says why and what is
// allowed.
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name       string
		keys       []string
		key, value string
		want       []string
	}{
		{"minBlock count", []string{"minBlock=8 16"}, "minBlock", "8 16", []string{"has 2 numbers, dim=3 needs exactly 3", "8a ignores such a line", "allowed: 3 space-separated integers >= 1"}},
		{"grid count", []string{"dim=2", "grid=4 4 4"}, "grid", "4 4 4", []string{"has 3 numbers, dim=2 needs exactly 2", "allowed: 2 space-separated integers >= 0"}},
		{"minBlock zero", []string{"minBlock=8 0 16"}, "minBlock", "8 0 16", []string{`"0" is not an integer >= 1`}},
		{"minBlock word", []string{"minBlock=8 x 16"}, "minBlock", "8 x 16", []string{`"x" is not an integer >= 1`}},
		{"grid y zero", []string{"grid=0 0 8"}, "grid", "0 0 8", []string{"dimension 2 has 0 mini blocks", "allowed: numbers >= 1 after the first"}},
		{"variable-based steps", []string{"steps=3"}, "steps", "3", []string{"variable-based encoding", "keeps one iteration at /data", "allowed: steps=1, or encoding=g", "encoding=f"}},
		{"balanced", []string{"balanced=maybe"}, "balanced", "maybe", []string{"not an allowed value", "allowed: true, false"}},
		{"encoding", []string{"encoding=x"}, "encoding", "x", []string{"allowed: v, g, f, variableBased, groupBased, fileBased"}},
		{"dim", []string{"dim=4"}, "dim", "4", []string{"out of range", "1..3"}},
		{"pattern", []string{"pattern=sw"}, "pattern", "sw", []string{"m, sx, sy, sz, fx, fy, fz"}},
		{"operation", []string{"operation=append"}, "operation", "append", []string{"write, read"}},
		{"ratio", []string{"ratio=0"}, "ratio", "0", []string{">= 1"}},
		{"unknown", []string{"minblocks=8 8 8"}, "minblocks", "8 8 8", []string{"unknown key", "minBlock", "grid", "fileLocation"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := kit.Build(tc.keys...)
			if err == nil {
				t.Fatal("no error")
			}
			var oe *options.Error
			if !errors.As(err, &oe) || oe.Key != tc.key || oe.Value != tc.value {
				t.Errorf("error %q: want an options.Error for key %q value %q", err, tc.key, tc.value)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestRunErrors: what depends on the rank count or the file name fails at Begin and at
// every Step, before any I/O, naming the key.
func TestRunErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		keys      []string
		env       patterns.Env
		want      []string
		writeOnly bool
	}{
		{"indivisible", []string{"dim=2", "grid=3 3"}, env(0, 2, "a.h5"),
			[]string{`key "grid" value "3 3"`, "2-D mesh of [3 3] mini blocks on 2 ranks", "9 mini blocks are not divisible", "allowed:"}, true},
		{"no 2-D patch", []string{"dim=2", "grid=4 9"}, env(0, 6, "a.h5"),
			[]string{`"4 9"`, "no patch of 6 mini blocks along one axis fits"}, true},
		{"no 3-D patch", []string{"grid=3 5 4"}, env(0, 6, "a.h5"),
			[]string{`"3 5 4"`, "no 8a patch shape of 10 mini blocks fits"}, true},
		{"1-D indivisible", []string{"dim=1", "grid=5"}, env(1, 2, "a.h5"), []string{`"5"`, "1-D mesh", "not divisible"}, true},
		{"default grid x", []string{"dim=2", "grid=0 3"}, env(0, 4, "a.h5"), nil, false}, // x = 4 ranks: fine
		{"fileLocation elsewhere", []string{"fileLocation=/other"}, env(0, 1, "8a_parallel_3Db.h5"),
			[]string{`key "fileLocation" value "/other"`, "the series file /run/storage/8a_parallel_3Db.h5 is not in it", "<fileLocation>/8a_parallel_3Db.h5"}, false},
		{"placeholder without file-based", []string{"encoding=g"}, env(0, 1, "s_%05T.h5"),
			[]string{`key "encoding" value "groupBased"`, "iteration placeholder", "encoding=f"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := kit.Must(t, tc.keys...)
			phases := []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}
			if tc.writeOnly {
				// Reads take the mesh from the file: the decomposition does not matter.
				if _, err := p.Begin(patterns.PhaseRead, tc.env); err != nil {
					t.Errorf("read Begin: %v", err)
				}
				phases = phases[:1]
			}
			for _, ph := range phases {
				_, berr := p.Begin(ph, tc.env)
				_, serr := p.Step(ph, 0, tc.env)
				if tc.want == nil {
					if berr != nil || (ph == patterns.PhaseWrite && serr != nil) {
						t.Errorf("%s: %v / %v", ph, berr, serr)
					}
					continue
				}
				for _, err := range []error{berr, serr} {
					if err == nil {
						t.Fatalf("%s: no error", ph)
					}
					for _, w := range tc.want {
						if !strings.Contains(err.Error(), w) {
							t.Errorf("%s: error %q lacks %q", ph, err, w)
						}
					}
				}
			}
		})
	}
	// fileLocation equal to the file's directory is accepted.
	p := kit.Must(t, "fileLocation="+seriesDir+"/")
	if _, err := p.Begin(patterns.PhaseWrite, env(0, 1, "x.h5")); err != nil {
		t.Errorf("fileLocation = the file's directory: %v", err)
	}
	if _, err := p.Step(patterns.PhaseWrite, 1, env(0, 1, "x.h5")); err == nil || !strings.Contains(err.Error(), "step 1 outside 0..0") {
		t.Errorf("step past the end: %v", err)
	}
}

// TestPhaseReads: 8a's MemoryProfiler reads /proc/self/status on rank 0 at Timer g's and
// Timer kk's constructors (before the series is created) and at kk's destructor (after it
// is closed); 8b's timers read nothing.
func TestPhaseReads(t *testing.T) {
	var r patterns.PhaseReader = kit.Must(t)
	before, after := r.PhaseReads(patterns.PhaseWrite)
	if !reflect.DeepEqual(before, []string{ProcStatus, ProcStatus}) || !reflect.DeepEqual(after, []string{ProcStatus}) {
		t.Errorf("write: before %q after %q, want two reads of %s before and one after", before, after, ProcStatus)
	}
	if before, after := r.PhaseReads(patterns.PhaseRead); before != nil || after != nil {
		t.Errorf("read: before %q after %q, want none", before, after)
	}
}
