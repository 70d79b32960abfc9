package app

import (
	"fmt"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// check verifies what involves every rank's file names, at the step each file is first
// opened: a shared file has one name on every rank, per-rank files a different name each.
func (s *sim) check() error {
	for _, f := range s.e.d.Files {
		step, ok := s.firstUse[f.ID]
		if !ok {
			continue
		}
		par, err := s.parallel(f)
		if err != nil {
			return err
		}
		if par && !desc.UsesVar(f.Name.Text, "rank") {
			continue
		}
		sc, err := s.e.d.Scope(s.env.Size, 0)
		if err != nil {
			return err
		}
		sc.SetStep(step)
		seen := make(map[string]int, s.env.Size)
		for r := range s.env.Size {
			sc.SetVar("rank", r)
			name, err := sc.Text(f.Name)
			if err != nil {
				return err
			}
			if par && r > 0 {
				if _, same := seen[name]; !same {
					return &desc.Error{Pos: f.Name.Pos, Key: f.Name.Path, Value: f.Name.Text,
						Reason:  fmt.Sprintf("the shared file's name differs across ranks at step %d (rank 0: %s, rank %d: %s)", step, firstKey(seen), r, name),
						Allowed: "a name without rank for a shared file, or ranks: 1 for a file per rank"}
				}
				continue
			}
			if other, dup := seen[name]; dup && !par {
				return &desc.Error{Pos: f.Name.Pos, Key: f.Name.Path, Value: f.Name.Text,
					Reason:  fmt.Sprintf("ranks %d and %d both name their own file %s at step %d", other, r, name, step),
					Allowed: "a per-rank name that uses rank, e.g. data_${rank}.h5"}
			}
			seen[name] = r
		}
	}
	return nil
}

func firstKey(m map[string]int) string {
	for k := range m {
		return k
	}
	return ""
}
