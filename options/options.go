// Package options declares configuration keys in tables and parses their values.
//
// Each pattern, mode and layout declares its keys once in a Table (name, kind, default,
// help, allowed values); the same table feeds parsing, `h5proxy help`, the docs and the
// JSON Schema. Values accept h5bench's spellings ("16 M" = 16·1024², "1 s", "100 ms",
// YES/NO) and the native ones ("16MiB", "1.5s", true/false). Errors name the key, the
// value and what is allowed.
//
//	t := options.Table{Name: "vpic", Specs: []options.Spec{{Key: "DIM_1", Kind: options.Size, Default: "1"}}}
//	v, err := t.Parse([]options.KV{{Key: "DIM_1", Value: "16 M"}})
//	n := v.Uint("DIM_1") // 16777216
package options

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Kind is the type of a key's value.
type Kind int

// Value kinds.
const (
	String Kind = iota + 1
	Bool
	Int
	Size     // non-negative byte or element count with optional binary unit
	Duration // h5bench units (s, ms, us, min) or Go durations
	Enum     // one of Spec.Allowed, case-insensitive, stored upper-case as declared
	Float
)

var kindNames = map[Kind]string{String: "string", Bool: "bool", Int: "int", Size: "size", Duration: "duration", Enum: "enum", Float: "float"}

// String names the kind for help output.
func (k Kind) String() string { return kindNames[k] }

// Spec declares one key.
type Spec struct {
	Key     string
	Aliases []string // other accepted spellings (e.g. h5bench's lower-case "mode")
	Kind    Kind
	Default string // parsed like a user value; "" means unset
	Help    string
	Allowed []string // Enum only
	Min     *int64   // Int/Size: inclusive lower bound
	Max     *int64   // Int/Size: inclusive upper bound
	// Ignored marks keys accepted for compatibility whose value has no effect: a warning is
	// returned for them.
	Ignored bool
}

// Bound returns a pointer to v, for Spec.Min and Spec.Max.
func Bound(v int64) *int64 { return &v }

// Table is an ordered set of key declarations.
type Table struct {
	Name  string
	Specs []Spec
}

// KV is one key/value pair as given by the user, in order.
type KV struct{ Key, Value string }

// Lookup finds the spec of key (case-insensitive, aliases included).
func (t *Table) Lookup(key string) (*Spec, bool) {
	for i := range t.Specs {
		s := &t.Specs[i]
		if strings.EqualFold(s.Key, key) {
			return s, true
		}
		for _, a := range s.Aliases {
			if strings.EqualFold(a, key) {
				return s, true
			}
		}
	}
	return nil, false
}

// Duplicates returns the names (keys or aliases, compared case-insensitively) declared
// more than once, so a table's test can insist on none: Lookup would silently take the
// first declaration.
func (t *Table) Duplicates() []string {
	seen := map[string]int{}
	for _, s := range t.Specs {
		names := map[string]bool{} // an alias may repeat its key in another case
		for _, n := range append([]string{s.Key}, s.Aliases...) {
			names[strings.ToLower(n)] = true
		}
		for n := range names {
			seen[n]++
		}
	}
	var dup []string
	for n, c := range seen {
		if c > 1 {
			dup = append(dup, n)
		}
	}
	sort.Strings(dup)
	return dup
}

// Keys returns the declared key names, sorted.
func (t *Table) Keys() []string {
	k := make([]string, len(t.Specs))
	for i, s := range t.Specs {
		k[i] = s.Key
	}
	sort.Strings(k)
	return k
}

// Values holds the parsed values of one table.
type Values struct {
	table *Table
	set   map[string]bool
	raw   map[string]string
	vals  map[string]any
	// Warnings lists keys accepted but ignored.
	Warnings []string
}

// Error is a configuration error naming the key, the value and what is allowed. An
// unknown key (Reason "unknown key") whose Allowed list holds a close spelling suggests
// it: "did you mean TIMESTEPS?".
type Error struct {
	Table, Key, Value, Allowed, Reason string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("config")
	if e.Table != "" {
		b.WriteString(" (" + e.Table + ")")
	}
	fmt.Fprintf(&b, ": key %q", e.Key)
	if e.Value != "" || e.Reason != "unknown key" {
		fmt.Fprintf(&b, " value %q", e.Value)
	}
	b.WriteString(": " + e.Reason)
	if e.Reason == "unknown key" {
		if s := suggestKey(e.Key, e.Allowed); s != "" {
			b.WriteString(" (did you mean " + s + "?)")
		}
	}
	if e.Allowed != "" {
		b.WriteString("; allowed: " + e.Allowed)
	}
	return b.String()
}

// Parse validates the pairs against the table and fills in defaults. A key given twice,
// an unknown key or a value of the wrong form is an error.
func (t *Table) Parse(kvs []KV) (*Values, error) {
	v := &Values{table: t, set: map[string]bool{}, raw: map[string]string{}, vals: map[string]any{}}
	for _, kv := range kvs {
		s, ok := t.Lookup(kv.Key)
		if !ok {
			return nil, &Error{Table: t.Name, Key: kv.Key, Value: kv.Value, Reason: "unknown key", Allowed: strings.Join(t.Keys(), ", ")}
		}
		if v.set[s.Key] {
			return nil, &Error{Table: t.Name, Key: kv.Key, Value: kv.Value, Reason: "given more than once"}
		}
		x, err := s.parse(kv.Value)
		if err != nil {
			err.Table, err.Key = t.Name, kv.Key
			return nil, err
		}
		v.set[s.Key], v.raw[s.Key], v.vals[s.Key] = true, kv.Value, x
		if s.Ignored {
			v.Warnings = append(v.Warnings, fmt.Sprintf("key %s=%s is accepted for h5bench compatibility and ignored", s.Key, kv.Value))
		}
	}
	for i := range t.Specs {
		s := &t.Specs[i]
		if v.set[s.Key] || s.Default == "" {
			continue
		}
		x, err := s.parse(s.Default)
		if err != nil {
			panic(fmt.Sprintf("options: table %s key %s: bad default: %v", t.Name, s.Key, err))
		}
		v.vals[s.Key], v.raw[s.Key] = x, s.Default
	}
	return v, nil
}

func (s *Spec) parse(raw string) (any, *Error) {
	val := strings.TrimSpace(raw)
	bad := func(reason, allowed string) *Error {
		return &Error{Key: s.Key, Value: raw, Reason: reason, Allowed: allowed}
	}
	switch s.Kind {
	case String:
		return val, nil
	case Bool:
		b, ok := ParseBool(val)
		if !ok {
			return nil, bad("not a boolean", "YES, NO, true, false, 1, 0, on, off")
		}
		return b, nil
	case Int, Size:
		var n int64
		var err error
		if s.Kind == Int {
			n, err = strconv.ParseInt(val, 10, 64)
		} else {
			var u uint64
			u, err = ParseSize(val)
			if err == nil && u > 1<<62 {
				err = fmt.Errorf("too large")
			}
			n = int64(u)
		}
		if err != nil {
			allowed := "an integer"
			if s.Kind == Size {
				allowed = "a count with optional binary unit: 4096, 16 M, 16MiB, 1 G"
			}
			return nil, bad("not a valid "+s.Kind.String(), allowed)
		}
		if (s.Min != nil && n < *s.Min) || (s.Max != nil && n > *s.Max) {
			return nil, bad("out of range", rangeText(s.Min, s.Max))
		}
		return n, nil
	case Float:
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return nil, bad("not a number", "a decimal number")
		}
		return f, nil
	case Duration:
		d, err := ParseDuration(val)
		if err != nil {
			return nil, bad("not a duration", `seconds or a unit: "1 s", "100 ms", "250 us", "2 min", "1.5s"`)
		}
		return d, nil
	case Enum:
		for _, a := range s.Allowed {
			if strings.EqualFold(a, val) {
				return a, nil
			}
		}
		return nil, bad("not an allowed value", strings.Join(s.Allowed, ", "))
	}
	return nil, bad("undeclared kind", "")
}

func rangeText(lo, hi *int64) string {
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf("%d..%d", *lo, *hi)
	case lo != nil:
		return fmt.Sprintf(">= %d", *lo)
	case hi != nil:
		return fmt.Sprintf("<= %d", *hi)
	}
	return ""
}

// ParseBool accepts YES/NO (h5bench compares the first letter with Y), true/false, 1/0
// and on/off, case-insensitively.
func ParseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "yes", "y", "true", "1", "on":
		return true, true
	case "no", "n", "false", "0", "off":
		return false, true
	}
	return false, false
}

// ParseSize parses a count with an optional binary unit, separated by optional space:
// K, M, G, T (h5bench: ×1024^n), KB/KiB/..., and B.
func ParseSize(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9') {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("size %q: no number", s)
	}
	n, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil {
		return 0, err
	}
	unit := strings.ToUpper(strings.TrimSpace(s[i:]))
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "IB"), "B")
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "T": 40, "P": 50}
	sh, ok := shift[unit]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit", s)
	}
	if n > (^uint64(0))>>sh {
		return 0, fmt.Errorf("size %q overflows", s)
	}
	return n << sh, nil
}

// ParseDuration accepts h5bench's "<number> <unit>" (s, ms, us, min, m; no unit means
// seconds) and Go duration strings ("1.5s", "100ms").
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return 0, fmt.Errorf("negative duration")
		}
		return d, nil
	}
	i := 0
	for i < len(s) && (s[i] == '.' || (s[i] >= '0' && s[i] <= '9')) {
		i++
	}
	f, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("duration %q: no number", s)
	}
	units := map[string]time.Duration{"": time.Second, "s": time.Second, "sec": time.Second, "ms": time.Millisecond,
		"us": time.Microsecond, "min": time.Minute, "m": time.Minute}
	u, ok := units[strings.ToLower(strings.TrimSpace(s[i:]))]
	if !ok {
		return 0, fmt.Errorf("duration %q: unknown unit", s)
	}
	// Beyond ~292 years the conversion would wrap to a negative duration.
	if d := f * float64(u); d < math.MaxInt64 {
		return time.Duration(d), nil
	}
	return 0, fmt.Errorf("duration %q overflows", s)
}

// IsSet reports whether the user gave the key (defaults do not count).
func (v *Values) IsSet(key string) bool { return v.set[v.canon(key)] }

func (v *Values) canon(key string) string {
	s, ok := v.table.Lookup(key)
	if !ok {
		panic(fmt.Sprintf("options: table %s has no key %s", v.table.Name, key))
	}
	return s.Key
}

func (v *Values) get(key string) any { return v.vals[v.canon(key)] }

// String returns a string or enum value ("" when unset).
func (v *Values) String(key string) string {
	s, _ := v.get(key).(string)
	return s
}

// Bool returns a boolean value (false when unset).
func (v *Values) Bool(key string) bool {
	b, _ := v.get(key).(bool)
	return b
}

// Int returns an int or size value (0 when unset).
func (v *Values) Int(key string) int64 {
	n, _ := v.get(key).(int64)
	return n
}

// Uint returns a size value as uint64.
func (v *Values) Uint(key string) uint64 { return uint64(v.Int(key)) }

// Float returns a float value.
func (v *Values) Float(key string) float64 {
	f, _ := v.get(key).(float64)
	return f
}

// Duration returns a duration value.
func (v *Values) Duration(key string) time.Duration {
	d, _ := v.get(key).(time.Duration)
	return d
}

// Effective returns every key with a value (given or default) as given, for reports.
func (v *Values) Effective() map[string]string {
	m := make(map[string]string, len(v.raw))
	for k, r := range v.raw {
		m[k] = r
	}
	return m
}

// Errorf returns a configuration error for a combination of keys, naming the key and its
// value.
func (v *Values) Errorf(key, reason string, args ...any) error {
	return &Error{Table: v.table.Name, Key: v.canon(key), Value: v.raw[v.canon(key)], Reason: fmt.Sprintf(reason, args...)}
}

// Invalid returns a configuration error naming the key, its value, why it is wrong and
// what is allowed.
func (v *Values) Invalid(key, reason, allowed string) error {
	return &Error{Table: v.table.Name, Key: v.canon(key), Value: v.raw[v.canon(key)], Reason: reason, Allowed: allowed}
}

// WriteHelp prints the table as aligned text: key, kind, default, help, allowed values.
func (t *Table) WriteHelp(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "KEY\tKIND\tDEFAULT\tDESCRIPTION\n")
	for _, s := range t.Specs {
		help := s.Help
		if len(s.Allowed) > 0 {
			help += " [" + strings.Join(s.Allowed, "|") + "]"
		}
		if s.Ignored {
			help += " (accepted, ignored)"
		}
		def := s.Default
		if def == "" {
			def = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Key, s.Kind, def, help)
	}
	return tw.Flush()
}

// SchemaProperties describes every key (aliases included) as JSON Schema properties: the
// value may be a string (h5bench writes every value as a string), a number or a boolean;
// enums list their allowed spellings.
func (t *Table) SchemaProperties() map[string]any {
	props := map[string]any{}
	for _, s := range t.Specs {
		p := map[string]any{"description": s.Help + " (" + s.Kind.String() + ")"}
		switch s.Kind {
		case Enum:
			var allowed []string
			for _, a := range s.Allowed {
				allowed = append(allowed, a, strings.ToLower(a), strings.ToUpper(a))
			}
			slices.Sort(allowed)
			p["enum"] = slices.Compact(allowed)
		case Bool:
			p["type"] = []string{"string", "boolean"}
		case Int, Size, Float, Duration:
			p["type"] = []string{"string", "number"}
		default:
			p["type"] = "string"
		}
		if s.Default != "" {
			p["default"] = s.Default
		}
		for _, k := range append([]string{s.Key}, s.Aliases...) {
			props[k] = p
		}
	}
	return props
}
