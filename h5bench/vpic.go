package h5bench

import (
	"fmt"
	"strings"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/proxy"
)

// The benchmarks h5bench's runner hands to its h5bench_patterns programs: write (VPIC-IO)
// and read (BD-CATS-IO), and the variants sharing their configuration keys and file.
// The runner appends IO_OPERATION=OVERWRITE or APPEND to the overwrite and append entries'
// configuration, which overrides one given there; the write variants check it.
//
// cuda_write and cuda_read are h5bench's GPU-IO programs (h5bench_cuda_write and
// h5bench_cuda_read): the write and read kernels with the particle buffers in GPU memory,
// copied to and from the host around each H5Dwrite and H5Dread, with the same keys and file.
// h5proxy has no GPU: it runs the kernels on host memory, with a warning, so the file and
// its I/O are the same and the copies (h5bench's "Raw h2d/d2h" times) are not modelled.
func init() {
	entries := []struct {
		benchmark, pattern string
		phase              patterns.Phase
		operation          string // IO_OPERATION the program requires ("": set by the runner)
		gpu                bool   // the GPU-IO program: staged from host memory here
	}{
		{"write", "vpic", patterns.PhaseWrite, "WRITE", false},
		{"read", "vpic", patterns.PhaseRead, "READ", false},
		{"write-unlimited", "vpic-unlimited", patterns.PhaseWrite, "WRITE", false},
		{"write_var_normal_dist", "vpic-normal-dist", patterns.PhaseWrite, "WRITE", false},
		{"overwrite", "vpic-overwrite", patterns.PhaseWrite, "", false},
		{"append", "vpic-append", patterns.PhaseWrite, "", false},
		{"cuda_write", "vpic", patterns.PhaseWrite, "WRITE", true},
		{"cuda_read", "vpic", patterns.PhaseRead, "READ", true},
	}
	for _, e := range entries {
		register(e.benchmark, adapter{pattern: e.pattern, configure: func(dir, file string, conf map[string]any, cfg *proxy.Config) error {
			cfg.Phases = []patterns.Phase{e.phase}
			if e.gpu {
				cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("benchmark %q: h5proxy has no GPU; the particle data are written and read from host memory (h5bench's host-device copies are not modelled)", e.benchmark))
			}
			if file == "" {
				return &options.Error{Key: "file", Reason: "required: the HDF5 file name (relative to directory)"}
			}
			if err := cfg.Set("file", joinDir(dir, file)); err != nil {
				return err
			}
			return setAll(dir, conf, cfg, func(k, v string) (bool, error) {
				if strings.EqualFold(k, "IO_OPERATION") && e.operation != "" && !strings.EqualFold(v, e.operation) {
					return true, &options.Error{Key: k, Value: v, Reason: fmt.Sprintf("contradicts benchmark %q", e.benchmark), Allowed: e.operation}
				}
				if w := integerWarning(k, v); w != "" {
					cfg.Warnings = append(cfg.Warnings, w) // setAll visits each key once
				}
				return false, nil
			})
		}})
	}
}
