package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/h5proxy/h5proxy/internal/profile"
	"github.com/h5proxy/h5proxy/internal/report"
	"github.com/h5proxy/h5proxy/internal/sweep"
)

// sweepCommandFile is where a sweep keeps the command line that made it, beside
// sweep.csv, for the study's page.
const sweepCommandFile = "command.txt"

// cmdReport writes one self-contained HTML page of a profile, of two profiles compared,
// or of a parameter study.
func cmdReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", `report [-o OUT.html] [-run RUN-REPORT.json] PROFILE.json|LOG.darshan
       h5proxy report [-o OUT.html] -compare REAL.json|.darshan PROXY.json|.darshan
       h5proxy report [-o OUT.html] [-metric M,...] SWEEP-DIR|sweep.csv

One HTML page, self-contained (inline SVG, no script, no network): a profile's modules,
access sizes, files, datasets and per-rank timeline (with the census of an h5proxy run
given by -run); two profiles side by side with the differing counters marked; or a
study's figures and table with the command that made it.`, stderr)
	out := fs.String("o", "", "the page (default: the input's name with .html)")
	runReport := fs.String("run", "", "the JSON report of the profiled h5proxy run (h5proxy run --report FILE): its census goes on the page")
	compare := fs.Bool("compare", false, "compare two profiles: REAL.json PROXY.json")
	metrics := fs.String("metric", "", "a study's metrics to draw, comma-separated (default: its h5bench rates and times)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *compare {
		if fs.NArg() != 2 {
			return usageError{error: fmt.Errorf("-compare needs two profiles (REAL.json PROXY.json), got %d arguments", fs.NArg())}
		}
		a, _, err := loadAnyProfile(fs.Arg(0))
		if err != nil {
			return usageError{error: err}
		}
		b, _, err := loadAnyProfile(fs.Arg(1))
		if err != nil {
			return usageError{error: err}
		}
		pg := report.ComparePage(report.Comparison{Real: a, Proxy: b, Diff: profile.Compare(a, b),
			Command: "h5proxy report -compare " + fs.Arg(0) + " " + fs.Arg(1)})
		return writePage(stdout, pg, pageName(*out, fs.Arg(0), "-compare"))
	}
	if fs.NArg() != 1 {
		return usageError{error: fmt.Errorf("need one input (a profile .json, or a study's directory or sweep.csv), got %d arguments", fs.NArg())}
	}
	in := fs.Arg(0)
	if st, err := os.Stat(in); err != nil {
		return usageError{error: err}
	} else if st.IsDir() || strings.HasSuffix(in, ".csv") {
		if *runReport != "" {
			return usageError{error: fmt.Errorf("-run %s goes with a profile, not a study", *runReport)}
		}
		csvPath, dir := in, filepath.Dir(in)
		if st.IsDir() {
			csvPath, dir = filepath.Join(in, "sweep.csv"), in
		}
		var ms []string
		if *metrics != "" {
			ms = strings.Split(*metrics, ",")
		}
		pg, err := studyPage(csvPath, dir, ms)
		if err != nil {
			return err
		}
		return writePage(stdout, pg, pageName(*out, strings.TrimSuffix(csvPath, ".csv"), ""))
	}
	if *metrics != "" {
		return usageError{error: errors.New("-metric goes with a study (a directory or sweep.csv)")}
	}
	p, log, err := loadAnyProfile(in)
	if err != nil {
		return usageError{error: fmt.Errorf("%w (report reads an h5proxy profile .json, a Darshan log, a study's directory or sweep.csv)", err)}
	}
	opt := report.ProfileOptions{Source: in}
	if log != nil {
		opt.Source = "Darshan log " + in
	}
	if *runReport != "" {
		r, err := report.LoadRunReport(*runReport)
		if err != nil {
			return usageError{error: err}
		}
		opt.Run = r
	}
	return writePage(stdout, report.ProfilePage(p, opt), pageName(*out, in, ""))
}

// studyPage reads a study's sweep.csv (and the command beside it, if the sweep kept one)
// into its page.
func studyPage(csvPath, dir string, metrics []string) (*report.Page, error) {
	f, err := os.Open(csvPath)
	if err != nil {
		return nil, usageError{error: err}
	}
	axes, rows, err := sweep.ReadCSV(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", csvPath, err)
	}
	cmd := ""
	if b, err := os.ReadFile(filepath.Join(dir, sweepCommandFile)); err == nil {
		cmd = strings.TrimSpace(string(b))
	}
	pg, err := report.SweepPage(axes, rows, report.SweepOptions{Metrics: metrics, Command: cmd, Title: "Parameter study: " + filepath.Base(filepath.Clean(dir))})
	if err != nil {
		return nil, usageError{error: err}
	}
	return pg, nil
}

// pageName is -o, or the input's name with its extension replaced by suffix + ".html".
func pageName(out, in, suffix string) string {
	if out != "" {
		return out
	}
	return strings.TrimSuffix(in, filepath.Ext(in)) + suffix + ".html"
}

// writePage writes the page and names it.
func writePage(stdout io.Writer, pg *report.Page, path string) error {
	if err := pg.WriteFile(path); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Wrote %s\n", path)
	return nil
}
