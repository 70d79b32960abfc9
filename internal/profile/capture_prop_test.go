package profile

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"path"
	"strings"
	"testing"
)

// genTrace makes a random traced profile of the shapes capture folds: 1 to 4 ranks, one
// or two files, datasets of 0 to 3 dimensions in the root, a group or a group per step,
// of integer, float, string and compound types (packed, or at explicit offsets with
// padding), each written by the ranks in one of the
// ways programs do (rank 0 alone, whole or by hyperslab; every rank all of it; blocks
// along any one dimension, a record dimension of 1 included; uneven 1-D counts; rank 0's
// share with the other ranks' selections empty), attributes with values, and a restart
// read. dims holds each dataset's traced extent by file and path.
func genTrace(r *rand.Rand) (p *Profile, dims map[string][]int64) {
	nranks := 1 + r.Intn(4)
	steps := 1 + r.Intn(3)
	p = &Profile{Ranks: nranks, Traced: true, Calls: map[string]Call{}}
	dims = map[string][]int64{}
	types := []map[string]any{
		{"type_class": 0, "type_size": 4, "type_sign": 1}, {"type_class": 0, "type_size": 1, "type_sign": 0},
		{"type_class": 1, "type_size": 8}, {"type_class": 1, "type_size": 4}, {"type_class": 3, "type_size": 8},
		{"type_class": 6, "type_size": 16, "type_members": [][]any{{"a", 0, 4, 1, 0}, {"b", 1, 8, -1, 8}}},
		{"type_class": 6, "type_size": 24, "type_members": [][]any{{"name", 3, 6, -1, 8}, {"v", 1, 8, -1, 0}}}, // at offsets, padded
	}
	ev := func(rank int, file, name string, sel any) Event {
		var raw json.RawMessage
		if sel != nil {
			raw, _ = json.Marshal(sel)
		}
		return Event{Rank: rank, Module: "H5D", Call: "H5Dwrite", File: file, Name: name, Collective: true, Selection: raw}
	}
	attr := func(file, obj, name string, class, size, sign int, n int, value []byte) Event {
		a := map[string]any{"object": obj, "name": name, "type_class": class, "type_size": size, "type_sign": sign,
			"type_str_pad": 0, "type_cset": 0, "mem_class": class, "mem_size": size, "mem_sign": sign, "value": fmt.Sprintf("%x", value)}
		if n > 1 {
			a["dims"] = []int64{int64(n)}
		}
		b, _ := json.Marshal(a)
		return Event{Rank: 0, Module: "H5F", Call: "H5Awrite", File: file, Attribute: b}
	}
	for f := range 1 + r.Intn(2) {
		file := fmt.Sprintf("/run/%s.h5", []string{"hist", "restart"}[f]) // no family of files
		p.Records = append(p.Records, Record{Module: "H5F", File: file, Rank: -1, Counters: map[string]int64{"H5F_USE_MPIIO": 1}})
		p.Events = append(p.Events, attr(file, "/", "title", 3, 6, 0, 1, []byte("run\x00\x00\x00")))
		stepped := steps > 1 && r.Intn(2) == 0
		for k := range 1 + r.Intn(4) {
			nd := r.Intn(4)
			ext := make([]int64, nd)
			for i := range ext {
				ext[i] = int64(1 + r.Intn(4))
			}
			way := r.Intn(5) // 0 rank0, 1 replicated, 2 block along a dimension, 3 uneven, 4 rank 0's share, others empty
			split := 0
			switch {
			case nd == 0 && way > 1:
				way = r.Intn(2)
			case way == 2:
				split = r.Intn(nd)
				ext[split] *= int64(nranks)
			case way == 3 && nd != 1:
				way = 4
			case way == 3:
				ext[0] = int64(nranks*(nranks+1)/2) + 1 // rank r writes r+1, the last one more
			}
			grp := []string{"", "/g"}[r.Intn(2)]
			info := map[string]any{"dims": ext, "maxdims": ext, "layout": 1}
			for kk, v := range types[r.Intn(len(types))] {
				info[kk] = v
			}
			rec, _ := json.Marshal(info)
			for s := range steps {
				dir := grp
				if stepped {
					dir = fmt.Sprintf("/step_%d", s)
				}
				name := fmt.Sprintf("%s/d%d", dir, k)
				if s == 0 || stepped {
					p.Records = append(p.Records, Record{Module: "H5D", File: file, Name: name, Rank: -1, Info: rec})
					dims[file+" "+strings.Replace(name, fmt.Sprintf("step_%d", s), "step_${step}", 1)] = ext
				}
				if s > 0 && !stepped {
					continue
				}
				if s == 0 && k == 0 {
					p.Events = append(p.Events, attr(file, name, "scale", 1, 8, 0, 2, make([]byte, 16)))
				}
				start, count := make([]int64, nd), make([]int64, nd)
				for rank := range nranks {
					copy(count, ext)
					for i := range start {
						start[i] = 0
					}
					switch way {
					case 0:
						if rank == 0 {
							p.Events = append(p.Events, ev(0, file, name, nil))
						}
					case 1:
						p.Events = append(p.Events, ev(rank, file, name, nil))
					case 2:
						count[split] = ext[split] / int64(nranks)
						start[split] = int64(rank) * count[split]
						p.Events = append(p.Events, ev(rank, file, name, map[string]any{"start": start, "count": count}))
					case 3:
						count[0] = int64(rank + 1)
						start[0] = int64(rank * (rank + 1) / 2)
						if rank == nranks-1 {
							count[0]++
						}
						p.Events = append(p.Events, ev(rank, file, name, map[string]any{"start": start, "count": count}))
					case 4:
						if rank > 0 && nd > 0 {
							count[0] = 0
						}
						if rank == 0 || nd > 0 {
							p.Events = append(p.Events, ev(rank, file, name, map[string]any{"start": start, "count": count}))
						}
					}
				}
			}
		}
		if r.Intn(3) == 0 {
			for rank := range nranks {
				p.Events = append(p.Events, Event{Rank: rank, Module: "H5D", Call: "H5Dread", File: file, Name: p.Records[len(p.Records)-1].Name})
			}
		}
	}
	return p, dims
}

// TestCaptureProperty captures 300 random traces (genTrace): each description passes
// check at 1, 2 and 4 ranks and its model round-trips through the writer and the parser
// (checked), and each dataset's shape, evaluated at the traced rank count, is the extent
// the program wrote.
func TestCaptureProperty(t *testing.T) {
	r := rand.New(rand.NewSource(33))
	for i := range 300 {
		p, dims := genTrace(r)
		c, err := Capture(p, "prop")
		if err != nil {
			t.Fatalf("trace %d: %v", i, err)
		}
		ok := t.Run(fmt.Sprint(i), func(t *testing.T) {
			checked(t, c)
			sc, err := c.Desc.Scope(p.Ranks, 0)
			if err != nil {
				t.Fatal(err)
			}
			for key, ext := range dims {
				file, dpath, _ := strings.Cut(key, " ")
				f := fileOf(t, c.Desc, strings.TrimSuffix(path.Base(file), ".h5"))
				ds := datasetOf(t, f, dpath)
				if len(ds.Shape) == 1 && ds.Shape[0].Text == "auto" { // uneven: the counts' sum
					continue
				}
				var got []int64
				for _, v := range ds.Shape {
					n, err := sc.Int(v)
					if err != nil {
						t.Fatalf("%s: shape %s: %v", key, texts(ds.Shape), err)
					}
					got = append(got, int64(n))
				}
				if fmt.Sprint(got) != fmt.Sprint(ext) {
					t.Errorf("%s: shape %s is %v at %d ranks, the program's %v:\n%s", key, texts(ds.Shape), got, p.Ranks, ext, c.YAML)
				}
			}
		})
		if !ok {
			break
		}
	}
}
