package h5bench

import (
	"fmt"
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// The benchmarks h5bench's runner hands to its h5bench_patterns programs: write (VPIC-IO)
// and read (BD-CATS-IO), and the variants sharing their configuration keys and file.
// The runner appends IO_OPERATION=OVERWRITE or APPEND to the overwrite and append entries'
// configuration, which overrides one given there; the write variants check it.
func init() {
	entries := []struct {
		benchmark, pattern string
		phase              patterns.Phase
		operation          string // IO_OPERATION the program requires ("": set by the runner)
	}{
		{"write", "vpic", patterns.PhaseWrite, "WRITE"},
		{"read", "vpic", patterns.PhaseRead, "READ"},
		{"write-unlimited", "vpic-unlimited", patterns.PhaseWrite, "WRITE"},
		{"write_var_normal_dist", "vpic-normal-dist", patterns.PhaseWrite, "WRITE"},
		{"overwrite", "vpic-overwrite", patterns.PhaseWrite, ""},
		{"append", "vpic-append", patterns.PhaseWrite, ""},
	}
	for _, e := range entries {
		register(e.benchmark, adapter{pattern: e.pattern, configure: func(dir, file string, conf map[string]any, cfg *proxy.Config) error {
			cfg.Phases = []patterns.Phase{e.phase}
			if file == "" {
				return &options.Error{Key: "file", Reason: "required: the HDF5 file name (relative to directory)"}
			}
			if err := cfg.Set("file", joinDir(dir, file)); err != nil {
				return err
			}
			return setAll(dir, conf, cfg, func(k, v string) (bool, error) {
				if strings.EqualFold(k, "IO_OPERATION") && e.operation != "" && !strings.EqualFold(v, e.operation) {
					return true, &options.Error{Key: k, Value: v, Reason: fmt.Sprintf("contradicts benchmark %q", e.benchmark), Allowed: e.operation}
				}
				return false, nil
			})
		}})
	}
}
