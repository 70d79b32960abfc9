package ior

import (
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/patterns"
)

// FuzzParse feeds IOR command lines (split on white space) to the parser and, when they
// are accepted and small, plans them: no input may panic, and a rejected one says why.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"-a POSIX -b 1m -t 256k -s 2 -w -r",
		"-a HDF5 -c -b 64k -t 8k -F -C -Q 1 -W -R -k -K -i 2",
		"-a MPIIO -Z -X -7 -z -e -Y -g -x -H -d 1 -o /tmp/f -O useO_DIRECT=0",
		"-b 4g -t 3k", "-s 0", "-a", "-q", "-J 4k -n -a HDF5", "--", "-t 1x",
		"-O IOR_HINT__MPI__cb_nodes=2,bad", "-b 18446744073709551615g",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		c, _, err := Parse(args)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: rejected with an empty error", line)
			}
			return
		}
		if c.TransferSize == 0 || c.BlockSize/c.TransferSize*uint64(c.Segments) > 4096 || c.Repetitions > 4 {
			return // planning is what other tests cover; keep each input cheap
		}
		kvs, err := ParseArgs(args)
		if err != nil {
			t.Fatalf("%q: Parse accepted what ParseArgs rejects: %v", line, err)
		}
		v, err := Options.Parse(kvs)
		if err != nil {
			t.Fatalf("%q: Parse accepted what the table rejects: %v", line, err)
		}
		p, err := Factory.New(v)
		if err != nil {
			return
		}
		env := patterns.Env{Rank: 1, Size: 2, Path: "f", Seed: 1}
		for _, ph := range p.Phases() {
			if _, err := p.Begin(ph, env); err != nil {
				continue
			}
			if _, err := p.Step(ph, 0, env); err != nil && err.Error() == "" {
				t.Fatalf("%q: step failed with an empty error", line)
			}
		}
	})
}
