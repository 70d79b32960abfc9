package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// dumpObjects lists the objects of an HDF5 file from h5dump -H: each group, dataset and
// attribute path (attributes as PATH@NAME) with its datatype class (the first word after
// DATATYPE: H5T_IEEE_F64LE, H5T_STD_I32LE, H5T_STRING, H5T_COMPOUND) and its dataspace
// ("SCALAR" or "SIMPLE { ( 8, 3 ) / ( 8, 3 ) }"), and the string sizes and compound
// members as a flat text.
func dumpObjects(t *testing.T, path string) map[string]string {
	t.Helper()
	out := maskedDump(t, path)
	objs := map[string]string{}
	var stack []string
	open := regexp.MustCompile(`^\s*(GROUP|DATASET|ATTRIBUTE) "([^"]*)" \{$`)
	for _, l := range strings.Split(out, "\n") {
		s := strings.TrimSpace(l)
		switch {
		case open.MatchString(l):
			m := open.FindStringSubmatch(l)
			name := m[2]
			parent := strings.Join(stack, "")
			switch {
			case m[1] == "ATTRIBUTE":
				name = parent + "@" + name
			case name == "/":
				name = ""
			default:
				name = parent + "/" + name
			}
			stack = append(stack, strings.TrimPrefix(name, parent))
			if name != "" {
				objs[name] = m[1]
			}
		case strings.HasSuffix(s, "{"):
			stack = append(stack, "")
		case strings.HasPrefix(s, "}"):
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		path := strings.Join(stack, "")
		switch {
		case strings.HasPrefix(s, "DATATYPE"):
			objs[path] += " " + strings.Fields(s)[1]
		case strings.HasPrefix(s, "DATASPACE"):
			objs[path] += " " + strings.TrimSpace(strings.TrimPrefix(s, "DATASPACE"))
		case strings.HasPrefix(s, "STRSIZE"), strings.HasPrefix(s, "H5T_STD"), strings.HasPrefix(s, "H5T_IEEE"), strings.HasPrefix(s, "} \""):
			objs[path] += " " + s
		}
	}
	return objs
}

// checkObjects fails unless each object of want is in got with text containing the want.
func checkObjects(t *testing.T, file string, got map[string]string, want map[string]string) {
	t.Helper()
	for p, w := range want {
		g, ok := got[p]
		if !ok {
			var have []string
			for k := range got {
				have = append(have, k)
			}
			slices.Sort(have)
			t.Errorf("%s: no %s; objects: %s", file, p, strings.Join(have, ", "))
			continue
		}
		for _, part := range strings.Split(w, "|") {
			if !strings.Contains(g, part) {
				t.Errorf("%s: %s is %q, want %q in it", file, p, g, part)
			}
		}
	}
}

// runSample runs samples/apps/NAME on np ranks in a fresh directory with KEY=VALUE
// overrides and returns the directory.
func runSample(t *testing.T, name, np string, kv ...string) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "samples", "apps", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, dir, append([]string{"run", "-np", np, "-quiet", name}, kv...)...).expect(t, 0, nil, nil)
	return dir
}

// TestFlashSample pins the FLASH description's files: FLASH's names at the checkpoint
// and plot cadences, every table of a Sod checkpoint (sim info, unknown names, the four
// runtime parameter and scalar lists as name/value compounds at FLASH's offsets), the tree datasets over the
// blocks of every rank, the unknowns (shok included) with their minimum and maximum, and single precision
// in plot files.
func TestFlashSample(t *testing.T) {
	dir := runSample(t, "flash.yaml", "2", "steps=10", "nxb=4", "nyb=4", "blocks_per_rank=2")
	var files []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "sod_") {
			files = append(files, e.Name())
		}
	}
	want := []string{"sod_hdf5_chk_0000", "sod_hdf5_plt_cnt_0000", "sod_hdf5_plt_cnt_0001"}
	if !slices.Equal(files, want) {
		t.Fatalf("files %v, want %v (chk every 10, plt every 5 over 10 steps)", files, want)
	}
	nblk := "( 4 )"
	chk := dumpObjects(t, filepath.Join(dir, "sod_hdf5_chk_0000"))
	checkObjects(t, "checkpoint", chk, map[string]string{
		"/sim info":                   `H5T_COMPOUND|SIMPLE { ( 1 ) / ( 1 ) }|"file format version"|STRSIZE 400|"setup call"|"build time stamp"`,
		"/unknown names":              "H5T_STRING|STRSIZE 4|SIMPLE { ( 11, 1 )",
		"/integer runtime parameters": `H5T_COMPOUND|STRSIZE 80|} "name"|H5T_STD_I32LE "value"|( 90 )`,
		"/real runtime parameters":    `H5T_COMPOUND|H5T_IEEE_F64LE "value"|( 170 )`,
		"/string runtime parameters":  `H5T_COMPOUND|} "value"|( 30 )`,
		"/logical runtime parameters": `H5T_COMPOUND|H5T_STD_I32LE "value"|( 60 )`,
		"/integer scalars":            "H5T_COMPOUND|( 15 )",
		"/real scalars":               "H5T_COMPOUND|( 8 )",
		"/string scalars":             "H5T_COMPOUND|( 4 )",
		"/logical scalars":            "H5T_COMPOUND|( 1 )",
		"/node type":                  "H5T_STD_I32LE|SIMPLE { " + nblk,
		"/refine level":               "H5T_STD_I32LE|SIMPLE { " + nblk,
		"/which child":                "H5T_STD_I32LE|SIMPLE { " + nblk,
		"/processor number":           "H5T_STD_I32LE|SIMPLE { " + nblk,
		"/gid":                        "H5T_STD_I32LE|( 4, 9 )",
		"/bflags":                     "H5T_STD_I32LE|( 4, 1 )",
		"/gsurr_blks":                 "H5T_STD_I32LE|( 4, 1, 3, 3, 2 )",
		"/coordinates":                "H5T_IEEE_F64LE|( 4, 3 )",
		"/block size":                 "H5T_IEEE_F64LE|( 4, 3 )",
		"/bounding box":               "H5T_IEEE_F64LE|( 4, 3, 2 )",
		"/dens":                       "H5T_IEEE_F64LE|( 4, 1, 4, 4 )",
		"/velz":                       "H5T_IEEE_F64LE|( 4, 1, 4, 4 )",
		"/dens@minimum":               "H5T_IEEE_F64LE|( 1 )",
		"/dens@maximum":               "H5T_IEEE_F64LE|( 1 )",
		"/shok":                       "H5T_IEEE_F64LE|( 4, 1, 4, 4 )", // the unsplit hydro's shock flag
		"/shok@minimum":               "H5T_IEEE_F64LE|( 1 )",
		"/shok@maximum":               "H5T_IEEE_F64LE|( 1 )",
	})
	// hdf5_flash.h's structs, members inserted name then value (io_h5write_lists.c).
	for ds, want := range map[string]string{
		"integer runtime parameters": "name+0 value+80 =84", "real runtime parameters": "name+0 value+80 =88",
		"string runtime parameters": "name+80 value+0 =160", "logical runtime parameters": "name+4 value+0 =84",
		"integer scalars": "name+0 value+80 =84", "real scalars": "name+0 value+80 =88",
		"string scalars": "name+80 value+0 =160", "logical scalars": "name+4 value+0 =84",
	} {
		if got := layoutOf(t, filepath.Join(dir, "sod_hdf5_chk_0000"), ds); got != want {
			t.Errorf("checkpoint %s: layout %q, want %q (FLASH's)", ds, got, want)
		}
	}
	plt := dumpObjects(t, filepath.Join(dir, "sod_hdf5_plt_cnt_0001"))
	checkObjects(t, "plot file", plt, map[string]string{
		"/unknown names": "STRSIZE 4|( 4, 1 )",
		"/dens":          "H5T_IEEE_F32LE|( 4, 1, 4, 4 )",
		"/dens@minimum":  "H5T_IEEE_F32LE",
		"/coordinates":   "H5T_IEEE_F32LE|( 4, 3 )",
		"/gid":           "H5T_STD_I32LE|( 4, 9 )",
		"/sim info":      "H5T_COMPOUND",
	})
	if _, ok := plt["/eint"]; ok {
		t.Errorf("plot file holds eint, not a plot variable")
	}
}

// TestChomboSample pins the Chombo plotfile description: the header attributes (scalars,
// strings of their own length, the Box compound), per level the boxes, Processors,
// data:offsets=0 and data:datatype=0 (every rank's boxes, all components) and the
// data_attributes group.
func TestChomboSample(t *testing.T) {
	dir := runSample(t, "chombo.yaml", "2", "box=4", "steps=1")
	got := dumpObjects(t, filepath.Join(dir, "plt0000.3d.hdf5"))
	checkObjects(t, "plotfile", got, map[string]string{
		"@filetype":                           "H5T_STRING|STRSIZE 18|SCALAR",
		"@num_levels":                         "H5T_STD_I32LE|SCALAR",
		"@component_0":                        "H5T_STRING|STRSIZE 7",
		"/Chombo_global@SpaceDim":             "H5T_STD_I32LE|SCALAR",
		"/level_0@prob_domain":                `H5T_COMPOUND|H5T_STD_I32LE "lo_i"|H5T_STD_I32LE "hi_k"|SCALAR`,
		"/level_0@dx":                         "H5T_IEEE_F64LE|SCALAR",
		"/level_0/boxes":                      `H5T_COMPOUND|"lo_j"|( 4 )`,
		"/level_0/Processors":                 "H5T_STD_I32LE|( 4 )",
		"/level_0/data:offsets=0":             "H5T_STD_I64LE|( 5 )",
		"/level_0/data:datatype=0":            "H5T_IEEE_F64LE|( 1024 )",
		"/level_1/data:datatype=0":            "H5T_IEEE_F64LE|( 2048 )",
		"/level_1/data_attributes@ghost":      `H5T_COMPOUND|"intvectk"`,
		"/level_1/data_attributes@objectType": "STRSIZE 9",
		"/level_1/data_attributes@comps":      "H5T_STD_I32LE|SCALAR",
	})
}
