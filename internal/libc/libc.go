//go:build cgo

// Package libc is the data path's file I/O through the C library (open, pread, pwrite,
// fsync, fstat, ftruncate, close) instead of Go's system calls, so that interposers loaded
// with LD_PRELOAD see it as they see a C program's: Darshan, which many HPC systems load by
// default, and h5proxy's own profiler (libh5proxy-profile.so, docs/profile.md). Go's os and
// x/sys/unix packages enter the kernel directly and bypass them.
//
// The calls block the calling thread (cgo), as a C program's do; EINTR is returned to the
// caller, as the system calls return it.
package libc

/*
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

static int h5proxy_libc_open(const char *path, int flags, int mode) { return open(path, flags, (mode_t)mode); }
static long long h5proxy_libc_size(int fd, int *regular) {
	struct stat st;
	if (fstat(fd, &st) != 0) return -1;
	*regular = S_ISREG(st.st_mode);
	return (long long)st.st_size;
}
static long long h5proxy_libc_stat(const char *path) {
	struct stat st;
	if (stat(path, &st) != 0) return -1;
	return (long long)st.st_size;
}
// libh5proxy-profile.so's hook, when the library is loaded (LD_PRELOAD).
static void h5proxy_libc_flush_profile(void) {
	void (*f)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "h5proxy_profile_write");
	if (f) f();
}
static int h5proxy_libc_profile_totals(const char *const *names, int n, long long *out) {
	int (*f)(const char *const *, int, long long *) =
		(int (*)(const char *const *, int, long long *))dlsym(RTLD_DEFAULT, "h5proxy_profile_totals");
	return f ? f(names, n, out) : 0;
}
*/
import "C"

import (
	"syscall"
	"unsafe"
)

// Open is open(2) through the C library; it returns the descriptor.
func Open(path string, flags int, mode uint32) (int, error) {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	fd, err := C.h5proxy_libc_open(cs, C.int(flags), C.int(mode))
	if fd < 0 {
		return -1, errnoOr(err)
	}
	return int(fd), nil
}

// Pwrite is pwrite(2) through the C library: the bytes written.
func Pwrite(fd int, b []byte, off int64) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, err := C.pwrite(C.int(fd), unsafe.Pointer(&b[0]), C.size_t(len(b)), C.off_t(off))
	if n < 0 {
		return 0, errnoOr(err)
	}
	return int(n), nil
}

// Pread is pread(2) through the C library: the bytes read (0 at the end of the file).
func Pread(fd int, b []byte, off int64) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, err := C.pread(C.int(fd), unsafe.Pointer(&b[0]), C.size_t(len(b)), C.off_t(off))
	if n < 0 {
		return 0, errnoOr(err)
	}
	return int(n), nil
}

// Lseek is lseek(2) through the C library: the new offset.
func Lseek(fd int, off int64, whence int) (int64, error) {
	n, err := C.lseek(C.int(fd), C.off_t(off), C.int(whence))
	if n < 0 {
		return 0, errnoOr(err)
	}
	return int64(n), nil
}

// Write is write(2) through the C library: the bytes written at the file's offset.
func Write(fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, err := C.write(C.int(fd), unsafe.Pointer(&b[0]), C.size_t(len(b)))
	if n < 0 {
		return 0, errnoOr(err)
	}
	return int(n), nil
}

// Read is read(2) through the C library: the bytes read at the file's offset (0 at its end).
func Read(fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, err := C.read(C.int(fd), unsafe.Pointer(&b[0]), C.size_t(len(b)))
	if n < 0 {
		return 0, errnoOr(err)
	}
	return int(n), nil
}

// Stat is stat(2) through the C library: the file's size.
func Stat(path string) (int64, error) {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	n, err := C.h5proxy_libc_stat(cs)
	if n < 0 {
		return 0, errnoOr(err)
	}
	return int64(n), nil
}

// Access is access(2) through the C library.
func Access(path string, mode int) error {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	if r, err := C.access(cs, C.int(mode)); r != 0 {
		return errnoOr(err)
	}
	return nil
}

// Unlink is unlink(2) through the C library.
func Unlink(path string) error {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	if r, err := C.unlink(cs); r != 0 {
		return errnoOr(err)
	}
	return nil
}

// Fsync is fsync(2) through the C library.
func Fsync(fd int) error {
	if r, err := C.fsync(C.int(fd)); r != 0 {
		return errnoOr(err)
	}
	return nil
}

// Ftruncate is ftruncate(2) through the C library.
func Ftruncate(fd int, size int64) error {
	if r, err := C.ftruncate(C.int(fd), C.off_t(size)); r != 0 {
		return errnoOr(err)
	}
	return nil
}

// Size is fstat(2) through the C library: the file's size and whether it is a regular file.
func Size(fd int) (size int64, regular bool, err error) {
	var reg C.int
	n, cerr := C.h5proxy_libc_size(C.int(fd), &reg)
	if n < 0 {
		return 0, false, errnoOr(cerr)
	}
	return int64(n), reg != 0, nil
}

// Close is close(2) through the C library.
func Close(fd int) error {
	if r, err := C.close(C.int(fd)); r != 0 {
		return errnoOr(err)
	}
	return nil
}

// errnoOr is the errno cgo returned, or EIO when the C library failed without setting one.
func errnoOr(err error) error {
	if err == nil {
		return syscall.EIO
	}
	return err
}

// FlushProfile has libh5proxy-profile.so, when it is loaded, write this process's records
// now: a Go program ends with the exit_group system call, which runs no exit handlers, so a
// process without MPI (whose records MPI_Finalize writes) calls it before exiting.
func FlushProfile() { C.h5proxy_libc_flush_profile() }

// ProfileTotals returns, when libh5proxy-profile.so is loaded and recording, each named
// counter summed over this process's records so far (Darshan's names: POSIX_WRITES,
// MPIIO_COLL_WRITES, H5D_BYTES_WRITTEN, ...; 0 for a name it has not), and true.
func ProfileTotals(names []string) ([]int64, bool) {
	if len(names) == 0 {
		return nil, false
	}
	cs := make([]*C.char, len(names))
	for i, n := range names {
		cs[i] = C.CString(n)
	}
	defer func() {
		for _, c := range cs {
			C.free(unsafe.Pointer(c))
		}
	}()
	// The names' array lives in C memory: cgo forbids Go pointers to Go pointers.
	arr := (**C.char)(C.malloc(C.size_t(len(cs)) * C.size_t(unsafe.Sizeof(cs[0]))))
	defer C.free(unsafe.Pointer(arr))
	copy(unsafe.Slice(arr, len(cs)), cs)
	out := make([]C.longlong, len(names))
	if C.h5proxy_libc_profile_totals(arr, C.int(len(names)), &out[0]) == 0 {
		return nil, false
	}
	v := make([]int64, len(out))
	for i, x := range out {
		v[i] = int64(x)
	}
	return v, true
}
