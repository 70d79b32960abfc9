// Package e3sm plans E3SM-IO's output (h5bench's e3sm benchmark) in the canonical HDF5
// layout: the climate model's history files, hundreds of variables per file, each
// partitioned variable written by all ranks with one collective H5Dwrite of the union of
// their (thousands of) small contiguous requests, as E3SM's decomposition maps dictate.
//
//	cfg, _ := proxy.ParseOptions("e3sm", []options.KV{{Key: "map", Value: "map_f_case_16p.h5"}, {Key: "file", Value: "out.h5"}})
//	// writes out_h0.h5 (414 variables, 1 record) and out_h1.h5 (51 variables, r records)
//
// Map files are read by package proxy/e3smmap, which package proxy installs; without a
// map the pattern synthesizes one (case, ne, g_cells, i_lat, ...).
//
// # Cases (layouts.md 4.1)
//
// The case follows the map's decomposition count: 3 F (atmosphere), 6 G (ocean),
// 5 I (land). F and I write two files, G one.
//
//	                      F h0      F h1     G         I h0      I h1
//	vars on D1..D6        1/323/63  1/22/1   6/2/25/   465/75/4  465/69/2
//	                                         2/2/4     /1/1      /1/1
//	partitioned / not     387 / 27  24 / 27  41 / 11   546 / 14  538 / 14
//	fixed / record        15 / 399  15 / 36  11 / 41   18 / 542  10 / 542
//	records               1         r        r         r         1
//
// Decomposed shapes: F D1 = D2 = [ncol], D3 = [lev, ncol]; G D1 [nCells], D2 [nEdges],
// D3 [nCells, nVertLevels], D4 [nEdges, nVertLevels], D5 [nVertices, nVertLevels],
// D6 [nCells, nVertLevelsP1]; I D1 [lat, lon], D2..D5 [levgrnd|levdcmp / levlak / ltype /
// natpft, lat, lon].
//
// Variable names, dimensions and attributes: F is transcribed from E3SM-IO's real headers
// (datasets/f_case_h0.txt, f_case_h1.txt). G is transcribed from E3SM-IO's
// header_def_G_case.cpp (vars_g.go; its two stored versions write the same canonical file):
// 747 global attributes in its order (562 text, 27 int, 158 double: initial_file, ne, np,
// time_period_freq, title ... contact, the MPAS on_a_sphere ... mesh_spec, the ocean
// namelist's config_* ones, file_id last; the blob strategy's and ADIOS's own are not
// written by the canonical HDF5 driver), the dimensions Time, nCells, nEdges, nVertices,
// nVertLevelsP1, nVertLevels, StrLen, and the 52 variables with units and long_name. I is
// transcribed from E3SM-IO's header_def_I_case.cpp as defined since its pull request 184
// (vars_i.go): 27 global attributes (18 text, 9 int; h1 adds 2 text), 21 dimensions in
// E3SM-IO's order (time, lon, lat, the land model's unused gridcell ... pft sizes, ...,
// hist_interval), then the fixed-size variables (landmask and pftmask int on D1 with
// _FillValue and missing_value -9999; levgrnd, levlak, levdcmp, lon, lat; area, topo,
// landfrac on D1; in h0 only ZSOI, DZSOI, WATSAT, SUCSAT, BSW, HKSAT on D2 and ZLAKE,
// DZLAKE on D3), then the record ones (date_written, time_written, mcdate, mcsec, mdcur,
// mscur, nstep, time_bounds, time, then the 533 partitioned ACTUAL_IMMOB ... plim_m:
// 460 on D1, 13 on D2 over levgrnd and 56 over levdcmp, 2 on D3, PCT_LANDUNIT on D4,
// PCT_NAT_PFT on D5), each with long_name, [standard_name,] units, cell_methods,
// _FillValue and missing_value (1e36f).
//
// # File layout (layouts.md 4.3)
//
//	out_h0.h5, out_h1.h5 (F, I)   out.h5 (G)
//	/ attributes                  global attributes: text = scalar str(len+1), numbers = 1-D
//	/ -DIM_<name>                 u64 scalar per dimension; time (G: Time) = H5S_UNLIMITED
//	/<variable>                   one dataset per variable, at the root
//
//	variable kind   dataspace                       layout           fill
//	record          [0, d...] max [UNLIMITED, d...] chunk [1, d...]  time never
//	fixed-size      [d...] (scalar for rank 0)      contiguous       time never
//
//	type            F partitioned record: f64 (f32 with j); I: every variable E3SM-IO
//	                defines with REC_XTYPE (all the land model's float ones, fixed and
//	                record, partitioned or not) f64, f32 with j; G record: f64; others as
//	                the real header (f64, i32, char as i8: H5T_NATIVE_CHAR is signed);
//	                _FillValue has the variable's type, missing_value stays f32 (i32)
//
// # Operations
//
//	Begin(write)   create file 1 (MPI-IO with E3SM-IO's hints romio_cb_write=enable,
//	               romio_no_indep_rw=true, nc_var_align_size=1, nc_in_place_swap=enable,
//	               under any the session sets; libver LATEST, collective metadata writes,
//	               32-128 MiB metadata cache), global and -DIM_ attributes, every
//	               dataset and its attributes
//	Step s         s is a record of a file, files one after the other (F: h0's record,
//	               then h1's r records). At a file's first record (but the first file's)
//	               the previous file is closed and the next created as in Begin. Then, as
//	               E3SM-IO's var_wr_case: every record dataset extended to rec+1 records
//	               (H5Dset_extent, collective) in definition order, then every variable
//	               written in definition order, fixed-size ones only at record 0. No
//	               H5Fflush (E3SM-IO's HDF5 driver's wait is empty); flush_file=YES adds
//	               one per record (y=1), as its log-VOL driver does.
//	End            close the datasets and the file
//
// A partitioned variable's write is one collective H5Dwrite per rank: the union (OR) of
// one hyperslab per request, start [rec, row..., col], block [1, 1..., len], stride and
// count 1, memory 1-D of the total length; ranks without requests select nothing. The
// other variables are written as E3SM-IO's put_vara writes them: by rank 0 alone, one
// independent H5Dwrite of the block (the record, or the whole fixed-size variable) with a
// memory space of the block's shape; the other ranks make no call. The read phase opens the files in the
// same order, reads the fixed-size variables at a file's first step and every record
// variable's record per step with the same selections; the session verifies every
// element (values are emulate's seeded fills, a function of variable, step and global
// index, so any decomposition verifies).
//
// # Rank assignment (layouts.md 4.2)
//
// With R I/O ranks and P map processes, rank r takes processes [start, start+count),
// count = P/R (+1 for the first P%R ranks); ranks >= P take none but join every collective
// call. Each process's requests are fill_starts[p] (all nreqs[p] with u). With s > 1 only
// ranks r % s == 0 do I/O, as I/O rank r/s of ceil(R/s).
//
// # Synthesized maps
//
// The horizontal points are laid out in 2-D (F: the six cube faces of (3·ne)² GLL
// columns in a 2×3 arrangement plus 2 columns, ncol = 54·ne²+2 — 866 for ne4, the 16p
// map; 48602 ne30; 777602 ne120; G: near-square grids of nCells, nEdges = 3·nCells−6,
// nVertices = 2·nCells−4 points, the counts of a spherical Voronoi mesh; I: the lat×lon
// grid with a deterministic land mask of the given fraction, 0.41 as the 16p map's 5663 of
// 13824) and cut into P pieces of equal point counts along a Hilbert curve. A process's
// points become requests: F D1 and G cells number the points row-major (compact pieces give
// runs), F D2/D3 and G edges/vertices number them by a multiplicative permutation (runs of
// length 1 spread over the whole range, like the real F D2/D3 maps' 866 and 62352
// length-1 requests), I numbers lat×lon row-major so ocean holes split the runs; the
// ocean points of a piece are its fill requests. Leading level dimensions repeat a
// process's runs per level (F D3: lev × runs); G's level dimension is the fastest, so each
// owned cell is one request of a whole row. Requests never cross a row.
//
// # Differences from E3SM-IO
//
//   - Fill value "undefined": the datasets keep HDF5's default fill value (never written,
//     fill time NEVER as in E3SM-IO).
//   - With j, write buffers are float (E3SM-IO converts double buffers), so that reads
//     verify exactly.
//   - -t sleeps before every record in E3SM-IO; the session's compute_time runs between
//     records (not before the first).
//   - m (noncontiguous buffers), k, v, q and g are accepted and ignored.
//   - I follows E3SM-IO's pull request 184 (REC_XTYPE double by default, fixed-size
//     variables defined first), as the F files h5bench's E3SM-IO wrote do (8-byte
//     _FillValue); E3SM-IO's header without it (commit f09170bc) defines the same
//     variables, attributes and values float, written from double buffers, in the land
//     model's own order. F keeps the real file's order (docs/fidelity-notes.md, E11).
package e3sm
