// Command testtime reads `go test -json` on its standard input, prints what plain
// `go test` would print, and ends with where the time went: the slowest tests and each
// package's time. `make test` pipes its Go steps through it, so that a CI log shows which
// tests to look at when the run nears its 40-minute rule (docs/testing.md).
//
//	go test -json -count=1 ./... | go run ./internal/testtime [-n 15]
//
// A passing package prints its "ok" line only, as plain `go test` does; a failing package
// prints its own output and the whole output of every test that did not pass (its log,
// its subtests', a panic's goroutine dump), in the order the tests wrote it. Lines that
// are not JSON (go's own messages) pass through. The exit status is 1 when a package,
// test or build failed, or when the stream was not go test's.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is one record of `go test -json` (cmd/test2json's TestEvent, and the build
// events go test adds).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string
	Test       string
	Elapsed    float64
	Output     string
}

// pkgState is what is kept of one package until it ends: its output events in order
// (held back until the package's result decides what is printed) and each test's result.
type pkgState struct {
	lines  []event
	result map[string]string // test name -> pass, fail or skip
}

// timing is one test's or package's elapsed time.
type timing struct {
	name    string
	elapsed float64
	result  string
}

// summary accumulates the run's results while the stream is read.
type summary struct {
	out      io.Writer
	pkgs     map[string]*pkgState
	tests    []timing // top-level tests
	packages []timing
	failed   bool
	first    time.Time
	last     time.Time
}

func newSummary(out io.Writer) *summary {
	return &summary{out: out, pkgs: map[string]*pkgState{}}
}

// line handles one line of the stream.
func (s *summary) line(text string) {
	var e event
	if !strings.HasPrefix(text, "{") || json.Unmarshal([]byte(text), &e) != nil {
		// go's own messages (a build error printed before JSON, "FAIL" of a setup step).
		fmt.Fprintln(s.out, text)
		if strings.HasPrefix(text, "FAIL") {
			s.failed = true
		}
		return
	}
	if !e.Time.IsZero() {
		if s.first.IsZero() {
			s.first = e.Time
		}
		s.last = e.Time
	}
	switch e.Action {
	case "build-output":
		fmt.Fprint(s.out, e.Output)
		return
	case "build-fail":
		s.failed = true
		return
	}
	p := s.pkgs[e.Package]
	if p == nil {
		p = &pkgState{result: map[string]string{}}
		s.pkgs[e.Package] = p
	}
	switch e.Action {
	case "output":
		p.lines = append(p.lines, e)
	case "pass", "fail", "skip":
		if e.Test != "" {
			p.result[e.Test] = e.Action
			if !strings.Contains(e.Test, "/") {
				s.tests = append(s.tests, timing{e.Package + " " + e.Test, e.Elapsed, e.Action})
			}
			return
		}
		s.endPackage(e, p)
	}
}

// endPackage prints a package's output as plain go test would and forgets the package.
func (s *summary) endPackage(e event, p *pkgState) {
	delete(s.pkgs, e.Package)
	if e.Action == "fail" {
		s.failed = true
		s.printFailed(p)
	} else {
		for _, l := range p.lines {
			if l.Test == "" && (strings.HasPrefix(l.Output, "ok") || strings.HasPrefix(l.Output, "?")) {
				fmt.Fprint(s.out, l.Output)
			}
		}
	}
	if e.Action != "skip" { // a package without tests
		s.packages = append(s.packages, timing{e.Package, e.Elapsed, e.Action})
	}
}

// printFailed prints a failed package's own output and the whole output of each test that
// did not pass or skip (a failed test, or one still running when the package died). The
// "=== RUN" and "=== NAME" lines of -json's verbose stream stay: they say which test the
// log lines after them belong to.
func (s *summary) printFailed(p *pkgState) {
	for _, l := range p.lines {
		if r := p.result[l.Test]; l.Test != "" && (r == "pass" || r == "skip") {
			continue
		}
		fmt.Fprint(s.out, l.Output)
	}
}

// finish prints the packages that never ended (go test killed, the stream cut) whole, then
// the time table.
func (s *summary) finish(n int) {
	var open []string
	for name := range s.pkgs {
		open = append(open, name)
	}
	sort.Strings(open)
	for _, name := range open {
		s.failed = true
		fmt.Fprintf(s.out, "testtime: %s did not finish; its output:\n", name)
		s.printFailed(s.pkgs[name])
	}
	byTime := func(ts []timing) {
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].elapsed > ts[j].elapsed })
	}
	byTime(s.tests)
	byTime(s.packages)
	wall := s.last.Sub(s.first).Seconds()
	fmt.Fprintf(s.out, "\ntesttime: the %d slowest of %d tests (wall seconds, subtests included; %.0f s from the first event to the last):\n",
		min(n, len(s.tests)), len(s.tests), wall)
	for _, t := range s.tests[:min(n, len(s.tests))] {
		fmt.Fprintf(s.out, "%8.1f  %s%s\n", t.elapsed, t.name, mark(t.result))
	}
	var sum float64
	for _, p := range s.packages {
		sum += p.elapsed
	}
	fmt.Fprintf(s.out, "testtime: the %d slowest of %d packages (%.0f s in all; go test runs several at once):\n",
		min(n, len(s.packages)), len(s.packages), sum)
	for _, p := range s.packages[:min(n, len(s.packages))] {
		fmt.Fprintf(s.out, "%8.1f  %s%s\n", p.elapsed, p.name, mark(p.result))
	}
}

// mark flags a result that is not a pass in the tables.
func mark(result string) string {
	if result == "pass" {
		return ""
	}
	return " (" + result + ")"
}

func main() {
	n := flag.Int("n", 15, "how many of the slowest tests to print")
	flag.Parse()
	os.Exit(run(os.Stdin, os.Stdout, *n))
}

// run reads the stream from in, writes the report to out (unbuffered: a CI log shows each
// package as it ends) and returns the exit status.
func run(in io.Reader, out io.Writer, n int) int {
	s := newSummary(out)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		s.line(sc.Text())
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "testtime: reading the stream:", err)
		s.failed = true
	}
	s.finish(n)
	if s.failed {
		return 1
	}
	return 0
}
