// Package h5diff reads the report of HDF5's h5diff -r for tests that compare a run's files
// with another run's and must excuse attributes that hold a wall-clock time (a date
// written at run time differs between any two runs).
package h5diff

import (
	"slices"
	"strings"
)

// OnlyAttributesDiffer reports whether every difference h5diff -r reported in out is in
// one of the attributes named, each as h5diff names it: "NAME of <PATH>" (its blocks
// begin "attribute: <NAME of <PATH>> and ..."). It is
// false when names is empty, when h5diff found no difference to excuse, or when it said
// anything else: objects in one file only, types not comparable.
func OnlyAttributesDiffer(out string, names []string) bool {
	if len(names) == 0 {
		return false
	}
	header, excused := "", false
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "attribute: <") || strings.HasPrefix(line, "dataset: <") || strings.HasPrefix(line, "group  : <"):
			header = line
		case strings.HasSuffix(line, "differences found"):
			if strings.HasPrefix(line, "0 ") {
				continue
			}
			if !slices.ContainsFunc(names, func(c string) bool { return strings.HasPrefix(header, "attribute: <"+c+">") }) {
				return false
			}
			excused = true
		case strings.Contains(line, "not comparable") || strings.Contains(line, "exist only in") || strings.Contains(line, "Some objects"):
			return false
		}
	}
	return excused
}
