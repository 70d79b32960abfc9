// Package ior plans IOR's test (github.com/hpc/ior) and reads IOR's command line: every
// task writes, then reads, segmentCount segments of blockSize bytes in transferSize calls,
// to one shared file or a file per task, repeated -i times; reads may be shifted to other
// tasks' data (-C, -Q, -Z) and verified (-W, -R). h5proxy ior (cmd/h5proxy) runs a
// command line and prints IOR's report; the pattern is also usable as "ior" from JSON
// configurations, C, Fortran and Go with the keys of Options.
//
// # Command line (parse_options.c: createGlobalOptions, DecodeDirective; option.c)
//
// ParseArgs takes the letters users type: -a api, -b blockSize, -t transferSize, -s
// segmentCount, -F filePerProc, -c collective, -C reorderTasks, -Q taskPerNodeOffset, -Z
// reorderTasksRandom, -X reorderTasksRandomSeed, -z randomOffset, -e fsync, -Y
// fsyncPerWrite, -w writeFile, -r readFile, -W checkWrite, -R checkRead, -k keepFile, -K
// keepFileWithError, -i repetitions, -d interTestDelay, -o testFile, -O directives
// (key=value,... with the names above), -g intraTestBarriers, -x singleXferAttempt, -H
// showHints, -J setAlignment, -n noFill, -A refNum, -G setTimeStampSignature, -U
// hintsFileName, -v verbose, and IOR 4's HDF5 module options --hdf5.collectiveMetadata,
// --hdf5.noFill (-n), --hdf5.chunkSize (alone: 1 element, as IOR 4.0 declares it a flag;
// --hdf5.chunkSize=N: N), --hdf5.setAlignment=X (-J), --hdf5.hintsFileName=F (-U) and
// --hdf5.showHints (-H), and the MPIIO module's --mpiio.useFileView (-V). Sizes take k, m or g (×1024^n; utilities.c: string_to_bytes).
// Defaults are IOR's (ior.c: init_IOR_Param_t): POSIX, 1 MiB blocks, 256 KiB transfers,
// 1 segment, 1 repetition, testFile, taskPerNodeOffset 1. With none of -w -r -W -R, IOR
// writes and reads (CheckRunSettings). A letter IOR has but h5proxy does not model (-D,
// -E, -f, -I, -j, -l, -m, -M, -N, -p, -P, -q, -S, -T, -u) is refused by name; any other
// is IOR's "Error invalid argument: ARG" / "Invalid options". FromValues applies
// ValidateTests' checks (ior.c) with IOR's messages ("block size must be a multiple of
// transfer size", ...) and its warnings with reset ("collective not available in POSIX").
//
// # File layout (ior.c: GetOffsetArraySequential, GetOffsetArrayRandom)
//
// A transfer of task t (the pretended rank) in segment s, block transfer j, is at byte
// s·N·B + t·B + j·T of the shared file (N tasks, B = blockSize, T = transferSize), or at
// s·B + j·T of the task's own file testFile.NNNNNNNN (-F; GetTestFileName). The pattern
// plans one 1-D dataset per segment of N·B/8 (shared) or B/8 (-F) 8-byte integers, the
// task's transfers as 1-D hyperslabs of T/8 elements at (t·B + j·T)/8, or j·T/8, in it.
// The raw layouts lay the datasets out one after the other from byte 0 in creation order
// (proxy/layout/internal/rawfile), so under -a POSIX (pwrite/pread, the posix layout) and
// -a MPIIO (MPI_File_write_at and its collective form, the mpiio layout) every byte lands
// at IOR's offset. -z: the transfers in a seeded random order; in a shared file each
// transfer goes to a task drawn at random, every task drawing the same (IOR uses C's
// rand() seeded from a value it broadcasts: the order and the assignment differ from
// IOR's, their distribution does not).
//
// -V (aiori-MPIIO.c: MPIIO_Open, MPIIO_Xfer, SeekOffset): every open carries IOR's view
// (plan.FileSpec.View: etype one transfer, the filetype showing the task's block of each
// segment), set once by the mpiio layout; each transfer seeks to its place in the view
// (plan.FileView.Offset) and moves one transfer type with MPI_File_write_all or _write.
//
// # HDF5 (aiori-HDF5.c: IOR_Open_HDF5, SetupDataSet_HDF5, SeekOffset_HDF5, IOR_Xfer_HDF5)
//
// -a HDF5 runs on the native layout and writes IOR's file: the file created with
// H5F_ACC_TRUNC (opened H5F_ACC_RDONLY to read) through H5Pset_fapl_mpio on all tasks
// (shared) and H5Pset_alignment(J, J) with -J; datasets "Dataset-0000.SSSS" (data set 0,
// segment S), H5T_NATIVE_LLONG, 1-D of N·B/8 (B/8 with -F) elements, contiguous, created
// when the first transfer reaches the segment and closed after its last; H5D_FILL_TIME_NEVER
// with -n, chunks of --hdf5.chunkSize elements (H5Pset_chunk), collective metadata reads
// and writes on the file access list with --hdf5.collectiveMetadata; each transfer an H5Dwrite (H5Dread) of a T/8-element hyperslab with
// H5FD_MPIO_COLLECTIVE under -c, H5FD_MPIO_INDEPENDENT otherwise. MPI hints (the
// IOR_HINT__MPI__ variables) go to H5Pset_fapl_mpio. Differences: IOR's memory space is
// transferSize elements with its first T/8 selected, h5proxy's is T/8 elements (the same
// bytes move); IOR opens a -F file through MPI-IO on MPI_COMM_SELF, h5proxy with HDF5's
// default (sec2) driver; IOR's H5Pset_sizes(8, 8) equals HDF5's defaults. IOR's HDF5 fsync
// does nothing, so -e and -Y plan no flush under HDF5.
//
// # Reads (ior.c: TestIoSys)
//
// Rank r reads what task (r + offset) % N wrote, in its file with -F. -C: offset = -Q
// (IOR multiplies by the tasks of node 0 when it finds its tasks placed by block, which
// on one node would make -C no shift: h5proxy models IOR's round-robin placement over
// nodes); a check of the write alone (-W without -r or -R) shifts by 2. -Z: a generator
// seeded with r + -X (-X < 0: -X + the iteration) draws the offset (IOR's srand/rand; the
// draw differs, the rule does not). Every value is h5proxy's seeded fill of its dataset,
// element and, with -F, writing task, so a verified read (-W, -R) of any task's data is
// checked element by element.
//
// # Iterations
//
// Each of the -i iterations is one step: the file created (opened), the transfers, -Y's
// flush after each write and -e's after all (FlushFile, fsync under posix and MPI_File_sync
// under mpiio), the close. The pattern is a patterns.Iterator: h5proxy ior has the
// session run the iterations one at a time (Session.Iterate), each phase one step of the
// iteration patterns.Env names, so that it runs IOR's order: per iteration the write, the
// read, the removal. BarrierBefore is IOR's barrier before each open. -d is emulated
// compute after each step.
//
// # Report (ior-output.c, IOR 3.3.0's output)
//
// KernelReport returns, per phase, IOR's results rows (access, bw(MiB/s), IOPS,
// Latency(s), block(KiB), xfer(KiB), open(s), wr/rd(s), close(s), total(s), iter) in
// PPDouble's format, the "Max Write:"/"Max Read:" line and the row of "Summary of all
// tests:" (Max(MiB) ... RefNum); Results says how each value comes from the session's
// measurements. OptionsBlock is ShowSetup's "Options:" echo.
package ior
