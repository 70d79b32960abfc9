//go:build cgo

package mpi

/*
#cgo pkg-config: ompi
#include <stdlib.h>
#include <time.h>
#include <mpi.h>

static MPI_File h5p_file_null(void) { return MPI_FILE_NULL; }

// access: 0 read-only, 1 create (truncating), 2 read-write (see FileAccess); unique adds
// MPI_MODE_UNIQUE_OPEN. The n hints keys[i]=vals[i] go in an MPI_Info object (one even
// without hints when always, else MPI_INFO_NULL), freed after the open.
static int h5p_file_open(MPI_Comm c, const char *path, int access, int unique, int n, char **keys, char **vals,
		int always, MPI_File *fh) {
	int create = access == 1, i, rc;
	int amode = create ? MPI_MODE_CREATE | MPI_MODE_WRONLY : access == 2 ? MPI_MODE_RDWR : MPI_MODE_RDONLY;
	MPI_Info info = MPI_INFO_NULL;
	if (unique) amode |= MPI_MODE_UNIQUE_OPEN;
	if (n > 0 || always) {
		if ((rc = MPI_Info_create(&info)) != MPI_SUCCESS) return rc;
		for (i = 0; i < n; i++)
			if ((rc = MPI_Info_set(info, keys[i], vals[i])) != MPI_SUCCESS) {
				MPI_Info_free(&info);
				return rc;
			}
	}
	rc = MPI_File_open(c, path, amode, info, fh);
	if (info != MPI_INFO_NULL) MPI_Info_free(&info);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_File_set_errhandler(*fh, MPI_ERRORS_RETURN);
	if (rc == MPI_SUCCESS && create) rc = MPI_File_set_size(*fh, 0);
	if (rc != MPI_SUCCESS) MPI_File_close(fh);
	return rc;
}

static int h5p_file_delete(const char *path) { return MPI_File_delete(path, MPI_INFO_NULL); }

enum { h5p_write_at_all, h5p_write_at, h5p_read_at_all, h5p_read_at };

// h5p_runs_view_all moves n byte runs collectively through one file view: a filetype of
// the runs' file offsets (ascending), one write_at_all or read_at_all at view offset 0
// with a memory type of their places in buf, then the view reset to bytes; the call
// sequence of HDF5's MPI-IO driver and of h5perf's collective MPI-IO. A rank without runs
// takes part with a byte view and a count of 0. *done receives the bytes moved.
static int h5p_runs_view_all(MPI_File fh, int write, int n, int *len, MPI_Aint *foff, MPI_Aint *moff,
		void *buf, MPI_Count *done) {
	MPI_Datatype ft = MPI_BYTE, mt = MPI_BYTE;
	MPI_Status st;
	int rc = MPI_SUCCESS, count = 0;
	*done = 0;
	if (n > 0) {
		count = 1;
		if ((rc = MPI_Type_create_hindexed(n, len, foff, MPI_BYTE, &ft)) == MPI_SUCCESS &&
		    (rc = MPI_Type_commit(&ft)) == MPI_SUCCESS &&
		    (rc = MPI_Type_create_hindexed(n, len, moff, MPI_BYTE, &mt)) == MPI_SUCCESS)
			rc = MPI_Type_commit(&mt);
	}
	if (rc == MPI_SUCCESS && (rc = MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL)) == MPI_SUCCESS) {
		rc = write ? MPI_File_write_at_all(fh, 0, buf, count, mt, &st) : MPI_File_read_at_all(fh, 0, buf, count, mt, &st);
		if (rc == MPI_SUCCESS) rc = MPI_Get_elements_x(&st, MPI_BYTE, done);
		int rc2 = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
		if (rc == MPI_SUCCESS) rc = rc2;
	}
	if (ft != MPI_BYTE) MPI_Type_free(&ft);
	if (mt != MPI_BYTE) MPI_Type_free(&mt);
	return rc;
}

// h5p_file_io moves n bytes at off with exactly one MPI call, so that a collective call
// stays one call on every rank whatever each rank's n. Beyond maxcount bytes (MPI counts are
// C ints) it describes the buffer with one derived datatype: n/maxcount contiguous blocks of
// maxcount bytes plus the remainder. *done receives the number of bytes moved.
static int h5p_file_io(int kind, MPI_File fh, MPI_Offset off, void *buf, MPI_Count n,
		int maxcount, MPI_Offset known, MPI_Count *done) {
	MPI_Datatype dt = MPI_BYTE;
	MPI_Status st;
	int count = (int)n, rc = MPI_SUCCESS;
	if (n > maxcount) {
		MPI_Datatype blk;
		int lens[2] = {(int)(n / maxcount), (int)(n % maxcount)};
		MPI_Aint displs[2] = {0, (MPI_Aint)(n - n % maxcount)};
		MPI_Datatype types[2];
		if ((rc = MPI_Type_contiguous(maxcount, MPI_BYTE, &blk)) != MPI_SUCCESS) return rc;
		types[0] = blk;
		types[1] = MPI_BYTE;
		rc = MPI_Type_create_struct(lens[1] ? 2 : 1, lens, displs, types, &dt);
		MPI_Type_free(&blk);
		if (rc != MPI_SUCCESS) return rc;
		if ((rc = MPI_Type_commit(&dt)) != MPI_SUCCESS) {
			MPI_Type_free(&dt);
			return rc;
		}
		count = 1;
	}
	switch (kind) {
	case h5p_write_at_all: rc = MPI_File_write_at_all(fh, off, buf, count, dt, &st); break;
	case h5p_write_at: rc = MPI_File_write_at(fh, off, buf, count, dt, &st); break;
	case h5p_read_at_all: rc = MPI_File_read_at_all(fh, off, buf, count, dt, &st); break;
	case h5p_read_at: rc = MPI_File_read_at(fh, off, buf, count, dt, &st); break;
	}
	// Reads stop short at the end of the file without an error: count what arrived. A call
	// that moves nothing may leave the status unset.
	*done = 0;
	if (rc == MPI_SUCCESS && n > 0) rc = MPI_Get_elements_x(&st, dt, done);
	if (dt != MPI_BYTE) MPI_Type_free(&dt);
	// Collective reads report the requested count even past the end of the file (ROMIO's
	// two-phase reads and OMPIO's vulcan both do), so bound it by the file size: known
	// when the caller has it (>= 0), else asked for.
	if (rc == MPI_SUCCESS && (kind == h5p_read_at_all || kind == h5p_read_at) && n > 0) {
		MPI_Offset size = known;
		if (size < 0) rc = MPI_File_get_size(fh, &size);
		if (rc == MPI_SUCCESS && *done > size - off) *done = size > off ? size - off : 0;
	}
	return rc;
}

// h5p_xfer is one transfer of a run (h5p_file_run): kind is h5p_file_io's (0..3) or a
// view access (4..7: h5p_view_io's, write and collective from its bits), off the file
// offset (a view position for view kinds), known h5p_file_io's file size (-1: ask). The
// run fills done (bytes moved) and end (CLOCK_MONOTONIC nanoseconds after the call).
typedef struct {
	int kind;
	MPI_Offset off, known;
	void *buf;
	MPI_Count n, done;
	long long end;
} h5p_xfer;

static int h5p_view_io(MPI_File fh, int write, int coll, MPI_Offset pos, void *buf, MPI_Datatype xfer,
		MPI_Count *done);

static long long h5p_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// h5p_file_run makes the n transfers x in order, each with exactly the calls h5p_file_io
// or h5p_view_io makes for it alone, from one C loop: a Go thread pays the runtime's
// hand-off around each blocking cgo call (bench/cgocall), C calls made here pay none. It
// stops at the first transfer that fails or moves fewer bytes than asked; *at receives its
// index (n when all completed), *start the clock before the first.
static int h5p_file_run(MPI_File fh, int maxcount, MPI_Datatype vxfer, int n, h5p_xfer *x, long long *start, int *at) {
	int i, rc = MPI_SUCCESS;
	*start = h5p_now();
	for (i = 0; i < n; i++) {
		h5p_xfer *t = &x[i];
		if (t->kind < 4)
			rc = h5p_file_io(t->kind, fh, t->off, t->buf, t->n, maxcount, t->known, &t->done);
		else
			rc = h5p_view_io(fh, !(t->kind & 2), !(t->kind & 1), t->off, t->buf, vxfer, &t->done);
		t->end = h5p_now();
		if (rc != MPI_SUCCESS || t->done != t->n) break;
	}
	*at = i;
	return rc;
}

// h5p_ior_view sets IOR's file view (aiori-MPIIO.c: MPIIO_Open with useFileView): contig,
// telems MPI_LONG_LONG_INT (one transfer); xfer, contig resized to extent 0 (the type of
// each access); ftype, a 2-D C-order subarray of contig elements, global {1, tpb*tasks},
// local {1, tpb}, start {0, tpb*task} (task's block among the tasks' blocks of a segment);
// all committed, then MPI_File_set_view(fh, 0, contig, ftype, "native", MPI_INFO_NULL).
// The types are returned for h5p_view_io and freed by h5p_type_free.
static int h5p_ior_view(MPI_File fh, int telems, int tpb, int tasks, int task, MPI_Datatype *contig,
		MPI_Datatype *xfer, MPI_Datatype *ftype) {
	int gs[2] = {1, tpb * tasks}, ls[2] = {1, tpb}, st[2] = {0, tpb * task}, rc;
	*contig = *xfer = *ftype = MPI_DATATYPE_NULL;
	if ((rc = MPI_Type_contiguous(telems, MPI_LONG_LONG_INT, contig)) != MPI_SUCCESS) return rc;
	if ((rc = MPI_Type_create_resized(*contig, 0, 0, xfer)) != MPI_SUCCESS) return rc;
	if ((rc = MPI_Type_commit(contig)) != MPI_SUCCESS) return rc;
	if ((rc = MPI_Type_commit(xfer)) != MPI_SUCCESS) return rc;
	if ((rc = MPI_Type_create_subarray(2, gs, ls, st, MPI_ORDER_C, *contig, ftype)) != MPI_SUCCESS) return rc;
	if ((rc = MPI_Type_commit(ftype)) != MPI_SUCCESS) return rc;
	return MPI_File_set_view(fh, 0, *contig, *ftype, "native", MPI_INFO_NULL);
}

static void h5p_type_free(MPI_Datatype *t) {
	if (*t != MPI_DATATYPE_NULL) MPI_Type_free(t);
}

// h5p_view_io is one access of IOR's MPIIO_Xfer through its view: MPI_File_seek of the
// individual file pointer to pos (in etypes), then one xfer moved with write_all or write
// (read_all or read). *done receives the bytes moved.
static int h5p_view_io(MPI_File fh, int write, int coll, MPI_Offset pos, void *buf, MPI_Datatype xfer,
		MPI_Count *done) {
	MPI_Status st;
	int rc = MPI_File_seek(fh, pos, MPI_SEEK_SET);
	*done = 0;
	if (rc != MPI_SUCCESS) return rc;
	if (write) rc = coll ? MPI_File_write_all(fh, buf, 1, xfer, &st) : MPI_File_write(fh, buf, 1, xfer, &st);
	else rc = coll ? MPI_File_read_all(fh, buf, 1, xfer, &st) : MPI_File_read(fh, buf, 1, xfer, &st);
	if (rc == MPI_SUCCESS) rc = MPI_Get_elements_x(&st, MPI_BYTE, done);
	return rc;
}
*/
import "C"

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"time"
	"unsafe"
)

var fileNull = C.h5p_file_null()

// File is a file opened with MPI-IO on a communicator: the baseline that writes the same
// bytes as h5proxy without HDF5. Its errors are returned (MPI_ERRORS_RETURN), never fatal.
type File struct {
	fh     C.MPI_File
	path   string
	access FileAccess
	// roSize is a read-only file's size, asked once at its first read (-1 before): reads
	// bound what they got by it without an MPI_File_get_size each, whose lseek pair per
	// read a profile would show (the programs h5proxy mirrors make none).
	roSize int64
	// trusted: reads are not bounded by the file's size (TrustReads).
	trusted bool
	// view is IOR's file view (SetIORView) with its types; transfer its bytes per access.
	view                bool
	contig, xfer, ftype C.MPI_Datatype
	transfer            int64
}

// OpenFile opens path on every rank of c (collective on c) as access says, with no hints.
func OpenFile(c Comm, path string, access FileAccess) (*File, error) {
	return OpenFileWith(c, path, access, OpenOptions{})
}

// OpenFileWith opens path on every rank of c (collective on c) as access and o say.
func OpenFileWith(c Comm, path string, access FileAccess, o OpenOptions) (*File, error) {
	if err := c.check("OpenFile"); err != nil {
		return nil, err
	}
	if access < ReadOnly || access > ReadWrite {
		return nil, errorf("mpi: OpenFile %s: unknown access %d", path, access)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	keys := make([]string, 0, len(o.Info))
	for k := range o.Info {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same order on every rank
	ck := make([]*C.char, len(keys)+1)
	cv := make([]*C.char, len(keys)+1)
	for i, k := range keys {
		ck[i], cv[i] = C.CString(k), C.CString(o.Info[k])
	}
	defer func() {
		for i := range keys {
			C.free(unsafe.Pointer(ck[i]))
			C.free(unsafe.Pointer(cv[i]))
		}
	}()
	var fh C.MPI_File
	rc := C.h5p_file_open(c.c, cpath, C.int(access), cbool(o.Unique), C.int(len(keys)), &ck[0], &cv[0], cbool(o.AlwaysInfo), &fh)
	if err := mpiErr("MPI_File_open "+path, rc); err != nil {
		return nil, err
	}
	return &File{fh: fh, path: path, access: access, roSize: -1}, nil
}

// cbool is b as a C int.
func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// io moves buf at offset with one MPI call of the given kind.
func (f *File) io(kind C.int, op string, offset int64, buf []byte) error {
	known, err := f.ready(kind, op, offset, buf)
	if err != nil {
		return err
	}
	var done C.MPI_Count
	rc := C.h5p_file_io(kind, f.fh, C.MPI_Offset(offset), bufPtr(buf), C.MPI_Count(len(buf)), C.int(maxCount), C.MPI_Offset(known), &done)
	return f.ioDone(kind, op, offset, len(buf), rc, done)
}

// bufPtr is buf's first byte, nil when empty. buf may live outside the Go heap (mmap);
// either way C only uses it during the call.
func bufPtr(buf []byte) unsafe.Pointer {
	if len(buf) == 0 {
		return nil
	}
	return unsafe.Pointer(&buf[0])
}

// ready checks a transfer of kind (an h5p_file_io kind) and returns the file size its
// read is bounded by (readSize; -1 for writes).
func (f *File) ready(kind C.int, op string, offset int64, buf []byte) (known int64, err error) {
	if f == nil || f.fh == fileNull {
		return 0, errorf("mpi: %s: file is not open", op)
	}
	if !active() {
		return 0, errorf("mpi: %s %s: %w", op, f.path, ErrNotActive)
	}
	if f.view {
		return 0, errorf("mpi: %s %s: the file has IOR's file view: use ViewIO", op, f.path)
	}
	// Checked here because OMPIO's collective writes lose the error of a read-only file.
	write := kind != C.h5p_read_at_all && kind != C.h5p_read_at
	if write && f.access == ReadOnly {
		return 0, errorf("mpi: %s %s: file is open read-only", op, f.path)
	}
	if !write && f.access == Create {
		return 0, errorf("mpi: %s %s: file is open write-only", op, f.path)
	}
	if offset < 0 {
		return 0, errorf("mpi: %s %s: negative offset %d", op, f.path, offset)
	}
	if len(buf)/maxCount > math.MaxInt32 {
		return 0, errorf("mpi: %s %s: %d bytes exceed one call", op, f.path, len(buf))
	}
	if write || len(buf) == 0 {
		return -1, nil
	}
	return f.readSize()
}

// ioDone turns the outcome of an h5p_file_io transfer of n bytes into an error.
func (f *File) ioDone(kind C.int, op string, offset int64, n int, rc C.int, done C.MPI_Count) error {
	if err := mpiErr(fmt.Sprintf("%s %s", op, f.path), rc); err != nil {
		return err
	}
	if int64(done) != int64(n) {
		short := io.ErrShortWrite
		if kind == C.h5p_read_at_all || kind == C.h5p_read_at {
			short = io.ErrUnexpectedEOF
		}
		return errorf("mpi: %s %s: %d of %d bytes at offset %d: %w", op, f.path, int64(done), n, offset, short)
	}
	return nil
}

// WriteAtAll writes buf at offset (collective: every rank of the file's communicator calls
// it, with any length, zero included). buf may be memory outside the Go heap.
func (f *File) WriteAtAll(offset int64, buf []byte) error {
	return f.io(C.h5p_write_at_all, "MPI_File_write_at_all", offset, buf)
}

// WriteAt writes buf at offset independently of the other ranks.
func (f *File) WriteAt(offset int64, buf []byte) error {
	return f.io(C.h5p_write_at, "MPI_File_write_at", offset, buf)
}

// ReadAtAll fills buf from offset (collective). Reaching the end of the file before buf is
// full is an error wrapping io.ErrUnexpectedEOF.
func (f *File) ReadAtAll(offset int64, buf []byte) error {
	return f.io(C.h5p_read_at_all, "MPI_File_read_at_all", offset, buf)
}

// Run is one contiguous byte range of a transfer: Len bytes at file offset Off from buf[Mem:].
type Run struct{ Off, Mem, Len int64 }

// RunsViewAll moves runs between buf and the file collectively through one file view of
// the runs (set_view, write_at_all or read_at_all, reset view; every rank of the file's
// communicator calls it, with any runs, none included). Runs must not overlap in the file;
// each must fit a C int. A short transfer is an error.
func (f *File) RunsViewAll(write bool, runs []Run, buf []byte) error {
	what := "MPI_File_set_view+read_at_all"
	if write {
		what = "MPI_File_set_view+write_at_all"
	}
	if f == nil || f.fh == fileNull || write && f.access == ReadOnly {
		return errorf("mpi: %s: file is not open for this transfer", what)
	}
	rs := slices.Clone(runs)
	slices.SortFunc(rs, func(a, b Run) int { return cmp.Compare(a.Off, b.Off) })
	lens, foff, moff := make([]C.int, len(rs)), make([]C.MPI_Aint, len(rs)), make([]C.MPI_Aint, len(rs))
	var total int64
	for i, r := range rs {
		if r.Len > math.MaxInt32 || r.Mem < 0 || r.Mem+r.Len > int64(len(buf)) {
			return errorf("mpi: %s %s: run of %d bytes at memory offset %d does not fit a C int or the %d-byte buffer", what, f.path, r.Len, r.Mem, len(buf))
		}
		lens[i], foff[i], moff[i] = C.int(r.Len), C.MPI_Aint(r.Off), C.MPI_Aint(r.Mem)
		total += r.Len
	}
	var p unsafe.Pointer
	var pl *C.int
	var pf, pm *C.MPI_Aint
	if len(buf) > 0 {
		p = unsafe.Pointer(&buf[0])
	}
	if len(rs) > 0 {
		pl, pf, pm = &lens[0], &foff[0], &moff[0]
	}
	w := C.int(0)
	if write {
		w = 1
	}
	var done C.MPI_Count
	if err := mpiErr(what+" "+f.path, C.h5p_runs_view_all(f.fh, w, C.int(len(rs)), pl, pf, pm, p, &done)); err != nil {
		return err
	}
	if !write {
		// Collective reads report the requested count even past the end of the file (see
		// h5p_file_io): count what the file holds.
		size, err := f.readSize()
		if err == nil && size < 0 {
			size, err = f.Size()
		}
		if err != nil {
			return err
		}
		var in int64
		for _, r := range rs {
			in += max(0, min(r.Len, size-r.Off))
		}
		done = C.MPI_Count(min(int64(done), in))
	}
	if int64(done) != total {
		short := io.ErrShortWrite
		if !write {
			short = io.ErrUnexpectedEOF
		}
		return errorf("mpi: %s %s: %d of %d bytes in %d runs: %w", what, f.path, int64(done), total, len(rs), short)
	}
	return nil
}

// ReadAt fills buf from offset independently of the other ranks; a short read is an error
// wrapping io.ErrUnexpectedEOF.
func (f *File) ReadAt(offset int64, buf []byte) error {
	return f.io(C.h5p_read_at, "MPI_File_read_at", offset, buf)
}

// Sync flushes the file's written data to storage (collective).
func (f *File) Sync() error {
	if f == nil || f.fh == fileNull {
		return errorf("mpi: MPI_File_sync: file is not open")
	}
	if !active() {
		return errorf("mpi: MPI_File_sync %s: %w", f.path, ErrNotActive)
	}
	return mpiErr("MPI_File_sync "+f.path, C.MPI_File_sync(f.fh))
}

// readSize is the size reads are bounded by: a read-only file's, asked once; -1 (ask at
// each read) for a writable file, which may grow between reads.
func (f *File) readSize() (int64, error) {
	if f.trusted {
		return math.MaxInt64, nil
	}
	if f.access != ReadOnly {
		return -1, nil
	}
	if f.roSize < 0 {
		n, err := f.Size()
		if err != nil {
			return 0, err
		}
		f.roSize = n
	}
	return f.roSize, nil
}

// TrustReads makes reads take the bytes MPI reports as read without bounding them by the
// file's size, which collective reads past the end overstate: for a file whose every byte
// read was written (plan.FileSpec.Complete), it spares the MPI_File_get_size (an lseek
// pair) that a program that trusts its file does not make.
func (f *File) TrustReads() {
	if f != nil {
		f.trusted = true
	}
}

// Size returns the file's current size in bytes (MPI_File_get_size; local).
func (f *File) Size() (int64, error) {
	if f == nil || f.fh == fileNull {
		return 0, errorf("mpi: MPI_File_get_size: file is not open")
	}
	if !active() {
		return 0, errorf("mpi: MPI_File_get_size %s: %w", f.path, ErrNotActive)
	}
	var n C.MPI_Offset
	if err := mpiErr("MPI_File_get_size "+f.path, C.MPI_File_get_size(f.fh, &n)); err != nil {
		return 0, err
	}
	return int64(n), nil
}

// SetSize truncates or extends the file to n bytes (MPI_File_set_size; collective, with
// the same n on every rank). Bytes added read as zeros.
func (f *File) SetSize(n int64) error {
	if f == nil || f.fh == fileNull || f.access == ReadOnly {
		return errorf("mpi: MPI_File_set_size: file is not open for writing")
	}
	if !active() {
		return errorf("mpi: MPI_File_set_size %s: %w", f.path, ErrNotActive)
	}
	return mpiErr("MPI_File_set_size "+f.path, C.MPI_File_set_size(f.fh, C.MPI_Offset(n)))
}

// Writable reports whether the file was opened for writing.
func (f *File) Writable() bool { return f != nil && f.access != ReadOnly }

// Close closes the file (collective), then frees the types of IOR's view if it has one,
// as MPIIO_Close does. Closing a closed file is an error.
func (f *File) Close() error {
	if f == nil || f.fh == fileNull {
		return errorf("mpi: MPI_File_close: file is not open")
	}
	if !active() {
		return errorf("mpi: MPI_File_close %s: %w", f.path, ErrNotActive)
	}
	fh := f.fh
	f.fh = fileNull
	err := mpiErr("MPI_File_close "+f.path, C.MPI_File_close(&fh))
	f.freeView()
	return err
}

// freeView frees the view's types (file type, transfer type, element type: IOR's order).
func (f *File) freeView() {
	if f.view {
		C.h5p_type_free(&f.ftype)
		C.h5p_type_free(&f.xfer)
		C.h5p_type_free(&f.contig)
		f.view = false
	}
}

// SetIORView gives the file IOR's MPI-IO file view (collective on the file's
// communicator): transfers of transfer bytes (a multiple of 8), blocks of block bytes (a
// multiple of transfer) of tasks tasks, the view showing task's. Afterwards the file moves
// data only through ViewIO, until Close.
func (f *File) SetIORView(transfer, block int64, tasks, task int) error {
	if f == nil || f.fh == fileNull {
		return errorf("mpi: MPI_File_set_view: file is not open")
	}
	if !active() {
		return errorf("mpi: MPI_File_set_view %s: %w", f.path, ErrNotActive)
	}
	tpb := int64(0)
	if transfer > 0 {
		tpb = block / transfer
	}
	switch {
	case f.view:
		return errorf("mpi: MPI_File_set_view %s: the file has a view already", f.path)
	case transfer <= 0 || transfer%8 != 0 || block%transfer != 0 || tpb == 0:
		return errorf("mpi: MPI_File_set_view %s: transfer %d must be a positive multiple of 8 dividing block %d", f.path, transfer, block)
	case tasks < 1 || task < 0 || task >= tasks:
		return errorf("mpi: MPI_File_set_view %s: task %d of %d tasks", f.path, task, tasks)
	case transfer/8 > math.MaxInt32 || tpb*int64(tasks) > math.MaxInt32:
		return errorf("mpi: MPI_File_set_view %s: %d transfers per block x %d tasks or %d elements per transfer exceed a C int", f.path, tpb, tasks, transfer/8)
	}
	f.view, f.transfer = true, transfer
	rc := C.h5p_ior_view(f.fh, C.int(transfer/8), C.int(tpb), C.int(tasks), C.int(task), &f.contig, &f.xfer, &f.ftype)
	if err := mpiErr("MPI_File_set_view "+f.path, rc); err != nil {
		f.freeView()
		return err
	}
	return nil
}

// ViewIO moves one transfer (buf, exactly the view's transfer bytes) at view position pos
// (in transfers) through IOR's view: seek, then write_all or write (read_all or read) of
// one transfer type; collective calls need every rank of the file's communicator. A short
// transfer is an error.
func (f *File) ViewIO(write, collective bool, pos int64, buf []byte) error {
	what, err := f.viewReady(write, collective, pos, buf)
	if err != nil {
		return err
	}
	w, c := cbool(write), cbool(collective)
	var done C.MPI_Count
	rc := C.h5p_view_io(f.fh, w, c, C.MPI_Offset(pos), unsafe.Pointer(&buf[0]), f.xfer, &done)
	return f.viewDone(write, what, pos, rc, done)
}

// viewReady checks one transfer through IOR's view and returns the name of its call.
func (f *File) viewReady(write, collective bool, pos int64, buf []byte) (string, error) {
	what := "MPI_File_read"
	if write {
		what = "MPI_File_write"
	}
	if collective {
		what += "_all"
	}
	switch {
	case f == nil || f.fh == fileNull:
		return what, errorf("mpi: %s: file is not open", what)
	case !f.view:
		return what, errorf("mpi: %s %s: the file has no IOR view (SetIORView)", what, f.path)
	case !active():
		return what, errorf("mpi: %s %s: %w", what, f.path, ErrNotActive)
	case write && f.access == ReadOnly || !write && f.access == Create:
		return what, errorf("mpi: %s %s: file is not open for this transfer", what, f.path)
	case int64(len(buf)) != f.transfer || pos < 0:
		return what, errorf("mpi: %s %s: %d bytes at view position %d, want one transfer of %d bytes", what, f.path, len(buf), pos, f.transfer)
	}
	return what, nil
}

// viewDone turns the outcome of a view transfer into an error.
func (f *File) viewDone(write bool, what string, pos int64, rc C.int, done C.MPI_Count) error {
	if err := mpiErr(fmt.Sprintf("MPI_File_seek+%s %s", what, f.path), rc); err != nil {
		return err
	}
	if int64(done) != f.transfer {
		short := io.ErrShortWrite
		if !write {
			short = io.ErrUnexpectedEOF
		}
		return errorf("mpi: %s %s: %d of %d bytes at view position %d: %w", what, f.path, int64(done), f.transfer, pos, short)
	}
	return nil
}

// xferCalls name the calls of the h5p_file_io kinds (WriteAtAll..ReadAt), as the File
// methods' errors do.
var xferCalls = [4]string{"MPI_File_write_at_all", "MPI_File_write_at", "MPI_File_read_at_all", "MPI_File_read_at"}

// Run makes the transfers xs in order from one call into C that loops over them: each
// makes exactly the MPI calls, and is checked exactly as, its File method alone
// (WriteAtAll, WriteAt, ReadAtAll, ReadAt; ViewIO for the view kinds), so a profile of the
// run equals one of the transfers made one by one. A Go thread bound to a core pays a
// context switch or so per blocking cgo call longer than the runtime's 20 µs tick
// (bench/cgocall); the loop pays it once per run.
//
// It stops at the first transfer that fails (a call's error, a short transfer, or a
// check before any call, as for negative offset) and returns the number completed with
// that transfer's error, which names its call, file and offset as the method's would;
// collective transfers after it are not made, as a caller making them one by one would
// stop. took, when as long as xs, receives each transfer's time measured in C: from the
// previous transfer's end (the first: from the loop's start) to its own, the failing one
// included.
func (f *File) Run(xs []Xfer, took []time.Duration) (int, error) {
	if len(xs) == 0 {
		return 0, nil
	}
	cx := make([]C.h5p_xfer, len(xs))
	var pin runtime.Pinner // cx holds the buffers' addresses: C reads them from Go memory
	defer pin.Unpin()
	n, perr := len(xs), error(nil)
	for i, x := range xs {
		t := &cx[i]
		t.kind, t.off, t.n, t.known = C.int(x.Kind), C.MPI_Offset(x.Off), C.MPI_Count(len(x.Buf)), -1
		switch {
		case x.Kind >= WriteAtAll && x.Kind <= ReadAt:
			var known int64
			known, perr = f.ready(C.int(x.Kind), xferCalls[x.Kind], x.Off, x.Buf)
			t.known = C.MPI_Offset(known)
		case x.Kind >= ViewWriteAll && x.Kind <= ViewRead:
			_, perr = f.viewReady(x.Kind.Writes(), x.Kind == ViewWriteAll || x.Kind == ViewReadAll, x.Off, x.Buf)
		default:
			perr = errorf("mpi: run of %s: transfer %d has unknown kind %d", f.path, i, x.Kind)
		}
		if perr != nil {
			n = i
			break
		}
		if len(x.Buf) > 0 {
			pin.Pin(&x.Buf[0])
			t.buf = unsafe.Pointer(&x.Buf[0])
		}
	}
	var start C.longlong
	var at C.int
	rc := C.int(C.MPI_SUCCESS)
	if n > 0 {
		rc = C.h5p_file_run(f.fh, C.int(maxCount), f.xfer, C.int(n), &cx[0], &start, &at)
	}
	if len(took) >= len(xs) {
		prev := int64(start)
		for i := 0; i < n && i <= int(at); i++ {
			took[i] = time.Duration(int64(cx[i].end) - prev)
			prev = int64(cx[i].end)
		}
	}
	if int(at) == n {
		return n, perr
	}
	k, t := int(at), &cx[at]
	x := xs[k]
	if x.Kind <= ReadAt {
		return k, f.ioDone(C.int(x.Kind), xferCalls[x.Kind], x.Off, len(x.Buf), rc, t.done)
	}
	what, _ := f.viewReady(x.Kind.Writes(), x.Kind == ViewWriteAll || x.Kind == ViewReadAll, x.Off, x.Buf)
	return k, f.viewDone(x.Kind.Writes(), what, x.Off, rc, t.done)
}

// DeleteFile deletes path (MPI_File_delete, not collective: one rank calls it). A missing
// file gives an error matching fs.ErrNotExist.
func DeleteFile(path string) error {
	if !active() {
		return errorf("mpi: MPI_File_delete %s: %w", path, ErrNotActive)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	return mpiErr("MPI_File_delete "+path, C.h5p_file_delete(cpath))
}
