//go:build cgo

package libc

/*
#define _GNU_SOURCE
#define _LARGEFILE64_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

// The calls of libstdc++'s std::basic_filebuf<char> on a file opened for reading
// (config/io/basic_file_stdio.cc, GCC 12): open is fopen64 with mode "r"; every seek and
// every buffer fill asks the stream for its descriptor with fileno, then lseek64 or read on
// it; close is fclose. Measured on Debian 12's libstdc++ with an interposer on these names.
static FILE *h5proxy_filebuf_open(const char *path) { return fopen64(path, "r"); }
static long long h5proxy_filebuf_seek(FILE *f, long long off, int whence) {
	return (long long)lseek64(fileno(f), (off64_t)off, whence);
}
static long long h5proxy_filebuf_fill(FILE *f, char *buf, size_t n) { return (long long)read(fileno(f), buf, n); }
static int h5proxy_filebuf_close(FILE *f) { return fclose(f); }
*/
import "C"

import (
	"os"
	"unsafe"
)

// FileBuf is a file opened for reading as a C++ std::filebuf opens it, its buffer in C
// memory: the program's stream calls, seen by LD_PRELOAD interposers (Darshan's STDIO and
// POSIX modules, libh5proxy-profile.so) as a C++ program's.
type FileBuf struct {
	path string
	f    *C.FILE
	buf  *C.char
	size int
}

// OpenFileBuf opens path as std::ifstream::open does (fopen64, mode "r") with a buffer of
// size bytes (libstdc++'s default is BUFSIZ, 8192; pubsetbuf gives another).
func OpenFileBuf(path string, size int) (*FileBuf, error) {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	f, err := C.h5proxy_filebuf_open(cs)
	if f == nil {
		return nil, &os.PathError{Op: "fopen", Path: path, Err: errnoOr(err)}
	}
	return &FileBuf{path: path, f: f, buf: (*C.char)(C.malloc(C.size_t(size))), size: size}, nil
}

// Seek is basic_filebuf's seekoff: lseek64 on the stream's descriptor (fileno).
func (b *FileBuf) Seek(off int64, whence int) (int64, error) {
	n, err := C.h5proxy_filebuf_seek(b.f, C.longlong(off), C.int(whence))
	if n < 0 {
		return 0, &os.PathError{Op: "lseek64", Path: b.path, Err: errnoOr(err)}
	}
	return int64(n), nil
}

// Underflow refills the buffer as basic_filebuf's underflow does: one read of the buffer's
// size less one byte on the stream's descriptor (fileno). It returns the bytes read; none
// at the end of the file.
func (b *FileBuf) Underflow() ([]byte, error) {
	n, err := C.h5proxy_filebuf_fill(b.f, b.buf, C.size_t(b.size-1))
	if n < 0 {
		return nil, &os.PathError{Op: "read", Path: b.path, Err: errnoOr(err)}
	}
	return C.GoBytes(unsafe.Pointer(b.buf), C.int(n)), nil
}

// Path is the file's path.
func (b *FileBuf) Path() string { return b.path }

// Close is basic_filebuf's close: fclose, then the buffer is freed.
func (b *FileBuf) Close() error {
	r, err := C.h5proxy_filebuf_close(b.f)
	C.free(unsafe.Pointer(b.buf))
	if r != 0 {
		return &os.PathError{Op: "fclose", Path: b.path, Err: errnoOr(err)}
	}
	return nil
}
