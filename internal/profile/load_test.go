package profile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// loadSample is a traced profile whose events set every field of Event, written by
// WriteJSON.
func loadSample(t testing.TB) []byte {
	t.Helper()
	yes, no := true, false
	p := &Profile{SchemaVersion: SchemaVersion, Command: []string{"./w", "8"}, Exe: "/x/w", Ranks: 2,
		HDF5Version: "1.10.8", MPIThread: "single", Traced: true, DroppedEvents: 0, Elapsed: 1.5,
		Records: []Record{{Module: "H5D", File: "/x/f.h5", Name: "/d", Rank: -1,
			Counters: map[string]int64{"H5D_WRITES": 2}, FCounters: map[string]float64{"H5D_F_WRITE_TIME": 0.25},
			Info: json.RawMessage(`{"dims":[4],"maxdims":[-1]}`)}},
		Calls:     map[string]Call{"H5Dwrite": {N: 2, Time: 0.5}},
		RankCalls: []map[string]Call{{"H5Dwrite": {N: 1, Time: 0.25}}, {"H5Dwrite": {N: 1, Time: 0.25}}},
		Events: []Event{
			{Rank: 0, Module: "H5F", Call: "H5Fcreate", File: "/x/f.h5", Offset: -1, Start: 0.125, End: 0.5,
				FAPL: &FAPL{Driver: "mpio", CollOps: true}, CrtOrder: []int{1, 3}, Untimed: true},
			{Rank: 1, Module: "H5D", Call: "H5Dwrite", File: "/x/f.h5", Name: "/d", Offset: -1, Length: 32,
				Start: 1e-9, End: 2.5e3, Collective: true,
				Selection: json.RawMessage(`{"start":[0],"count":[4],"blocks_hash":"00ff","blocks":[[0,3]]}`)},
			{Rank: 0, Module: "H5D", Call: "H5Dset_extent", File: "/x/f.h5", Name: "/d", Offset: -1, Extent: []int64{8, 0}},
			{Rank: 0, Module: "H5D", Call: "H5Dset_extent", File: "/x/f.h5", Name: "/e", Offset: -1, Extent: []int64{}},
			{Rank: 0, Module: "H5F", Call: "H5Awrite", File: "/x/f.h5", Offset: -1,
				Attribute: json.RawMessage(`{"object":"/","name":"n","dims":[],"value":"0100"}`)},
			{Rank: 0, Module: "H5F", Call: "H5Lcreate_external", File: "/x/f.h5", Offset: -1, Object: "/l",
				Target: "/t", TargetFile: "other.h5"},
			{Rank: 0, Module: "H5F", Call: "H5Rcreate", File: "/x/f.h5", Offset: -1, Object: "/d", Target: "/d[0:1]",
				Ref: "0a0b", Box: &no},
			{Rank: 0, Module: "H5F", Call: "H5Rcreate", File: "/x/f.h5", Offset: -1, Box: &yes},
			{Rank: 0, Module: "H5D", Call: "H5Dwrite", File: "/x/f.h5", Name: "/r", Offset: -1, Refs: "0a0b0c"},
			{Rank: 0, Module: "POSIX", Call: "pwrite", File: "/x/é ü.h5", Offset: 4096, Length: 96, Start: 3, End: 3.25},
		},
	}
	b, err := json.MarshalIndent(p, "", " ") // as WriteJSON writes it
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// viaJSON decodes b as Load did before decodeProfile: encoding/json alone.
func viaJSON(b []byte) (Profile, error) {
	var p Profile
	err := json.Unmarshal(b, &p)
	return p, err
}

// sameDecode checks that decodeProfile gives what encoding/json gives: the same profile,
// or an error with the same text.
func sameDecode(t *testing.T, b []byte) {
	t.Helper()
	want, wantErr := viaJSON(b)
	var got Profile
	gotErr := decodeProfile(b, &got)
	if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
		t.Fatalf("decodeProfile error %v, encoding/json %v\n%s", gotErr, wantErr, b)
	}
	if wantErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeProfile gave\n%+v\nencoding/json\n%+v\nfrom\n%s", got, want, b)
	}
}

// TestLoadScanner: what WriteJSON writes is read by the events' own scanner, every field
// of Event as encoding/json reads it; Load reads the file back to the profile written.
func TestLoadScanner(t *testing.T) {
	b := loadSample(t)
	var p Profile
	if !fastProfile(b, &p) {
		t.Fatal("WriteJSON's output did not take the scanner: the fold of a long trace is slow again")
	}
	sameDecode(t, b)
	want, _ := viaJSON(b)
	if len(want.Events) != 10 || want.Events[9].File != "/x/é ü.h5" || *want.Events[6].Box || len(want.Events[2].Extent) != 2 {
		t.Fatalf("the sample is not what it says: %+v", want.Events)
	}
	path := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("Load gave\n%+v\nwant\n%+v", *got, want)
	}
}

// TestLoadScannerFallsBack: documents the scanner does not take (or takes, near its edges)
// decode to exactly what encoding/json gives, errors included.
func TestLoadScannerFallsBack(t *testing.T) {
	b := string(loadSample(t))
	edits := map[string][2]string{
		"key in another case":   {`"rank": 1`, `"Rank": 1`},
		"unknown key":           {`"rank": 1`, `"rank": 1, "later": [1, {"x": null}]`},
		"null string":           {`"name": "/d"`, `"name": null`},
		"null selection":        {`"selection": {`, `"selection": null, "s": {`},
		"escaped string":        {`"file": "/x/é ü.h5"`, `"file": "/x/\"q\"\t\u00e9.h5"`},
		"invalid UTF-8":         {`"file": "/x/é ü.h5"`, "\"file\": \"/x/\xff.h5\""},
		"control character":     {`"file": "/x/é ü.h5"`, "\"file\": \"/x/\x01.h5\""},
		"fractional rank":       {`"rank": 1`, `"rank": 1.5`},
		"quoted rank":           {`"rank": 1`, `"rank": "1"`},
		"rank out of range":     {`"rank": 1`, `"rank": 99999999999999999999`},
		"float out of range":    {`"end": 2500`, `"end": 1e999`},
		"exponent":              {`"end": 2500`, `"end": 2.5E+3`},
		"leading zero":          {`"end": 2500`, `"end": 02500`},
		"bare minus":            {`"end": 2500`, `"end": -`},
		"duplicate key":         {`"rank": 1`, `"rank": 1, "rank": 3`},
		"duplicate extent":      {`"extent": [`, `"extent": [5, 6, 7], "extent": [`},
		"null extent":           {`"extent": [`, `"extent": null, "x": [`},
		"empty events":          {`"events": [`, `"events": [], "e": [`},
		"null events":           {`"events": [`, `"events": null, "e": [`},
		"events in other case":  {`"events": [`, `"Events": [`},
		"events twice":          {`"events": [`, `"events": [], "events": [`},
		"trailing comma":        {`"untimed": true`, `"untimed": true,`},
		"missing comma":         {`"untimed": true`, `"untimed": true "x": 1`},
		"bad literal":           {`"untimed": true`, `"untimed": tru`},
		"bad escape":            {`"value": "0100"`, `"value": "\q"`},
		"short unicode escape":  {`"value": "0100"`, `"value": "\u01"`},
		"unterminated string":   {`"value": "0100"`, `"value": "0100`},
		"deep raw":              {`"value": "0100"`, `"value": ` + strings.Repeat("[", 1100) + strings.Repeat("]", 1100)},
		"too deep raw":          {`"value": "0100"`, `"value": ` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001)},
		"top-level type error":  {`"ranks": 2`, `"ranks": "two"`},
		"top-level escaped key": {`"ranks": 2`, `"r\u0061nks": 2`},
		"trailing garbage":      {`"traced": true`, `"traced": true}{`},
		"truncated":             {`"traced": true`, `"traced": tr`},
	}
	for name, e := range edits {
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(b, e[0]) {
				t.Fatalf("the sample lacks %q", e[0])
			}
			sameDecode(t, []byte(strings.Replace(b, e[0], e[1], 1)))
		})
	}
	for _, doc := range []string{"", "null", "[]", "{}", `{"events": [{}]}`, ` { "events" : [ { } , { "rank" : 2 } ] } `, `{"events": [}`} {
		sameDecode(t, []byte(doc))
	}
}

// FuzzDecodeProfile: decodeProfile is encoding/json on any input (the seeds run as unit
// tests; `go test -fuzz FuzzDecodeProfile ./internal/profile` mutates them).
func FuzzDecodeProfile(f *testing.F) {
	f.Add(loadSample(f))
	f.Add([]byte(`{"schema_version":1,"events":[{"rank":0,"call":"H5Dwrite","extent":[1,2],"selection":{"a":[1]}}]}`))
	f.Add([]byte(`{"events":[{"name":"a\u0041","box":true,"fapl":{"driver":"mpio"}}],"ranks":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		sameDecode(t, b)
	})
}

// TestMayHash: a selection is decoded for its hash unless it certainly has none, with
// encoding/json's case-insensitive key match (non-ASCII folds of k and s included).
func TestMayHash(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"start":[0],"count":[4]}`:            false,
		`{"start":[0],"blocks_hash":"00ff"}`:   true,
		`{"start":[0],"BLOCKS_Hash":"00ff"}`:   true,
		`{"blocks_has":1}`:                     false,
		`{"bloc`:                               false,
		`{"start":[0],"bloc\u212As_hash":"0"}`: true, // an escape: the key decodes to a fold of it
		`{"blocks\u005fhash":"0"}`:             true,
		"{\"bloc\u212As_hash\":\"0\"}":         true, // the Kelvin sign folds to k
	} {
		if got := mayHash([]byte(raw)); got != want {
			t.Errorf("mayHash(%s) = %v, want %v", raw, got, want)
		}
		var sel selection
		if json.Unmarshal([]byte(raw), &sel) == nil && sel.Hash != "" && !mayHash([]byte(raw)) {
			t.Errorf("%s has hash %q that mayHash misses", raw, sel.Hash)
		}
	}
}

// TestHDF5Calls: a trace's size counts its H5* events, not its MPI-IO or POSIX ones.
func TestHDF5Calls(t *testing.T) {
	p, err := viaJSON(loadSample(t))
	if err != nil {
		t.Fatal(err)
	}
	if n := p.HDF5Calls(); n != 9 {
		t.Errorf("HDF5Calls = %d, want 9 (the sample's 10 events less its pwrite)", n)
	}
}
