package h5perf

import (
	"strings"
	"testing"
)

// FuzzParse: any command line either fails with a message or gives arguments that satisfy
// h5perf's adjustments (transfer range ordered and, in 1-D, within the bytes per process;
// block within the bytes per process; process range ordered and positive; an iteration at
// least), whose loops are finite. Arguments are the input split on spaces.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "-e 64K -x 16K -X 32K -B 4K -i 2", "-g -I -c -C -A posix,mpiio", "--api=phdf5 --num-bytes 1M",
		"-D 3,r,t -o out -P 4 -p 9", "-cCIgw -d2 -F3", "-x 1G -X 2G -e 1M", "--interleaved", "-q", "-e 12Q"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		a, err := Parse(strings.Fields(line), 4)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: empty error", line)
			}
			return
		}
		if a.MinXfer > a.MaxXfer || !a.Dim2D && a.MaxXfer > a.NumBPP || a.BlkSize > a.NumBPP ||
			a.MinProcs < 1 || a.MinProcs > a.MaxProcs || a.NumIters < 1 || a.APIs == 0 {
			t.Fatalf("%q: %+v", line, a)
		}
		if n := len(a.Procs()); n == 0 || n > 64 {
			t.Fatalf("%q: process counts %v", line, a.Procs())
		}
		if n := len(a.Sizes()); n == 0 || n > 64 {
			t.Fatalf("%q: transfer sizes %v", line, a.Sizes())
		}
	})
}
