package log

import (
	"errors"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// FuzzIndexDecoder decodes metadata-log streams (the bytes a reader takes from the
// file's metadata logs) and resolves a whole-dataset read against every decoded record:
// no input may panic, a corrupt stream is an errIndex error naming its offset, and a
// record that does not fit the dataset is an error naming the record.
func FuzzIndexDecoder(f *testing.F) {
	var stream []byte
	for _, e := range []*logEntry{
		{path: "/a", offset: 0, size: 48, sel: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{0, 0}, []uint64{2, 3})}}},
		{path: "/a", offset: 48, size: 32, sel: plan.Selection{Blocks: []plan.Hyperslab{{Start: []uint64{1, 0}, Stride: []uint64{2, 1},
			Count: []uint64{2, 1}, Block: []uint64{1, 2}}}}},
		{path: "/s", members: []string{"x", "y"}, offset: 80, size: 8, sel: plan.All(nil)},
		{path: "/a", ref: 2, offset: 88, size: 48},
	} {
		if e.ref > 0 {
			e.sel = plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{0, 0}, []uint64{2, 3})}}
		}
		stream = e.encode(stream)
	}
	f.Add(stream)
	f.Add(stream[:17])
	f.Add([]byte{4, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := decodeEntries(b, 1)
		if err != nil {
			if !errors.Is(err, errIndex) || !strings.Contains(err.Error(), "offset") {
				t.Fatalf("%x: error %v is not a corrupt-index error naming an offset", b, err)
			}
			return
		}
		for i, e := range entries {
			if e.log != 1 {
				t.Fatalf("entry %d: log %d", i, e.log)
			}
			shape := make([]uint64, e.ndim())
			for d := range shape {
				shape[d] = 7
			}
			pieces, err := resolve(plan.All(shape), shape, []*logEntry{e})
			if err != nil {
				if !strings.Contains(err.Error(), e.path) {
					t.Fatalf("entry %d: error %v does not name the record", i, err)
				}
				continue
			}
			var n uint64
			for _, p := range pieces {
				n += p.n
			}
			if want := e.sel.NPoints(shape); n > want || n > plan.Product(shape) {
				t.Fatalf("entry %d: %d elements resolved from a selection of %d", i, n, want)
			}
		}
	})
}
