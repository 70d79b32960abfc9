package proxy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// Version is the h5proxy version.
const Version = "0.1.0"

// SchemaVersion is the version of the JSON report's structure.
const SchemaVersion = 1

// Report is the reduced measurement of every phase a session ran: the same on every rank.
type Report struct {
	SchemaVersion  int    `json:"schema_version"`
	H5proxyVersion string `json:"h5proxy_version"`
	GitRevision    string `json:"git_revision,omitempty"`
	HDF5Version    string `json:"hdf5_version"`
	// HDF5Build is the build's HDF5 switch (the Makefile's HDF5): "1.10" (the system's
	// 1.10.8) or "1.14". HDF5Version is the library loaded; they agree in a sound build.
	HDF5Build string `json:"hdf5_build"`
	// VOLConnector is the VOL connector the run's HDF5 calls went through: "native", the
	// name HDF5_VOL_CONNECTOR gave, or "LOG" with layout=log-vol (then the census's collective outcomes and the
	// native-only queries were not asked: "unavailable under" it).
	VOLConnector  string `json:"vol_connector"`
	MPIVersion    string `json:"mpi_version"`
	Ranks         int    `json:"ranks"`
	Nodes         int    `json:"nodes"`
	JobID         string `json:"job_id,omitempty"`
	Host          string `json:"host"`
	Pattern       string `json:"pattern"`
	ModeRequested string `json:"mode_requested"`
	ModeEffective string `json:"mode_effective"`
	// ModeImpl says how a mode that can run more than one way ran (mode=async: through
	// HDF5's event sets under a connector, or the async-model and why).
	ModeImpl string `json:"mode_impl,omitempty"`
	Layout   string `json:"layout"`
	// MPIIO is OpenMPI's MPI-IO implementation this process loaded (ompio or romio; empty
	// when no MPI-IO file was opened), whatever mpiio.impl asked.
	MPIIO    string            `json:"mpiio_impl,omitempty"`
	Config   map[string]string `json:"config"`
	Warnings []string          `json:"warnings,omitempty"`
	Phases   []PhaseReport     `json:"phases"`
}

// PhaseReport holds one phase's metrics, named and defined as h5bench defines them but
// reduced honestly: bytes summed over ranks, the observed window from the earliest start
// to the latest end, times as the slowest rank's (max) with the per-rank spread.
type PhaseReport struct {
	Phase string `json:"phase"`
	// Operation is the kernel's own name of the phase ("append", "write unlimited"), when
	// it has one; the CSV's operation row carries it.
	Operation string `json:"operation,omitempty"`
	// KernelMetrics are the kernel's own rows known before any I/O (patterns.Describer:
	// the normal-distribution kernel's particle statistics), printed after the rank count.
	KernelMetrics []patterns.Metric `json:"kernel_metrics,omitempty"`
	// Modify marks a write phase into an existing file (h5bench's overwrite and append),
	// whose summary speaks of a modify and of H5Fopen as those kernels' does.
	Modify bool `json:"modify,omitempty"`
	// File is the configured path; Files the files rank 0 created or opened, in order
	// (E3SM's out_h0.h5 and out_h1.h5 for out.h5, AMReX's plotfiles, ...).
	File  string   `json:"file"`
	Files []string `json:"files"`
	Steps int      `json:"steps"`
	// Bytes moved by all ranks.
	Bytes float64 `json:"bytes"`
	// Fill is how the phase's data was written (write) or is assumed written (read):
	// seeded, once, random or zero.
	Fill string `json:"fill"`
	// ObservedTime is h5bench's observed window (seconds), compute and whatever data
	// preparation happens inside it included: a write's from before the file create to after
	// the close and a barrier; a read's, and a write's into an existing file (h5bench's
	// overwrite and append), from after the file open (and the extent query of the first
	// step's plan) and a barrier to after the close and a barrier, as BD-CATS-IO and those
	// kernels leave their H5Fopen out.
	ObservedTime float64 `json:"observed_time"`
	// RawRate is Bytes / max raw time and ObservedRate Bytes / (ObservedTime - the least
	// compute time of any rank): h5bench's rates. ObservedIORate is h5proxy's: it also takes
	// out the data preparation and verification done inside the window (the least any rank
	// did, so the window stays at least as long as the slowest rank's I/O).
	RawRate        float64 `json:"raw_rate"`
	ObservedRate   float64 `json:"observed_rate"`
	ObservedIORate float64 `json:"observed_io_rate"`
	// Per-rank spreads (seconds).
	RawTime      Stat `json:"raw_time"`
	MetadataTime Stat `json:"metadata_time"`
	FileOpenTime Stat `json:"file_open_time"`
	FlushTime    Stat `json:"file_flush_time"`
	CloseTime    Stat `json:"file_close_time"`
	ComputeTime  Stat `json:"compute_time"`
	PrepTime     Stat `json:"prep_time"`
	// PrepWindowTime is the part of PrepTime inside the observed window (fill=once: only
	// buffers whose layout changes after step 0).
	PrepWindowTime Stat `json:"prep_in_window_time"`
	VerifyTime     Stat `json:"verify_time"`
	WaitTime       Stat `json:"wait_time"`
	RankBytes      Stat `json:"rank_bytes"`
	// Background modes: time the background spent in I/O; the caller's own time in I/O
	// calls and waits (what it was blocked by I/O); the drain at phase end; the staging
	// high-water mark (bytes) and the time callers waited for staging room.
	BackgroundTime Stat `json:"background_time"`
	CallerIOTime   Stat `json:"caller_io_time"`
	DrainTime      Stat `json:"drain_time"`
	StagingHigh    Stat `json:"staging_high_water"`
	StagingBlocked Stat `json:"staging_blocked_time"`
	// HiddenFraction is 1 - caller I/O time / background I/O time (slowest ranks), clamped
	// to 0..1: the share of the I/O the caller did not wait for.
	HiddenFraction float64 `json:"hidden_fraction"`
	// CacheReadHits counts reads served from node-local storage, summed over ranks.
	CacheReadHits float64 `json:"cache_read_hits"`
	// Verified is true when every element read was checked; Mismatches counts failures.
	Verified   bool         `json:"verified"`
	Mismatches float64      `json:"mismatches"`
	PerStep    []StepReport `json:"per_step"`
	// Kernel holds the lines of the pattern's own report (patterns.Reporter): what the
	// real program prints beside h5bench's metrics.
	Kernel []patterns.Line `json:"kernel,omitempty"`
	// Census is the phase's I/O census (census.go), begin and end included.
	Census Census `json:"census"`
	// Profile is the phase's profile counters (profile=yes, under libh5proxy-profile.so):
	// Darshan's counts, bytes and size bins of the POSIX, MPIIO, H5F and H5D modules
	// made between the phase's start and end, summed over ranks; zeros left out.
	Profile map[string]int64 `json:"profile,omitempty"`
}

// StepReport holds one step's reduced metrics.
type StepReport struct {
	Step         int     `json:"step"`
	Bytes        float64 `json:"bytes"`
	ObservedTime float64 `json:"observed_time"`
	RawTime      Stat    `json:"raw_time"`
	MetadataTime Stat    `json:"metadata_time"`
	ComputeTime  Stat    `json:"compute_time"`
	PrepTime     Stat    `json:"prep_time"`
	WaitTime     Stat    `json:"wait_time"`
	Background   Stat    `json:"background_time"`
	Census       Census  `json:"census"`
}

// Report reduces the measurements of every finished phase over the ranks. Collective.
func (s *Session) Report() (*Report, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if s.phase != nil {
		return nil, fmt.Errorf("%w: Report called during the %s phase; end it first", ErrState, s.phase.ph)
	}
	nodes, err := s.comm.NodeCount()
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	r := &Report{SchemaVersion: SchemaVersion, H5proxyVersion: Version, GitRevision: gitRevision(),
		HDF5Version: h5.Version(), HDF5Build: h5.Build(), VOLConnector: volConnector(s.cfg.Layout), MPIVersion: mpi.LibraryVersion(), Ranks: s.Size(), Nodes: nodes,
		JobID: jobID(), Host: host, Pattern: s.pat.Name(), ModeRequested: s.cfg.Mode, ModeEffective: s.cfg.Mode, ModeImpl: s.modeImpl,
		Layout: s.cfg.Layout, MPIIO: MPIIOInUse(), Config: s.cfg.Effective(), Warnings: s.cfg.Warnings}
	if want := s.cfg.MPIIOImpl(); want != "" && r.MPIIO != "" && want != r.MPIIO {
		r.Warnings = appendNew(slices.Clone(r.Warnings), fmt.Sprintf("mpiio.impl=%s asked, but the ranks run %s (launch them with %s)", want, r.MPIIO, MPIIOEnv(want)))
	}
	var earlier []patterns.PhaseTimes
	for _, p := range s.done {
		pr, pt, err := s.reducePhase(p, earlier)
		if err != nil {
			return nil, err
		}
		r.Phases = append(r.Phases, pr)
		earlier = append(earlier, pt)
	}
	return r, nil
}

// reducePhase reduces one phase; earlier are the times of the phases before it, which its
// pattern's own report may use.
func (s *Session) reducePhase(p *phaseRun, earlier []patterns.PhaseTimes) (PhaseReport, patterns.PhaseTimes, error) {
	// Samples: begin, steps..., end, then the total of all of them.
	all := append([]sample{p.begin}, p.steps...)
	all = append(all, p.end)
	var total sample
	for i := range all {
		all[i][mWall] = all[i][mEnd] - all[i][mStart]
		all[i].derive()
		total.add(&all[i])
	}
	total[mStart], total[mEnd] = p.begin[mStart], p.end[mEnd]
	total[mWall] = total[mEnd] - total[mStart]
	total[mPrepWindow] = total[mPrep] - total[mPrepBefore]
	total[mExcluded] = total[mCompute] + total[mPrepWindow] + total[mVerify]
	total[mCallerIO] = total[mRaw] + total[mMetadata] + total[mFileOpen] + total[mFileFlush] + total[mFileClose] + total[mWait]
	total[mSpan] = p.end[mDone] - total[mStart] - total[mPrepWindow] - total[mVerify]
	if p.ph == patterns.PhaseRead {
		total[mSpan] += p.begin[mFileOpen] // opened before the window starts
	}
	all = append(all, total)
	red, err := reduceSamples(s.comm, all)
	if err != nil {
		return PhaseReport{}, patterns.PhaseTimes{}, err
	}
	t := red.stats[len(all)-1]
	pr := PhaseReport{Phase: p.ph.String(), Modify: p.modify, File: s.cfg.File, Files: p.files, Steps: p.stepsDone, Fill: p.fill.String(),
		Bytes: t[mBytes].Sum, ObservedTime: t[mEnd].Max - t[mStart].Min,
		RawTime: t[mRaw], MetadataTime: t[mMetadata], FileOpenTime: t[mFileOpen], FlushTime: t[mFileFlush],
		CloseTime: t[mFileClose], ComputeTime: t[mCompute], PrepTime: t[mPrep], PrepWindowTime: t[mPrepWindow], VerifyTime: t[mVerify],
		WaitTime: t[mWait], RankBytes: t[mBytes], Verified: p.verify || (p.ownChecked && !p.ownUnchecked), Mismatches: t[mMismatch].Sum,
		BackgroundTime: t[mBackground], CallerIOTime: t[mCallerIO], StagingHigh: t[mStaged], StagingBlocked: t[mBlocked],
		DrainTime: red.stats[len(all)-2][mWait], CacheReadHits: t[mLocalReads].Sum, Census: census(&t, true)}
	if pr.Profile, err = phaseProfile(s.comm, s.cfg.Profile, p.profStart, p.profEnd); err != nil {
		return PhaseReport{}, patterns.PhaseTimes{}, err
	}
	if k, ok := s.pat.(patterns.Describer); ok {
		pr.Operation, pr.KernelMetrics = k.Operation(p.ph), k.Metrics(p.ph, p.env)
	}
	if b := pr.BackgroundTime.Max; b > 0 {
		pr.HiddenFraction = min(1, max(0, 1-pr.CallerIOTime.Max/b))
	}
	pr.RawRate = rate(pr.Bytes, pr.RawTime.Max)
	pr.ObservedRate = rate(pr.Bytes, pr.ObservedTime-t[mCompute].Min)
	pr.ObservedIORate = rate(pr.Bytes, pr.ObservedTime-t[mExcluded].Min)
	for i := range p.steps {
		st := red.stats[i+1]
		pr.PerStep = append(pr.PerStep, StepReport{Step: i, Bytes: st[mBytes].Sum, ObservedTime: st[mEnd].Max - st[mStart].Min,
			RawTime: st[mRaw], MetadataTime: st[mMetadata], ComputeTime: st[mCompute], PrepTime: st[mPrep],
			WaitTime: st[mWait], Background: st[mBackground], Census: census(&st, s.cfg.StepCensus)})
	}
	pt := phaseTimes(p.ph, s.Size(), &pr, t, red.stats[1:len(p.steps)+1])
	pt.Earlier, pt.Rank = earlier, s.Rank()
	pt.ByIteration, pt.Iteration = p.byIter, p.env.Iteration
	if _, ok := s.pat.(patterns.RankReporter); ok {
		if pt.PerRank, err = s.gatherRanks(p); err != nil {
			return PhaseReport{}, patterns.PhaseTimes{}, err
		}
	}
	if k, ok := s.pat.(patterns.Reporter); ok {
		pr.Kernel = k.KernelReport(pt)
	}
	return pr, pt, nil
}

// phaseTimes is the input of a pattern's own report: the phase's reduced measurements.
func phaseTimes(ph patterns.Phase, ranks int, pr *PhaseReport, t [nMetrics]Stat, steps [][nMetrics]Stat) patterns.PhaseTimes {
	tm := func(s Stat) patterns.Timing { return patterns.Timing{Min: s.Min, Max: s.Max, Mean: s.Mean} }
	pt := patterns.PhaseTimes{Phase: ph, Ranks: ranks, Bytes: pr.Bytes, Observed: pr.ObservedTime,
		Wall: tm(t[mWall]), Raw: tm(t[mRaw]), Metadata: tm(t[mMetadata]), FileOpen: tm(t[mFileOpen]),
		Flush: tm(t[mFileFlush]), FileClose: tm(t[mFileClose]), Compute: tm(t[mCompute]),
		Opens: tm(t[mOpens]), Span: tm(t[mSpan]), Start: t[mStart].Min, End: t[mEnd].Max, FileBytes: t[mFileSize].Max}
	for i, st := range steps {
		ops := map[plan.OpKind]patterns.Timing{}
		for k := plan.CreateFile; mKind+metric(k) < mCalls; k++ {
			ops[k] = tm(st[mKind+metric(k)])
		}
		pt.Steps = append(pt.Steps, patterns.StepTimes{Step: i, Bytes: st[mBytes].Sum, Wall: tm(st[mWall]),
			OpsSpan: tm(st[mOpsSpan]), Inner: tm(st[mInner]),
			FirstStart: tm(st[mFirstStart]), FirstEnd: tm(st[mFirstEnd]), LastStart: tm(st[mLastStartOwn]), LastEnd: tm(st[mLastEndOwn]),
			Raw: tm(st[mRaw]), Metadata: tm(st[mMetadata]), FileOpen: tm(st[mFileOpen]), Flush: tm(st[mFileFlush]),
			FileClose: tm(st[mFileClose]), Compute: tm(st[mCompute]), Ops: ops})
	}
	return pt
}

// gatherRanks gathers every rank's own measurements of a phase (collective): per rank, the
// phase's start and end, then per step its start, end, bytes and the time and count of
// each operation kind.
func (s *Session) gatherRanks(p *phaseRun) ([]patterns.RankPhase, error) {
	per := 3 + 2*int(nOpKinds)
	local := []float64{p.begin[mStart], p.end[mEnd]}
	for i := range p.steps {
		st := &p.steps[i]
		local = append(local, st[mStart], st[mEnd], st[mBytes])
		for k := metric(0); k < nOpKinds; k++ {
			local = append(local, st[mKind+k], st[mCalls+k])
		}
	}
	all, err := s.comm.AllgatherFloat64(local)
	if err != nil {
		return nil, err
	}
	out := make([]patterns.RankPhase, s.Size())
	for r := range out {
		v := all[r*len(local) : (r+1)*len(local)]
		out[r] = patterns.RankPhase{Start: v[0], End: v[1]}
		for i := range p.steps {
			w := v[2+i*per : 2+(i+1)*per]
			rs := patterns.RankStep{Start: w[0], End: w[1], Bytes: w[2], Ops: map[plan.OpKind]float64{}, Calls: map[plan.OpKind]float64{}}
			for k := plan.CreateFile; metric(k) < nOpKinds; k++ {
				rs.Ops[k], rs.Calls[k] = w[3+2*int(k)], w[4+2*int(k)]
			}
			out[r].Steps = append(out[r].Steps, rs)
		}
	}
	return out, nil
}

// fileList names a phase's files for the summary: all of them when few, else the first
// ones and the count.
func (p PhaseReport) fileList() string { return listFiles(p.Files, p.File) }

// listFiles names files: all of them when few, else the first ones and the count; none
// (a phase that opened no file) names the configured file.
func listFiles(files []string, configured string) string {
	switch {
	case len(files) == 0:
		return configured
	case len(files) <= 4:
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s, ... (%d files)", strings.Join(files[:3], ", "), len(files))
}

// layoutNotes explain, in the summary, rates that a layout makes low by design.
var layoutNotes = map[string]string{
	"e3sm/native": "the canonical layout writes each decomposed variable with one collective H5Dwrite of a union of single-element hyperslabs, millions per F-case record over all ranks, as E3SM-IO's canonical HDF5 path does; building those selections inside HDF5, not moving bytes, takes most of the time (the log layout, x=blob, writes the same data without them)",
}

func rate(bytes, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return bytes / seconds
}

// human formats a byte count or rate with h5bench's binary units (K, M, G, T = 1024^n).
func human(v float64) (float64, string) {
	units := []string{"", "K", "M", "G", "T", "P"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return v, units[i]
}

// WriteSummary prints h5bench's performance summary for every phase, with the "Mode:"
// line h5bench's --validate-mode looks for.
func (r *Report) WriteSummary(w io.Writer) error {
	bw := bufio.NewWriter(w)
	mode := strings.ToUpper(r.ModeEffective)
	for _, p := range r.Phases {
		op, word := p.Phase, p.Phase
		if p.Modify {
			word = "modify"
		}
		fmt.Fprintf(bw, "\n=================== Performance Results ==================\n")
		kernel := ""
		if p.Operation != "" {
			kernel = ", " + p.Operation
		}
		fmt.Fprintf(bw, "Pattern: %s (%s phase%s), layout %s, file %s\n", r.Pattern, op, kernel, r.Layout, p.fileList())
		fmt.Fprintf(bw, "Mode: %s\n", mode)
		fmt.Fprintf(bw, "Total number of ranks: %d\n", r.Ranks)
		for _, m := range p.KernelMetrics {
			fmt.Fprintf(bw, "%s: %s %s\n", m.Name, m.Value, m.Unit)
		}
		fmt.Fprintf(bw, "Total emulated compute time: %.3f s\n", p.ComputeTime.Max)
		v, u := human(p.Bytes)
		fmt.Fprintf(bw, "Total %s size: %.3f %sB\n", word, v, u)
		fmt.Fprintf(bw, "Raw %s time: %.3f s (ranks: min %.3f, mean %.3f)\n", word, p.RawTime.Max, p.RawTime.Min, p.RawTime.Mean)
		fmt.Fprintf(bw, "Metadata time: %.3f s\n", p.MetadataTime.Max)
		open := "H5Fcreate()"
		if op == "read" || p.Modify {
			open = "H5Fopen()"
		}
		fmt.Fprintf(bw, "%s time: %.3f s\n", open, p.FileOpenTime.Max)
		if op == "write" && !p.Modify {
			fmt.Fprintf(bw, "H5Fflush() time: %.3f s\n", p.FlushTime.Max)
		}
		fmt.Fprintf(bw, "H5Fclose() time: %.3f s\n", p.CloseTime.Max)
		if p.Modify {
			fmt.Fprintf(bw, "Observed modify completion time: %.3f s\n", p.ObservedTime)
		} else {
			fmt.Fprintf(bw, "Observed completion time: %.3f s\n", p.ObservedTime)
		}
		v, u = human(p.RawRate)
		fmt.Fprintf(bw, "%s Raw %s rate: %.3f %sB/s\n", mode, word, v, u)
		v, u = human(p.ObservedRate)
		fmt.Fprintf(bw, "%s Observed %s rate: %.3f %sB/s\n", mode, word, v, u)
		fmt.Fprintf(bw, "Data preparation time (fill=%s): %.3f s, of which %.3f s inside the observed window\n", p.Fill, p.PrepTime.Max, p.PrepWindowTime.Max)
		v, u = human(p.ObservedIORate)
		fmt.Fprintf(bw, "Observed %s rate without in-window preparation and verification: %.3f %sB/s\n", op, v, u)
		if p.BackgroundTime.Max > 0 {
			fmt.Fprintf(bw, "Background I/O time: %.3f s; caller blocked by I/O: %.3f s; hidden fraction: %.3f\n",
				p.BackgroundTime.Max, p.CallerIOTime.Max, p.HiddenFraction)
			v, u = human(p.StagingHigh.Max)
			fmt.Fprintf(bw, "Staging high-water: %.3f %sB; waiting for staging room: %.3f s; drain at close: %.3f s\n",
				v, u, p.StagingBlocked.Max, p.DrainTime.Max)
		}
		if p.CacheReadHits > 0 {
			fmt.Fprintf(bw, "Reads served from the node-local cache: %.0f\n", p.CacheReadHits)
		}
		if p.Verified {
			status := "OK"
			if p.Mismatches > 0 {
				status = fmt.Sprintf("FAILED, %.0f mismatching elements", p.Mismatches)
			}
			fmt.Fprintf(bw, "Verification: %s (%.3f s)\n", status, p.VerifyTime.Max)
		}
		p.Census.writeSummary(bw)
		writeProfileSummary(bw, p.Profile)
		if r.MPIIO != "" {
			fmt.Fprintf(bw, "MPI-IO implementation: %s\n", r.MPIIO)
		}
		fmt.Fprintf(bw, "HDF5: %s (build HDF5=%s)\n", r.HDF5Version, r.HDF5Build)
		if r.ModeImpl != "" {
			fmt.Fprintf(bw, "Mode %s ran through %s\n", r.ModeEffective, r.ModeImpl)
		}
		if r.VOLConnector != "native" {
			by := "HDF5_VOL_CONNECTOR"
			if r.Layout == "log-vol" {
				by = "layout=log-vol"
			}
			fmt.Fprintf(bw, "VOL connector: %s (%s; the census's collective I/O outcomes are unavailable under %s)\n", r.VOLConnector, by, r.VOLConnector)
		}
		for _, l := range p.Kernel {
			if l.Text != "" {
				fmt.Fprintln(bw, l.Text)
			} else if !l.Quiet {
				fmt.Fprintf(bw, "%s: %.3f %s\n", l.Name, l.Value, l.Unit)
			}
		}
		if n, ok := layoutNotes[r.Pattern+"/"+r.Layout]; ok && op == "write" {
			fmt.Fprintf(bw, "Note: %s\n", n)
		}
		fmt.Fprintf(bw, "===========================================================\n")
	}
	return bw.Flush()
}

// WriteCSV writes h5bench's CSV (metric, value, unit) for one phase, preceded by the
// environment metadata block when envFile names variables.
func (r *Report) WriteCSV(w io.Writer, phase int, envFile string) error {
	if phase < 0 || phase >= len(r.Phases) {
		return fmt.Errorf("report: no phase %d (have %d)", phase, len(r.Phases))
	}
	p := r.Phases[phase]
	bw := bufio.NewWriter(w)
	if envFile != "" {
		names, err := os.ReadFile(envFile)
		if err != nil {
			return fmt.Errorf("report: ENV_METADATA_FILE: %w", err)
		}
		fmt.Fprintln(bw, "=== Metadata ===")
		for _, n := range strings.Fields(string(names)) {
			fmt.Fprintf(bw, "%s = %s\n", n, os.Getenv(n))
		}
		fmt.Fprintln(bw, "=== Metadata end ===")
	}
	yn := func(key string) string {
		if v, ok := r.Config[key]; ok {
			if strings.EqualFold(v, "yes") || strings.EqualFold(v, "true") || v == "1" {
				return "YES"
			}
		}
		return "NO"
	}
	fmt.Fprintln(bw, "metric, value, unit")
	op := p.Phase
	if p.Operation != "" {
		op = p.Operation
	}
	fmt.Fprintf(bw, "operation, %s, \n", op)
	fmt.Fprintf(bw, "ranks, %d, \n", r.Ranks)
	for _, m := range p.KernelMetrics {
		fmt.Fprintf(bw, "%s, %s, %s\n", m.Name, m.Value, m.Unit)
	}
	fmt.Fprintf(bw, "collective data, %s, \n", yn("COLLECTIVE_DATA"))
	fmt.Fprintf(bw, "collective meta, %s, \n", yn("COLLECTIVE_METADATA"))
	layout, _ := stack.LookupLayout(r.Layout)
	fmt.Fprintf(bw, "subfiling, %s, \n", map[bool]string{true: "YES", false: "NO"}[layout.Has(stack.Subfiles)])
	fmt.Fprintf(bw, "total compute time, %.3f, seconds\n", p.ComputeTime.Max)
	v, u := human(p.Bytes)
	fmt.Fprintf(bw, "total size, %.3f, %sB\n", v, u)
	fmt.Fprintf(bw, "raw time, %.3f, seconds\n", p.RawTime.Max)
	v, u = human(p.RawRate)
	fmt.Fprintf(bw, "raw rate, %.3f, %sB/s\n", v, u)
	fmt.Fprintf(bw, "metadata time, %.3f, seconds\n", p.MetadataTime.Max)
	v, u = human(p.ObservedRate)
	fmt.Fprintf(bw, "observed rate, %.3f, %sB/s\n", v, u)
	fmt.Fprintf(bw, "observed time, %.3f, seconds\n", p.ObservedTime)
	// h5proxy's own rows follow h5bench's, so tools reading h5bench's rows by name still work.
	fmt.Fprintf(bw, "mode, %s, \n", strings.ToUpper(r.ModeEffective))
	fmt.Fprintf(bw, "fill, %s, \n", p.Fill)
	fmt.Fprintf(bw, "data preparation time, %.3f, seconds\n", p.PrepTime.Max)
	fmt.Fprintf(bw, "data preparation in window time, %.3f, seconds\n", p.PrepWindowTime.Max)
	fmt.Fprintf(bw, "verification time, %.3f, seconds\n", p.VerifyTime.Max)
	v, u = human(p.ObservedIORate)
	fmt.Fprintf(bw, "observed io rate, %.3f, %sB/s\n", v, u)
	fmt.Fprintf(bw, "raw time min, %.3f, seconds\n", p.RawTime.Min)
	fmt.Fprintf(bw, "raw time mean, %.3f, seconds\n", p.RawTime.Mean)
	fmt.Fprintf(bw, "file open time, %.3f, seconds\n", p.FileOpenTime.Max)
	if p.BackgroundTime.Max > 0 {
		fmt.Fprintf(bw, "background time, %.3f, seconds\n", p.BackgroundTime.Max)
		fmt.Fprintf(bw, "caller io time, %.3f, seconds\n", p.CallerIOTime.Max)
		fmt.Fprintf(bw, "hidden fraction, %.3f, \n", p.HiddenFraction)
		v, u = human(p.StagingHigh.Max)
		fmt.Fprintf(bw, "staging high-water, %.3f, %sB\n", v, u)
		fmt.Fprintf(bw, "staging wait time, %.3f, seconds\n", p.StagingBlocked.Max)
		fmt.Fprintf(bw, "drain time, %.3f, seconds\n", p.DrainTime.Max)
	}
	// The census, then the kernel's own rows last.
	if r.MPIIO != "" {
		fmt.Fprintf(bw, "mpiio implementation, %s, \n", r.MPIIO)
	}
	fmt.Fprintf(bw, "hdf5 version, %s, \n", r.HDF5Version)
	fmt.Fprintf(bw, "hdf5 build, %s, \n", r.HDF5Build)
	fmt.Fprintf(bw, "vol connector, %s, \n", r.VOLConnector)
	p.Census.writeCSV(bw)
	for _, l := range p.Kernel {
		if l.Name != "" {
			fmt.Fprintf(bw, "%s, %.3f, %s\n", l.Name, l.Value, l.Unit)
		}
	}
	return bw.Flush()
}

// WriteJSON writes the full report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteReports writes the configured outputs on rank 0: the summary to w (nil: none),
// the CSV of the last phase to CSVFile and the JSON report to ReportFile. Collective (the
// reduction), and every rank returns the same error status.
func (s *Session) WriteReports(w io.Writer) (*Report, error) {
	r, err := s.Report()
	if err != nil {
		return nil, err
	}
	var werr error
	if s.Rank() == 0 {
		werr = r.writeOutputs(w, s.cfg)
	}
	// Everyone learns whether rank 0's files were written.
	flag := []float64{b2f(werr != nil)}
	if res, err := s.comm.AllreduceFloat64(flag, mpi.OpMax); err != nil {
		return r, err
	} else if res[0] > 0 && werr == nil {
		werr = fmt.Errorf("h5proxy: rank 0 failed to write the reports")
	}
	return r, werr
}

func (r *Report) writeOutputs(w io.Writer, cfg Config) error {
	if w != nil {
		if err := r.WriteSummary(w); err != nil {
			return err
		}
	}
	if cfg.CSVFile != "" && len(r.Phases) > 0 {
		if err := writeFile(cfg.CSVFile, func(f io.Writer) error { return r.WriteCSV(f, len(r.Phases)-1, cfg.EnvMetadataFile) }); err != nil {
			return err
		}
		if w != nil {
			fmt.Fprintf(w, "CSV (h5bench's units: KB, MB = 1024^n bytes): %s\n", cfg.CSVFile)
		}
	}
	if cfg.ReportFile != "" {
		if err := writeFile(cfg.ReportFile, r.WriteJSON); err != nil {
			return err
		}
		if w != nil {
			fmt.Fprintf(w, "JSON report (SI units: bytes, seconds, bytes/s): %s\n", cfg.ReportFile)
		}
	}
	return nil
}

// writeFile writes through a temporary file and renames it, so a failed report never
// leaves a half-written file behind.
func writeFile(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("report %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

func gitRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			return s.Value
		}
	}
	return ""
}

func jobID() string {
	for _, k := range []string{"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "COBALT_JOBID", "FLUX_JOB_ID"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return ""
}

// SortedConfig returns the report's configuration as sorted KEY=VALUE lines.
func (r *Report) SortedConfig() []string {
	var out []string
	for k, v := range r.Config {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// HDF5Version returns the version of the HDF5 library linked in.
func HDF5Version() string { return h5.Version() }

// HDF5Build returns the HDF5 build h5proxy was compiled for, the Makefile's HDF5 switch:
// "1.10" (the system's 1.10.8) or "1.14" (HDF5=1.14).
func HDF5Build() string { return h5.Build() }

// HDF5HeaderVersion returns the version of the HDF5 headers h5proxy was compiled against;
// HDF5Version, the library loaded, equals it in a sound build.
func HDF5HeaderVersion() string { return h5.HeaderVersion() }

// HDF5Libraries returns the path of every HDF5 core library loaded into the process:
// exactly one in a sound build.
func HDF5Libraries() []string { return h5.LoadedLibraries() }

// MPIStandardVersion is the version of the MPI standard the MPI library implements
// (MPI_Get_version), such as 3 and 1.
func MPIStandardVersion() (major, minor int) { return mpi.StandardVersion() }

// Metrics lists the names Metric accepts.
var Metrics = []string{"bytes", "observed_time", "raw_rate", "observed_rate", "observed_io_rate", "raw_time", "metadata_time",
	"file_open_time", "file_flush_time", "file_close_time", "compute_time", "prep_time", "prep_in_window_time", "verify_time",
	"wait_time", "mismatches", "steps", "background_time", "caller_io_time", "drain_time", "staging_high_water",
	"hidden_fraction", "cache_read_hits"}

// Metric returns a phase metric by its JSON name: the reduced value (times are the
// slowest rank's; bytes and mismatches are sums over ranks).
func (p PhaseReport) Metric(name string) (float64, bool) {
	switch name {
	case "bytes":
		return p.Bytes, true
	case "observed_time":
		return p.ObservedTime, true
	case "raw_rate":
		return p.RawRate, true
	case "observed_rate":
		return p.ObservedRate, true
	case "observed_io_rate":
		return p.ObservedIORate, true
	case "prep_in_window_time":
		return p.PrepWindowTime.Max, true
	case "raw_time":
		return p.RawTime.Max, true
	case "metadata_time":
		return p.MetadataTime.Max, true
	case "file_open_time":
		return p.FileOpenTime.Max, true
	case "file_flush_time":
		return p.FlushTime.Max, true
	case "file_close_time":
		return p.CloseTime.Max, true
	case "compute_time":
		return p.ComputeTime.Max, true
	case "prep_time":
		return p.PrepTime.Max, true
	case "verify_time":
		return p.VerifyTime.Max, true
	case "wait_time":
		return p.WaitTime.Max, true
	case "mismatches":
		return p.Mismatches, true
	case "steps":
		return float64(p.Steps), true
	case "background_time":
		return p.BackgroundTime.Max, true
	case "caller_io_time":
		return p.CallerIOTime.Max, true
	case "drain_time":
		return p.DrainTime.Max, true
	case "staging_high_water":
		return p.StagingHigh.Max, true
	case "hidden_fraction":
		return p.HiddenFraction, true
	case "cache_read_hits":
		return p.CacheReadHits, true
	}
	return 0, false
}

// volConnector names the VOL connector of the run's HDF5 calls (h5.DefaultConnector), or
// says that asking failed.
func volConnector(layout string) string {
	c, err := h5.DefaultConnector()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	if layout == "log-vol" && c.Native {
		// The layout opens its files through the log-based VOL (H5Pset_vol), whatever the
		// process's default.
		return "LOG"
	}
	return c.Name
}
