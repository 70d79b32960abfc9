package proxy

import (
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
)

// Override assigns one key over a configuration that already has it, as a command-line
// setting over a configuration file: a session or strategy key is Set (checked at once), a
// pattern key replaces the configuration's entry for the same key (aliases and case
// included) instead of adding a second one, which the pattern's table would refuse. The
// value of a pattern key is checked by Validate. MPI-IO hints are session keys (the knobs
// mpiio.cb_nodes, ..., mpiio.hints=K=V,...).
func (c *Config) Override(key, value string) error {
	if _, ok := sessionTable.Lookup(key); ok {
		return c.Set(key, value)
	}
	var spec *options.Spec
	if f, err := patterns.Lookup(c.Pattern); err == nil {
		spec, _ = f.Options.Lookup(key)
		c.Options = slices.DeleteFunc(c.Options, func(kv options.KV) bool {
			s, ok := f.Options.Lookup(kv.Key)
			return strings.EqualFold(kv.Key, key) || spec != nil && ok && s == spec
		})
	}
	c.Options = append(c.Options, options.KV{Key: key, Value: value})
	return nil
}
