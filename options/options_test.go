package options

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		err  string // substring; "" = ok
	}{
		{"4096", 4096, ""},
		{"0", 0, ""},
		{" 7 ", 7, ""},
		{"16 M", 16 * 1024 * 1024, ""},
		{"16M", 16 << 20, ""},
		{"16 m", 16 << 20, ""},
		{"16MiB", 16 << 20, ""},
		{"16 MiB", 16 << 20, ""},
		{"16 MB", 16 << 20, ""},
		{"1 G", 1 << 30, ""},
		{"1GiB", 1 << 30, ""},
		{"2KB", 2048, ""},
		{"2 K", 2048, ""},
		{"2kib", 2048, ""},
		{"3 T", 3 << 40, ""},
		{"1 P", 1 << 50, ""},
		{"512B", 512, ""},
		{"512 b", 512, ""},
		{"18446744073709551615", 1<<64 - 1, ""},
		{"", 0, "no number"},
		{"M", 0, "no number"},
		{"-1", 0, "no number"},
		{"1.5 G", 0, "unknown unit"},
		{"16 Q", 0, "unknown unit"},
		{"16 MM", 0, "unknown unit"},
		{"16 KBB", 0, "unknown unit"},
		{"0x10", 0, "unknown unit"},
		{"16777216 T", 0, "overflows"},
		{"18446744073709551616", 0, "out of range"},
	}
	for _, tc := range tests {
		got, err := ParseSize(tc.in)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("ParseSize(%q) error %v", tc.in, err)
		case tc.err == "" && got != tc.want:
			t.Errorf("ParseSize(%q) = %d, want %d", tc.in, got, tc.want)
		case tc.err != "" && err == nil:
			t.Errorf("ParseSize(%q) = %d, want error %q", tc.in, got, tc.err)
		case tc.err != "" && !strings.Contains(err.Error(), tc.err):
			t.Errorf("ParseSize(%q) error %q, want it to contain %q", tc.in, err, tc.err)
		}
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1 s", time.Second, true},
		{"1s", time.Second, true},
		{"100 ms", 100 * time.Millisecond, true},
		{"100ms", 100 * time.Millisecond, true},
		{"250 us", 250 * time.Microsecond, true},
		{"250us", 250 * time.Microsecond, true},
		{"2 min", 2 * time.Minute, true},
		{"2 MIN", 2 * time.Minute, true},
		{"2 m", 2 * time.Minute, true},
		{"2m", 2 * time.Minute, true},
		{"1.5s", 1500 * time.Millisecond, true},
		{"1.5 s", 1500 * time.Millisecond, true},
		{"0.5 min", 30 * time.Second, true},
		{"3", 3 * time.Second, true},
		{" 3 ", 3 * time.Second, true},
		{"0", 0, true},
		{"4 sec", 4 * time.Second, true},
		{"1h30m", 90 * time.Minute, true},
		{"", 0, false},
		{"s", 0, false},
		{"-1s", 0, false},
		{"-1 s", 0, false},
		{"5 h", 0, false}, // h5bench has no hours; only the Go form "5h" is accepted
		{"5 days", 0, false},
		{"1.2.3 s", 0, false},
		{"fast", 0, false},
		{"9227000000", 0, false}, // seconds past 2^63 ns: wrapped to a negative duration (found by FuzzParse)
		{"1e3 s", 0, false},
	}
	for _, tc := range tests {
		got, err := ParseDuration(tc.in)
		if tc.ok && (err != nil || got != tc.want) {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if !tc.ok && err == nil {
			t.Errorf("ParseDuration(%q) = %v, want error", tc.in, got)
		}
	}
}

func TestParseBool(t *testing.T) {
	tests := []struct {
		in      string
		val, ok bool
	}{
		{"YES", true, true}, {"yes", true, true}, {"Y", true, true}, {"y", true, true},
		{"true", true, true}, {"TRUE", true, true}, {"1", true, true}, {"on", true, true}, {" Yes ", true, true},
		{"NO", false, true}, {"no", false, true}, {"N", false, true}, {"false", false, true},
		{"0", false, true}, {"Off", false, true},
		{"maybe", false, false}, {"", false, false}, {"2", false, false}, {"yess", false, false},
	}
	for _, tc := range tests {
		v, ok := ParseBool(tc.in)
		if v != tc.val || ok != tc.ok {
			t.Errorf("ParseBool(%q) = %v, %v; want %v, %v", tc.in, v, ok, tc.val, tc.ok)
		}
	}
}

// table is a small table with every kind, bounds, an alias, an ignored key and keys with
// and without defaults.
func table() *Table {
	return &Table{Name: "demo", Specs: []Spec{
		{Key: "MODE", Aliases: []string{"mode_alias"}, Kind: Enum, Default: "SYNC", Allowed: []string{"SYNC", "ASYNC", "LOG"}, Help: "I/O mode"},
		{Key: "NUM_DIMS", Kind: Int, Default: "1", Min: Bound(1), Max: Bound(3), Help: "dataset rank"},
		{Key: "DIM_1", Kind: Size, Default: "1", Min: Bound(1), Help: "extent"},
		{Key: "LIMIT", Kind: Size, Max: Bound(1024), Help: "a bounded size without default"},
		{Key: "COMPRESS", Kind: Bool, Default: "NO", Help: "deflate"},
		{Key: "COMPUTE", Kind: Duration, Default: "0", Help: "compute time"},
		{Key: "RATIO", Kind: Float, Default: "0.5", Help: "ratio"},
		{Key: "CSV_FILE", Kind: String, Help: "csv output"},
		{Key: "OLD_KEY", Kind: Int, Ignored: true, Help: "legacy"},
	}}
}

func TestParseValuesAndDefaults(t *testing.T) {
	v, err := table().Parse([]KV{
		{"dim_1", "16 M"},
		{"mode_alias", "async"},
		{"COMPUTE", "100 ms"},
		{"COMPRESS", "yes"},
		{"CSV_FILE", "  out.csv  "},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Uint("DIM_1"); got != 16<<20 {
		t.Errorf("DIM_1 = %d", got)
	}
	if got := v.Int("dim_1"); got != 16<<20 {
		t.Errorf("lookup by lower-case key: %d", got)
	}
	if got := v.String("MODE"); got != "ASYNC" {
		t.Errorf("MODE = %q, want the canonical ASYNC", got)
	}
	if got := v.String("mode_alias"); got != "ASYNC" {
		t.Errorf("MODE via alias = %q", got)
	}
	if got := v.Duration("COMPUTE"); got != 100*time.Millisecond {
		t.Errorf("COMPUTE = %v", got)
	}
	if !v.Bool("COMPRESS") {
		t.Error("COMPRESS = false")
	}
	if got := v.String("CSV_FILE"); got != "out.csv" {
		t.Errorf("CSV_FILE = %q, want trimmed", got)
	}
	// Defaults are applied but not "set".
	if got := v.Int("NUM_DIMS"); got != 1 {
		t.Errorf("NUM_DIMS default = %d", got)
	}
	if got := v.Float("RATIO"); got != 0.5 {
		t.Errorf("RATIO default = %v", got)
	}
	for key, want := range map[string]bool{"DIM_1": true, "MODE": true, "mode_alias": true, "COMPUTE": true,
		"NUM_DIMS": false, "RATIO": false, "LIMIT": false, "OLD_KEY": false} {
		if got := v.IsSet(key); got != want {
			t.Errorf("IsSet(%s) = %v, want %v", key, got, want)
		}
	}
	// Keys without default and not given read as zero values.
	if v.Uint("LIMIT") != 0 || v.Int("OLD_KEY") != 0 {
		t.Error("unset keys without default are not zero")
	}
	if len(v.Warnings) != 0 {
		t.Errorf("Warnings = %v, want none", v.Warnings)
	}
	want := map[string]string{"DIM_1": "16 M", "MODE": "async", "COMPUTE": "100 ms", "COMPRESS": "yes", "CSV_FILE": "  out.csv  ",
		"NUM_DIMS": "1", "RATIO": "0.5"}
	if got := v.Effective(); !reflect.DeepEqual(got, want) {
		t.Errorf("Effective() = %v, want %v", got, want)
	}
	// Effective returns a copy.
	v.Effective()["DIM_1"] = "x"
	if v.Effective()["DIM_1"] != "16 M" {
		t.Error("Effective() exposes internal state")
	}
}

func TestParseAllDefaults(t *testing.T) {
	v, err := table().Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.String("MODE") != "SYNC" || v.Int("NUM_DIMS") != 1 || v.Uint("DIM_1") != 1 || v.Bool("COMPRESS") || v.Duration("COMPUTE") != 0 {
		t.Errorf("defaults: MODE=%q NUM_DIMS=%d DIM_1=%d COMPRESS=%v COMPUTE=%v",
			v.String("MODE"), v.Int("NUM_DIMS"), v.Uint("DIM_1"), v.Bool("COMPRESS"), v.Duration("COMPUTE"))
	}
	for _, k := range table().Keys() {
		if v.IsSet(k) {
			t.Errorf("IsSet(%s) = true with no input", k)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		kvs  []KV
		want string // full error text
	}{
		{"unknown key", []KV{{"DIM_9", "3"}},
			`config (demo): key "DIM_9" value "3": unknown key (did you mean DIM_1?); allowed: COMPRESS, COMPUTE, CSV_FILE, DIM_1, LIMIT, MODE, NUM_DIMS, OLD_KEY, RATIO`},
		{"unknown key, case and a typo", []KV{{"num_dim", "2"}},
			`config (demo): key "num_dim" value "2": unknown key (did you mean NUM_DIMS?); allowed: COMPRESS, COMPUTE, CSV_FILE, DIM_1, LIMIT, MODE, NUM_DIMS, OLD_KEY, RATIO`},
		{"unknown key without value", []KV{{"FOO", ""}},
			`config (demo): key "FOO": unknown key; allowed: COMPRESS, COMPUTE, CSV_FILE, DIM_1, LIMIT, MODE, NUM_DIMS, OLD_KEY, RATIO`},
		{"duplicate key", []KV{{"DIM_1", "3"}, {"dim_1", "4"}},
			`config (demo): key "dim_1" value "4": given more than once`},
		{"duplicate via alias", []KV{{"MODE", "SYNC"}, {"mode_alias", "LOG"}},
			`config (demo): key "mode_alias" value "LOG": given more than once`},
		{"bad enum", []KV{{"MODE", "FAST"}},
			`config (demo): key "MODE" value "FAST": not an allowed value; allowed: SYNC, ASYNC, LOG`},
		{"bad bool", []KV{{"COMPRESS", "maybe"}},
			`config (demo): key "COMPRESS" value "maybe": not a boolean; allowed: YES, NO, true, false, 1, 0, on, off`},
		{"bad size", []KV{{"DIM_1", "16 Q"}},
			`config (demo): key "DIM_1" value "16 Q": not a valid size; allowed: a count with optional binary unit: 4096, 16 M, 16MiB, 1 G`},
		{"bad int", []KV{{"NUM_DIMS", "2.0"}},
			`config (demo): key "NUM_DIMS" value "2.0": not a valid int; allowed: an integer`},
		{"int below min", []KV{{"NUM_DIMS", "0"}},
			`config (demo): key "NUM_DIMS" value "0": out of range; allowed: 1..3`},
		{"int above max", []KV{{"NUM_DIMS", "4"}},
			`config (demo): key "NUM_DIMS" value "4": out of range; allowed: 1..3`},
		{"size below min", []KV{{"DIM_1", "0"}},
			`config (demo): key "DIM_1" value "0": out of range; allowed: >= 1`},
		{"size above max", []KV{{"LIMIT", "2 K"}},
			`config (demo): key "LIMIT" value "2 K": out of range; allowed: <= 1024`},
		{"size too large for int64", []KV{{"DIM_1", "4097 P"}},
			`config (demo): key "DIM_1" value "4097 P": not a valid size; allowed: a count with optional binary unit: 4096, 16 M, 16MiB, 1 G`},
		{"bad duration", []KV{{"COMPUTE", "5 days"}},
			`config (demo): key "COMPUTE" value "5 days": not a duration; allowed: seconds or a unit: "1 s", "100 ms", "250 us", "2 min", "1.5s"`},
		{"bad float", []KV{{"RATIO", "half"}},
			`config (demo): key "RATIO" value "half": not a number; allowed: a decimal number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := table().Parse(tc.kvs)
			if err == nil {
				t.Fatalf("Parse succeeded: %v", v.Effective())
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got  %s\n want %s", err, tc.want)
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not *options.Error", err)
			}
			if ce.Table != "demo" || ce.Key != tc.kvs[len(tc.kvs)-1].Key {
				t.Errorf("Error fields: table %q key %q", ce.Table, ce.Key)
			}
		})
	}
}

func TestBoundaryValuesAccepted(t *testing.T) {
	for _, kv := range []KV{{"NUM_DIMS", "1"}, {"NUM_DIMS", "3"}, {"LIMIT", "1 K"}, {"LIMIT", "0"}, {"DIM_1", "1"}, {"DIM_1", "4096 P"}} {
		if _, err := table().Parse([]KV{kv}); err != nil {
			t.Errorf("%s=%s rejected: %v", kv.Key, kv.Value, err)
		}
	}
}

func TestIgnoredKeysWarn(t *testing.T) {
	v, err := table().Parse([]KV{{"OLD_KEY", "5"}, {"DIM_1", "2"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"key OLD_KEY=5 is accepted for h5bench compatibility and ignored"}
	if !reflect.DeepEqual(v.Warnings, want) {
		t.Errorf("Warnings = %q, want %q", v.Warnings, want)
	}
	if !v.IsSet("OLD_KEY") {
		t.Error("an ignored key that was given is still set")
	}
	// The value of an ignored key is still validated.
	if _, err := table().Parse([]KV{{"OLD_KEY", "five"}}); err == nil {
		t.Error("OLD_KEY=five accepted")
	}
}

func TestValuesErrorf(t *testing.T) {
	v, err := table().Parse([]KV{{"dim_1", "3"}})
	if err != nil {
		t.Fatal(err)
	}
	err = v.Errorf("dim_1", "must be even (NUM_DIMS=%d)", 1)
	if got, want := err.Error(), `config (demo): key "DIM_1" value "3": must be even (NUM_DIMS=1)`; got != want {
		t.Errorf("Errorf = %q, want %q", got, want)
	}
	// A defaulted key reports its default value.
	err = v.Errorf("NUM_DIMS", "conflicts")
	if got, want := err.Error(), `config (demo): key "NUM_DIMS" value "1": conflicts`; got != want {
		t.Errorf("Errorf = %q, want %q", got, want)
	}
}

func TestUndeclaredKeyPanics(t *testing.T) {
	v, err := table().Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "table demo has no key NOPE") {
			t.Errorf("recover() = %v", r)
		}
	}()
	v.Int("NOPE")
}

func TestBadDefaultPanics(t *testing.T) {
	tb := &Table{Name: "broken", Specs: []Spec{{Key: "N", Kind: Int, Default: "ten"}}}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "table broken key N: bad default") {
			t.Errorf("recover() = %v", r)
		}
	}()
	tb.Parse(nil)
}

func TestLookupAndKeys(t *testing.T) {
	tb := table()
	if s, ok := tb.Lookup("MODE_ALIAS"); !ok || s.Key != "MODE" {
		t.Errorf("Lookup(MODE_ALIAS) = %v, %v", s, ok)
	}
	if _, ok := tb.Lookup("nope"); ok {
		t.Error("Lookup(nope) found something")
	}
	want := []string{"COMPRESS", "COMPUTE", "CSV_FILE", "DIM_1", "LIMIT", "MODE", "NUM_DIMS", "OLD_KEY", "RATIO"}
	if got := tb.Keys(); !reflect.DeepEqual(got, want) {
		t.Errorf("Keys() = %v", got)
	}
	if tb.Specs[0].Key != "MODE" {
		t.Error("Keys() reordered the table")
	}
}

func TestDuplicates(t *testing.T) {
	if d := table().Duplicates(); len(d) != 0 {
		t.Errorf("Duplicates() of a clean table = %v", d)
	}
	tb := &Table{Name: "t", Specs: []Spec{
		{Key: "a", Aliases: []string{"A"}, Kind: String}, {Key: "B", Aliases: []string{"c"}, Kind: String}, {Key: "C", Kind: String}, {Key: "A", Kind: String},
	}}
	if d := tb.Duplicates(); !reflect.DeepEqual(d, []string{"a", "c"}) {
		t.Errorf("Duplicates() = %v, want [a c]", d)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{String: "string", Bool: "bool", Int: "int", Size: "size", Duration: "duration", Enum: "enum", Float: "float"} {
		if got := k.String(); got != want {
			t.Errorf("Kind %d = %q, want %q", int(k), got, want)
		}
	}
}

func TestWriteHelp(t *testing.T) {
	tb := table()
	var b bytes.Buffer
	if err := tb.WriteHelp(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != len(tb.Specs)+1 {
		t.Fatalf("%d lines for %d keys:\n%s", len(lines), len(tb.Specs), b.String())
	}
	if f := strings.Fields(lines[0]); !reflect.DeepEqual(f, []string{"KEY", "KIND", "DEFAULT", "DESCRIPTION"}) {
		t.Errorf("header = %q", lines[0])
	}
	col := strings.Index(lines[0], "KIND")
	for i, s := range tb.Specs {
		l := lines[i+1]
		f := strings.Fields(l)
		def := s.Default
		if def == "" {
			def = "-"
		}
		if f[0] != s.Key || f[1] != s.Kind.String() || f[2] != def {
			t.Errorf("line %q: want key %s kind %s default %s", l, s.Key, s.Kind, def)
		}
		if !strings.Contains(l, s.Help) {
			t.Errorf("line %q lacks help %q", l, s.Help)
		}
		if strings.Index(l, s.Kind.String()) != col {
			t.Errorf("line %q: kind column not aligned at %d", l, col)
		}
	}
	out := b.String()
	for _, want := range []string{"[SYNC|ASYNC|LOG]", "legacy (accepted, ignored)"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
}

func ExampleTable_Parse() {
	t := &Table{Name: "vpic", Specs: []Spec{
		{Key: "DIM_1", Kind: Size, Default: "1", Min: Bound(1)},
		{Key: "COLLECTIVE_DATA", Kind: Bool, Default: "NO"},
		{Key: "EMULATED_COMPUTE_TIME_PER_TIMESTEP", Kind: Duration, Default: "0"},
		{Key: "MEM_PATTERN", Kind: Enum, Default: "CONTIG", Allowed: []string{"CONTIG", "INTERLEAVED"}},
	}}
	v, err := t.Parse([]KV{{"DIM_1", "16 M"}, {"COLLECTIVE_DATA", "YES"}, {"EMULATED_COMPUTE_TIME_PER_TIMESTEP", "100 ms"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Uint("DIM_1"), v.Bool("COLLECTIVE_DATA"), v.Duration("EMULATED_COMPUTE_TIME_PER_TIMESTEP"),
		v.String("MEM_PATTERN"), v.IsSet("MEM_PATTERN"))

	_, err = t.Parse([]KV{{"MEM_PATTERN", "STRIDED"}})
	fmt.Println(err)
	// Output:
	// 16777216 true 100ms CONTIG false
	// config (vpic): key "MEM_PATTERN" value "STRIDED": not an allowed value; allowed: CONTIG, INTERLEAVED
}

// TestSuggestKey: an unknown key suggests the nearest known spelling, case-insensitively,
// from every group of an Allowed list, and nothing when no key is close.
func TestSuggestKey(t *testing.T) {
	const allowed = "DIM_1, DIM_2, TIMESTEPS; session keys: compute_time, file; h5bench spellings of session keys: EMULATED_COMPUTE_TIME_PER_TIMESTEP, CSV_FILE"
	for key, want := range map[string]string{
		"TIMESTEP":                       "TIMESTEPS",
		"timesteps_":                     "TIMESTEPS",
		"TIMSTEPS":                       "TIMESTEPS",
		"DIMS_2":                         "DIM_2",
		"compute-tim":                    "compute_time",
		"CSV_FLIE":                       "CSV_FILE",
		"fiel":                           "file",
		"EMULATED_COMPUTE_TIME_PER_STEP": "",
		"READ_OPTION":                    "",
		"x":                              "",
		"session":                        "", // a label, not a key
	} {
		if got := suggestKey(key, allowed); got != want {
			t.Errorf("suggestKey(%q) = %q, want %q", key, got, want)
		}
	}
	e := &Error{Table: "vpic", Key: "TIMESTEP", Value: "4", Reason: "unknown key", Allowed: allowed}
	if got, want := e.Error(), `config (vpic): key "TIMESTEP" value "4": unknown key (did you mean TIMESTEPS?); allowed: `+allowed; got != want {
		t.Errorf("error\n%s\nwant\n%s", got, want)
	}
	// Other reasons never suggest, even with a close value.
	e = &Error{Key: "MODE", Value: "SYN", Reason: "not an allowed value", Allowed: "SYNC, ASYNC"}
	if strings.Contains(e.Error(), "did you mean") {
		t.Errorf("suggestion for a bad value: %s", e)
	}
}
