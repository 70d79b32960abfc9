package proxy_test

import (
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
)

// planned counts the operations of kind k every rank's plans of phase ph hold.
func planned(t *testing.T, cfg proxy.Config, ph patterns.Phase, size int, k plan.OpKind) float64 {
	t.Helper()
	return plannedWhere(t, cfg, ph, size, func(op plan.Op) bool { return op.Kind == k })
}

// plannedWhere counts the operations every rank's plans of phase ph hold that keep accepts.
func plannedWhere(t *testing.T, cfg proxy.Config, ph patterns.Phase, size int, keep func(plan.Op) bool) float64 {
	t.Helper()
	pat, err := cfg.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for r := range size {
		env := patterns.Env{Rank: r, Size: size, Path: cfg.File, Seed: cfg.Seed, Shape: fileShape(cfg.File)}
		steps := patterns.StepsOf(pat, ph, size)
		var plans []plan.Plan
		for s := range steps {
			pl, err := pat.Step(ph, s, env)
			if err != nil {
				t.Fatal(err)
			}
			plans = append(plans, pl)
		}
		for _, pl := range plans {
			for _, op := range pl.Ops {
				if keep(op) {
					n++
				}
			}
		}
	}
	return n
}

// fileShape returns the extents of the datasets of the written file (a read plan's
// patterns.Env.Shape).
func fileShape(path string) func(string) ([]uint64, error) {
	return func(name string) ([]uint64, error) {
		f, err := h5.OpenFile(path, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
		if err != nil {
			return nil, err
		}
		defer h5.CloseFile(f)
		d, err := h5.OpenDataset(f, name)
		if err != nil {
			return nil, err
		}
		defer h5.CloseDataset(d)
		return h5.DatasetShape(d)
	}
}

// runVPIC runs the phases of a VPIC session configured by kv on file and returns its
// configuration and report.
func runVPIC(t *testing.T, kv, file string, phases ...patterns.Phase) (proxy.Config, *proxy.Report) {
	t.Helper()
	cfg := config(t, kv, file)
	cfg.Phases = phases
	s := session(t, cfg)
	if err := s.Run(); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	rep, err := s.Report()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return cfg, rep
}

// callCount returns the census entry of call.
func callCount(c proxy.Census, call string) proxy.CallCount {
	for _, k := range c.Calls {
		if k.Call == call {
			return k
		}
	}
	return proxy.CallCount{Call: call}
}

// TestCensus runs small VPIC writes and reads at 2 ranks and checks the census against
// the plans: H5Dwrite and H5Dread counts and bytes, the actual I/O mode of collective
// transfers (contiguous collective when nothing broke it, no collective with the cause
// named when a datatype conversion did, independent transfers when a knob asked), and
// that the MPI-IO hints and chunking knobs reached MPI-IO and the file.
func TestCensus(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	size := world(t).Size()
	run := func(kv, name string, phases ...patterns.Phase) (proxy.Config, *proxy.Report) {
		t.Helper()
		return runVPIC(t, kv+";COLLECTIVE_DATA=YES;DIM_1=2K;TIMESTEPS=2", fileOf(dir, name, size), phases...)
	}

	cfg, rep := run("mpiio.cb_nodes=1;mpiio.hints=cb_buffer_size=65536;read.hdf5.transfer=independent", "census", patterns.PhaseWrite, patterns.PhaseRead)
	for i, p := range rep.Phases {
		ph, call, kind := patterns.PhaseWrite, "H5Dwrite", plan.Write
		if i == 1 {
			ph, call, kind = patterns.PhaseRead, "H5Dread", plan.Read
		}
		c := callCount(p.Census, call)
		if want := planned(t, cfg, ph, size, kind); c.Count != want || c.Bytes != p.Bytes || want == 0 {
			t.Errorf("%s: %s count %v bytes %v, want the plans' %v and the phase's %v", p.Phase, call, c.Count, c.Bytes, want, p.Bytes)
		}
		var steps float64
		for _, st := range p.PerStep {
			steps += callCount(st.Census, call).Count
		}
		if steps != c.Count {
			t.Errorf("%s: steps count %v %s, the phase %v", p.Phase, steps, call, c.Count)
		}
		if p.Census.SysIO["syscw"].Sum <= 0 || p.Census.SysIO["syscr"].Sum <= 0 {
			t.Errorf("%s: no system calls counted: %+v", p.Phase, p.Census.SysIO)
		}
		if i == 0 {
			if p.Census.CollectiveTransfers != c.Count || p.Census.IOModes["contiguous collective"] != c.Count || len(p.Census.BrokenBy) != 0 {
				t.Errorf("write: %v collective transfers, modes %v, broken by %v; want all %v contiguous collective",
					p.Census.CollectiveTransfers, p.Census.IOModes, p.Census.BrokenBy, c.Count)
			}
			if p.Census.SysIO["wchar"].Sum < p.Bytes {
				t.Errorf("write: %v characters written by system calls, fewer than the %v bytes", p.Census.SysIO["wchar"].Sum, p.Bytes)
			}
		} else if p.Census.CollectiveTransfers != 0 {
			t.Errorf("read with read.hdf5.transfer=independent: %v collective transfers", p.Census.CollectiveTransfers)
		}
	}
	// The hints reach MPI-IO: it reports them for the open file.
	f, err := h5.OpenFile(cfg.File, h5.Access{Comm: world(t).Fortran(), Info: cfg.MPIHints(), FileSpec: plan.FileSpec{Parallel: true, ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := h5.FileProperties(f)
	if cerr := h5.CloseFile(f); err == nil {
		err = cerr
	}
	if err != nil || a.Hints["cb_nodes"] != "1" || a.FileHints["cb_nodes"] != "1" || a.FileHints["cb_buffer_size"] != "65536" {
		t.Errorf("hints: access list %v, MPI-IO %v (%v); want cb_nodes=1 and cb_buffer_size=65536", a.Hints, a.FileHints, err)
	}
	if rep.MPIIO != "ompio" && rep.MPIIO != "romio" {
		t.Errorf("MPI-IO implementation in use %q", rep.MPIIO)
	}

	// h5bench's interleaved memory (a compound) needs a datatype conversion, which breaks
	// collective I/O in HDF5 1.10. HDF5 1.14 converts into its type conversion buffer and
	// writes collectively through selection I/O.
	_, rep = run("MEM_PATTERN=INTERLEAVED", "census-conv", patterns.PhaseWrite)
	p := rep.Phases[0]
	n := callCount(p.Census, "H5Dwrite").Count
	t.Logf("interleaved write on HDF5 %s: %v writes, modes %v, broken by %v, paths %v, no selection I/O %v",
		h5.Version(), n, p.Census.IOModes, p.Census.BrokenBy, p.Census.Paths, p.Census.NoSelectionIO)
	if h5.Build() == "1.10" {
		if p.Census.IOModes["no collective"] != n || p.Census.BrokenBy["datatype conversions were required"] != n || n == 0 || len(p.Census.Paths) != 0 {
			t.Errorf("interleaved write: %v writes, modes %v, broken by %v, paths %v; want every one no collective for datatype conversions, no paths",
				n, p.Census.IOModes, p.Census.BrokenBy, p.Census.Paths)
		}
	} else if p.Census.IOModes["contiguous collective"] != n || len(p.Census.BrokenBy) != 0 || p.Census.Paths["selection"] != n || n == 0 {
		t.Errorf("interleaved write: %v writes, modes %v, broken by %v, paths %v; want every one contiguous collective through selection I/O",
			n, p.Census.IOModes, p.Census.BrokenBy, p.Census.Paths)
	}

	// Chunking knobs reach the file; collective transfers of chunks are reported so.
	cfg, rep = run("hdf5.chunk=512;hdf5.deflate=1;hdf5.shuffle=yes;hdf5.alloc_time=early;hdf5.chunk_opt=multi_io", "census-chunk", patterns.PhaseWrite, patterns.PhaseRead)
	for _, p := range rep.Phases {
		n := callCount(p.Census, map[string]string{"write": "H5Dwrite", "read": "H5Dread"}[p.Phase]).Count
		if p.Census.IOModes["chunk collective"] != n || p.Census.ChunkOpts["multi chunk"] != n || n == 0 {
			t.Errorf("chunked %s with hdf5.chunk_opt=multi_io: %v transfers, modes %v, chunk optimizations %v", p.Phase, n, p.Census.IOModes, p.Census.ChunkOpts)
		}
	}
	f, err = h5.OpenFile(cfg.File, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	d, err := h5.OpenDataset(f, "/Timestep_0/x")
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseDataset(d)
	info, err := h5.DatasetInfo(d)
	if err != nil {
		t.Fatal(err)
	}
	tune, err := h5.DatasetTuning(d)
	if err != nil || len(info.Chunk) != 1 || info.Chunk[0] != 512 || info.Deflate != 1 || !tune.Shuffle || tune.AllocTime != plan.AllocTimeEarly {
		t.Errorf("chunked dataset: chunk %v deflate %d tuning %+v (%v); want 512, 1, shuffle, early", info.Chunk, info.Deflate, tune, err)
	}
}
