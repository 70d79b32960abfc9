package profile

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Compared reports whether counter k takes part in a comparison: every counter except
// those that depend on timing (the size of the slowest call) and the F counters.
func Compared(k string) bool {
	return !strings.HasSuffix(k, "_TIME_SIZE") && !strings.Contains(k, "FASTEST") && !strings.Contains(k, "SLOWEST")
}

// CounterDiff is one counter of one record in two profiles.
type CounterDiff struct {
	Module, File, Name string
	Rank               int
	Counter            string
	A, B               int64
}

// SequenceDiff is where one rank's traced calls first differ.
type SequenceDiff struct {
	Rank  int
	Index int    // position in the rank's call sequence
	A, B  string // the calls there ("" past the end)
	LenA  int
	LenB  int
}

// Diff is two profiles side by side.
type Diff struct {
	Equal     []CounterDiff // compared counters with equal values
	Differ    []CounterDiff
	OnlyA     []string // records only the first profile has ("module file name rank")
	OnlyB     []string
	Sequences []SequenceDiff // per rank, where both are traced
	Traced    bool
}

// Identical reports whether nothing differs.
func (d *Diff) Identical() bool {
	return len(d.Differ) == 0 && len(d.OnlyA) == 0 && len(d.OnlyB) == 0 && len(d.Sequences) == 0
}

// Verdict is the one-line conclusion.
func (d *Diff) Verdict() string {
	if d.Identical() {
		return fmt.Sprintf("identical: %d counters equal", len(d.Equal))
	}
	parts := []string{fmt.Sprintf("differs in %d counters", len(d.Differ))}
	if n := len(d.OnlyA) + len(d.OnlyB); n > 0 {
		parts = append(parts, fmt.Sprintf("%d records in one profile only", n))
	}
	if len(d.Sequences) > 0 {
		parts = append(parts, fmt.Sprintf("call sequences differ on %d rank(s)", len(d.Sequences)))
	}
	return strings.Join(parts, ", ")
}

// fileKeys names each record's file by its base name, or by its whole path where two
// files of the profile share a base name: programs that write the same files into
// different directories compare file by file.
func fileKeys(p *Profile) map[string]string {
	paths := map[string][]string{}
	for _, r := range p.Records {
		b := SharedFPKey(filepath.Base(r.File))
		if !slices.Contains(paths[b], r.File) {
			paths[b] = append(paths[b], r.File)
		}
	}
	keys := map[string]string{}
	for b, ps := range paths {
		for _, path := range ps {
			if len(ps) == 1 {
				keys[path] = b
			} else {
				keys[path] = path
			}
		}
	}
	return keys
}

// ompioSharedFP matches the name of the file Open MPI's OMPIO makes for a shared file
// pointer at every MPI_File_open (sharedfp/sm: FILE_cid-CID-PID.sm in the session
// directory): the communicator's context id and a process id, which differ from run to run
// (and by one under Darshan, which duplicates MPI_COMM_WORLD). MPI_COMM_SELF's (cid -1) end
// in the rank instead and are kept.
var ompioSharedFP = regexp.MustCompile(`_cid-[0-9]+-[0-9]+\.sm$`)

// SharedFPKey is a base name to match records by: an OMPIO shared-file-pointer file's
// without its context and process ids, so that two runs' files of one open match; any
// other name unchanged.
func SharedFPKey(base string) string { return ompioSharedFP.ReplaceAllString(base, "_cid-C-PID.sm") }

// Compare puts a and b side by side: each record (matched by module, file, dataset and
// rank) counter by counter, and each rank's traced call sequence.
func Compare(a, b *Profile) *Diff { return CompareRenamed(a, b, nil) }

// CompareRenamed is Compare with a's file names rewritten first: each OLD=NEW of rename
// replaces OLD by NEW in the base names of a's files (two programs that name their files
// differently: ref-e3sm-f_h0.h5 and proxy-e3sm-f_h0.h5 with rename ref-=proxy-).
func CompareRenamed(a, b *Profile, rename []string) *Diff {
	d := &Diff{}
	ka, kb := fileKeys(a), fileKeys(b)
	for path, k := range ka {
		for _, r := range rename {
			old, new, _ := strings.Cut(r, "=")
			k = strings.ReplaceAll(k, old, new)
		}
		ka[path] = k
	}
	id := func(r Record, keys map[string]string) string {
		return fmt.Sprintf("%s %s %s %d", r.Module, keys[r.File], r.Name, r.Rank)
	}
	bs := map[string]Record{}
	for _, r := range b.Records {
		bs[id(r, kb)] = r
	}
	seen := map[string]bool{}
	for _, ra := range a.Records {
		k := id(ra, ka)
		rb, ok := bs[k]
		if !ok {
			d.OnlyA = append(d.OnlyA, k)
			continue
		}
		seen[k] = true
		for _, c := range unionKeys(ra.Counters, rb.Counters) {
			if !Compared(c) {
				continue
			}
			cd := CounterDiff{ra.Module, ka[ra.File], ra.Name, ra.Rank, c, ra.Counters[c], rb.Counters[c]}
			if cd.A == cd.B {
				d.Equal = append(d.Equal, cd)
			} else {
				d.Differ = append(d.Differ, cd)
			}
		}
	}
	for _, r := range b.Records {
		if k := id(r, kb); !seen[k] {
			d.OnlyB = append(d.OnlyB, k)
		}
	}
	if a.Traced && b.Traced {
		d.Traced = true
		d.Sequences = compareSequences(a, b, ka, kb)
	}
	return d
}

func unionKeys(a, b map[string]int64) []string {
	keys := sortedKeys(a)
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// step names a traced call for sequence comparison: module, call, file key, dataset and
// size (times and, for POSIX, nothing else: offsets are compared through the counters).
func step(e Event, keys map[string]string) string {
	s := fmt.Sprintf("%s %s %s", e.Module, e.Call, keys[e.File])
	if e.Name != "" {
		s += ":" + e.Name
	}
	if e.Length != 0 {
		s += fmt.Sprintf(" %d B", e.Length)
	}
	if e.Offset >= 0 && e.Module != "H5D" && e.Module != "H5F" {
		s += fmt.Sprintf(" @%d", e.Offset)
	}
	if e.Collective {
		s += " collective"
	}
	return s
}

func compareSequences(a, b *Profile, ka, kb map[string]string) []SequenceDiff {
	seqs := func(p *Profile, keys map[string]string) map[int][]string {
		m := map[int][]string{}
		for _, e := range p.Events {
			m[e.Rank] = append(m[e.Rank], step(e, keys))
		}
		return m
	}
	sa, sb := seqs(a, ka), seqs(b, kb)
	var out []SequenceDiff
	for r := 0; r < max(a.Ranks, b.Ranks); r++ {
		x, y := sa[r], sb[r]
		n := min(len(x), len(y))
		i := 0
		for i < n && x[i] == y[i] {
			i++
		}
		if i == n && len(x) == len(y) {
			continue
		}
		sd := SequenceDiff{Rank: r, Index: i, LenA: len(x), LenB: len(y)}
		if i < len(x) {
			sd.A = x[i]
		}
		if i < len(y) {
			sd.B = y[i]
		}
		out = append(out, sd)
	}
	return out
}

// Print writes the comparison: per module and file, each compared counter marked = or
// ≠ (all when verbose, else only the differing ones and a count of the equal), the
// records one side lacks, the first difference of each rank's call sequence, and the
// verdict last.
func (d *Diff) Print(w io.Writer, verbose bool) {
	rows := append(append([]CounterDiff(nil), d.Differ...), d.Equal...)
	if !verbose {
		rows = d.Differ
	}
	slices.SortStableFunc(rows, func(x, y CounterDiff) int {
		return strings.Compare(fmt.Sprint(slices.Index(Modules, x.Module), x.File, x.Name, x.Rank, x.Counter),
			fmt.Sprint(slices.Index(Modules, y.Module), y.File, y.Name, y.Rank, y.Counter))
	})
	last := ""
	for _, c := range rows {
		rec := fmt.Sprintf("%s %s", c.Module, c.File)
		if c.Name != "" {
			rec += ":" + c.Name
		}
		if c.Rank >= 0 {
			rec += fmt.Sprintf(" (rank %d)", c.Rank)
		}
		if rec != last {
			fmt.Fprintln(w, rec)
			last = rec
		}
		mark := "="
		if c.A != c.B {
			mark = "≠"
		}
		fmt.Fprintf(w, "  %s %-36s %d  %d\n", mark, c.Counter, c.A, c.B)
	}
	if !verbose && len(d.Equal) > 0 {
		fmt.Fprintf(w, "%d counters equal (-v lists them)\n", len(d.Equal))
	}
	for _, k := range d.OnlyA {
		fmt.Fprintf(w, "only in A: %s\n", k)
	}
	for _, k := range d.OnlyB {
		fmt.Fprintf(w, "only in B: %s\n", k)
	}
	for _, s := range d.Sequences {
		fmt.Fprintf(w, "rank %d: call %d of %d/%d differs: A %q, B %q\n", s.Rank, s.Index, s.LenA, s.LenB, s.A, s.B)
	}
	fmt.Fprintln(w, d.Verdict())
}
