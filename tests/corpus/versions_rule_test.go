package corpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// writeProfile writes a merged profile of one shared HDF5 file whose MPIIO record has
// the counters given, as HDF5 version hdf5 wrote it.
func writeProfile(t *testing.T, path, hdf5 string, mpiio map[string]int64) {
	t.Helper()
	p := &profile.Profile{SchemaVersion: profile.SchemaVersion, Ranks: 2, HDF5Version: hdf5, Calls: map[string]profile.Call{},
		Records: []profile.Record{
			{Module: "MPIIO", File: "/x/out.h5", Rank: -1, Counters: mpiio},
			{Module: "H5F", File: "/x/out.h5", Rank: -1, Counters: map[string]int64{"H5F_OPENS": 2}},
		}}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHintsAtViews: between a 1.10 program and a 1.14 replay, the program's MPIIO_HINTS
// 0 against the replay's count equal to its MPIIO_VIEWS passes with a note; hints that
// are not the views, a program with hints, another differing counter, or another pair
// of releases fail as before.
func TestHintsAtViews(t *testing.T) {
	prog := map[string]int64{"MPIIO_VIEWS": 8, "MPIIO_COLL_WRITES": 4, "MPIIO_HINTS": 0}
	with := func(base map[string]int64, kv ...any) map[string]int64 {
		m := map[string]int64{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = int64(kv[i+1].(int))
		}
		return m
	}
	for _, c := range []struct {
		what               string
		progV, replayV     string
		progRec, replayRec map[string]int64
		want               string
	}{
		{"hints at every view", "1.10.8", "1.14.5", prog, with(prog, "MPIIO_HINTS", 8), "pass (1.10 program, 1.14 replay: hints at every view)"},
		{"identical", "1.10.8", "1.14.5", prog, prog, "pass"},
		{"hints not at every view", "1.10.8", "1.14.5", prog, with(prog, "MPIIO_HINTS", 5), "1 differ, first MPIIO out.h5 MPIIO_HINTS 0 against 5"},
		{"the program passed hints", "1.10.8", "1.14.5", with(prog, "MPIIO_HINTS", 2), with(prog, "MPIIO_HINTS", 8), "1 differ, first MPIIO out.h5 MPIIO_HINTS 2 against 8"},
		{"another counter differs", "1.10.8", "1.14.5", prog, with(prog, "MPIIO_HINTS", 8, "MPIIO_COLL_WRITES", 5), "1 differ, first MPIIO out.h5 MPIIO_COLL_WRITES 4 against 5"},
		{"the same release", "1.14.5", "1.14.5", prog, with(prog, "MPIIO_HINTS", 8), "1 differ, first MPIIO out.h5 MPIIO_HINTS 0 against 8"},
		{"another pair", "1.12.2", "1.14.5", prog, with(prog, "MPIIO_HINTS", 8), "1 differ, first MPIIO out.h5 MPIIO_HINTS 0 against 8"},
	} {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "ref", "p.json"), filepath.Join(dir, "replay", "p.json")
		writeProfile(t, a, c.progV, c.progRec)
		writeProfile(t, b, c.replayV, c.replayRec)
		if _, io := profileVerdicts(a, b, []string{"out.h5"}); io != c.want {
			t.Errorf("%s: %q, want %q", c.what, io, c.want)
		}
	}
}

// refList is a masked dump's REFERENCE_LIST attribute with the dimension member's type.
func refList(attr, dimType, value string) string {
	return strings.Join([]string{
		`DATASET "x" {`,
		`   ATTRIBUTE "` + attr + `" {`,
		`      DATATYPE  H5T_COMPOUND {`,
		`         H5T_REFERENCE { H5T_STD_REF_OBJECT } "dataset";`,
		`         ` + dimType + ` "dimension";`,
		`      }`,
		`      DATASPACE  SIMPLE { ( ` + value + ` ) / ( ` + value + ` ) }`,
		`   }`,
		`}`}, "\n")
}

// TestUnsignedDimension: between a 1.10 program's file and a 1.14 replay's, the
// REFERENCE_LIST dimension member's I32 against U32 passes with a note; the same lines in
// another attribute, the other way round, or beside another difference fail at their line.
func TestUnsignedDimension(t *testing.T) {
	for _, c := range []struct {
		what string
		a, b string
		pair versionPair
		want string
	}{
		{"unsigned dimension", refList("REFERENCE_LIST", "H5T_STD_I32LE", "2"), refList("REFERENCE_LIST", "H5T_STD_U32LE", "2"), libraryPair,
			"pass (1.10 program, 1.14 replay: REFERENCE_LIST dimension unsigned)"},
		{"equal", refList("REFERENCE_LIST", "H5T_STD_I32LE", "2"), refList("REFERENCE_LIST", "H5T_STD_I32LE", "2"), libraryPair, "pass"},
		{"another attribute", refList("OTHER", "H5T_STD_I32LE", "2"), refList("OTHER", "H5T_STD_U32LE", "2"), libraryPair,
			`out.h5: line 5: "H5T_STD_I32LE \"dimension\";" against "H5T_STD_U32LE \"dimension\";"`},
		{"the other way round", refList("REFERENCE_LIST", "H5T_STD_U32LE", "2"), refList("REFERENCE_LIST", "H5T_STD_I32LE", "2"), libraryPair,
			`out.h5: line 5: "H5T_STD_U32LE \"dimension\";" against "H5T_STD_I32LE \"dimension\";"`},
		{"another difference", refList("REFERENCE_LIST", "H5T_STD_I32LE", "2"), refList("REFERENCE_LIST", "H5T_STD_U32LE", "3"), libraryPair,
			`out.h5: line 7: "DATASPACE  SIMPLE { ( 2 ) / ( 2 ) }" against "DATASPACE  SIMPLE { ( 3 ) / ( 3 ) }"`},
		{"the same release", refList("REFERENCE_LIST", "H5T_STD_I32LE", "2"), refList("REFERENCE_LIST", "H5T_STD_U32LE", "2"), versionPair{"1.14", "1.14"},
			`out.h5: line 5: "H5T_STD_I32LE \"dimension\";" against "H5T_STD_U32LE \"dimension\";"`},
	} {
		got, took := dumpDiff(c.a, c.b, c.pair)
		verdict := "pass"
		if got != "" {
			verdict = "out.h5: " + got
		} else if took {
			verdict = c.pair.note(dimNote)
		}
		if verdict != c.want {
			t.Errorf("%s: %q, want %q", c.what, verdict, c.want)
		}
	}
	if v, ok := libraryDiffers("1.10.8", "1.14.5"); !ok || v != libraryPair {
		t.Errorf("1.10.8 and 1.14.5: %v %v, want the library pair", v, ok)
	}
	for _, p := range [][2]string{{"1.14.5", "1.14.5"}, {"1.10.8", "1.10.8"}, {"1.14.5", "1.10.8"}, {"", "1.14.5"}} {
		if _, ok := libraryDiffers(p[0], p[1]); ok {
			t.Errorf("%s and %s: taken for the library pair", p[0], p[1])
		}
	}
}
