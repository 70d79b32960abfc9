package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns/e3sm"
)

// The summaries as the reference programs print them (h5bench's format).
const writeOut = `
=================== Performance Results ==================
Total number of ranks: 2
Total write size: 512.000 MB
Raw write time: 0.688 s
Metadata time: 0.003 s
H5Fcreate() time: 0.027 s
Observed completion time: 1.083 s
SYNC Raw write rate: 744.186 MB/s 
`

const readOut = `Raw read time: 0.250 s
Observed read completion time: 0.400 s
`

const e3smOut = `Time of posting write requests     min/max =   2.0000 /   2.1700
Time of posting write requests     min/max =   0.1000 /   0.2500
Total end-to-end time (all files, max over ranks): 2.9100 s
`

// TestParsers checks that observed and raw times are taken from the right lines.
func TestParsers(t *testing.T) {
	s, err := h5benchParser(reRawWrite)([]byte(writeOut))
	if err != nil || s.observed != 1.083 || s.raw != 0.688 {
		t.Errorf("write summary: %+v, %v", s, err)
	}
	s, err = h5benchParser(reRawRead)([]byte(readOut))
	if err != nil || s.observed != 0.4 || s.raw != 0.25 {
		t.Errorf("read summary: %+v, %v", s, err)
	}
	if _, err := h5benchParser(reRawRead)([]byte(writeOut)); err == nil {
		t.Error("a write summary parsed as a read one")
	}
	c, err := e3smCase("g", t.TempDir(), t.TempDir(), 2, t.TempDir(), 1, true)
	if err == nil || !strings.Contains(err.Error(), "-maps") || !strings.Contains(err.Error(), "map_g_case_16p.h5") {
		t.Errorf("missing map: %+v, %v", c, err)
	}
}

// TestE3SMParser checks the E3SM reference's sums: end-to-end total and posting maxima.
func TestE3SMParser(t *testing.T) {
	o, err := lineValue([]byte(e3smOut), reE2E)
	if err != nil || o != 2.91 {
		t.Fatalf("end-to-end %v, %v", o, err)
	}
	var raw float64
	for _, m := range rePost.FindAllSubmatch([]byte(e3smOut), -1) {
		v, _ := lineValue(m[0], rePost)
		raw += v
	}
	if math.Abs(raw-2.42) > 1e-9 {
		t.Errorf("posting sum %v, want 2.42", raw)
	}
}

// TestHeaderText builds the F histories from the 16p map's shapes and checks the reference
// headers: variable counts, char variables, an 8-byte _FillValue and a text attribute.
func TestHeaderText(t *testing.T) {
	m, err := shapesMap("map.h5", []byte("nprocs 16\nD1 866\nD2 866\nD3 72 866\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.NProcs != 16 || len(m.Decomps) != 3 || len(m.Decomps[2].Dims) != 2 || m.Decomps[2].Dims[0] != 72 {
		t.Fatalf("shapes: %+v", m)
	}
	e3sm.RegisterMapReader(func(string) (*e3sm.Map, error) { return m, nil })
	// The pattern checks that the map file exists before the (stand-in) reader runs.
	mapFile := filepath.Join(t.TempDir(), "map.h5")
	if err := os.WriteFile(mapFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	hs, err := e3sm.HistoriesOf([]options.KV{{Key: "map", Value: mapFile}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"h0": 414, "h1": 51}
	for _, h := range hs {
		text := headerText(h)
		if n := bytes.Count(text, []byte("\nvar ")); n != want[h.Name] {
			t.Errorf("%s: %d variables, want %d", h.Name, n, want[h.Name])
		}
		if !strings.HasPrefix(string(text), "file "+h.Name+" 1\n") {
			t.Errorf("%s: header starts %q", h.Name, text[:20])
		}
		for _, line := range []string{
			"var date_written char 0 1 1 8\n",
			"dim time 0\n", "dim ncol 866\n",
			"attr long_name str 9 6c6174697475646500\n", // lat's "latitude"
		} {
			if !bytes.Contains(text, []byte(line)) {
				t.Errorf("%s: no line %q", h.Name, line)
			}
		}
		if h.Name == "h0" && !bytes.Contains(text, []byte("var AEROD_v f64 2 1 1 866\nattr _FillValue f64 1 000000801daf1544\n")) {
			t.Errorf("h0: AEROD_v and its 8-byte _FillValue not as expected")
		}
	}
}
