//go:build !cgo

package libc

import "golang.org/x/sys/unix"

// Without cgo the calls are Go's system calls: the same files, invisible to interposers.

// Open is open(2).
func Open(path string, flags int, mode uint32) (int, error) { return unix.Open(path, flags, mode) }

// Lseek is lseek(2).
func Lseek(fd int, off int64, whence int) (int64, error) { return unix.Seek(fd, off, whence) }

// Write is write(2).
func Write(fd int, b []byte) (int, error) { return unix.Write(fd, b) }

// Read is read(2).
func Read(fd int, b []byte) (int, error) { return unix.Read(fd, b) }

// Stat is stat(2): the file's size.
func Stat(path string) (int64, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, err
	}
	return st.Size, nil
}

// Access is access(2).
func Access(path string, mode int) error { return unix.Access(path, uint32(mode)) }

// Unlink is unlink(2).
func Unlink(path string) error { return unix.Unlink(path) }

// Pwrite is pwrite(2).
func Pwrite(fd int, b []byte, off int64) (int, error) { return unix.Pwrite(fd, b, off) }

// Pread is pread(2).
func Pread(fd int, b []byte, off int64) (int, error) { return unix.Pread(fd, b, off) }

// Fsync is fsync(2).
func Fsync(fd int) error { return unix.Fsync(fd) }

// Ftruncate is ftruncate(2).
func Ftruncate(fd int, size int64) error { return unix.Ftruncate(fd, size) }

// ProfileTotals reports no profiler without cgo.
func ProfileTotals(names []string) ([]int64, bool) { return nil, false }

// Size is fstat(2): the file's size and whether it is a regular file.
func Size(fd int) (int64, bool, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, false, err
	}
	return st.Size, st.Mode&unix.S_IFMT == unix.S_IFREG, nil
}

// Close is close(2).
func Close(fd int) error { return unix.Close(fd) }

// FlushProfile does nothing without cgo: no C library, no profiler.
func FlushProfile() {}
