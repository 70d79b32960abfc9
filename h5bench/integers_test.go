package h5bench_test

import (
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/h5bench"
)

// TestIntegerWarnings checks the warning for each value h5bench's parse_unit reads as
// another number, its absence for values it reads alike, and that h5proxy keeps the
// fraction.
func TestIntegerWarnings(t *testing.T) {
	for _, tc := range []struct{ key, value, want string }{
		{"EMULATED_COMPUTE_TIME_PER_TIMESTEP", "0.2 s", `EMULATED_COMPUTE_TIME_PER_TIMESTEP="0.2 s": h5bench reads the number before the unit as a whole number (strtoul) and would use "0 s"; h5proxy uses "0.2 s" as written`},
		{"EMULATED_COMPUTE_TIME_PER_TIMESTEP", "1.5 s", `EMULATED_COMPUTE_TIME_PER_TIMESTEP="1.5 s": h5bench reads the number before the unit as a whole number (strtoul) and would use "1 s"; h5proxy uses "1.5 s" as written`},
		{"EMULATED_COMPUTE_TIME_PER_TIMESTEP", "2.5", `EMULATED_COMPUTE_TIME_PER_TIMESTEP="2.5": h5bench reads the number before the unit as a whole number (strtoul) and would use "2"; h5proxy uses "2.5" as written`},
		{"DIM_1", "1.5 M", `DIM_1="1.5 M": h5bench reads the number before the unit as a whole number (strtoul) and would use "1 M"; h5proxy uses "1.5 M" as written`},
		{"DIM_1", "16M", `DIM_1="16M": h5bench reads the number before the unit as a whole number (strtoul) and would use "16"; h5proxy uses "16M" as written`},
		{"DIM_1", "16 M", ""},
		{"EMULATED_COMPUTE_TIME_PER_TIMESTEP", "1 s", ""},
		{"EMULATED_COMPUTE_TIME_PER_TIMESTEP", "2.0 s", ""},
		{"MEM_PATTERN", "CONTIG", ""},
		{"COLLECTIVE_DATA", "YES", ""},
	} {
		if got := h5bench.IntegerWarning(tc.key, tc.value); got != tc.want {
			t.Errorf("%s=%q:\n got %q\nwant %q", tc.key, tc.value, got, tc.want)
		}
	}

	// Through a configuration file: one warning per key, and h5proxy runs the fraction.
	d := doc()
	c := conf0(d)
	c["EMULATED_COMPUTE_TIME_PER_TIMESTEP"] = "0.2 s"
	c["DIM_1"] = "16K" // h5proxy: 16 Ki particles; h5bench: 16 (the glued unit is never read)
	f, err := parse(t, d)
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.Runs[0].Config
	var found []string
	for _, w := range cfg.Warnings {
		if strings.Contains(w, "whole number") {
			found = append(found, w)
		}
	}
	if len(found) != 2 || !strings.HasPrefix(found[0], `DIM_1="16K"`) || !strings.Contains(found[0], `would use "16"`) ||
		!strings.HasPrefix(found[1], `EMULATED_COMPUTE_TIME_PER_TIMESTEP="0.2 s"`) || !strings.Contains(found[1], `would use "0 s"`) {
		t.Errorf("warnings %q: want one for DIM_1 (16) then one for EMULATED_COMPUTE_TIME_PER_TIMESTEP (0 s)", found)
	}
	if cfg.ComputePerStep != 200*time.Millisecond {
		t.Errorf("compute per step %v, want the fraction kept: 200ms", cfg.ComputePerStep)
	}
}

// TestSleeptimeWarning: AMReX's sleeptime is an int of seconds; a fraction gets a warning
// naming the whole seconds, a whole number none.
func TestSleeptimeWarning(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{"1.5", `sleeptime="1.5": AMReX reads sleeptime into an int (ParmParse) and sleeps whole seconds (sleep(1) at most; a fraction is not an int there); h5proxy sleeps 1.5 s`},
		{"0.25", `sleeptime="0.25": AMReX reads sleeptime into an int (ParmParse) and sleeps whole seconds (sleep(0) at most; a fraction is not an int there); h5proxy sleeps 0.25 s`},
		{"2", ""},
		{"2.0", ""},
		{"1 s", ""},
	} {
		if got := h5bench.SleeptimeWarning("sleeptime", tc.value); got != tc.want {
			t.Errorf("sleeptime=%q:\n got %q\nwant %q", tc.value, got, tc.want)
		}
	}
}
