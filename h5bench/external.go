package h5bench

import "fmt"

// external are the benchmarks for which h5bench's runner only launches another project's
// program with the entry's keys as its options: h5proxy models the I/O of h5bench's own
// kernels, so these are an error naming the program.
var external = map[string]string{
	"qmcpack": "QMCPACK's checkpoint/restart miniapp (walker configurations and random seeds dumped to HDF5 and read back; options i, g, s, w, r)",
}

// The names of h5bench's GPU-IO programs and of the external QMCPACK miniapp, which newer
// h5bench samples use (sync-cuda-*.json, sync-qmcpack.json).
func init() {
	known = append(known, "cuda_write", "cuda_read", "qmcpack")
}

// externalError explains why an external benchmark does not run.
func externalError(name string) error {
	return fmt.Errorf("benchmark %q: h5bench only launches an external program for it, %s; h5proxy emulates the I/O of h5bench's own kernels and does not model that program's", name, external[name])
}
