package emulate

import (
	"strings"
	"testing"
	"time"
	"unsafe"
)

func addr(b []byte) uintptr {
	if cap(b) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))
}

func TestAlloc(t *testing.T) {
	b, err := Alloc(4096 * 3)
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() != 4096*3 || len(b.Bytes()) != 4096*3 {
		t.Fatalf("Len %d, len(Bytes) %d", b.Len(), len(b.Bytes()))
	}
	for i, c := range b.Bytes() {
		if c != 0 {
			t.Fatalf("byte %d = %d, want zero-filled", i, c)
		}
	}
	b.Bytes()[4096*3-1] = 7 // writable to the end
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	if err := b.Free(); err != nil {
		t.Errorf("second Free: %v", err)
	}
	if b.Len() != 0 {
		t.Errorf("Len after Free = %d", b.Len())
	}
	var nilBuf *Buffer
	if err := nilBuf.Free(); err != nil {
		t.Errorf("nil Free: %v", err)
	}

	z, err := Alloc(0)
	if err != nil {
		t.Fatalf("Alloc(0): %v", err)
	}
	if z.Len() != 0 || len(z.Bytes()) != 0 {
		t.Errorf("Alloc(0) has %d bytes", z.Len())
	}
	if err := z.Free(); err != nil {
		t.Error(err)
	}

	if _, err := Alloc(-1); err == nil || err.Error() != "emulate: negative buffer size -1" {
		t.Errorf("Alloc(-1) = %v", err)
	}
}

func TestPoolReuse(t *testing.T) {
	var p Pool
	defer p.Free()
	a, err := p.Get("x", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 1000 || p.Bytes() != 1000 {
		t.Fatalf("len %d, pool bytes %d", len(a), p.Bytes())
	}
	a[0], a[499] = 1, 2

	// Equal size: same memory, contents kept.
	b, err := p.Get("x", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if addr(b) != addr(a) || len(b) != 1000 || b[0] != 1 {
		t.Errorf("equal-size Get did not reuse the buffer")
	}
	// Shrinking: same memory, shorter view, pool size unchanged.
	c, err := p.Get("x", 500)
	if err != nil {
		t.Fatal(err)
	}
	if addr(c) != addr(a) || len(c) != 500 || c[499] != 2 {
		t.Errorf("shrinking Get did not reuse the buffer (len %d)", len(c))
	}
	if p.Bytes() != 1000 {
		t.Errorf("pool bytes after shrink = %d", p.Bytes())
	}
	// Growing back within capacity: still the same memory.
	d, err := p.Get("x", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if addr(d) != addr(a) || len(d) != 1000 {
		t.Error("re-growing within capacity reallocated")
	}
	// Another name is another buffer.
	e, err := p.Get("y", 10)
	if err != nil {
		t.Fatal(err)
	}
	if addr(e) == addr(a) {
		t.Error("two names share memory")
	}
	if p.Bytes() != 1010 {
		t.Errorf("pool bytes = %d, want 1010", p.Bytes())
	}
	// Growing beyond capacity reallocates a zeroed buffer of the new size.
	f, err := p.Get("x", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(f) != 1<<20 || f[0] != 0 || p.Bytes() != 1<<20+10 {
		t.Errorf("grown: len %d first byte %d pool bytes %d", len(f), f[0], p.Bytes())
	}
	f[1<<20-1] = 1

	if err := p.Free(); err != nil {
		t.Fatal(err)
	}
	if p.Bytes() != 0 {
		t.Errorf("pool bytes after Free = %d", p.Bytes())
	}
	// The pool is usable after Free.
	g, err := p.Get("x", 64)
	if err != nil || len(g) != 64 || g[0] != 0 {
		t.Errorf("Get after Free: len %d err %v", len(g), err)
	}
	if _, err := p.Get("neg", -1); err == nil {
		t.Error("Get(-1) succeeded")
	}
}

func TestZeroPoolFree(t *testing.T) {
	var p Pool
	if err := p.Free(); err != nil || p.Bytes() != 0 {
		t.Errorf("Free on an empty pool: %v, %d bytes", err, p.Bytes())
	}
}

func TestCompute(t *testing.T) {
	for _, kind := range []ComputeKind{Sleep, Spin} {
		const d = 20 * time.Millisecond
		start := time.Now()
		took := Compute(kind, d)
		wall := time.Since(start)
		if took < d || wall < d {
			t.Errorf("%s: Compute(%v) returned %v after %v, want >= %v", kind, d, took, wall, d)
		}
		if took > 10*d || took > wall {
			t.Errorf("%s: Compute(%v) returned %v (wall %v)", kind, d, took, wall)
		}
		for _, z := range []time.Duration{0, -time.Second} {
			if got := Compute(kind, z); got != 0 {
				t.Errorf("%s: Compute(%v) = %v, want 0", kind, z, got)
			}
		}
	}
}

func TestParseComputeKind(t *testing.T) {
	for in, want := range map[string]ComputeKind{"sleep": Sleep, "SLEEP": Sleep, "Spin": Spin, "spin": Spin} {
		got, err := ParseComputeKind(in)
		if err != nil || got != want {
			t.Errorf("ParseComputeKind(%q) = %v, %v", in, got, err)
		}
		if got.String() != strings.ToLower(in) {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
	for _, in := range []string{"busy", "", "sleepy"} {
		_, err := ParseComputeKind(in)
		if want := `compute kind "` + in + `": allowed sleep, spin, stream`; err == nil || err.Error() != want {
			t.Errorf("ParseComputeKind(%q) = %v, want %q", in, err, want)
		}
	}
	if s := ComputeKind(0).String(); s != "compute(0)" {
		t.Errorf("ComputeKind(0) = %q", s)
	}
}

// TestPoolOffset: a buffer asked at an offset starts that many bytes past a page boundary
// and keeps its contents while reused at that offset; asked at another offset it moves.
func TestPoolOffset(t *testing.T) {
	var p Pool
	defer p.Free()
	b, err := p.GetAt("x", 4<<20, 16)
	if err != nil {
		t.Fatal(err)
	}
	if a := uintptr(unsafe.Pointer(&b[0])); a%4096 != 16 || len(b) != 4<<20 {
		t.Fatalf("buffer at %#x (page offset %d), %d bytes; want page offset 16, 4 MiB", a, a%4096, len(b))
	}
	b[0], b[len(b)-1] = 7, 9
	again, err := p.GetAt("x", 4<<20, 16)
	if err != nil || &again[0] != &b[0] || again[len(again)-1] != 9 {
		t.Fatalf("reuse at the same offset moved or lost the buffer: %v", err)
	}
	moved, err := p.GetAt("x", 1<<20, 0)
	if err != nil {
		t.Fatal(err)
	}
	if a := uintptr(unsafe.Pointer(&moved[0])); a%4096 != 0 || len(moved) != 1<<20 {
		t.Fatalf("buffer at page offset %d, %d bytes; want aligned, 1 MiB", a%4096, len(moved))
	}
	if _, err := AllocAt(8, -1); err == nil {
		t.Error("AllocAt with a negative offset: no error")
	}
}
