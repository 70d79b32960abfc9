package plantest

import (
	"fmt"
	"path"
	"strings"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// Lifecycle says what a pattern's phase may do beyond the common rules of CheckLifecycle.
type Lifecycle struct {
	// OneFile: the phase creates (or opens) exactly one file, once.
	OneFile bool
	// CreateOnly: a write phase creates its objects and never opens existing ones.
	CreateOnly bool
	// FullPaths: objects are created and opened by their path from the file, without their
	// parent group open (the HDF5 I/O test's H5Dopen(file, "step=0/array=1")).
	FullPaths bool
}

// CheckLifecycle replays plans (one phase's, in order) and checks that files are
// created or opened and closed in pairs, one at a time; that objects live in an open file
// and an open parent group, are opened once and closed once, groups after their
// children; that attributes go on "/" or an open object and transfers on open datasets;
// that a read phase creates and writes nothing and a write phase reads nothing; and that
// nothing is open at a file's close or at the end.
func CheckLifecycle(ph patterns.Phase, plans []plan.Plan, rules Lifecycle) error {
	open := map[string]plan.OpKind{}
	file := ""
	closedFiles := 0
	isGroup := func(k plan.OpKind) bool { return k == plan.CreateGroup || k == plan.OpenGroup }
	isDataset := func(k plan.OpKind) bool { return k == plan.CreateDataset || k == plan.OpenDataset }
	for pi, pl := range plans {
		for oi, op := range pl.Ops {
			where := fmt.Sprintf("plan %d op %d (%s %s)", pi, oi, op.Kind, op.Path)
			switch {
			case ph == patterns.PhaseWrite && op.Kind == plan.Read,
				ph == patterns.PhaseWrite && rules.CreateOnly && (op.Kind == plan.OpenFile || op.Kind == plan.OpenGroup || op.Kind == plan.OpenDataset):
				return fmt.Errorf("%s: open/read in a write phase", where)
			case ph == patterns.PhaseRead && (op.Kind == plan.CreateFile || op.Kind == plan.CreateGroup || op.Kind == plan.CreateDataset ||
				op.Kind == plan.Write || op.Kind == plan.WriteAttribute || op.Kind == plan.FlushFile || op.Kind == plan.ExtendDataset):
				return fmt.Errorf("%s: create/write in a read phase", where)
			}
			switch op.Kind {
			case plan.CreateFile, plan.OpenFile:
				if file != "" || (rules.OneFile && closedFiles > 0) {
					return fmt.Errorf("%s: file opened while %q is open or after the phase's file", where, file)
				}
				file = op.Path
			case plan.FlushFile:
				if file != op.Path {
					return fmt.Errorf("%s: flush of a file that is not open (%q)", where, file)
				}
			case plan.CloseFile:
				if file != op.Path {
					return fmt.Errorf("%s: close of a file that is not open (%q)", where, file)
				}
				if len(open) > 0 {
					return fmt.Errorf("%s: objects still open at file close: %v", where, open)
				}
				file = ""
				closedFiles++
			case plan.CreateGroup, plan.OpenGroup, plan.CreateDataset, plan.OpenDataset:
				if file == "" {
					return fmt.Errorf("%s: no open file", where)
				}
				if _, dup := open[op.Path]; dup {
					return fmt.Errorf("%s: already open", where)
				}
				if parent := path.Dir(op.Path); parent != "/" && !isGroup(open[parent]) && !rules.FullPaths {
					return fmt.Errorf("%s: parent group %s not open", where, parent)
				}
				open[op.Path] = op.Kind
			case plan.CloseGroup:
				if !isGroup(open[op.Path]) {
					return fmt.Errorf("%s: group not open", where)
				}
				for p := range open {
					if strings.HasPrefix(p, op.Path+"/") {
						return fmt.Errorf("%s: child %s still open", where, p)
					}
				}
				delete(open, op.Path)
			case plan.CloseDataset:
				if !isDataset(open[op.Path]) {
					return fmt.Errorf("%s: dataset not open", where)
				}
				delete(open, op.Path)
			case plan.WriteAttribute, plan.ReadAttribute:
				if file == "" {
					return fmt.Errorf("%s: no open file", where)
				}
				if _, ok := open[op.Path]; op.Path != "/" && !ok {
					return fmt.Errorf("%s: object not open", where)
				}
			case plan.Scale: // by absolute paths from the file, as links
				if file == "" {
					return fmt.Errorf("%s: no open file", where)
				}
			case plan.CreateLink: // by absolute paths from the file: no object need be open
				if file == "" {
					return fmt.Errorf("%s: no open file", where)
				}
			case plan.Write, plan.Read, plan.ExtendDataset:
				if !isDataset(open[op.Path]) {
					return fmt.Errorf("%s: dataset not open", where)
				}
			default:
				return fmt.Errorf("%s: unexpected operation", where)
			}
		}
	}
	if file != "" || len(open) > 0 || (rules.OneFile && closedFiles != 1) {
		return fmt.Errorf("at the end: file %q open, objects %v open, %d file closes", file, open, closedFiles)
	}
	return nil
}
