package profile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureTrackTimes: a file whose root group, groups and datasets were all created
// with their object times off (netCDF-4's, h5py's) is captured track_times: false; a file
// where only some were keeps the default and names the rest as not expressed; a file
// that tracks them all has no key.
func TestCaptureTrackTimes(t *testing.T) {
	trace := func(root, group, dataset bool) *Profile {
		file := "/x/a.h5"
		p := &Profile{Ranks: 1, Traced: true, Calls: map[string]Call{}}
		info := `{"dims":[4],"maxdims":[4],"layout":1,"type_class":1,"type_size":8`
		if dataset {
			info += `,"untimed":true`
		}
		p.Records = append(p.Records,
			Record{Module: "H5F", File: file, Rank: -1, Counters: map[string]int64{"H5F_USE_MPIIO": 1}},
			Record{Module: "H5D", File: file, Name: "/g/x", Rank: -1, Info: json.RawMessage(info + "}")})
		p.Events = append(p.Events,
			Event{Rank: 0, Module: "H5F", Call: "H5Fcreate", File: file, Untimed: root},
			Event{Rank: 0, Module: "H5F", Call: "H5Gcreate2", File: file, Object: "/g", Untimed: group},
			Event{Rank: 0, Module: "H5D", Call: "H5Dcreate2", File: file, Name: "/g/x"},
			Event{Rank: 0, Module: "H5D", Call: "H5Dwrite", File: file, Name: "/g/x", Collective: true})
		return p
	}
	for _, c := range []struct {
		root, group, dataset bool
		want, unexpressed    string
	}{
		{true, true, true, "false", ""},
		{true, false, true, "", "2 of 3 objects created without their times"},
		{false, false, false, "", ""},
	} {
		got, err := Capture(trace(c.root, c.group, c.dataset), "h")
		if err != nil {
			t.Fatal(err)
		}
		checked(t, got)
		f := fileOf(t, got.Desc, "a")
		if f.TrackTimes.Text != c.want || (c.unexpressed == "") != (len(got.Unexpressed) == 0) || !strings.Contains(strings.Join(got.Unexpressed, "\n"), c.unexpressed) {
			t.Errorf("untimed root %v, group %v, dataset %v: track_times %q, unexpressed %q; want %q, %q", c.root, c.group, c.dataset, f.TrackTimes.Text, got.Unexpressed, c.want, c.unexpressed)
		}
	}
}

// TestReadFileCreationLists: an event's creation list fields (crt_order, untimed) reach
// the loaded profile, which capture's creation_order and track_times read.
func TestReadFileCreationLists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h5proxy-profile.0.1.jsonl")
	lines := `{"kind":"header","format":"h5proxy-profile","version":1,"rank":0}
{"kind":"event","module":"H5F","call":"H5Fcreate","file":"/x/a.h5","untimed":true,"crt_order":[3,1]}
{"kind":"end"}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Events) != 1 || !p.Events[0].Untimed || len(p.Events[0].CrtOrder) != 2 || p.Events[0].CrtOrder[0] != 3 || p.Events[0].CrtOrder[1] != 1 {
		t.Errorf("events %+v", p.Events)
	}
}

// TestCaptureMPIThread: a program that MPI gave a level below multiple (MPI_Init: single)
// is captured with mpi_thread, so its replay asks for that level; multiple, h5proxy's own,
// and a profile without the field (an older profiler) write no key.
func TestCaptureMPIThread(t *testing.T) {
	for _, c := range []struct{ level, want string }{{"single", "single"}, {"funneled", "funneled"}, {"multiple", ""}, {"", ""}} {
		file := "/x/a.h5"
		p := &Profile{Ranks: 2, Traced: true, MPIThread: c.level, Calls: map[string]Call{}}
		p.Records = append(p.Records,
			Record{Module: "H5F", File: file, Rank: -1, Counters: map[string]int64{"H5F_USE_MPIIO": 1}},
			Record{Module: "H5D", File: file, Name: "/x", Rank: -1, Info: json.RawMessage(`{"dims":[4],"maxdims":[4],"layout":1,"type_class":1,"type_size":8}`)})
		p.Events = append(p.Events,
			Event{Rank: 0, Module: "H5F", Call: "H5Fcreate", File: file},
			Event{Rank: 0, Module: "H5D", Call: "H5Dcreate2", File: file, Name: "/x"},
			Event{Rank: 0, Module: "H5D", Call: "H5Dwrite", File: file, Name: "/x", Collective: true})
		got, err := Capture(p, "h")
		if err != nil {
			t.Fatal(err)
		}
		checked(t, got)
		if got.Desc.MPIThread.Text != c.want {
			t.Errorf("traced at %q: mpi_thread %q, want %q", c.level, got.Desc.MPIThread.Text, c.want)
		}
	}
}
