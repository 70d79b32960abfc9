package emulate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStreamComputeTakesItsTime(t *testing.T) {
	if got := Compute(Stream, 30*time.Millisecond); got < 30*time.Millisecond || got > 300*time.Millisecond {
		t.Errorf("stream compute took %v for 30ms", got)
	}
	if k, err := ParseComputeKind("STREAM"); err != nil || k != Stream || k.String() != "stream" {
		t.Errorf("ParseComputeKind(STREAM) = %v, %v", k, err)
	}
}

func TestJitterIsBoundedAndRepeatable(t *testing.T) {
	d := time.Second
	seen := map[time.Duration]bool{}
	for step := 0; step < 200; step++ {
		j := Jitter(d, 0.2, 7, 1, step)
		if j < 800*time.Millisecond || j > 1200*time.Millisecond {
			t.Fatalf("step %d: %v outside 0.8s..1.2s", step, j)
		}
		if j != Jitter(d, 0.2, 7, 1, step) {
			t.Fatalf("step %d: not repeatable", step)
		}
		seen[j] = true
	}
	if len(seen) < 150 {
		t.Errorf("only %d distinct jittered durations in 200 steps", len(seen))
	}
	if Jitter(d, 0, 7, 1, 3) != d {
		t.Error("zero jitter changed the duration")
	}
	if Jitter(d, 0.2, 7, 1, 3) == Jitter(d, 0.2, 7, 2, 3) {
		t.Error("ranks got the same jitter")
	}
}

func TestLoadTrace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "trace.txt")
	os.WriteFile(p, []byte("# per-step compute\n1.5s\n\n250 ms\n2\n"), 0o644)
	got, err := LoadTrace(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{1500 * time.Millisecond, 250 * time.Millisecond, 2 * time.Second}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("trace %v, want %v", got, want)
	}
	os.WriteFile(p, []byte("1s\nsoon\n"), 0o644)
	if _, err := LoadTrace(p); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad line: %v", err)
	}
	os.WriteFile(p, []byte("# nothing\n"), 0o644)
	if _, err := LoadTrace(p); err == nil || !strings.Contains(err.Error(), "no durations") {
		t.Errorf("empty trace: %v", err)
	}
	if _, err := LoadTrace(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing trace file accepted")
	}
}
