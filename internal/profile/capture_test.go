package profile

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCaptureScalarsAndModes folds a hand-made trace of 2 ranks: a scalar written by rank
// 0 alone becomes rank0, one written by both replicated (a scalar has no block); a
// dataset written collectively and one written independently by rank 0 become two write
// actions naming their datasets; a flush by every rank at every step becomes a flush per
// step, one flush per rank in all a flush at the end; a file only read (an input) is
// left out and listed.
func TestCaptureScalarsAndModes(t *testing.T) {
	info := func(dims ...int64) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"dims": dims, "maxdims": dims, "layout": 1, "type_class": 1, "type_size": 8})
		return b
	}
	p := &Profile{Ranks: 2, Traced: true, Calls: map[string]Call{}}
	for _, s := range []string{"0", "1"} {
		for name, dims := range map[string][]int64{"a": {8}, "t": nil, "both": nil, "m": {4}} {
			p.Records = append(p.Records, Record{Module: "H5D", File: "/x/f.h5", Name: "/step_" + s + "/" + name, Rank: -1, Info: info(dims...)})
		}
	}
	h5f := func(flushes int64) {
		p.Records = append(p.Records[:9:9], Record{Module: "H5F", File: "/x/f.h5", Rank: -1,
			Counters: map[string]int64{"H5F_USE_MPIIO": 1, "H5F_FLUSHES": flushes}})
	}
	ev := func(rank int, name string, coll bool, start, count int64) Event {
		sel, _ := json.Marshal(map[string][]int64{"start": {start}, "count": {count}})
		if count < 0 {
			sel = nil
		}
		return Event{Rank: rank, Module: "H5D", Call: "H5Dwrite", File: "/x/f.h5", Name: name, Collective: coll, Selection: sel}
	}
	// an input file, only read: left out, and said so
	p.Records = append(p.Records, Record{Module: "H5D", File: "/x/in.h5", Name: "/map", Rank: -1, Info: info(8)})
	p.Events = append(p.Events, Event{Rank: 0, Module: "H5D", Call: "H5Dread", File: "/x/in.h5", Name: "/map"})
	for _, s := range []string{"0", "1"} {
		p.Events = append(p.Events,
			ev(0, "/step_"+s+"/a", true, 0, 4), ev(1, "/step_"+s+"/a", true, 4, 4),
			ev(0, "/step_"+s+"/t", false, 0, -1),
			ev(0, "/step_"+s+"/both", true, 0, -1), ev(1, "/step_"+s+"/both", true, 0, -1),
			ev(0, "/step_"+s+"/m", false, 0, 4))
	}
	for _, c := range []struct {
		flushes int64
		flush   string
	}{{4, "  - flush: f\n"}, {2, "  - flush: f\n    at: end\n"}} {
		h5f(c.flushes)
		d, err := Capture(p, "hand")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(d.YAML, "name: in.h5") || !strings.Contains(d.YAML, "#   in.h5: an input the program read but did not write") {
			t.Errorf("the input file is in the description:\n%s", d.YAML)
		}
		for _, want := range []string{
			"          t:\n            type: f64\n            shape: []\n            decompose: rank0\n",
			"          both:\n            type: f64\n            shape: []\n            decompose: replicated\n",
			"          m:\n            type: f64\n            shape: [4]\n            decompose: rank0\n",
			"  - write: f\n    datasets: [a, both]\n  - write: f\n    collective: false\n    datasets: [m, t]\n" + c.flush, // no creation events: by name
		} {
			if !strings.Contains(d.YAML, want) {
				t.Errorf("H5F_FLUSHES %d: description lacks\n%s\n---\n%s", c.flushes, want, d.YAML)
			}
		}
	}
}
