package app

import (
	"fmt"

	"github.com/h5proxy/h5proxy/patterns/app/desc"
)

// check verifies what involves every rank's file names, at the step each file is first
// opened: a shared file has one name on every rank, per-rank files a different name each,
// the files of groups of ranks (N-to-M) one name per group and a different one for each
// group.
func (s *sim) check() error {
	for _, f := range s.e.d.Files {
		step, ok := s.firstUse[f.ID]
		if !ok || serialRank0(f) { // one writer: no other rank names it
			continue
		}
		sh, err := s.parallel(f)
		if err != nil {
			return err
		}
		if sh.par && sh.group == 0 && !desc.UsesVar(f.Name.Text, "rank") {
			continue
		}
		sc, err := s.e.d.Scope(s.env.Size, 0)
		if err != nil {
			return err
		}
		sc.SetStep(step)
		// owner is the rank whose file a rank's is: itself, its group's first rank, or 0.
		owner := func(r int) int {
			switch {
			case !sh.par:
				return r
			case sh.group > 0:
				return r / sh.group * sh.group
			}
			return 0
		}
		names := make([]string, s.env.Size)
		seen := make(map[string]int, s.env.Size)
		for r := range s.env.Size {
			sc.SetVar("rank", r)
			name, err := sc.Text(f.Name)
			if err != nil {
				return err
			}
			names[r] = name
			if o := owner(r); o != r && names[o] != name {
				what, allowed := "the shared file's name differs across ranks", "a name without rank for a shared file, or ranks: 1 for a file per rank"
				if sh.group > 0 {
					what, allowed = fmt.Sprintf("the name of the file of ranks %d..%d differs between them", o, o+sh.group-1), fmt.Sprintf("a name that uses the group, e.g. data_${div(rank, %d)}.h5", sh.group)
				}
				return &desc.Error{Pos: f.Name.Pos, Key: f.Name.Path, Value: f.Name.Text,
					Reason:  fmt.Sprintf("%s at step %d (rank %d: %s, rank %d: %s)", what, step, o, names[o], r, name),
					Allowed: allowed}
			}
			if other, dup := seen[name]; dup && owner(other) != owner(r) {
				what, allowed := "both name their own file", "a per-rank name that uses rank, e.g. data_${rank}.h5"
				if sh.group > 0 {
					what, allowed = fmt.Sprintf("of different groups of %d both name their group's file", sh.group), fmt.Sprintf("a name that uses the group, e.g. data_${div(rank, %d)}.h5", sh.group)
				}
				return &desc.Error{Pos: f.Name.Pos, Key: f.Name.Path, Value: f.Name.Text,
					Reason:  fmt.Sprintf("ranks %d and %d %s %s at step %d", other, r, what, name, step),
					Allowed: allowed}
			}
			if _, ok := seen[name]; !ok {
				seen[name] = r
			}
		}
	}
	return nil
}
