package options

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// fuzzTable declares one key of every kind, with bounds, so every value parser is reached.
var fuzzTable = Table{Name: "fuzz", Specs: []Spec{
	{Key: "S", Kind: String, Default: "x"},
	{Key: "B", Aliases: []string{"b_alias"}, Kind: Bool, Default: "NO"},
	{Key: "I", Kind: Int, Default: "3", Min: Bound(-5), Max: Bound(1 << 40)},
	{Key: "Z", Kind: Size, Default: "1 M", Min: Bound(1)},
	{Key: "D", Kind: Duration, Default: "1 s"},
	{Key: "E", Kind: Enum, Default: "ONE", Allowed: []string{"ONE", "TWO"}},
	{Key: "F", Kind: Float, Default: "0.5"},
	{Key: "G", Kind: String, Ignored: true},
}}

// FuzzParse feeds one KEY=VALUE pair (and the same key again) to a table of every kind.
// No input may panic; a rejected pair gets an *Error naming the key as given, with a
// reason; an accepted one reads back through the typed getter of its kind.
func FuzzParse(f *testing.F) {
	for _, s := range [][2]string{{"S", "abc"}, {"b_alias", "yes"}, {"I", "-5"}, {"I", "99999999999999999999"},
		{"Z", "16 M"}, {"Z", "17 PiB"}, {"D", "100 ms"}, {"D", "1.5s"}, {"D", "-1s"}, {"E", "two"}, {"F", "1e308"},
		{"G", "ignored"}, {"nope", "1"}, {"Z", "0"}} {
		f.Add(s[0], s[1], false)
	}
	f.Fuzz(func(t *testing.T, key, value string, twice bool) {
		kvs := []KV{{key, value}}
		if twice {
			kvs = append(kvs, KV{strings.ToLower(key), value})
		}
		v, err := fuzzTable.Parse(kvs)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse(%q=%q): error %T %v, want *Error", key, value, err, err)
			}
			if e.Key != key && e.Key != strings.ToLower(key) || e.Reason == "" || !strings.Contains(err.Error(), strconv.Quote(e.Key)) {
				t.Fatalf("Parse(%q=%q): error %q does not name the key and a reason", key, value, err)
			}
			return
		}
		s, _ := fuzzTable.Lookup(key)
		switch s.Kind {
		case Bool:
			_ = v.Bool(key)
		case Int, Size:
			n := v.Int(key)
			if (s.Min != nil && n < *s.Min) || (s.Max != nil && n > *s.Max) {
				t.Fatalf("%s=%q accepted as %d, outside %s", key, value, n, rangeText(s.Min, s.Max))
			}
		case Duration:
			if d := v.Duration(key); d < 0 {
				t.Fatalf("%s=%q accepted as a negative duration %v", key, value, d)
			}
		case Float:
			_ = v.Float(key)
		default:
			_ = v.String(key)
		}
		if !v.IsSet(key) {
			t.Fatalf("%s=%q accepted but not set", key, value)
		}
	})
}
