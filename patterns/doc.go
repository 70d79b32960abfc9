// Package patterns is the shared vocabulary of h5proxy's I/O patterns: a pattern turns
// (configuration, rank, size, step) into a Plan, an ordered list of HDF5 operations with
// their datatypes, shapes, selections, metric category and collectiveness.
//
// Plans are plain Go values. They are unit-testable without MPI or HDF5, printable
// (`h5proxy plan`), and the same plan feeds every I/O mode and layout of package proxy.
// Application patterns live in subpackages (patterns/vpic, ...); this package holds what
// they share: Type (datatypes described as data), Selection (unions of hyperslabs and
// their row-major runs), Op and Plan.
//
//	sel := patterns.Selection{Blocks: []patterns.Hyperslab{patterns.Block([]uint64{4}, []uint64{4})}}
//	sel.NPoints([]uint64{8}) // 4
package patterns
