package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// scaleCase is a pattern's configuration for plans at scale, a line of
// bench/scale/configs.txt (which bench/scale/scale.sh plans too). keys may use {N}, the
// number of ranks, {N/32}, and {ROOT}, the repository's root. Weak-scaled cases give every rank the same work at any N;
// strong-scaled ones split fixed global data over the ranks.
type scaleCase struct {
	pattern, keys string
	strong        bool
	// spread is the relative difference allowed between ranks of a weak-scaled case
	// (h5bench's normal-distribution kernel draws each rank's count).
	spread float64
}

// loadScaleCases reads bench/scale/configs.txt.
func loadScaleCases(t *testing.T) []scaleCase {
	t.Helper()
	b, err := os.ReadFile("../../bench/scale/configs.txt")
	if err != nil {
		t.Fatal(err)
	}
	var cases []scaleCase
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) != 4 || (f[2] != "weak" && f[2] != "strong") {
			t.Fatalf("bench/scale/configs.txt:%d: want pattern|keys|weak or strong|spread, got %q", i+1, line)
		}
		spread, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			t.Fatalf("bench/scale/configs.txt:%d: spread: %v", i+1, err)
		}
		cases = append(cases, scaleCase{f[0], f[1], f[2] == "strong", spread})
	}
	return cases
}

// planTotals matches the last lines of `h5proxy plan -stats`.
var planTotals = regexp.MustCompile(`(?m)^# (\d+) operations, (\d+) bytes\n# plan_s ([0-9.]+) heap_alloc_bytes (\d+)`)

// caseKeys returns a case's keys for size ranks.
func caseKeys(c scaleCase, size int) string {
	if c.pattern == "iotest" && size < 32 {
		return "process-rows=1 process-columns=" + strconv.Itoa(size)
	}
	return strings.NewReplacer("{N}", strconv.Itoa(size), "{N/32}", strconv.Itoa(max(size/32, 1)), "{ROOT}", "../..").Replace(c.keys)
}

// planBytes plans rank of size ranks in-process and returns the plan's bytes.
func planBytes(t *testing.T, c scaleCase, phase string, rank, size int) uint64 {
	t.Helper()
	args := append([]string{"-stats", "-size", strconv.Itoa(size), "-rank", strconv.Itoa(rank), "-phase", phase, c.pattern}, strings.Fields(caseKeys(c, size))...)
	var out bytes.Buffer
	begin := time.Now()
	if err := cmdPlan(args, &out, io.Discard); err != nil {
		t.Fatalf("h5proxy plan %s: %v", strings.Join(args, " "), err)
	}
	if took := time.Since(begin); took > time.Minute {
		t.Errorf("h5proxy plan %s took %v", strings.Join(args, " "), took)
	}
	m := planTotals.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("h5proxy plan %s: no totals in\n%s", strings.Join(args, " "), out.String())
	}
	n, _ := strconv.ParseUint(m[2], 10, 64)
	return n
}

// TestPlanAtScale plans one rank of 65536 for every pattern's write and read phases
// (E3SM with synthesized maps): each completes within a minute, and its bytes agree with
// N. A weak-scaled rank moves what it moves alone; a strong-scaled rank's bytes times N
// estimate the global data, which must agree (within the rounding of the decomposition)
// with the estimate at 16384 ranks.
func TestPlanAtScale(t *testing.T) {
	const n, smaller = 65536, 16384
	covered := map[string]bool{}
	for _, c := range loadScaleCases(t) {
		covered[c.pattern] = true
		for _, ph := range phasesOf(t, c, n) {
			name := fmt.Sprintf("%s %s %s", c.pattern, c.keys, ph)
			if c.pattern == "vpic-append" && ph == patterns.PhaseWrite {
				// Planned without the file it appends to, the plan assumes the
				// write-unlimited file of one rank: too few rows for DIM_1 per rank.
				continue
			}
			if c.strong {
				// A rank's share falls with N and the total is conserved. A read may also
				// take what every rank reads whole (AMReX's restart reads grow with the
				// box count), so the total of a read may grow, never shrink.
				r := n/2 + 1
				big := planBytes(t, c, ph.String(), r, n)
				small := planBytes(t, c, ph.String(), r*smaller/n, smaller)
				total, smallTotal := float64(big)*n, float64(small)*smaller
				if big == 0 || big > small || total < smallTotal/1.5 || (ph == patterns.PhaseWrite && total > smallTotal*1.5) {
					t.Errorf("%s: rank %d of %d moves %d bytes (x N: %.4g), rank %d of %d %d (x N: %.4g)",
						name, r, n, big, total, r*smaller/n, smaller, small, smallTotal)
				}
				continue
			}
			big, one := planBytes(t, c, ph.String(), n-1, n), planBytes(t, c, ph.String(), 0, 1)
			if d := float64(big) - float64(one); big == 0 || d > c.spread*float64(one) || -d > c.spread*float64(one) {
				t.Errorf("%s: rank %d of %d moves %d bytes, rank 0 of 1 %d", name, n-1, n, big, one)
			}
		}
	}
	for _, p := range patterns.Names() {
		if !covered[p] {
			t.Errorf("pattern %s has no plan at scale", p)
		}
	}
}

// phasesOf returns the phases of a case's pattern.
func phasesOf(t *testing.T, c scaleCase, size int) []patterns.Phase {
	t.Helper()
	kvs, err := proxy.ParseKV(strings.Join(append(strings.Fields(caseKeys(c, size)), "file=out.h5"), ";"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := proxy.ParseOptions(c.pattern, kvs)
	if err != nil {
		t.Fatal(err)
	}
	pat, err := cfg.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	return pat.Phases()
}
