package proxy_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// reportingVPIC is the vpic pattern with a kernel report of its own that echoes the
// measurements the session hands it.
type reportingVPIC struct {
	patterns.Pattern
	got []patterns.PhaseTimes
}

func (r *reportingVPIC) KernelReport(t patterns.PhaseTimes) []patterns.Line {
	r.got = append(r.got, t)
	var stepBytes float64
	for _, s := range t.Steps {
		stepBytes += s.Bytes
	}
	return []patterns.Line{
		{Text: "--- kernel " + t.Phase.String() + " ---"},
		{Name: "kernel bytes", Value: t.Bytes, Unit: "B"},
		{Name: "kernel step bytes", Value: stepBytes, Unit: "B"},
		{Name: "kernel raw max", Value: t.Raw.Max, Unit: "s"},
		{Name: "kernel wall max", Value: t.Wall.Max, Unit: "s"},
		{Name: "kernel steps", Value: float64(len(t.Steps))},
	}
}

// TestKernelReport: a pattern implementing patterns.Reporter gets each finished phase's
// reduced measurements, the same the report holds, and its lines reach the JSON report,
// the summary and the CSV after h5bench's rows.
func TestKernelReport(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	s := session(t, config(t, "DIM_1=2000;COLLECTIVE_DATA=YES", fileOf(dir, "kernelreport", 2)))
	defer s.Close()
	rp := &reportingVPIC{}
	proxy.WrapPattern(s, func(p patterns.Pattern) patterns.Pattern { rp.Pattern = p; return rp })
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Report()
	if err != nil {
		t.Fatal(err)
	}
	if len(rp.got) != 2 || rp.got[0].Phase != patterns.PhaseWrite || rp.got[1].Phase != patterns.PhaseRead {
		t.Fatalf("KernelReport calls: %+v, want one per phase (write, read)", rp.got)
	}
	for i, p := range rep.Phases {
		pt := rp.got[i]
		if pt.Ranks != 2 || pt.Bytes != p.Bytes || pt.Raw.Max != p.RawTime.Max || pt.Raw.Min != p.RawTime.Min ||
			pt.Observed != p.ObservedTime || len(pt.Steps) != p.Steps {
			t.Errorf("%s: PhaseTimes %+v disagree with the report (bytes %v, raw %+v, observed %v, steps %d)",
				p.Phase, pt, p.Bytes, p.RawTime, p.ObservedTime, p.Steps)
		}
		// Each rank's own span lies inside the observed window and holds its raw time.
		if pt.Wall.Max > p.ObservedTime || pt.Wall.Min < p.RawTime.Min || pt.Wall.Min > pt.Wall.Max {
			t.Errorf("%s: wall %+v, observed %v, raw %+v", p.Phase, pt.Wall, p.ObservedTime, p.RawTime)
		}
		if len(p.Kernel) != 6 || p.Kernel[1].Value != p.Bytes || p.Kernel[2].Value != p.Bytes || p.Kernel[5].Value != timesteps {
			t.Errorf("%s: kernel lines %+v (bytes %v)", p.Phase, p.Kernel, p.Bytes)
		}
		var sum, csv bytes.Buffer
		if err := rep.WriteSummary(&sum); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteCSV(&csv, i, ""); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(sum.String(), "--- kernel "+p.Phase+" ---\nkernel bytes: ") {
			t.Errorf("summary lacks the kernel's lines:\n%s", sum.String())
		}
		rows := strings.Split(strings.TrimSuffix(csv.String(), "\n"), "\n")
		last := rows[len(rows)-1]
		if last != "kernel steps, 2.000, " || strings.Contains(csv.String(), "--- kernel") {
			t.Errorf("CSV: last row %q, want the kernel's last line; Text-only lines stay out:\n%s", last, csv.String())
		}
	}
}
