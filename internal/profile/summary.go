package profile

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// summaryCounters are the counters each module's summary shows, as darshan-parser's
// --total and PyDarshan's summary lead with them.
var summaryCounters = map[string][]string{
	"POSIX": {"POSIX_OPENS", "POSIX_READS", "POSIX_WRITES", "POSIX_SEEKS", "POSIX_STATS", "POSIX_FSYNCS",
		"POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN", "POSIX_SEQ_READS", "POSIX_SEQ_WRITES", "POSIX_CONSEC_READS",
		"POSIX_CONSEC_WRITES", "POSIX_RW_SWITCHES", "POSIX_MEM_NOT_ALIGNED", "POSIX_FILE_NOT_ALIGNED"},
	"MPIIO": {"MPIIO_INDEP_OPENS", "MPIIO_COLL_OPENS", "MPIIO_INDEP_READS", "MPIIO_INDEP_WRITES", "MPIIO_COLL_READS",
		"MPIIO_COLL_WRITES", "MPIIO_SPLIT_READS", "MPIIO_SPLIT_WRITES", "MPIIO_NB_READS", "MPIIO_NB_WRITES",
		"MPIIO_SYNCS", "MPIIO_HINTS", "MPIIO_VIEWS", "MPIIO_BYTES_READ", "MPIIO_BYTES_WRITTEN"},
	"H5F": {"H5F_OPENS", "H5F_FLUSHES", "H5F_USE_MPIIO"},
	"H5D": {"H5D_OPENS", "H5D_READS", "H5D_WRITES", "H5D_BYTES_READ", "H5D_BYTES_WRITTEN",
		"H5D_REGULAR_HYPERSLAB_SELECTS", "H5D_IRREGULAR_HYPERSLAB_SELECTS", "H5D_POINT_SELECTS",
		"H5D_USE_MPIIO_COLLECTIVE", "H5D_USE_DEPRECATED"},
}

// timeCounters are each module's cumulative times (seconds).
var timeCounters = map[string][]string{
	"POSIX": {"POSIX_F_READ_TIME", "POSIX_F_WRITE_TIME", "POSIX_F_META_TIME"},
	"MPIIO": {"MPIIO_F_READ_TIME", "MPIIO_F_WRITE_TIME", "MPIIO_F_META_TIME"},
	"H5F":   {"H5F_F_META_TIME"},
	"H5D":   {"H5D_F_READ_TIME", "H5D_F_WRITE_TIME", "H5D_F_META_TIME"},
}

// BinLabels are Darshan's access-size bins, in order.
var BinLabels = []string{"0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G", "1G_PLUS"}

// binCounter names the counter of bin b of module m for reads or writes (Darshan's MPIIO
// and H5D bins are of aggregate sizes: _AGG_).
func binCounter(m string, write bool, b string) string {
	rw := "READ"
	if write {
		rw = "WRITE"
	}
	if m == "POSIX" {
		return fmt.Sprintf("%s_SIZE_%s_%s", m, rw, b)
	}
	return fmt.Sprintf("%s_SIZE_%s_AGG_%s", m, rw, b)
}

// Totals sums module m's counters over its records.
func (p *Profile) Totals(m string) (map[string]int64, map[string]float64, int) {
	c, f, n := map[string]int64{}, map[string]float64{}, 0
	for _, r := range p.Records {
		if r.Module != m {
			continue
		}
		n++
		for k, v := range r.Counters {
			if strings.Contains(k, "USE_") || strings.Contains(k, "ALIGNMENT") && !strings.Contains(k, "NOT_ALIGNED") {
				c[k] = max(c[k], v)
			} else {
				c[k] += v
			}
		}
		for k, v := range r.FCounters {
			f[k] += v
		}
	}
	return c, f, n
}

// Summary prints a Darshan-like summary: the job, each module's totals, its access-size
// histogram, and a line per file (dataset for H5D) with its main counters.
func (p *Profile) Summary(w io.Writer) {
	fmt.Fprintf(w, "Profile: %s, %d rank(s), %.3f s", p.Exe, p.Ranks, p.Elapsed)
	if p.HDF5Version != "" {
		fmt.Fprintf(w, ", HDF5 %s", p.HDF5Version)
	}
	if p.MPIVersion != "" {
		fmt.Fprintf(w, ", %s", p.MPIVersion)
	}
	fmt.Fprintln(w)
	if p.Partial {
		fmt.Fprintf(w, "PARTIAL: %s\n", strings.Join(p.PartialRanks, "; "))
	}
	if p.DroppedEvents > 0 {
		fmt.Fprintf(w, "Trace: %d events not kept (H5PROXY_PROFILE_TRACE_MAX)\n", p.DroppedEvents)
	}
	for _, m := range Modules {
		c, f, n := p.Totals(m)
		if n == 0 {
			fmt.Fprintf(w, "\n%s: no records\n", m)
			continue
		}
		fmt.Fprintf(w, "\n%s: %d record(s)\n", m, n)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, k := range summaryCounters[m] {
			fmt.Fprintf(tw, "  %s\t%d\n", k, c[k])
		}
		for _, k := range timeCounters[m] {
			fmt.Fprintf(tw, "  %s\t%.6f s\n", k, f[k])
		}
		tw.Flush()
		if m != "H5F" {
			fmt.Fprintf(w, "  access sizes   %s\n", strings.Join(BinLabels, " "))
			for _, write := range []bool{false, true} {
				var cells []string
				for _, b := range BinLabels {
					cells = append(cells, fmt.Sprint(c[binCounter(m, write, b)]))
				}
				fmt.Fprintf(w, "  %-14s %s\n", map[bool]string{false: "reads", true: "writes"}[write], strings.Join(cells, " "))
			}
		}
	}
	fmt.Fprintln(w, "\nPer file (rank -1: shared by every rank):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  module\trank\tfile\topens\treads\twrites\tbytes read\tbytes written")
	for _, r := range p.Records {
		name := filepath.Base(r.File)
		if r.Name != "" {
			name += ":" + r.Name
		}
		m := r.Module
		opens := r.Counters[m+"_OPENS"]
		if m == "MPIIO" {
			opens = r.Counters["MPIIO_INDEP_OPENS"] + r.Counters["MPIIO_COLL_OPENS"]
		}
		reads, writes := r.Counters[m+"_READS"], r.Counters[m+"_WRITES"]
		if m == "MPIIO" {
			for _, k := range []string{"INDEP", "COLL", "SPLIT", "NB"} {
				reads += r.Counters["MPIIO_"+k+"_READS"]
				writes += r.Counters["MPIIO_"+k+"_WRITES"]
			}
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%d\t%d\t%d\t%d\t%d\n", m, r.Rank, name, opens, reads, writes,
			r.Counters[m+"_BYTES_READ"], r.Counters[m+"_BYTES_WRITTEN"])
	}
	tw.Flush()
	if len(p.Calls) > 0 {
		fmt.Fprintln(w, "\nTime per kind of call (all ranks):")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, k := range sortedKeys(p.Calls) {
			c := p.Calls[k]
			fmt.Fprintf(tw, "  %s\t%d\t%.6f s\n", k, c.N, c.Time)
		}
		tw.Flush()
	}
}
