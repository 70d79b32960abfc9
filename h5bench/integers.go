package h5bench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// h5bench's write and read programs (h5bench_patterns, commons/h5bench_util.c) read a
// configuration value's number as a whole number: parse_unit takes the text before the
// first space and converts it with strtoul(…, 10), which stops at the first character
// that is not a digit; the unit is the next space-separated word. So
// EMULATED_COMPUTE_TIME_PER_TIMESTEP "0.2 s" sleeps 0 s and "1.5 s" 1 s, DIM_1 "1.5 M" is
// 1 M and "16M" (no space) is 16: the glued unit is never read. The keys read with atoi
// (NUM_DIMS, ALIGN_LEN, ...) stop at the same character.
//
// h5proxy keeps what the value says (0.2 s, 1.5 M, 16 MiB): that is what a configuration
// that writes a fraction means, and what a study that varies it needs. Where h5bench
// would run something else, the configuration gets a warning, once per key, naming the
// value h5bench would use (integerWarning), so results compared with h5bench's are
// compared knowingly.

// h5benchReads returns the value h5bench's parse_unit would see in v and whether it
// differs from v: the leading digits of v's first word, then v's second word (the unit)
// if any. Values whose first word does not start with a digit are not numbers (names,
// YES/NO) and are left to the option's own checks.
func h5benchReads(v string) (string, bool) {
	words := strings.Fields(v)
	if len(words) == 0 {
		return "", false
	}
	first := words[0]
	n := 0
	for n < len(first) && first[n] >= '0' && first[n] <= '9' {
		n++
	}
	rest := first[n:]
	if n == 0 || rest == "" {
		return "", false
	}
	if frac, ok := strings.CutPrefix(rest, "."); ok && strings.Trim(frac, "0") == "" {
		return "", false // "2.0", "2." : the same whole number
	}
	whole := strings.TrimLeft(first[:n], "0")
	if whole == "" {
		whole = "0"
	}
	if len(words) > 1 {
		whole += " " + words[1]
	}
	return whole, true
}

// integerWarning is the warning for key=v when h5bench would read another number, or "".
func integerWarning(key, v string) string {
	whole, differs := h5benchReads(v)
	if !differs {
		return ""
	}
	return fmt.Sprintf("%s=%q: h5bench reads the number before the unit as a whole number (strtoul) and would use %q; h5proxy uses %q as written",
		key, v, whole, v)
}

// AMReX's HDF5 benchmark (amrex/Tests/HDF5Benchmark/main.cpp, h5bench_amrex) reads
// sleeptime with ParmParse into an int and sleeps with sleep(), whole seconds: a fraction
// is not an int there. h5proxy sleeps the fraction; sleeptimeWarning says so, naming the
// whole seconds AMReX's sleep would take.
func sleeptimeWarning(key, v string) string {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f == math.Trunc(f) {
		return "" // a whole number, or not a plain number (the option's own check names it)
	}
	return fmt.Sprintf("%s=%q: AMReX reads sleeptime into an int (ParmParse) and sleeps whole seconds (sleep(%d) at most; a fraction is not an int there); h5proxy sleeps %s s",
		key, v, int64(f), strconv.FormatFloat(f, 'g', -1, 64))
}
