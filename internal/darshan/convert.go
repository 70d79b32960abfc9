package darshan

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// profileModule is the profile package's name of a Darshan module: Darshan's MPI-IO
// module is MPIIO there (its counters' prefix); the others keep their names.
func profileModule(m *Module) string {
	if m.Name == "MPI-IO" {
		return "MPIIO"
	}
	return m.Name
}

// startUnix is the job's start in seconds since the epoch.
func (l *Log) startUnix() float64 {
	return float64(l.Job.StartSec) + float64(l.Job.StartNsec)/1e9
}

// Elapsed is the job's run time in seconds (end minus start, as darshan-parser's
// run time).
func (l *Log) Elapsed() float64 {
	return float64(l.Job.EndSec-l.Job.StartSec) + float64(l.Job.EndNsec-l.Job.StartNsec)/1e9
}

// Metadata returns the job metadata's value of key (lib_ver, h, ...): its lines are
// key=value.
func (l *Log) Metadata(key string) string {
	for _, ln := range strings.Split(l.Job.Metadata, "\n") {
		if k, v, ok := strings.Cut(ln, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// RecordName returns the file and, for an H5D record, the dataset a record names: an
// H5D record's name is its file's path, ':' and the dataset's path in the file.
func (l *Log) RecordName(r *Record) (file, dataset string) {
	name := l.Names[r.ID]
	if !r.Module.FileID {
		return name, ""
	}
	file = l.Names[r.FileID]
	if file != "" && strings.HasPrefix(name, file+":") {
		return file, name[len(file)+1:]
	}
	if i := strings.LastIndex(name, ":"); i >= 0 {
		return name[:i], name[i+1:]
	}
	return file, name
}

// ToProfile converts the log into h5proxy's merged profile: a record per Darshan record
// (every counter under Darshan's name but those it marks -1, not monitored; MPI-IO as MPIIO; timestamps and times in seconds
// from the job's start, as Darshan keeps them), and with DXT the traced reads and writes
// as events (DXT tells offsets, sizes and times, not which call made them: POSIX events
// are named pread and pwrite, MPI-IO ones MPI_File_read_at and MPI_File_write_at).
func (l *Log) ToProfile() *profile.Profile {
	p := &profile.Profile{SchemaVersion: profile.SchemaVersion, Exe: l.Exe, Ranks: int(l.Job.Nprocs),
		Elapsed: l.Elapsed(), Calls: map[string]profile.Call{}}
	if exe, _, _ := strings.Cut(l.Exe, " "); exe != "" {
		p.Command = strings.Fields(l.Exe)
	}
	if v := l.Metadata("lib_ver"); v != "" {
		p.MPIVersion = "Darshan " + v
	}
	if len(l.PartialModules) > 0 {
		p.Partial = true
		p.PartialRanks = []string{"Darshan ran out of record memory in " + strings.Join(l.PartialModules, ", ")}
	}
	for _, r := range l.Records {
		file, ds := l.RecordName(r)
		pr := profile.Record{Module: profileModule(r.Module), File: file, Name: ds, Rank: int(r.Rank),
			Counters: map[string]int64{}, FCounters: map[string]float64{}}
		for i, n := range r.Module.Counters {
			if r.Counters[i] == -1 && !strings.Contains(n, "_RANK") {
				continue // Darshan's "could not monitor this counter": no value to show or compare
			}
			pr.Counters[n] = r.Counters[i]
		}
		for i, n := range r.Module.FCounters {
			pr.FCounters[n] = r.FCounters[i]
		}
		p.Records = append(p.Records, pr)
	}
	for _, d := range l.DXT {
		p.Traced = true
		mod, rd, wr := "POSIX", "pread", "pwrite"
		if d.Module.Name == "DXT_MPIIO" {
			mod, rd, wr = "MPIIO", "MPI_File_read_at", "MPI_File_write_at"
		}
		for _, s := range d.Writes {
			p.Events = append(p.Events, profile.Event{Rank: int(d.Rank), Module: mod, Call: wr, File: l.Names[d.ID],
				Offset: s.Offset, Length: s.Length, Start: s.Start, End: s.End})
		}
		for _, s := range d.Reads {
			p.Events = append(p.Events, profile.Event{Rank: int(d.Rank), Module: mod, Call: rd, File: l.Names[d.ID],
				Offset: s.Offset, Length: s.Length, Start: s.Start, End: s.End})
		}
	}
	slices.SortStableFunc(p.Events, func(a, b profile.Event) int {
		if a.Rank != b.Rank {
			return a.Rank - b.Rank
		}
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	return p
}

// String is a one-line description of the log: version, job, modules and record counts.
func (l *Log) String() string {
	n := map[string]int{}
	for _, r := range l.Records {
		n[r.Module.Name]++
	}
	for _, d := range l.DXT {
		n[d.Module.Name]++
	}
	var parts []string
	for _, m := range Modules {
		if n[m.Name] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", m.Name, n[m.Name]))
		}
	}
	return fmt.Sprintf("Darshan log %s, %d process(es), %.3f s: %s", l.Version, l.Job.Nprocs, l.Elapsed(), strings.Join(parts, ", "))
}

// H5DPathForm is the name Darshan 3.5 gives the dataset at path when it was created or
// opened relative to a group: the group's path and the dataset's name joined without a
// separator (/Timestep_0/x is /Timestep_0x), since its runtime appends the name to the
// location's H5Iget_name. A dataset in the root group keeps its path.
func H5DPathForm(path string) string {
	i := strings.LastIndex(path, "/")
	if i <= 0 {
		return path
	}
	return path[:i] + path[i+1:]
}

// AlignDatasetNames renames the H5D records of p (converted from a Darshan log) to the
// dataset paths other (an h5proxy profile) has for them, where Darshan's name is
// H5DPathForm of exactly one of other's datasets of the same file base name, so the two
// compare dataset by dataset. It returns how many it renamed.
func AlignDatasetNames(p, other *profile.Profile) int {
	byForm := map[string][]string{}
	for _, r := range other.Records {
		if r.Module == "H5D" {
			k := filepath.Base(r.File) + "\x00" + H5DPathForm(r.Name)
			if !slices.Contains(byForm[k], r.Name) {
				byForm[k] = append(byForm[k], r.Name)
			}
		}
	}
	n := 0
	for i, r := range p.Records {
		if r.Module != "H5D" {
			continue
		}
		if names := byForm[filepath.Base(r.File)+"\x00"+r.Name]; len(names) == 1 && names[0] != r.Name {
			p.Records[i].Name = names[0]
			n++
		}
	}
	return n
}
