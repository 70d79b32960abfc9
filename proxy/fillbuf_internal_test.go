package proxy

import (
	"testing"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/plan"
)

// TestFilledBufferHoldsSharedData: writes of one step that share explicit contents (one
// slice, h5perf's buffer written to every place) fill their buffer once whatever their
// selections; other contents, other steps or seeded data at other places refill it.
func TestFilledBufferHoldsSharedData(t *testing.T) {
	data, other := make([]byte, 4), make([]byte, 4)
	at := func(start uint64, d []byte) *plan.Op {
		return &plan.Op{Kind: plan.Write, Step: 3, Transfer: &plan.Transfer{Variable: "x", Buffer: "b", MemType: plan.U8, MemShape: []uint64{4},
			FileType: plan.U8, FileShape: []uint64{16}, Selection: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{start}, []uint64{4})}}, Data: d}}
	}
	f := filledBuf{step: 3, t: at(0, data).Transfer}
	if !f.holds(at(8, data), emulate.Seeded) {
		t.Error("the step's next write of the same bytes elsewhere refills the buffer")
	}
	if f.holds(at(8, other), emulate.Seeded) || f.holds(at(8, data[:2]), emulate.Seeded) {
		t.Error("other bytes are taken as filled")
	}
	if next := at(0, data); next.Step == 3 {
		next.Step = 4
		if f.holds(next, emulate.Seeded) {
			t.Error("a later step's write is taken as filled")
		}
	}
	seeded := filledBuf{step: 3, t: at(0, nil).Transfer}
	if seeded.holds(at(8, nil), emulate.Seeded) || !seeded.holds(at(0, nil), emulate.Seeded) {
		t.Error("seeded data: refill for another place, not for the same")
	}
}
