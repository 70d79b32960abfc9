package main

import (
	"os"
	"strings"
	"testing"
)

// TestParseReal: the real h5perf's report (testdata/real.txt, `mpirun -np 2 h5perf -e 32M
// -x 4M -X 4M -B 1M -i 3 -P 2 -p 2`): twelve average rates, by API and operation, with its
// "rank 0: " parameter lines and MPI info dump skipped.
func TestParseReal(t *testing.T) {
	r := parseFile(t, "testdata/real.txt")
	if len(r.order) != 12 {
		t.Fatalf("%d rates, want 3 APIs x 4 operations: %v", len(r.order), r.order)
	}
	for k, want := range map[key]float64{
		{4 << 20, "POSIX", "Write"}:            192.66,
		{4 << 20, "POSIX", "Write Open-Close"}: 187.96,
		{4 << 20, "POSIX", "Read"}:             3005.94,
		{4 << 20, "POSIX", "Read Open-Close"}:  2234.30,
		{4 << 20, "MPIO", "Write"}:             915.87,
		{4 << 20, "PHDF5", "Read Open-Close"}:  1031.54,
	} {
		if got := r.rates[k]; got != want {
			t.Errorf("%v: %v, want %v", k, got, want)
		}
	}
	if r.order[0] != (key{4 << 20, "POSIX", "Write"}) || r.order[11] != (key{4 << 20, "PHDF5", "Read Open-Close"}) {
		t.Errorf("order %v", r.order)
	}
}

// TestParseProxy: h5proxy's report with two transfer sizes (testdata/h5proxy.txt,
// `h5proxy h5perf -e 32M -x 2M -X 4M -B 1M -i 2 -P 2 -p 2`) keys the rates by size.
func TestParseProxy(t *testing.T) {
	r := parseFile(t, "testdata/h5proxy.txt")
	if len(r.order) != 24 {
		t.Fatalf("%d rates, want 2 sizes x 3 APIs x 4 operations", len(r.order))
	}
	if got := r.rates[key{2 << 20, "POSIX", "Write"}]; got != 853.13 {
		t.Errorf("2M POSIX Write %v", got)
	}
	if got := r.rates[key{4 << 20, "MPIO", "Write"}]; got != 3079.91 {
		t.Errorf("4M MPIO Write %v", got)
	}
}

// TestParseErrors: a run that printed no rates, or a rate outside its block, is an error,
// not an empty sample.
func TestParseErrors(t *testing.T) {
	for _, out := range []string{"mpirun: not found\n", "Average Throughput: 1.00 MB/s\n",
		"Transfer Buffer Size: 4 bytes\nIO API = MPIO\nWrite (1 iteration(s)):\nAverage Throughput: 1.00 MB/s\nAverage Throughput: 2.00 MB/s\n"} {
		if _, err := parse([]byte(out)); err == nil {
			t.Errorf("parse(%q) succeeded", out)
		}
	}
}

// TestStats: median of an even count is the mean of the middle two; missing keys count
// nothing.
func TestStats(t *testing.T) {
	k := key{1, "MPIO", "Read"}
	rs := []report{{rates: map[key]float64{k: 4}}, {rates: map[key]float64{k: 1}}, {rates: map[key]float64{}}, {rates: map[key]float64{k: 2}}, {rates: map[key]float64{k: 10}}}
	if med, lo, hi, n := stats(rs, k); med != 3 || lo != 1 || hi != 10 || n != 4 {
		t.Errorf("stats %v %v %v %v", med, lo, hi, n)
	}
	if size(4<<20) != "4M" || size(64<<10) != "64K" || size(1000) != "1000" {
		t.Error("size")
	}
}

func parseFile(t *testing.T, name string) report {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Average Throughput") {
		t.Fatalf("%s has no rates", name)
	}
	r, err := parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
