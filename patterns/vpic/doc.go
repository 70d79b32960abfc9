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
// Values written are emulate's seeded fills (value = f(seed, variable, step, index)), not
// h5bench's random numbers, so every read can be verified.
package vpic
