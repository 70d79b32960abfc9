package profile

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
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
	for _, w := range []struct {
		flushes int64
		flush   string
	}{{4, "flush f []"}, {2, "flush f end []"}} {
		h5f(w.flushes)
		c, err := Capture(p, "hand")
		if err != nil {
			t.Fatal(err)
		}
		checked(t, c)
		d := c.Desc
		if len(d.Files) != 1 || d.Files[0].Name.Text != "f.h5" || !slices.ContainsFunc(c.Unexpressed, func(u string) bool { return strings.HasPrefix(u, "in.h5: an input the program read but did not write") }) {
			t.Errorf("the input file is in the description, or not listed (%q):\n%s", c.Unexpressed, c.YAML)
		}
		f := fileOf(t, d, "f")
		for _, x := range []struct{ ds, shape, decomp, independent string }{
			{"t", "[]", "{kind: rank0}", "true"},
			{"both", "[]", "{kind: replicated}", ""},
			{"m", "[4]", "{kind: rank0, select: hyperslab}", "true"}, // selected, not H5S_ALL
			{"a", "[4 * nranks]", "{kind: block}", ""},
		} {
			ds := datasetOf(t, f, "/step_${step}/"+x.ds)
			if texts(ds.Shape) != x.shape || decompText(ds.Decompose) != x.decomp || ds.Independent.Text != x.independent || ds.Type.Text != "f64" {
				t.Errorf("%s: type %s shape %s decompose %s independent %q, want f64 %s %s %q", x.ds, ds.Type.Text, texts(ds.Shape), decompText(ds.Decompose), ds.Independent.Text, x.shape, x.decomp, x.independent)
			}
		}
		// one action, the independent datasets marked; the flush
		var acts []string
		for _, a := range d.Timeline {
			verb, id := a.Verb()
			acts = append(acts, strings.Join(strings.Fields(verb+" "+id.Text+" "+a.At.Text+" "+texts(a.Datasets)), " "))
		}
		if want := []string{"write f []", w.flush}; !slices.Equal(acts, want) || d.Steps.Text != "2" {
			t.Errorf("H5F_FLUSHES %d: steps %s, timeline %q, want 2, %q", w.flushes, d.Steps.Text, acts, want)
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
	// h5py's numpy bytes: a NUL-padded string (H5T_STR_NULLPAD), said as pstrN
	padded := attr("H5Awrite", "/", "kind", 3, 4, 0, nil, memOf(3, 4, 0), "61620000") // "ab"
	padded.Attribute = json.RawMessage(strings.Replace(string(padded.Attribute), `"type_str_pad":0`, `"type_str_pad":1`, 1))
	p.Events = []Event{
		padded,
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
	checked(t, d)
	m0 := d.Desc
	f := fileOf(t, m0, "h")
	attrOf := func(as []*desc.Attribute, name string) string {
		for _, a := range as {
			if a.Name == name {
				v := a.Value.Text
				if a.Value.List != nil {
					v = texts(a.Value.List)
				}
				return fmt.Sprintf("%s %s %s%s", a.Type.Text, texts(a.Shape), v, a.Generate.Text)
			}
		}
		return "(none)"
	}
	for _, w := range [][2]string{
		{attrOf(f.Attributes, "title"), "str5 [] hi!"},
		{attrOf(f.Attributes, "kind"), "pstr4 [] ab"},
		{attrOf(f.Attributes, "-DIM_time"), "u64 [] 18446744073709551615"},
		{attrOf(contentAt(t, f, "/g").Attributes, "ne"), "i32 [2] [4, -2]"},
		{attrOf(datasetOf(t, f, "/T").Attributes, "scale"), "f32 [1] [1.5]"},
		{attrOf(datasetOf(t, f, "/area").Attributes, "big"), "f64 [4096] index"},
		{attrOf(contentAt(t, f, "/empty").Attributes, "note"), "i32 [] 7"},
	} {
		if w[0] != w[1] {
			t.Errorf("attribute %q, want %q", w[0], w[1])
		}
	}
	T := datasetOf(t, f, "/T")
	if got := words(T.Type.Text, texts(T.Shape), T.Extend.Text, T.StartEmpty.Text, texts(T.Chunk), T.Fill.Text, T.FillTime.Text, decompText(T.Decompose)); got != "f32 [1, 6] 0 true [1, 6] undefined never {kind: map, file: hand.map.h5, decomp: 1}" || m0.Steps.Text != "2" {
		t.Errorf("T: %s, steps %s", got, m0.Steps.Text)
	}
	area, r0 := datasetOf(t, f, "/area"), datasetOf(t, f, "/r0")
	if decompText(area.Decompose) != decompText(T.Decompose) || texts(area.Shape) != "[6]" || area.Extend.Set {
		t.Errorf("area: shape %s decompose %s extend %q, want [6], T's", texts(area.Shape), decompText(area.Decompose), area.Extend.Text)
	}
	if decompText(r0.Decompose) != "{kind: rank0, select: hyperslab}" {
		t.Errorf("r0: decompose %s", decompText(r0.Decompose))
	}
	var acts []string
	for _, a := range m0.Timeline {
		acts = append(acts, fmt.Sprintf("%s every %q %s", a.Write.Text, a.Every.Text, texts(a.Datasets)))
	}
	if want := []string{`h every "" [T]`, `h every "2" [area, over, r0]`}; !slices.Equal(acts, want) {
		t.Errorf("timeline %q, want %q", acts, want)
	}
	// one decomposition: rank 0 [0,2) and 4, rank 1 [2,4) and 5, as runs of [6]
	m := d.Map
	if m == nil || m.NProcs != 2 || len(m.Decomps) != 1 || !m.Decomps[0].FullyCovered ||
		fmt.Sprint(m.Decomps[0].Offsets, m.Decomps[0].Lengths) != "[[0 4] [2 5]] [[2 1] [2 1]]" {
		t.Errorf("map %+v", m)
	}
	for _, want := range []string{"h /g/over: element 2 is written by two ranks", "h /area attribute big: its value is not in the trace"} {
		if !strings.Contains(d.YAML, "# not expressed: "+want) {
			t.Errorf("no comment at the stand-in's key says %q:\n%s", want, d.YAML)
		}
		if !slices.ContainsFunc(d.Unexpressed, func(u string) bool { return strings.Contains(u, want) }) {
			t.Errorf("unexpressed lacks %q: %q", want, d.Unexpressed)
		}
	}

}

// TestCaptureStandIns: what a description cannot say the way the program did still makes
// a valid description (Capture refuses to return one that does not parse): an empty group
// (H5MD's observables) is an empty map; a file opened without the MPI-IO driver is
// written as a shared file and said so. Compounds are said exactly: members stored out of
// declaration order (FLASH's {int value; char name[80]} with the name inserted first, at
// offset 4) at their offsets (TYPE@N), one with padding with its size too.
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
	checked(t, d)
	types := map[string]string{}
	for _, ty := range d.Desc.Types {
		var ms []string
		for _, m := range ty.Members {
			ms = append(ms, m.Name+" "+m.Type.Text+"@"+m.Offset.Text)
		}
		types[ty.Name] = strings.Join(ms, ", ") + " size " + ty.Size.Text
	}
	f := fileOf(t, d.Desc, "f")
	if want := map[string]string{"scalars": "name str80@4, value i32@0 size ", "padded": "a i32@0, b i32@8 size 16"}; fmt.Sprint(types) != fmt.Sprint(want) ||
		datasetOf(t, f, "/scalars").Type.Text != "scalars" || datasetOf(t, f, "/padded").Type.Text != "padded" {
		t.Errorf("types %v, want %v:\n%s", types, want, d.YAML)
	}
	for _, want := range []string{"observables: {}", "opened without the MPI-IO driver"} {
		if !strings.Contains(d.YAML, want) {
			t.Errorf("no %q in\n%s", want, d.YAML)
		}
	}
}

// TestCaptureMemoryType: a dataset written from a buffer of another size of its class
// (FLASH's single-precision plot files written from doubles: 8 bytes traced per f32
// element) has a memory type, so that HDF5 converts as the program's writes did; one
// written from its own type has none.
func TestCaptureMemoryType(t *testing.T) {
	p := &Profile{Ranks: 2, Traced: true, Calls: map[string]Call{}}
	for _, name := range []string{"/dens", "/same"} {
		p.Records = append(p.Records, Record{Module: "H5D", File: "/x/plt.h5", Name: name, Rank: -1,
			Info: json.RawMessage(`{"dims":[2,8],"maxdims":[2,8],"layout":1,"type_class":1,"type_size":4}`)})
	}
	for r := range 2 {
		sel := json.RawMessage(fmt.Sprintf(`{"start":[%d,0],"count":[1,8]}`, r))
		p.Events = append(p.Events,
			Event{Rank: r, Module: "H5D", Call: "H5Dwrite", File: "/x/plt.h5", Name: "/dens", Collective: true, Selection: sel, Length: 64},
			Event{Rank: r, Module: "H5D", Call: "H5Dwrite", File: "/x/plt.h5", Name: "/same", Collective: true, Selection: sel, Length: 32})
	}
	c, err := Capture(p, "mem")
	if err != nil {
		t.Fatal(err)
	}
	checked(t, c)
	f := fileOf(t, c.Desc, "plt")
	if dens, same := datasetOf(t, f, "/dens"), datasetOf(t, f, "/same"); dens.Memory.Type.Text != "f64" || same.Memory.Type.Set || texts(dens.Shape) != "[1 * nranks, 8]" {
		t.Errorf("dens: memory %q shape %s, same: memory %q; want f64, [1 * nranks, 8], none", dens.Memory.Type.Text, texts(dens.Shape), same.Memory.Type.Text)
	}
}

// TestCaptureHints: the MPI-IO hints of the files' access lists are the description's
// when every file that has some has the same, else each file's own (files.ID.hints).
func TestCaptureHints(t *testing.T) {
	trace := func(hints ...string) *Profile {
		p := &Profile{Ranks: 1, Traced: true, Calls: map[string]Call{}}
		for i, h := range hints {
			file := fmt.Sprintf("/x/%s.h5", []string{"a", "b"}[i])
			p.Records = append(p.Records,
				Record{Module: "H5F", File: file, Rank: -1, Counters: map[string]int64{"H5F_USE_MPIIO": 1}, Info: json.RawMessage(`{"hints":` + h + `}`)},
				Record{Module: "H5D", File: file, Name: "/x", Rank: -1, Info: json.RawMessage(`{"dims":[4],"maxdims":[4],"layout":1,"type_class":1,"type_size":8}`)})
			p.Events = append(p.Events, Event{Rank: 0, Module: "H5D", Call: "H5Dwrite", File: file, Name: "/x", Collective: true})
		}
		return p
	}
	params := func(ps []desc.Param) string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name+"="+p.Value.Text)
		}
		return strings.Join(out, " ")
	}
	same, err := Capture(trace(`{"cb_buffer_size":"4194304","romio_cb_write":"enable"}`, `{"romio_cb_write":"enable","cb_buffer_size":"4194304"}`), "h")
	if err != nil {
		t.Fatal(err)
	}
	checked(t, same)
	if got := params(same.Desc.Hints); got != "cb_buffer_size=4194304 romio_cb_write=enable" || len(same.Desc.Files[0].Hints) != 0 {
		t.Errorf("the same hints: description's %q, a.h5's %d", got, len(same.Desc.Files[0].Hints))
	}
	own, err := Capture(trace(`{"access_style":"write_once"}`, `{"romio_cb_write":"disable"}`), "h")
	if err != nil {
		t.Fatal(err)
	}
	checked(t, own)
	if a, b := params(fileOf(t, own.Desc, "a").Hints), params(fileOf(t, own.Desc, "b").Hints); len(own.Desc.Hints) != 0 || a != "access_style=write_once" || b != "romio_cb_write=disable" || len(own.Unexpressed) != 0 {
		t.Errorf("each file's own: description's %d, a %q, b %q, unexpressed %q", len(own.Desc.Hints), a, b, own.Unexpressed)
	}
}
