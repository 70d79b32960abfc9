package main

import (
	endian "encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"golang.org/x/sys/unix"

	"github.com/h5proxy/h5proxy/internal/libc"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/patterns/ior"
)

// iorCalls issues the calls IOR makes around its timed accesses, outside its timers
// (ior.c: TestIoSys, RemoveFile, CheckFileSize), through its backends' access, remove,
// stat and get_file_size as built against HDF5 1.10 (aiori-POSIX.c, aiori-MPIIO.c,
// aiori-HDF5.c: without H5Fis_accessible, H5Fdelete or H5Pget_vol_id, the HDF5 backend
// uses the MPI-IO backend's access, delete and file size). The library calls go through
// the C library and MPI, so that profilers see them as they see IOR's.
type iorCalls struct {
	c     ior.Config
	hints map[string]string // the IOR_HINT__MPI__ hints (SetHints)
	world mpi.Comm
	file  string // the test file: a prefix with -F
}

// name is the file of task (GetTestFileName): the test file, testFile.NNNNNNNN with -F.
func (k *iorCalls) name(task int) string {
	if k.c.FilePerProc {
		return fmt.Sprintf("%s.%08d", k.file, task)
	}
	return k.file
}

// mine reports whether this rank makes a call IOR makes on every task with -F and on
// task 0 of a shared file.
func (k *iorCalls) mine() bool { return k.c.FilePerProc || k.world.Rank() == 0 }

// existing is TestIoSys's check before the first iteration of a test that writes: stat of
// the file (backend->stat, aiori_posix_stat for the three backends) on task 0, or on every
// task of its own file with -F. IOR only warns that an existing file will be deleted.
func (k *iorCalls) existing() {
	if (k.c.WriteFile || k.c.CheckWrite) && k.mine() {
		_, _ = libc.Stat(k.name(k.world.Rank()))
	}
}

// mpiOpen is the MPI-IO backend's open of one task (MPI_COMM_SELF, read-only) with IOR's
// info object (SetHints: one even without hints), MPI_MODE_UNIQUE_OPEN when unique.
func (k *iorCalls) mpiOpen(path string, unique bool) (*mpi.File, error) {
	return mpi.OpenFileWith(mpi.Self(), path, mpi.ReadOnly, mpi.OpenOptions{Info: k.hints, AlwaysInfo: true, Unique: unique})
}

// accessible is backend->access(path, F_OK): access(2) under POSIX (aiori_posix_access);
// MPIIO_Access otherwise: stat(2), then an MPI_File_open on MPI_COMM_SELF, closed at once.
func (k *iorCalls) accessible(path string) bool {
	if k.c.API == "POSIX" {
		return libc.Access(path, unix.F_OK) == nil
	}
	_, _ = libc.Stat(path) // MPIIO_Access's directory check
	f, err := k.mpiOpen(path, true)
	if err != nil {
		return false
	}
	return f.Close() == nil
}

// remove is backend->remove: unlink(2) under POSIX (POSIX_Delete), MPI_File_delete with
// no info otherwise (MPIIO_Delete).
func (k *iorCalls) remove(path string) error {
	var err error
	if k.c.API == "POSIX" {
		err = libc.Unlink(path)
	} else {
		err = mpi.DeleteFile(path)
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENOENT) {
		return nil
	}
	return err
}

// removeFile is IOR's RemoveFile: with -F every task removes its file (path, its own
// unless the read of a reordered test left another's), else task 0 the shared file, each
// only when backend->access finds it.
func (k *iorCalls) removeFile(path string) error {
	if !k.mine() || !k.accessible(path) {
		return nil
	}
	return k.remove(path)
}

// timedRemove is the end of an iteration without -k: RemoveFile between two barriers,
// timed as IOR's remove row.
func (k *iorCalls) timedRemove(path string) (float64, error) {
	t0 := time.Now()
	if err := k.world.Barrier(); err != nil {
		return 0, err
	}
	rmErr := k.removeFile(path)
	if err := k.world.Barrier(); err != nil {
		return 0, err
	}
	return time.Since(t0).Seconds(), rmErr
}

// fileSize is backend->get_file_size of path: stat(2) under POSIX on every task
// (POSIX_GetFileSize); MPIIO_GetFileSize otherwise: task 0 (every task with -F) opens the
// file on MPI_COMM_SELF with IOR's info object, asks its size and closes it, then
// broadcasts the size of a shared file. A task that fails has size -1 (every task's with
// a shared file), so that the collective calls after it still match.
func (k *iorCalls) fileSize(path string) (int64, error) {
	if k.c.API == "POSIX" {
		n, err := libc.Stat(path)
		if err != nil {
			return -1, nil
		}
		return n, nil
	}
	size := int64(-1)
	if k.mine() {
		if f, err := k.mpiOpen(path, false); err == nil {
			n, serr := f.Size()
			if cerr := f.Close(); serr == nil && cerr == nil {
				size = n
			}
		}
	}
	if k.c.FilePerProc {
		return size, nil
	}
	b, err := k.world.BcastBytes(endian.LittleEndian.AppendUint64(nil, uint64(size)), 0)
	if err != nil {
		return 0, err
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("ior: broadcast file size of %d bytes", len(b))
	}
	return int64(endian.LittleEndian.Uint64(b)), nil
}

// checkFileSize is IOR's CheckFileSize after an access's close (collective): the file's
// size (summed over the tasks' files with -F; of a shared file, the least and greatest
// of the tasks' views are reduced), and the bytes the tasks moved, summed. It returns the
// aggregate size, or an error on every task when a task could not find it.
func (k *iorCalls) checkFileSize(path string, moved int64) (int64, error) {
	size, err := k.fileSize(path)
	if err != nil {
		return 0, err
	}
	op := mpi.OpMin // a shared file: IOR's MIN and MAX reductions
	if k.c.FilePerProc {
		op = mpi.OpSum
	}
	agg, err := k.world.AllreduceInt64([]int64{size}, op)
	if err != nil {
		return 0, err
	}
	if !k.c.FilePerProc {
		if _, err := k.world.AllreduceInt64([]int64{size}, mpi.OpMax); err != nil {
			return 0, err
		}
	}
	if _, err := k.world.AllreduceInt64([]int64{moved}, mpi.OpSum); err != nil {
		return 0, err
	}
	least := agg[0] // a shared file's: the least of the tasks' sizes
	if k.c.FilePerProc {
		// h5proxy's own reduction: IOR aborts when a task cannot find its file's size.
		m, err := k.world.AllreduceInt64([]int64{size}, mpi.OpMin)
		if err != nil {
			return 0, err
		}
		least = m[0]
	}
	if least < 0 {
		return 0, fmt.Errorf("ior ERROR: cannot get the size of %s", path)
	}
	return agg[0], nil
}
