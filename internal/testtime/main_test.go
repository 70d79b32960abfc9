package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// module is a small module whose tests pass, fail, log and take time, so that the tool is
// tested on a stream go test really writes.
var module = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.22\n",
	"good/good_test.go": `package good

import (
	"testing"
	"time"
)

func TestQuiet(t *testing.T) { t.Log("quiet-log") }

func TestSlow(t *testing.T) { time.Sleep(600 * time.Millisecond) }
`,
	"bad/bad_test.go": `package bad

import "testing"

func TestPasses(t *testing.T) { t.Log("passing-log") }

func TestFails(t *testing.T) {
	t.Log("failing-log line 1\nline 2")
	t.Run("ok", func(t *testing.T) { t.Log("sub-ok-log") })
	t.Run("broken", func(t *testing.T) { t.Error("sub-broken-error") })
}
`,
	"nothing/doc.go": "package nothing\n",
}

// goTestJSON runs go test -json on the module in a new directory and returns its stream.
func goTestJSON(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	for name, text := range module {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "test", "-json", "-count=1", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	out, err := cmd.Output()
	if _, ok := err.(*exec.ExitError); !ok && err != nil {
		t.Fatalf("go test -json: %v", err)
	}
	if err == nil {
		t.Fatalf("go test -json passed on a module with a failing test:\n%s", out)
	}
	return out
}

// TestReport runs the tool on a real stream: a passing package prints its ok line only, the
// failing package prints the failing test's whole log (subtests included) and none of the
// passing tests' output, the exit status is 1, and the time tables rank the slow test and
// its package first.
func TestReport(t *testing.T) {
	stream := goTestJSON(t)
	var out bytes.Buffer
	if got := run(bytes.NewReader(stream), &out, 15); got != 1 {
		t.Errorf("exit status %d, want 1 (a test failed)", got)
	}
	s := out.String()
	for _, want := range []string{
		"ok  \texample.com/m/good\t",
		"--- FAIL: TestFails",
		"failing-log line 1", "line 2",
		"--- FAIL: TestFails/broken", "sub-broken-error",
		"FAIL\texample.com/m/bad",
		"=== RUN   TestFails\n",
		"testtime: the 4 slowest of 4 tests",
		"testtime: the 2 slowest of 2 packages",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	head, _, _ := strings.Cut(s, "\ntesttime:")
	for _, unwanted := range []string{"quiet-log", "passing-log", "sub-ok-log", "TestQuiet", "=== RUN   TestPasses", "=== RUN   TestSlow"} {
		if strings.Contains(head, unwanted) {
			t.Errorf("output has %q, a passing test's output, which plain go test does not print:\n%s", unwanted, s)
		}
	}
	// The slowest line names TestSlow with its elapsed time (at least the 0.6 s it sleeps).
	m := regexp.MustCompile(`slowest of 4 tests[^\n]*\n +([0-9.]+)  example.com/m/good TestSlow\n`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("TestSlow is not first among the slowest:\n%s", s)
	}
	if secs, err := strconv.ParseFloat(m[1], 64); err != nil || secs < 0.6 {
		t.Errorf("TestSlow took %s s, it sleeps 0.6 s", m[1])
	}
	if !regexp.MustCompile(`\n +[0-9.]+  example.com/m/bad TestFails \(fail\)\n`).MatchString(s) {
		t.Errorf("the failing test is not in the table marked (fail):\n%s", s)
	}
	if !regexp.MustCompile(`slowest of 2 packages[^\n]*\n +[0-9.]+  example.com/m/good\n +[0-9.]+  example.com/m/bad \(fail\)\n`).MatchString(s) {
		t.Errorf("the package table is not good, then bad marked (fail):\n%s", s)
	}
}

// TestPassingRun: the passing packages alone give exit status 0 and print only their ok
// lines before the table.
func TestPassingRun(t *testing.T) {
	stream := goTestJSON(t)
	var kept []string
	for _, l := range strings.Split(string(stream), "\n") {
		if l != "" && !strings.Contains(l, `"Package":"example.com/m/bad"`) {
			kept = append(kept, l)
		}
	}
	var out bytes.Buffer
	if got := run(strings.NewReader(strings.Join(kept, "\n")), &out, 15); got != 0 {
		t.Errorf("exit status %d, want 0:\n%s", got, out.String())
	}
	head, _, _ := strings.Cut(out.String(), "\ntesttime:")
	for _, l := range strings.Split(strings.TrimSpace(head), "\n") {
		if !strings.HasPrefix(l, "ok  \t") && !strings.HasPrefix(l, "?   \t") {
			t.Errorf("a passing run printed %q before the table", l)
		}
	}
}

// TestCutStream: a stream that ends inside a package (go test killed) prints that
// package's output whole and fails; a line that is not JSON passes through.
func TestCutStream(t *testing.T) {
	stream := strings.Join([]string{
		`go: downloading nothing`,
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestHang"}`,
		`{"Action":"output","Package":"p","Test":"TestHang","Output":"=== RUN   TestHang\n"}`,
		`{"Action":"output","Package":"p","Test":"TestHang","Output":"hang-log\n"}`,
	}, "\n")
	var out bytes.Buffer
	if got := run(strings.NewReader(stream), &out, 15); got != 1 {
		t.Errorf("exit status %d, want 1", got)
	}
	s := out.String()
	for _, want := range []string{"go: downloading nothing\n", "testtime: p did not finish", "hang-log\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}
