package h5bench

import (
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// The h5bench metadata benchmark (h5bench_hdf5_iotest, the HDF5 I/O test). h5bench writes
// every configuration key to the program's .ini as it is, then appends hdf5-file =
// <directory>/<file>, which wins over a configured hdf5-file; csv-file goes to the run
// directory. Here the keys go to the iotest pattern, except
//
//   - layout: the program's dataset layout (contiguous, chunked), the pattern's
//     dataset-layout (h5proxy's storage layout is chosen with MODE, SUBFILING, ...);
//   - hdf5-file: the session's file, relative to directory, when the entry has no "file";
//   - csv-file: the session's csv_file, relative to directory;
//
// and the run is a write phase then a read phase, as the program's.
func init() {
	register("metadata", adapter{pattern: "iotest", configure: configureMetadata})
}

func configureMetadata(dir, file string, conf map[string]any, cfg *proxy.Config) error {
	cfg.Phases = []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}
	h5file := file
	err := setAll(dir, conf, cfg, func(k, v string) (bool, error) {
		switch strings.ToLower(k) {
		case "layout":
			return true, cfg.Set("dataset-layout", v)
		case "hdf5-file":
			if file == "" {
				h5file = v
			}
			return true, nil
		case "csv-file":
			return true, cfg.Set("csv_file", joinDir(dir, v))
		case "dataset-layout":
			return true, &options.Error{Table: "iotest", Key: k, Value: v, Reason: "not a key of h5bench's metadata benchmark", Allowed: "layout (contiguous, chunked)"}
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	if h5file == "" {
		return &options.Error{Key: "file", Reason: "required: the HDF5 file name (relative to directory), or hdf5-file in the configuration"}
	}
	return cfg.Set("file", joinDir(dir, h5file))
}
