package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/h5proxy/h5proxy/internal/darshan"
	"github.com/h5proxy/h5proxy/internal/profile"
)

// loadAnyProfile reads an h5proxy profile (JSON) or a Darshan log (told by its magic
// number), the latter converted into the profile's in-memory form; log is nil for a
// profile.
func loadAnyProfile(path string) (p *profile.Profile, log *darshan.Log, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	f.Close()
	if !darshan.IsLog(head[:n]) {
		p, err := profile.Load(path)
		return p, nil, err
	}
	log, err = darshan.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return log.ToProfile(), log, nil
}

// cmdProfileShow prints the summary of a profile or a Darshan log.
func cmdProfileShow(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("profile show", "profile show PROFILE.json|LOG.darshan", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{error: fmt.Errorf("need one profile or Darshan log, got %d arguments", fs.NArg())}
	}
	p, log, err := loadAnyProfile(fs.Arg(0))
	if err != nil {
		return usageError{error: err}
	}
	if log != nil {
		fmt.Fprintln(stdout, log.String())
		if len(log.Skipped) > 0 {
			fmt.Fprintf(stdout, "Modules not read: %v\n", log.Skipped)
		}
	}
	p.Summary(stdout)
	return nil
}

// writeDarshanLog writes profile p as a Darshan 3.5 log at path; the job started at the
// earliest rank's start.
func writeDarshanLog(p *profile.Profile, procs []*profile.Process, path string) error {
	start := time.Now().Add(-time.Duration(p.Elapsed * float64(time.Second)))
	if len(procs) > 0 {
		t0 := procs[0].Header.StartUnixNs
		for _, pr := range procs {
			t0 = min(t0, pr.Header.StartUnixNs)
		}
		start = time.Unix(0, t0)
	}
	l, err := darshan.FromProfile(p, start)
	if err != nil {
		return err
	}
	if err := l.WriteFile(path); err != nil {
		return fmt.Errorf("-darshan %s: %w", path, err)
	}
	return nil
}

// errNotDarshan is returned when -darshan names a file that does not end in .darshan.
var errNotDarshan = errors.New("name the Darshan log NAME.darshan")

// onlyFile keeps the records of the file whose base name is name.
func onlyFile(rs []profile.Record, name string) []profile.Record {
	var out []profile.Record
	for _, r := range rs {
		if filepath.Base(r.File) == name {
			out = append(out, r)
		}
	}
	return out
}

// captureDarshan folds a Darshan log into a description at out (capture -from
// LOG.darshan): what the log cannot tell is listed on stderr and marked # guess:.
func captureDarshan(log *darshan.Log, name, out string, stdout, stderr io.Writer) error {
	if name == "" {
		name = filepath.Base(strings.Fields(log.Exe + " darshan")[0])
	}
	c, err := log.Capture(name)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, []byte(c.YAML), 0o644); err != nil {
		return err
	}
	for _, g := range c.Guesses {
		fmt.Fprintf(stderr, "h5proxy capture: guess: %s\n", g)
	}
	fmt.Fprintf(stdout, "Wrote %s (from a Darshan log: %d guesses, each a # guess: comment)\n", out, len(c.Guesses))
	return nil
}
