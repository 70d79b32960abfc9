package h5bench

import (
	"fmt"
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// The h5bench write (VPIC-IO) and read (BD-CATS-IO) benchmarks.
func init() {
	for _, ph := range []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead} {
		name := ph.String()
		register(name, adapter{pattern: "vpic", configure: func(dir, file string, conf map[string]any, cfg *proxy.Config) error {
			cfg.Phases = []patterns.Phase{ph}
			if file == "" {
				return &options.Error{Key: "file", Reason: "required: the HDF5 file name (relative to directory)"}
			}
			if err := cfg.Set("file", joinDir(dir, file)); err != nil {
				return err
			}
			return setAll(dir, conf, cfg, func(k, v string) (bool, error) {
				if strings.EqualFold(k, "IO_OPERATION") && !strings.EqualFold(v, ph.String()) {
					return true, &options.Error{Key: k, Value: v, Reason: fmt.Sprintf("contradicts benchmark %q", name), Allowed: strings.ToUpper(ph.String())}
				}
				return false, nil
			})
		}})
	}
}
