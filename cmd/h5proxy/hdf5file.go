package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// hdf5Signature starts an HDF5 superblock, found at offset 0 or, after a user block, at
// 512, 1024, 2048, ... (HDF5 file format specification, "Format Signature").
var hdf5Signature = []byte("\x89HDF\r\n\x1a\n")

// checkHDF5 says plainly why path cannot be read as an HDF5 file (missing, a directory,
// unreadable, or without an HDF5 signature) before the HDF5 library is asked to open it:
// its own message for all of these is "error opening hdf5 file: code -1".
func checkHDF5(path string) error {
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: file does not exist", path)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: file is not readable (permission denied)", path)
	case err != nil:
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s: is a directory, not an HDF5 file", path)
	}
	sig := make([]byte, len(hdf5Signature))
	for off := int64(0); off+int64(len(sig)) <= st.Size(); off = max(512, 2*off) {
		if _, err := f.ReadAt(sig, off); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: %w", path, err)
		}
		if bytes.Equal(sig, hdf5Signature) {
			return nil
		}
	}
	return fmt.Errorf("%s: not an HDF5 file (no HDF5 signature; %d bytes)", path, st.Size())
}
