package h5bench_test

import (
	"strings"
	"testing"
)

// TestLayoutKeys: MODE=LOG selects the log layout (h5bench loads the Log VOL), SUBFILING=YES
// the subfiling layout (h5bench sets the subfiling VFD); both keep the synchronous mode.
func TestLayoutKeys(t *testing.T) {
	for _, tc := range []struct {
		conf         map[string]any
		mode, layout string
	}{
		{map[string]any{"MODE": "LOG"}, "sync", "log"},
		{map[string]any{"MODE": "log"}, "sync", "log"},
		{map[string]any{"SUBFILING": "YES"}, "sync", "subfiling"},
		{map[string]any{"SUBFILING": "YES", "MODE": "ASYNC"}, "async", "subfiling"},
		{map[string]any{"SUBFILING": "NO"}, "sync", "native"},
	} {
		d := doc()
		for k, v := range tc.conf {
			conf0(d)[k] = v
		}
		f, err := parse(t, d)
		if err != nil {
			t.Errorf("%v: %v", tc.conf, err)
			continue
		}
		if c := f.Runs[0].Config; c.Mode != tc.mode || c.Layout != tc.layout {
			t.Errorf("%v: mode %q layout %q, want %q %q", tc.conf, c.Mode, c.Layout, tc.mode, tc.layout)
		}
	}
}

// TestPosixKeys: an h5bench configuration selects the posix layout and its keys like any
// session key (h5bench itself has no POSIX path: its files are HDF5); a bad value is an
// error naming the key.
func TestPosixKeys(t *testing.T) {
	d := doc()
	for k, v := range map[string]any{"layout": "posix", "posix.file_per_rank": "YES", "posix.fsync": "close", "posix.alignment": "8K"} {
		conf0(d)[k] = v
	}
	f, err := parse(t, d)
	if err != nil {
		t.Fatal(err)
	}
	c := f.Runs[0].Config
	v, err := c.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if c.Layout != "posix" || c.Mode != "sync" || !v.Bool("posix.file_per_rank") || v.Bool("posix.odirect") || v.String("posix.fsync") != "close" || v.Int("posix.alignment") != 8192 {
		t.Errorf("layout %q mode %q, settings %v", c.Layout, c.Mode, v.Effective())
	}
	for _, bad := range []struct{ key, value, want string }{
		{"posix.fsync", "always", `key "posix.fsync" value "always"`},
		{"posix.alignment", "1000", `key "posix.alignment" value "1000": not a power of two`},
	} {
		d := doc()
		conf0(d)["layout"], conf0(d)[bad.key] = "posix", bad.value
		if _, err := parse(t, d); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s=%s: %v, want %q", bad.key, bad.value, err, bad.want)
		}
	}
}
