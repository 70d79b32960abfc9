package proxy

import (
	"fmt"
	"io"
	"strings"

	"github.com/h5proxy/h5proxy/internal/libc"
	"github.com/h5proxy/h5proxy/internal/mpi"
)

// FlushProfile has libh5proxy-profile.so (docs/profile.md), when the process runs under it,
// write its records now. Go programs end with the exit_group system call, which runs no exit
// handlers, so a command without MPI calls this before exiting; under MPI the records are
// written at MPI_Finalize and this does nothing.
func FlushProfile() { libc.FlushProfile() }

// phaseCounters are the profile counters a phase's report carries (profile=yes): Darshan's
// counts, bytes and access-size bins, which add up over records, ranks and time (a phase's
// value is the difference between its end and its start). Maxima, offsets, common values
// and flags describe a whole run and stay in the run's profile.
var phaseCounters = func() []string {
	names := []string{
		"POSIX_OPENS", "POSIX_READS", "POSIX_WRITES", "POSIX_SEEKS", "POSIX_STATS", "POSIX_FSYNCS", "POSIX_FDSYNCS",
		"POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN", "POSIX_SEQ_READS", "POSIX_SEQ_WRITES", "POSIX_CONSEC_READS",
		"POSIX_CONSEC_WRITES", "POSIX_RW_SWITCHES", "POSIX_MEM_NOT_ALIGNED", "POSIX_FILE_NOT_ALIGNED",
		"MPIIO_INDEP_OPENS", "MPIIO_COLL_OPENS", "MPIIO_INDEP_READS", "MPIIO_INDEP_WRITES", "MPIIO_COLL_READS",
		"MPIIO_COLL_WRITES", "MPIIO_SPLIT_READS", "MPIIO_SPLIT_WRITES", "MPIIO_NB_READS", "MPIIO_NB_WRITES",
		"MPIIO_SYNCS", "MPIIO_HINTS", "MPIIO_VIEWS", "MPIIO_BYTES_READ", "MPIIO_BYTES_WRITTEN", "MPIIO_RW_SWITCHES",
		"H5F_OPENS", "H5F_FLUSHES",
		"H5D_OPENS", "H5D_READS", "H5D_WRITES", "H5D_BYTES_READ", "H5D_BYTES_WRITTEN", "H5D_RW_SWITCHES",
		"H5D_REGULAR_HYPERSLAB_SELECTS", "H5D_IRREGULAR_HYPERSLAB_SELECTS", "H5D_POINT_SELECTS",
	}
	bins := []string{"0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G", "1G_PLUS"}
	for _, m := range []string{"POSIX", "MPIIO", "H5D"} {
		agg := "_AGG"
		if m == "POSIX" {
			agg = ""
		}
		for _, rw := range []string{"READ", "WRITE"} {
			for _, b := range bins {
				names = append(names, fmt.Sprintf("%s_SIZE_%s%s_%s", m, rw, agg, b))
			}
		}
	}
	return names
}()

// profileTotals is this process's phaseCounters so far, nil when the run is not profiled
// (profile=yes) or the library is not loaded.
func profileTotals(on bool) []int64 {
	if !on {
		return nil
	}
	v, ok := libc.ProfileTotals(phaseCounters)
	if !ok {
		return nil
	}
	return v
}

// phaseProfile reduces a phase's counters over the ranks (collective when profiled): each
// rank's difference between end and start, summed; nil when no rank runs under the
// library. Counters that stayed zero are left out.
func phaseProfile(c mpi.Comm, on bool, start, end []int64) (map[string]int64, error) {
	if !on {
		return nil, nil
	}
	flat := make([]float64, len(phaseCounters)+1)
	if start != nil && end != nil {
		flat[0] = 1 // this rank is under the library
		for i := range phaseCounters {
			flat[i+1] = float64(end[i] - start[i])
		}
	}
	sums, err := c.AllreduceFloat64(flat, mpi.OpSum)
	if err != nil {
		return nil, err
	}
	if sums[0] == 0 {
		return nil, nil
	}
	out := map[string]int64{}
	for i, n := range phaseCounters {
		if v := int64(sums[i+1]); v != 0 {
			out[n] = v
		}
	}
	return out, nil
}

// writeProfileSummary prints a phase's profile counters in one line per level (nothing
// when the phase has none): the calls and bytes beneath its HDF5 calls.
func writeProfileSummary(w io.Writer, c map[string]int64) {
	if len(c) == 0 {
		return
	}
	line := func(title string, keys ...string) {
		var parts []string
		for i := 0; i+1 < len(keys); i += 2 {
			if v := c[keys[i+1]]; v != 0 {
				parts = append(parts, fmt.Sprintf("%s %d", keys[i], v))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "Profile %s (all ranks): %s\n", title, strings.Join(parts, ", "))
		}
	}
	line("H5D", "writes", "H5D_WRITES", "bytes written", "H5D_BYTES_WRITTEN", "reads", "H5D_READS", "bytes read", "H5D_BYTES_READ", "opens", "H5D_OPENS")
	line("MPI-IO", "collective writes", "MPIIO_COLL_WRITES", "independent writes", "MPIIO_INDEP_WRITES", "collective reads", "MPIIO_COLL_READS",
		"independent reads", "MPIIO_INDEP_READS", "bytes written", "MPIIO_BYTES_WRITTEN", "bytes read", "MPIIO_BYTES_READ")
	line("POSIX", "writes", "POSIX_WRITES", "bytes written", "POSIX_BYTES_WRITTEN", "reads", "POSIX_READS", "bytes read", "POSIX_BYTES_READ",
		"opens", "POSIX_OPENS", "seeks", "POSIX_SEEKS", "fsyncs", "POSIX_FSYNCS")
}
