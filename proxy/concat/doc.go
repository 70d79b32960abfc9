// Package concat concatenates many HDF5 files of one schema into one file in parallel:
// the workflow of NOvA's HEP event tables (each table a group, each column a 1-D or 2-D
// dataset, thousands of mostly tiny gzip-compressed datasets per file), following the
// parallel concatenation of Lee et al. (issue 15 of h5proxy; docs/concat.md):
//
//  1. the F inputs are spread evenly over the P ranks (rank r takes [r·F/P, (r+1)·F/P));
//  2. each rank reads the types and extents of all D datasets of its inputs, checks them
//     against the first input's, and the row counts are summed over ranks (MPI_Allreduce);
//  3. the output file is created collectively (or on rank 0 alone, option create);
//  4. the D datasets are created with their total sizes;
//  5. for each dataset, each rank reads its inputs' pieces into one buffer, one after
//     another, and all ranks write collectively at their offsets.
//
// The output keeps the inputs' groups, datasets, types, attributes (values of the first
// input) and, unless options change them, chunk shapes, filters and fill values. Every
// tuning choice of the study is an option of Table. The engine works on a communicator
// given as a Fortran handle, so that the command (and any host) can pass its own.
package concat
