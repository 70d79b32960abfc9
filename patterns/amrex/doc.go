// Package amrex plans h5bench's AMReX benchmark (amrex/Tests/HDF5Benchmark, the
// h5bench_amrex_sync and _async programs): AMReX HDF5 plotfiles written by
// WriteMultiLevelPlotfileHDF5SingleDset, particle checkpoints written by CheckpointHDF5,
// and the restart read-back. Registered as pattern "amrex"; h5bench's amrex keys are its
// options.
//
//	h5proxy plan -rank 0 -size 2 amrex ncells=16 max_grid_size=8 nlevs=1 ncomp=2 nppc=1 file=out
//
// # Steps and files
//
// One file per step, in the benchmark's order: steps 0 .. nplotfile-1 write the plotfiles
// <dir>/plt00000.h5, plt00001.h5, ...; the next nparticlefile steps write
// <dir>/plt%05d/particle0/particle0.h5 (numbered from 0 again). <dir> is the `directory`
// key when set, else the session's file, which for this pattern names the output
// directory (h5bench configurations: see package h5bench). The session's compute between
// steps is the benchmark's sleep (`sleeptime` is an alias of compute_time): h5bench sleeps
// before every file of each loop but its first, so between the last plotfile and the first
// particle file it initialises the particles (InitRandom) instead; h5proxy computes there
// too. The read phase reads the files back in the same order, one per step.
//
// # Plotfile (layouts.md 2.1; the example: 2 ranks, ncells=16, max_grid_size=8, ncomp=2)
//
//	plt00000.h5
//	├── @version_name        str "HyperCLaw-V1.1"        (fixed-length strlen+1, NULLTERM, scalar)
//	├── @plotfile_type       str "VanillaHDF5"
//	├── @num_components      i32[1] = ncomp
//	├── @component_<c>       str "component_<c>"         c = 0 .. ncomp-1
//	├── @dim                 i32[1] = 3
//	├── @time                f64[1] = 0
//	├── @finest_level        i32[1] = nlevs-1
//	├── @coordinate_system   i32[1] = 0
//	├── @num_levels          i32[1] = nlevs
//	├── Chombo_global/       @SpaceDim i32[1] = 3
//	└── level_<l>/
//	    ├── @ref_ratio       i32[1]   ratio to level l+1; 1 on the finest level
//	    ├── @Vec_dx          f64[3]   1/(domain cells) per dimension (real box [0,1]^3)
//	    ├── @dx              f64[1]   Vec_dx[0]
//	    ├── @prob_lo         f64[3] = 0,0,0
//	    ├── @prob_hi         f64[3] = 1,1,1
//	    ├── @prob_domain     box, scalar = the level's domain, e.g. (0,0,0,15,15,15)
//	    ├── @domain_type     i32[3] = 0,0,0
//	    ├── @steps           i32[1] = 0
//	    ├── @ngrid           i32[1] = boxes of the level (8)
//	    ├── @time            f64[1] = 0
//	    ├── @ngrow           i32[1] = 0
//	    ├── boxes            box [ngrid]             file order (below)
//	    ├── data:offsets=0   i64 [ngrid+1]           0,1024,...,8192
//	    ├── boxcenter        boxcenter [ngrid]       all 0 (cell-centred)
//	    └── data:datatype=0  f64 [Σ numPts*ncomp]    8192; fill time never
//
// Compounds (native ints, packed): box = {lo_i@0, lo_j@4, lo_k@8, hi_i@12, hi_j@16,
// hi_k@20} (24 bytes), boxcenter = {i@0, j@4, k@8} (12 bytes).
//
// # Boxes, ranks and offsets (layouts.md 2.2)
//
//	grids       domain [0,ncells-1]^3 chopped by BoxList::maxSize(max_grid_size): lengths
//	            reduced by common powers of 2, ceil(len/mgs) near-equal blocks (the first
//	            len%blocks one longer), pieces enumerated x fastest, then y, then z
//	ranks       SFC: boxes sorted by the Morton key of their small end (x lowest bit),
//	            cut into R buckets of ~total/R cells (a bucket that overshoots gives back
//	            its last box unless it has one or is the last); buckets sorted heaviest
//	            first (stable) go to ranks ordered by least FAB memory in use (level 0:
//	            bucket i -> rank i; finer levels: by the coarser levels' FAB bytes)
//	file order  boxes grouped by owning rank (ascending), BoxArray order within a rank
//	offsets     data:offsets=0[b] = Σ numPts*ncomp of the boxes before b; last = total
//	data        rank r writes [Σ counts of ranks < r, its count), collectively (empty
//	            selection without boxes); inside a box AMReX copies the FAB component-major
//	            in Fortran order
//
// Example (2 ranks, 16^3, mgs 8): 8 boxes of 8^3, Morton order = index order, rank 0 owns
// boxes 0-3 (z = 0 layer) and writes data:datatype=0[0:4096], rank 1 [4096:8192].
// h5bench's sample (64^3, mgs 8): 512 boxes; at 2 ranks rank 0 owns the 256 with k < 32.
//
// # Write sequence and properties (layouts.md 2.3)
//
//	rank 0       H5Fcreate (default fapl, directories created), root attributes,
//	             Chombo_global, level groups with their attributes, H5Fclose
//	all ranks    H5Fopen RDWR through MPI-IO: H5Pset_alignment(16 MiB, 16 MiB),
//	             H5Pset_meta_block_size(4 MiB), collective metadata writes and operations,
//	             metadata cache 16 MiB without evictions (the h5bench pin)
//	per level    H5Gopen; create boxes, data:offsets=0, boxcenter; rank 0 writes offsets,
//	             boxcenter, boxes (whole, independent); create data:datatype=0 (fill time
//	             never); collective write; close data, offsets, boxcenter, boxes, group
//	compression  hdf5compression=ZLIB@<level>: data datasets chunked in 1-D chunks of 1024
//	             elements ($HDF5_CHUNK_SIZE), capped at the dataset length, deflated
//
// # Particle checkpoint (layouts.md 2.4)
//
//	plt00000/particle0/particle0.h5
//	├── @version_name        str "Version_Two_Dot_One_double"
//	├── Chombo_global/       @SpaceDim i32[1] = 3
//	├── @num_component       i32[1] = 16
//	├── @num_component_real  i32[1] = 12
//	├── @real_component_0 .. @real_component_11   str "particle_real_component_0" .. "_11"
//	├── @num_component_int   i32[1] = 4
//	├── @int_component_0 .. @int_component_3      str "particle_int_component_0" .. "_3"
//	├── @nparticles          i64[1] = nppc*ncells^3
//	├── @maxnextid           i64[1] = N/R + N%R + 1 (rank 0 generates the remainder)
//	├── @finest_level        i32[1] = nlevs-1
//	└── level_<l>/
//	    ├── @ngrids          i32[1] = boxes of the level
//	    ├── boxes            box [ngrids]             BoxArray order; fill time never
//	    ├── data:datatype=0  i32 [Σ count*6]          per particle id, cpu, 4 ints
//	    ├── data:datatype=1  f64 [Σ count*15]         per particle x, y, z, 12 reals
//	    └── nparticles_grid  i32 [non-empty grids]    per-grid counts, ranks in order
//
// Rank 0 writes the header and every level's boxes serially. Then all ranks reopen the file
// (same fapl as the plotfile) and, per level with particles, create the two data datasets,
// write each non-empty grid they own (local order) as one int and one real write, both
// collective, at the rank's running offset (ranks in order), pad with empty collective
// writes up to the largest grid count of any rank, close real then int, and write their
// per-grid counts into nparticles_grid collectively.
//
// # Read-back (the restart check)
//
// The read phase is the benchmark's restart check: one step, RestartHDF5 of
// plt00000/particle0 (the first particle file), and no step without particle files. With
// read_back=all (an h5proxy key) it reads every file written instead, one per step.
// Plotfile steps: every rank reopens the file and reads, per level, the range of
// data:datatype=0 its boxes occupy (collective). Particle steps mirror RestartHDF5: every
// rank opens the file, reads its header's attributes as AMReX does (version_name with its
// stored type; Chombo_global's SpaceDim; num_component_real, num_component_int,
// nparticles, maxnextid, finest_level: H5Aopen, H5Aread, H5Aclose, each verified against
// the writer's value but maxnextid, which the writer's rank count sets), reads each
// level's boxes whole through the box compound (verified: BoxArray order does not depend
// on the writer), reopens each level group for its ngrids attribute, reads nparticles_grid whole
// (not verified: it is in the writer's rank order) and, for each grid it owns, the int and
// real records at the offsets AMReX's restart computes, independently. Every data element
// read is verified against the seeded fill, whatever rank count wrote the file: ranges
// follow the reader's decomposition and always partition the datasets.
//
// # Configuration keys (h5bench amrex)
//
//	ncells, max_grid_size, nlevs, ncomp, nppc   required, as ParmParse::get
//	nplotfile, nparticlefile                    default 1; their sum is the step count
//	sleeptime                                   session compute_time (seconds)
//	restart_check                               h5bench: adds the read phase (package h5bench)
//	grids_from_file, ref_ratio_file             grids/Level_<l> box lists (working directory)
//	hdf5compression                             None@0 | ZLIB@1..9 (SZ/ZFP: warning, uncompressed)
//	directory                                   output directory (default: session file)
//	read_back                                   h5proxy: restart (default) | all files
//	mode                                        session mode (SYNC, ASYNC; LOG is a layout)
//
// # Differences from AMReX and h5bench
//
//   - Values: data datasets hold emulate's seeded fills (value = f(seed, variable, step,
//     index), the variable being the dataset's path, e.g. /level_0/data:datatype=0), so
//     every read can be verified; AMReX writes the level number in every cell and random
//     particle positions, ids and the initial data of the particle container.
//     boxes, boxcenter, data:offsets=0 and nparticles_grid hold their real values.
//   - Particle counts: the benchmark places nppc*ncells^3 particles at random (seed 451),
//     so its per-grid counts are random; here each grid gets its expected share (nppc per
//     cell on one level; on several levels in proportion to the volume a grid covers that
//     no finer grid covers, largest remainder), the same on every run and rank count.
//   - Sleep: one compute period more than h5bench, between the last plotfile and the first
//     particle file (h5bench initialises the particles there). The read phase computes
//     between its steps too; h5bench's restart check does not sleep.
//   - read_back=all (not the default) reads every file written; h5bench's restart_check
//     reads only plt00000/particle0, as the default does (with restart_check=0 it reads
//     nothing: no read phase).
//   - Compression: h5bench's default build has neither ZFP nor SZ, and at the pin its whole
//     compression block exists only in such builds, so h5bench writes contiguous,
//     uncompressed files whatever hdf5compression says. h5proxy honours ZLIB as AMReX's
//     HEAD does (1-D chunks, deflate; without HEAD's shuffle filter), warns about SZ/ZFP
//     (no such filters in HDF5 1.10.8: written uncompressed), and warns about strings
//     without '@' such as h5bench's documented ZFP_ACCURACY#0.001 (AMReX parses no mode
//     from them). Allocation times (INCR, LATE) are HDF5's defaults here.
//   - Multi-level grids come from grids/Level_<l> (no maxSize, as in the benchmark); the
//     nested default supports one level, as the benchmark asserts.
//   - Box chopping follows BoxList::maxSize as of AMReX 2024 (pieces in x-fastest order);
//     older AMReX chopped from the high end and listed pieces in another order.
//   - The distribution mapping at levels > 0 and the bucket-to-rank order on ties are
//     derived from AMReX's source, not observed (layouts.md 7.1).
//   - Layouts: every layout and mode runs it (proxy's TestAMReXLayouts: native, null, log,
//     subfiling, mpiio, posix, and subfiling-vfd on the 1.14 build, where rank 0's serial
//     header goes through the VFD on MPI_COMM_SELF so that the parallel open finds its
//     subfiles: plan.FileSpec.SharedLater).
package amrex
