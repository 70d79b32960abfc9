package profile

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestCaptureDefine folds hand-made traces of one rank writing two datasets at 2 steps.
// Every create before the first write, then H5Fflush (netCDF-4's nc_enddef), becomes
// define: upfront_flush, and the flush is the define's, leaving the one at the end (the
// two H5F_FLUSHES are nc_enddef's and nc_close's); without the flush, upfront and both
// flushes in the timeline; a create after a write, lazy (no define key).
func TestCaptureDefine(t *testing.T) {
	info, _ := json.Marshal(map[string]any{"dims": []int64{4}, "maxdims": []int64{4}, "layout": 1, "type_class": 1, "type_size": 8})
	ev := func(call, name string) Event {
		e := Event{Rank: 0, Module: "H5D", Call: call, File: "/x/f.h5", Name: name}
		if call == "H5Fflush" {
			e.Module, e.Name = "H5F", ""
		}
		if call == "H5Dwrite" {
			e.Selection, _ = json.Marshal(map[string][]int64{"start": {0}, "count": {4}})
		}
		return e
	}
	for _, c := range []struct {
		name   string
		calls  []string // call:dataset, then both datasets written again at step 1
		define string
		flush  []string
	}{
		{"enddef", []string{"H5Dcreate2:/a", "H5Dcreate2:/b", "H5Fflush:", "H5Dwrite:/a", "H5Dwrite:/b"}, "upfront_flush", []string{"flush f end"}},
		{"upfront", []string{"H5Dcreate2:/a", "H5Dcreate2:/b", "H5Dwrite:/a", "H5Dwrite:/b", "H5Fflush:"}, "upfront", []string{"flush f  step < 1", "flush f end"}},
		{"lazy", []string{"H5Dcreate2:/a", "H5Dwrite:/a", "H5Dcreate2:/b", "H5Fflush:", "H5Dwrite:/b"}, "", []string{"flush f  step < 1", "flush f end"}},
	} {
		p := &Profile{Ranks: 1, Traced: true, Calls: map[string]Call{}}
		for _, n := range []string{"/a", "/b"} {
			p.Records = append(p.Records, Record{Module: "H5D", File: "/x/f.h5", Name: n, Rank: -1, Info: info})
		}
		p.Records = append(p.Records, Record{Module: "H5F", File: "/x/f.h5", Rank: -1, Counters: map[string]int64{"H5F_USE_MPIIO": 1, "H5F_FLUSHES": 2}})
		for _, cl := range append(slices.Clone(c.calls), "H5Dwrite:/a", "H5Dwrite:/b", "H5Fflush:") {
			call, name, _ := strings.Cut(cl, ":")
			p.Events = append(p.Events, ev(call, name))
		}
		cp, err := Capture(p, "hand")
		if err != nil {
			t.Fatal(err)
		}
		checked(t, cp)
		f := fileOf(t, cp.Desc, "f")
		var flushes []string
		for _, a := range cp.Desc.Timeline {
			if verb, id := a.Verb(); verb == "flush" {
				flushes = append(flushes, strings.TrimSpace(verb+" "+id.Text+" "+a.At.Text+" "+a.When.Text))
			}
		}
		if f.Define.Text != c.define || !slices.Equal(flushes, c.flush) {
			t.Errorf("%s: define %q, flushes %q; want %q, %q\n%s", c.name, f.Define.Text, flushes, c.define, c.flush, cp.YAML)
		}
	}
}
