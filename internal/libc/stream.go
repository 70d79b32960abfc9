package libc

import (
	"fmt"
	"io"
)

// The two ways C++ HPC programs read their input files, as their std::filebuf calls go
// (FileBuf): one piece of code for every built-in that reads its input as its program
// does.

// SlurpBuffer is the stream buffer AMReX's ParallelDescriptor::ReadAndBcastFile sets
// (pubsetbuf of IO_Buffer_Size = 262144 * 8 bytes).
const SlurpBuffer = 262144 * 8

// LineBuffer is libstdc++'s default stream buffer (BUFSIZ): std::getline on an fstream
// fills it a read at a time.
const LineBuffer = 8192

// ReadWhole reads path as AMReX's ParallelDescriptor::ReadAndBcastFile does on its I/O
// rank (Src/Base/AMReX_ParallelDescriptor.cpp: std::ifstream with a SlurpBuffer buffer,
// seekg(0, end), tellg, seekg(0, beg), read of the whole length, close): fopen64, three
// lseek64 (SEEK_END, SEEK_CUR, SEEK_SET), the reads that fill the length a buffer at a
// time, fclose; each lseek64 and read after a fileno.
func ReadWhole(path string) ([]byte, error) {
	b, err := OpenFileBuf(path, SlurpBuffer)
	if err != nil {
		return nil, err
	}
	data, err := readWhole(b)
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	return data, err
}

func readWhole(b *FileBuf) ([]byte, error) {
	length, err := b.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, err
	}
	if _, err := b.Seek(0, io.SeekCurrent); err != nil { // tellg
		return nil, err
	}
	if _, err := b.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	data := make([]byte, 0, length)
	for int64(len(data)) < length {
		p, err := b.Underflow()
		if err != nil {
			return nil, err
		}
		if len(p) == 0 {
			return nil, fmt.Errorf("read %s: %d of %d bytes: %w", b.Path(), len(data), length, io.ErrUnexpectedEOF)
		}
		data = append(data, p...)
	}
	return data[:length], nil
}

// ReadLines reads path as `while (std::getline(f, line))` on a std::fstream opened for
// input does (openPMD-api's 8a benchmark, parseArgs): fopen64, reads of a LineBuffer
// buffer until one returns nothing, fclose; each read after a fileno. It returns the lines.
func ReadLines(path string) ([]string, error) {
	b, err := OpenFileBuf(path, LineBuffer)
	if err != nil {
		return nil, err
	}
	var data []byte
	for {
		p, rerr := b.Underflow()
		if rerr != nil {
			err = rerr
			break
		}
		if len(p) == 0 {
			break
		}
		data = append(data, p...)
	}
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return splitLines(data), nil
}

// splitLines splits as getline does: at each newline, a last line without one kept.
func splitLines(data []byte) []string {
	var lines []string
	start := 0
	for i, c := range data {
		if c == '\n' {
			lines = append(lines, string(data[start:i]))
			start = i + 1
		}
	}
	if start < len(data) {
		lines = append(lines, string(data[start:]))
	}
	return lines
}
