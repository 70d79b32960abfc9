package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/h5proxy/h5proxy/options"
)

// settingsFlag collects repeated -set KEY=VALUE flags.
type settingsFlag []options.KV

func (s *settingsFlag) String() string {
	parts := make([]string, len(*s))
	for i, kv := range *s {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, " ")
}

func (s *settingsFlag) Set(text string) error {
	k, v, ok := strings.Cut(text, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("%q is not KEY=VALUE", text)
	}
	*s = append(*s, options.KV{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	return nil
}

// applySettings sets every KEY=VALUE over each benchmark of the job (replacing the
// configuration's own value of that key) and, when dir is not empty, moves the job's
// output (data files, h5bench CSV files) into dir under the same base names, so runs of
// one configuration do not overwrite each other's files. Each benchmark is validated
// again: a bad key or value is reported before anything runs.
func applySettings(j *job, sets []options.KV, dir string) error {
	if len(sets) == 0 && dir == "" {
		return nil
	}
	if dir != "" {
		j.dir = dir
	}
	for i := range j.runs {
		cfg := &j.runs[i].Config
		for _, kv := range sets {
			if err := cfg.Override(kv.Key, kv.Value); err != nil {
				return err
			}
		}
		if dir != "" {
			if cfg.File != "" {
				cfg.File = filepath.Join(dir, filepath.Base(cfg.File))
			}
			if cfg.CSVFile != "" {
				cfg.CSVFile = filepath.Join(dir, filepath.Base(cfg.CSVFile))
			}
		}
		if err := cfg.Validate(); err != nil {
			if len(j.runs) > 1 {
				return fmt.Errorf("benchmark %d (%s): %w", i, j.runs[i].Benchmark, err)
			}
			return err
		}
	}
	return nil
}

// indexedPath puts a benchmark's index before the extension: trace.json, 1 ->
// trace.1.json (viewers go by the extension).
func indexedPath(path string, i int) string {
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s.%d%s", strings.TrimSuffix(path, ext), i, ext)
}
