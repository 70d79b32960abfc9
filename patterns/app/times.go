package app

import (
	"github.com/h5proxy/h5proxy/patterns/app/desc"
	"github.com/h5proxy/h5proxy/plan"
)

// untimedFile reports whether a file's objects are created without their times
// (track_times: false).
func (s *sim) untimedFile(f *desc.File) (bool, error) {
	if !f.TrackTimes.Set {
		return false, nil
	}
	t, err := s.sc.Bool(f.TrackTimes)
	return !t, err
}

// markUntimed sets NoTimes on the group and dataset creates of the files opened untimed
// (s.untimed, by path), following the current file through the plans as the executor
// does (a create, open or select makes a file current, its close ends it). Each create
// gets its own copy of its spec: specs are shared between the steps of a file.
func (s *sim) markUntimed() {
	if len(s.untimed) == 0 {
		return
	}
	mark := func(p *plan.Plan) {
		cur := ""
		for i := range p.Ops {
			o := &p.Ops[i]
			switch o.Kind {
			case plan.CreateFile, plan.OpenFile, plan.SelectFile:
				cur = o.Path
			case plan.CloseFile:
				cur = ""
			case plan.CreateGroup:
				if s.untimed[cur] {
					g := plan.GroupSpec{}
					if o.Group != nil {
						g = *o.Group
					}
					g.NoTimes = true
					o.Group = &g
				}
			case plan.CreateDataset:
				if s.untimed[cur] && o.Dataset != nil {
					d := *o.Dataset
					d.NoTimes = true
					o.Dataset = &d
				}
			}
		}
	}
	for i := range s.plans {
		mark(&s.plans[i])
	}
	mark(&s.end)
}
