package proxy

import (
	"maps"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
)

// Override assigns one key over a configuration that already has it, as a command-line
// setting over a configuration file: a session or strategy key is Set (checked at once), a
// pattern key replaces the configuration's entry for the same key (aliases and case
// included) instead of adding a second one, which the pattern's table would refuse. The
// value of a pattern key is checked by Validate. A key mpi_info.NAME sets the MPI-IO hint
// NAME (the native configuration's "mpi_info" section: mpi_info.cb_nodes=2), so studies
// can sweep hints; hints are free-form for MPI, so only an empty name or value is refused.
func (c *Config) Override(key, value string) error {
	if hint, ok := strings.CutPrefix(key, MPIInfoPrefix); ok {
		if hint == "" || value == "" {
			return &options.Error{Table: "session", Key: key, Value: value, Reason: "an MPI-IO hint needs a name and a value", Allowed: MPIInfoPrefix + "cb_nodes=2, " + MPIInfoPrefix + "romio_cb_write=enable, ..."}
		}
		c.MPIInfo = maps.Clone(c.MPIInfo) // copies of a configuration share the map
		if c.MPIInfo == nil {
			c.MPIInfo = map[string]string{}
		}
		c.MPIInfo[hint] = value
		return nil
	}
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

// MPIInfoPrefix leads the keys of MPI-IO hints in Override (mpi_info.cb_nodes).
const MPIInfoPrefix = "mpi_info."
