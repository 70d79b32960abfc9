package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The openpmd-8a sample's plans are compared with the built-in's, in order, by
// TestPairPlansInOrder (order_test.go); the helpers below list plans for it and for the
// sorted comparisons (TestE3SMFPlan).

// bufferKey matches a write's buffer name in h5proxy plan's listing (a description's
// memory struct's is "struct STRUCT GROUP").
var bufferKey = regexp.MustCompile(` buffer=(struct \S+ /\S*|\S+)`)

// sortedPlanOps is planOps sorted: the comparisons of built-ins and descriptions whose
// call sequences differ in order only.
func sortedPlanOps(t *testing.T, r result) []string {
	t.Helper()
	lines := planOps(t, r)
	slices.Sort(lines)
	return lines
}

// planOps returns the operations h5proxy plan printed, in order, its first line (the
// header) aside, with the buffers' names aside: the built-ins and descriptions name them
// differently.
func planOps(t *testing.T, r result) []string {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	lines := strings.Split(strings.TrimSpace(bufferKey.ReplaceAllString(r.stdout, "")), "\n")
	return lines[1:] // # PATTERN write plan of ...
}
