package proxy_test

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// passThrough is HDF5 1.14's built-in pass-through connector over the native one: a
// passthrough VOL connector that every 1.14 build has (no plugin to build), so CI runs
// h5proxy under a connector named by HDF5_VOL_CONNECTOR as a user's module would load one.
const passThrough = "pass_through under_vol=0;under_info={}"

// TestPassthroughConnector runs VPIC's write and verified read at 2 ranks with
// HDF5_VOL_CONNECTOR naming the pass-through connector, and the same run without it: the
// run completes and verifies unchanged, the report names the connector, the census's
// collective outcomes (which read what the native connector leaves in the transfer list)
// are not asked under it, a native-only query says "unavailable under pass_through", and
// the two files are equal (h5diff).
func TestPassthroughConnector(t *testing.T) {
	if v := proxy.HDF5Version(); !strings.HasPrefix(v, "1.14") {
		t.Skipf("needs HDF5 1.14's VOL connectors: this build loads HDF5 %s (run with HDF5=1.14)", v)
	}
	dir := testDir(t)
	for _, vol := range []string{"native", "pass_through"} {
		t.Run(vol, func(t *testing.T) {
			if vol != "native" {
				t.Setenv("HDF5_VOL_CONNECTOR", passThrough)
			}
			if mpitest.Run(t, 2) {
				return
			}
			size := world(t).Size()
			cfg := config(t, "DIM_1=4096;TIMESTEPS=2;COLLECTIVE_DATA=YES;verify=yes", fileOf(dir, "vol-"+vol, size))
			s := session(t, cfg)
			defer s.Close()
			if err := s.Run(); err != nil {
				t.Fatal(err)
			}
			rep, err := s.Report()
			if err != nil {
				t.Fatal(err)
			}
			c, err := h5.DefaultConnector()
			if err != nil {
				t.Fatal(err)
			}
			if rep.VOLConnector != vol || c.Name != vol || c.Native != (vol == "native") || !c.NativeFiles {
				t.Errorf("report's vol_connector %q, DefaultConnector %+v; want %s (native files)", rep.VOLConnector, c, vol)
			}
			for _, p := range rep.Phases {
				if !p.Verified && p.Phase == "read" {
					t.Errorf("read phase not verified under %s", vol)
				}
				if want := vol == "native"; (p.Census.CollectiveTransfers > 0) != want && p.Phase == "write" {
					t.Errorf("%s phase under %s: %v collective transfers in the census, want them counted only under native", p.Phase, vol, p.Census.CollectiveTransfers)
				}
			}
			if world(t).Rank() != 0 {
				return // one serial open: two would contend for HDF5's file lock
			}
			f, err := h5.OpenFile(cfg.File, h5.Access{})
			if err != nil {
				t.Fatal(err)
			}
			defer h5.CloseFile(f)
			_, err = h5.FileAccessInfo(f)
			var u *h5.Unavailable
			if vol == "native" && err != nil {
				t.Errorf("FileAccessInfo under native: %v", err)
			}
			if vol != "native" && (!errors.As(err, &u) || u.Connector != vol || !strings.Contains(err.Error(), "unavailable under pass_through")) {
				t.Errorf("FileAccessInfo under %s: err = %v, want unavailable under %s", vol, err, vol)
			}
		})
	}
	if t.Failed() || mpitest.Child() {
		return
	}
	if out, err := exec.Command("h5diff", "-r", fileOf(dir, "vol-native", 2), fileOf(dir, "vol-pass_through", 2)).CombinedOutput(); err != nil {
		t.Errorf("the files written under native and pass_through differ: %v\n%s", err, out)
	}
}
