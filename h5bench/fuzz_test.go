package h5bench_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/options"
)

// FuzzParse parses h5bench JSON configurations: no input may panic, every rejection starts
// with "h5bench:" and an *options.Error in it names its key.
func FuzzParse(f *testing.F) {
	for _, glob := range []string{"testdata/*.json", "testdata/samples/sync-write-1d-contig-contig.json",
		"testdata/samples/async-amrex.json", "../samples/sync-e3sm.json", "../samples/sync-openpmd.json"} {
		names, _ := filepath.Glob(glob)
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`{"mpi":{"command":"mpirun","ranks":"x","configuration":"-n 4 --oversubscribe"},"benchmarks":[{"benchmark":"write","file":"f.h5","configuration":{"MEM_PATTERN":"CONTIG","TIMESTEPS":"-1"}}]}`))
	f.Add([]byte(`{"vol":{"path":[1,"a"]},"file-system":{"lustre":{}},"directory":"","benchmarks":[{"benchmark":"nope"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := h5bench.Parse(data); err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "h5bench: ") || len(msg) <= len("h5bench: ") {
				t.Fatalf("%q: error %q does not say where", data, msg)
			}
			var oe *options.Error
			if errors.As(err, &oe) && !strings.Contains(msg, strconv.Quote(oe.Key)) {
				t.Fatalf("%q: error %q does not name key %q", data, msg, oe.Key)
			}
		}
	})
}
