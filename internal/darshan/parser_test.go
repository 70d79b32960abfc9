package darshan

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// darshanTool finds a darshan-util program: $DARSHAN/bin, /opt/h5proxy/darshan/bin
// (make darshan), or PATH.
func darshanTool(t *testing.T, name string) string {
	for _, dir := range []string{os.Getenv("DARSHAN") + "/bin", "/opt/h5proxy/darshan/bin"} {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	t.Skipf("%s (Darshan 3.5's darshan-util) is not installed: make darshan builds it into /opt/h5proxy/darshan", name)
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestDarshanParserReadsWritten writes a profile as a Darshan log and reads it with the
// real darshan-parser and darshan-dxt-parser: the same job, exe, counters and segments.
func TestDarshanParserReadsWritten(t *testing.T) {
	parser, dxt := darshanTool(t, "darshan-parser"), darshanTool(t, "darshan-dxt-parser")
	l, path := writtenLog(t, sampleProfile(), "w.darshan")
	dir := filepath.Dir(path)
	out, err := exec.Command(parser, path).CombinedOutput()
	if err != nil {
		t.Fatalf("darshan-parser: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "w.parser.txt"), out, 0o644)
	want, header, mounts := parserCounters(t, filepath.Join(dir, "w.parser.txt"))
	if header["exe"] != "/bin/app -n 2" || header["nprocs"] != "2" || header["run time"] != "1.2500" ||
		!strings.Contains(string(out), "# metadata: lib_ver = "+Writer+"\n") || len(mounts) == 0 {
		t.Errorf("darshan-parser's header %v, mounts %q", header, mounts)
	}
	n := 0
	for _, r := range l.Records {
		for i, c := range r.Module.Counters {
			k := fmt.Sprintf("%s %d %d %s", r.Module.Name, r.Rank, r.ID, c)
			if v, _, _ := strings.Cut(want[k], "\t"); v != fmt.Sprint(r.Counters[i]) {
				t.Errorf("%s: darshan-parser %q, written %d", k, v, r.Counters[i])
			}
			n++
		}
	}
	if n == 0 || n > len(want) {
		t.Errorf("%d counters written, darshan-parser printed %d lines", n, len(want))
	}
	out, err = exec.Command(dxt, path).CombinedOutput()
	if err != nil {
		t.Fatalf("darshan-dxt-parser: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "w.dxt.txt"), out, 0o644)
	checkDXT(t, l, filepath.Join(dir, "w.dxt.txt"))
}

// writtenLog writes p as a Darshan log named name in a new temporary directory and
// returns the log and its path.
func writtenLog(t *testing.T, p *profile.Profile, name string) (*Log, string) {
	t.Helper()
	l, err := FromProfile(p, start)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := l.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return l, path
}
