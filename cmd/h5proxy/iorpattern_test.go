package main

import (
	"bytes"
	endian "encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/h5proxy/h5proxy/internal/inspect"
)

// TestIORPattern: the drop-in writes IOR 4.1's data, the time-stamp packet (utilities.c:
// generate_memory_pattern): 8-byte word i of every transfer of task t holds t in its high
// 32 bits and the signature (-G) plus i in its low ones, the same bytes at every transfer;
// the buffer is filled once per iteration; -R checks reads against that pattern, so
// another signature or one changed byte fails.
func TestIORPattern(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "p.h5")
	trace := filepath.Join(dir, "trace.json")
	const sig, block, xfer, segs, ranks, iters = 1234567, 16 << 10, 4 << 10, 2, 2, 2
	common := []string{"-a", "HDF5", "-c", "-b", "16k", "-t", "4k", "-s", fmt.Sprint(segs), "-k", "-o", f}
	w := append([]string{"ior", "-np", fmt.Sprint(ranks), "-set", "trace_file=" + trace, "-i", fmt.Sprint(iters), "-w", "-G", fmt.Sprint(sig)}, common...)
	h5proxy(t, dir, w...).expect(t, 0, []string{"Max Write: "}, nil)

	// Every element, computed here from the pattern's definition.
	for s := 0; s < segs; s++ {
		ds := fmt.Sprintf("/Dataset-0000.%04d", s)
		if n, err := inspect.Points(f, ds); err != nil || n != ranks*block/8 {
			t.Fatalf("%s: %d elements (%v), want %d", ds, n, err, ranks*block/8)
		}
		got := make([]int64, ranks*block/8)
		if err := inspect.Read(f, ds, &got); err != nil {
			t.Fatal(err)
		}
		bad := 0
		for e, v := range got {
			task, i := e/(block/8), e%(xfer/8)
			if want := uint64(task)<<32 | uint64(sig+i); uint64(v) != want {
				if bad++; bad <= 3 {
					t.Errorf("%s[%d] = %#x, want %#x (task %d, word %d of its transfer)", ds, e, uint64(v), want, task, i)
				}
			}
		}
	}

	// One fill per rank and iteration (IOR's generate_memory_pattern per test), not one
	// per transfer: the timeline's "fill" events.
	raw, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var tl struct {
		TraceEvents []struct {
			Name, Cat string
			Pid       int
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(raw, &tl); err != nil {
		t.Fatal(err)
	}
	fills, writes := map[int]int{}, map[int]int{}
	for _, e := range tl.TraceEvents {
		switch {
		case e.Cat == "prep" && e.Name == "fill":
			fills[e.Pid]++
		case e.Cat == "io" && e.Name == "write":
			writes[e.Pid]++
		}
	}
	for r := 0; r < ranks; r++ {
		if fills[r] != iters || writes[r] != iters*segs*block/xfer {
			t.Errorf("rank %d: %d fills for %d writes, want %d fills (one per iteration) for %d", r, fills[r], writes[r], iters, iters*segs*block/xfer)
		}
	}

	// The read check: the writer's signature passes, another fails, and so does one
	// changed byte (task 1's word 5 of a transfer, found in the file's bytes).
	read := func(g int) []string {
		return append([]string{"ior", "-np", fmt.Sprint(ranks), "-r", "-R", "-G", fmt.Sprint(g)}, common...)
	}
	h5proxy(t, dir, read(sig)...).expect(t, 0, []string{"Max Read:  "}, nil)
	h5proxy(t, dir, read(sig+1)...).expect(t, 1, nil, []string{"ior ERROR: data check error", "mismatching elements"})
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	word := endian.NativeEndian.AppendUint64(nil, 1<<32|uint64(sig+5))
	at := bytes.Index(data, word)
	if at < 0 {
		t.Fatalf("task 1's word 5 (%x) is nowhere in %s", word, f)
	}
	data[at] ^= 0x10
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	h5proxy(t, dir, read(sig)...).expect(t, 1, nil, []string{"ior ERROR: data check error", "1 mismatching elements"})
}

// TestIORGODEBUG: h5proxy ior launches its ranks without Go's asynchronous preemption
// signals (asyncpreemptoff=1 added to the user's GODEBUG), unless the user chose a value
// of that setting; the launcher (H5PROXY_MPIEXEC, a script here) sees it.
func TestIORGODEBUG(t *testing.T) {
	for user, want := range map[string]string{
		"": "asyncpreemptoff=1", "gctrace=1": "gctrace=1,asyncpreemptoff=1",
		"asyncpreemptoff=0": "asyncpreemptoff=0", "gctrace=1, asyncpreemptoff=0": "gctrace=1, asyncpreemptoff=0",
	} {
		if got := iorGODEBUG(user); got != want {
			t.Errorf("iorGODEBUG(%q) = %q, want %q", user, got, want)
		}
	}
	dir := t.TempDir()
	seen := filepath.Join(dir, "godebug")
	script := filepath.Join(dir, "launch.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"$GODEBUG\" > "+seen+"\nexec mpirun \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := h5proxyEnv(t, dir, []string{"H5PROXY_MPIEXEC=" + script, "GODEBUG=gctrace=0"},
		"ior", "-np", "2", "-a", "MPIIO", "-b", "8k", "-t", "4k", "-w", "-r", "-o", filepath.Join(dir, "f"))
	r.expect(t, 0, []string{"Max Read:  "}, nil)
	got, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "gctrace=0,asyncpreemptoff=1\n" {
		t.Errorf("the ranks' launcher saw GODEBUG %q, want gctrace=0,asyncpreemptoff=1", got)
	}
}
