package proxy

// Selection runs: the elements a transfer selects, counted once per phase for large ones.

import (
	"slices"

	"github.com/h5proxy/h5proxy/plan"
)

// selRef identifies a selection by its storage (a plan does not change a selection once
// issued; the key keeps the storage alive, so its address is not reused).
type selRef struct {
	first *plan.Hyperslab
	n     int
}

// selRuns is a selection's runs in a dataspace shape and their element count.
type selRuns struct {
	shape  []uint64
	runs   []plan.Run
	points uint64
}

// pointsCacheMin is the fewest blocks of a selection the phase caches the runs of;
// runsCacheMax bounds the runs cached per phase (64 MiB).
const (
	pointsCacheMin = 64
	runsCacheMax   = 1 << 22
)

// runs returns t's selection's runs in t.FileShape and their element count. The runs of
// large selections, which plans share between transfers (E3SM writes every variable of a
// decomposition with one selection), are computed once per phase: they take a sort, which
// the measured code does not do.
func (s *Session) runs(t *plan.Transfer) selRuns {
	blocks := t.Selection.Blocks
	if s.phase == nil || len(blocks) < pointsCacheMin {
		return newSelRuns(t)
	}
	k := selRef{&blocks[0], len(blocks)}
	if c, ok := s.phase.runs[k]; ok && slices.Equal(c.shape, t.FileShape) {
		return c
	}
	c := newSelRuns(t)
	if s.phase.runs == nil {
		s.phase.runs = map[selRef]selRuns{}
	}
	if old, ok := s.phase.runs[k]; ok {
		s.phase.runsCached -= len(old.runs)
		delete(s.phase.runs, k)
	}
	if s.phase.runsCached+len(c.runs) <= runsCacheMax {
		s.phase.runs[k] = c
		s.phase.runsCached += len(c.runs)
	}
	return c
}

func newSelRuns(t *plan.Transfer) selRuns {
	c := selRuns{shape: slices.Clone(t.FileShape), runs: t.Selection.Runs(t.FileShape)}
	for _, r := range c.runs {
		c.points += r.Len
	}
	return c
}

// transferBytes is t.Bytes(): a single hyperslab's count needs no expansion (a strided
// read of 87381 blocks would otherwise expand them at every transfer, which the measured
// code never does), a union's runs come from the phase's cache.
func (s *Session) transferBytes(t *plan.Transfer) uint64 {
	if len(t.Selection.Blocks) == 1 {
		return t.Bytes()
	}
	return s.runs(t).points * t.ElemBytes()
}
