// Command capi builds libh5proxy, the C ABI of h5proxy, as a shared library
// (go build -buildmode=c-shared) or a static archive (-buildmode=c-archive).
//
// The public contract is the hand-written header include/h5proxy.h together with
// CONTRACT.md in this directory; the header cgo generates is never installed. This package
// only converts arguments, keeps the handle registry, maps Go errors to status codes and
// recovers panics at the boundary: everything else is package proxy.
//
//	go build -buildmode=c-shared -o libh5proxy.so ./capi
//	cc -I include app.c -L. -lh5proxy $(pkg-config --cflags --libs ompi)
//
// Layout of the package: exports.go holds the //export functions, session.go the session
// calls behind them, config.go the assembly of a configuration from options and a config
// file, registry.go the handle table, status.go the status codes, error mapping and the
// panic guard, and support.c the C side (the per-thread last-error slot, status strings,
// copies into caller buffers, communicator conversion).
package main

func main() {}
