// Package emulate stands in for the application around the I/O: emulated compute between
// I/O phases (sleep as h5bench does, or spin, which really occupies a core), deterministic
// data generation that any reader can verify element by element, and large buffers kept
// off the Go heap and reused across steps.
//
// Seeded fills define the value of variable v at global element index g of step s as a
// pure function of (seed, v, s, g), so a reader with any decomposition can recompute what
// a writer with another one wrote:
//
//	want := emulate.Value(plan.Float32, seed, "x", step, g)
//
// Buffers come from anonymous mmap: the garbage collector neither scans nor moves them and
// HDF5 can take their address directly.
package emulate
