package emulate

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/h5proxy/h5proxy/options"
)

// ComputeKind selects how emulated compute spends its time.
type ComputeKind int

// Compute kinds.
const (
	// Sleep blocks the calling thread, as h5bench's EMULATED_COMPUTE_TIME_PER_TIMESTEP does.
	Sleep ComputeKind = iota + 1
	// Spin keeps a core busy for the duration: background I/O threads really compete.
	Spin
	// Stream copies between two 32 MiB buffers for the duration: a memory-bandwidth-bound
	// kernel that competes with I/O for memory bandwidth as well as for the core.
	Stream
)

// ComputeKinds lists the accepted names, for option tables.
var ComputeKinds = []string{"sleep", "spin", "stream"}

// ParseComputeKind maps a name to a kind, case-insensitively.
func ParseComputeKind(s string) (ComputeKind, error) {
	switch strings.ToLower(s) {
	case "sleep":
		return Sleep, nil
	case "spin":
		return Spin, nil
	case "stream":
		return Stream, nil
	}
	return 0, fmt.Errorf("compute kind %q: allowed %s", s, strings.Join(ComputeKinds, ", "))
}

// String returns the kind's name.
func (k ComputeKind) String() string {
	switch k {
	case Sleep:
		return "sleep"
	case Spin:
		return "spin"
	case Stream:
		return "stream"
	}
	return fmt.Sprintf("compute(%d)", int(k))
}

// Compute emulates d of application compute and returns the time it actually took.
func Compute(kind ComputeKind, d time.Duration) time.Duration {
	start := time.Now()
	if d <= 0 {
		return 0
	}
	switch kind {
	case Spin:
		spin(start, d)
	case Stream:
		streamKernel(start, d)
	default:
		time.Sleep(d)
	}
	return time.Since(start)
}

// spinSink keeps the arithmetic of spin observable so the compiler cannot drop it.
var spinSink uint64

func spin(start time.Time, d time.Duration) {
	x := uint64(start.UnixNano())
	for time.Since(start) < d {
		for i := 0; i < 4096; i++ {
			x = mix64(x + uint64(i))
		}
	}
	spinSink += x
}

// streamBufs are the stream kernel's buffers, mapped once and reused.
var streamBufs struct {
	once     sync.Once
	src, dst []byte
}

func streamKernel(start time.Time, d time.Duration) {
	streamBufs.once.Do(func() {
		a, err1 := Alloc(32 << 20)
		b, err2 := Alloc(32 << 20)
		if err1 == nil && err2 == nil {
			streamBufs.src, streamBufs.dst = a.Bytes(), b.Bytes()
		}
	})
	if streamBufs.src == nil { // no memory for the kernel: burn the core instead
		spin(start, d)
		return
	}
	const chunk = 1 << 20
	for off := 0; time.Since(start) < d; off = (off + chunk) % len(streamBufs.src) {
		copy(streamBufs.dst[off:off+chunk], streamBufs.src[off:off+chunk])
	}
}

// Jitter returns d scaled by 1+j*u with u uniform in [-1, 1], a pure function of (seed,
// rank, step) so runs repeat exactly.
func Jitter(d time.Duration, j float64, seed uint64, rank, step int) time.Duration {
	if j <= 0 {
		return d
	}
	u := float64(mix64(seed^uint64(rank)<<32^uint64(step))>>11)/float64(1<<53)*2 - 1
	return time.Duration(float64(d) * (1 + j*u))
}

// LoadTrace reads per-step compute durations, one per line ("1.5s", "250 ms", "2"
// meaning seconds); blank lines and lines starting with # are skipped.
func LoadTrace(path string) ([]time.Duration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []time.Duration
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		d, err := options.ParseDuration(line)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %v", path, i+1, err)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no durations", path)
	}
	return out, nil
}
