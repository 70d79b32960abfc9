// Package nova plans the NOvA case study of parallel HDF5 dataset concatenation for
// high-energy-physics analysis (Lee et al., "A Case Study on Parallel HDF5 Dataset
// Concatenation for High Energy Physics Data Analysis", Parallel Computing 110, 2022; its
// program, ph5concat): a write phase that synthesizes a NOvA-like input set, then the
// concatenation as the read phase.
//
// # Inputs (ph5concat's README.md, "Requirements for Input HDF5 Files"; the paper)
//
// Every input file has the same schema: a group per table, /spill first, and in each group
// the same datasets (columns), each a rows x 1 array (the paper's 1-D datasets) or rows x
// width_2d (its 2-D ones); every column of a table has the table's row count, which
// differs from file to file and may be 0. The datasets are extensible in rows, chunked by
// 128 rows and gzipped at level 6. The paper's files: ND 999 groups, 15,965 1-D and 8 2-D
// datasets, 13,396 empty; FD 701 groups, 12,925 and 6, 9,374 empty; ratios 30x to 1000x.
// Here a table starts with the index columns run, subrun, evt (uint32) and cycle (int32),
// then data columns of mixed types (float32, int32, float64, uint8, int64, uint32); the
// empty tables (empty_fraction of them, never /spill) are empty in every file; a non-empty
// table's rows per file are drawn from a log-normal distribution around rows_mean, seeded
// by the session's seed. Values repeat in runs of compress_ratio rows (NOvA's run and
// subrun are constant in a file, evt constant over an event's rows).
//
// # Concatenation (ph5_concat.cpp: construct_metadata, file_create, the writes)
//
// The F files are spread evenly over the P ranks in contiguous blocks. Each rank opens its
// files read-only (sec2, or the core driver, ph5concat's default in-memory I/O), opens
// every dataset for its type and size and closes the empty ones at once; ph5concat sums
// the sizes with MPI_Allreduce and places each rank's rows with MPI_Exscan, which every
// rank computes here from the seed (plans are pure). All ranks create the output through
// MPI-IO with collective metadata operations and writes (or rank 0 alone, then all open
// it: ph5concat -s), a group per table and a dataset per column with its total rows,
// zero-size ones in the configured layout (ph5concat: compact) and closed at once; the
// metadata cache is HDF5's or fixed at 128 MiB (ph5concat's set_metadata_cache). Then,
// as ph5concat's concat_datasets (its default I/O strategy), the non-empty datasets one
// after another, the 1-D ones first: each rank reads the dataset's piece from each of its
// files that has rows (kept open since the first step: a file selection, no reopening)
// and closes that input dataset, then the dataset is written with one collective
// H5Dwrite, each rank its files' pieces one after another (ph5concat's I/O buffer taken
// as large enough: -b 0), and closed. The inputs close at the end, then the output.
//
// The session's read phase has four steps: inputs (metadata read), create, write (the
// data reads and the writes), close; the pattern's own report (patterns.Reporter) is the paper's time
// breakdown per step. docs/nova.md has the keys, the study and its figures.
package nova
