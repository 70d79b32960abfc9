// Package plantest holds what the pattern packages' tests share: option pairs from
// "KEY=VALUE" strings and building a pattern from them.
package plantest

import (
	"errors"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
)

// KV turns "KEY=VALUE" strings into option pairs; a string without '=' is a mistake in
// the test's data and panics.
func KV(pairs ...string) []options.KV {
	out := make([]options.KV, len(pairs))
	for i, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			panic("plantest: bad pair " + p)
		}
		out[i] = options.KV{Key: k, Value: v}
	}
	return out
}

// Build parses the pairs with table and builds the pattern with newPattern, returning it
// as P with the parse warnings.
func Build[P patterns.Pattern](table *options.Table, newPattern func(*options.Values) (patterns.Pattern, error), pairs ...string) (P, []string, error) {
	var zero P
	v, err := table.Parse(KV(pairs...))
	if err != nil {
		return zero, nil, err
	}
	p, err := newPattern(v)
	if err != nil {
		return zero, v.Warnings, err
	}
	return p.(P), v.Warnings, nil
}

// MustBuild is Build that fails the test on an error.
func MustBuild[P patterns.Pattern](t testing.TB, table *options.Table, newPattern func(*options.Values) (patterns.Pattern, error), pairs ...string) P {
	t.Helper()
	p, _, err := Build[P](table, newPattern, pairs...)
	if err != nil {
		t.Fatalf("build %v: %v", pairs, err)
	}
	return p
}

// CheckOptionsError reports, for the test case named what, an err that is not an
// *options.Error or whose text lacks one of want (the key, the value, what is allowed).
func CheckOptionsError(t testing.TB, what any, err error, want ...string) {
	t.Helper()
	var oe *options.Error
	if !errors.As(err, &oe) {
		t.Errorf("%v: error %v (%T), want an options.Error", what, err, err)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%v: error %q lacks %q", what, err, w)
		}
	}
}
