package proxy

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestReportUnits: the JSON report holds SI values (bytes, seconds, bytes/s) as measured;
// the CSV prints h5bench's binary units (K, M, G = 1024^n) with three decimals.
func TestReportUnits(t *testing.T) {
	p := PhaseReport{Phase: "write", File: "out.h5", Steps: 1, Bytes: 3 * 1024 * 1024 * 1024, ObservedTime: 4,
		RawRate: 1.5 * 1024 * 1024, ObservedRate: 800, RawTime: Stat{Max: 2048}, MetadataTime: Stat{Max: 0.25}}
	r := &Report{Ranks: 2, Pattern: "vpic", ModeEffective: "sync", Layout: "native", Phases: []PhaseReport{p}}
	var js, csv bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteCSV(&csv, 0, ""); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Phases []map[string]any `json:"phases"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	got := back.Phases[0]
	for k, want := range map[string]float64{"bytes": p.Bytes, "raw_rate": p.RawRate, "observed_rate": 800, "observed_time": 4} {
		if got[k] != want {
			t.Errorf("JSON %s = %v, want %v (SI)", k, got[k], want)
		}
	}
	if rt := got["raw_time"].(map[string]any)["max"]; rt != 2048.0 {
		t.Errorf("JSON raw_time.max = %v, want 2048 seconds", rt)
	}
	rows := map[string][2]string{}
	for _, l := range strings.Split(strings.TrimSpace(csv.String()), "\n")[1:] {
		f := strings.Split(l, ", ")
		rows[f[0]] = [2]string{f[1], strings.TrimSpace(f[2])}
	}
	for k, want := range map[string][2]string{"total size": {"3.000", "GB"}, "raw rate": {"1.500", "MB/s"},
		"observed rate": {"800.000", "B/s"}, "raw time": {"2048.000", "seconds"}, "metadata time": {"0.250", "seconds"}} {
		if rows[k] != want {
			t.Errorf("CSV %s = %q, want %q (h5bench's units)", k, rows[k], want)
		}
	}
}

// TestLogRound: logged measurements keep three decimals, or three significant digits
// below 0.1, and print short.
func TestLogRound(t *testing.T) {
	for v, want := range map[float64]string{0.13860553499999997: "0.139", 1.1543588310000001: "1.154",
		0.039459039: "0.0395", 0.000123456: "0.000123", 2048.123456: "2048.123", 0: "0", -0.5004: "-0.5"} {
		if got := strconv.FormatFloat(logRound(v), 'f', -1, 64); got != want {
			t.Errorf("logRound(%v) = %s, want %s", v, got, want)
		}
	}
}

// TestFileList: the summary names the files a phase touched, shortened when many.
func TestFileList(t *testing.T) {
	for _, c := range []struct {
		files []string
		want  string
	}{
		{nil, "out.h5"},
		{[]string{"out_h0.h5", "out_h1.h5"}, "out_h0.h5, out_h1.h5"},
		{[]string{"a", "b", "c", "d", "e"}, "a, b, c, ... (5 files)"},
	} {
		if got := (PhaseReport{File: "out.h5", Files: c.files}).fileList(); got != c.want {
			t.Errorf("fileList(%q) = %q, want %q", c.files, got, c.want)
		}
	}
}
