// Package patterns turns an application's configuration into plans: a Pattern maps
// (configuration, rank, size, step) to a plan.Plan, the ordered HDF5 operations that rank
// issues with their datatypes, shapes, selections, metric category and collectiveness.
//
// This package holds the Pattern interface and the registry of pattern factories.
// Application patterns live in subpackages (patterns/vpic, patterns/amrex,
// patterns/openpmd, patterns/e3sm); patterns/all registers every built-in one, and
// importing package proxy imports patterns/all.
//
//	f, err := patterns.Lookup("vpic")
//	v, err := f.Options.Parse([]options.KV{{Key: "DIM_1", Value: "1 M"}})
//	p, err := f.New(v)
//	pl, err := p.Step(patterns.PhaseWrite, 0, patterns.Env{Rank: 0, Size: 2, Path: "out.h5"})
package patterns
