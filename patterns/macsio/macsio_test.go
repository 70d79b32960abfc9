package macsio

import (
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
	"github.com/h5proxy/h5proxy/plan"
)

var kit = plantest.For[*Pattern](Factory)

// TestFactors: MACSio's close factors (§6c: 1250 doubles 25 x 50, 1 MiB 256 x 512).
func TestFactors(t *testing.T) {
	for _, c := range []struct {
		n, dim int
		want   [3]int
	}{{1250, 2, [3]int{25, 50, 1}}, {131072, 2, [3]int{256, 512, 1}}, {1000, 3, [3]int{10, 10, 10}}, {6, 3, [3]int{2, 3, 1}},
		{10000, 2, [3]int{100, 100, 1}}, {7, 1, [3]int{7, 1, 1}}} {
		if got, ok := factor(c.n, c.dim); !ok || got != c.want {
			t.Errorf("factor(%d, %d) = %v %v, want %v", c.n, c.dim, got, ok, c.want)
		}
	}
}

// TestVarNames: 20 variables are 8 plain names, 8 _000, then constant_001 .. xramp_001;
// xlayers is int32 and zone-centred, xramp node-centred.
func TestVarNames(t *testing.T) {
	var names []string
	for _, v := range Vars(20) {
		names = append(names, v.Name)
	}
	want := []string{"constant", "random", "spherical", "xramp", "ysin", "noise", "noise_sum", "xlayers",
		"constant_000", "random_000", "spherical_000", "xramp_000", "ysin_000", "noise_000", "noise_sum_000", "xlayers_000",
		"constant_001", "random_001", "spherical_001", "xramp_001"}
	if !slices.Equal(names, want) {
		t.Errorf("names %v", names)
	}
	v := Vars(8)
	if !v[7].Int || v[7].Centering != Zone || v[3].Centering != Node || v[0].Int {
		t.Errorf("kinds %+v", v)
	}
}

// TestGroups: MIF groups of MACSIO_MIF_Init: 5 ranks in 2 files are {0,1,2} and {3,4}; more
// files than ranks make every rank its own group.
func TestGroups(t *testing.T) {
	type g struct{ group, before, after int }
	var got []g
	for r := 0; r < 5; r++ {
		a, b, c := Group(r, 5, 2)
		got = append(got, g{a, b, c})
	}
	want := []g{{0, -1, 1}, {0, 0, 2}, {0, 1, -1}, {1, -1, 4}, {1, 3, -1}}
	if !slices.Equal(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
	for r := 0; r < 2; r++ {
		if a, b, c := Group(r, 2, 8); a != r || b != -1 || c != -1 {
			t.Errorf("MIF 8 on 2 ranks: rank %d group %d %d %d", r, a, b, c)
		}
	}
}

// TestParts: 1.5 parts on 4 ranks are 6 consecutive chunks, 1 or 2 per rank, in rank
// order, the same on every call.
func TestParts(t *testing.T) {
	c := &Config{AvgNumParts: 1.5, PartSize: 10000, PartDim: 2}
	m, err := NewMesh(c, 4, 7)
	if err != nil {
		t.Fatal(err)
	}
	next, ones, twos := 0, 0, 0
	for r := 0; r < 4; r++ {
		for _, p := range m.Parts(r) {
			if p.Chunk != next {
				t.Errorf("rank %d chunk %d, want %d", r, p.Chunk, next)
			}
			next++
		}
		switch len(m.Parts(r)) {
		case 1:
			ones++
		case 2:
			twos++
		}
	}
	if next != 6 || ones != 2 || twos != 2 || m.MaxParts() != 2 {
		t.Errorf("parts: %d chunks, %d ranks with 1, %d with 2", next, ones, twos)
	}
	// 4 parts of 25 x 50 arranged 2 x 2: node (100, 50), zone (98, 48) (§6c).
	m, _ = NewMesh(&Config{AvgNumParts: 2, PartSize: 10000, PartDim: 2}, 2, 1)
	if n, z := m.GlobalShape(Var{Centering: Node}), m.GlobalShape(Var{Centering: Zone}); !slices.Equal(n, []uint64{100, 50}) || !slices.Equal(z, []uint64{98, 48}) {
		t.Errorf("global shapes %v %v", n, z)
	}
	if n, z := m.PartShape(Var{Centering: Node}), m.PartShape(Var{Centering: Zone}); !slices.Equal(n, []uint64{25, 50}) || !slices.Equal(z, []uint64{24, 49}) {
		t.Errorf("part shapes %v %v", n, z)
	}
}

// TestBadInput: MACSio-like wording, before any I/O.
func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		args string
		want []string
	}{
		{"--interface hdf5 --part_size 8072", []string{"--part_size 8072", "1009 doubles", "does not factor for --part_dim 2", "1 x 1009"}},
		{"--part_size 8000", []string{"--interface miftmpl", "hdf5 plugin only", "silo", "exodus", "typhonio"}},
		{"--interface silo", []string{"--interface silo", "hdf5 plugin only", "miftmpl"}},
		{"--interface hdf5 --parallel_file_mode MIF 0", []string{"--parallel_file_mode MIF 0", "file count 0", "divides by zero"}},
		{"--interface hdf5 --dataset_growth -1.5", []string{"--dataset_growth -1.5", "negative growth"}},
		{"--interface hdf5 --bogus 3", []string{"unknown argument --bogus", "Type macsio --help for help"}},
		{"--interface hdf5 --num_dumps", []string{"too few arguments for command-line options"}},
		{"--interface hdf5 --part_size 4G", []string{"integer overflow (4294967296) for arg \"--part_size\""}},
		{"--interface hdf5 --mesh_decomp 3 3 1 --avg_num_parts 2", []string{"--mesh_decomp 3 3 1 gives 9 parts"}},
	} {
		_, err := Parse(strings.Fields(c.args))
		if err == nil && strings.Contains(c.args, "mesh_decomp") {
			a, _ := Parse(strings.Fields(c.args))
			_, err = NewMesh(&a.Config, 2, 1)
		}
		if err == nil {
			t.Errorf("%s: no error", c.args)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.args, err, w)
			}
		}
	}
	// The same through the option table: the key and the value are named.
	for kv, want := range map[string]string{"parallel_file_mode=MIF 0": "divides by zero", "dataset_growth=-2": "negative growth",
		"part_size=8072": "does not factor", "interface=silo": "silo"} {
		if _, _, err := kit.Build(kv); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), strings.SplitN(kv, "=", 2)[0]) {
			t.Errorf("%s: %v", kv, err)
		}
	}
}

// TestParseDefaults: MACSio's defaults and size suffixes; unused options are named.
func TestParseDefaults(t *testing.T) {
	a, err := Parse(strings.Fields("--interface hdf5 --part_size 1M --meta_size 1 2 --part_type curvilinear --plugin_args --no_collective --compression gzip level=3 --what"))
	if err != nil {
		t.Fatal(err)
	}
	c := a.Config
	if c.SIF || c.NumFiles != 4 || c.AvgNumParts != 1 || c.PartSize != 1<<20 || c.PartDim != 2 || c.VarsPerPart != 20 || c.NumDumps != 10 ||
		a.Filebase != "macsio" || c.FileExt != "h5" || c.LogFile != "macsio-log.log" || c.TimingsFile != "macsio-timings.log" ||
		!c.NoCollective || c.Compression.Alg != "gzip" || c.Compression.Level != 3 || !c.Compression.Shuffle || c.LogLines != 64 || c.LogLineLen != 128 {
		t.Errorf("%+v %+v", a, c)
	}
	if !slices.Equal(a.Unused, []string{"--part_type", "--meta_size"}) || len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], "--what") {
		t.Errorf("unused %v warnings %v", a.Unused, a.Warnings)
	}
	if !strings.Contains(Help(), "parsed, not used") || !strings.Contains(Help(), "--plugin_args") {
		t.Error("help")
	}
}

// TestPlans: SIF plans ceil(avg) collective writes per variable with empty selections on
// ranks with fewer parts; MIF waits for and passes the baton around sec2 opens.
func TestPlans(t *testing.T) {
	p := kit.Must(t, "parallel_file_mode=SIF", "avg_num_parts=1.5", "part_size=10000", "vars_per_part=3", "num_dumps=1")
	counts := map[int]int{}
	for r := 0; r < 2; r++ {
		plans, err := plantest.Phase(p, patterns.PhaseWrite, 1, patterns.Env{Rank: r, Size: 2, Path: "m", Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if m := plans[1].Ops[0].File.MDCAdjust; m == nil || m.Initial != 16<<10 || m.Min != 8<<10 || m.EpochLength != 3000 || m.LowerHitRate != 0.95 {
			t.Errorf("SIF metadata cache %+v", m)
		}
		for _, op := range plans[1].Ops {
			if op.Kind == plan.Write {
				if !op.Collective {
					t.Errorf("rank %d: independent write", r)
				}
				if op.Transfer.Selection.IsNone() {
					counts[r]++
				}
			}
		}
		if n := len(plans[1].Ops); n != 2+3*(1+2+1) {
			t.Errorf("rank %d: %d ops", r, n)
		}
	}
	if len(counts) != 1 || counts[0]+counts[1] != 3 {
		t.Errorf("empty writes %v, want one rank with one per variable", counts)
	}
	p = kit.Must(t, "parallel_file_mode=MIF 1", "part_size=10000", "vars_per_part=1", "num_dumps=1")
	plans, err := plantest.Phase(p, patterns.PhaseWrite, 1, patterns.Env{Rank: 1, Size: 3, Path: "m", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, op := range plans[1].Ops {
		kinds = append(kinds, op.Kind.String())
		if op.File != nil && (op.File.Parallel || !op.File.CloseSemi) {
			t.Errorf("MIF file spec %+v", op.File)
		}
	}
	want := []string{"wait-baton", "open-file", "create-group", "create-dataset", "write", "close-dataset", "close-group", "close-file", "pass-baton"}
	if !slices.Equal(kinds, want) || plans[1].Ops[0].Baton.Peer != 0 || plans[1].Ops[8].Baton.Peer != 2 || plans[1].Ops[1].Path != "m_hdf5_00000_000.h5" {
		t.Errorf("MIF rank 1 of 3: %v", kinds)
	}
}

// TestGrowth: the growth's expansion variables from a dump of 385 KB at factor 1.5, and
// the remainder's name repeated by the next growth.
func TestGrowth(t *testing.T) {
	m, _ := NewMesh(&Config{AvgNumParts: 1, PartSize: 10000, PartDim: 2}, 1, 1)
	var g Growth
	g.Evolve(m, GrowthBytes(85024, 1.5))
	g.Evolve(m, GrowthBytes(172080, 1.5))
	var names []string
	for _, v := range g.Added[0] {
		names = append(names, v.Name)
	}
	if !slices.Equal(names, []string{"expansion_000", "expansion_001", "expansion_002", "expansion_003", "expansion_004"}) ||
		!slices.Equal(g.Added[0][4].Dims, []int{1, 313}) || g.Added[1][0].Name != "expansion_004" {
		t.Errorf("growth %+v", g.Added)
	}
	if GrowthBytes(385000, 1.5) != 192500 {
		t.Errorf("GrowthBytes %d", GrowthBytes(385000, 1.5))
	}
}

// TestLogFormat: MACSio's log regions and units.
func TestLogFormat(t *testing.T) {
	l := NewLog(2, 128, 64, 0)
	l.Info(1, "macsio_main.c", 674, "Dump 00 BW: x")
	b := l.Bytes()
	if len(b) != (64+64+64)*128 {
		t.Fatalf("%d bytes", len(b))
	}
	lines := strings.Split(string(b), "\n")
	if !strings.Contains(lines[128], "Processor 000001") || !strings.HasPrefix(lines[129], `Info:"macsio_main.c":674:Dump 00 BW: x:::`) || len(lines[129]) != 127 {
		t.Errorf("%q %q", lines[128], lines[129])
	}
	u := Units{}
	if s := u.Bytes(1.4365 * 1024 * 1024); s != "  1.4365 Mi" {
		t.Errorf("%q", s)
	}
	if s := u.Secs(0.1409565); s != "140.9565 msecs" {
		t.Errorf("%q", s)
	}
	if s := (Units{Decimal: true}).BW(2e6, 1); s != "  2.0000 Mb/sec" {
		t.Errorf("%q", s)
	}
}

// TestCompression: with gzip a dataset of at least minsize elements is one chunk of its
// shape, shuffled then deflated (level 9 by default); smaller ones stay contiguous.
func TestCompression(t *testing.T) {
	p := kit.Must(t, "parallel_file_mode=SIF", "part_size=10000", "vars_per_part=1", "num_dumps=1", "compression=gzip minsize=2000")
	plans, err := plantest.Phase(p, patterns.PhaseWrite, 1, patterns.Env{Rank: 0, Size: 2, Path: "m", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := plans[1].Ops[1].Dataset // constant: zone (98, 24) = 2352 elements at 2 ranks
	if !slices.Equal(d.Chunk, d.Shape) || d.Deflate != 9 || len(d.Filters) != 1 || d.Filters[0].ID != filterShuffle {
		t.Errorf("gzip dataset %+v", d)
	}
	p = kit.Must(t, "parallel_file_mode=SIF", "part_size=10000", "vars_per_part=1", "num_dumps=1", "compression=gzip minsize=5000,level=4")
	plans, _ = plantest.Phase(p, patterns.PhaseWrite, 1, patterns.Env{Rank: 0, Size: 2, Path: "m", Seed: 1})
	if d := plans[1].Ops[1].Dataset; d.Chunk != nil || d.Deflate != 0 {
		t.Errorf("below minsize: %+v", d)
	}
	if c, _ := ParseCompression("gzip level=4"); c.Level != 4 {
		t.Errorf("level %d", c.Level)
	}
}
