package proxy

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/plan"
)

// The I/O census: per step and phase, the HDF5 calls the session handed the layout by
// kind (count and bytes), the outcome of every collective transfer (HDF5's actual I/O mode
// and the causes that broke collective I/O, read from the transfer list after the call)
// and the process's system-call counters (/proc/self/io). Counts are charged to the
// sample of the step that issued the calls; in background modes the transfers' outcomes
// and system calls land in the step during which the background thread made them.

// sysIOFields are the /proc/self/io fields of the census, in metric order.
var sysIOFields = [nSysIO]string{"syscr", "syscw", "rchar", "wchar", "read_bytes", "write_bytes"}

const nSysIO = 6

// callNames are the HDF5 calls the native layout makes for each operation kind (below
// nOpKinds: plan.SelectFile makes none and is not counted).
var callNames = map[plan.OpKind]string{
	plan.CreateFile: "H5Fcreate", plan.OpenFile: "H5Fopen", plan.FlushFile: "H5Fflush", plan.CloseFile: "H5Fclose",
	plan.CreateGroup: "H5Gcreate2", plan.OpenGroup: "H5Gopen2", plan.CloseGroup: "H5Gclose",
	plan.CreateDataset: "H5Dcreate2", plan.OpenDataset: "H5Dopen2", plan.CloseDataset: "H5Dclose",
	plan.WriteAttribute: "H5Awrite", plan.Write: "H5Dwrite", plan.Read: "H5Dread", plan.ExtendDataset: "H5Dset_extent",
	plan.WaitBaton: "MPI_Recv", plan.PassBaton: "MPI_Ssend",
}

// multiCalls name the multi-dataset calls, in mMulti order.
var multiCalls = [2]string{"H5Dwrite_multi", "H5Dread_multi"}

// countMulti charges one multi-dataset call of kind k (plan.Write or plan.Read) moving
// bytes to the census.
func (s *sample) countMulti(k plan.OpKind, bytes uint64) {
	i := metric(0)
	if k == plan.Read {
		i = 1
	}
	s[mMulti+i]++
	s[mMulti+2+i] += float64(bytes)
}

// objectCalls name the generic object calls, in mObject order: an open or close with
// plan.Op.AsObject is one of these, not the open or close of its kind.
var objectCalls = [2]string{"H5Oopen", "H5Oclose"}

// linkCalls name the link creation calls, in mLink order (plan.LinkKind 1..3): a
// plan.CreateLink counts as the call of its kind.
var linkCalls = [3]string{"H5Lcreate_hard", "H5Lcreate_soft", "H5Lcreate_external"}

// api1Calls name HDF5's 1.6 calls, in mAPI1 order: a group created with plan.Op.API1, a
// dataset created or opened with plan.DatasetSpec.API1 (api1Call).
var api1Calls = [3]string{"H5Gcreate1", "H5Dcreate1", "H5Dopen1"}

// api1Call is op's index in api1Calls, or -1 when op makes its kind's own call.
func api1Call(op *plan.Op) int {
	d := op.Dataset != nil && op.Dataset.API1
	switch {
	case op.Kind == plan.CreateGroup && op.API1:
		return 0
	case op.Kind == plan.CreateDataset && d:
		return 1
	case op.Kind == plan.OpenDataset && d:
		return 2
	}
	return -1
}

// countCall charges one operation handed to the layout to the census.
func (s *sample) countCall(op *plan.Op, bytes uint64) {
	if op.Kind == plan.CreateLink && op.Link != nil && op.Link.Kind >= plan.HardLink && op.Link.Kind <= plan.ExternalLink {
		s[mLink+metric(op.Link.Kind-plan.HardLink)]++
		return
	}
	if i := api1Call(op); i >= 0 {
		s[mAPI1+metric(i)]++
		return
	}
	if op.Kind == plan.ReadAttribute && op.Attribute != nil {
		s[mAttrRead]++
		s[mAttrRead+1] += float64(plan.Product(op.Attribute.Shape) * uint64(op.Attribute.Type.Size))
		return
	}
	if op.AsObject {
		switch op.Kind {
		case plan.OpenGroup, plan.OpenDataset:
			s[mObject]++
			return
		case plan.CloseGroup, plan.CloseDataset:
			s[mObject+1]++
			return
		}
	}
	if op.Kind > 0 && metric(op.Kind) < nOpKinds {
		s[mCalls+metric(op.Kind)]++
		s[mCallBytes+metric(op.Kind)] += float64(bytes)
	}
}

// readSysIO returns the counters of /proc/self/io in sysIOFields order; nil where the file
// is missing (not Linux) or unreadable.
func readSysIO() []float64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return nil
	}
	return parseSysIO(bytes.NewReader(data))
}

// parseSysIO reads "name: value" lines.
func parseSysIO(r io.Reader) []float64 {
	v := make([]float64, len(sysIOFields))
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			continue
		}
		for i, f := range sysIOFields {
			if f == name {
				v[i] = n
			}
		}
	}
	return v
}

// takeCensus charges to smp (nil: drops) the collective transfers' outcomes since the last
// call and, with sys, the system-call counters since the last call with sys.
func (s *Session) takeCensus(smp *sample, sys bool) {
	c, tallied := h5.TakeCensus()
	var now, last []float64
	if sys {
		now, last = readSysIO(), s.sysIO
		s.sysIO = now
	}
	if smp == nil {
		return
	}
	if now != nil && last != nil {
		for i := range sysIOFields {
			smp[mSysIO+metric(i)] += now[i] - last[i]
		}
	}
	if !tallied {
		return
	}
	smp[mCollective] += float64(c.Collective)
	for i, n := range c.Modes {
		smp[mIOMode+metric(i)] += float64(n)
	}
	for i, n := range c.ChunkOpts {
		smp[mChunkOpt+metric(i)] += float64(n)
	}
	for i, n := range c.Causes {
		smp[mCause+metric(i)] += float64(n)
	}
	for i, n := range c.Paths {
		smp[mPath+metric(i)] += float64(n)
	}
	for i, n := range c.SelCauses {
		smp[mSelCause+metric(i)] += float64(n)
	}
}

// Census is the I/O census of a phase or step, reduced over ranks.
type Census struct {
	// Calls are the HDF5 calls by kind (those with a count only), in plan order.
	Calls []CallCount `json:"calls"`
	// CollectiveTransfers counts the transfers made with a collective transfer list (all
	// ranks); IOModes counts them by the actual I/O mode HDF5 reported, ChunkOpts by its
	// actual chunk optimisation, and BrokenBy by each cause HDF5 gave for not doing (all of) one collectively, in HDF5's words.
	CollectiveTransfers float64            `json:"collective_transfers"`
	IOModes             map[string]float64 `json:"io_modes,omitempty"`
	ChunkOpts           map[string]float64 `json:"chunk_opts,omitempty"`
	BrokenBy            map[string]float64 `json:"broken_by,omitempty"`
	// Paths counts the transfers by the path they took through HDF5 1.14 (h5.PathNames:
	// multi, a dataset of a multi-dataset call; selection, vector or scalar, the actual
	// selection I/O mode of each call) and NoSelectionIO the calls without selection I/O
	// by HDF5's cause. Empty with HDF5 1.10, which reports neither.
	Paths         map[string]float64 `json:"paths,omitempty"`
	NoSelectionIO map[string]float64 `json:"no_selection_io,omitempty"`
	// SysIO are the process counters of /proc/self/io, per field: sum and spread over ranks.
	// A step's census has them only with census=step (Config.StepCensus).
	SysIO map[string]Stat `json:"sys_io,omitempty"`
}

// CallCount is one HDF5 call's count and bytes, summed over ranks (Count) and of the
// busiest rank (MaxCount).
type CallCount struct {
	Call     string  `json:"call"`
	Count    float64 `json:"count"`
	MaxCount float64 `json:"max_count"`
	Bytes    float64 `json:"bytes"`
}

// census builds the census of one reduced sample; sys: with its system-call counters.
func census(t *[nMetrics]Stat, sys bool) Census {
	c := Census{CollectiveTransfers: t[mCollective].Sum}
	for k := plan.CreateFile; metric(k) < nOpKinds; k++ {
		if n := t[mCalls+metric(k)]; n.Sum > 0 {
			c.Calls = append(c.Calls, CallCount{Call: callNames[k], Count: n.Sum, MaxCount: n.Max, Bytes: t[mCallBytes+metric(k)].Sum})
		}
	}
	for i, name := range multiCalls {
		if n := t[mMulti+metric(i)]; n.Sum > 0 {
			c.Calls = append(c.Calls, CallCount{Call: name, Count: n.Sum, MaxCount: n.Max, Bytes: t[mMulti+2+metric(i)].Sum})
		}
	}
	for i, name := range objectCalls {
		if n := t[mObject+metric(i)]; n.Sum > 0 {
			c.Calls = append(c.Calls, CallCount{Call: name, Count: n.Sum, MaxCount: n.Max})
		}
	}
	for i, name := range linkCalls {
		if n := t[mLink+metric(i)]; n.Sum > 0 {
			c.Calls = append(c.Calls, CallCount{Call: name, Count: n.Sum, MaxCount: n.Max})
		}
	}
	for i, name := range api1Calls {
		if n := t[mAPI1+metric(i)]; n.Sum > 0 {
			c.Calls = append(c.Calls, CallCount{Call: name, Count: n.Sum, MaxCount: n.Max})
		}
	}
	if n := t[mAttrRead]; n.Sum > 0 {
		c.Calls = append(c.Calls, CallCount{Call: "H5Aread", Count: n.Sum, MaxCount: n.Max, Bytes: t[mAttrRead+1].Sum})
	}
	c.IOModes = named(t, mIOMode, h5.IOModeNames[:])
	c.ChunkOpts = named(t, mChunkOpt, h5.ChunkOptNames[:])
	c.BrokenBy = named(t, mCause, h5.NoCollectiveCauses[:])
	c.Paths = named(t, mPath, h5.PathNames[:])
	c.NoSelectionIO = named(t, mSelCause, h5.NoSelectionCauses[:])
	if !sys {
		return c
	}
	c.SysIO = map[string]Stat{}
	for i, f := range sysIOFields {
		c.SysIO[f] = t[mSysIO+metric(i)]
	}
	return c
}

// named maps names[i] to the sum of metric first+i over ranks, for the non-zero ones (nil
// when none is).
func named(t *[nMetrics]Stat, first metric, names []string) map[string]float64 {
	var m map[string]float64
	for i, name := range names {
		if n := t[first+metric(i)].Sum; n > 0 {
			if m == nil {
				m = map[string]float64{}
			}
			m[name] = n
		}
	}
	return m
}

// writeSummary prints the census lines of the performance summary.
func (c *Census) writeSummary(w io.Writer) {
	var calls []string
	for _, k := range c.Calls {
		if k.Bytes > 0 {
			v, u := human(k.Bytes)
			calls = append(calls, fmt.Sprintf("%s %.0f (%.3f %sB)", k.Call, k.Count, v, u))
		} else {
			calls = append(calls, fmt.Sprintf("%s %.0f", k.Call, k.Count))
		}
	}
	fmt.Fprintf(w, "HDF5 calls (all ranks): %s\n", strings.Join(calls, ", "))
	if c.CollectiveTransfers > 0 {
		fmt.Fprintf(w, "Collective transfers: %.0f; actual I/O mode: %s", c.CollectiveTransfers, counted(c.IOModes, h5.IOModeNames[:]))
		if opts := counted(c.ChunkOpts, h5.ChunkOptNames[1:]); opts != "" {
			fmt.Fprintf(w, "; chunk optimization: %s", opts)
		}
		fmt.Fprintln(w)
		if len(c.BrokenBy) > 0 {
			fmt.Fprintf(w, "Collective I/O broken because: %s\n", counted(c.BrokenBy, h5.NoCollectiveCauses[:]))
		}
	}
	if len(c.Paths) > 0 {
		fmt.Fprintf(w, "Transfer paths: %s\n", counted(c.Paths, h5.PathNames[:]))
	}
	if len(c.NoSelectionIO) > 0 {
		fmt.Fprintf(w, "Selection I/O not done because: %s\n", counted(c.NoSelectionIO, h5.NoSelectionCauses[:]))
	}
	st := c.SysIO
	rc, wc := st["rchar"].Sum, st["wchar"].Sum
	rb, wb := st["read_bytes"].Sum, st["write_bytes"].Sum
	hv := func(v float64) string { x, u := human(v); return fmt.Sprintf("%.3f %sB", x, u) }
	fmt.Fprintf(w, "System I/O (all ranks): %.0f read calls, %.0f write calls; %s read, %s written; storage %s read, %s written\n",
		st["syscr"].Sum, st["syscw"].Sum, hv(rc), hv(wc), hv(rb), hv(wb))
}

// counted renders "name count" pairs in the order of names.
func counted(m map[string]float64, names []string) string {
	var parts []string
	for _, n := range names {
		if v, ok := m[n]; ok {
			parts = append(parts, fmt.Sprintf("%s %.0f", n, v))
		}
	}
	return strings.Join(parts, ", ")
}

// writeCSV writes the census rows of the CSV (names of h5proxy's own, after h5bench's).
func (c *Census) writeCSV(w io.Writer) {
	for _, k := range c.Calls {
		fmt.Fprintf(w, "census %s calls, %.0f, \n", k.Call, k.Count)
		fmt.Fprintf(w, "census %s calls max rank, %.0f, \n", k.Call, k.MaxCount)
		if k.Bytes > 0 {
			fmt.Fprintf(w, "census %s bytes, %.0f, bytes\n", k.Call, k.Bytes)
		}
	}
	fmt.Fprintf(w, "census collective transfers, %.0f, \n", c.CollectiveTransfers)
	for _, r := range []struct {
		prefix string
		m      map[string]float64
		names  []string
	}{
		{"io mode", c.IOModes, h5.IOModeNames[:]},
		{"chunk optimization", c.ChunkOpts, h5.ChunkOptNames[:]},
		{"broken because", c.BrokenBy, h5.NoCollectiveCauses[:]},
		{"path", c.Paths, h5.PathNames[:]},
		{"no selection io because", c.NoSelectionIO, h5.NoSelectionCauses[:]},
	} {
		for _, n := range r.names {
			if v, ok := r.m[n]; ok {
				fmt.Fprintf(w, "census %s %s, %.0f, \n", r.prefix, n, v)
			}
		}
	}
	for _, f := range sysIOFields {
		unit := ""
		if !strings.HasPrefix(f, "sysc") {
			unit = "bytes"
		}
		fmt.Fprintf(w, "census sys %s, %.0f, %s\n", f, c.SysIO[f].Sum, unit)
		fmt.Fprintf(w, "census sys %s max rank, %.0f, %s\n", f, c.SysIO[f].Max, unit)
	}
}
