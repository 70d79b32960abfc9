package proxy_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestOverride: a pattern key replaces the configuration's entry whatever its spelling, a
// session key is set, an MPI-IO hint lands in MPIInfo without touching the original's map;
// bad values are reported by Set at once (session keys) or by Validate (pattern keys).
func TestOverride(t *testing.T) {
	base, err := proxy.ParseOptions("vpic", []options.KV{{Key: "file", Value: "a.h5"}, {Key: "dim_1", Value: "64"}, {Key: "TIMESTEPS", Value: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	base.MPIInfo = map[string]string{"romio_cb_write": "enable"}
	c := base
	for _, kv := range [][2]string{{"DIM_1", "128"}, {"MODE", "async"}, {"mpiio.cb_nodes", "2"}, {"compute_time", "1s"}} {
		if err := c.Override(kv[0], kv[1]); err != nil {
			t.Fatalf("Override(%s, %s): %v", kv[0], kv[1], err)
		}
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := []options.KV{{Key: "TIMESTEPS", Value: "2"}, {Key: "DIM_1", Value: "128"}}
	if !reflect.DeepEqual(c.Options, want) || c.Mode != "async" || c.ComputePerStep.String() != "1s" {
		t.Errorf("options %v mode %s compute %v; want %v, async, 1s", c.Options, c.Mode, c.ComputePerStep, want)
	}
	if !reflect.DeepEqual(c.Knobs, []options.KV{{Key: "mpiio.cb_nodes", Value: "2"}}) || len(base.Knobs) != 0 {
		t.Errorf("knobs %v, original's %v", c.Knobs, base.Knobs)
	}
	for _, bad := range []struct{ key, value, want string }{
		{"mode", "asinc", `key "mode" value "asinc": not an allowed value`},
		{"mpiio.cb_nodes", "x", `key "mpiio.cb_nodes" value "x"`},
	} {
		c := base
		if err := c.Override(bad.key, bad.value); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Override(%s, %s): %v, want %q", bad.key, bad.value, err, bad.want)
		}
	}
	c = base
	if err := c.Override("dim_1", "lots"); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `key "dim_1" value "lots"`) {
		t.Errorf("Validate after DIM_1=lots: %v", err)
	}
}
