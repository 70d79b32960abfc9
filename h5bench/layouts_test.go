package h5bench_test

import "testing"

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
