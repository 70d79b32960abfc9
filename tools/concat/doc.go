// Package concat concatenates many HDF5 files of one schema into one file in parallel:
// the workflow of NOvA's HEP event tables (each table a group, each column a 1-D or 2-D
// dataset, thousands of mostly tiny gzip-compressed datasets per file), as NU-CUCIS's
// ph5_concat does it (Lee et al., "A Case Study on Parallel HDF5 Dataset Concatenation
// for High Energy Physics Data Analysis", Parallel Computing 110, 2022; docs/concat.md):
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
//
// Facts taken from ph5_concat (github.com/NU-CUCIS/ph5concat, ph5_concat.cpp and
// README.md): inputs kept open from the metadata pass to the data pass; the output opened
// through MPI-IO with collective metadata reads and writes (H5Pset_all_coll_metadata_ops,
// H5Pset_coll_metadata_write); the one-process creation (rank 0 creates every group and
// dataset in a serial file, closes it, then all ranks open it); chunked outputs with an
// unlimited first dimension and chunks of at most 1 MiB and at most the dataset's rows;
// the fixed 128 MiB metadata cache; zero-size datasets compact; fill time never for
// compressed datasets; in-memory (core driver) reads of the inputs; gzip level 6; a list
// file of inputs, one per line. ph5_concat's partition key ('-k', a sequence derived from
// a /spill dataset) differs from this package's, the input file index of each row.
package concat
