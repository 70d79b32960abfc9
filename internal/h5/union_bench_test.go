//go:build cgo && linux

package h5

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/plan"
)

// BenchmarkUnionWrite writes a union of n single-element hyperslabs (every other element,
// so none merge), the shape of E3SM's canonical writes and of subfiling masters: HDF5 1.10
// builds such a union in time quadratic in n. Run it with
//
//	go test -run '^$' -bench UnionWrite -benchtime 1x ./internal/h5
func BenchmarkUnionWrite(b *testing.B) {
	for _, n := range []int{2000, 4000, 8000} {
		b.Run(fmt.Sprintf("blocks=%d", n), func(b *testing.B) {
			f := must(CreateFile(filepath.Join(b.TempDir(), "u.h5"), Access{}))
			defer CloseFile(f)
			d := must(CreateDataset(f, "/x", plan.DatasetSpec{Type: plan.U8, Shape: []uint64{uint64(2 * n)}}))
			defer CloseDataset(d)
			sel := plan.Selection{Blocks: make([]plan.Hyperslab, n)}
			for i := range sel.Blocks {
				sel.Blocks[i] = plan.Hyperslab{Start: []uint64{uint64(2 * i)}, Count: []uint64{1}}
			}
			t := &plan.Transfer{MemType: plan.U8, MemShape: []uint64{uint64(n)}, FileShape: []uint64{uint64(2 * n)}, Selection: sel}
			buf := make([]byte, n)
			b.ResetTimer()
			for range b.N {
				if err := Write(d, t, false, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
