// Package openpmd plans openPMD 1.1.0 series as openPMD-api 0.15's HDF5 backend writes
// and reads them, in the shape of h5bench's `openpmd` benchmark: the 8a parallel write
// benchmark (examples/8a_benchmark_write_parallel.cpp) and the 8b parallel read benchmark
// (examples/8b_benchmark_read_parallel.cpp). Facts: layouts.md section 3.
//
//	v, _ := openpmd.Options.Parse([]options.KV{{Key: "minBlock", Value: "8 16 16"}, {Key: "grid", Value: "16 16 8"}})
//	p, _ := openpmd.Factory.New(v) // registered as "openpmd": proxy.ParseOptions("openpmd", kvs)
//
// # File layout (h5bench sample: dim=3, minBlock 8 16 16, grid 16 16 8, ratio 1, 2 ranks)
//
//	8a_parallel_3Db.h5                       (variable-based: the iteration is /data)
//	├── @openPMD="1.1.0" @openPMDextension=0 (u32) @basePath="/data/%T/"
//	├── @iterationEncoding="variableBased" @iterationFormat="/data"
//	├── @meshesPath="fields/" @particlesPath="particles/"
//	├── @software="openPMD-api" @softwareVersion="0.15.0" @date="YYYY-MM-DD hh:mm:ss +zzzz"
//	└── data/                      @snapshot=1 (u64) @dt=1.0 @time=0.0 @timeUnitSI=1.0
//	    ├── fields/
//	    │   ├── B/  E/   (groups)  mesh record attributes (below)
//	    │   │   └── x, y, z        f64 [128,256,128] chunk [128,64,64]  @position=[0.0] @unitSI=1.0
//	    │   └── rho                f64 [128,256,128] chunk [128,64,64]  component + mesh attributes
//	    └── particles/
//	        └── ion/               @openPMD_STEP=1 (i32) @p2mRatio=1 (i32) @particleSmoothing="none"
//	            ├── charge         f64 [4194304] chunk [524288]  @unitSI=1.0 @timeOffset=0.0f @unitDimension=[0]*7
//	            ├── id             u64 [4194304] chunk [524288]  (same attributes)
//	            ├── position/      @timeOffset=0.0f @unitDimension=[1,0,0,0,0,0,0]
//	            │   └── x          f64 [4194304] chunk [524288]  @unitSI=1.0
//	            └── positionOffset/  @timeOffset=0.0f @unitDimension=[1,0,0,0,0,0,0]
//	                └── x/         (group: constant) @value=0.0 (f64) @shape=[4194304] (u64[1]) @unitSI=1.0
//
// Only as many components as mesh dimensions exist (x; x, y; x, y, z). Encodings:
//
//	encoding  file(s)                              iteration group  iterationEncoding  iterationFormat
//	v         <dir>/8a_parallel_<D>D<b|u>.h5       /data            variableBased      /data
//	g         <dir>/8a_parallel_<D>D<b|u>.h5       /data/<T>        groupBased         /data/%T/
//	f         <dir>/8a_parallel_<D>D<b|u>_%07T.h5  /data/<T>        fileBased          8a_parallel_<D>D<b|u>_%07T
//
// (v is the default: h5bench never sets encoding. b: balanced, u: unbalanced; T = 1 …
// steps.) The series is the session file; h5proxy run names it as 8a does, in the run
// directory. Every file of a file-based series carries the root attributes.
//
// # Attributes (openPMD-api's HDF5 conventions)
//
//	object            attribute                      type       shape  value
//	/                 openPMD                        str(6)     scalar "1.1.0"
//	/                 openPMDextension               u32        scalar 0
//	/                 basePath                       str(10)    scalar "/data/%T/"
//	/                 meshesPath, particlesPath      str        scalar "fields/", "particles/"
//	/                 iterationEncoding, iterationFormat  str   scalar see the table above
//	/                 software, softwareVersion      str        scalar "openPMD-api", "0.15.0"
//	/                 date                           str(26)    scalar strftime "%F %T %z"
//	iteration         dt, time, timeUnitSI           f64        scalar 1.0, 0.0, 1.0
//	/data (v only)    snapshot                       u64        scalar the iteration
//	mesh record       geometry                       str(10)    scalar "cartesian"
//	mesh record       dataOrder                      str(2)     scalar "C"
//	mesh record       axisLabels                     str(2)     [1]    ["x"]  (8a sets none)
//	mesh record       gridSpacing, gridGlobalOffset  f64        [1]    [1.0], [0.0]
//	mesh record       gridUnitSI                     f64        scalar 1.0
//	mesh record       unitDimension                  f64        [7]    zeros
//	mesh record       timeOffset                     f32        scalar 0.0
//	mesh component    position                       f64        [1]    [0.0]
//	mesh component    unitSI                         f64        scalar 1.0
//	particle record   unitDimension                  f64        [7]    zeros; position*: L=1
//	particle record   timeOffset                     f32        scalar 0.0
//	particle comp.    unitSI                         f64        scalar 1.0
//	positionOffset/x  value; shape                   f64; u64   scalar; [1]  0.0; [N]
//	ion               openPMD_STEP, p2mRatio         i32        scalar the iteration, ratio
//	ion               particleSmoothing              str(5)     scalar "none"
//
// Strings are fixed-length, NUL-terminated (length + 1), ASCII; string vectors use the
// longest length + 1. Scalar records (rho, charge, id) carry record and component
// attributes on the dataset. Attributes are written one WRITE_ATT at a time in the
// alphabetical order of openPMD-api's attribute map, each opening its object with H5Oopen
// (a link access list with collective metadata reads when they are on) and closing it with
// H5Oclose, as HDF5IOHandlerImpl::writeAttribute does (plan.Op.AsObject): profilers count no
// dataset open for them, so a dataset's H5D_OPENS is its create and one H5Dopen per
// storeChunk (writeDataset opens with the default access list).
//
// # Datasets and chunking
//
// Datasets are chunked with openPMD-api's automatic shape (getOptimalChunkDims; see
// ChunkDims) and fill time NEVER, no filters. Examples for f64: [128,256,128] →
// [128,64,64]; [4194304] → [524288]; [64,64,64] → [32,32,32]; [16,16] → [16,16].
// OPENPMD_HDF5_CHUNKS=none makes them contiguous.
//
// # Decomposition (8a)
//
// Global mesh = minBlock × grid (grid x = the rank count when 0 or unset; defaults
// minBlock 64 32 32, grid R 8 8). Mesh in mini blocks U = grid, ranks R, m = ΠU / R:
//
//	dim  patch (in mini blocks), first that applies
//	1    [U_x/R]
//	2    [U_x/R, U_y] | [U_x, U_y/R] | [m, 1] if U_x%m=0 | [1, m] if U_y%m=0
//	3    [1,1,1] if m=1 | [U_x/R,U_y,U_z] | [U_x,U_y/R,U_z] | [m,1,1] | [1,m,1] | [1,1,m]
//	     | [m',1,U_z] | [1,m',U_z] with m' = U_x·U_y/R
//
// Patches are numbered in C order over the patch grid; rank r writes patch r: offset =
// coordinate × patch × minBlock. Particles: N = ratio × cells; rank r writes the range
// starting at r × cells per patch × ratio, of its cells × ratio particles, to charge, id
// and position/x (positionOffset/x is constant, written by nobody). Unbalanced
// (balanced=false, R >= 2) on iterations T with T%3 = 1: ranks r%4 = 0 (r%10 in 1-D) write
// nothing and ranks r%4 = 1 write patches r-1 and r (one hyperslab when they form a box).
// By default each rank writes one hyperslab per record (rankBlocks=true, or collective
// transfers); rankBlocks=false with independent transfers stores one chunk per mini block
// with consecutive particle ranges.
//
// Per iteration the plan follows openPMD-api's flush: iteration group, fields group, B and
// E (group; per component: create, close, open+write+close per stored chunk, attributes;
// then the record's attributes), rho, particles/ion (charge, id, position, positionOffset),
// the species', the iteration's and, at the first flush of a file, the root attributes.
// Every group and dataset is created as createPath and createDataset do: its parent group
// opened (H5Gopen, collective metadata reads on the group access list when they are on),
// the object created and closed, the parent closed (their H5Lexists checks are not
// planned). Transfers are independent (OPENPMD_HDF5_INDEPENDENT=ON, openPMD-api's default); file
// access is MPI-IO with collective metadata and the deferred metadata cache (32 MiB,
// evictions off).
//
// # Reads (8b)
//
// Iterations 1 … steps are visited in order; each is opened and parsed (its groups and
// datasets opened, then closed at the iteration's end), and every 5th (1, 6, 11, …) gets
// the pattern's reads:
//
//	pattern  8b code  reads (every rank r)
//	m        1        nothing: metadata only (open, iterate, rho's extent)
//	sx       5        rho[r mod nx, :, :]
//	sy       15       rho[:, r mod ny, :]
//	sz       25       rho[:, :, r mod nz]
//	fx       55       the x-slice of B/x, B/y and B/z (3-D meshes only)
//	fy, fz   65, 75   the y-, z-slice of B/x, B/y, B/z
//
// Extents come from the file, as 8b takes them. A slice along an axis the mesh lacks reads
// nothing; a 1-D mesh's slice is the whole mesh. File-based reads open iteration 1's file
// at the start and each iteration's successor when leaving an iteration.
//
// # Differences from h5bench and openPMD-api
//
//   - The read reads the series the write produced: file name, encoding and steps come
//     from the read's own keys (defaults dim=3, balanced=true, as h5bench's hard-coded
//     8a_parallel_3Db). h5bench passes 8b the prefix 8a_parallel_3Db, which 8b opens as a
//     file-based series 8a_parallel_3Db_%07T.h5 that the default (variable-based) write
//     never creates, so h5bench's read finds no file.
//   - steps > 1 with the variable-based encoding (h5bench's default) is a configuration
//     error: the encoding holds one iteration at /data and openPMD-api's HDF5 backend has
//     no steps; use encoding=g or encoding=f.
//   - Unbalanced iterations: a rank r%4 = 0 (r%10 in 1-D) without a successor keeps its
//     patch, where 8a leaves it unwritten (never filled: garbage in the file). A double
//     rank writes exactly patches r-1 and r; the 8a source read (openPMD-api 01eb28e; the
//     h5bench pin may differ) sizes the block as the coordinate of the last patch + 1,
//     which is right for rank 1 only and out of bounds for ranks 5, 9, …. With collective
//     transfers idle ranks write an empty selection and a double rank one union selection,
//     so every rank makes the same calls (openPMD-api would hang or fail).
//   - rankBlocks=false in 1-D stores mini blocks like 2-D and 3-D (layouts.md 3.5); the
//     8a source read cuts a 1-D range into up to 10 partitions instead.
//   - 1-D slices read the whole mesh on every rank (8b's offset r mod n with the full
//     extent is out of bounds on ranks > 0).
//   - Keys 8a would ignore with a warning-free fallback are errors: a minBlock or grid line
//     with the wrong count of numbers (8a ignores the line), balanced other than
//     true/false (8a: anything but "false" is balanced), encoding other than f, g, v.
//   - The read keeps the objects it parsed open until the iteration is closed; openPMD-api
//     opens and closes each around every call, and also reads their attributes (the plan
//     vocabulary has no attribute reads).
//   - Values are emulate's seeded fills (value = f(seed, variable, step, index), variable =
//     the record path below the iteration, e.g. fields/B/x, particles/ion/id), not 8a's
//     1.0·n + 0.01·step ramps, so every read is verified. Attribute values are 8a's.
//   - The series file is created in Begin (openPMD-api creates it at the first flush) and
//     the date attribute is taken when the pattern is built.
package openpmd
