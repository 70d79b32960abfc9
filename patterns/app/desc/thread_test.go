package desc

import (
	"strings"
	"testing"
)

// TestMPIThread: the mpi_thread key names the level `h5proxy run` asks MPI for (multiple
// without it), and a level MPI does not have is refused at its file:line:col.
func TestMPIThread(t *testing.T) {
	base := "name: x\nranks: 2\n%sfiles: {f: {name: f.h5, datasets: {x: {type: f64, shape: [4]}}}}\n"
	for _, c := range []struct{ key, want string }{
		{"", "multiple"},
		{"mpi_thread: single\n", "single"},
		{"mpi_thread: Funneled\n", "funneled"},
		{"mpi_thread: multiple\n", "multiple"},
	} {
		d, err := Parse("d.yaml", []byte(strings.Replace(base, "%s", c.key, 1)), nil)
		if err != nil {
			t.Fatalf("%q: %v", c.key, err)
		}
		if got := d.MPIThreadLevel(); got != c.want {
			t.Errorf("%q: level %q, want %q", c.key, got, c.want)
		}
	}
	_, err := Parse("d.yaml", []byte(strings.Replace(base, "%s", "mpi_thread: triple\n", 1)), nil)
	if err == nil || !strings.Contains(err.Error(), `d.yaml:3:13: key mpi_thread value "triple": not allowed`) || !strings.Contains(err.Error(), "single, funneled, serialized, multiple") {
		t.Errorf("mpi_thread: triple: %v", err)
	}
}
