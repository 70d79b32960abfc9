package profile

import (
	"fmt"
	"strings"
	"testing"
)

// rankRecord is one rank's POSIX or H5D record with the given common values: accesses
// (value: count) and, for POSIX, strides.
func rankRecord(module string, rank int, access, stride [][2]int64) Record {
	r := Record{Module: module, File: "/d/f.h5", Rank: rank, Counters: map[string]int64{}, FCounters: map[string]float64{}}
	for _, cv := range commonCounters(module) {
		for i := 1; i <= 4; i++ {
			for _, s := range cv.suffixes {
				r.Counters[fmt.Sprintf("%s%d_%s", cv.prefix, i, s)] = 0
			}
			r.Counters[fmt.Sprintf("%s%d_COUNT", cv.prefix, i)] = 0
		}
	}
	put := func(prefix, suffix string, vs [][2]int64) {
		for i, v := range vs {
			r.Counters[fmt.Sprintf("%s%d_%s", prefix, i+1, suffix)] = v[0]
			r.Counters[fmt.Sprintf("%s%d_COUNT", prefix, i+1)] = v[1]
		}
	}
	put(module+"_ACCESS", "ACCESS", access)
	put("POSIX_STRIDE", "STRIDE", stride)
	return r
}

func commonOf(r Record, prefix, suffix string) [][2]int64 {
	var out [][2]int64
	for i := 1; i <= 4; i++ {
		out = append(out, [2]int64{r.Counters[fmt.Sprintf("%s%d_%s", prefix, i, suffix)], r.Counters[fmt.Sprintf("%s%d_COUNT", prefix, i)]})
	}
	return out
}

// TestReduceCommonValues: a shared record's common access sizes and strides reduce as
// Darshan 3.5's reduction ops reduce them (darshan-posix.c, darshan-common.h): strides kept
// (not zeroed), counts of a value both ranks hold added, ties ordered by the larger value,
// what comes fifth left out. The expectation on the data file is real Darshan's: its log
// of bench/ref's VPIC write (internal/darshan/testdata/vpic-dxt.parser.txt) has
// POSIX_STRIDE3/4 49200 and 24816 and POSIX_ACCESS3/4 1808 and 1688, each seen once.
func TestReduceCommonValues(t *testing.T) {
	r0 := rankRecord("POSIX", 0, [][2]int64{{4096, 16}, {1688, 1}, {800, 1}}, [][2]int64{{4096, 12}, {6144, 3}, {24816, 1}})
	r1 := rankRecord("POSIX", 1, [][2]int64{{4096, 16}, {1808, 1}, {2104, 1}, {96, 1}}, [][2]int64{{4096, 12}, {6144, 3}, {49200, 1}})
	out := reduce([]Record{r0, r1})
	if got, want := commonOf(out, "POSIX_ACCESS", "ACCESS"), [][2]int64{{4096, 32}, {2104, 1}, {1808, 1}, {1688, 1}}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("POSIX_ACCESSn %v, want %v (ties: the larger first; 800 and 96 come fifth)", got, want)
	}
	if got, want := commonOf(out, "POSIX_STRIDE", "STRIDE"), [][2]int64{{4096, 24}, {6144, 6}, {49200, 1}, {24816, 1}}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("POSIX_STRIDEn %v, want %v", got, want)
	}

	// Darshan's pairwise reduction sees only each rank's four: a value fifth on one rank
	// does not add to the other's count.
	r0 = rankRecord("POSIX", 0, [][2]int64{{10, 5}, {20, 4}, {30, 3}, {40, 2}}, nil)
	r1 = rankRecord("POSIX", 1, [][2]int64{{50, 3}, {30, 1}}, nil)
	out = reduce([]Record{r0, r1})
	if got, want := commonOf(out, "POSIX_ACCESS", "ACCESS"), [][2]int64{{10, 5}, {30, 4}, {20, 4}, {50, 3}}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("POSIX_ACCESSn %v, want %v", got, want)
	}

	// H5D keys on size, lengths and strides; two values of one size and count tie on both:
	// the in-out copy's (the higher rank's) is placed before the input's.
	h := func(rank int, length, count int64) Record {
		r := rankRecord("H5D", rank, [][2]int64{{400, count}}, nil)
		r.Counters["H5D_ACCESS1_LENGTH_D5"] = length
		r.Counters["H5D_ACCESS1_STRIDE_D5"] = 1
		return r
	}
	out = reduce([]Record{h(0, 100, 2), h(1, 50, 2)})
	if out.Counters["H5D_ACCESS1_LENGTH_D5"] != 50 || out.Counters["H5D_ACCESS2_LENGTH_D5"] != 100 ||
		out.Counters["H5D_ACCESS1_COUNT"] != 2 || out.Counters["H5D_ACCESS2_COUNT"] != 2 {
		t.Errorf("H5D tie: lengths %d, %d counts %d, %d; want rank 1's 50 then rank 0's 100, 2 each",
			out.Counters["H5D_ACCESS1_LENGTH_D5"], out.Counters["H5D_ACCESS2_LENGTH_D5"], out.Counters["H5D_ACCESS1_COUNT"], out.Counters["H5D_ACCESS2_COUNT"])
	}
	out = reduce([]Record{h(0, 100, 2), h(1, 100, 3)})
	if out.Counters["H5D_ACCESS1_LENGTH_D5"] != 100 || out.Counters["H5D_ACCESS1_COUNT"] != 5 || out.Counters["H5D_ACCESS2_COUNT"] != 0 {
		t.Errorf("H5D equal keys: %v, want one value counted 5 times", commonOf(out, "H5D_ACCESS", "LENGTH_D5"))
	}
}

// TestPlaceCommonValue: Darshan's update of the four common values, access by access, as
// the profiler keeps them (preload/profile-core.c's cv_place is the same rule): zero never
// enters, ties go to the larger value, a value whose count grows moves up.
func TestPlaceCommonValue(t *testing.T) {
	var s commonSet
	counts := map[int64]int64{}
	for _, v := range []int64{0, 0, 6000, 0, 300, 300, 200, 100, 50, 50, 6000} {
		counts[v]++
		s.place([]int64{v}, counts[v], false)
	}
	var got [][2]int64
	for i := range 4 {
		var v int64
		if s.vals[i] != nil {
			v = s.vals[i][0]
		}
		got = append(got, [2]int64{v, s.cnts[i]})
	}
	if want := [][2]int64{{6000, 2}, {300, 2}, {50, 2}, {200, 1}}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("common values %v, want %v", got, want)
	}
}

// TestCompareSharedFPFiles: OMPIO's shared-file-pointer files of the same open in two runs
// (FILE_cid-CID-PID.sm, the ids differing) are one record to Compare; MPI_COMM_SELF's,
// named by rank, stay apart, and other files are matched by their names as before.
func TestCompareSharedFPFiles(t *testing.T) {
	rec := func(file string, opens int64) Record {
		return Record{Module: "POSIX", File: file, Rank: 0, Counters: map[string]int64{"POSIX_OPENS": opens}}
	}
	a := &Profile{Records: []Record{rec("/tmp/ompi.vm.0/pid.10039/1/plt00000.h5_cid-7-10053.sm", 2),
		rec("/tmp/ompi.vm.0/pid.10039/1/plt00000.h5_cid--1-0.sm", 1), rec("/d/a.h5", 1)}}
	b := &Profile{Records: []Record{rec("/tmp/ompi.vm.0/pid.24967/1/plt00000.h5_cid-6-24984.sm", 3),
		rec("/tmp/ompi.vm.0/pid.24967/1/plt00000.h5_cid--1-1.sm", 1), rec("/e/a.h5", 1)}}
	d := Compare(a, b)
	if len(d.Differ) != 1 || d.Differ[0].Counter != "POSIX_OPENS" || d.Differ[0].A != 2 || d.Differ[0].B != 3 {
		t.Errorf("differ: %+v, want the .sm file's POSIX_OPENS 2 against 3", d.Differ)
	}
	if len(d.OnlyA) != 1 || !strings.Contains(d.OnlyA[0], "cid--1-0.sm") || len(d.OnlyB) != 1 || !strings.Contains(d.OnlyB[0], "cid--1-1.sm") {
		t.Errorf("only in A %q, only in B %q: want the MPI_COMM_SELF files of ranks 0 and 1 apart", d.OnlyA, d.OnlyB)
	}
	if len(d.Equal) != 1 || d.Equal[0].File != "a.h5" {
		t.Errorf("equal: %+v, want a.h5's POSIX_OPENS", d.Equal)
	}
}
