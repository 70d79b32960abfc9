package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// ProfileOptions adds to a profile's page what the profile does not hold.
type ProfileOptions struct {
	// Command is the command line that made the profile (shown as code); empty: the
	// profile's own recorded command.
	Command string
	// Run is the JSON report of the h5proxy run that was profiled (h5proxy run --report),
	// whose phases' census the page shows; nil for any other program.
	Run *RunReport
	// Source names where the profile came from ("h5proxy profile", "Darshan log X").
	Source string
}

// RunReport is the part of an h5proxy run's JSON report (h5proxy run --report) a page
// shows: the run's set-up and each phase's census. It is read from the JSON so the
// report package stays free of the proxy's cgo.
type RunReport struct {
	HDF5Version   string        `json:"hdf5_version"`
	MPIVersion    string        `json:"mpi_version"`
	Ranks         int           `json:"ranks"`
	Pattern       string        `json:"pattern"`
	ModeEffective string        `json:"mode_effective"`
	Layout        string        `json:"layout"`
	Phases        []PhaseCensus `json:"phases"`
}

// PhaseCensus is one phase of a run report with its census.
type PhaseCensus struct {
	Phase  string `json:"phase"`
	File   string `json:"file"`
	Census struct {
		Calls []struct {
			Call     string  `json:"call"`
			Count    float64 `json:"count"`
			MaxCount float64 `json:"max_count"`
			Bytes    float64 `json:"bytes"`
		} `json:"calls"`
		CollectiveTransfers float64            `json:"collective_transfers"`
		IOModes             map[string]float64 `json:"io_modes"`
		BrokenBy            map[string]float64 `json:"broken_by"`
	} `json:"census"`
}

// LoadRunReport reads an h5proxy run's JSON report; a file that is not one is an error
// naming it.
func LoadRunReport(path string) (*RunReport, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r struct {
		RunReport
		Schema int    `json:"schema_version"`
		Ver    string `json:"h5proxy_version"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Ver == "" || r.Schema == 0 {
		return nil, fmt.Errorf("%s: not an h5proxy run report (h5proxy run --report FILE)", path)
	}
	return &r.RunReport, nil
}

// timelineKinds are the timeline's colours by activity, as the text profile's plot.
var timelineKinds = []string{"read", "write", "metadata"}

// ProfilePage builds the page of one profile: the job, each module's counters with
// Darshan's names, access-size histograms, a table per file and per dataset, a per-rank
// timeline (every traced call, or each record's first to last access), the time per kind
// of call and, for an h5proxy run, each phase's census.
func ProfilePage(p *profile.Profile, opt ProfileOptions) *Page {
	title := "I/O profile: " + filepath.Base(p.Exe)
	pg := NewPage(title)
	pg.Section("Job")
	facts := [][2]string{{"program", p.Exe}, {"ranks", fmt.Sprint(p.Ranks)}, {"elapsed", fmt.Sprintf("%.3f s", p.Elapsed)}}
	if p.HDF5Version != "" {
		facts = append(facts, [2]string{"HDF5", p.HDF5Version})
	}
	if p.MPIVersion != "" {
		facts = append(facts, [2]string{"MPI", p.MPIVersion})
	}
	if opt.Source != "" {
		facts = append(facts, [2]string{"source", opt.Source})
	}
	tr := "no (counters only)"
	if p.Traced {
		tr = fmt.Sprintf("yes, %d calls", len(p.Events))
		if p.DroppedEvents > 0 {
			tr += fmt.Sprintf(" (%d more not kept)", p.DroppedEvents)
		}
	}
	facts = append(facts, [2]string{"traced", tr})
	pg.Facts(facts)
	cmd := opt.Command
	if cmd == "" && len(p.Command) > 0 {
		cmd = strings.Join(p.Command, " ")
	}
	if cmd != "" {
		pg.Command(cmd)
	}
	if p.Partial {
		pg.Verdict("Partial profile: "+strings.Join(p.PartialRanks, "; "), false)
	}

	pg.Section("Modules")
	pg.BeginRow()
	for _, m := range profile.Modules {
		c, f, n := p.Totals(m)
		if n == 0 {
			pg.Para(m + ": no records.")
			continue
		}
		var rows [][]Cell
		for _, k := range profile.SummaryCounters(m) {
			rows = append(rows, []Cell{Str(k), Int(c[k])})
		}
		for _, k := range profile.TimeCounters(m) {
			rows = append(rows, []Cell{Str(k), Float("%.6f s", f[k])})
		}
		pg.Table(fmt.Sprintf("%s: %d record(s), totals", m, n), []string{"counter", "value"}, rows, 0)
	}
	pg.EndRow()

	pg.Section("Access sizes")
	var series []Series
	for _, m := range []string{"POSIX", "MPIIO", "H5D"} {
		c, _, n := p.Totals(m)
		if n == 0 {
			continue
		}
		for _, write := range []bool{false, true} {
			s := Series{Name: m + map[bool]string{false: " reads", true: " writes"}[write]}
			any := false
			for _, b := range profile.BinLabels {
				v := float64(c[profile.BinCounter(m, write, b)])
				s.Values = append(s.Values, v)
				any = any || v > 0
			}
			if any {
				series = append(series, s)
			}
		}
	}
	if len(series) == 0 {
		pg.Para("No reads or writes recorded.")
	} else {
		pg.Figure("Calls per Darshan access-size bin (bytes), all ranks; MPI-IO and H5D bins count aggregate sizes as Darshan's do.",
			BarChart("Access sizes", profile.BinLabels, series, "calls"))
	}

	pg.Section("Files and datasets")
	var files, sets [][]Cell
	for _, r := range p.Records {
		row := recordRow(r)
		if r.Module == "H5D" {
			sets = append(sets, row)
		} else {
			files = append(files, row)
		}
	}
	head := []string{"module", "rank", "file", "opens", "reads", "writes", "bytes read", "bytes written"}
	pg.Table("Per file (rank -1: a record every rank shares)", head, files, 40)
	if len(sets) > 0 {
		head[2] = "dataset"
		pg.Table("Per dataset (H5D)", head, sets, 40)
	}

	pg.Section("Timeline")
	spans := profileSpans(p)
	if len(spans) == 0 {
		pg.Para("No timestamps to draw.")
	} else {
		what := "each record's first to last open, read and write (no trace: h5proxy profile -trace draws every call)"
		if len(p.Events) > 0 {
			what = fmt.Sprintf("every traced call (%d), bars merged where they touch at 1/%d of the run", len(p.Events), timelineColumns)
		}
		pg.Figure("I/O per rank over time: "+what+".",
			Timeline("I/O per rank over time", "rank", max(p.Ranks, 1), timelineKinds, spans, "seconds from the job's start"))
	}

	if len(p.Calls) > 0 {
		pg.Section("Calls")
		var rows [][]Cell
		keys := make([]string, 0, len(p.Calls))
		for k := range p.Calls {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			c := p.Calls[k]
			rows = append(rows, []Cell{Str(k), Int(c.N), Float("%.6f s", c.Time)})
		}
		pg.Table("Time per kind of call, all ranks", []string{"call", "count", "time"}, rows, 60)
	}
	if opt.Run != nil {
		censusSection(pg, opt.Run)
	}
	return pg
}

// recordRow is a record's line of the per-file and per-dataset tables.
func recordRow(r profile.Record) []Cell {
	name := r.File
	if r.Name != "" {
		name += ":" + r.Name
	}
	m := r.Module
	opens := r.Counters[m+"_OPENS"]
	reads, writes := r.Counters[m+"_READS"], r.Counters[m+"_WRITES"]
	if m == "MPIIO" {
		opens = r.Counters["MPIIO_INDEP_OPENS"] + r.Counters["MPIIO_COLL_OPENS"]
		for _, k := range []string{"INDEP", "COLL", "SPLIT", "NB"} {
			reads += r.Counters["MPIIO_"+k+"_READS"]
			writes += r.Counters["MPIIO_"+k+"_WRITES"]
		}
	}
	return []Cell{Str(m), Int(int64(r.Rank)), Str(name), Int(opens), Int(reads), Int(writes),
		Int(r.Counters[m+"_BYTES_READ"]), Int(r.Counters[m+"_BYTES_WRITTEN"])}
}

// profileSpans are the timeline's bars: the traced calls when there are any (a call that
// moves bytes is a read or a write, any other metadata), else each per-rank record's
// read, write and open intervals.
func profileSpans(p *profile.Profile) []Span {
	var out []Span
	if len(p.Events) > 0 {
		for _, e := range p.Events {
			k := 2
			if e.Length > 0 {
				k = 1
				if profile.IsRead(e.Call) {
					k = 0
				}
			}
			out = append(out, Span{Row: e.Rank, Kind: k, Start: e.Start, End: e.End})
		}
		return out
	}
	recs := p.RankRecords
	if len(recs) == 0 {
		recs = p.Records
	}
	for _, r := range recs {
		if r.Rank < 0 {
			continue
		}
		m := r.Module
		for k, what := range []string{"READ", "WRITE", "OPEN"} {
			t0, t1 := r.FCounters[m+"_F_"+what+"_START_TIMESTAMP"], r.FCounters[m+"_F_"+what+"_END_TIMESTAMP"]
			if t1 > 0 {
				out = append(out, Span{Row: r.Rank, Kind: k, Start: t0, End: t1})
			}
		}
	}
	return out
}

// censusSection shows each phase's census of an h5proxy run: its HDF5 calls and how its
// collective transfers went.
func censusSection(pg *Page, r *RunReport) {
	pg.Section("Census of the h5proxy run")
	pg.Facts([][2]string{{"pattern", r.Pattern}, {"mode", r.ModeEffective}, {"layout", r.Layout}, {"ranks", fmt.Sprint(r.Ranks)}})
	for _, ph := range r.Phases {
		var rows [][]Cell
		for _, c := range ph.Census.Calls {
			rows = append(rows, []Cell{Str(c.Call), Int(int64(c.Count)), Int(int64(c.MaxCount)), Int(int64(c.Bytes))})
		}
		pg.Table(fmt.Sprintf("Phase %s (%s): HDF5 calls", ph.Phase, ph.File), []string{"call", "count (all ranks)", "most of one rank", "bytes"}, rows, 40)
		if ph.Census.CollectiveTransfers > 0 || len(ph.Census.IOModes) > 0 {
			var mrows [][]Cell
			for _, k := range sortedMapKeys(ph.Census.IOModes) {
				mrows = append(mrows, []Cell{Str("I/O mode " + k), Int(int64(ph.Census.IOModes[k]))})
			}
			for _, k := range sortedMapKeys(ph.Census.BrokenBy) {
				mrows = append(mrows, []Cell{Str("not collective: " + k), Int(int64(ph.Census.BrokenBy[k]))})
			}
			mrows = append([][]Cell{{Str("collective transfers"), Int(int64(ph.Census.CollectiveTransfers))}}, mrows...)
			pg.Table(fmt.Sprintf("Phase %s: collective I/O", ph.Phase), []string{"what", "transfers"}, mrows, 0)
		}
	}
}

func sortedMapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
