//go:build !cgo

package libc

import (
	"io"
	"os"
)

// FileBuf is a file opened for reading; without cgo it is Go's, invisible to interposers.
type FileBuf struct {
	path string
	f    *os.File
	size int
}

// OpenFileBuf opens path for reading with a buffer of size bytes.
func OpenFileBuf(path string, size int) (*FileBuf, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &FileBuf{path: path, f: f, size: size}, nil
}

// Seek is lseek(2).
func (b *FileBuf) Seek(off int64, whence int) (int64, error) { return b.f.Seek(off, whence) }

// Underflow is one read of the buffer's size less one byte; none at the end of the file.
func (b *FileBuf) Underflow() ([]byte, error) {
	p := make([]byte, b.size-1)
	n, err := b.f.Read(p)
	if n == 0 && err == io.EOF {
		return nil, nil
	}
	return p[:n], err
}

// Path is the file's path.
func (b *FileBuf) Path() string { return b.path }

// Close is close(2).
func (b *FileBuf) Close() error { return b.f.Close() }
