package proxy

// The data a step moves: named buffers, their fills, memory layouts and memory selections.

import (
	"slices"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/plan"
)

// sessionBuf is a named buffer of the session (Session.bufs): its memory and, for a
// write buffer, the data it holds. A write looks it up once (buffer).
type sessionBuf struct {
	mem *emulate.Buffer
	// filled is what the buffer holds if filled by phase (a buffer filled in an earlier
	// phase holds nothing a write relies on).
	phase  *phaseRun
	filled filledBuf
}

// filledBuf is what a write buffer holds: the data of a step's transfer, and that
// transfer's memory layout once a seeded fill asked for it (bufLayout; a step that fills
// the buffer for the same transfer again reuses it).
type filledBuf struct {
	step   int
	t      *plan.Transfer
	layout *emulate.Layout
}

// holds reports whether a buffer filled as f already holds op's data: the same fields,
// memory layout and selection, in the same step or, with fill=once (every step's data is
// step 0's), in any step.
func (f *filledBuf) holds(op *plan.Op, kind emulate.FillKind) bool {
	a, b := f.t, op.Transfer
	// The fields, not the variable: writes of an interleaved buffer name one member each but
	// share the whole struct. A buffer one step writes to several places (the HDF5 I/O
	// test's one array per H5Dwrite) is refilled for each.
	same := a == b || a.MemType.Equal(b.MemType) && slices.EqualFunc(emulate.Fields(a.MemType, a.Variable), emulate.Fields(b.MemType, b.Variable), emulate.Field.Same) &&
		slices.Equal(a.MemShape, b.MemShape) && slices.Equal(a.FileShape, b.FileShape) && sameSelection(a.Selection, b.Selection) &&
		(a.MemSelection == nil) == (b.MemSelection == nil) && (a.MemSelection == nil || sameSelection(*a.MemSelection, *b.MemSelection))
	if f.step == op.Step {
		// Explicit contents shared by the step's writes (h5perf's one buffer written to every
		// place) are filled once: the program copies nothing between its calls either.
		return same || sameBytes(a.Data, b.Data)
	}
	return kind == emulate.Once && a.Data == nil && b.Data == nil && same
}

// sameBytes reports whether a and b are the same non-empty bytes in memory (one slice).
func sameBytes(a, b []byte) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}

// sameSelection compares two selections block by block (shared storage first: plans share
// large selections between steps).
func sameSelection(a, b plan.Selection) bool {
	if len(a.Blocks) != len(b.Blocks) {
		return false
	}
	if len(a.Blocks) == 0 || &a.Blocks[0] == &b.Blocks[0] {
		return true
	}
	return slices.EqualFunc(a.Blocks, b.Blocks, func(x, y plan.Hyperslab) bool {
		return slices.Equal(x.Start, y.Start) && slices.Equal(x.Stride, y.Stride) && slices.Equal(x.Count, y.Count) && slices.Equal(x.Block, y.Block)
	})
}

// buffer returns the transfer's memory, filled with this step's data for writes (once
// per buffer and step: writes that share an interleaved buffer fill it once; with
// fill=once, once per phase), except as-is writes (untouched).
func (s *Session) buffer(op *plan.Op, smp *sample) ([]byte, error) {
	t := op.Transfer
	b := s.bufs[t.Buffer]
	if b == nil {
		if s.bufs == nil {
			s.bufs = map[string]*sessionBuf{}
		}
		b = &sessionBuf{}
		s.bufs[t.Buffer] = b
	}
	mem, err := b.mem.Fit(int(plan.Product(t.MemShape))*t.MemType.Size, t.BufferOffset)
	if err != nil {
		b.mem = nil // freed by Fit
		return nil, err
	}
	b.mem = mem
	buf := mem.Bytes()
	if op.Kind != plan.Write || s.phase == nil || t.AsIs {
		return buf, nil
	}
	f := &b.filled
	if b.phase == s.phase && f.holds(op, s.phase.fill) {
		return buf, nil
	}
	if b.phase != s.phase || f.t != t {
		f.layout = nil // another transfer's
	}
	b.phase, f.step, f.t = s.phase, op.Step, t
	return buf, s.fillLaid(op, buf, &f.layout, smp)
}

// refills reports whether buffer fills op's buffer with new data: a write (not as-is) of
// a phase whose buffer does not already hold its data.
func (s *Session) refills(op *plan.Op) bool {
	t := op.Transfer
	if t == nil || op.Kind != plan.Write || s.phase == nil || t.AsIs {
		return false
	}
	b := s.bufs[t.Buffer]
	return b == nil || b.phase != s.phase || !b.filled.holds(op, s.phase.fill)
}

// fill writes op's data for this step into buf, charging the time since the clock's last
// reading (s.clk: the caller's) to data preparation.
func (s *Session) fill(op *plan.Op, buf []byte, smp *sample) error {
	var l *emulate.Layout
	return s.fillLaid(op, buf, &l, smp)
}

// fillLaid is fill with the memory layout of op's transfer kept in *l: set from bufLayout
// when nil and a seeded fill needs it.
func (s *Session) fillLaid(op *plan.Op, buf []byte, l **emulate.Layout, smp *sample) error {
	t := op.Transfer
	var err error
	if t.Data != nil { // explicit contents (index datasets) whatever the fill
		copy(buf, t.Data)
	} else {
		kind := s.cfg.Fill
		if s.phase != nil {
			kind = s.phase.fill
		}
		to := buf
		if t.MemSelection != nil { // the selected elements' values, then into place
			if to, err = s.interior(t); err != nil {
				return err
			}
		}
		if *l == nil {
			*l = s.bufLayout(t)
		}
		err = emulate.Fill(kind, to, *l, s.cfg.Seed, op.Step, s.Rank())
		if t.MemSelection != nil {
			memRuns(t, buf, to, true)
		}
	}
	t0, t1 := s.clk.lap()
	smp[mPrep] += (t1 - t0).Seconds()
	if s.tr != nil {
		s.tr.op(tracePrep, "fill", op, uint64(len(buf)), wallAt(t0))
	}
	return err
}

// layoutsMax bounds the memory layouts a phase keeps (phaseRun.layouts).
const layoutsMax = 1024

// bufLayout maps a transfer's memory buffer to global element indices. A plan does not
// change a transfer once issued, so its layout is kept for the phase (bounded): a pattern
// that issues one transfer at every step fills it without allocating.
func (s *Session) bufLayout(t *plan.Transfer) *emulate.Layout {
	p := s.phase
	if p != nil {
		if l, ok := p.layouts[t]; ok {
			return l
		}
	}
	l := &emulate.Layout{Elem: t.MemType.Size, Fields: emulate.Fields(t.MemType, t.Variable), Runs: s.runs(t).runs}
	if p != nil && len(p.layouts) < layoutsMax {
		if p.layouts == nil {
			p.layouts = map[*plan.Transfer]*emulate.Layout{}
		}
		p.layouts[t] = l
	}
	return l
}

// packed returns op with its transfer's memory selection packed (plan.Transfer.Packed)
// for a layout without memory spaces, op itself otherwise: such a layout moves the
// selected elements' bytes from a contiguous buffer, which the session fills (and
// verifies) with the same values. The packed transfers are kept for the phase, so a
// transfer issued at every step fills one buffer layout.
func (s *Session) packed(op *plan.Op) *plan.Op {
	t := op.Transfer
	if t == nil || t.MemSelection == nil || s.memSpaces {
		return op
	}
	var p *plan.Transfer
	if s.phase != nil {
		p = s.phase.packed[t]
	}
	if p == nil {
		p = t.Packed()
		if s.phase != nil && len(s.phase.packed) < layoutsMax {
			if s.phase.packed == nil {
				s.phase.packed = map[*plan.Transfer]*plan.Transfer{}
			}
			s.phase.packed[t] = p
		}
	}
	c := *op
	c.Transfer = p
	return &c
}

// interior returns the scratch buffer that holds the elements a memory selection selects
// of t's buffer, packed: where they are filled before a write is scattered into the
// buffer, and where a read's are gathered to be verified.
func (s *Session) interior(t *plan.Transfer) ([]byte, error) {
	n := t.Selection.NPoints(t.FileShape)
	return s.pool.GetAt(t.Buffer+"\x00interior", int(n)*t.MemType.Size, 0)
}

// memRuns moves the elements of t's memory selection between buf (the memory space)
// and packed (in the selection's row-major order): into buf when scatter, else out of it.
func memRuns(t *plan.Transfer, buf, packed []byte, scatter bool) {
	size := uint64(t.MemType.Size)
	var at uint64
	for _, r := range t.MemSelection.Runs(t.MemShape) {
		b, p := buf[r.Start*size:(r.Start+r.Len)*size], packed[at:at+r.Len*size]
		if scatter {
			copy(b, p)
		} else {
			copy(p, b)
		}
		at += r.Len * size
	}
}
