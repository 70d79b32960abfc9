package emulate

import (
	"fmt"
	"strings"
	"time"
)

// ComputeKind selects how emulated compute spends its time.
type ComputeKind int

// Compute kinds.
const (
	// Sleep blocks the calling thread, as h5bench's EMULATED_COMPUTE_TIME_PER_TIMESTEP does.
	Sleep ComputeKind = iota + 1
	// Spin keeps a core busy for the duration: background I/O threads really compete.
	Spin
)

// ComputeKinds lists the accepted names, for option tables.
var ComputeKinds = []string{"sleep", "spin"}

// ParseComputeKind maps a name to a kind, case-insensitively.
func ParseComputeKind(s string) (ComputeKind, error) {
	switch strings.ToLower(s) {
	case "sleep":
		return Sleep, nil
	case "spin":
		return Spin, nil
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
