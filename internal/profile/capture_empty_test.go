package profile

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCaptureEmptyCalls folds a hand-made trace of 2 ranks where rank 0 writes a
// dataset independently and rank 1 calls H5Dwrite with nothing selected, as PETSc's
// VecView does on a rank owning no element: rank0 with empty_calls: true, and nothing
// listed as not expressed; when rank 1 makes no call, no empty_calls.
func TestCaptureEmptyCalls(t *testing.T) {
	info, _ := json.Marshal(map[string]any{"dims": []int64{4}, "maxdims": []int64{4}, "layout": 1, "type_class": 1, "type_size": 8})
	for _, c := range []struct {
		name  string
		rank1 string // rank 1's selection, "" for no call
		want  string
	}{{"none selected", `{"none":true}`, "true"}, {"zero count", `{"start":[0],"count":[0]}`, "true"}, {"no call", "", ""}} {
		p := &Profile{Ranks: 2, Traced: true, Calls: map[string]Call{}}
		p.Records = append(p.Records, Record{Module: "H5D", File: "/x/f.h5", Name: "/t", Rank: -1, Info: info},
			Record{Module: "H5F", File: "/x/f.h5", Rank: -1, Counters: map[string]int64{"H5F_USE_MPIIO": 1}})
		for range 2 { // 2 steps
			p.Events = append(p.Events, Event{Rank: 0, Module: "H5D", Call: "H5Dwrite", File: "/x/f.h5", Name: "/t", Selection: json.RawMessage(`{"start":[0],"count":[4]}`)})
			if c.rank1 != "" {
				p.Events = append(p.Events, Event{Rank: 1, Module: "H5D", Call: "H5Dwrite", File: "/x/f.h5", Name: "/t", Selection: json.RawMessage(c.rank1)})
			}
		}
		cp, err := Capture(p, "hand")
		if err != nil {
			t.Fatal(err)
		}
		checked(t, cp)
		ds := datasetOf(t, fileOf(t, cp.Desc, "f"), "/t")
		if ds.EmptyCalls.Text != c.want || decompText(ds.Decompose) != "{kind: rank0, select: hyperslab}" {
			t.Errorf("%s: empty_calls %q decompose %s, want %q rank0\n%s", c.name, ds.EmptyCalls.Text, decompText(ds.Decompose), c.want, cp.YAML)
		}
		for _, u := range cp.Unexpressed {
			if strings.Contains(u, "nothing selected") {
				t.Errorf("%s: listed as not expressed: %s", c.name, u)
			}
		}
	}
}
