package darshan

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// sampleProfile is a small traced two-rank profile with a record of each module.
func sampleProfile() *profile.Profile {
	p := &profile.Profile{SchemaVersion: 1, Exe: "/bin/app", Command: []string{"/bin/app", "-n", "2"}, Ranks: 2,
		Elapsed: 1.25, Traced: true}
	p.Records = []profile.Record{
		{Module: "POSIX", File: "/data/out.h5", Rank: -1,
			Counters:  map[string]int64{"POSIX_OPENS": 4, "POSIX_WRITES": 10, "POSIX_BYTES_WRITTEN": 40960, "POSIX_SIZE_WRITE_1K_10K": 10, "POSIX_MAX_BYTE_WRITTEN": 40959},
			FCounters: map[string]float64{"POSIX_F_WRITE_TIME": 0.5, "POSIX_F_OPEN_START_TIMESTAMP": 0.01}},
		{Module: "MPIIO", File: "/data/out.h5", Rank: -1,
			Counters:  map[string]int64{"MPIIO_COLL_OPENS": 2, "MPIIO_COLL_WRITES": 6, "MPIIO_BYTES_WRITTEN": 40000},
			FCounters: map[string]float64{"MPIIO_F_WRITE_TIME": 0.6}},
		{Module: "H5F", File: "/data/out.h5", Rank: -1, Counters: map[string]int64{"H5F_OPENS": 2, "H5F_USE_MPIIO": 1},
			FCounters: map[string]float64{"H5F_F_META_TIME": 0.01}},
		{Module: "H5D", File: "/data/out.h5", Name: "/Timestep_0/x", Rank: -1,
			Counters:  map[string]int64{"H5D_OPENS": 2, "H5D_WRITES": 2, "H5D_BYTES_WRITTEN": 32768, "H5D_DATATYPE_SIZE": 4, "H5D_DATASPACE_NDIMS": 1, "H5D_DATASPACE_NPOINTS": 8192},
			FCounters: map[string]float64{"H5D_F_WRITE_TIME": 0.4}},
		{Module: "POSIX", File: "/data/log.txt", Rank: 1, Counters: map[string]int64{"POSIX_OPENS": 1}, FCounters: map[string]float64{}},
	}
	p.Events = []profile.Event{
		{Rank: 0, Module: "POSIX", Call: "pwrite", File: "/data/out.h5", Offset: 0, Length: 4096, Start: 0.1, End: 0.2},
		{Rank: 0, Module: "POSIX", Call: "pread", File: "/data/out.h5", Offset: 0, Length: 96, Start: 0.3, End: 0.31},
		{Rank: 1, Module: "MPIIO", Call: "MPI_File_write_at_all", File: "/data/out.h5", Offset: 4096, Length: 4096, Start: 0.1, End: 0.25},
		{Rank: 1, Module: "H5D", Call: "H5Dwrite", File: "/data/out.h5", Name: "/Timestep_0/x", Offset: -1, Length: 4096, Start: 0.1, End: 0.3},
	}
	return p
}

var start = time.Date(2026, 11, 29, 4, 0, 0, 5e8, time.UTC)

// TestRoundTrip writes a profile as a Darshan log and reads it back: every counter,
// name, the job and the DXT segments come back.
func TestRoundTrip(t *testing.T) {
	p := sampleProfile()
	l, err := FromProfile(p, start)
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Job.Nprocs != 2 || back.Job.StartSec != start.Unix() || back.Job.StartNsec != 5e8 || back.Elapsed() != 1.25 {
		t.Errorf("job %+v, elapsed %v", back.Job, back.Elapsed())
	}
	if back.Exe != "/bin/app -n 2" || back.Metadata("lib_ver") != Writer {
		t.Errorf("exe %q, lib_ver %q", back.Exe, back.Metadata("lib_ver"))
	}
	q := back.ToProfile()
	if len(q.Records) != len(p.Records) {
		t.Fatalf("%d records back, want %d", len(q.Records), len(p.Records))
	}
	for i, want := range p.Records {
		got, err := q.Find(want.Module, want.File, want.Name, want.Rank)
		if err != nil {
			t.Errorf("record %d: %v", i, err)
			continue
		}
		for k, v := range want.Counters {
			if got.Counters[k] != v {
				t.Errorf("record %d %s = %d, want %d", i, k, got.Counters[k], v)
			}
		}
		for k, v := range want.FCounters {
			if got.FCounters[k] != v {
				t.Errorf("record %d %s = %v, want %v", i, k, got.FCounters[k], v)
			}
		}
	}
	if d := profile.Compare(p, q); len(d.Differ) != 0 || len(d.OnlyA) != 0 || len(d.OnlyB) != 0 {
		t.Errorf("diff after the round trip: %+v", d)
	}
	// DXT: the three transfers (not the H5D event), by rank
	var got []string
	for _, d := range back.DXT {
		for _, s := range d.Writes {
			got = append(got, d.Module.Name+" w "+back.Names[d.ID]+" "+itoa(d.Rank)+" "+itoa(s.Offset)+" "+itoa(s.Length))
		}
		for _, s := range d.Reads {
			got = append(got, d.Module.Name+" r "+back.Names[d.ID]+" "+itoa(d.Rank)+" "+itoa(s.Offset)+" "+itoa(s.Length))
		}
	}
	want := []string{"DXT_POSIX w /data/out.h5 0 0 4096", "DXT_POSIX r /data/out.h5 0 0 96", "DXT_MPIIO w /data/out.h5 1 4096 4096"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DXT %q, want %q", got, want)
	}
	if !q.Traced || len(q.Events) != 3 {
		t.Errorf("events back: traced %v, %d", q.Traced, len(q.Events))
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// TestMalformed cuts and corrupts a valid log: every prefix and every flipped header
// field is an *Error naming a region, never a panic.
func TestMalformed(t *testing.T) {
	l, err := FromProfile(sampleProfile(), start)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := l.Bytes()
	for n := 0; n < len(b); n++ {
		_, err := Read(b[:n])
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("prefix of %d bytes: %v, want a *darshan.Error", n, err)
		}
		if e.Region == "" || !strings.Contains(err.Error(), "region at offset") {
			t.Fatalf("prefix of %d bytes: %q names no region and offset", n, err)
		}
	}
	cases := []struct {
		name   string
		mutate func([]byte)
		want   string
	}{
		{"future version", func(b []byte) { copy(b, "3.52\x00") }, `header region at offset 0: log format version "3.52" is newer`},
		{"unknown version", func(b []byte) { copy(b, "2.06\x00") }, `"2.06" is not one this h5proxy reads`},
		{"bad magic", func(b []byte) { b[9] ^= 0xff }, "header region at offset 8: bad magic number"},
		{"compression", func(b []byte) { b[16] = 7 }, "unknown compression kind 7"},
		{"name map past the end", func(b []byte) { b[32+8+6] = 0x7f }, "the names region's offset"},
		{"module version", func(b []byte) { b[headerSize-4*maxMods+4*1] = 9 }, "POSIX region at offset"},
		{"zlib damage", func(b []byte) { b[headerSize+5] ^= 0x55 }, "job region at offset 1328"},
	}
	for _, c := range cases {
		bb := append([]byte(nil), b...)
		c.mutate(bb)
		_, err := Read(bb)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestReadFileNamesPath: an error from ReadFile starts with the file's path.
func TestReadFileNamesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.darshan")
	os.WriteFile(path, []byte("3.41\x00\x00\x00\x00garbage!"), 0o644)
	_, err := ReadFile(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+": darshan log: header region at offset 8") {
		t.Errorf("%v", err)
	}
}

// FuzzRead feeds Read arbitrary bytes: it returns a log or an *Error, never panics.
func FuzzRead(f *testing.F) {
	l, err := FromProfile(sampleProfile(), start)
	if err != nil {
		f.Fatal(err)
	}
	b, _ := l.Bytes()
	f.Add(b)
	fixtures, _ := filepath.Glob("testdata/*.darshan")
	for _, p := range fixtures {
		if d, err := os.ReadFile(p); err == nil {
			f.Add(d)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Read(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%v is not a *darshan.Error", err)
			}
			return
		}
		l.ToProfile()
		_ = l.String()
	})
}
