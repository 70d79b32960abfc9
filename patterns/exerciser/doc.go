// Package exerciser is h5bench's exerciser benchmark (h5bench_exerciser, the HDF5
// Exerciser of Zamora and Coffman) as an h5proxy pattern.
//
// For each of nsizes buffer sizes (minels elements per dimension, multiplied by bufmult
// per dimension from one size to the next) the exerciser runs NUM_ITERATIONS (10)
// iterations of: create the file hdf5TestFile-<n> (truncating it), create /Data, add 64
// attributes with addattr, create /Data/hdf5DataSet1-iter<i>-size<n> (doubles, the ranks
// laid out on the dimranks grid, chunked by the file block with usechunked, fill time
// never), write it, close, flush and close the file; reopen it, read the dataset back and
// check it (up to maxcheck bytes), and with derivedtype write the compound dataset
// /Data/derivedData/simulation parameters; close, flush and close. Without keepfile the
// file is removed at the end.
//
// h5proxy maps every iteration to one step of the write phase (steps = nsizes ×
// iterations): the read-back happens inside the write phase, as each iteration's file is
// truncated by the next, and is checked against the exact values the exerciser writes
// (rank+1). The pattern's kernel report prints the exerciser's table: per size, the Min,
// Med, Max, Avg and Std over the iterations of the slowest rank's times and bandwidths.
// See docs/exerciser.md for what is mirrored and what differs.
package exerciser
