package profile

import (
	"encoding/json"
	"fmt"
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

// TestCaptureFlushPerDataset folds a hand-made trace of one rank writing two datasets
// in a group per step, at 3 steps, flushing the file after each write (PETSc's VecView) and once more at its close:
// a write action per dataset in the order written, each followed by a flush, and the
// close's flush at the end. With the two writes flushed together, one write action and
// two flushes per step.
func TestCaptureFlushPerDataset(t *testing.T) {
	info, _ := json.Marshal(map[string]any{"dims": []int64{4}, "maxdims": []int64{4}, "layout": 1, "type_class": 1, "type_size": 8})
	for _, c := range []struct {
		name string
		step []string
		want []string
	}{
		{"flush after each", []string{"H5Dwrite:/t", "H5Fflush:", "H5Dwrite:/u", "H5Fflush:"}, []string{"write f [t]", "flush f", "write f [u]", "flush f", "flush f end"}},
		{"flushes together", []string{"H5Dwrite:/t", "H5Dwrite:/u", "H5Fflush:", "H5Fflush:"}, []string{"write f", "flush f", "flush f", "flush f end"}},
	} {
		p := &Profile{Ranks: 1, Traced: true, Calls: map[string]Call{}}
		for s := range 3 { // a group per step
			for _, n := range []string{"t", "u"} {
				p.Records = append(p.Records, Record{Module: "H5D", File: "/x/f.h5", Name: fmt.Sprintf("/step_%d/%s", s, n), Rank: -1, Info: info})
			}
		}
		p.Records = append(p.Records, Record{Module: "H5F", File: "/x/f.h5", Rank: -1, Counters: map[string]int64{"H5F_USE_MPIIO": 1, "H5F_FLUSHES": 7}})
		for s := range 3 {
			for _, cl := range c.step {
				call, name, _ := strings.Cut(cl, ":")
				if name != "" {
					name = fmt.Sprintf("/step_%d%s", s, name)
				}
				e := Event{Rank: 0, Module: "H5D", Call: call, File: "/x/f.h5", Name: name}
				if call == "H5Dwrite" {
					e.Selection = json.RawMessage(`{"start":[0],"count":[4]}`)
				} else {
					e.Module = "H5F"
				}
				p.Events = append(p.Events, e)
			}
		}
		p.Events = append(p.Events, Event{Rank: 0, Module: "H5F", Call: "H5Fflush", File: "/x/f.h5"})
		cp, err := Capture(p, "hand")
		if err != nil {
			t.Fatal(err)
		}
		checked(t, cp)
		var acts []string
		for _, a := range cp.Desc.Timeline {
			verb, id := a.Verb()
			s := verb + " " + id.Text
			if len(a.Datasets) > 0 {
				s += " " + texts(a.Datasets)
			}
			acts = append(acts, strings.TrimSpace(s+" "+a.At.Text))
		}
		if !slices.Equal(acts, c.want) {
			t.Errorf("%s: timeline %q, want %q\n%s", c.name, acts, c.want, cp.YAML)
		}
	}
}
