package proxy_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	// MPI before HDF5 starts in the ranks that load the Cache VOL, as cmd/h5proxy does.
	_ "github.com/h5proxy/h5proxy/internal/mpi/preinit"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestCacheChoice: where no Cache VOL is loaded (CI, and every 1.10 build) mode=cache runs
// the cache-model and the report says so and why; mode=cache-model is the model always;
// cache.connector=YES is refused before any I/O, naming the key and what is missing.
func TestCacheChoice(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	size := world(t).Size()
	why := "no Cache VOL loaded"
	if !strings.HasPrefix(proxy.HDF5Version(), "1.14") {
		why = "has no VOL connectors"
	}
	for _, c := range []struct{ name, kv, impl string }{
		{"auto", "mode=cache", why},
		{"no", "mode=cache;cache.connector=NO", "cache.connector=NO"},
		{"model", "mode=cache-model", "mode=cache-model"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := config(t, "DIM_1=4096;TIMESTEPS=3;COLLECTIVE_DATA=YES;verify=yes;cache.path="+dir+";"+c.kv, fileOf(dir, "cc-"+c.name, size))
			rep := runReport(t, cfg, c.kv)
			if !strings.Contains(rep.ModeImpl, c.impl) || !strings.Contains(rep.ModeImpl, "cache-model") {
				t.Errorf("%s: mode_impl %q, want the cache-model and %q", c.kv, rep.ModeImpl, c.impl)
			}
			for _, p := range rep.Phases {
				if p.Phase == "read" && !p.Verified {
					t.Errorf("%s: read phase not verified", c.kv)
				}
			}
		})
	}
	cfg := config(t, "DIM_1=4096;TIMESTEPS=3;mode=cache;cache.connector=YES", fileOf(dir, "cc-yes", size))
	s, err := proxy.NewSession(proxy.World(), cfg)
	if err == nil {
		s.Close()
		t.Fatal("cache.connector=YES accepted without the Cache VOL")
	}
	if !errors.Is(err, proxy.ErrUnsupported) || !strings.Contains(err.Error(), `"cache.connector"`) || !strings.Contains(err.Error(), why) {
		t.Errorf("cache.connector=YES without the connector: %v, want unsupported naming the key and %q", err, why)
	}
	if _, err := os.Stat(fileOf(dir, "cc-yes", size)); err == nil {
		t.Errorf("the refused session wrote its file")
	}
}

// TestCacheVOL runs mode=cache under the real Cache VOL where it is built: VPIC's write and
// verified read at 2 ranks go through the connector (chosen because HDF5_VOL_CONNECTOR
// loads it), the report names it and its storage, the file equals (h5diff) the native sync
// run's, made first by the same ranks without the connector; cache.path set against the
// connector's config file is refused naming the key.
func TestCacheVOL(t *testing.T) {
	const pass = "H5PROXY_TEST_CACHE_PASS"
	dir := testDir(t)
	if !mpitest.Child() {
		lib := connectorDir(t, "the Cache VOL", "libh5cache_vol.so")
		t.Setenv(pass, "native")
		if parent, out, err := mpitest.Output(t, 2); parent && (err != nil || bytes.Contains(out, []byte("--- FAIL"))) {
			t.Fatalf("the native run failed: %v\n%s", err, out)
		}
		storage := filepath.Join(dir, "storage")
		if err := os.Mkdir(storage, 0o755); err != nil {
			t.Fatal(err)
		}
		cfgFile := filepath.Join(dir, "cache.cfg")
		conf := "HDF5_CACHE_STORAGE_TYPE: SSD\nHDF5_CACHE_STORAGE_PATH: " + storage +
			"\nHDF5_CACHE_STORAGE_SCOPE: LOCAL\nHDF5_CACHE_STORAGE_SIZE: 1073741824\nHDF5_CACHE_WRITE_BUFFER_SIZE: 268435456\n"
		if err := os.WriteFile(cfgFile, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv(pass, "vol")
		t.Setenv("HDF5_PLUGIN_PATH", lib)
		t.Setenv("HDF5_VOL_CONNECTOR", "cache_ext config="+cfgFile+";under_vol=0;under_info={}")
		os.Unsetenv("HDF5_CACHE_WR") // mode=cache turns the write cache on
		_, out, err := mpitest.Output(t, 2)
		if err != nil || bytes.Contains(out, []byte("--- FAIL")) || !bytes.Contains(out, []byte("PASS")) {
			t.Fatalf("the run under the Cache VOL failed: %v\n%s", err, out)
		}
		if out, err := exec.Command("h5diff", "-r", fileOf(dir, "cache-native", 2), fileOf(dir, "cache-vol", 2)).CombinedOutput(); err != nil {
			t.Errorf("the Cache VOL run's file differs from the native sync run's: %v\n%s", err, out)
		}
		return
	}
	size := world(t).Size()
	if os.Getenv(pass) == "native" {
		runReport(t, config(t, "DIM_1=4096;TIMESTEPS=3;COLLECTIVE_DATA=YES;MODE=SYNC", fileOf(dir, "cache-native", size)), "the native sync run")
		return
	}
	// A config whose write buffer times the node's ranks fills the storage: the connector
	// would turn its write cache off at every create, so mode=cache refuses it, naming both
	// sizes. h5proxy reads the file HDF5_VOL_CONNECTOR names when the mode starts.
	tight := filepath.Join(dir, fmt.Sprintf("tight-%d.cfg", world(t).Rank()))
	if err := os.WriteFile(tight, []byte("HDF5_CACHE_STORAGE_TYPE: SSD\nHDF5_CACHE_STORAGE_PATH: "+filepath.Join(dir, "storage")+
		"\nHDF5_CACHE_STORAGE_SIZE: 1048576\nHDF5_CACHE_WRITE_BUFFER_SIZE: 524288\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := os.Getenv("HDF5_VOL_CONNECTOR")
	os.Setenv("HDF5_VOL_CONNECTOR", "cache_ext config="+tight+";under_vol=0;under_info={}")
	_, err := proxy.NewSession(proxy.World(), config(t, "DIM_1=4096;TIMESTEPS=3;mode=cache", fileOf(dir, "cache-tight", world(t).Size())))
	os.Setenv("HDF5_VOL_CONNECTOR", spec)
	if err == nil || !strings.Contains(err.Error(), "HDF5_CACHE_WRITE_BUFFER_SIZE 524288 times the 2 ranks") || !strings.Contains(err.Error(), "HDF5_CACHE_STORAGE_SIZE 1048576") {
		t.Errorf("a config with no room for the write cache: %v, want refused naming both sizes", err)
	}
	// A key the connector's config file contradicts: refused, naming it.
	cfg := config(t, "DIM_1=4096;TIMESTEPS=3;mode=cache;cache.path="+dir, fileOf(dir, "cache-path", size))
	if s, err := proxy.NewSession(proxy.World(), cfg); err == nil {
		s.Close()
		t.Errorf("cache.path=%s accepted against the connector's storage path", dir)
	} else if !strings.Contains(err.Error(), `"cache.path"`) || !strings.Contains(err.Error(), "HDF5_CACHE_STORAGE_PATH") {
		t.Errorf("cache.path against the config file: %v, want the key and the file's setting named", err)
	}
	cfg = config(t, "DIM_1=4096;TIMESTEPS=3;COLLECTIVE_DATA=YES;verify=yes;stall_timeout=120s;mode=cache", fileOf(dir, "cache-vol", size))
	rep := runReport(t, cfg, "mode=cache under the Cache VOL")
	if rep.VOLConnector != "cache_ext" || !strings.Contains(rep.ModeImpl, "the Cache VOL") || !strings.Contains(rep.ModeImpl, "file access property HDF5_CACHE_WR") ||
		!strings.Contains(rep.ModeImpl, filepath.Join(dir, "storage")) {
		t.Errorf("vol_connector %q, mode_impl %q: want cache_ext, the Cache VOL with its write cache on by the file access property and storage named", rep.VOLConnector, rep.ModeImpl)
	}
	// The switch is the file's, not the process's: nothing is left in the environment.
	if v, ok := os.LookupEnv("HDF5_CACHE_WR"); ok {
		t.Errorf("HDF5_CACHE_WR=%q in the environment after mode=cache, want it unset (the mode sets the file access property)", v)
	}
	for _, p := range rep.Phases {
		// Over the native connector the cache copies every write to its storage with
		// write(2), then writes it below: about twice the data's bytes (once: the
		// write cache was off).
		if w := p.Census.SysIO["wchar"].Sum; p.Phase == "write" && w < 1.5*p.Bytes {
			t.Errorf("write phase: %.0f bytes through write(2) for %.0f bytes of data, want about twice (the write cache on; once: off)", w, p.Bytes)
		}
		if p.Phase == "read" && !p.Verified {
			t.Error("read phase not verified")
		}
		if p.Phase == "write" && p.CloseTime.Max <= 0 {
			t.Errorf("write phase: file_close_time %+v, want the flush at close measured", p.CloseTime)
		}
	}
}
