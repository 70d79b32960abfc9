package benchstat

import (
	"slices"
	"testing"
)

// TestSummary: odd and even counts, unsorted input left unchanged, empty input.
func TestSummary(t *testing.T) {
	v := []float64{5, 1, 3}
	if med, lo, hi := Summary(v); med != 3 || lo != 1 || hi != 5 {
		t.Errorf("Summary(5 1 3) = %v %v %v, want 3 1 5", med, lo, hi)
	}
	if !slices.Equal(v, []float64{5, 1, 3}) {
		t.Errorf("Summary sorted its input: %v", v)
	}
	if med, lo, hi := Summary([]float64{4, 1, 2, 8}); med != 3 || lo != 1 || hi != 8 {
		t.Errorf("Summary(4 1 2 8) = %v %v %v, want 3 1 8", med, lo, hi)
	}
	if med, lo, hi := Summary(nil); med != 0 || lo != 0 || hi != 0 {
		t.Errorf("Summary(nil) = %v %v %v", med, lo, hi)
	}
	type run struct{ t float64 }
	if got := Median(Of([]run{{2}, {9}, {4}}, func(r run) float64 { return r.t })); got != 4 {
		t.Errorf("Median(Of(...)) = %v, want 4", got)
	}
}
