package main

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
)

// rankErrors filters the launched ranks' stderr on its way to the user's: every rank
// reports a shared failure (a bad directory, a missing input file) in the same words, and
// OpenMPI then adds its termination notices. Each distinct "h5proxy: ..." line and each
// distinct warning or error log line (compared without time and rank) is passed once, so
// errors that differ between ranks all reach the user and an error common to all of them
// appears once; OpenMPI's "Primary job terminated normally" and "mpirun detected that one
// or more processes exited with non-zero status" notices are dropped, as the command
// reports the failed run itself. Every other line passes unchanged, as it comes.
type rankErrors struct {
	mu      sync.Mutex
	out     io.Writer
	partial []byte          // an incomplete last line
	seen    map[string]bool // keys of the lines passed once
	held    []byte          // a dashed rule line that may open an OpenMPI notice
	drop    bool            // inside a dropped notice, up to its closing rule
	lost    []string        // the ranks the launcher reported dead, as lostRank words them
}

// lostRankLine is OpenMPI's notice of a rank that died (killed, crashed): "mpirun noticed
// that process rank 1 with PID 42 on node n1 exited on signal 9 (Killed)."
var lostRankLine = regexp.MustCompile(`process rank (\d+) with PID \d+ on node (\S+) exited on signal (\d+)(?: \(([^)]*)\))?`)

// Lost names the ranks the launcher reported dead, e.g. "rank 1 on node n1 (signal 9,
// Killed)", in the order reported.
func (w *rankErrors) Lost() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.lost...)
}

func newRankErrors(out io.Writer) *rankErrors {
	return &rankErrors{out: out, seen: map[string]bool{}}
}

// logLine matches zerolog's console warning and error lines: time, level, message.
var logLine = regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d{3} (WRN|ERR|FTL) `)

// rankField is the rank field of a log line.
var rankField = regexp.MustCompile(` rank=\d+`)

// dropped starts the OpenMPI notices that only repeat that the run failed.
var dropped = []string{"Primary job  terminated normally", "Primary job terminated normally",
	"mpirun detected that one or more processes exited with non-zero status"}

func (w *rankErrors) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := w.partial[:i+1]
		if err := w.line(line); err != nil {
			return len(p), err
		}
		w.partial = w.partial[i+1:]
	}
}

// Flush passes what is held: an unterminated last line, a rule not followed by a notice.
func (w *rankErrors) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	held, rest := w.held, w.partial
	w.held, w.partial = nil, nil
	if _, err := w.out.Write(held); err != nil {
		return err
	}
	_, err := w.out.Write(rest)
	return err
}

func isRule(s string) bool {
	return len(s) >= 20 && strings.Trim(s, "-") == ""
}

func (w *rankErrors) line(b []byte) error {
	s := strings.TrimRight(string(b), "\r\n")
	switch {
	case w.drop:
		w.drop = !isRule(s)
		return nil
	case w.held != nil:
		held := w.held
		w.held = nil
		for _, d := range dropped {
			if strings.HasPrefix(s, d) {
				w.drop = true
				return nil
			}
		}
		if _, err := w.out.Write(held); err != nil {
			return err
		}
	}
	if isRule(s) {
		w.held = append([]byte(nil), b...)
		return nil
	}
	if m := lostRankLine.FindStringSubmatch(s); m != nil {
		lost := "rank " + m[1] + " on node " + m[2] + " (signal " + m[3]
		if m[4] != "" {
			lost += ", " + m[4]
		}
		w.lost = append(w.lost, lost+")")
	}
	key := ""
	switch {
	case strings.HasPrefix(s, "h5proxy: "):
		key = s
	case logLine.MatchString(s):
		key = rankField.ReplaceAllString(s[len("15:04:05.000 "):], "")
	}
	if key != "" {
		if w.seen[key] {
			return nil
		}
		w.seen[key] = true
	}
	_, err := w.out.Write(b)
	return err
}
