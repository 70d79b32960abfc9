// Package plan is h5proxy's vocabulary for HDF5-level I/O: datatypes described as data
// (Type), unions of hyperslabs and their row-major runs (Selection), the operations a rank
// issues (Op: create a file, a group or a dataset, write an attribute, write or read a
// selection, ...) and ordered lists of them (Plan).
//
// Operations on groups, datasets and attributes name no file: they apply to the current
// file, the one opened last or made current by a SelectFile (a program that keeps several
// files open and writes to each in turn); a CloseFile closes the file it names, and the
// file current before it becomes current again.
//
// Plans are plain Go values: unit-testable without MPI or HDF5, printable (`h5proxy plan`),
// and the same plan feeds every I/O mode and layout. Patterns (package patterns) produce
// them; the I/O stack (package proxy and its strategies) carries them out. This package
// imports nothing of the project.
//
//	sel := plan.Selection{Blocks: []plan.Hyperslab{plan.Block([]uint64{4}, []uint64{4})}}
//	sel.NPoints([]uint64{8}) // 4
package plan
