package h5bench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns/dlio"
	"github.com/h5proxy/h5proxy/proxy"
)

// dlioFlags are h5bench_dlio's flags without a value: h5bench's runner passes a key as
// --<key> when its value is "true" and leaves it out when "false".
var dlioFlags = []string{"generate-data", "train", "evaluation", "chunking", "keep-files", "compression", "shuffle",
	"seed-change-epoch", "collective-meta", "collective-data", "subfiling", "drop-last", "output-ranks-data"}

// The h5bench dlio benchmark (h5bench_dlio). h5bench turns each configuration key into
// --<key> <value>, the flags above into --<key> (or nothing for "false"). Here the keys go
// to the dlio pattern, except
//
//   - data-folder: the session's file (the data directory), relative to directory;
//   - output-csv-name: the session's csv_file, <name>.csv in directory (output.csv by
//     default, as the program's), when the entry trains;
//   - subfiling: "false" only; "true" is an error (the program's subfiling needs HDF5's
//     subfiling driver, which HDF5 1.10 lacks);
//
// and the entry runs a write phase with generate-data, a read phase with train.
func init() {
	register("dlio", adapter{pattern: "dlio", configure: configureDLIO})
}

func configureDLIO(dir, file string, conf map[string]any, cfg *proxy.Config) error {
	folder, csvName, train := "./data", "output", false
	err := setAll(dir, conf, cfg, func(k, v string) (bool, error) {
		key := strings.ToLower(k)
		if slices.Contains(dlioFlags, key) {
			switch {
			case strings.EqualFold(v, "false"):
				return true, nil // not passed: the program's default, false for every flag but drop-last
			case !strings.EqualFold(v, "true"):
				return true, &options.Error{Table: "dlio", Key: k, Value: v, Reason: "a flag of h5bench_dlio: h5bench passes it for any value but \"false\" and the program takes the value for an unknown argument", Allowed: "true, false"}
			case key == "subfiling":
				return true, &options.Error{Table: "dlio", Key: k, Value: v,
					Reason:  "h5bench_dlio's subfiling needs HDF5's subfiling driver (HDF5 1.14; built against HDF5 1.10 the program ignores the flag), and its subfiling run (every rank writes every file whole, each sample's file opened collectively) does not map onto h5proxy's subfiling layout",
					Allowed: "false"}
			case key == "train":
				train = true
			}
			return true, cfg.Set(k, "true")
		}
		switch key {
		case "data-folder":
			folder = v
			return true, nil
		case "output-csv-name":
			csvName = v
			return true, nil
		case "output-data-folder":
			return true, &options.Error{Table: "dlio", Key: k, Value: v, Reason: "set by h5bench's runner (the run directory); a configured one is overridden there", Allowed: "the key left out"}
		case "file":
			return true, &options.Error{Table: "dlio", Key: k, Value: v, Reason: "not a key of h5bench's dlio benchmark", Allowed: "data-folder (the data directory, relative to directory)"}
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	if file != "" {
		return &options.Error{Key: "file", Value: file, Reason: "h5bench's dlio benchmark names no file (its files are <data-folder>/<train-data-folder>/<file-prefix>_<i>_of_<n>.h5)", Allowed: "the key left out; data-folder in the configuration"}
	}
	if folder == "" {
		return &options.Error{Table: "dlio", Key: "data-folder", Value: folder, Reason: "empty", Allowed: "a directory, relative to directory"}
	}
	if err := cfg.Set("file", joinDir(dir, folder)); err != nil {
		return err
	}
	if train {
		if err := cfg.Set("csv_file", joinDir(dir, csvName+".csv")); err != nil {
			return err
		}
	}
	pat, err := cfg.NewPattern()
	if err != nil {
		return err
	}
	cfg.Phases = pat.Phases()
	if n := pat.(*dlio.Pattern).C.ReadThreads; train && n > 0 {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("read-threads=%d: h5bench_dlio reads with %d processes per rank; h5proxy reads their batches (the same samples) one after another on each rank", n, n))
	}
	return nil
}
