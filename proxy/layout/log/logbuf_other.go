//go:build !linux

package log

import "slices"

// logBuffer is a rank's pending requests (a Go slice where mremap is not available).
type logBuffer struct {
	b []byte
}

// grow appends n bytes to the buffer and returns them.
func (l *logBuffer) grow(n int) ([]byte, error) {
	used := len(l.b)
	l.b = slices.Grow(l.b, n)[:used+n]
	return l.b[used:], nil
}

// bytes returns the bytes written so far (valid until the next grow or release).
func (l *logBuffer) bytes() []byte { return l.b }

// release drops the buffer.
func (l *logBuffer) release() { l.b = nil }
