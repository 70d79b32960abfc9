package h5bench

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/openpmd"
	"github.com/h5proxy/h5proxy/proxy"
)

// The h5bench openpmd benchmark: operation=write runs openPMD-api's 8a writer,
// operation=read its 8b reader. h5bench writes every configuration key but operation to
// the 8a input file and appends fileLocation=<directory>; the read gets the prefix
// <directory>/8a_parallel_3Db and the pattern. Here both work on the series of the run
// directory that the entry's keys name (8a_parallel_<dim>D<b|u>.h5 by default), so the
// read reads what the write wrote (see patterns/openpmd for why h5bench's does not).
//
// The write's input file is h5bench's: every configuration key but operation as KEY=VALUE
// a line in the file's order, then fileLocation=<directory> (h5bench.py run_openpmd),
// written as openpmd.input in the run directory and read by every rank as 8a's parseArgs
// reads it (input_file).
func init() {
	register("openpmd", adapter{pattern: "openpmd", ordered: func(dir, file string, keys []string, conf map[string]any, cfg *proxy.Config) error {
		if err := configureOpenPMD(dir, file, conf, cfg); err != nil {
			return err
		}
		if len(cfg.Phases) != 1 || cfg.Phases[0] != patterns.PhaseWrite {
			return nil // 8b takes its arguments on the command line
		}
		return inputFile(cfg, filepath.Join(dir, "openpmd.input"), keys, conf, "=", "operation", "fileLocation="+dir+"\n")
	}})
}

func configureOpenPMD(dir, file string, conf map[string]any, cfg *proxy.Config) error {
	if file != "" {
		// h5bench: "OpenPMD does not take an input file name, only the directory".
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("file=%q ignored: openpmd does not take a file name, only the directory (%s)", file, dir))
	}
	var op string
	err := setAll(dir, conf, cfg, func(k, v string) (bool, error) {
		switch {
		case strings.EqualFold(k, "operation"):
			op = strings.ToLower(strings.TrimSpace(v))
		case strings.EqualFold(k, "fileLocation"):
			if filepath.Clean(v) != filepath.Clean(dir) {
				return true, &options.Error{Table: "openpmd", Key: k, Value: v,
					Reason: fmt.Sprintf("contradicts the run directory %q, which h5bench's runner appends as fileLocation", dir), Allowed: dir + " (or leave it out)"}
			}
			return true, nil // set below
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	switch op {
	case "write":
		cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
	case "read":
		cfg.Phases = []patterns.Phase{patterns.PhaseRead}
	case "":
		return &options.Error{Table: "openpmd", Key: "operation", Reason: "required: which benchmark to run", Allowed: "write, read"}
	default:
		return &options.Error{Table: "openpmd", Key: "operation", Value: op, Reason: "not an operation of the openpmd benchmark", Allowed: "write, read"}
	}
	if err := cfg.Set("fileLocation", dir); err != nil {
		return err
	}
	pat, err := cfg.NewPattern()
	if err != nil {
		return withAliases(err)
	}
	return cfg.Set("file", filepath.Join(dir, pat.(*openpmd.Pattern).C.SeriesName()))
}
