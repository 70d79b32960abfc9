//go:build cgo

package mpi

/*
#cgo pkg-config: ompi
#include <stdlib.h>
#include <mpi.h>

static MPI_File h5p_file_null(void) { return MPI_FILE_NULL; }

// access: 0 read-only, 1 create (truncating), 2 read-write (see FileAccess).
static int h5p_file_open(MPI_Comm c, const char *path, int access, MPI_File *fh) {
	int create = access == 1;
	int amode = create ? MPI_MODE_CREATE | MPI_MODE_WRONLY : access == 2 ? MPI_MODE_RDWR : MPI_MODE_RDONLY;
	int rc = MPI_File_open(c, path, amode, MPI_INFO_NULL, fh);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_File_set_errhandler(*fh, MPI_ERRORS_RETURN);
	if (rc == MPI_SUCCESS && create) rc = MPI_File_set_size(*fh, 0);
	if (rc != MPI_SUCCESS) MPI_File_close(fh);
	return rc;
}

// h5p_write_view_all writes n bytes at off the way HDF5's MPI-IO driver issues a
// collective write: a file view of n bytes at off, a write at view offset 0, then the view
// reset to bytes. Used as the "same MPI calls as HDF5" baseline.
static int h5p_write_view_all(MPI_File fh, MPI_Offset off, void *buf, int n) {
	MPI_Datatype ft;
	MPI_Status st;
	int rc = MPI_Type_contiguous(n > 0 ? n : 1, MPI_BYTE, &ft);
	if (rc != MPI_SUCCESS) return rc;
	if ((rc = MPI_Type_commit(&ft)) == MPI_SUCCESS &&
	    (rc = MPI_File_set_view(fh, off, MPI_BYTE, ft, "native", MPI_INFO_NULL)) == MPI_SUCCESS) {
		rc = MPI_File_write_at_all(fh, 0, buf, n, MPI_BYTE, &st);
		int rc2 = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
		if (rc == MPI_SUCCESS) rc = rc2;
	}
	MPI_Type_free(&ft);
	return rc;
}

static int h5p_file_delete(const char *path) { return MPI_File_delete(path, MPI_INFO_NULL); }

enum { h5p_write_at_all, h5p_write_at, h5p_read_at_all, h5p_read_at };

// h5p_file_io moves n bytes at off with exactly one MPI call, so that a collective call
// stays one call on every rank whatever each rank's n. Beyond maxcount bytes (MPI counts are
// C ints) it describes the buffer with one derived datatype: n/maxcount contiguous blocks of
// maxcount bytes plus the remainder. *done receives the number of bytes moved.
static int h5p_file_io(int kind, MPI_File fh, MPI_Offset off, void *buf, MPI_Count n,
		int maxcount, MPI_Count *done) {
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
	// two-phase reads and OMPIO's vulcan both do), so bound it by the file size.
	if (rc == MPI_SUCCESS && (kind == h5p_read_at_all || kind == h5p_read_at) && n > 0) {
		MPI_Offset size;
		rc = MPI_File_get_size(fh, &size);
		if (rc == MPI_SUCCESS && *done > size - off) *done = size > off ? size - off : 0;
	}
	return rc;
}
*/
import "C"

import (
	"fmt"
	"io"
	"math"
	"unsafe"
)

var fileNull = C.h5p_file_null()

// File is a file opened with MPI-IO on a communicator: the baseline that writes the same
// bytes as h5proxy without HDF5. Its errors are returned (MPI_ERRORS_RETURN), never fatal.
type File struct {
	fh     C.MPI_File
	path   string
	access FileAccess
}

// OpenFile opens path on every rank of c (collective on c) as access says.
func OpenFile(c Comm, path string, access FileAccess) (*File, error) {
	if err := c.check("OpenFile"); err != nil {
		return nil, err
	}
	if access < ReadOnly || access > ReadWrite {
		return nil, errorf("mpi: OpenFile %s: unknown access %d", path, access)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var fh C.MPI_File
	if err := mpiErr("MPI_File_open "+path, C.h5p_file_open(c.c, cpath, C.int(access), &fh)); err != nil {
		return nil, err
	}
	return &File{fh: fh, path: path, access: access}, nil
}

// io moves buf at offset with one MPI call of the given kind.
func (f *File) io(kind C.int, op string, offset int64, buf []byte) error {
	if f == nil || f.fh == fileNull {
		return errorf("mpi: %s: file is not open", op)
	}
	if !active() {
		return errorf("mpi: %s %s: %w", op, f.path, ErrNotActive)
	}
	// Checked here because OMPIO's collective writes lose the error of a read-only file.
	write := kind != C.h5p_read_at_all && kind != C.h5p_read_at
	if write && f.access == ReadOnly {
		return errorf("mpi: %s %s: file is open read-only", op, f.path)
	}
	if !write && f.access == Create {
		return errorf("mpi: %s %s: file is open write-only", op, f.path)
	}
	if offset < 0 {
		return errorf("mpi: %s %s: negative offset %d", op, f.path, offset)
	}
	if len(buf)/maxCount > math.MaxInt32 {
		return errorf("mpi: %s %s: %d bytes exceed one call", op, f.path, len(buf))
	}
	// buf may live outside the Go heap (mmap); either way C only uses it during the call.
	var p unsafe.Pointer
	if len(buf) > 0 {
		p = unsafe.Pointer(&buf[0])
	}
	var done C.MPI_Count
	rc := C.h5p_file_io(kind, f.fh, C.MPI_Offset(offset), p, C.MPI_Count(len(buf)), C.int(maxCount), &done)
	if err := mpiErr(fmt.Sprintf("%s %s", op, f.path), rc); err != nil {
		return err
	}
	if int64(done) != int64(len(buf)) {
		short := io.ErrShortWrite
		if kind == C.h5p_read_at_all || kind == C.h5p_read_at {
			short = io.ErrUnexpectedEOF
		}
		return errorf("mpi: %s %s: %d of %d bytes at offset %d: %w", op, f.path, int64(done), len(buf), offset, short)
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

// WriteViewAll writes buf at offset collectively through a file view, the call sequence
// HDF5's MPI-IO driver uses (set_view, write_at_all at 0, reset view); len(buf) must fit a
// C int.
func (f *File) WriteViewAll(offset int64, buf []byte) error {
	if f == nil || f.fh == fileNull || f.access == ReadOnly {
		return errorf("mpi: MPI_File_set_view+write_at_all: file is not open for writing")
	}
	if len(buf) > math.MaxInt32 {
		return errorf("mpi: MPI_File_write_at_all %s: %d bytes exceed a C int", f.path, len(buf))
	}
	var p unsafe.Pointer
	if len(buf) > 0 {
		p = unsafe.Pointer(&buf[0])
	}
	return mpiErr("MPI_File_set_view+write_at_all "+f.path, C.h5p_write_view_all(f.fh, C.MPI_Offset(offset), p, C.int(len(buf))))
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

// Close closes the file (collective). Closing a closed file is an error.
func (f *File) Close() error {
	if f == nil || f.fh == fileNull {
		return errorf("mpi: MPI_File_close: file is not open")
	}
	if !active() {
		return errorf("mpi: MPI_File_close %s: %w", f.path, ErrNotActive)
	}
	fh := f.fh
	f.fh = fileNull
	return mpiErr("MPI_File_close "+f.path, C.MPI_File_close(&fh))
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
