package amrex

import (
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns/internal/plantest"
)

func TestDefaults(t *testing.T) {
	p := kit.Must(t, exampleKeys...)
	c := p.C
	if c.NPlotfile != 1 || c.NParticlefile != 1 || p.Steps() != 2 || c.GridsFromFile || c.Compression.On() || c.Directory != "" {
		t.Errorf("defaults: %+v", c)
	}
	if c.Particles() != 4096 || len(c.Levels) != 1 || len(c.Levels[0].Boxes) != 8 {
		t.Errorf("particles %d levels %d", c.Particles(), len(c.Levels))
	}
	if p.Name() != "amrex" || len(p.Phases()) != 2 {
		t.Errorf("name %q phases %v", p.Name(), p.Phases())
	}
	s := kit.Must(t, sampleKeys...)
	if s.Steps() != 4 || len(s.C.Levels[0].Boxes) != 512 || s.C.Particles() != 2*64*64*64 {
		t.Errorf("sample: steps %d boxes %d particles %d", s.Steps(), len(s.C.Levels[0].Boxes), s.C.Particles())
	}
}

// TestConfigErrors: every refusal names the key, its value and what is allowed.
func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		keys []string
		want []string
	}{
		{"missing ncells", []string{"max_grid_size=8", "nlevs=1", "ncomp=2", "nppc=1"}, []string{`"ncells"`, "required"}},
		{"missing nppc", []string{"ncells=8", "max_grid_size=8", "nlevs=1", "ncomp=2"}, []string{`"nppc"`, "required"}},
		{"nlevs without files", append(exampleKeys[:2:2], "nlevs=2", "ncomp=2", "nppc=1"), []string{`"nlevs"`, `"2"`, "grids_from_file=1"}},
		{"nothing to write", append(exampleKeys, "nplotfile=0", "nparticlefile=0"), []string{`"nplotfile"`, "nothing to write", "allowed"}},
		{"sleeptime reaches pattern", append(exampleKeys, "sleeptime=2"), []string{`"sleeptime"`, `"2"`, "compute_time"}},
		{"zlib level", append(exampleKeys, "hdf5compression=ZLIB@12"), []string{`"hdf5compression"`, `"ZLIB@12"`, "ZLIB@1 .. ZLIB@9"}},
		{"zlib no level", append(exampleKeys, "hdf5compression=ZLIB@"), []string{`"hdf5compression"`, "ZLIB@1"}},
		{"unknown mode", append(exampleKeys, "hdf5compression=GZIP@4"), []string{`"hdf5compression"`, `"GZIP@4"`, `unknown mode "GZIP"`, "None@0", "ZLIB@<1..9>"}},
		{"grids missing", append(exampleKeys, "grids_from_file=1"), []string{`"grids_from_file"`, "grids/Level_0", "allowed"}},
		{"negative nppc", []string{"ncells=8", "max_grid_size=8", "nlevs=1", "ncomp=2", "nppc=-1"}, []string{`"nppc"`, `"-1"`, "out of range", ">= 0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(t.TempDir()) // no grids/ here
			_, _, err := kit.Build(c.keys...)
			if err == nil {
				t.Fatal("accepted")
			}
			plantest.CheckOptionsError(t, c.name, err, c.want...)
		})
	}
}

// TestCompression: AMReX's MODE@VALUE strings.
func TestCompression(t *testing.T) {
	cases := []struct {
		value, mode string
		level       int
		warn        string
	}{
		{"None@0", "None", 0, ""},
		{"ZLIB@6", "ZLIB", 6, ""},
		{"ZLIB@3.0", "ZLIB", 3, ""},
		{"@5", "None", 0, ""},
		{"ZFP_ACCURACY@0.001", "None", 0, "ZFP_ACCURACY needs the H5Z-SZ/H5Z-ZFP filter"},
		{"SZ@sz.config", "None", 0, "uncompressed and contiguous"},
		{"ZFP_ACCURACY#0.001", "None", 0, "has no '@'"},
	}
	for _, c := range cases {
		p, warnings, err := kit.Build(append(exampleKeys, "hdf5compression="+c.value)...)
		if err != nil {
			t.Fatalf("%s: %v", c.value, err)
		}
		if p.C.Compression.Mode != c.mode || p.C.Compression.Level != c.level || p.C.Compression.Chunk != 1024 {
			t.Errorf("%s: %+v", c.value, p.C.Compression)
		}
		joined := strings.Join(warnings, "\n")
		if (c.warn == "") != (joined == "") || !strings.Contains(joined, c.warn) {
			t.Errorf("%s: warnings %q, want %q", c.value, warnings, c.warn)
		}
	}
	t.Setenv("HDF5_CHUNK_SIZE", "4096")
	p := kit.Must(t, append(exampleKeys, "hdf5compression=ZLIB@1")...)
	if p.C.Compression.Chunk != 4096 || !reflect.DeepEqual(p.C.Compression.chunkFor(100), u(100)) || !reflect.DeepEqual(p.C.Compression.chunkFor(10000), u(4096)) {
		t.Errorf("HDF5_CHUNK_SIZE: %+v", p.C.Compression)
	}
	t.Setenv("HDF5_CHUNK_SIZE", "lots")
	if _, _, err := kit.Build(append(exampleKeys, "hdf5compression=ZLIB@1")...); err == nil || !strings.Contains(err.Error(), `$HDF5_CHUNK_SIZE="lots"`) {
		t.Errorf("bad HDF5_CHUNK_SIZE: %v", err)
	}
}

// TestIgnoredKeys: keys h5proxy takes elsewhere warn when they reach the pattern.
func TestIgnoredKeys(t *testing.T) {
	_, warnings, err := kit.Build(append(exampleKeys, "restart_check=1", "ref_ratio_file=2")...)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(warnings, "\n")
	for _, w := range []string{"restart_check=1", "ref_ratio_file=2 is read only with grids_from_file=1"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", warnings, w)
		}
	}
}

// TestGridsFromFile: two levels from box-list files with the refinement ratio of
// ref_ratio_file; max_grid_size does not chop file grids.
func TestGridsFromFile(t *testing.T) {
	writeGrids(t, twoLevels...)
	p := kit.Must(t, "ncells=16", "max_grid_size=4", "nlevs=2", "ncomp=1", "nppc=1", "grids_from_file=1", "ref_ratio_file=2 4")
	c := p.C
	if !reflect.DeepEqual(c.RefRatio, []int{2}) || len(c.Levels) != 2 {
		t.Fatalf("ratios %v levels %d", c.RefRatio, len(c.Levels))
	}
	if c.Levels[0].Ratio != 2 || c.Levels[1].Ratio != 1 || c.Levels[1].Domain != box(0, 0, 0, 31, 31, 31) || len(c.Levels[0].Boxes) != 2 {
		t.Errorf("levels %+v", c.Levels)
	}
	for _, bad := range []struct{ keys, want string }{
		{"ref_ratio_file=", "gives 0 ratios, nlevs=2 needs 1"},
		{"ref_ratio_file=two", `"two" is not a refinement ratio`},
	} {
		if _, _, err := kit.Build("ncells=16", "max_grid_size=4", "nlevs=2", "ncomp=1", "nppc=1", "grids_from_file=1", bad.keys); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.keys, err, bad.want)
		}
	}
	if _, _, err := kit.Build("ncells=16", "max_grid_size=4", "nlevs=3", "ncomp=1", "nppc=1", "grids_from_file=1", "ref_ratio_file=2 2"); err == nil || !strings.Contains(err.Error(), "level 2: box list grids/Level_2") {
		t.Errorf("missing level file: %v", err)
	}
}
