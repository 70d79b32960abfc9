package proxy

import (
	"bytes"
	"testing"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/patterns"
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

// TestBufferRefills: a write buffer is filled once per step and place in a phase (with
// fill=once, once per place in the phase) and refilled when the step, the place or the
// phase changes, each time with that transfer's values; its memory is kept throughout.
func TestBufferRefills(t *testing.T) {
	s := &Session{}
	defer func() {
		for _, b := range s.bufs {
			b.mem.Free()
		}
	}()
	at := func(start uint64, step int) *plan.Op {
		return &plan.Op{Kind: plan.Write, Step: step, Transfer: &plan.Transfer{Variable: "x", Buffer: "b", MemType: plan.F32, MemShape: []uint64{4},
			FileType: plan.F32, FileShape: []uint64{8}, Selection: plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{start}, []uint64{4})}}}}
	}
	// want is what op's fill writes: the values of its elements' global indices.
	want := func(op *plan.Op) []byte {
		tr := op.Transfer
		w := make([]byte, 16)
		l := &emulate.Layout{Elem: 4, Fields: emulate.Fields(tr.MemType, tr.Variable), Runs: tr.Selection.Runs(tr.FileShape)}
		if err := emulate.Fill(s.phase.fill, w, l, s.cfg.Seed, op.Step, 0); err != nil {
			t.Fatal(err)
		}
		return w
	}
	var held []byte // the buffer's bytes before the last write, scribbled over
	var mem *byte
	write := func(what string, op *plan.Op, refill bool) {
		t.Helper()
		var smp sample
		buf, err := s.buffer(op, &smp)
		if err != nil {
			t.Fatal(err)
		}
		if mem != nil && &buf[0] != mem {
			t.Errorf("%s: the buffer moved", what)
		}
		mem = &buf[0]
		if refill && !bytes.Equal(buf, want(op)) {
			t.Errorf("%s: holds %v, want a refill with %v", what, buf, want(op))
		}
		if !refill && !bytes.Equal(buf, held) {
			t.Errorf("%s: holds %v, want it kept as %v", what, buf, held)
		}
		buf[0] ^= 0xff // only a refill undoes it
		held = bytes.Clone(buf)
	}
	phase := func(fill emulate.FillKind) { s.phase = &phaseRun{ph: patterns.PhaseWrite, fill: fill} }
	phase(emulate.Seeded)
	x4 := at(4, 0)
	write("first write", x4, true)
	write("the same transfer again", x4, false)
	write("the same place, another transfer", at(4, 0), false)
	write("another place", at(0, 0), true)
	write("the first place again", x4, true)
	x4s1 := at(4, 1)
	write("the next step", x4s1, true)
	phase(emulate.Seeded)
	write("the same transfer in the next phase", x4s1, true)
	phase(emulate.Once)
	write("fill=once: first write", x4, true)
	write("fill=once: a later step", at(4, 2), false)
	write("fill=once: another place", at(0, 2), true)
}
