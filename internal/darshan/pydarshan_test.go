package darshan

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pyDarshan finds a Python that imports PyDarshan: $PYDARSHAN/bin/python, or
// /opt/h5proxy/pydarshan/bin/python (`make pydarshan`), with darshan-util's library on
// LD_LIBRARY_PATH. The test is skipped, naming PyDarshan, where there is none (CI).
func pyDarshan(t *testing.T) (python string, env []string) {
	t.Helper()
	lib := filepath.Dir(filepath.Dir(darshanTool(t, "darshan-parser"))) + "/lib"
	env = append(os.Environ(), "LD_LIBRARY_PATH="+lib, "MPLBACKEND=Agg")
	for _, dir := range []string{os.Getenv("PYDARSHAN"), "/opt/h5proxy/pydarshan"} {
		p := filepath.Join(dir, "bin", "python")
		if dir == "" || !fileExists(p) {
			continue
		}
		cmd := exec.Command(p, "-c", "import darshan.backend.cffi_backend")
		cmd.Env = env
		if cmd.Run() == nil {
			return p, env
		}
	}
	t.Skip("PyDarshan is not installed: make pydarshan installs it from Darshan's source tree into /opt/h5proxy/pydarshan (or set PYDARSHAN to a venv that has it)")
	return "", nil
}

// pyRead is the script TestPyDarshan runs: every counter of the POSIX, MPI-IO, H5F and H5D
// records and every DXT segment as DarshanReport (what PyDarshan's summary, DXT Explorer
// and Drishti read logs through) gives them, as JSON.
const pyRead = `
import json, sys, darshan
r = darshan.DarshanReport(sys.argv[1], read_all=True)
out = {"counters": {}, "dxt": {}}
for mod in ["POSIX", "MPI-IO", "H5F", "H5D"]:
    if mod not in r.records:
        continue
    c = r.records[mod].to_df()["counters"]
    ranks, ids = c["rank"].tolist(), c["id"].tolist()
    for k in c.columns[2:]:
        for rank, rid, v in zip(ranks, ids, c[k].tolist()):
            out["counters"]["%s %d %d %s" % (mod, rank, rid, k)] = int(v)
for mod in ["DXT_POSIX", "DXT_MPIIO"]:
    if mod not in r.records:
        continue
    for rec in r.records[mod].to_df():
        for kind in ["write", "read"]:
            s = rec[kind + "_segments"]
            if len(s):
                out["dxt"]["%s %d %d %s" % (mod, rec["rank"], rec["id"], kind)] = [[int(o), int(n)] for o, n in zip(s["offset"].tolist(), s["length"].tolist())]
json.dump(out, sys.stdout)
`

// TestPyDarshan: a log h5proxy writes (profile -darshan: the traced profile of bench/ref's
// VPIC write in testdata/h5proxy-vpic) opens in PyDarshan 3.5: DarshanReport reads every
// counter and DXT segment as written, and `python -m darshan summary` renders its job
// summary with the DXT heat maps.
func TestPyDarshan(t *testing.T) {
	python, env := pyDarshan(t)
	l, log := writtenLog(t, vpicProfile(t), "h5proxy.darshan")
	dir := filepath.Dir(log)

	cmd := exec.Command(python, "-c", pyRead, log)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("PyDarshan's DarshanReport: %v\n%s", err, stderrOf(err))
	}
	var got struct {
		Counters map[string]int64
		DXT      map[string][][2]int64
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %.500s", err, out)
	}
	n := 0
	for _, r := range l.Records {
		if r.Module.Name == "STDIO" {
			continue
		}
		for i, c := range r.Module.Counters {
			k := fmt.Sprintf("%s %d %d %s", r.Module.Name, r.Rank, r.ID, c)
			if v, ok := got.Counters[k]; !ok || v != r.Counters[i] {
				t.Errorf("%s: PyDarshan %d (present %v), written %d", k, v, ok, r.Counters[i])
			}
			n++
		}
	}
	if n == 0 || n != len(got.Counters) {
		t.Errorf("%d counters written, PyDarshan read %d", n, len(got.Counters))
	}
	segs := 0
	for _, d := range l.DXT {
		for kind, ss := range map[string][]Segment{"write": d.Writes, "read": d.Reads} {
			k := fmt.Sprintf("%s %d %d %s", d.Module.Name, d.Rank, d.ID, kind)
			if len(ss) != len(got.DXT[k]) {
				t.Errorf("%s: %d segments written, PyDarshan read %d", k, len(ss), len(got.DXT[k]))
				continue
			}
			for i, s := range ss {
				if g := got.DXT[k][i]; g[0] != s.Offset || g[1] != s.Length {
					t.Errorf("%s segment %d: PyDarshan offset %d length %d, written %d %d", k, i, g[0], g[1], s.Offset, s.Length)
				}
			}
			segs += len(ss)
		}
	}
	if segs == 0 {
		t.Error("the log has no DXT segment: the fixture is traced")
	}

	html := filepath.Join(dir, "summary.html")
	cmd = exec.Command(python, "-m", "darshan", "summary", "--enable_dxt_heatmap", "--output", html, log)
	cmd.Env, cmd.Dir = env, dir
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Report generated successfully") {
		t.Fatalf("python -m darshan summary: %v\n%s", err, out)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"Per-Module Statistics: POSIX", "Per-Module Statistics: MPI-IO", "Per-Module Statistics: HDF5", "alt=Heat Map: DXT_POSIX", "alt=Heat Map: DXT_MPIIO"} {
		if !strings.Contains(page, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
}

// stderrOf returns what a failed command printed on stderr.
func stderrOf(err error) string {
	if e, ok := err.(*exec.ExitError); ok {
		return string(e.Stderr)
	}
	return ""
}
