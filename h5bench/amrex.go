package h5bench

import (
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
func init() {
	register("amrex", adapter{pattern: "amrex", configure: configureAMReX})
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
