package ior

import (
	"encoding/binary"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
)

// TestData: every transfer of a step carries IOR's time-stamp packet of the task whose data
// the step writes or reads (a -C read: the next task's), one shared copy for the step;
// -G's signature is used as IOR's int, so a negative one sign-extends into the high word;
// without -G the signature comes from the session's seed.
func TestData(t *testing.T) {
	const T = 64 // 8 words
	for _, tc := range []struct {
		args []string
		seed uint64
		sig  int64
	}{
		{[]string{"-a", "MPIIO", "-b", "256", "-t", "64", "-s", "2", "-C", "-w", "-r", "-G", "-5"}, 7, -5},
		{[]string{"-a", "HDF5", "-b", "256", "-t", "64", "-s", "2", "-C", "-w", "-r"}, 1<<40 | 99, 99},
	} {
		p := build(t, tc.args...)
		for _, ph := range []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead} {
			for rank := 0; rank < 2; rank++ {
				pl, err := p.Step(ph, 0, patterns.Env{Rank: rank, Size: 2, Path: "f", Seed: tc.seed})
				if err != nil {
					t.Fatal(err)
				}
				task := rank
				if ph == patterns.PhaseRead {
					task = (rank + 1) % 2
				}
				var first []byte
				n := 0
				for _, op := range pl.Ops {
					if op.Kind != plan.Write && op.Kind != plan.Read {
						continue
					}
					n++
					d := op.Transfer.Data
					if first == nil {
						first = d
						if len(d) != T {
							t.Fatalf("%v %s rank %d: %d bytes of data, want %d", tc.args, ph, rank, len(d), T)
						}
						for i := 0; i < T/8; i++ {
							want := uint64(task)<<32 | uint64(tc.sig+int64(i))
							if got := binary.NativeEndian.Uint64(d[i*8:]); got != want {
								t.Errorf("%v %s rank %d: word %d = %#x, want %#x", tc.args, ph, rank, i, got, want)
							}
						}
					} else if &d[0] != &first[0] {
						t.Errorf("%v %s rank %d: transfer %d has its own copy of the data, want the step's one", tc.args, ph, rank, n)
					}
				}
				if n != 8 {
					t.Errorf("%v %s rank %d: %d transfers, want 8", tc.args, ph, rank, n)
				}
			}
		}
	}
}
