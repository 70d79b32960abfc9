package profile

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
)

// lammpsTrace is a traced profile shaped as h5md_lammps's (examples/corpus: LAMMPS's H5MD
// dumps through ch5md) at 1 rank: six time series created empty, each grown by an
// H5Dset_extent and written by an H5Dwrite (and a pwrite) per dump.
func lammpsTrace(dumps int) *Profile {
	const file = "/run/dump.h5"
	series := []struct {
		name string
		row  []int64 // a row's dims after the first
		size int64
	}{{"/particles/all/position/step", nil, 4}, {"/particles/all/position/time", nil, 8},
		{"/particles/all/position/value", []int64{8, 3}, 8}, {"/particles/all/box/edges/value", []int64{3}, 8},
		{"/particles/all/image/value", []int64{8, 3}, 4}, {"/particles/all/velocity/value", []int64{8, 3}, 8}}
	p := &Profile{SchemaVersion: SchemaVersion, Command: []string{"h5md_lammps", strconv.Itoa(dumps)}, Ranks: 1, Traced: true,
		Calls:   map[string]Call{},
		Records: []Record{{Module: "H5F", File: file, Counters: map[string]int64{"H5F_OPENS": 1}, Info: json.RawMessage(`{"driver":"other","libver":[0,2]}`)}}}
	t := 0.0
	ev := func(e Event) {
		e.File, e.Start, e.End, t = file, t, t+1e-6, t+2e-6
		if e.Offset == 0 && e.Module != "POSIX" {
			e.Offset = -1
		}
		p.Events = append(p.Events, e)
	}
	ev(Event{Module: "H5F", Call: "H5Fcreate", FAPL: &FAPL{Driver: "other"}})
	for _, s := range series {
		dims, maxdims, chunk := append([]int64{0}, s.row...), append([]int64{-1}, s.row...), append([]int64{1}, s.row...)
		info, _ := json.Marshal(map[string]any{"type_class": 1, "type_size": s.size, "layout": 2, "dims": dims, "maxdims": maxdims, "chunk": chunk})
		p.Records = append(p.Records, Record{Module: "H5D", File: file, Name: s.name, Counters: map[string]int64{"H5D_WRITES": int64(dumps)}, Info: info})
		ev(Event{Module: "H5D", Call: "H5Dcreate2", Name: s.name})
	}
	offset := int64(4096)
	for d := 0; d < dumps; d++ {
		for _, s := range series {
			n, start, count := s.size, []int64{int64(d)}, []int64{1}
			for _, r := range s.row {
				n *= r
				start, count = append(start, 0), append(count, r)
			}
			sel, _ := json.Marshal(map[string][]int64{"start": start, "count": count})
			ev(Event{Module: "H5D", Call: "H5Dset_extent", Name: s.name, Extent: append([]int64{int64(d + 1)}, s.row...)})
			ev(Event{Module: "H5D", Call: "H5Dwrite", Name: s.name, Length: n, Selection: sel})
			ev(Event{Module: "POSIX", Call: "pwrite", Offset: offset, Length: n})
			offset += n
		}
	}
	ev(Event{Module: "H5F", Call: "H5Fclose"})
	return p
}

// BenchmarkFold loads and folds lammpsTrace's profile (written by WriteJSON) as
// `h5proxy capture -from` does, at 840 and 8400 dumps (15,000 and 151,000 events): the
// fold alone, to profile without mpicc or a traced run:
//
//	go test -run XXX -bench Fold -cpuprofile cpu.out ./internal/profile
//
// bench/capture times the command itself on a real trace (docs/apps.md).
func BenchmarkFold(b *testing.B) {
	for _, dumps := range []int{840, 8400} {
		b.Run(fmt.Sprintf("dumps=%d", dumps), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "trace.json")
			if err := lammpsTrace(dumps).WriteJSON(path); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				p, err := Load(path)
				if err != nil {
					b.Fatal(err)
				}
				c, err := Capture(p, "h5md_lammps")
				if err != nil {
					b.Fatal(err)
				}
				if c.Desc.Steps.Text != strconv.Itoa(dumps) {
					b.Fatalf("%d dumps folded into %s steps:\n%s", dumps, c.Desc.Steps.Text, c.YAML)
				}
			}
		})
	}
}
