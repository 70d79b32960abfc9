// Package dlio plans h5bench's DLIO emulation (h5bench_dlio, h5bench's dlio/ folder: an
// emulation of the DLIO deep-learning I/O benchmark, version 1.1's I/O pattern): a data
// generation step, then training epochs that read one sample at a time.
//
// # Files (h5bench_dlio.c: generate_data, generate_file)
//
// The data directory holds <train-data-folder>/ and <valid-data-folder>/, each with
// num-files-train (num-files-eval) files named <file-prefix>_<i>_of_<n>.h5, i from 1. Rank
// r generates files r, r + ranks, ... of the train folder, then of the valid folder, each
// on its own (no other rank opens it). A file's root group holds
//
//	/<records-dataset-name>  uint8 (H5T_STD_U8LE) [num-samples-per-file, DIM, DIM]
//	/<labels-dataset-name>   int64 (H5T_STD_I64LE) [num-samples-per-file], all 0
//
// where DIM = floor(sqrt(record-length)). With chunking the records dataset has chunks
// (1, c, c), c = min(floor(sqrt(chunk-size)), DIM), and with compression a deflate filter
// of compression-level; the labels dataset is contiguous. The program writes the records
// with one H5Dwrite of the whole dataset, then creates and writes the labels.
//
// # Training (run, train, eval; workers.c for read-threads)
//
// Each rank has num-files-train x num-samples-per-file / batch-size / ranks whole batches
// per epoch (the rest is dropped), fewer with total-training-steps. Every epoch it reads
// its batches, each sample with H5Fopen, H5Dopen of the records, a 1 x DIM x DIM hyperslab
// H5Dread at the sample's index, H5Dclose and H5Fclose, then computes (computation-time,
// a normal draw) after each batch; with evaluation it then does the same over the valid
// files with batch-size-eval and eval-time, every epochs-between-evals epochs. The sample
// order is the identity or, with shuffle, shuffled every epoch by the C library's rand():
// package dlio replays glibc's generator so that each rank reads the samples the program's
// rank reads (see Config.plan for the two orders, without and with read threads).
//
// In h5proxy the generation is the write phase (one step per round of files) and the
// training the read phase (one step per batch, training then evaluation, epoch after
// epoch); the pattern's compute (patterns.Computer) is the per-batch draw plus the batch's
// preprocess draws. Its own report (patterns.Reporter) is the program's "Performance
// Results" and the rows of its CSV. docs/dlio.md has the mapping and the differences.
package dlio
