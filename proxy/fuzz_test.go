package proxy_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/proxy"
)

// checkConfigError fails unless err says what it rejects: an *options.Error names its key
// (quoted), any other error is a non-empty message naming something of the input.
func checkConfigError(t *testing.T, input string, err error) {
	t.Helper()
	var oe *options.Error
	switch {
	case err.Error() == "":
		t.Fatalf("%q: empty error message", input)
	case errors.As(err, &oe) && !strings.Contains(err.Error(), strconv.Quote(oe.Key)):
		t.Fatalf("%q: error %q does not name key %q", input, err, oe.Key)
	}
}

// FuzzOptionText parses KEY=VALUE option text (the CLI's -o items, the C ABI's options
// string) and builds a configuration of a pattern from it: no input may panic, and
// every rejection names the key or the item.
func FuzzOptionText(f *testing.F) {
	for _, s := range [][2]string{
		{"vpic", "file=a.h5;TIMESTEPS=2;DIM_1=1K"},
		{"vpic", "file=a.h5\nmode=async\nlayout=log\n# comment\n"},
		{"e3sm", "file=e.h5;MAP=none.h5"},
		{"iotest", "file=x.h5;layout=subfiling;stripe_size=1MiB"},
		{"dlio", "file=d.h5;num_samples=-1"},
		{"exerciser", "layout=null;verify=yes"},
		{"amrex", "file=a.h5;=x"},
		{"openpmd", "file=a.h5;compute_time=1e400s;compute_jitter=2"},
		{"nope", "file=a.h5"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		kvs, err := proxy.ParseKV(text)
		if err != nil {
			if !strings.Contains(err.Error(), "not KEY=VALUE") {
				t.Fatalf("ParseKV(%q): %v does not name the item", text, err)
			}
			return
		}
		for _, kv := range kvs {
			if kv.Key == "" || strings.ContainsAny(kv.Key, ";\n") {
				t.Fatalf("ParseKV(%q): bad pair %+v", text, kv)
			}
		}
		if _, err := proxy.BuildConfig(pattern, kvs, ""); err != nil {
			checkConfigError(t, pattern+": "+text, err)
		}
	})
}

// FuzzNativeConfig decodes native JSON configurations (config_file, `h5proxy run -c`):
// no input may panic, every rejection names the key or JSON offset.
func FuzzNativeConfig(f *testing.F) {
	for _, name := range []string{"native-vpic.json", "native-exerciser.json"} {
		b, err := os.ReadFile(filepath.Join("..", "samples", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"pattern":"vpic","phases":["write","bogus"],"session":{"file":"a.h5"}}`))
	f.Add([]byte(`{"pattern":"e3sm","session":{"file":"a.h5","mode":"cache"},"options":{"MAP":[1,2]}}`))
	f.Add([]byte(`{"pattern":"dlio","session":{"file":"a.h5","layout":"log"},"options":{"record_length":1e30},"mpi_info":{"a":"b"}}`))
	f.Add([]byte(`{"pattern":"vpic","session":{"nope":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := proxy.DecodeConfig(data); err != nil {
			checkConfigError(t, string(data), err)
		}
	})
}
