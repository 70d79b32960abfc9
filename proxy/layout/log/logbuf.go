//go:build linux

package log

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// logBuffer is a rank's pending requests: anonymous memory outside the Go heap that grows
// with mremap, so growing it neither copies nor faults in again the bytes already written
// (the Log VOL keeps its requests in large malloc'ed blocks).
type logBuffer struct {
	b []byte // len: bytes used; cap: bytes mapped
}

// logBufferMin is the first mapping's size; untouched pages cost nothing.
const logBufferMin = 16 << 20

// grow appends n bytes to the buffer and returns them.
func (l *logBuffer) grow(n int) ([]byte, error) {
	used := len(l.b)
	if used+n > cap(l.b) {
		page := unix.Getpagesize()
		size := (max(2*cap(l.b), used+n, logBufferMin) + page - 1) &^ (page - 1)
		var m []byte
		var err error
		if cap(l.b) == 0 {
			m, err = unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
		} else {
			m, err = unix.Mremap(l.b[:cap(l.b)], size, unix.MREMAP_MAYMOVE)
		}
		if err != nil {
			return nil, fmt.Errorf("log layout: mapping %d bytes for the pending requests: %w", size, err)
		}
		l.b = m[:used]
	}
	l.b = l.b[:used+n]
	return l.b[used:], nil
}

// bytes returns the bytes written so far (valid until the next grow or release).
func (l *logBuffer) bytes() []byte { return l.b }

// release unmaps the buffer.
func (l *logBuffer) release() {
	if cap(l.b) > 0 {
		unix.Munmap(l.b[:cap(l.b)])
	}
	l.b = nil
}
