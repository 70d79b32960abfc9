package benchmain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTempDir: no directory given, a new one that done removes; one given, made absolute
// and left alone.
func TestTempDir(t *testing.T) {
	d, done, err := TempDir("benchmain-test", "")
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(d); err != nil || !st.IsDir() || !strings.Contains(filepath.Base(d), "h5proxy-benchmain-test-") {
		t.Fatalf("TempDir made %q: %v", d, err)
	}
	done()
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Errorf("%s left after done: %v", d, err)
	}
	given := t.TempDir()
	t.Chdir(given)
	d, done, err = TempDir("benchmain-test", "rel")
	if err != nil || d != filepath.Join(given, "rel") {
		t.Errorf("TempDir(rel) = %q, %v; want %s", d, err, filepath.Join(given, "rel"))
	}
	if err := os.WriteFile(filepath.Join(given, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	done()
	if _, err := os.Stat(filepath.Join(given, "keep")); err != nil {
		t.Errorf("done removed a directory it did not make: %v", err)
	}
}

// TestReadReport: the phases' names and times of an h5proxy report; a report without
// phases, bad JSON and a missing file are errors naming the file.
func TestReadReport(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	r, err := ReadReport(write("ok.json", `{"phases":[{"phase":"write","observed_time":1.5,"raw_time":{"max":0.75,"min":0.5}},{"phase":"read","observed_time":2}]}`))
	if err != nil || len(r.Phases) != 2 || r.Phases[0].Phase != "write" || r.Phases[0].ObservedTime != 1.5 || r.Phases[0].RawTime.Max != 0.75 || r.Phases[1].ObservedTime != 2 {
		t.Errorf("ReadReport = %+v, %v", r, err)
	}
	for _, bad := range []string{write("none.json", `{"phases":[]}`), write("bad.json", `{"phases":`), filepath.Join(dir, "missing.json")} {
		if _, err := ReadReport(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ReadReport(%s): %v, want an error naming the file", filepath.Base(bad), err)
		}
	}
}

// TestLaunched: a command run directly (np 0) in a directory with extra variables gives
// its output and process state; a failure names the command line and holds the output.
func TestLaunched(t *testing.T) {
	dir := t.TempDir()
	out, st, err := Launched(0, dir, []string{"BENCHMAIN_TEST=yes"}, "sh", "-c", "pwd; echo $BENCHMAIN_TEST")
	if err != nil || st == nil || !st.Success() || string(out) != dir+"\nyes\n" {
		t.Errorf("Launched = %q, %v, %v", out, st, err)
	}
	out, st, err = Launched(0, "", nil, "sh", "-c", "echo broken; exit 3")
	if err == nil || st == nil || st.ExitCode() != 3 || !strings.Contains(err.Error(), "sh -c echo broken; exit 3") || !strings.Contains(err.Error(), "broken") || string(out) != "broken\n" {
		t.Errorf("a failing command: %q, %v, %v", out, st, err)
	}
}
