package desc

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"

	"github.com/h5proxy/h5proxy/options"
)

// The variables every expression may use besides the parameters.
var builtinVars = []string{"nranks", "rank", "step", "i", "count"}

var (
	sizeRe     = regexp.MustCompile(`^[0-9]+\s*[KMGTPkmgtp](i|iB|B)?$`)
	durationRe = regexp.MustCompile(`^[0-9]*\.?[0-9]+\s*(ns|us|µs|ms|s|min|h)$`)
)

// literal parses a number as written in a description: an integer, a float, a size with a
// binary unit (8Mi, 16 MiB, 4K) as an integer, or a duration (1.5s, 100ms, 2min) as float
// seconds.
func literal(text string) (any, bool) {
	t := strings.TrimSpace(text)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return int(n), true
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		return f, true
	}
	if sizeRe.MatchString(t) {
		u := t
		if strings.HasSuffix(u, "i") {
			u += "B"
		}
		if n, err := options.ParseSize(u); err == nil && n <= math.MaxInt64 {
			return int(n), true
		}
	}
	if durationRe.MatchString(t) {
		if d, err := options.ParseDuration(strings.Replace(t, "min", "m", 1)); err == nil {
			return d.Seconds(), true
		}
	}
	return nil, false
}

// exprText strips a whole-value ${...} (an expression may be written either way).
func exprText(text string) string {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "${") && strings.HasSuffix(t, "}") && strings.Count(t, "${") == 1 {
		return strings.TrimSpace(t[2 : len(t)-1])
	}
	return t
}

// programs caches compiled expressions by text for all scopes of a description.
type programs struct {
	mu sync.Mutex
	m  map[string]*vm.Program
}

func newPrograms() *programs { return &programs{m: map[string]*vm.Program{}} }

// Scope evaluates a description's expressions for one rank of nranks: the parameters (with
// overrides), nranks, rank, and the step set by SetStep. Not safe for concurrent use.
type Scope struct {
	d    *Description
	vars map[string]any
	vm   vm.VM
}

// Scope builds the evaluation scope of rank of nranks; parameters that are expressions are
// evaluated in order (a parameter may use the ones above it).
func (d *Description) Scope(nranks, rank int) (*Scope, error) {
	s := &Scope{d: d, vars: map[string]any{"nranks": nranks, "rank": rank, "step": 0, "i": 0, "count": 0}}
	if d.progs == nil { // a Description not made by Parse
		d.progs = newPrograms()
	}
	for _, p := range d.Params {
		if p.IsList {
			names := make([]any, len(p.Value.List))
			for i, e := range p.Value.List {
				if x, ok := literal(e.Text); ok {
					names[i] = x
				} else {
					names[i] = e.Text
				}
			}
			s.vars[p.Name] = names
			continue
		}
		if x, ok := literal(p.Value.Text); ok {
			s.vars[p.Name] = x
			continue
		}
		if b, err := strconv.ParseBool(p.Value.Text); err == nil {
			s.vars[p.Name] = b
			continue
		}
		// An expression over the parameters above, or else a string.
		s.vars[p.Name] = p.Value.Text
		if x, err := s.eval(p.Value); err == nil {
			s.vars[p.Name] = x
		}
	}
	return s, nil
}

// SetStep sets the step expressions see.
func (s *Scope) SetStep(step int) { s.vars["step"] = step }

// SetIndex sets the element index i that generated attribute values see.
func (s *Scope) SetIndex(i int) { s.vars["i"] = i }

// Var returns a variable's value (a parameter, nranks, rank, step).
func (s *Scope) Var(name string) (any, bool) {
	v, ok := s.vars[name]
	return v, ok
}

// intDiv is integer division rounding down, for div(a, b).
func intDiv(params ...any) (any, error) {
	a, ok1 := toInt(params[0])
	b, ok2 := toInt(params[1])
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("div(%v, %v): want integers", params[0], params[1])
	}
	if b == 0 {
		return nil, fmt.Errorf("div(%d, 0): division by zero", a)
	}
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q, nil
}

// ceilDiv is integer division rounding up, for cdiv(a, b).
func ceilDiv(params ...any) (any, error) {
	a, ok1 := toInt(params[0])
	b, ok2 := toInt(params[1])
	if !ok1 || !ok2 || b <= 0 || a < 0 {
		return nil, fmt.Errorf("cdiv(%v, %v): want a >= 0 and b > 0 integers", params[0], params[1])
	}
	return (a + b - 1) / b, nil
}

func toInt(x any) (int, bool) {
	switch v := x.(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<62 {
			return int(v), true
		}
	}
	return 0, false
}

func (s *Scope) program(text string) (*vm.Program, error) {
	pr := s.d.progs
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if p, ok := pr.m[text]; ok {
		return p, nil
	}
	p, err := expr.Compile(text, expr.Env(s.vars),
		expr.Function("div", intDiv, new(func(int, int) int)),
		expr.Function("cdiv", ceilDiv, new(func(int, int) int)))
	if err != nil {
		return nil, err
	}
	pr.m[text] = p
	return p, nil
}

// allowedVars lists what an expression may name, for errors.
func (s *Scope) allowedVars() string {
	params := ""
	if names := s.paramNames(); len(names) > 0 {
		params = "the parameters " + strings.Join(names, ", ") + ", "
	}
	return "numbers (sizes 8Mi, durations 1.5s), " + params + "nranks, rank, step, count (a file family's number), and expr-lang operators and functions (div(a, b) and cdiv(a, b) divide integers)"
}

func (s *Scope) paramNames() []string {
	n := make([]string, len(s.d.Params))
	for i, p := range s.d.Params {
		n[i] = p.Name
	}
	return n
}

// eval evaluates a value: a literal number, or an expression.
func (s *Scope) eval(v Value) (any, error) {
	if x, ok := literal(v.Text); ok {
		return x, nil
	}
	t := exprText(v.Text)
	if t == "" {
		return nil, errAt(v, "no value", "a number or an expression")
	}
	p, err := s.program(t)
	if err != nil {
		return nil, errAt(v, "bad expression: %s", s.allowedVars(), firstLine(err.Error()))
	}
	x, err := s.vm.Run(p, s.vars)
	if err != nil {
		return nil, errAt(v, "evaluating the expression: %s", "", firstLine(err.Error()))
	}
	return x, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Int evaluates a value that must be an integer.
func (s *Scope) Int(v Value) (int, error) {
	x, err := s.eval(v)
	if err != nil {
		return 0, err
	}
	n, ok := toInt(x)
	if !ok {
		return 0, errAt(v, "evaluates to %v, not an integer", "an integer expression (div(a, b) divides integers)", x)
	}
	return n, nil
}

// Uint evaluates a value that must be a non-negative integer.
func (s *Scope) Uint(v Value) (uint64, error) {
	n, err := s.Int(v)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, errAt(v, "evaluates to %d", "a non-negative integer", n)
	}
	return uint64(n), nil
}

// Float evaluates a numeric value.
func (s *Scope) Float(v Value) (float64, error) {
	x, err := s.eval(v)
	if err != nil {
		return 0, err
	}
	switch n := x.(type) {
	case int:
		return float64(n), nil
	case float64:
		return n, nil
	}
	return 0, errAt(v, "evaluates to %v (%T), not a number", "a numeric expression", x, x)
}

// Duration evaluates a value in seconds (a duration literal, or a number of seconds).
func (s *Scope) Duration(v Value) (time.Duration, error) {
	f, err := s.Float(v)
	if err != nil {
		return 0, err
	}
	if f < 0 {
		return 0, errAt(v, "negative duration", "a duration >= 0")
	}
	return time.Duration(f * float64(time.Second)), nil
}

// Bool evaluates a boolean value: true/false, or an expression.
func (s *Scope) Bool(v Value) (bool, error) {
	if b, err := strconv.ParseBool(strings.TrimSpace(v.Text)); err == nil {
		return b, nil
	}
	x, err := s.eval(v)
	if err != nil {
		return false, err
	}
	b, ok := x.(bool)
	if !ok {
		return false, errAt(v, "evaluates to %v, not a boolean", "true, false or a condition", x)
	}
	return b, nil
}

var fmtRe = regexp.MustCompile(`^[-+ #0]*[0-9]*(\.[0-9]+)?[dxXobsfeEgGv]$`)

// Text expands a template: each ${EXPR} or ${EXPR:FMT} is replaced by the value of EXPR,
// formatted with %FMT when given (${step:04d}).
func (s *Scope) Text(v Value) (string, error) {
	t := v.Text
	if !strings.Contains(t, "${") {
		return t, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(t, "${")
		if i < 0 {
			b.WriteString(t)
			break
		}
		b.WriteString(t[:i])
		j := matchBrace(t, i+2)
		if j < 0 {
			return "", errAt(v, "unclosed ${", "${EXPR} or ${EXPR:FMT}")
		}
		inner, format := t[i+2:j], "%v"
		if k := strings.LastIndexByte(inner, ':'); k >= 0 && fmtRe.MatchString(strings.TrimSpace(inner[k+1:])) {
			inner, format = inner[:k], "%"+strings.TrimSpace(inner[k+1:])
		}
		x, err := s.eval(Value{Text: inner, Pos: v.Pos, Path: v.Path, Set: true})
		if err != nil {
			return "", err
		}
		if f, ok := x.(float64); ok && f == math.Trunc(f) && strings.ContainsAny(format[len(format)-1:], "dxXob") {
			x = int(f)
		}
		b.WriteString(fmt.Sprintf(format, x))
		t = t[j+1:]
	}
	return b.String(), nil
}

// matchBrace returns the index of the } closing the ${ whose body starts at from.
func matchBrace(t string, from int) int {
	depth := 0
	for i := from; i < len(t); i++ {
		switch t[i] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}

// UsesVar reports whether a template or expression names a variable (e.g. rank, step).
func UsesVar(text, name string) bool {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_.])` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9_])`)
	return re.MatchString(text)
}

// SetVar sets a variable for the expressions that follow (rank, while a decomposition
// evaluates every rank's count).
func (s *Scope) SetVar(name string, v any) { s.vars[name] = v }
