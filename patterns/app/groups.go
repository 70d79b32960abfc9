package app

import (
	"strings"

	"github.com/h5proxy/h5proxy/plan"
)

// openHolding opens group g of an open file when one of the datasets vs below it passes
// pick, as a program opens a group (H5Gopen2) before the datasets in it, which it opens
// relative to the group: writes reopen the groups above the datasets they write, reads
// the groups above the datasets they read (BD-CATS opens each Timestep_N group, then its
// datasets). A group held open (hold: file) is not opened again. It reports whether it
// opened g.
func (s *sim) openHolding(in *instance, g string, vs []visit, pick func(visit) bool, step int) bool {
	if in.keptGroups[g] { // held open until the file closes (hold: file)
		return false
	}
	for _, v := range vs {
		if strings.HasPrefix(v.path, g+"/") && pick(v) {
			s.cur.Add(plan.Op{Kind: plan.OpenGroup, Path: g, Collective: in.parallel, CollMetadata: in.objCollMeta(), Step: step})
			return true
		}
	}
	return false
}

// objCollMeta reports whether the group and dataset opens in a file opened for reading
// with collective metadata ask for it on their own access lists too, as BD-CATS's group
// and dataset access lists do: HDF5 1.10 does not pass the file access list's setting to
// a dataset opened with the default list (docs/fidelity-notes.md §7). A file opened for
// writing opens its objects with the default lists.
func (in *instance) objCollMeta() bool {
	return in.readOnly && in.parallel && collMetadata(in.file, true)
}
