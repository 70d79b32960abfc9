package h5bench

import (
	"fmt"
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/macsio"
	"github.com/h5proxy/h5proxy/proxy"
)

// The h5bench macsio benchmark (h5bench.py run_macsio, launching h5bench_macsio, MACSio
// built with its HDF5 plugin). The runner builds MACSio's command line: --<key> <value>
// for every configuration key in the file's order but filebase and interface (falsy
// values left out), then --interface hdf5, --filebase <directory>/<file without .h5>,
// --log_file_name <directory>/macsio.log and --timings_file_name <directory>/timings.log,
// the whole split on blanks. h5proxy parses that command line as `h5proxy macsio` does
// and runs the dumps (MACSio's write phase); the runner's per-run subdirectory (its id)
// is not made, as for every entry. MACSio itself writes neither file when the name holds
// a '/' (its JSON escapes it), which the runner's always do; h5proxy writes both.
func init() {
	register("macsio", adapter{pattern: "macsio", ordered: configureMacsio})
}

func configureMacsio(dir, file string, keys []string, conf map[string]any, cfg *proxy.Config) error {
	argv := MacsioArgs(dir, file, keys, conf)
	if file == "" {
		return &options.Error{Key: "file", Value: file, Reason: "h5bench's runner makes MACSio's --filebase from the entry's file (its name without .h5)", Allowed: "a file name such as test.h5"}
	}
	a, err := macsio.Parse(argv)
	if err != nil {
		return fmt.Errorf("macsio as h5bench runs it (h5bench_macsio %s): %w", strings.Join(argv, " "), err)
	}
	for _, kv := range a.KVs() {
		if err := cfg.Set(kv.Key, kv.Value); err != nil {
			return err
		}
	}
	for _, o := range a.Unused {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("macsio: %s is parsed and not used (as in MACSio)", o))
	}
	cfg.Warnings = append(cfg.Warnings, a.Warnings...)
	cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
	return nil
}

// MacsioArgs is the MACSio command line h5bench's runner builds for an entry (without the
// program): the configuration's keys in order, then the runner's own options.
func MacsioArgs(dir, file string, keys []string, conf map[string]any) []string {
	var argv []string
	for _, k := range keys {
		v := conf[k]
		if k == "filebase" || k == "interface" || falsy(v) {
			continue
		}
		text := proxy.Scalar(v)
		if b, ok := v.(bool); ok { // Python's str(True)
			text = map[bool]string{true: "True", false: "False"}[b]
		}
		argv = append(argv, "--"+k)
		argv = append(argv, strings.Fields(text)...)
	}
	return append(argv, "--interface", "hdf5", "--filebase", joinDir(dir, strings.ReplaceAll(file, ".h5", "")),
		"--log_file_name", joinDir(dir, "macsio.log"), "--timings_file_name", joinDir(dir, "timings.log"))
}

// falsy is Python's truth test of a JSON value: null, false, 0, "" and empty lists and
// objects are left out by the runner.
func falsy(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case float64:
		return x == 0
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}
