package macsio

import (
	"strings"
	"testing"
)

// FuzzParse: any command line either fails with a message or gives a run the pattern's
// option table accepts as is (its keys round-trip), with at least one part per rank and a
// valid file mode; the mesh then builds or fails with a message on a few rank counts.
// Arguments are the input split on spaces.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "--interface hdf5", "--interface hdf5 --parallel_file_mode SIF 1 --avg_num_parts 2.5 --part_dim 3",
		"--interface hdf5 --part_size 1M --part_mesh_dims 10 20 0 --mesh_decomp 2 2 1", "--interface silo",
		"--interface hdf5 --plugin_args --compression gzip level=3,minsize=10 --no_collective --bogus",
		"--interface hdf5 --parallel_file_mode MIF 0", "--interface hdf5 --dataset_growth -1", "--interface hdf5 --num_dumps",
		"--interface hdf5 --part_size 99999999G", "--interface hdf5 --meta_size 1 2 --part_type curvilinear --time_randomize"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		a, err := Parse(strings.Fields(line))
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: empty error", line)
			}
			return
		}
		if a.Config.AvgNumParts < 1 || (!a.Config.SIF && a.Config.NumFiles < 1) || a.Config.PartDim < 1 || a.Config.PartDim > 3 {
			t.Fatalf("%q: %+v", line, a.Config)
		}
		v, err := Options.Parse(a.Config.KVs())
		if err != nil {
			t.Fatalf("%q: the table refuses the parsed run: %v", line, err)
		}
		c, err := FromValues(v)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if c.SIF != a.Config.SIF || c.NumFiles != a.Config.NumFiles && !c.SIF || c.PartSize != a.Config.PartSize || c.VarsPerPart != a.Config.VarsPerPart {
			t.Fatalf("%q: round trip %+v, want %+v", line, c, a.Config)
		}
		for _, n := range []int{1, 3} {
			if m, err := NewMesh(&c, n, 1); err == nil && m.Total > 1<<20 {
				return // a huge mesh: fine, not enumerated here
			} else if err == nil && len(m.Parts(0)) == 0 {
				t.Fatalf("%q: rank 0 has no part on %d ranks", line, n)
			}
		}
	})
}
