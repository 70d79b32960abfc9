// Package macsio mirrors the I/O of LLNL's MACSio (Multi-purpose, Application-Centric,
// Scalable I/O proxy application) through its HDF5 plugin, at the commit h5bench pins
// (7f19af3), as h5bench's macsio benchmark runs it.
//
// The data model (macsio_data.c): round(ranks x avg_num_parts) mesh parts, consecutive
// chunk ids handed out rank after rank, each rank taking K or K+1 (K = floor of the
// average; which ranks take K+1 is drawn from the session's seed where MACSio uses a
// rank-invariant PRNG). A part holds part_size/8 doubles split into part_dim close
// factors (MACSIO_UTILS_Best2DFactors/Best3DFactors: 1250 -> 25 x 50, 1 MiB -> 256 x 512),
// the parts tiled by the close factors of their count; --part_mesh_dims and --mesh_decomp
// override either. The plugin writes variables only, vars_per_part of them per part:
// variable i has kind i mod 8 of constant, random, spherical (zone-centred doubles), xramp,
// ysin, noise, noise_sum (node-centred doubles) and xlayers (zone-centred int32), named
// after the kind for the first 8 and <kind>_%03d with index (i-8)/8 after. A
// node-centred variable has the part's node counts, a zone-centred one one fewer along
// each axis.
//
// SIF (--parallel_file_mode SIF): one file per dump, <filebase>_hdf5_<dump %03d>.<ext>,
// opened by every rank through MPI-IO with the plugin's metadata cache settings (initial
// 16 KiB, minimum 8 KiB, epoch length 3000, lower hit-rate threshold 0.95, automatic
// resizing kept). Each variable is one root dataset of the whole mesh, shaped slowest
// first ([z,] y, x): node-centred, the part's nodes times the parts along each axis;
// zone-centred, that less the parts along the axis. Each rank makes one H5Dwrite per
// part, ceil(avg_num_parts) calls per variable, at the part's global origin (zone-centred
// origins shifted back by the part index); a rank with fewer parts calls with an empty
// selection. Transfers are collective unless --no_collective.
//
// MIF (--parallel_file_mode MIF n): n groups of contiguous ranks (the first ranks mod n
// one rank larger; more files than ranks make every rank its own group), each writing
// <filebase>_hdf5_<group %05d>_<dump %03d>.<ext>. The ranks of a group take turns: the
// first creates the file (sec2, close degree SEMI), each later one waits for the baton
// from the rank before it (MPI_Recv, tag 3), opens the file read-write, writes, closes
// and passes the baton on (MPI_Ssend): plan.WaitBaton and plan.PassBaton, which the
// session carries out on its communicator. Inside, one group domain_%07d (the global
// chunk id) per part, each variable a dataset of the part's own shape listed x, y[, z]
// (the transpose of SIF's order), written whole through the default transfer list.
//
// --compression gzip|szip|zfp PARAMS makes every dataset of at least minsize (1024)
// elements one chunk of its whole shape, with the byte shuffle (gzip, szip) and deflate
// level 9 (level=N), SZIP (method=nn|ec, block=N; where HDF5 has it) or the H5Z-ZFP plugin.
//
// --dataset_growth f (> 1): after each dump a rank sums the sizes on disk of the files it
// wrote in it (patterns.Env.DiskSize) and adds size x (f-1) bytes, computed in single
// precision, as node-centred expansion_NNN variables on its first part: whole arrays of
// the part's node shape, then one remainder whose node count is split as the part size
// is. The remainder takes the counter's current name without advancing it, so the next
// growth's first array repeats the name; MACSio's create of it fails and the file keeps
// the first, which h5proxy mirrors by not creating it. In SIF every rank grows by the
// shared file's size and the expansion datasets take the whole mesh's node shape, each
// rank writing its first part's block once (MACSio's writes for its other parts find no
// buffer and fail).
//
// Data are seeded and verifiable; the read phase (not MACSio's: its HDF5 plugin has no
// reader) reads every dump back and checks it. After the write phase's report MACSio's
// log file (a region of log_line_cnt lines per rank: each dump's "Dump NN BW" and "Dump
// NN Stat BW" lines, "Overall BW", and rank 0's "Summed  BW" and "Total Bytes" lines) and
// timings file (every rank's timers, then rank 0's "Reduced Timers...") are written by
// rank 0 from every rank's own measurements (patterns.RankReporter).
package macsio
