package h5bench

import (
	"path/filepath"
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// The h5bench amrex benchmark (h5bench_amrex_sync/async): its configuration keys go to the
// amrex pattern unchanged, except
//
//   - directory: the output directory, placed in the run directory like every h5bench
//     output; without it the files go to the entry's "file" below the run directory (the
//     directory h5bench's runner creates for the entry and once passed as `directory`), or
//     to the run directory itself when the entry has no "file";
//   - restart_check: 1 adds the read-back phase after the write (h5bench reads the first
//     particle file back; h5proxy reads back every file with verification);
//   - mode and sleeptime: session keys (the I/O mode, and compute_time in seconds).
//
// h5bench's runner writes the configuration, `KEY = VALUE` a line in the file's order, to
// amrex.ini and passes it to the benchmark, whose ParmParse reads it on rank 0 (h5bench.py
// run_amrex): the run writes the same file in the run directory and the pattern reads it
// as the benchmark does (input_file).
func init() {
	register("amrex", adapter{pattern: "amrex", ordered: func(dir, file string, keys []string, conf map[string]any, cfg *proxy.Config) error {
		if err := configureAMReX(dir, file, conf, cfg); err != nil {
			return err
		}
		return inputFile(cfg, filepath.Join(dir, "amrex.ini"), keys, conf, " = ", "", "")
	}})
}

// inputFile makes h5bench's runner's input file of a C++ kernel: each configuration key
// but skip, in the file's order, as KEY SEP VALUE a line, then tail; the run writes it at
// path and the pattern reads it (input_file), unless the configuration names its own.
func inputFile(cfg *proxy.Config, path string, keys []string, conf map[string]any, sep, skip, tail string) error {
	for _, k := range keys {
		if strings.EqualFold(k, "input_file") {
			return nil
		}
	}
	var b strings.Builder
	for _, k := range keys {
		if skip != "" && strings.Contains(k, skip) {
			continue
		}
		b.WriteString(k + sep + proxy.Scalar(conf[k]) + "\n")
	}
	b.WriteString(tail)
	return addInput(cfg, path, b.String())
}

// addInput has the run write text at path before it starts and the pattern read it.
func addInput(cfg *proxy.Config, path, text string) error {
	cfg.Inputs = append(cfg.Inputs, proxy.InputFile{Path: path, Text: text})
	return cfg.Set("input_file", path)
}

func configureAMReX(dir, file string, conf map[string]any, cfg *proxy.Config) error {
	out := dir
	if file != "" {
		out = joinDir(dir, file)
	}
	cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
	err := setAll(dir, conf, cfg, func(k, v string) (bool, error) {
		switch strings.ToLower(k) {
		case "directory":
			if v != "" {
				out = joinDir(dir, v)
			}
			return true, nil
		case "restart_check":
			on, ok := options.ParseBool(v)
			if !ok {
				return true, &options.Error{Table: "amrex", Key: k, Value: v, Reason: "not a boolean", Allowed: "0, 1 (or YES, NO)"}
			}
			if on {
				cfg.Phases = append(cfg.Phases, patterns.PhaseRead)
			}
			return true, nil
		case "sleeptime":
			if w := sleeptimeWarning(k, v); w != "" {
				cfg.Warnings = append(cfg.Warnings, w)
			}
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	return cfg.Set("file", out)
}
