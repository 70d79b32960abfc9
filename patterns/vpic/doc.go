// Package vpic plans h5bench's VPIC-IO write kernel (h5bench_write) and BD-CATS-IO read
// kernel (h5bench_read): one shared file with a group per timestep holding the particle
// data of every rank.
//
// # File layout (h5bench 1.4, layouts.md section 1)
//
//	test.h5
//	└── Timestep_<i>/             i = 0 .. TIMESTEPS-1, no attributes anywhere
//	    ├── x, y, z, px, py, pz   f32   (FILE_PATTERN CONTIG or STRIDED)
//	    ├── id_1                  i32
//	    └── id_2                  f32
//	    or
//	    └── particles             particle compound (FILE_PATTERN INTERLEAVED)
//
// The `particle` compound is 32 bytes: x@0 y@4 z@8 px@12 py@16 pz@20 (f32), id_1@24
// (i32), id_2@28 (f32). INTERLEAVED memory with CONTIG file uses a single-member compound
// {<name>: f32|i32} of 4 bytes as the file type of each of the 8 datasets; CONTIG memory
// with INTERLEAVED file uses it as the memory type of 8 partial writes.
//
// # Write pattern matrix
//
//	MEM          FILE         NUM_DIMS  datasets  file type        memory type       H5Dwrite/step
//	CONTIG       CONTIG       1,2,3     8         f32/i32          f32/i32           8
//	CONTIG       INTERLEAVED  1,2       1         particle         {name} member     8
//	INTERLEAVED  CONTIG       1,2       8         {name} member    particle          8
//	INTERLEAVED  INTERLEAVED  1,2       1         particle         particle          1
//	CONTIG       STRIDED      1         8         f32/i32          f32/i32           8
//
// # Selections (R ranks, rank r, P = DIM_1*DIM_2*DIM_3 particles per rank)
//
//	1-D        file [R*P]               rank r: start r*P, block P
//	2-D        file [R*DIM_1, DIM_2]    start [r*DIM_1, 0], block [DIM_1, DIM_2]
//	3-D        file [R*DIM_1, DIM_2, DIM_3]
//	STRIDED    file [R*P]               start r*P, stride STRIDE_SIZE, count BLOCK_CNT, block BLOCK_SIZE
//
// The read kernel takes the dimensions from /Timestep_0/px, reads the 8 datasets in the
// order x, y, z, id_1, id_2, px, py, pz, and supports READ_OPTION FULL, PARTIAL
// (TO_READ_NUM_PARTICLES), STRIDED and the rank-0 2-D corner reads LDC, RDC, PRL and CS.
//
// # Differences from h5bench
//
//   - Corner reads (LDC/RDC/PRL/CS) outside h5bench's block-size rules are a configuration
//     error here; h5bench silently reads nothing.
//   - In corner reads the ranks other than 0 take part in every call with an empty
//     selection, so collective transfers and collective metadata opens stay matched;
//     h5bench skips their loop.
//   - MEM_PATTERN and FILE_PATTERN default to CONTIG instead of being required.
//
// # Compression (COMPRESS=YES)
//
// Every dataset is chunked with CHUNK_DIM_<n> (1 beyond NUM_DIMS), data writes are
// collective, and COMPRESS_FILTER picks the filter:
//
//	GZIP   deflate level 9 (H5Pset_deflate): the filter h5bench uses without the key
//	SZIP   H5Pset_szip, nearest-neighbour coding, 16 pixels per block (chunks of >= 16
//	       elements); HDF5 1.10 builds it in when linked with libaec or szip
//	N_BIT  H5Pset_nbit (lossless; the native types use every bit, so it packs nothing)
//	SZ3    H5Pset_filter 32024, mandatory, no client values (the plugin's defaults)
//	ZFP    H5Pset_filter 32013 (H5Z-ZFP), mandatory, no client values
//
// SZ3 and ZFP are plugins HDF5 loads from HDF5_PLUGIN_PATH; h5bench's runner sets that
// variable from the file's vol.path, and so does h5proxy run for the ranks it launches. A
// filter HDF5 cannot load (or, for SZIP, cannot encode with) stops the write phase in
// Begin, before any I/O, with an error naming COMPRESS_FILTER, its value and the missing
// plugin (h5bench's H5Dcreate would fail there). The read kernel needs the same filter to
// decode. Layouts: native and subfiling create the datasets with the filter; log records it
// on the anchors (attribute _filters) and its replay applies it; mpiio and posix write the
// uncompressed bytes, as they do for deflate. The parameters of SZIP, SZ3 and ZFP are
// h5proxy's: the h5bench sources at hand predate COMPRESS_FILTER.
//
// A chunk SZIP cannot compress is stored without its optional filter, and through the
// MPI-IO driver HDF5 1.10.8 does not record that in the chunk's filter mask, so no reader
// can decode it ("szip_filter: decompression failed"). The seeded 4-byte integers
// (id_1) therefore hold 24-bit values, compressible as h5bench's 0, 1, 2, ... are; with
// 31 random bits, the SZIP samples' reads failed.
//
// Values written are emulate's seeded fills (value = f(seed, variable, step, index)), not
// h5bench's random numbers, so every read can be verified.
//
// # The variants of h5bench_patterns/ (patterns of their own, same keys and file)
//
//	pattern           h5bench benchmark       program
//	vpic-unlimited    write-unlimited         h5bench_write_unlimited
//	vpic-normal-dist  write_var_normal_dist   h5bench_write_var_normal_dist
//	vpic-overwrite    overwrite               h5bench_overwrite
//	vpic-append       append                  h5bench_append
//
// vpic-unlimited is the write kernel with COMPRESS required (the program exits without
// it) and collective data forced: every dataset chunked (CHUNK_DIM_<n>, default 1),
// deflate 9, maximum extent H5S_UNLIMITED. Its CSV operation is "write unlimited". Its
// read phase is BD-CATS-IO's, verified.
//
// vpic-normal-dist is the 1-D write kernel with per-rank particle counts drawn from a
// normal distribution (mean DIM_1, deviation STDEV_DIM_1, default 1; the polar method,
// truncated): the dataset extent is their sum and rank r writes its count at the sum of
// the counts before it (h5bench: MPI_Scatter from rank 0, MPI_Scan). Its CSV adds "Total
// number of particles" (in M), "Final mean particles" and "Final standard deviation"
// (integer mean and squares, as the program computes them); its operation is
// "write_var_normal_dist". Its read phase (h5proxy's) reads each rank's slice back.
//
// vpic-overwrite and vpic-append open an existing file read-write through MPI-IO with
// collective metadata (H5Pset_all_coll_metadata_ops and H5Pset_coll_metadata_write), take
// the extent of /Timestep_0/px before their timer, then per timestep open the group and
// the 8 datasets in the order x, y, z, id_1, id_2, px, py, pz, write them in that order
// (collective when COLLECTIVE_DATA) and close them; the file is closed without a flush.
// The file must have NUM_DIMS dimensions and at least DIM_1 rows per rank.
//
//	overwrite  1-D: DIM_1 rows at r*N/R (N: the file's rows); FILE_PATTERN=STRIDED:
//	           BLOCK_CNT blocks of BLOCK_SIZE every STRIDE_SIZE from r*N/R; 2-D/3-D: the
//	           block [DIM_1, DIM_2, DIM_3] at [r*DIM_1, 0, 0]. Values: int i+j+k, float
//	           i/(j+1)/(k+1)*0.1 at (i, j, k) of the block.
//	append     H5Dset_extent of the 8 datasets to [2*DIM_1, DIM_2, DIM_3] (every rank the
//	           same: it grows the file at 1 rank and shrinks it beyond 2 ranks), then
//	           every rank writes the block [DIM_1, DIM_2, DIM_3] at [DIM_1, 0, 0]. Values:
//	           int i+j+k, float i/(j+1)/(k+1).
//
// Their read phases (h5proxy's) read back what they wrote and verify it. Their CSV
// operations are "overwrite" and "append". Keys the programs read but do not use
// (COMPRESS, ALIGN, FILE_PER_PROC, COLLECTIVE_METADATA, ...) are accepted with a warning.
//
// Differences from h5bench in the variants:
//
//   - write-unlimited passes H5Screate_simple a one-element maxdims array whatever
//     NUM_DIMS: dimensions 2 and 3 get whatever follows it in memory; here every
//     dimension is unlimited.
//   - The normal-distribution counts come from the session's seed (h5bench: the time), so
//     a rerun with the same seed writes the same file; a draw below 1 becomes 1.
//   - overwrite and append fill 2-D and 3-D buffers as arrays of row pointers, which their
//     H5Dwrite then writes; here the values those rows were meant to hold are written.
//   - HDF5 1.10 writes filtered (compressed) datasets collectively only: an append with
//     COLLECTIVE_DATA=NO on a write-unlimited file fails with HDF5's error (h5bench ignores
//     the failed H5Dwrite and reports a rate). h5bench's sample sets COLLECTIVE_DATA=YES.
//   - Under the log layout an append that shrinks a dataset (more than 2 ranks) is an
//     error; the mpiio layout cannot extend datasets (an error too).
package vpic
