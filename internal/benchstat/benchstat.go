// Package benchstat summarizes a benchmark's repeated measurements the same way in every
// bench/ program: the median and the range.
package benchstat

import "slices"

// Summary returns the median (the mean of the two middle values of an even count), the
// minimum and the maximum of v, without changing v; all zero when v is empty.
func Summary(v []float64) (med, lo, hi float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}

// Median is Summary's median.
func Median(v []float64) float64 {
	med, _, _ := Summary(v)
	return med
}

// Of is get applied to every element of xs.
func Of[T any](xs []T, get func(T) float64) []float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = get(x)
	}
	return v
}
