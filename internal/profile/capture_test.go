package profile

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestCaptureScalarsAndModes folds a hand-made trace of 2 ranks: a scalar written by rank
// 0 alone becomes rank0, one written by both replicated (a scalar has no block); datasets
// written collectively and others written independently by rank 0 become one write action,
// the latter independent: true; a flush by every rank at every step becomes a flush per
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
			"          t:\n            type: f64\n            shape: []\n            decompose: rank0\n            independent: true   #",
			"          both:\n            type: f64\n            shape: []\n            decompose: replicated\n",
			"          m:\n            type: f64\n            shape: [4]\n            decompose: {kind: rank0, select: hyperslab}\n            independent: true   #", // selected, not H5S_ALL
			"timeline:\n  - write: f\n" + c.flush, // one action: the independent datasets marked
		} {
			if !strings.Contains(d.YAML, want) {
				t.Errorf("H5F_FLUSHES %d: description lacks\n%s\n---\n%s", c.flushes, want, d.YAML)
			}
		}
	}
}

// TestCaptureSeriesUnionsAttributes folds a hand-made trace of 2 ranks in E3SM-IO's shape:
// a record variable created empty and extended before each of its 2 writes (a series:
// shape one record, extend, start_empty, 2 steps), a fixed variable written once (at the
// first step alone), both written as unions of hyperslabs that fold into one
// decomposition of the map file (shared: the same runs), a rank with nothing to write
// (none), attributes of the file, a group and a dataset with their values (a string, an
// i32 array, an f32, H5S_UNLIMITED as u64) and fill properties; a union two ranks overlap
// is not a map, and says so.
func TestCaptureSeriesUnionsAttributes(t *testing.T) {
	info := func(dims, maxdims []int64, layout int) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"dims": dims, "maxdims": maxdims, "layout": layout, "chunk": []int64{1, 6},
			"type_class": 1, "type_size": 4, "fill_time": 1, "fill_defined": 0})
		return b
	}
	p := &Profile{Ranks: 2, Traced: true, Calls: map[string]Call{}}
	p.Records = []Record{
		{Module: "H5D", File: "/x/h.h5", Name: "/T", Rank: -1, Info: info([]int64{0, 6}, []int64{-1, 6}, 2)},
		{Module: "H5D", File: "/x/h.h5", Name: "/area", Rank: -1, Info: info([]int64{6}, []int64{6}, 1)},
		{Module: "H5D", File: "/x/h.h5", Name: "/g/over", Rank: -1, Info: info([]int64{6}, []int64{6}, 1)},
		{Module: "H5D", File: "/x/h.h5", Name: "/r0", Rank: -1, Info: info([]int64{6}, []int64{6}, 1)},
		{Module: "H5F", File: "/x/h.h5", Rank: -1, Counters: map[string]int64{"H5F_USE_MPIIO": 1}},
	}
	blocks := func(bl ...[]int64) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"nblocks": len(bl), "blocks_hash": fmt.Sprint(len(bl)), "blocks": bl})
		return b
	}

	ev := func(rank int, call, name string, sel json.RawMessage) Event {
		return Event{Rank: rank, Module: "H5D", Call: call, File: "/x/h.h5", Name: name, Collective: true, Selection: sel}
	}
	attr := func(call, obj, name string, class, size, sign int, dims []int64, mem string, value string) Event {
		a := fmt.Sprintf(`{"object":%q,"name":%q,"type_class":%d,"type_size":%d,"type_sign":%d,"type_str_pad":0,"type_cset":0,"dims":%s%s`,
			obj, name, class, size, sign, strings.Join(strings.Fields(fmt.Sprint(dims)), ","), mem)
		if value != "" {
			a += `,"value":"` + value + `"`
		}
		return Event{Rank: 0, Module: "H5F", Call: call, File: "/x/h.h5", Attribute: json.RawMessage(a + "}")}
	}
	memOf := func(class, size, sign int) string {
		return fmt.Sprintf(`,"mem_class":%d,"mem_size":%d,"mem_sign":%d`, class, size, sign)
	}
	p.Events = []Event{
		attr("H5Acreate2", "/", "title", 3, 5, 0, nil, "", ""),
		attr("H5Awrite", "/", "title", 3, 5, 0, nil, memOf(3, 5, 0), "6869210000"),            // "hi!"
		attr("H5Awrite", "/", "-DIM_time", 0, 8, 0, nil, memOf(0, 8, 0), "ffffffffffffffff"),  // H5S_UNLIMITED
		attr("H5Awrite", "/g", "ne", 0, 4, 1, []int64{2}, memOf(0, 4, 1), "04000000feffffff"), // [4, -2]
		attr("H5Awrite", "/T", "scale", 1, 4, 0, []int64{1}, memOf(1, 4, 0), "0000c03f"),      // 1.5
		attr("H5Acreate2", "/area", "big", 1, 8, 0, []int64{4096}, "", ""),                    // never written
		attr("H5Awrite", "/empty", "note", 0, 4, 1, nil, memOf(0, 4, 1), "07000000"),          // a group without datasets
		{Rank: 0, Module: "H5D", Call: "H5Dset_extent", File: "/x/h.h5", Name: "/T", Extent: []int64{1, 6}},
		ev(0, "H5Dwrite", "/T", blocks([]int64{0, 0, 0, 1}, []int64{0, 4, 0, 4})), ev(1, "H5Dwrite", "/T", blocks([]int64{0, 2, 0, 3}, []int64{0, 5, 0, 5})),
		ev(0, "H5Dwrite", "/area", blocks([]int64{0, 1}, []int64{4, 4})), ev(1, "H5Dwrite", "/area", blocks([]int64{2, 3}, []int64{5, 5})),
		ev(0, "H5Dwrite", "/g/over", blocks([]int64{0, 3}, []int64{5, 5})), ev(1, "H5Dwrite", "/g/over", blocks([]int64{2, 5})),
		ev(0, "H5Dwrite", "/r0", json.RawMessage(`{"start":[0],"count":[1],"block":[6]}`)), ev(1, "H5Dwrite", "/r0", json.RawMessage(`{"none":true}`)),
		{Rank: 0, Module: "H5D", Call: "H5Dset_extent", File: "/x/h.h5", Name: "/T", Extent: []int64{2, 6}},
		ev(0, "H5Dwrite", "/T", blocks([]int64{1, 0, 1, 1}, []int64{1, 4, 1, 4})), ev(1, "H5Dwrite", "/T", blocks([]int64{1, 2, 1, 3}, []int64{1, 5, 1, 5})),
	}
	d, err := Capture(p, "hand")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"steps: 2\n",
		"    attributes:\n      title: {type: str5, value: \"hi!\"}\n      \"-DIM_time\": {type: u64, value: 18446744073709551615}\n",
		"      T:\n        type: f32\n        shape: [1, 6]\n        extend: 0   # unlimited along it\n        start_empty: true   # created with 0 along it, extended before each write\n        chunk: [1, 6]\n        fill: undefined\n        fill_time: never\n        decompose: {kind: map, file: hand.map.h5, decomp: 1}\n        attributes:\n          scale: {type: f32, shape: [1], value: [1.5]}\n",
		"      area:\n        type: f32\n        shape: [6]\n        fill: undefined\n        fill_time: never\n        decompose: {kind: map, file: hand.map.h5, decomp: 1}\n        attributes:\n          big: {type: f64, shape: [4096], generate: index}\n",
		"          ne: {type: i32, shape: [2], value: [4, -2]}\n",
		"      r0:\n        type: f32\n        shape: [6]\n        fill: undefined\n        fill_time: never\n        decompose: {kind: rank0, select: hyperslab}\n",
		"  - write: h\n    datasets: [T]\n  - write: h\n    every: 2   # the first step alone\n    datasets: [area, over, r0]\n",
	} {
		if !strings.Contains(d.YAML, want) {
			t.Errorf("description lacks\n%s\n---\n%s", want, d.YAML)
		}
	}
	// one decomposition: rank 0 [0,2) and 4, rank 1 [2,4) and 5, as runs of [6]
	m := d.Map
	if m == nil || m.NProcs != 2 || len(m.Decomps) != 1 || !m.Decomps[0].FullyCovered ||
		fmt.Sprint(m.Decomps[0].Offsets, m.Decomps[0].Lengths) != "[[0 4] [2 5]] [[2 1] [2 1]]" {
		t.Errorf("map %+v", m)
	}
	for _, want := range []string{"h /g/over: element 2 is written by two ranks", "h /area attribute big: its value is not in the trace"} {
		if !slices.ContainsFunc(d.Unexpressed, func(u string) bool { return strings.Contains(u, want) }) {
			t.Errorf("unexpressed lacks %q: %q", want, d.Unexpressed)
		}
	}

}

// TestCaptureStandIns: what a description cannot say the way the program did still makes
// a valid description (Capture refuses to return one that does not parse): an empty group
// (H5MD's observables) is an empty map; a compound whose members are stored out of
// declaration order (FLASH's {int value; char name[80]} with the name at offset 4) is
// declared in offset order; one whose members leave padding is a string of its size; a
// file opened without the MPI-IO driver is written as a shared file and said so.
func TestCaptureStandIns(t *testing.T) {
	info := func(class, size int, members ...[]any) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"dims": []int64{4}, "maxdims": []int64{4}, "layout": 1, "type_class": class, "type_size": size, "type_members": members})
		return b
	}
	p := &Profile{Ranks: 1, Traced: true, Calls: map[string]Call{}}
	p.Records = append(p.Records,
		Record{Module: "H5D", File: "/x/f.h5", Name: "/scalars", Rank: -1, Info: info(6, 84, []any{"name", 3, 80, -1, 4}, []any{"value", 0, 4, 1, 0})},
		Record{Module: "H5D", File: "/x/f.h5", Name: "/padded", Rank: -1, Info: info(6, 16, []any{"a", 0, 4, 1, 0}, []any{"b", 0, 4, 1, 8})},
		Record{Module: "H5F", File: "/x/f.h5", Rank: -1, Counters: map[string]int64{"H5F_USE_MPIIO": 0}})
	p.Events = append(p.Events,
		Event{Rank: 0, Module: "H5G", Call: "H5Gcreate2", File: "/x/f.h5", Object: "/observables"},
		Event{Rank: 0, Module: "H5D", Call: "H5Dwrite", File: "/x/f.h5", Name: "/scalars", Collective: true},
		Event{Rank: 0, Module: "H5D", Call: "H5Dwrite", File: "/x/f.h5", Name: "/padded", Collective: true})
	d, err := Capture(p, "standins")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"observables: {}", "scalars: {value: i32, name: str80}", "type: str16",
		"compound members stored out of declaration order", "written as str16, the same size", "opened without the MPI-IO driver"} {
		if !strings.Contains(d.YAML, want) {
			t.Errorf("no %q in\n%s", want, d.YAML)
		}
	}
}
