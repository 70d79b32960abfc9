// Package iotest plans the HDF5 I/O test (hdf5_iotest), which h5bench runs as its
// metadata benchmark (h5bench_hdf5_iotest, h5bench's metadata_stress/ folder): every rank
// writes steps x arrays blocks of doubles into one shared file, then reads them back.
//
// The pattern is named after the program, as the other patterns are (vpic, not write);
// h5bench's benchmark name "metadata" maps onto it in package h5bench, and h5proxy already
// uses "metadata" for a metric bucket and for COLLECTIVE_METADATA.
//
// # Ranks, blocks and arrays (hdf5_iotest.c, dataset.c)
//
// The ranks form a process-rows x process-columns grid (their product must be the rank
// count): rank r sits at row r / process-columns, column r % process-columns. With weak
// scaling each rank's block is rows x columns and an array is process-rows*rows x
// process-columns*columns; with strong scaling the array is rows x columns and a block
// rows/process-rows x columns/process-columns. Each rank holds one block-sized buffer of
// doubles, written (read) once per array and step with one H5Dwrite (H5Dread) of the whole
// buffer as a 2-D memory space.
//
// # File layout (dataset.c: create_dataset; T = total rows, C = total columns)
//
//	dataset-rank 4: /dataset                 [steps, arrays, T, C] (slowest-dimension=step)
//	                                         [arrays, steps, T, C] (array)
//	dataset-rank 3: /step=<s>                [arrays, T, C], one per step (step)
//	                /array=<a>               [steps, T, C], one per array (array)
//	dataset-rank 2: /step=<s>/array=<a>      [T, C], a group per step (step)
//	                /array=<a>/step=<s>      [T, C], a group per array (array)
//
// Every dataset is H5T_NATIVE_DOUBLE, without attributes. contiguous: the maximum extents
// are the extents. chunked: one rank block per chunk in the last two dimensions, 1 in the
// step or array dimension, except rank 4's chunk spanning all arrays; one dimension is
// unlimited where the program says so:
//
//	rank 2:         chunk [block rows, block cols]
//	rank 3, step:   chunk [1, block rows, block cols]
//	rank 3, array:  chunk [1, block rows, block cols], dim 0 unlimited
//	rank 4, step:   chunk [1, arrays, block rows, block cols], dim 0 unlimited
//	rank 4, array:  chunk [arrays, 1, block rows, block cols], dim 1 unlimited
//
// No fill-time setting (the program's NO_CHUNK_INIT is not defined by h5bench's build).
//
// # Selections (dataset.c: create_selection)
//
// One block per transfer: the rank's block at (row*block rows, column*block cols) in the
// last two dimensions, and the step and array indices (in the dataset's order) in the
// outer ones; rank 3 datasets have only the inner index (the array for step=<s>, the step
// for array=<a>).
//
// # Property lists and call order (hdf5_iotest.c)
//
// The file access list is H5Pset_fapl_mpio(MPI_COMM_WORLD, MPI_INFO_NULL) and nothing else
// (no alignment, metadata cache or collective metadata settings); the transfer list is
// H5Pset_dxpl_mpio with mpi-io (independent or collective). Write phase: barrier,
// H5Fcreate(TRUNC), then per rank: 4: H5Dcreate("dataset") before the loops, writes,
// H5Dclose after them; 3, step: per step H5Dcreate, one write per array, H5Dclose; 3, array:
// per step and array H5Dcreate at step 0 and H5Dopen afterwards, the write, H5Dclose; 2: per
// step and array H5Dcreate (intermediate group created by the link creation list), the
// write, H5Dclose. Then H5Fclose. Read phase: barrier, H5Fopen(RDONLY) with the same
// access list, the same loops with H5Dopen in place of H5Dcreate and H5Dread in place of
// H5Dwrite (rank 4 opens "dataset" once), H5Fclose.
//
// Differences, all deliberate: the group of a rank 2 dataset is created and closed just
// before its first dataset (H5Gcreate, H5Gclose) rather than as an intermediate group of the
// H5Dcreate; the same groups result. The data are h5proxy's seeded fill, not the program's
// constant row+column, so the read phase verifies every element (the program leaves its
// comparison as a to-do). The two phases are two h5proxy phases, each with its steps.
//
// # Keys
//
// The keys of hdf5_iotest.ini under their names, their defaults the values of that file:
// version, steps, arrays, rows, columns, process-rows, process-columns, scaling,
// dataset-rank, slowest-dimension, mpi-io; the program's layout is dataset-layout (layout is
// the session's storage layout key); hdf5-file and csv-file are mapped by h5bench
// configurations onto the session's file and csv_file.
//
// # Report
//
// KernelReport prints the program's own results (wall clock, file size, and the minimum
// and maximum over ranks of each phase's time, create time, transfer time and rate) and
// carries its CSV columns as report lines; docs/metrics.md describes how each maps onto
// h5proxy's measurements.
package iotest
