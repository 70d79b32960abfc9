package h5bench

import (
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// e3smFlags are E3SM-IO's options without a value: any non-empty value turns them on.
var e3smFlags = []string{"j", "k", "m", "u", "v", "q"}

// e3smPassed are the configuration keys handed to the e3sm pattern as they are.
var e3smPassed = []string{"r", "f", "s", "g", "y"}

// The h5bench e3sm benchmark (E3SM-IO). h5bench turns every configuration key with a
// non-empty value into E3SM-IO's -<key> <value>, except i, o and map, and takes the map
// file from "map" relative to the run directory. x selects the layout as E3SM-IO's -x
// does: canonical is the native layout, log and blob (h5bench's forced default) the log
// layout; SUBFILING=YES selects the subfiling layout whatever x says.
func init() {
	register("e3sm", adapter{pattern: "e3sm", configure: func(dir, file string, conf map[string]any, cfg *proxy.Config) error {
		cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
		if file == "" {
			return &options.Error{Key: "file", Reason: "required: the output file name (relative to directory); F and I write <name>_h0 and <name>_h1"}
		}
		if err := cfg.Set("file", joinDir(dir, file)); err != nil {
			return err
		}
		layout := "blob"
		if x := proxy.Scalar(conf["x"]); x != "" {
			layout = x
		}
		switch strings.ToLower(layout) {
		case "canonical":
			layout = "native"
		case "log", "blob":
			layout = "log"
		default:
			return &options.Error{Key: "x", Value: layout, Reason: "not an E3SM-IO I/O strategy", Allowed: "canonical (native layout), log, blob (log layout)"}
		}
		if err := cfg.Set("layout", layout); err != nil {
			return err
		}
		if m := proxy.Scalar(conf["map"]); m == "" {
			reason := "required: the decomposition map file, relative to directory (h5bench's runner reads map)"
			if proxy.Scalar(conf["i"]) != "" {
				reason += `; "i" is ignored by h5bench's runner`
			}
			return &options.Error{Key: "map", Reason: reason}
		}
		return setAll(dir, conf, cfg, func(k, v string) (bool, error) {
			switch {
			case v == "" || k == "x":
				return true, nil // h5bench drops empty values; x is done
			case k == "i" || k == "o":
				cfg.Warnings = append(cfg.Warnings, "e3sm key "+k+"="+v+" ignored (h5bench's runner does not pass it)")
				return true, nil
			case k == "map":
				return true, cfg.Set("map", joinDir(dir, v))
			case k == "a":
				switch v {
				case "hdf5":
					return true, nil
				case "hdf5_log":
					return true, cfg.Set("layout", "log")
				}
				return true, &options.Error{Key: k, Value: v, Reason: "E3SM-IO API not modelled", Allowed: "hdf5, hdf5_log"}
			case k == "t":
				return true, cfg.Set("compute_time", v+"s")
			case slices.Contains(e3smFlags, k):
				return true, cfg.Set(k, "YES")
			case slices.Contains(e3smPassed, k):
				return true, cfg.Set(k, v)
			}
			return false, nil // session keys (MODE, SUBFILING, ...) and unknown ones
		})
	}})
}
