package app

import "github.com/h5proxy/h5proxy/patterns/app/desc"

// File families: the variable count numbers the files of a counter (files.ID.counter,
// default the file's id) by the steps at which a write action of one of them runs, so
// that families with their own cadence keep their own numbering in one run (FLASH's
// checkpoints every 10 steps numbered 0, 1, ...; its plot files every 5 numbered 0, 1,
// 2, ...; its forced plot file at the end continuing the plot count).

// occasion is the occasion an action at step is part of: the step, or s.limit for the
// end actions.
func (s *sim) occasion(step int) int {
	if s.cur == &s.end {
		return s.limit
	}
	return step
}

// setCount sets count for file f at occasion occ: the steps before occ (all the steps
// replayed for an end occasion) at which a write action of a file of f's counter runs.
func (s *sim) setCount(f *desc.File, occ int) error {
	fired, err := s.firedSteps(f.CounterOf())
	if err != nil {
		return err
	}
	n := 0
	for st := range min(occ, len(fired)) {
		if fired[st] {
			n++
		}
	}
	s.sc.SetCount(n)
	return nil
}

// firedSteps lists, per step replayed, whether a write action of a file of counter runs
// at it (its cadence and condition on this rank), computed once per counter.
func (s *sim) firedSteps(counter string) ([]bool, error) {
	if f, ok := s.fired[counter]; ok {
		return f, nil
	}
	step, _ := s.sc.Var("step")
	defer s.sc.SetVar("step", step)
	fired := make([]bool, s.limit)
	for _, a := range s.e.d.Timeline {
		if !a.Write.Set {
			continue
		}
		f, err := s.e.file(a.Write)
		if err != nil {
			return nil, err
		}
		if f.CounterOf() != counter {
			continue
		}
		for st := range s.limit {
			if fired[st] {
				continue
			}
			ok, err := s.fires(a, st)
			if err != nil {
				return nil, err
			}
			fired[st] = ok
		}
	}
	if s.fired == nil {
		s.fired = map[string][]bool{}
	}
	s.fired[counter] = fired
	return fired, nil
}

// fileHints are the MPI-IO hints file f's own access list passes (files.ID.hints) at an
// open through MPI-IO (par), as strings; nil for an open without MPI-IO or a file without
// hints of its own (the description-wide hints reach every file through the session).
func fileHints(f *desc.File, par bool) map[string]string {
	if !par || len(f.Hints) == 0 {
		return nil
	}
	m := make(map[string]string, len(f.Hints))
	for _, h := range f.Hints {
		m[h.Name] = h.Value.Text
	}
	return m
}
