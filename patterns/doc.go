// Package patterns turns an application's configuration into plans: a Pattern maps
// (configuration, rank, size, step) to a plan.Plan, the ordered HDF5 operations that rank
// issues with their datatypes, shapes, selections, metric category and collectiveness.
//
// This package holds the Pattern interface, the registry of pattern factories and the
// shape every pattern shares: Define turns a Def (name, summary, option table, the
// function that reads the Config, phases, Init) into the pattern's Factory, and a
// pattern's type embeds Base[Config] for Name, Phases, CheckPhase and its field C.
// Application patterns live in subpackages (patterns/vpic, patterns/amrex,
// patterns/openpmd, patterns/e3sm, ...); patterns/all registers every built-in one, and
// importing package proxy imports patterns/all.
//
//	type Pattern struct{ patterns.Base[Config] }
//
//	var Factory = patterns.Define(patterns.Def[Config, *Pattern]{Name: "toy", Summary: "...",
//		Options: Options, Config: FromValues, Phases: patterns.WriteRead})
//
// A session builds a registered pattern from its options:
//
//	f, err := patterns.Lookup("vpic")
//	v, err := f.Options.Parse([]options.KV{{Key: "DIM_1", Value: "1 M"}})
//	p, err := f.New(v)
//	pl, err := p.Step(patterns.PhaseWrite, 0, patterns.Env{Rank: 0, Size: 2, Path: "out.h5"})
package patterns
