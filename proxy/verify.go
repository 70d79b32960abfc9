package proxy

// Verification and verdicts: reads checked against what was written, and the ranks'
// mismatches turned into one error.

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// ErrVerify is wrapped by read-verification failures.
var ErrVerify = errors.New("h5proxy: verification failed")

// checksOwnRead reports whether a read inside a write phase is checked: a kernel that reads
// back what it just wrote (the exerciser) gives the expected bytes (Transfer.Data); the
// layout must store data and verification must not be off. It notes on the phase whether
// every such read was checked, for the report's Verified.
func (s *Session) checksOwnRead(op *plan.Op) bool {
	p := s.phase
	if p.ph != patterns.PhaseWrite || op.Transfer.Data == nil || !s.stores || s.cfg.Verify == VerifyNo {
		return false
	}
	if op.Transfer.Unchecked {
		p.ownUnchecked = true
	} else {
		p.ownChecked = true
	}
	return true
}

// check1 verifies one read buffer against the seeded values, or against the transfer's
// explicit Data, charging the time since the clock's last reading (the read's end) to
// verification; Unchecked reads are not verified.
func (s *Session) check1(op *plan.Op, buf []byte, smp *sample) error {
	if op.Transfer.Unchecked {
		return nil
	}
	var bad uint64
	var first *emulate.Mismatch
	var err error
	if op.Transfer.Data != nil {
		bad, first = checkData(op.Transfer, buf)
	} else {
		step := op.Step
		if rw, ok := s.pat.(patterns.Rewriter); ok {
			step = rw.WrittenBy(step, s.phaseSteps(patterns.PhaseWrite))
		}
		got := buf
		if t := op.Transfer; t.MemSelection != nil { // the selected elements, packed
			if got, err = s.interior(t); err != nil {
				return err
			}
			memRuns(t, buf, got, false)
		}
		bad, first, err = emulate.Verify(got, s.bufLayout(op.Transfer), s.cfg.Seed, emulate.DataStep(s.phase.fill, step))
	}
	t0, t1 := s.clk.lap()
	smp[mVerify] += (t1 - t0).Seconds()
	if err != nil {
		return err
	}
	smp[mMismatch] += float64(bad)
	if first != nil && s.phase.mismatch == nil {
		m := *first
		m.Variable = op.Path + " " + m.Variable
		file := s.phase.open.Current()
		if file == "" {
			file = s.cfg.File
		}
		s.phase.mismatch = &firstMismatch{file: file, step: op.Step, m: m}
	}
	return nil
}

// firstMismatch is a rank's first mismatching element in a phase: the file it was read
// from (the file current at the read, not the configured path: per-step and per-rank
// files, restart readers of other ranks' files), the step and the dataset's element.
type firstMismatch struct {
	file string
	step int
	m    emulate.Mismatch
}

// checkData compares a read buffer with the transfer's expected Data element by element
// and returns the number of differing elements and the first of them.
func checkData(t *plan.Transfer, buf []byte) (uint64, *emulate.Mismatch) {
	if len(buf) >= len(t.Data) && bytes.Equal(buf[:len(t.Data)], t.Data) {
		return 0, nil // the common case at memcmp speed: a slow check delays the other ranks' collective calls
	}
	size := t.MemType.Size
	var bad uint64
	var first *emulate.Mismatch
	for e := 0; (e+1)*size <= len(t.Data); e++ {
		got, want := buf[e*size:(e+1)*size], t.Data[e*size:(e+1)*size]
		if string(got) == string(want) {
			continue
		}
		bad++
		if first == nil {
			first = &emulate.Mismatch{Variable: t.Variable, Index: uint64(e), Got: fmt.Sprintf("%x", got), Want: fmt.Sprintf("%x", want)}
		}
	}
	return bad, first
}

// verdict turns the ranks' mismatch counts into one error, the same on every rank.
func (s *Session) verdict(p *phaseRun) error {
	var local float64
	for i := range p.steps {
		local += p.steps[i][mMismatch]
	}
	counts, err := s.comm.AllreduceFloat64([]float64{local, b2f(local > 0)}, mpi.OpSum)
	if err != nil {
		return err
	}
	if counts[0] == 0 {
		return nil
	}
	detail := ""
	if m := p.mismatch; m != nil {
		detail = fmt.Sprintf("; first on rank %d: file %s, step %d: %s", s.Rank(), m.file, m.step, m.m)
	}
	return fmt.Errorf("%w: %s phase of %s: %.0f mismatching elements on %.0f of %d ranks%s",
		ErrVerify, p.ph, listFiles(p.files, s.cfg.File), counts[0], counts[1], s.Size(), detail)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
