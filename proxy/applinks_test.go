package proxy_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/proxy"
)

// TestAppLinks runs testdata/apps/links.yaml (hard, soft and external links of an
// H5MD-style trajectory) at 2 ranks on the native layout (sync and async), the subfiling
// layout and the subfiling VFD where built: every value read back and verified, the census
// counting one H5Lcreate_hard, H5Lcreate_soft and H5Lcreate_external per rank; the
// parent reads each file with h5dump -H and finds the three links with their targets.
// The log layout refuses the description, naming the link.
func TestAppLinks(t *testing.T) {
	dir := testDir(t)
	desc := filepath.Join(dir, "links.yaml")
	layouts := []string{"native-sync", "native-async", "subfiling-sync"}
	if proxy.LayoutAvailable("subfiling-vfd") == nil {
		layouts = append(layouts, "subfiling-vfd-sync")
	}
	if mpitest.Run(t, 2) {
		if _, err := exec.LookPath("h5dump"); err != nil {
			t.Fatalf("h5dump (Debian's hdf5-tools, installed by scripts/deps.sh) is needed to read the files back: %v", err)
		}
		for _, name := range layouts {
			out, err := exec.Command("h5dump", "-H", filepath.Join(dir, name, "traj.h5")).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: h5dump -H: %v\n%s", name, err, out)
			}
			dump := strings.Join(strings.Fields(string(out)), " ")
			for _, want := range []string{
				`EXTERNAL_LINK "mesh" { TARGETFILE "mesh.h5" TARGETPATH "/grid" }`,
				`SOFTLINK "latest" { LINKTARGET "/particles/all/position/value" }`,
				`DATASET "step" { HARDLINK "/particles/all/position/step" }`,
			} {
				if !strings.Contains(dump, want) {
					t.Errorf("%s: traj.h5 lacks %s:\n%s", name, want, out)
				}
			}
		}
		return
	}
	sharedCopy(t, "testdata/apps/links.yaml", desc)
	for _, name := range layouts {
		i := strings.LastIndex(name, "-") // LAYOUT-MODE
		layout, mode := name[:i], name[i+1:]
		sub := filepath.Join(dir, name)
		sharedDir(t, sub)
		rep := runReport(t, patternConfig(t, "app", "description="+desc+";layout="+layout+";mode="+mode, filepath.Join(sub, "run.h5")), name)
		if len(rep.Phases) != 2 {
			t.Fatalf("%s: phases %+v", name, rep.Phases)
		}
		if r := rep.Phases[1]; !r.Verified || r.Mismatches != 0 {
			t.Errorf("%s: restart read verified %v, mismatches %v", name, r.Verified, r.Mismatches)
		}
		for _, call := range []string{"H5Lcreate_hard", "H5Lcreate_soft", "H5Lcreate_external"} {
			if got := callCount(rep.Phases[0].Census, call).Count; got != 2 {
				t.Errorf("%s: census %s %v on 2 ranks, want 2", name, call, got)
			}
		}
	}
	sub := filepath.Join(dir, "log")
	sharedDir(t, sub)
	s := session(t, patternConfig(t, "app", "description="+desc+";layout=log", filepath.Join(sub, "run.h5")))
	err := s.Run()
	s.Close()
	if err == nil || !strings.Contains(err.Error(), "the log layout keeps no links") || !strings.Contains(err.Error(), "/mesh") {
		t.Errorf("log layout: error %v, want the refusal of link /mesh", err)
	}
}
