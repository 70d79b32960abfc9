package emulate

import (
	"fmt"
	"syscall"
)

// Buffer is a byte buffer in anonymous mmap memory, outside the Go heap.
type Buffer struct {
	mem []byte
	off int // where the buffer starts in mem: bytes past a page boundary
	n   int
}

// Alloc maps a zero-filled, page-aligned buffer of n bytes.
func Alloc(n int) (*Buffer, error) { return AllocAt(n, 0) }

// AllocAt maps a zero-filled buffer of n bytes starting off bytes past a page boundary.
// A C program's large malloc'd buffer starts 16 bytes past one (glibc's header of a
// mapped chunk), and the kernel's copies into such a buffer can run at half the speed of
// copies into a page-aligned one, so a proxy of that program places its buffers the same.
func AllocAt(n, off int) (*Buffer, error) {
	if n < 0 {
		return nil, fmt.Errorf("emulate: negative buffer size %d", n)
	}
	if off < 0 {
		return nil, fmt.Errorf("emulate: negative buffer offset %d", off)
	}
	size := n + off
	if size == 0 {
		size = 1 // mmap refuses zero length; a zero-length view of one byte is still valid
	}
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("emulate: mmap %d bytes: %w", size, err)
	}
	return &Buffer{mem: mem, off: off, n: n}, nil
}

// Bytes returns the buffer's n bytes.
func (b *Buffer) Bytes() []byte { return b.mem[b.off : b.off+b.n] }

// Len returns the buffer length.
func (b *Buffer) Len() int { return b.n }

// Free unmaps the buffer; it must not be used afterwards. Free on nil is a no-op.
func (b *Buffer) Free() error {
	if b == nil || b.mem == nil {
		return nil
	}
	err := syscall.Munmap(b.mem)
	b.mem, b.off, b.n = nil, 0, 0
	return err
}

// Fit returns b resized to n bytes starting off bytes past a page boundary when its
// memory holds them there (the contents kept), else frees b and maps a new buffer
// (AllocAt). b may be nil.
func (b *Buffer) Fit(n, off int) (*Buffer, error) {
	if b != nil && b.off == off && len(b.mem) >= n+off {
		b.n = n
		return b, nil
	}
	if err := b.Free(); err != nil {
		return nil, err
	}
	return AllocAt(n, off)
}

// Pool keeps named buffers alive across steps so that each step reuses the memory the
// previous one touched (fresh pages are several times slower to fault in).
type Pool struct {
	bufs map[string]*Buffer
}

// Get returns the named buffer resized to n bytes, page-aligned, reallocating only when it
// must grow.
func (p *Pool) Get(name string, n int) ([]byte, error) { return p.GetAt(name, n, 0) }

// GetAt returns the named buffer resized to n bytes, starting off bytes past a page
// boundary (see AllocAt), reallocating only when it must grow or move.
func (p *Pool) GetAt(name string, n, off int) ([]byte, error) {
	if p.bufs == nil {
		p.bufs = map[string]*Buffer{}
	}
	b := p.bufs[name]
	f, err := b.Fit(n, off)
	if err != nil {
		if b != nil {
			delete(p.bufs, name) // freed by Fit
		}
		return nil, err
	}
	if f != b {
		p.bufs[name] = f
	}
	return f.Bytes(), nil
}

// Bytes returns the total mapped size.
func (p *Pool) Bytes() int {
	t := 0
	for _, b := range p.bufs {
		t += cap(b.mem)
	}
	return t
}

// Free unmaps every buffer.
func (p *Pool) Free() error {
	var first error
	for k, b := range p.bufs {
		if err := b.Free(); err != nil && first == nil {
			first = err
		}
		delete(p.bufs, k)
	}
	return first
}
