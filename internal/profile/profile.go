// Package profile reads the per-process records libh5proxy-profile.so writes (preload/,
// format in docs/profile.md), merges ranks into one profile with Darshan's counter names,
// prints Darshan-like summaries, writes JSON and CSV, draws access-size histograms and a
// per-rank timeline, and compares two profiles counter by counter.
//
//	procs, err := profile.ReadDir(dir)
//	p := profile.Merge(procs)
//	p.Summary(os.Stdout)
//	d := profile.Compare(a, b)
//
// It runs nothing: cmd/h5proxy launches the program under the library.
package profile

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// FormatVersion is the record format version this package reads (the "version" of the
// header line); a newer one is refused by name.
const FormatVersion = 1

// SchemaVersion is the version of the merged profile JSON that Profile marshals to.
const SchemaVersion = 1

// Header is the first line of a record file: who wrote it.
type Header struct {
	Format      string `json:"format"`
	Version     int    `json:"version"`
	Rank        int    `json:"rank"`
	Nprocs      int    `json:"nprocs"`
	MPI         bool   `json:"mpi"`
	PID         int    `json:"pid"`
	Forked      bool   `json:"forked"`
	Exe         string `json:"exe"`
	Cwd         string `json:"cwd"`
	HDF5Version string `json:"hdf5_version"`
	HDF5Built   string `json:"hdf5_built"`
	MPIVersion  string `json:"mpi_version"`
	// MPIThread is the thread level MPI provided the process (single, funneled,
	// serialized, multiple; "" before MPI_Init or from an older profiler).
	MPIThread    string `json:"mpi_thread,omitempty"`
	StartUnixNs  int64  `json:"start_unix_ns"`
	Trace        bool   `json:"trace"`
	MemAlignment int64  `json:"mem_alignment"`
}

// Record is one Darshan record: a file in the POSIX, MPIIO or H5F module, or a dataset
// (Name, its path in the file) in the H5D module. Rank is -1 for a record every rank
// shares (merged as Darshan reduces shared records). FCounters are in seconds; timestamps
// count from the job's start (the earliest rank's).
type Record struct {
	Module    string             `json:"module"`
	File      string             `json:"file"`
	Name      string             `json:"name,omitempty"`
	Rank      int                `json:"rank"`
	Counters  map[string]int64   `json:"counters"`
	FCounters map[string]float64 `json:"fcounters"`
	Info      json.RawMessage    `json:"info,omitempty"`
	// fileStep is 1 + the step of a file written one per step (capture's folding), 0 else.
	fileStep int
}

// Call is the count and total time (seconds) of one kind of intercepted call.
type Call struct {
	N    int64   `json:"n"`
	Time float64 `json:"time"`
}

// Event is one traced call (H5PROXY_PROFILE_TRACE=1, h5proxy profile -trace), like a
// Darshan DXT segment: Offset is -1 for calls without one; Start and End count seconds
// from the job's start.
type Event struct {
	Rank       int             `json:"rank"`
	Module     string          `json:"module"`
	Call       string          `json:"call"`
	File       string          `json:"file"`
	Name       string          `json:"name,omitempty"`
	Offset     int64           `json:"offset"`
	Length     int64           `json:"length"`
	Start      float64         `json:"start"`
	End        float64         `json:"end"`
	Collective bool            `json:"collective,omitempty"`
	Selection  json.RawMessage `json:"selection,omitempty"`
	// Attribute is what H5Acreate2, H5Awrite, H5Aopen and H5Aread events say of the
	// attribute: the object it hangs on, its name, file type, dims, and for H5Awrite and
	// H5Aread the memory type and small values (docs/profile.md's record format).
	Attribute json.RawMessage `json:"attribute,omitempty"`
	// Extent is the dataset's extent after an H5Dset_extent.
	Extent []int64 `json:"extent,omitempty"`
	// Object is the path of the group or object an H5Gcreate2, H5Gopen2, H5Gclose,
	// H5Oopen or H5Oclose event names, or of the link an H5Lcreate_hard, H5Lcreate_soft or
	// H5Lcreate_external event made.
	Object string `json:"object,omitempty"`
	// Target is what a link names: a hard link's object path, the path a soft or external
	// link stores; TargetFile an external link's file.
	Target     string `json:"target,omitempty"`
	TargetFile string `json:"target_file,omitempty"`
	// Ref is the bytes (hex) of the reference an H5Rcreate event made, whose Object is the
	// referenced object and Target that path, with [START:END,...] for a region reference
	// (the selection's bounding box; Box false when the selection is not that box whole).
	Ref string `json:"ref,omitempty"`
	Box *bool  `json:"box,omitempty"`
	// Refs is the bytes (hex) of the references an H5Dwrite of the 1.8 API's reference
	// memory types wrote from its whole memory space, when few (capture matches them with
	// the H5Rcreate events that made them: a dataset's value).
	Refs string `json:"refs,omitempty"`
	// FAPL is what an H5Fcreate or H5Fopen event's file access list asked for.
	FAPL *FAPL `json:"fapl,omitempty"`
	// CrtOrder is the creation order flags of an H5Fcreate's root group or an H5Gcreate2's
	// group: links, attributes (1 tracked, 2 indexed), when either is set.
	CrtOrder []int `json:"crt_order,omitempty"`
	// Untimed: an H5Fcreate's or H5Gcreate2's creation list turned the object times of
	// the root group or the group off (H5Pset_obj_track_times false).
	Untimed bool `json:"untimed,omitempty"`
	// fileStep is 1 + the step of a file written one per step (capture's folding), 0 else.
	fileStep int
}

// FAPL is the part of a file access list an H5Fcreate or H5Fopen event keeps: the
// driver ("mpio" or "other") and the collective metadata properties.
type FAPL struct {
	Driver    string `json:"driver"`
	CollOps   bool   `json:"coll_metadata_ops"`
	CollWrite bool   `json:"coll_metadata_write"`
}

// Process is one record file: one rank, or one process without MPI.
type Process struct {
	Header  Header
	Records []Record // Rank set to the process's rank, FCounters relative to its own start
	Calls   map[string]Call
	Events  []Event // relative to its own start
	Partial bool
	Reason  string
	EndNs   int64
	Dropped int64
	Path    string
}

// line is any line of a record file; Kind says which fields are set.
type line struct {
	Kind string `json:"kind"`
	Header
	Module      string              `json:"module"`
	File        string              `json:"file"`
	Name        string              `json:"name"`
	Counters    map[string]int64    `json:"counters"`
	FCountersNs map[string]int64    `json:"fcounters_ns"`
	Info        json.RawMessage     `json:"info"`
	Calls       map[string][2]int64 `json:"calls"`
	Call        string              `json:"call"`
	Offset      int64               `json:"offset"`
	Length      int64               `json:"length"`
	StartNs     int64               `json:"start_ns"`
	EndNs       int64               `json:"end_ns"`
	Collective  bool                `json:"collective"`
	Selection   json.RawMessage     `json:"selection"`
	Attribute   json.RawMessage     `json:"attribute"`
	Extent      []int64             `json:"extent"`
	Object      string              `json:"object"`
	Target      string              `json:"target"`
	TargetFile  string              `json:"target_file"`
	Ref         string              `json:"ref"`
	Refs        string              `json:"refs"`
	Box         *bool               `json:"box"`
	FAPL        *FAPL               `json:"fapl"`
	CrtOrder    []int               `json:"crt_order"`
	Untimed     bool                `json:"untimed"`
	Partial     bool                `json:"partial"`
	Reason      string              `json:"reason"`
	Dropped     int64               `json:"dropped_events"`
}

// ReadFile reads one record file. A file without its end line (the process died before
// the library could finish it) is returned marked partial.
func ReadFile(path string) (*Process, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := &Process{Path: path, Calls: map[string]Call{}, Partial: true, Reason: "no end line (the process was killed)"}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			if n == 1 {
				return nil, fmt.Errorf("%s: not an h5proxy profile record file: %v", path, err)
			}
			break // a truncated last line: what came before stands, marked partial
		}
		switch l.Kind {
		case "header":
			if l.Format != "h5proxy-profile" {
				return nil, fmt.Errorf("%s: format %q, want h5proxy-profile", path, l.Format)
			}
			if l.Version > FormatVersion {
				return nil, fmt.Errorf("%s: record format version %d is newer than this h5proxy reads (%d)", path, l.Version, FormatVersion)
			}
			p.Header = l.Header
		case "record":
			r := Record{Module: l.Module, File: l.File, Name: l.Name, Rank: p.Header.Rank,
				Counters: l.Counters, FCounters: map[string]float64{}, Info: l.Info}
			for k, v := range l.FCountersNs {
				r.FCounters[k] = float64(v) / 1e9
			}
			p.Records = append(p.Records, r)
		case "calls":
			for k, v := range l.Calls {
				p.Calls[k] = Call{N: v[0], Time: float64(v[1]) / 1e9}
			}
		case "event":
			p.Events = append(p.Events, Event{Rank: p.Header.Rank, Module: l.Module, Call: l.Call, File: l.File,
				Name: l.Name, Offset: l.Offset, Length: l.Length, Start: float64(l.StartNs) / 1e9,
				End: float64(l.EndNs) / 1e9, Collective: l.Collective, Selection: l.Selection,
				Attribute: l.Attribute, Extent: l.Extent, Object: l.Object, Target: l.Target, TargetFile: l.TargetFile, Ref: l.Ref, Refs: l.Refs, Box: l.Box, FAPL: l.FAPL,
				CrtOrder: l.CrtOrder, Untimed: l.Untimed})
		case "end":
			p.Partial, p.Reason, p.EndNs, p.Dropped = l.Partial, l.Reason, l.EndNs, l.Dropped
		}
		if n == 1 && l.Kind != "header" {
			return nil, fmt.Errorf("%s: first line is %q, want the header", path, l.Kind)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: empty record file", path)
	}
	return p, nil
}

// ReadDir reads every record file (h5proxy-profile.*.jsonl) in dir. The ranks of an MPI
// job are kept; processes without MPI count only when no MPI rank wrote (a non-MPI
// program), numbered from 0 by start time. It is an error when dir holds no record.
func ReadDir(dir string) ([]*Process, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "h5proxy-profile.*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no record file (h5proxy-profile.*.jsonl): the program wrote none (was libh5proxy-profile.so loaded, is the directory writable?)", dir)
	}
	var mpi, other []*Process
	for _, path := range paths {
		p, err := ReadFile(path)
		if err != nil {
			return nil, err
		}
		if p.Header.MPI && p.Header.Rank >= 0 && !p.Header.Forked {
			mpi = append(mpi, p)
		} else {
			other = append(other, p)
		}
	}
	procs := mpi
	if len(mpi) == 0 {
		// a program without MPI: its own processes, not the children it forked
		var own []*Process
		for _, p := range other {
			if !p.Header.Forked {
				own = append(own, p)
			}
		}
		if len(own) > 0 {
			other = own
		}
		slices.SortFunc(other, func(a, b *Process) int { return cmp.Compare(a.Header.StartUnixNs, b.Header.StartUnixNs) })
		for i, p := range other {
			p.Header.Rank = i
			for j := range p.Records {
				p.Records[j].Rank = i
			}
			for j := range p.Events {
				p.Events[j].Rank = i
			}
		}
		procs = other
	}
	slices.SortFunc(procs, func(a, b *Process) int { return cmp.Compare(a.Header.Rank, b.Header.Rank) })
	for i := 1; i < len(procs); i++ {
		if procs[i].Header.Rank == procs[i-1].Header.Rank {
			return nil, fmt.Errorf("%s and %s: two record files of rank %d (records of two runs in one directory?)", procs[i-1].Path, procs[i].Path, procs[i].Header.Rank)
		}
	}
	return procs, nil
}

// Profile is a job's merged profile: records shared by every rank reduced into one
// (Rank -1), the others kept per rank.
type Profile struct {
	SchemaVersion int      `json:"schema_version"`
	Command       []string `json:"command,omitempty"`
	Exe           string   `json:"exe"`
	Ranks         int      `json:"ranks"`
	HDF5Version   string   `json:"hdf5_version,omitempty"`
	MPIVersion    string   `json:"mpi_version,omitempty"`
	// MPIThread is rank 0's MPI thread level (Header.MPIThread).
	MPIThread     string            `json:"mpi_thread,omitempty"`
	Partial       bool              `json:"partial"`
	PartialRanks  []string          `json:"partial_ranks,omitempty"` // "rank N: reason"
	Traced        bool              `json:"traced"`
	DroppedEvents int64             `json:"dropped_events,omitempty"`
	Elapsed       float64           `json:"elapsed"` // seconds from the first rank's start to the last rank's end
	Records       []Record          `json:"records"`
	Calls         map[string]Call   `json:"calls"`
	RankCalls     []map[string]Call `json:"rank_calls"`
	Events        []Event           `json:"events,omitempty"`
	// RankRecords keeps every rank's own records (timestamps from the job's start), for the
	// timeline; not written to JSON (Records has them merged).
	RankRecords []Record `json:"-"`
}

// Modules lists Darshan's modules in the order summaries show them.
var Modules = []string{"POSIX", "MPIIO", "H5F", "H5D"}

// Merge combines the processes of one job. A record that every rank has is reduced as
// Darshan reduces shared records (sums; maxima for maximum offsets and sizes; first and
// last timestamps; the common access sizes recounted); other records stay per rank.
func Merge(procs []*Process) *Profile {
	p := &Profile{SchemaVersion: SchemaVersion, Ranks: len(procs), Calls: map[string]Call{}}
	if len(procs) == 0 {
		return p
	}
	t0, tEnd := procs[0].Header.StartUnixNs, int64(0)
	for _, pr := range procs {
		t0 = min(t0, pr.Header.StartUnixNs)
	}
	type key struct{ module, file, name string }
	byKey := map[key][]Record{}
	var order []key
	for _, pr := range procs {
		shift := float64(pr.Header.StartUnixNs-t0) / 1e9
		tEnd = max(tEnd, pr.Header.StartUnixNs-t0+pr.EndNs)
		if p.Exe == "" {
			p.Exe, p.HDF5Version, p.MPIVersion, p.MPIThread = pr.Header.Exe, pr.Header.HDF5Version, pr.Header.MPIVersion, pr.Header.MPIThread
		}
		if pr.Partial {
			p.Partial = true
			p.PartialRanks = append(p.PartialRanks, fmt.Sprintf("rank %d: %s", pr.Header.Rank, pr.Reason))
		}
		p.Traced = p.Traced || pr.Header.Trace
		p.DroppedEvents += pr.Dropped
		rc := map[string]Call{}
		for k, c := range pr.Calls {
			rc[k] = c
			t := p.Calls[k]
			p.Calls[k] = Call{N: t.N + c.N, Time: t.Time + c.Time}
		}
		p.RankCalls = append(p.RankCalls, rc)
		for _, r := range pr.Records {
			r = shiftRecord(r, shift)
			k := key{r.Module, r.File, r.Name}
			if _, ok := byKey[k]; !ok {
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], r)
			p.RankRecords = append(p.RankRecords, r)
		}
		for _, e := range pr.Events {
			e.Start += shift
			e.End += shift
			p.Events = append(p.Events, e)
		}
	}
	p.Elapsed = float64(tEnd) / 1e9
	for _, k := range order {
		rs := byKey[k]
		if len(rs) == len(procs) && len(procs) > 1 {
			p.Records = append(p.Records, reduce(rs))
		} else {
			p.Records = append(p.Records, rs...)
		}
	}
	slices.SortStableFunc(p.Records, func(a, b Record) int {
		return cmp.Or(cmp.Compare(slices.Index(Modules, a.Module), slices.Index(Modules, b.Module)),
			cmp.Compare(a.File, b.File), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Rank, b.Rank))
	})
	slices.SortStableFunc(p.Events, func(a, b Event) int {
		return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Start, b.Start))
	})
	return p
}

func shiftRecord(r Record, shift float64) Record {
	f := make(map[string]float64, len(r.FCounters))
	for k, v := range r.FCounters {
		if strings.HasSuffix(k, "_TIMESTAMP") && v != 0 {
			v += shift
		}
		f[k] = v
	}
	r.FCounters = f
	return r
}

// reduce merges one record's per-rank copies the way Darshan reduces a shared record
// (darshan-posix.c's, darshan-mpiio.c's and darshan-hdf5.c's record reduction ops).
func reduce(rs []Record) Record {
	out := Record{Module: rs[0].Module, File: rs[0].File, Name: rs[0].Name, Rank: -1, Info: rs[0].Info,
		Counters: map[string]int64{}, FCounters: map[string]float64{}}
	for _, r := range rs {
		for k, v := range r.Counters {
			switch {
			case isCommonValue(k):
				// reduced below
			case strings.Contains(k, "_MAX_BYTE_"), strings.HasSuffix(k, "_MODE"), strings.Contains(k, "ALIGNMENT"),
				strings.Contains(k, "DATASPACE_"), strings.Contains(k, "DATATYPE_SIZE"), strings.Contains(k, "CHUNK_SIZE"),
				strings.Contains(k, "USE_"):
				out.Counters[k] = max(out.Counters[k], v)
			case strings.Contains(k, "_MAX_") && strings.HasSuffix(k, "_TIME_SIZE"):
				// the size of the slowest call over ranks
				tk := strings.Replace(strings.Replace(k, "_MAX_", "_F_MAX_", 1), "_TIME_SIZE", "_TIME", 1)
				if r.FCounters[tk] >= out.FCounters[tk] {
					out.Counters[k] = v
				}
			default:
				out.Counters[k] += v
			}
		}
		for k, v := range r.FCounters {
			switch {
			case strings.Contains(k, "_START_TIMESTAMP"):
				if v != 0 && (out.FCounters[k] == 0 || v < out.FCounters[k]) {
					out.FCounters[k] = v
				}
			case strings.Contains(k, "_END_TIMESTAMP"), strings.Contains(k, "_F_MAX_"):
				out.FCounters[k] = max(out.FCounters[k], v)
			default:
				out.FCounters[k] += v
			}
		}
	}
	for _, cv := range commonCounters(out.Module) {
		if _, ok := rs[0].Counters[cv.prefix+"1_COUNT"]; !ok {
			continue // a profile without them (a module that does not keep them)
		}
		// Darshan reduces with MPI_Reduce to rank 0; Open MPI's reduction hands the
		// operation the lower rank's record as its input and the accumulated higher ranks'
		// as its in-out (TestReduceOrder): fold from the last rank down.
		acc := cv.of(rs[len(rs)-1])
		for i := len(rs) - 2; i >= 0; i-- {
			acc = reduceCommon(cv.of(rs[i]), acc, cv.add)
		}
		cv.set(&out, acc)
	}
	return out
}

// isCommonValue reports whether counter k is one of the four common access (or stride)
// values or counts, which reduce reduces as Darshan does instead of summing.
func isCommonValue(k string) bool {
	for _, p := range []string{"_ACCESS1_", "_ACCESS2_", "_ACCESS3_", "_ACCESS4_", "_STRIDE1_", "_STRIDE2_", "_STRIDE3_", "_STRIDE4_"} {
		if strings.Contains(k, p) {
			return true
		}
	}
	return false
}

// commonSet is a record's four common values as Darshan keeps them, most frequent first:
// each value's keys (one, or H5D's access size, lengths and strides) and its count.
type commonSet struct {
	vals [4][]int64
	cnts [4]int64
}

// commonCounter names one set of common values of a module: counters PREFIXn_SUFFIX and
// PREFIXn_COUNT; add is the reduction's add flag (H5D's reduction passes 0).
type commonCounter struct {
	prefix   string
	suffixes []string
	add      bool
}

// commonCounters lists the sets of common values each module keeps.
func commonCounters(module string) []commonCounter {
	switch module {
	case "POSIX":
		return []commonCounter{{"POSIX_STRIDE", []string{"STRIDE"}, true}, {"POSIX_ACCESS", []string{"ACCESS"}, true}}
	case "MPIIO":
		return []commonCounter{{"MPIIO_ACCESS", []string{"ACCESS"}, true}}
	case "H5D":
		return []commonCounter{{"H5D_ACCESS", accessSuffixes("H5D"), false}}
	}
	return nil
}

func (c commonCounter) of(r Record) commonSet {
	var s commonSet
	for i := range 4 {
		s.vals[i] = make([]int64, len(c.suffixes))
		for j, suf := range c.suffixes {
			s.vals[i][j] = r.Counters[fmt.Sprintf("%s%d_%s", c.prefix, i+1, suf)]
		}
		s.cnts[i] = r.Counters[fmt.Sprintf("%s%d_COUNT", c.prefix, i+1)]
	}
	return s
}

func (c commonCounter) set(r *Record, s commonSet) {
	for i := range 4 {
		for j, suf := range c.suffixes {
			var v int64
			if s.vals[i] != nil {
				v = s.vals[i][j]
			}
			r.Counters[fmt.Sprintf("%s%d_%s", c.prefix, i+1, suf)] = v
		}
		r.Counters[fmt.Sprintf("%s%d_COUNT", c.prefix, i+1)] = s.cnts[i]
	}
}

// place puts value v, seen n times, among s's four as DARSHAN_UPDATE_COMMON_VAL_COUNTERS
// does (darshan-common.h): with add, n adds to v's count where s has v; the order is by
// count, ties by the larger first key, and a value tied on both goes before the ones it
// ties with; a value that would come fifth is left out, a zero first key never enters.
func (s *commonSet) place(v []int64, n int64, add bool) {
	if len(v) == 0 || v[0] == 0 {
		return
	}
	total := n
	if add {
		for i := range 4 {
			if slices.Equal(s.vals[i], v) {
				total += s.cnts[i]
				break
			}
		}
	}
	var out commonSet
	t, i := 0, 0
	for ; i < 4; i++ {
		if s.cnts[i] > total || (s.cnts[i] == total && s.vals[i] != nil && s.vals[i][0] > v[0]) {
			out.vals[t], out.cnts[t] = s.vals[i], s.cnts[i]
			t++
		} else {
			break
		}
	}
	if t == 4 {
		return
	}
	out.vals[t], out.cnts[t] = slices.Clone(v), total
	t++
	for ; t < 4 && i < 4; i++ {
		if !slices.Equal(s.vals[i], v) {
			out.vals[t], out.cnts[t] = s.vals[i], s.cnts[i]
			t++
		}
	}
	*s = out
}

// reduceCommon is the common values' part of Darshan's reduction of two copies of a
// shared record, in and inout: values both hold are collapsed into in's, then in's four and
// inout's four are placed in turn into an empty set.
func reduceCommon(in, inout commonSet, add bool) commonSet {
	for j := range 4 {
		for k := range 4 {
			if slices.Equal(in.vals[j], inout.vals[k]) {
				in.cnts[j] += inout.cnts[k]
				inout.vals[k] = make([]int64, len(inout.vals[k]))
				inout.cnts[k] = 0
			}
		}
	}
	var out commonSet
	for j := range 4 {
		out.place(in.vals[j], in.cnts[j], add)
	}
	for j := range 4 {
		out.place(inout.vals[j], inout.cnts[j], add)
	}
	return out
}

func accessSuffixes(module string) []string {
	if module != "H5D" {
		return []string{"ACCESS"}
	}
	s := []string{"ACCESS"}
	for _, w := range []string{"LENGTH", "STRIDE"} {
		for d := 1; d <= 5; d++ {
			s = append(s, fmt.Sprintf("%s_D%d", w, d))
		}
	}
	return s
}

// Load reads a merged profile written by WriteJSON.
func Load(path string) (*Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Profile
	if err := decodeProfile(b, &p); err != nil {
		return nil, fmt.Errorf("%s: not an h5proxy profile: %v", path, err)
	}
	if p.SchemaVersion == 0 {
		return nil, fmt.Errorf("%s: not an h5proxy profile (no schema_version)", path)
	}
	if p.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("%s: profile schema_version %d is newer than this h5proxy reads (%d)", path, p.SchemaVersion, SchemaVersion)
	}
	return &p, nil
}

// HDF5Calls counts the traced events that are HDF5 API calls (H5*), as a trace's size is
// stated (bench/capture, TestFold100k: "a trace of 10^5 calls").
func (p *Profile) HDF5Calls() int {
	n := 0
	for _, e := range p.Events {
		if strings.HasPrefix(e.Call, "H5") {
			n++
		}
	}
	return n
}

// WriteJSON writes p as indented JSON to path.
func (p *Profile) WriteJSON(path string) error {
	b, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// WriteCSV writes one row per counter: module, file, name, rank (-1 shared), counter,
// value (F counters in seconds).
func (p *Profile) WriteCSV(path string) error {
	var b strings.Builder
	b.WriteString("module,file,name,rank,counter,value\n")
	for _, r := range p.Records {
		for _, k := range sortedKeys(r.Counters) {
			fmt.Fprintf(&b, "%s,%s,%s,%d,%s,%d\n", r.Module, csvQuote(r.File), csvQuote(r.Name), r.Rank, k, r.Counters[k])
		}
		for _, k := range sortedKeys(r.FCounters) {
			fmt.Fprintf(&b, "%s,%s,%s,%d,%s,%g\n", r.Module, csvQuote(r.File), csvQuote(r.Name), r.Rank, k, r.FCounters[k])
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func csvQuote(s string) string {
	if strings.ContainsAny(s, ",\"\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Find returns the record of module, file (an exact path, or a base name when only one
// file has it) and dataset name at rank (-1: the shared record), or an error naming them.
func (p *Profile) Find(module, file, name string, rank int) (Record, error) {
	var found []Record
	for _, r := range p.Records {
		if r.Module == module && r.Name == name && r.Rank == rank && (r.File == file || filepath.Base(r.File) == file) {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return Record{}, fmt.Errorf("no %s record of %s %s at rank %d", module, file, name, rank)
	}
	return Record{}, errors.New("several records match " + file)
}
