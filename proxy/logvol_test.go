package proxy_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestLogVOLRefused: layout=log-vol is refused before any I/O, naming the layout and what
// is missing: on HDF5 1.10 the VOL layer, on 1.14 a connector HDF5 can load
// (HDF5_PLUGIN_PATH, read when HDF5 starts, names an empty directory here). CI runs it on
// both builds.
func TestLogVOLRefused(t *testing.T) {
	dir := testDir(t)
	if !mpitest.Child() {
		t.Setenv("HDF5_PLUGIN_PATH", t.TempDir())
	}
	if mpitest.Run(t, 2) {
		return
	}
	size := world(t).Size()
	why := "HDF5_PLUGIN_PATH"
	if !strings.HasPrefix(proxy.HDF5Version(), "1.14") {
		why = "no VOL connectors"
	}
	file := fileOf(dir, "logvol-refused", size)
	kvs, err := proxy.ParseKV("DIM_1=4096;TIMESTEPS=2;layout=log-vol;file=" + file)
	if err != nil {
		t.Fatal(err)
	}
	// 1.10: refused with the configuration (the layout's Available); 1.14: when the session
	// builds the layout and HDF5 cannot load the connector.
	cfg, err := proxy.ParseOptions("vpic", kvs)
	if err == nil {
		var s *proxy.Session
		if s, err = proxy.NewSession(proxy.World(), cfg); err == nil {
			err = s.Run()
			s.Close()
		}
	}
	if err == nil {
		t.Fatal("layout=log-vol ran without the log-based VOL")
	}
	if !errors.Is(err, proxy.ErrUnsupported) || !strings.Contains(err.Error(), `"log-vol"`) || !strings.Contains(err.Error(), why) {
		t.Errorf("layout=log-vol without the connector: %v, want unsupported naming the layout and %q", err, why)
	}
	if _, err := os.Stat(file); err == nil {
		t.Errorf("the refused run wrote %s", file)
	}
}

// TestLogVOL runs layout=log-vol through the real log-based VOL where it is built: VPIC's
// write and a read of every element verified against the generated values (the values
// the native layout's file holds), read back through the connector; the report names the
// layout, and the file is in the connector's format (its /_LOG data and metadata logs, no
// contiguous datasets), which is why it is compared by values read back, not by h5dump.
func TestLogVOL(t *testing.T) {
	dir := testDir(t)
	if !mpitest.Child() {
		lib := connectorDir(t, "the log-based VOL", "libH5VL_log.so")
		t.Setenv("HDF5_PLUGIN_PATH", lib)
		_, out, err := mpitest.Output(t, 2)
		if err != nil || bytes.Contains(out, []byte("--- FAIL")) || !bytes.Contains(out, []byte("PASS")) {
			t.Fatalf("the run through the log-based VOL failed: %v\n%s", err, out)
		}
		dump, err := exec.Command("h5dump", "-n", fileOf(dir, "logvol", 2)).CombinedOutput()
		if err != nil {
			t.Fatalf("h5dump -n: %v\n%s", err, dump)
		}
		if !bytes.Contains(dump, []byte("/_LOG/_ld_0")) || !bytes.Contains(dump, []byte("/_LOG/_md_0")) {
			t.Errorf("the file is not in the log-based VOL's format (no /_LOG logs):\n%s", dump)
		}
		return
	}
	size := world(t).Size()
	rep := runReport(t, config(t, "DIM_1=4096;TIMESTEPS=3;COLLECTIVE_DATA=YES;verify=yes;layout=log-vol", fileOf(dir, "logvol", size)), "layout=log-vol")
	if rep.Layout != "log-vol" {
		t.Errorf("layout %q in the report, want log-vol", rep.Layout)
	}
	read := false
	for _, p := range rep.Phases {
		if p.Phase == "read" {
			read = true
			if !p.Verified {
				t.Error("read phase through the log-based VOL not verified")
			}
		}
	}
	if !read {
		t.Error("no read phase")
	}
}

// connectorDir returns the directory holding the connector library lib (what names it),
// built by scripts/vol-connectors.sh into H5PROXY_VOL_PREFIX (default
// /opt/h5proxy/vol-1.14.5), or skips t naming what is missing: no connector comes from
// the project's package registries, so CI runs without them.
func connectorDir(t *testing.T, what, lib string) string {
	t.Helper()
	if v := proxy.HDF5Version(); !strings.HasPrefix(v, "1.14") {
		t.Skipf("needs %s, built against HDF5 1.14: this build loads HDF5 %s (run with HDF5=1.14)", what, v)
	}
	prefix := os.Getenv("H5PROXY_VOL_PREFIX")
	if prefix == "" {
		prefix = "/opt/h5proxy/vol-1.14.5"
	}
	dir := filepath.Join(prefix, "lib")
	if _, err := os.Stat(filepath.Join(dir, lib)); err != nil {
		t.Skipf("needs %s (%s) in %s: build it with `make vol-connectors` (VOL_PREFIX=%s), or set H5PROXY_VOL_PREFIX: %v", what, lib, dir, prefix, err)
	}
	return dir
}
