// Package h5perf is HDF5's parallel I/O benchmark h5perf (tools/src/h5perf in the HDF5
// 1.10.8 sources: pio_perf.c for the options, loops and report, pio_engine.c for the I/O)
// as an h5proxy pattern and command line.
//
// Parse reads h5perf's command line (options a:A:B:cCd:D:e:F:ghi:Imno:p:P:stT:wx:X: and
// its long names, parse_command_line's defaults and adjustments: 256K bytes per process
// per dataset in 1-D, 8K in 2-D, transfer sizes and block half of that, all APIs, 1 file,
// 1 dataset, 1 iteration, processes 1 to all). `h5proxy h5perf` loops as run_test_loop
// does: process counts from -P down to -p halving, transfer sizes from -x to -X doubling,
// APIs POSIX, MPIO, PHDF5, one pattern session each.
//
// One session (pattern options in Options) is do_pio's run: per iteration, per file
// #pio_tmp_<n>.posix/.mpio/.h5, every rank creates the file, per dataset Dataset_<d>
// (unsigned bytes; num-bytes × ranks long in 1-D, its square in 2-D; chunked by the block
// with -c) writes its transfers one buffer at a time at do_write's places — its contiguous
// region, or blocks interleaved with the other ranks' (-I), rows of blocks in 2-D (-g) —
// closes the dataset and the file; then opens and reads it back the same way. The file's
// H5Pset_alignment comes from -a/-T. POSIX runs on the posix layout, MPIO on mpiio, PHDF5 on
// native; each transfer is one call (pwrite, MPI_File_write_at(_all), H5Dwrite), blocks
// of an independent interleaved transfer one call each as h5perf's loops do.
//
// The transfer buffer behaves as h5perf's malloc'd one under glibc (memory.go): an
// iteration whose buffer would be fresh pages writes its first transfer from an untouched
// buffer and reads into it, so the page faults fall inside the same timers; a buffer that
// glibc would map starts 16 bytes past a page boundary, as glibc's does.
//
// The report mirrors pio_perf.c's output_report lines: the parameters block, "Number of
// processors = N", per size "Transfer Buffer Size: ..." and per API the Write, Write
// Open-Close, Read and Read Open-Close rates (MiB/s of num-files × num-dsets × dataset
// bytes over each iteration's slowest rank: maximum, average and minimum over the
// iterations). Write is h5perf's timer from after the file's open to after the last
// dataset's close, Open-Close from before the open to after the close. docs/h5perf.md
// lists what differs (data are seeded and verified; h5perf writes an uninitialized buffer).
package h5perf
