// Package darshan reads and writes Darshan logs (darshan-hpc/darshan, log format 3.41 of
// Darshan 3.4.1 to 3.5, and 3.21 of Darshan 3.4.0) natively, without darshan-util: the
// job, the executable and mount table, the name records and the POSIX, MPI-IO, STDIO,
// H5F, H5D, DXT_POSIX and DXT_MPIIO modules. It converts a log to and from h5proxy's
// in-memory profile (internal/profile), so `h5proxy profile show`, `profile diff` and
// `capture -from` take Darshan logs, and `h5proxy profile -darshan` writes one.
//
// The layout (include/darshan-log-format.h and darshan-util/darshan-logutils.c):
// an uncompressed header (version string, magic number that also gives the byte order,
// compression kind, partial flags, the offset and length of the name region and of each
// module's region, each module's version), then compressed regions: the job (struct
// darshan_job followed by the executable's command line and the mount table, one
// "\nTYPE\tPATH" per mount), the name records (record id, NUL-terminated name) and one
// region per module holding its records back to back. A region is one or more
// compressed streams laid end to end (each rank of an MPI job compresses its own
// records).
package darshan

import "fmt"

// Log format versions this package reads. Version3_41 is what Darshan 3.4.1 to 3.5
// write (64 module slots, job times with nanoseconds); Version3_21 is Darshan 3.4.0's
// (16 module slots, no PNETCDF_VAR module, job times in whole seconds).
const (
	Version3_41 = "3.41"
	Version3_21 = "3.21"
)

// magic is DARSHAN_MAGIC_NR: read in the host's byte order it says the log's.
const magic = 6567223

// Compression kinds of a log's regions (enum darshan_comp_type).
const (
	CompZlib  = 0
	CompBzip2 = 1
	CompNone  = 2
)

// maxMods is the number of module slots of a 3.41 header; maxMods321 of a 3.21 one.
const (
	maxMods    = 64
	maxMods321 = 16
)

// headerSize is sizeof(struct darshan_header) for 3.41: version[8], magic int64, comp
// uchar (padded to 8), partial flags uint64, name map {off, len}, 64 module maps, 64
// uint32 module versions. headerSize321 is the 3.21 header's (partial flags uint32
// right after the comp byte, 16 module slots).
const (
	headerSize    = 8 + 8 + 8 + 8 + 16 + 16*maxMods + 4*maxMods
	headerSize321 = 8 + 8 + 4 + 4 + 16 + 16*maxMods321 + 4*maxMods321
)

// jobSize is sizeof(struct darshan_job) for 3.41 (uid, start sec and nsec, end sec and
// nsec, nprocs, jobid, 1024 bytes of metadata); jobSize321 lacks the two nsec fields.
// jobRecordSize is the size of the job region's content as the runtime writes it at
// most (DARSHAN_JOB_RECORD_SIZE): the job, then the exe and mounts string.
const (
	jobMetadataLen = 1024
	jobSize        = 7*8 + jobMetadataLen
	jobSize321     = 5*8 + jobMetadataLen
	jobRecordSize  = 4096
)

// dxtHostnameSize is HOSTNAME_SIZE of struct dxt_file_record; dxtHeaderSize that
// struct's size (base record, shared flag, hostname, write and read counts);
// segmentSize a segment_info's (offset, length, start, end).
const (
	dxtHostnameSize = 64
	dxtHeaderSize   = 16 + 8 + dxtHostnameSize + 8 + 8
	segmentSize     = 32
)

// Module is one Darshan module this package knows: its id in a 3.41 log (id321 in a
// 3.21 log), the name darshan-parser prints, the record version it reads, and its
// counters in the order of the record's arrays.
type Module struct {
	ID        int
	id321     int
	Name      string
	Version   uint32
	Counters  []string
	FCounters []string
	// FileID: the record holds the id of its file's record after the base record (H5D).
	FileID bool
	// DXT: the record is a DXT trace (struct dxt_file_record and its segments).
	DXT bool
}

// Modules are the modules this package reads, in log order (module id).
var Modules = []*Module{
	{ID: 1, id321: 1, Name: "POSIX", Version: 4, Counters: posixCounters, FCounters: posixFCounters},
	{ID: 2, id321: 2, Name: "MPI-IO", Version: 3, Counters: mpiioCounters, FCounters: mpiioFCounters},
	{ID: 3, id321: 3, Name: "H5F", Version: 3, Counters: h5fCounters, FCounters: h5fFCounters},
	{ID: 4, id321: 4, Name: "H5D", Version: 2, Counters: h5dCounters, FCounters: h5dFCounters, FileID: true},
	{ID: 9, id321: 8, Name: "STDIO", Version: 2, Counters: stdioCounters, FCounters: stdioFCounters},
	{ID: 10, id321: 9, Name: "DXT_POSIX", Version: 1, DXT: true},
	{ID: 11, id321: 10, Name: "DXT_MPIIO", Version: 2, DXT: true},
}

// moduleNames341 names every module id of a 3.41 log (darshan-log-format.h's
// DARSHAN_MODULE_IDS), so a region of a module this package does not read is named in
// what it reports.
var moduleNames341 = []string{"NULL", "POSIX", "MPI-IO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR",
	"BG/Q", "LUSTRE", "STDIO", "DXT_POSIX", "DXT_MPIIO", "MDHIM", "APXC", "APMPI", "HEATMAP", "DFS", "DAOS"}

// ModuleByName returns the module darshan-parser calls name ("POSIX", "MPI-IO", ...).
func ModuleByName(name string) *Module {
	for _, m := range Modules {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// recordSize is the size of one record of a counters module.
func (m *Module) recordSize() int {
	n := 16 + 8*len(m.Counters) + 8*len(m.FCounters)
	if m.FileID {
		n += 8
	}
	return n
}

// sizeBins are Darshan's access-size bins, in counter order.
var sizeBins = []string{"0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G", "1G_PLUS"}

// bins lists PREFIX_READ_BIN... then PREFIX_WRITE_BIN... (infix "" for POSIX, "AGG_" for
// the aggregate-size bins of MPI-IO and H5D).
func bins(prefix, infix string) []string {
	var out []string
	for _, rw := range []string{"READ", "WRITE"} {
		for _, b := range sizeBins {
			out = append(out, fmt.Sprintf("%s_SIZE_%s_%s%s", prefix, rw, infix, b))
		}
	}
	return out
}

// cat concatenates name lists.
func cat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// numbered lists PREFIX1_SUFFIX..PREFIX4_SUFFIX for each suffix in turn.
func numbered(prefix string, suffixes ...string) []string {
	var out []string
	for _, s := range suffixes {
		for i := 1; i <= 4; i++ {
			out = append(out, fmt.Sprintf("%s%d_%s", prefix, i, s))
		}
	}
	return out
}

// rankCounters are the fastest/slowest rank counters every module ends with.
func rankCounters(p string) []string {
	return []string{p + "_FASTEST_RANK", p + "_FASTEST_RANK_BYTES", p + "_SLOWEST_RANK", p + "_SLOWEST_RANK_BYTES"}
}

// timeFCounters are the F counters of POSIX, MPI-IO and H5D, in their order.
func timeFCounters(p string) []string {
	var out []string
	for _, s := range []string{"OPEN_START_TIMESTAMP", "READ_START_TIMESTAMP", "WRITE_START_TIMESTAMP", "CLOSE_START_TIMESTAMP",
		"OPEN_END_TIMESTAMP", "READ_END_TIMESTAMP", "WRITE_END_TIMESTAMP", "CLOSE_END_TIMESTAMP",
		"READ_TIME", "WRITE_TIME", "META_TIME", "MAX_READ_TIME", "MAX_WRITE_TIME",
		"FASTEST_RANK_TIME", "SLOWEST_RANK_TIME", "VARIANCE_RANK_TIME", "VARIANCE_RANK_BYTES"} {
		out = append(out, p+"_F_"+s)
	}
	return out
}

// prefixed puts p_ before each name.
func prefixed(p string, names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + "_" + n
	}
	return out
}

// The counters of each module, as include/darshan-*-log-format.h order them.
var (
	posixCounters = cat(prefixed("POSIX", "OPENS", "FILENOS", "DUPS", "READS", "WRITES", "SEEKS", "STATS", "MMAPS",
		"FSYNCS", "FDSYNCS", "RENAME_SOURCES", "RENAME_TARGETS", "RENAMED_FROM", "MODE", "BYTES_READ",
		"BYTES_WRITTEN", "MAX_BYTE_READ", "MAX_BYTE_WRITTEN", "CONSEC_READS", "CONSEC_WRITES", "SEQ_READS",
		"SEQ_WRITES", "RW_SWITCHES", "MEM_NOT_ALIGNED", "MEM_ALIGNMENT", "FILE_NOT_ALIGNED", "FILE_ALIGNMENT",
		"MAX_READ_TIME_SIZE", "MAX_WRITE_TIME_SIZE"),
		bins("POSIX", ""), numbered("POSIX_STRIDE", "STRIDE", "COUNT"), numbered("POSIX_ACCESS", "ACCESS", "COUNT"),
		rankCounters("POSIX"))
	posixFCounters = timeFCounters("POSIX")

	mpiioCounters = cat(prefixed("MPIIO", "INDEP_OPENS", "COLL_OPENS", "INDEP_READS", "INDEP_WRITES", "COLL_READS",
		"COLL_WRITES", "SPLIT_READS", "SPLIT_WRITES", "NB_READS", "NB_WRITES", "SYNCS", "HINTS", "VIEWS", "MODE",
		"BYTES_READ", "BYTES_WRITTEN", "RW_SWITCHES", "MAX_READ_TIME_SIZE", "MAX_WRITE_TIME_SIZE"),
		bins("MPIIO", "AGG_"), numbered("MPIIO_ACCESS", "ACCESS", "COUNT"), rankCounters("MPIIO"))
	mpiioFCounters = timeFCounters("MPIIO")

	h5fCounters  = prefixed("H5F", "OPENS", "FLUSHES", "USE_MPIIO")
	h5fFCounters = prefixed("H5F_F", "OPEN_START_TIMESTAMP", "CLOSE_START_TIMESTAMP", "OPEN_END_TIMESTAMP",
		"CLOSE_END_TIMESTAMP", "META_TIME")

	h5dCounters = cat(prefixed("H5D", "OPENS", "READS", "WRITES", "FLUSHES", "BYTES_READ", "BYTES_WRITTEN",
		"RW_SWITCHES", "REGULAR_HYPERSLAB_SELECTS", "IRREGULAR_HYPERSLAB_SELECTS", "POINT_SELECTS",
		"MAX_READ_TIME_SIZE", "MAX_WRITE_TIME_SIZE"),
		bins("H5D", "AGG_"), h5dAccess(),
		numbered("H5D_ACCESS", "COUNT"),
		prefixed("H5D", "DATASPACE_NDIMS", "DATASPACE_NPOINTS", "DATATYPE_SIZE", "CHUNK_SIZE_D1", "CHUNK_SIZE_D2",
			"CHUNK_SIZE_D3", "CHUNK_SIZE_D4", "CHUNK_SIZE_D5", "USE_MPIIO_COLLECTIVE", "USE_DEPRECATED"),
		rankCounters("H5D"))
	h5dFCounters = timeFCounters("H5D")

	stdioCounters = cat(prefixed("STDIO", "OPENS", "FDOPENS", "READS", "WRITES", "SEEKS", "FLUSHES", "BYTES_WRITTEN",
		"BYTES_READ", "MAX_BYTE_READ", "MAX_BYTE_WRITTEN"), rankCounters("STDIO"))
	stdioFCounters = prefixed("STDIO_F", "META_TIME", "WRITE_TIME", "READ_TIME", "OPEN_START_TIMESTAMP",
		"CLOSE_START_TIMESTAMP", "WRITE_START_TIMESTAMP", "READ_START_TIMESTAMP", "OPEN_END_TIMESTAMP",
		"CLOSE_END_TIMESTAMP", "WRITE_END_TIMESTAMP", "READ_END_TIMESTAMP", "FASTEST_RANK_TIME",
		"SLOWEST_RANK_TIME", "VARIANCE_RANK_TIME", "VARIANCE_RANK_BYTES")
)

// h5dAccess lists H5D_ACCESSn_ACCESS, its five lengths and five strides, for n = 1..4.
func h5dAccess() []string {
	var out []string
	for i := 1; i <= 4; i++ {
		out = append(out, fmt.Sprintf("H5D_ACCESS%d_ACCESS", i))
		for _, k := range []string{"LENGTH", "STRIDE"} {
			for d := 1; d <= 5; d++ {
				out = append(out, fmt.Sprintf("H5D_ACCESS%d_%s_D%d", i, k, d))
			}
		}
	}
	return out
}
