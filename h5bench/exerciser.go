package h5bench

import (
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// exerciserFlags are the keys h5bench passes as bare flags, and only when their value is
// "true" (any case): any other value leaves the flag off.
var exerciserFlags = []string{"keepfile", "usechunked", "indepio", "addattr", "derivedtype"}

// The h5bench exerciser benchmark (h5bench_exerciser): h5bench turns each configuration
// key into --<key> <value>, the flags above into --<key>; metacoll is not among h5bench's
// flags, so only an empty value turns it on there (any other value is an argument the
// exerciser rejects), which h5proxy accepts along with boolean values. The exerciser writes
// hdf5TestFile-<random> in its working directory; h5proxy writes it in the run directory
// (or the entry's "file" there), and its read-backs are in the write phase. Every rank
// parses the configuration, so the number is derived from the entry's keys, not drawn:
// ranks drawing their own would create different files collectively and hang.
func init() {
	register("exerciser", adapter{pattern: "exerciser", configure: func(dir, file string, conf map[string]any, cfg *proxy.Config) error {
		cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
		if file == "" {
			file = "hdf5TestFile-" + strconv.Itoa(int(configNumber(conf)))
		}
		if err := cfg.Set("file", joinDir(dir, file)); err != nil {
			return err
		}
		return setAll(dir, conf, cfg, func(k, v string) (bool, error) {
			switch {
			case slices.Contains(exerciserFlags, k):
				return true, cfg.Set(k, strconv.FormatBool(strings.EqualFold(v, "true")))
			case k == "metacoll" && v == "":
				// h5bench passes "--metacoll " with the value: empty is the one value that
				// leaves the exerciser a bare flag.
				return true, cfg.Set(k, "true")
			}
			return false, nil
		})
	}})
}

// configNumber is a non-negative number derived from the entry's keys and values, the same
// on every rank (the exerciser's file suffix).
func configNumber(conf map[string]any) int32 {
	h := fnv.New32a()
	for _, k := range slices.Sorted(maps.Keys(conf)) {
		h.Write([]byte(k + "=" + proxy.Scalar(conf[k]) + "\n"))
	}
	return int32(h.Sum32() >> 1)
}
