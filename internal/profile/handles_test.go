package profile

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHandlesTrace runs the kernel's handles mode at 2 ranks (rank 0 creates the file
// alone with the default driver, every rank then opens it through MPI-IO, creates a
// dataset in its group opened by path, closes both, writes an attribute through H5Oopen
// and reopens the dataset to write it): the group and object opens and closes are counted
// and traced with the object's path, each open's event carries its access list, and
// capture infers create: rank0, collective_metadata and handles from them.
func TestHandlesTrace(t *testing.T) {
	data, records, out, err := runKernel(t, 2, "handles", "H5PROXY_PROFILE_TRACE=1")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p := mustMerge(t, records)
	for call, n := range map[string]int64{"H5Gcreate2": 1, "H5Gopen2": 2, "H5Gclose": 3, "H5Oopen": 2, "H5Oclose": 2, "H5Fcreate": 1, "H5Fopen": 2} {
		if got := p.Calls[call].N; got != n {
			t.Errorf("%s: %d calls, want %d", call, got, n)
		}
	}
	file := filepath.Join(data, "handles.h5")
	for rank := range 2 {
		var seq []string
		for _, e := range p.Events {
			if e.Rank != rank || e.File != file {
				continue
			}
			s := e.Call
			switch {
			case e.Object != "":
				s += " " + e.Object
			case e.FAPL != nil:
				s += " " + e.FAPL.Driver
				if e.FAPL.CollOps && e.FAPL.CollWrite {
					s += " coll"
				}
			case e.Name != "":
				s += " " + e.Name
			}
			if strings.HasPrefix(e.Call, "H5") && !strings.HasPrefix(e.Call, "H5A") {
				seq = append(seq, s)
			}
		}
		want := []string{"H5Fopen mpio coll", "H5Gopen2 /g", "H5Dcreate2 /g/x", "H5Dclose /g/x", "H5Gclose /g",
			"H5Oopen /g/x", "H5Oclose /g/x", "H5Dopen2 /g/x", "H5Dwrite /g/x", "H5Dclose /g/x", "H5Fclose"}
		if rank == 0 {
			want = append([]string{"H5Fcreate other", "H5Gcreate2 /g", "H5Gclose /g", "H5Fclose"}, want...)
		}
		if !slices.Equal(seq, want) {
			t.Errorf("rank %d's events of handles.h5:\n%s\nwant\n%s", rank, strings.Join(seq, "\n"), strings.Join(want, "\n"))
		}
	}
	c, err := Capture(p, "handles")
	if err != nil {
		t.Fatal(err)
	}
	checked(t, c)
	f := fileOf(t, c.Desc, "handles")
	x := datasetOf(t, f, "/g/x")
	if got := waysOf(c, f); got != "create: rank0 ; collective_metadata: true; handles: call reopen true; write handles" {
		t.Errorf("ways %q:\n%s", got, c.YAML)
	}
	if got := words(x.Type.Text, texts(x.Shape), decompText(x.Decompose)); got != "i32 [50 * nranks] {kind: block}" {
		t.Errorf("x: %s", got)
	}
	if len(x.Attributes) != 1 || x.Attributes[0].Name != "unitSI" || x.Attributes[0].Type.Text != "f64" || x.Attributes[0].Value.Text != "1.0" {
		t.Errorf("x's attributes:\n%s", c.YAML)
	}
	if len(c.Unexpressed) != 0 {
		t.Errorf("unexpressed %q", c.Unexpressed)
	}
}
