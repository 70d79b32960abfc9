package proxy

import (
	"strings"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// ApplyKnobs applies the knobs of cfg that hold in phase ph, on size ranks, to op, as a
// session does before handing op to its stack.
func ApplyKnobs(cfg Config, ph patterns.Phase, size int, op *plan.Op) (*plan.Op, error) {
	k, err := cfg.knobsFor(ph, size)
	if err != nil {
		return nil, err
	}
	return k.apply(op)
}

// ParseSysIO parses /proc/self/io text into the census' fields, in order.
func ParseSysIO(text string) []float64 { return parseSysIO(strings.NewReader(text)) }

// SessionHints are the MPI-IO hints a session of pattern pat opens its files with.
func SessionHints(pat patterns.Pattern, cfg Config) map[string]string { return sessionHints(pat, &cfg) }
