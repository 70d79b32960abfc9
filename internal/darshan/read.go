package darshan

import (
	"bytes"
	"compress/bzip2"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// Log is a Darshan log in memory.
type Log struct {
	Version     string // the log format version ("3.41")
	Compression int    // CompZlib, CompBzip2 or CompNone
	// PartialModules names the modules whose records ran out of the runtime's memory
	// (the header's partial flags): their records are incomplete.
	PartialModules []string
	Job            Job
	Exe            string  // the command line
	Mounts         []Mount // in the log's order
	Names          map[uint64]string
	Records        []*Record // counter modules' records, in log order
	DXT            []*DXTRecord
	// Skipped names the regions of modules this package does not read (LUSTRE, PNETCDF,
	// HEATMAP, ...), which are left out.
	Skipped []string
}

// Job is struct darshan_job: who ran, when, on how many processes. Metadata is the
// key=value lines of the job's metadata string (lib_ver, h, ...).
type Job struct {
	UID       int64
	StartSec  int64
	StartNsec int64
	EndSec    int64
	EndNsec   int64
	Nprocs    int64
	JobID     int64
	Metadata  string
}

// Mount is one line of the log's mount table.
type Mount struct {
	Type, Path string
}

// Record is one record of a counters module (POSIX, MPI-IO, H5F, H5D, STDIO): its id
// (the key of its name in Names), its rank (-1 for a record shared by every rank),
// and its counters by index in Module.Counters and Module.FCounters. FileID is the H5D
// record's file (the id of its H5F record).
type Record struct {
	Module    *Module
	ID        uint64
	Rank      int64
	FileID    uint64
	Counters  []int64
	FCounters []float64
}

// Counter returns the value of counter name (0 when the module has none of that name).
func (r *Record) Counter(name string) int64 {
	for i, n := range r.Module.Counters {
		if n == name {
			return r.Counters[i]
		}
	}
	return 0
}

// Segment is one traced access of a DXT record: offset (-1 unknown), length, and start
// and end in seconds from the job's start.
type Segment struct {
	Offset, Length int64
	Start, End     float64
}

// DXTRecord is one rank's trace of one file (DXT_POSIX or DXT_MPIIO).
type DXTRecord struct {
	Module   *Module
	ID       uint64
	Rank     int64
	Shared   int64
	Hostname string
	Writes   []Segment
	Reads    []Segment
}

// Error is a log that cannot be read: the region (header, job, names, a module) and the
// byte offset where it went wrong. Offset is in the file for the header and the
// compressed regions; Inner, when not -1, is the offset within the region's
// decompressed content.
type Error struct {
	Path   string
	Region string
	Offset int64
	Inner  int64
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	fmt.Fprintf(&b, "darshan log: %s region at offset %d", e.Region, e.Offset)
	if e.Inner >= 0 {
		fmt.Fprintf(&b, ", byte %d of its decompressed content", e.Inner)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// maxRegion bounds a region's decompressed size: a log whose regions inflate beyond it
// is refused rather than filling memory (Darshan's runtime keeps at most a few MiB of
// records per module and rank by default).
const maxRegion = 1 << 30

// IsLog reports whether the first bytes of a file look like a Darshan log: a version
// string "3.NN" and the magic number in either byte order.
func IsLog(head []byte) bool {
	if len(head) < 16 || !bytes.HasPrefix(head, []byte("3.")) {
		return false
	}
	m := binary.LittleEndian.Uint64(head[8:16])
	return m == magic || binary.BigEndian.Uint64(head[8:16]) == magic
}

// ReadFile reads the Darshan log at path.
func ReadFile(path string) (*Log, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l, err := Read(data)
	var e *Error
	if errors.As(err, &e) {
		e.Path = path
	}
	return l, err
}

// reader walks one region's bytes in the log's byte order.
type reader struct {
	b      []byte
	pos    int
	order  binary.ByteOrder
	region string
	off    int64 // the region's offset in the file
}

func (r *reader) fail(at int, format string, args ...any) error {
	return &Error{Region: r.region, Offset: r.off, Inner: int64(at), Msg: fmt.Sprintf(format, args...)}
}

func (r *reader) need(n int, what string) error {
	if n < 0 || len(r.b)-r.pos < n {
		return r.fail(r.pos, "truncated %s: %d bytes needed, %d left", what, n, len(r.b)-r.pos)
	}
	return nil
}

func (r *reader) u64() uint64 {
	v := r.order.Uint64(r.b[r.pos:])
	r.pos += 8
	return v
}

func (r *reader) i64() int64 { return int64(r.u64()) }

func (r *reader) f64() float64 { return math.Float64frombits(r.u64()) }

// Read parses a Darshan log from its bytes.
func Read(data []byte) (*Log, error) {
	herr := func(off int64, format string, args ...any) error {
		return &Error{Region: "header", Offset: off, Inner: -1, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) < 16 {
		return nil, herr(0, "file of %d bytes is shorter than a header's version and magic number", len(data))
	}
	version := string(bytes.TrimRight(data[:8], "\x00"))
	var order binary.ByteOrder
	switch {
	case binary.LittleEndian.Uint64(data[8:16]) == magic:
		order = binary.LittleEndian
	case binary.BigEndian.Uint64(data[8:16]) == magic:
		order = binary.BigEndian
	default:
		return nil, herr(8, "bad magic number %d (want %d in either byte order): not a Darshan log", binary.LittleEndian.Uint64(data[8:16]), magic)
	}
	l := &Log{Version: version, Names: map[uint64]string{}}
	var hsize, nmods, jsize int
	switch version {
	case Version3_41:
		hsize, nmods, jsize = headerSize, maxMods, jobSize
	case Version3_21:
		hsize, nmods, jsize = headerSize321, maxMods321, jobSize321
	default:
		var maj, min int
		if n, _ := fmt.Sscanf(version, "%d.%d", &maj, &min); n == 2 && (maj > 3 || maj == 3 && min > 41) {
			return nil, herr(0, "log format version %q is newer than this h5proxy reads (%s and %s: Darshan 3.4 and 3.5)", version, Version3_21, Version3_41)
		}
		return nil, herr(0, "log format version %q is not one this h5proxy reads (%s and %s: Darshan 3.4 and 3.5)", version, Version3_21, Version3_41)
	}
	if len(data) < hsize {
		return nil, herr(int64(len(data)), "truncated header: %d bytes, a %s header has %d", len(data), version, hsize)
	}
	h := &reader{b: data[:hsize], pos: 16, order: order, region: "header"}
	l.Compression = int(data[16])
	var partial uint64
	if version == Version3_41 {
		h.pos = 24
		partial = h.u64()
	} else {
		partial = uint64(order.Uint32(data[20:24]))
		h.pos = 24
	}
	type region struct{ off, len uint64 }
	nameMap := region{h.u64(), h.u64()}
	mods := make([]region, nmods)
	for i := range mods {
		mods[i] = region{h.u64(), h.u64()}
	}
	vers := make([]uint32, nmods)
	for i := range vers {
		vers[i] = order.Uint32(h.b[h.pos:])
		h.pos += 4
	}
	switch l.Compression {
	case CompZlib, CompBzip2, CompNone:
	default:
		return nil, herr(16, "unknown compression kind %d (0 zlib, 1 bzip2, 2 none)", l.Compression)
	}
	size := uint64(len(data))
	check := func(name string, m region, at int64) error {
		if m.len == 0 {
			return nil
		}
		if m.off < uint64(hsize) || m.off > size || m.len > size-m.off {
			return herr(at, "the %s region's offset %d and length %d lie outside the file's %d bytes (past the %d-byte header)", name, m.off, m.len, size, hsize)
		}
		return nil
	}
	if err := check("names", nameMap, 24+8); err != nil {
		return nil, err
	}
	// module ids of this version: 3.21 logs lack PNETCDF_VAR (3.41's id 6), so ids from
	// 6 on are one lower.
	name341 := func(id int) string {
		if version == Version3_21 && id >= 6 {
			id++
		}
		if id < len(moduleNames341) {
			return moduleNames341[id]
		}
		return fmt.Sprintf("module %d", id)
	}
	for i, m := range mods {
		if err := check(name341(i), m, int64(24+8+16+16*i)); err != nil {
			return nil, err
		}
		if partial&(1<<uint(i)) != 0 && m.len > 0 {
			l.PartialModules = append(l.PartialModules, name341(i))
		}
	}
	// the job region runs from the header to the names (or the first module)
	jobEnd := nameMap.off
	if jobEnd == 0 {
		for _, m := range mods {
			if m.off != 0 {
				jobEnd = m.off
				break
			}
		}
	}
	if jobEnd == 0 {
		jobEnd = size
	}
	if jobEnd < uint64(hsize) || jobEnd > size {
		return nil, herr(24, "the job region would end at %d, outside the file's %d bytes", jobEnd, size)
	}
	inflate := func(name string, off, n uint64) (*reader, error) {
		b, err := decompress(l.Compression, data[off:off+n])
		if err != nil {
			return nil, &Error{Region: name, Offset: int64(off), Inner: -1, Msg: err.Error()}
		}
		return &reader{b: b, order: order, region: name, off: int64(off)}, nil
	}
	// job, exe, mounts
	jr, err := inflate("job", uint64(hsize), jobEnd-uint64(hsize))
	if err != nil {
		return nil, err
	}
	if err := jr.need(jsize, "job record"); err != nil {
		return nil, err
	}
	j := &l.Job
	if version == Version3_41 {
		j.UID, j.StartSec, j.StartNsec, j.EndSec, j.EndNsec, j.Nprocs, j.JobID = jr.i64(), jr.i64(), jr.i64(), jr.i64(), jr.i64(), jr.i64(), jr.i64()
	} else {
		j.UID, j.StartSec, j.EndSec, j.Nprocs, j.JobID = jr.i64(), jr.i64(), jr.i64(), jr.i64(), jr.i64()
	}
	j.Metadata = cstring(jr.b[jr.pos : jr.pos+jobMetadataLen])
	jr.pos += jobMetadataLen
	exemnt := cstring(jr.b[jr.pos:])
	lines := strings.Split(exemnt, "\n")
	l.Exe = lines[0]
	for i, ln := range lines[1:] {
		if ln == "" {
			continue
		}
		typ, path, ok := strings.Cut(ln, "\t")
		if !ok {
			return nil, jr.fail(jr.pos+len(l.Exe)+1, "mount table line %d %q has no tab between type and path", i+1, ln)
		}
		l.Mounts = append(l.Mounts, Mount{Type: typ, Path: path})
	}
	// names
	if nameMap.len > 0 {
		nr, err := inflate("names", nameMap.off, nameMap.len)
		if err != nil {
			return nil, err
		}
		for nr.pos < len(nr.b) {
			at := nr.pos
			if err := nr.need(9, "name record"); err != nil {
				return nil, err
			}
			id := nr.u64()
			end := bytes.IndexByte(nr.b[nr.pos:], 0)
			if end < 0 {
				return nil, nr.fail(at, "name record of id %d has no terminating NUL", id)
			}
			name := string(nr.b[nr.pos : nr.pos+end])
			nr.pos += end + 1
			if old, ok := l.Names[id]; !ok || old == "" {
				l.Names[id] = name
			}
		}
	}
	// modules
	for i, m := range mods {
		if m.len == 0 {
			continue
		}
		id := i
		if version == Version3_21 && id >= 6 {
			id++
		}
		var mod *Module
		for _, k := range Modules {
			if k.ID == id {
				mod = k
			}
		}
		if mod == nil {
			l.Skipped = append(l.Skipped, name341(i))
			continue
		}
		if vers[i] != mod.Version {
			return nil, &Error{Region: mod.Name, Offset: int64(m.off), Inner: -1, Msg: fmt.Sprintf(
				"module version %d, this h5proxy reads version %d (Darshan 3.4 and 3.5)", vers[i], mod.Version)}
		}
		r, err := inflate(mod.Name, m.off, m.len)
		if err != nil {
			return nil, err
		}
		if mod.DXT {
			err = l.readDXT(mod, r)
		} else {
			err = l.readCounters(mod, r)
		}
		if err != nil {
			return nil, err
		}
	}
	return l, nil
}

// readCounters reads a counters module's records, back to back.
func (l *Log) readCounters(m *Module, r *reader) error {
	size := m.recordSize()
	for r.pos < len(r.b) {
		if err := r.need(size, m.Name+" record"); err != nil {
			return err
		}
		rec := &Record{Module: m, ID: r.u64(), Rank: r.i64(), Counters: make([]int64, len(m.Counters)),
			FCounters: make([]float64, len(m.FCounters))}
		if m.FileID {
			rec.FileID = r.u64()
		}
		for i := range rec.Counters {
			rec.Counters[i] = r.i64()
		}
		for i := range rec.FCounters {
			rec.FCounters[i] = r.f64()
		}
		l.Records = append(l.Records, rec)
	}
	return nil
}

// readDXT reads a DXT module's records: each a header and its write then read segments.
func (l *Log) readDXT(m *Module, r *reader) error {
	for r.pos < len(r.b) {
		at := r.pos
		if err := r.need(dxtHeaderSize, m.Name+" record"); err != nil {
			return err
		}
		rec := &DXTRecord{Module: m, ID: r.u64(), Rank: r.i64(), Shared: r.i64()}
		rec.Hostname = cstring(r.b[r.pos : r.pos+dxtHostnameSize])
		r.pos += dxtHostnameSize
		nw, nr := r.i64(), r.i64()
		left := int64(len(r.b) - r.pos)
		if nw < 0 || nr < 0 || nw > left/segmentSize || nr > left/segmentSize || (nw+nr) > left/segmentSize {
			return r.fail(at, "%s record of id %d claims %d writes and %d reads, more than the %d bytes left hold", m.Name, rec.ID, nw, nr, left)
		}
		seg := func(n int64) []Segment {
			out := make([]Segment, n)
			for i := range out {
				out[i] = Segment{Offset: r.i64(), Length: r.i64(), Start: r.f64(), End: r.f64()}
			}
			return out
		}
		rec.Writes, rec.Reads = seg(nw), seg(nr)
		l.DXT = append(l.DXT, rec)
	}
	return nil
}

// decompress inflates one region: zlib or bzip2 streams laid end to end, or the bytes
// as they are.
func decompress(kind int, b []byte) ([]byte, error) {
	switch kind {
	case CompNone:
		return b, nil
	case CompBzip2:
		out, err := io.ReadAll(io.LimitReader(bzip2.NewReader(bytes.NewReader(b)), maxRegion+1))
		if err != nil {
			return nil, fmt.Errorf("bzip2: %v", err)
		}
		if len(out) > maxRegion {
			return nil, fmt.Errorf("decompresses to more than %d bytes", maxRegion)
		}
		return out, nil
	}
	var out bytes.Buffer
	br := bytes.NewReader(b)
	for br.Len() > 0 {
		at := len(b) - br.Len()
		zr, err := zlib.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("zlib stream at byte %d of the region: %v", at, err)
		}
		if _, err := io.Copy(&out, io.LimitReader(zr, int64(maxRegion+1-out.Len()))); err != nil {
			return nil, fmt.Errorf("zlib stream at byte %d of the region: %v", at, err)
		}
		if out.Len() > maxRegion {
			return nil, fmt.Errorf("decompresses to more than %d bytes", maxRegion)
		}
		if err := zr.Close(); err != nil {
			return nil, fmt.Errorf("zlib stream at byte %d of the region: %v", at, err)
		}
	}
	return out.Bytes(), nil
}

// cstring is b up to its first NUL.
func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
