// xfer.h: the C side of a dataset transfer that more than one Go file makes (transfer.go
// one at a time, run.go in runs, knobs.go's census), written once.
#ifndef H5PROXY_XFER_H
#define H5PROXY_XFER_H

#include <stdint.h>
#include <time.h>
#include <hdf5.h>
#include "compat.h"

// h5p_empty returns the buffer handed to HDF5 for transfers that select nothing: H5Dwrite
// and H5Dread reject a NULL buffer unless the file selection is known to be empty.
static inline void *h5p_empty(void) {
	static char b[8];
	return b;
}

// h5p_select_union selects the union of n hyperslabs in space: SET for the first, OR for
// the rest. hs holds, per hyperslab, start, stride, count and block of rank values each.
// One call per selection instead of one per hyperslab: E3SM's unions have tens of
// thousands of hyperslabs per write, and each Go-to-C call costs more than HDF5's OR.
// Returns the index of the failing hyperslab, or -1.
static inline long h5p_select_union(hid_t space, int rank, long n, const hsize_t *hs) {
	for (long i = 0; i < n; i++) {
		const hsize_t *h = hs + (size_t)i * 4 * rank;
		H5S_seloper_t op = i == 0 ? H5S_SELECT_SET : H5S_SELECT_OR;
		if (H5Sselect_hyperslab(space, op, h, h + rank, h + 2 * rank, h + 3 * rank) < 0) return i;
	}
	return -1;
}

// h5k_io_mode reads the actual I/O mode, the actual chunk optimisation and the local and global causes of no collective
// I/O of the last transfer through dxpl.
static inline herr_t h5k_io_mode(hid_t dxpl, int *mode, int *chunk, unsigned *local, unsigned *global) {
	H5D_mpio_actual_io_mode_t m;
	H5D_mpio_actual_chunk_opt_mode_t c;
	uint32_t l = 0, g = 0;
	if (H5Pget_mpio_actual_io_mode(dxpl, &m) < 0) return -1;
	if (H5Pget_mpio_actual_chunk_opt_mode(dxpl, &c) < 0) return -1;
	*chunk = (int)c;
	if (H5Pget_mpio_no_collective_cause(dxpl, &l, &g) < 0) return -1;
	*mode = (int)m;
	*local = l;
	*global = g;
	return 0;
}

// h5p_outcome is what the census reads of a transfer just made (knobs.go: noteTransfer):
// sel_rc is h5p_selection_outcome's result (negative: nothing read), mode_rc
// h5k_io_mode's (read for collective lists only; 1 when not read).
typedef struct h5p_outcome {
	int sel_rc, mode_rc;
	uint32_t actual, cause;
	int mode, chunk;
	unsigned local, global;
} h5p_outcome;

// h5p_read_outcome reads the outcome of the last transfer through dxpl into o, clearing
// the error stack of a read that failed.
static inline void h5p_read_outcome(hid_t dxpl, int collective, h5p_outcome *o) {
	o->sel_rc = h5p_selection_outcome(dxpl, &o->actual, &o->cause);
	if (o->sel_rc == -1) H5Eclear2(H5E_DEFAULT);
	o->mode_rc = 1;
	if (collective && (o->mode_rc = h5k_io_mode(dxpl, &o->mode, &o->chunk, &o->local, &o->global)) < 0)
		H5Eclear2(H5E_DEFAULT);
}

// The step of a run's transfer that failed (h5p_rx.fail).
enum { H5P_RUN_OK, H5P_RUN_SPACE, H5P_RUN_MEMSPACE, H5P_RUN_NDIMS, H5P_RUN_RANK, H5P_RUN_SELECT, H5P_RUN_IO };

// h5p_rx is one transfer of a run (h5p_transfer_run): dataset d, memory type mt, transfer
// list dxpl, a memory space of mrank dimensions at hs[moff], nblk hyperslabs of frank
// dimensions each (start, stride, count, block) at hs[hoff], buffer buf; note: read the
// outcome (coll: of a collective list). The run fills fail, bad (the failing hyperslab,
// or the file space's rank found), the spaces still open after a failure, end
// (CLOCK_MONOTONIC nanoseconds after the transfer) and out.
typedef struct h5p_rx {
	hid_t d, mt, dxpl, ms, fs;
	int mrank, frank, note, coll, fail;
	long moff, hoff, nblk, bad;
	void *buf;
	long long end;
	h5p_outcome out;
} h5p_rx;

static inline long long h5p_clock(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// h5p_transfer_run writes (write != 0) or reads the n transfers x in order from one C
// loop, each with exactly the calls transfer.go makes for it alone: H5Dget_space, the
// memory space's H5Screate_simple, H5Sget_simple_extent_ndims, the hyperslabs' union,
// H5Dwrite or H5Dread, the census's reads of the outcome, and the two spaces' H5Sclose.
// A Go thread pays the runtime's hand-off around each blocking cgo call (bench/cgocall);
// the calls made here pay none. It stops at the first transfer that fails, leaving its
// spaces open and the error stack as the failing call left it, and returns its index (n
// when all completed); *start receives the clock before the first.
static inline int h5p_transfer_run(int write, int n, h5p_rx *x, const hsize_t *hs, long long *start) {
	*start = h5p_clock();
	for (int i = 0; i < n; i++) {
		h5p_rx *t = &x[i];
		herr_t rc;
		int r;
		t->fail = H5P_RUN_OK;
		t->ms = -1;
		if ((t->fs = H5Dget_space(t->d)) < 0) t->fail = H5P_RUN_SPACE;
		else if ((t->ms = H5Screate_simple(t->mrank, hs + t->moff, NULL)) < 0) t->fail = H5P_RUN_MEMSPACE;
		else if ((r = H5Sget_simple_extent_ndims(t->fs)) < 0) t->fail = H5P_RUN_NDIMS;
		else if (r != t->frank) t->fail = H5P_RUN_RANK, t->bad = r;
		else if ((t->bad = h5p_select_union(t->fs, r, t->nblk, hs + t->hoff)) >= 0) t->fail = H5P_RUN_SELECT;
		else {
			rc = write ? H5Dwrite(t->d, t->mt, t->ms, t->fs, t->dxpl, t->buf)
			           : H5Dread(t->d, t->mt, t->ms, t->fs, t->dxpl, t->buf);
			if (rc < 0) t->fail = H5P_RUN_IO;
		}
		if (t->fail != H5P_RUN_OK) {
			t->end = h5p_clock();
			return i;
		}
		if (t->note) h5p_read_outcome(t->dxpl, t->coll, &t->out);
		H5Sclose(t->ms);
		H5Sclose(t->fs);
		t->ms = t->fs = -1;
		t->end = h5p_clock();
	}
	return n;
}

#endif
