package darshan

import (
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// onlyBase keeps the records of the file of base name base.
func onlyBase(rs []profile.Record, base string) []profile.Record {
	var out []profile.Record
	for _, r := range rs {
		if filepath.Base(r.File) == base {
			out = append(out, r)
		}
	}
	return out
}

// vpicProfile merges testdata/h5proxy-vpic: libh5proxy-profile.so's per-rank record files
// of the run the real Darshan logged in vpic-dxt.darshan (scripts/darshan-fixtures.sh).
func vpicProfile(t *testing.T) *profile.Profile {
	t.Helper()
	procs, err := profile.ReadDir("testdata/h5proxy-vpic")
	if err != nil {
		t.Fatal(err)
	}
	return profile.Merge(procs)
}

// TestAgreesWithDarshan: h5proxy's profile of bench/ref's VPIC write (h5bench's calls, 2
// ranks), merged from its ranks' record files, and the real Darshan 3.5's log of the same
// run compare identical on the data file, every counter of every record (`h5proxy
// profile diff -file vpic.h5`): POSIX (stats, strides and the common values' order, as
// Darshan reduces a shared record), MPI-IO, H5F and the 16 H5D datasets.
func TestAgreesWithDarshan(t *testing.T) {
	l, err := ReadFile("testdata/vpic-dxt.darshan")
	if err != nil {
		t.Fatal(err)
	}
	real, ours := l.ToProfile(), vpicProfile(t)
	AlignDatasetNames(real, ours)
	real.Records, ours.Records = onlyBase(real.Records, "vpic.h5"), onlyBase(ours.Records, "vpic.h5")
	real.Traced, ours.Traced = false, false
	d := profile.Compare(real, ours)
	t.Logf("profile diff -file vpic.h5 vpic-dxt.darshan h5proxy-vpic: %s", d.Verdict())
	for _, c := range d.Differ {
		t.Errorf("%s %s %s rank %d: %s Darshan %d, h5proxy %d", c.Module, c.File, c.Name, c.Rank, c.Counter, c.A, c.B)
	}
	for _, r := range d.OnlyA {
		t.Errorf("only in Darshan's log: %s", r)
	}
	for _, r := range d.OnlyB {
		t.Errorf("only in h5proxy's profile: %s", r)
	}
	// POSIX 69 counters, MPI-IO 51, H5F 5, H5D 16 x 91 (those Darshan monitors)
	if len(d.Equal) < 1500 {
		t.Errorf("%d counters compared equal, want the data file's every counter (over 1500)", len(d.Equal))
	}
}
