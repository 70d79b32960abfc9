package darshan

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// RecordID is the id a written log gives a name. Darshan's runtime hashes names with
// its own function; readers only match ids between the name region and the records,
// so any stable 64-bit hash serves (FNV-1a here).
func RecordID(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// Writer is the library version a written log's job metadata names (lib_ver): the
// Darshan release whose log format it follows, so tools that branch on it read it as
// such; the metadata's h5proxy key says who wrote it.
const Writer = "3.5.0"

// FromProfile builds a Darshan 3.5 log from h5proxy's merged profile: its POSIX, MPIIO,
// H5F and H5D records with every counter Darshan has (those h5proxy does not record,
// such as POSIX_MMAPS and the fastest and slowest rank, are 0), and with a traced
// profile DXT_POSIX and DXT_MPIIO records of each rank's reads and writes. start is the
// job's start (the profile keeps times relative to it); the end is start + Elapsed.
func FromProfile(p *profile.Profile, start time.Time) (*Log, error) {
	end := start.Add(time.Duration(p.Elapsed * float64(time.Second)))
	l := &Log{Version: Version3_41, Compression: CompZlib, Names: map[uint64]string{},
		Job: Job{UID: int64(os.Getuid()), StartSec: start.Unix(), StartNsec: int64(start.Nanosecond()),
			EndSec: end.Unix(), EndNsec: int64(end.Nanosecond()), Nprocs: int64(max(p.Ranks, 1)),
			Metadata: "lib_ver=" + Writer + "\nh5proxy=profile\n"}}
	l.Exe = p.Exe
	if len(p.Command) > 0 {
		l.Exe = strings.Join(p.Command, " ")
	}
	name := func(n string) uint64 {
		id := RecordID(n)
		if old, ok := l.Names[id]; ok && old != n {
			return 0 // FNV collision: caught below
		}
		l.Names[id] = n
		return id
	}
	for _, r := range p.Records {
		mname := r.Module
		if mname == "MPIIO" {
			mname = "MPI-IO"
		}
		m := ModuleByName(mname)
		if m == nil || m.DXT {
			return nil, fmt.Errorf("profile record of module %q (%s): Darshan has no such counters module", r.Module, r.File)
		}
		rec := &Record{Module: m, Rank: int64(r.Rank), Counters: make([]int64, len(m.Counters)),
			FCounters: make([]float64, len(m.FCounters))}
		if m.FileID {
			rec.FileID = name(r.File)
			rec.ID = name(r.File + ":" + r.Name)
		} else {
			rec.ID = name(r.File)
		}
		if rec.ID == 0 || m.FileID && rec.FileID == 0 {
			return nil, fmt.Errorf("record %s %s: its name's 64-bit id collides with another name's", r.Module, r.File)
		}
		for i, n := range m.Counters {
			rec.Counters[i] = r.Counters[n]
		}
		for i, n := range m.FCounters {
			rec.FCounters[i] = r.FCounters[n]
		}
		l.Records = append(l.Records, rec)
	}
	host, _ := os.Hostname()
	type key struct {
		module string
		rank   int
		file   string
	}
	dxt := map[key]*DXTRecord{}
	var order []key
	for _, e := range p.Events {
		var m *Module
		switch e.Module {
		case "POSIX":
			m = ModuleByName("DXT_POSIX")
		case "MPIIO":
			m = ModuleByName("DXT_MPIIO")
		default:
			continue
		}
		write, read := isWrite(e.Call), isRead(e.Call)
		if !write && !read {
			continue
		}
		k := key{m.Name, e.Rank, e.File}
		d := dxt[k]
		if d == nil {
			d = &DXTRecord{Module: m, ID: name(e.File), Rank: int64(e.Rank), Hostname: host}
			dxt[k] = d
			order = append(order, k)
		}
		s := Segment{Offset: e.Offset, Length: e.Length, Start: e.Start, End: e.End}
		if write {
			d.Writes = append(d.Writes, s)
		} else {
			d.Reads = append(d.Reads, s)
		}
	}
	for _, k := range order {
		l.DXT = append(l.DXT, dxt[k])
	}
	var paths []string
	for _, r := range p.Records {
		paths = append(paths, r.File)
	}
	l.Mounts = mountsOf(paths, "/proc/self/mounts")
	return l, nil
}

// mountsOf returns the mount table's entries (TYPE and PATH, from a /proc/mounts-like
// file) under which the paths lie, each path's deepest: darshan-parser names each
// record's mount point and file system from them, and darshan-util reads the exe only
// when a mount line follows it, so a log always has one (the root, of type "unknown",
// when the table cannot be read).
func mountsOf(paths []string, table string) []Mount {
	var all []Mount
	if b, err := os.ReadFile(table); err == nil {
		for _, ln := range strings.Split(string(b), "\n") {
			if f := strings.Fields(ln); len(f) >= 3 {
				all = append(all, Mount{Type: f[2], Path: f[1]})
			}
		}
	}
	var out []Mount
	for _, p := range paths {
		best := -1
		for i, m := range all {
			under := p == m.Path || strings.HasPrefix(p, strings.TrimSuffix(m.Path, "/")+"/")
			if under && (best < 0 || len(m.Path) >= len(all[best].Path)) {
				best = i
			}
		}
		if best >= 0 && !slices.Contains(out, all[best]) {
			out = append(out, all[best])
		}
	}
	if len(out) == 0 {
		out = []Mount{{Type: "unknown", Path: "/"}}
	}
	return out
}

// isWrite and isRead tell the data transfers among traced calls (POSIX write, pwrite,
// writev, pwritev; every MPI_File_*write* and *read*).
func isWrite(call string) bool {
	return slices.Contains([]string{"write", "pwrite", "writev", "pwritev"}, call) ||
		strings.HasPrefix(call, "MPI_File_") && strings.Contains(call, "write")
}

func isRead(call string) bool {
	return slices.Contains([]string{"read", "pread", "readv", "preadv"}, call) ||
		strings.HasPrefix(call, "MPI_File_") && strings.Contains(call, "read")
}

// Bytes encodes the log in Darshan's 3.41 format (little-endian, zlib regions): the
// header, the job with the exe and mount table, the names and each module's records.
func (l *Log) Bytes() ([]byte, error) {
	if l.Version != Version3_41 {
		return nil, fmt.Errorf("darshan: writes log format %s only, not %q", Version3_41, l.Version)
	}
	le := binary.LittleEndian
	put := func(b *bytes.Buffer, vs ...any) {
		for _, v := range vs {
			binary.Write(b, le, v)
		}
	}
	var job bytes.Buffer
	j := l.Job
	put(&job, j.UID, j.StartSec, j.StartNsec, j.EndSec, j.EndNsec, j.Nprocs, j.JobID)
	meta := make([]byte, jobMetadataLen)
	if len(j.Metadata) >= jobMetadataLen {
		return nil, fmt.Errorf("darshan: job metadata of %d bytes, at most %d", len(j.Metadata), jobMetadataLen-1)
	}
	copy(meta, j.Metadata)
	job.Write(meta)
	exemnt := strings.ReplaceAll(l.Exe, "\n", " ")
	mounts := l.Mounts
	if len(mounts) == 0 {
		mounts = []Mount{{Type: "unknown", Path: "/"}} // darshan-util reads the exe only when a mount follows
	}
	for _, m := range mounts {
		exemnt += "\n" + m.Type + "\t" + m.Path
	}
	if limit := jobRecordSize - jobSize - 1; len(exemnt) > limit {
		exemnt = exemnt[:limit-len("<TRUNCATED>")] + "<TRUNCATED>" // as the runtime cuts a long command line
	}
	job.WriteString(exemnt)
	job.WriteByte(0)

	var names bytes.Buffer
	ids := make([]uint64, 0, len(l.Names))
	for id := range l.Names {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		put(&names, id)
		names.WriteString(l.Names[id])
		names.WriteByte(0)
	}

	mods := make([]bytes.Buffer, maxMods)
	for _, r := range l.Records {
		b := &mods[r.Module.ID]
		put(b, r.ID, r.Rank)
		if r.Module.FileID {
			put(b, r.FileID)
		}
		put(b, r.Counters)
		for _, f := range r.FCounters {
			put(b, math.Float64bits(f))
		}
	}
	for _, d := range l.DXT {
		b := &mods[d.Module.ID]
		host := make([]byte, dxtHostnameSize)
		copy(host[:dxtHostnameSize-1], d.Hostname)
		put(b, d.ID, d.Rank, d.Shared)
		b.Write(host)
		put(b, int64(len(d.Writes)), int64(len(d.Reads)))
		for _, s := range append(append([]Segment(nil), d.Writes...), d.Reads...) {
			put(b, s.Offset, s.Length, math.Float64bits(s.Start), math.Float64bits(s.End))
		}
	}

	var out bytes.Buffer
	out.Write(make([]byte, headerSize))
	compress := func(b []byte) (off, n uint64) {
		off = uint64(out.Len())
		zw := zlib.NewWriter(&out)
		zw.Write(b)
		zw.Close()
		return off, uint64(out.Len()) - off
	}
	compress(job.Bytes())
	var hdr bytes.Buffer
	v := make([]byte, 8)
	copy(v, l.Version)
	hdr.Write(v)
	put(&hdr, int64(magic), uint64(CompZlib)) // comp byte, then 7 bytes of padding
	put(&hdr, uint64(0))                      // partial flags
	noff, nlen := uint64(0), uint64(0)
	if names.Len() > 0 {
		noff, nlen = compress(names.Bytes())
	}
	put(&hdr, noff, nlen)
	vers := make([]uint32, maxMods)
	for i := range mods {
		var off, n uint64
		if mods[i].Len() > 0 {
			off, n = compress(mods[i].Bytes())
			for _, m := range Modules {
				if m.ID == i {
					vers[i] = m.Version
				}
			}
		}
		put(&hdr, off, n)
	}
	put(&hdr, vers)
	b := out.Bytes()
	copy(b, hdr.Bytes())
	return b, nil
}

// WriteFile writes the log to path.
func (l *Log) WriteFile(path string) error {
	b, err := l.Bytes()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
