package proxy_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
)

// The h5bench samples of the VPIC-family kernels (h5bench/testdata: h5bench's samples with
// DIM_1 shrunk; mpi.ranks 4 and -np 2, as in h5bench's) run through the h5bench adapter at 1, 2
// and 4 ranks, without their compute time. The expected files are written out here from
// h5bench_write_unlimited.c, h5bench_append.c, h5bench_overwrite.c and
// h5bench_write_var_normal_dist.c, independently of the patterns.

// kernelRun loads one entry of a testdata sample and places its file and CSV in dir.
func kernelRun(t *testing.T, sample string, entry int, file string) proxy.Config {
	t.Helper()
	f, err := h5bench.Load(filepath.Join("..", "h5bench", "testdata", sample))
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.Runs[entry].Config
	cfg.File, cfg.CSVFile, cfg.ComputePerStep = file, strings.TrimSuffix(file, ".h5")+".csv", 0
	return cfg
}

// runKernel runs cfg's phases (the kernel's write, then the read-back when asked) and
// returns the report; a read phase must verify every element.
func runKernel(t *testing.T, cfg proxy.Config, phases ...patterns.Phase) *proxy.Report {
	t.Helper()
	cfg.Phases = phases
	s := session(t, cfg)
	defer s.Close()
	if err := s.Run(); err != nil {
		t.Fatalf("%s %s: %v", cfg.Pattern, cfg.File, err)
	}
	rep, err := s.WriteReports(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Phases {
		if p.Phase == "read" && (!p.Verified || p.Mismatches != 0) {
			t.Errorf("%s %s read: verified=%v mismatches=%v", cfg.Pattern, cfg.File, p.Verified, p.Mismatches)
		}
	}
	return rep
}

// csvHas checks rows of the CSV of a report's first phase (the kernel's).
func csvHas(t *testing.T, rep *proxy.Report, rows ...string) {
	t.Helper()
	var b strings.Builder
	if err := rep.WriteCSV(&b, 0, ""); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !strings.Contains(b.String(), r+"\n") {
			t.Errorf("CSV lacks row %q:\n%s", r, b.String())
		}
	}
}

func kernelFile(dir, name string, np int) string {
	return filepath.Join(dir, fmt.Sprintf("%s-np%d.h5", name, np))
}

// TestVPICKernels runs write-unlimited, append, overwrite and write_var_normal_dist from
// their h5bench samples at 1, 2 and 4 ranks (append and overwrite also under async and the
// log layout), reads back what each wrote with verification, checks the CSV rows of the
// kernels, then (in the parent) compares the files' structure and values with h5bench's.
func TestVPICKernels(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, rankCounts...) {
		for _, np := range rankCounts {
			checkUnlimited(t, kernelFile(dir, "unlimited", np), np)
			checkAppend(t, kernelFile(dir, "append", np), np, 2)
			checkAppend(t, kernelFile(dir, "append-async", np), np, 2)
			checkOverwrite(t, kernelFile(dir, "overwrite", np), np)
			checkOverwrite(t, kernelFile(dir, "overwrite-async", np), np)
			checkNormalDist(t, kernelFile(dir, "normal", np), np)
			checkAppend2D(t, kernelFile(dir, "append2d", np))
		}
		return
	}
	np := world(t).Size()
	wp, rp := patterns.PhaseWrite, patterns.PhaseRead

	// write-unlimited alone, read back by BD-CATS-IO's kernel.
	f := kernelFile(dir, "unlimited", np)
	rep := runKernel(t, kernelRun(t, "sync-write-unlimited-contig-1d-small.json", 0, f), wp, rp)
	if w := rep.Phases[0]; w.Operation != "write unlimited" || w.Bytes != float64(5*np*2*32) {
		t.Errorf("write-unlimited: operation %q bytes %v", w.Operation, w.Bytes)
	}
	csvHas(t, rep, "operation, write unlimited, ", fmt.Sprintf("ranks, %d, ", np),
		"hdf5 version, "+proxy.HDF5Version()+", ", "hdf5 build, "+proxy.HDF5Build()+", ")

	// sync-append.json: write-unlimited then append, read back; again under async and log.
	for _, v := range []struct{ name, key, value string }{{"append", "", ""}, {"append-async", "mode", "async"}, {"append-log", "layout", "log"}} {
		f := kernelFile(dir, v.name, np)
		for i, phases := range [][]patterns.Phase{{wp}, {wp, rp}} {
			cfg := kernelRun(t, "sync-append.json", i, f)
			if v.key != "" {
				if err := cfg.Set(v.key, v.value); err != nil {
					t.Fatal(err)
				}
			}
			if i == 1 && v.value == "log" && np > 2 {
				// The append sets the extent to 2*DIM_1, below the R*DIM_1 rows written:
				// HDF5 drops the rows beyond, the logs cannot.
				cfg.Phases = phases
				s := session(t, cfg)
				if err := s.Run(); err == nil || !strings.Contains(err.Error(), "shrinking the extent [8] to [4] is not supported") {
					t.Errorf("append shrinking a log-layout dataset: %v", err)
				}
				s.Close()
				continue
			}
			rep := runKernel(t, cfg, phases...)
			if i == 1 && (rep.Phases[0].Operation != "append" || rep.Phases[0].Bytes != float64(5*np*2*32)) {
				t.Errorf("%s: operation %q bytes %v", v.name, rep.Phases[0].Operation, rep.Phases[0].Bytes)
			}
			if i == 1 {
				csvHas(t, rep, "operation, append, ")
			}
		}
	}

	// sync-overwrite.json over a file h5bench's write kernel made with the same keys.
	for _, v := range []struct{ name, mode string }{{"overwrite", "sync"}, {"overwrite-async", "async"}} {
		f := kernelFile(dir, v.name, np)
		runKernel(t, config(t, "NUM_DIMS=1;DIM_1=4;TIMESTEPS=5;mode="+v.mode, f), wp)
		cfg := kernelRun(t, "sync-overwrite.json", 0, f)
		if err := cfg.Set("mode", v.mode); err != nil {
			t.Fatal(err)
		}
		rep := runKernel(t, cfg, wp, rp)
		if w := rep.Phases[0]; w.Operation != "overwrite" || w.Bytes != float64(5*np*4*32) {
			t.Errorf("%s: operation %q bytes %v", v.name, w.Operation, w.Bytes)
		}
		csvHas(t, rep, "operation, overwrite, ")
		var sum strings.Builder
		if err := rep.WriteSummary(&sum); err != nil {
			t.Fatal(err)
		}
		for _, line := range []string{"(write phase, overwrite)", "Total modify size: 1.250 KB", "Raw modify time:", "H5Fopen() time:",
			"Observed modify completion time:", "Raw modify rate:", "Total read size: 1.250 KB"} {
			if np == 2 && !strings.Contains(sum.String(), line) {
				t.Errorf("summary lacks %q:\n%s", line, sum.String())
			}
		}
		if strings.Contains(sum.String(), "H5Fflush") {
			t.Errorf("overwrite summary has a flush:\n%s", sum.String())
		}
	}

	// Layouts that cannot modify a file say so; so does a missing file.
	if np == 2 {
		s := session(t, kernelRun(t, "sync-overwrite.json", 0, kernelFile(dir, "missing", np)))
		if err := s.Run(); err == nil || !strings.Contains(err.Error(), "missing-np2.h5\" to modify") {
			t.Errorf("overwrite of a missing file: %v", err)
		}
		s.Close()
		for _, v := range []struct{ layout, want string }{
			{"subfiling", "subfiled datasets cannot be modified"},
			{"mpiio", "was not written by this session"},
		} {
			f := kernelFile(dir, "overwrite-"+v.layout, np)
			runKernel(t, config(t, "NUM_DIMS=1;DIM_1=4;TIMESTEPS=1"+layoutKV(v.layout, np), f), wp)
			cfg := kernelRun(t, "sync-overwrite.json", 0, f)
			if err := cfg.Set("layout", v.layout); err != nil {
				t.Fatal(err)
			}
			s := session(t, cfg)
			if err := s.Run(); err == nil || !strings.Contains(err.Error(), v.want) {
				t.Errorf("overwrite under the %s layout: %v, want %q", v.layout, err, v.want)
			}
			s.Close()
		}
	}

	// write_var_normal_dist, each rank reading its slice back.
	f = kernelFile(dir, "normal", np)
	rep = runKernel(t, kernelRun(t, "sync-write-1d-contig-contig-write-full_var_normal_dist.json", 0, f), wp, rp)
	w := rep.Phases[0]
	if w.Operation != "write_var_normal_dist" || len(w.KernelMetrics) != 3 || w.KernelMetrics[0].Name != "Total number of particles" {
		t.Fatalf("normal dist: operation %q metrics %+v", w.Operation, w.KernelMetrics)
	}
	csvHas(t, rep, "operation, write_var_normal_dist, ", "Total number of particles, 0M, ", "Final mean particles, "+w.KernelMetrics[1].Value+", ")
	// The varying counts under the log and subfiling layouts, async.
	for _, layout := range strategyLayouts {
		cfg := kernelRun(t, "sync-write-1d-contig-contig-write-full_var_normal_dist.json", 0, kernelFile(dir, "normal-"+layout, np))
		for k, v := range map[string]string{"layout": layout, "mode": "async"} {
			if err := cfg.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		if layout == "subfiling" && np > 1 {
			if err := cfg.Set("subfiling.count", "2"); err != nil {
				t.Fatal(err)
			}
		}
		runKernel(t, cfg, wp, rp)
	}

	// 2-D write-unlimited and append from native configurations (by pattern name).
	f = kernelFile(dir, "append2d", np)
	for _, k := range []struct {
		pattern, kv string
		phases      []patterns.Phase
	}{{"vpic-unlimited", "CHUNK_DIM_1=2;CHUNK_DIM_2=3", []patterns.Phase{wp}},
		// HDF5 1.10 writes filtered datasets collectively only (h5bench's sample sets it).
		{"vpic-append", "COLLECTIVE_DATA=YES", []patterns.Phase{wp, rp}}} {
		kvs, err := proxy.ParseKV("NUM_DIMS=2;DIM_1=2;DIM_2=3;TIMESTEPS=2;" + k.kv + ";file=" + f)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := proxy.ParseOptions(k.pattern, kvs)
		if err != nil {
			t.Fatal(err)
		}
		runKernel(t, cfg, k.phases...)
	}
}

// kernelVars are h5bench's 8 datasets per timestep.
var kernelVars = []string{"x", "y", "z", "px", "py", "pz", "id_1", "id_2"}

func kernelVarType(v string) plan.Type {
	if v == "id_1" {
		return plan.I32
	}
	return plan.F32
}

// checkKernelTree compares a file's objects and each dataset's type, extent, maximum extent,
// chunk and deflate level with h5bench's: Timestep_0..steps-1, 8 datasets each.
func checkKernelTree(t *testing.T, file string, steps int, shape, maxShape, chunk []uint64, deflate int) {
	t.Helper()
	tree, err := inspect.Tree(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree) != steps*9 {
		t.Errorf("%s: %d objects, want %d: %v", file, len(tree), steps*9, tree)
	}
	f, err := h5.OpenFile(file, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	// h5bench's VPIC-family files carry no attributes.
	if names, err := h5.AttributeNames(f); err != nil || len(names) > 0 {
		t.Errorf("%s: root attributes %v (%v)", file, names, err)
	}
	for s := 0; s < steps; s++ {
		for _, v := range kernelVars {
			p := fmt.Sprintf("/Timestep_%d/%s", s, v)
			d, err := h5.OpenDataset(f, p)
			if err != nil {
				t.Errorf("%s: %v", file, err)
				continue
			}
			info, err := h5.DatasetInfo(d)
			if names, aerr := h5.AttributeNames(d); aerr != nil || len(names) > 0 {
				t.Errorf("%s %s: attributes %v (%v)", file, p, names, aerr)
			}
			h5.CloseDataset(d)
			if err != nil {
				t.Fatal(err)
			}
			if !info.Type.Equal(kernelVarType(v)) || !reflect.DeepEqual(info.Shape, shape) || !reflect.DeepEqual(info.MaxShape, maxShape) ||
				!reflect.DeepEqual(info.Chunk, chunk) || info.Deflate != deflate {
				t.Errorf("%s %s: %s %v max %v chunk %v deflate %d; want %s %v max %v chunk %v deflate %d", file, p, info.Type, info.Shape,
					info.MaxShape, info.Chunk, info.Deflate, kernelVarType(v), shape, maxShape, chunk, deflate)
			}
		}
	}
}

// readKernelVar reads one dataset as float64 values (f32 or i32).
func readKernelVar(t *testing.T, file, p string, n uint64) []float64 {
	t.Helper()
	if strings.HasSuffix(p, "/id_1") {
		return readAs[int32](t, file, p, n)
	}
	return readAs[float32](t, file, p, n)
}

func readAs[T int32 | float32](t *testing.T, file, p string, n uint64) []float64 {
	t.Helper()
	v := make([]T, n)
	if err := inspect.Read(file, p, &v); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, n)
	for i := range v {
		out[i] = float64(v[i])
	}
	return out
}

// seededAt is the value h5proxy's once fill writes at global index g.
func seededAt(v string, g uint64) float64 {
	return emulate.Value(kernelVarType(v).Class, proxy.DefaultSeed, v, 0, g)
}

// checkKernelValues compares every element of the 8 datasets of a timestep with want.
func checkKernelValues(t *testing.T, file string, step int, n uint64, want func(v string, g uint64) float64) {
	t.Helper()
	for _, v := range kernelVars {
		got := readKernelVar(t, file, fmt.Sprintf("/Timestep_%d/%s", step, v), n)
		for g := range got {
			if w := want(v, uint64(g)); got[g] != w {
				t.Errorf("%s step %d %s[%d] = %v, want %v", file, step, v, g, got[g], w)
				break
			}
		}
	}
}

// checkUnlimited: h5bench_write_unlimited's file: [R*DIM_1] datasets of unlimited maximum
// extent, chunks of CHUNK_DIM_1 (default 1), deflate 9, seeded values.
func checkUnlimited(t *testing.T, file string, np int) {
	n := uint64(2 * np)
	checkKernelTree(t, file, 5, []uint64{n}, []uint64{plan.MaxUnlimited}, []uint64{1}, 9)
	checkKernelValues(t, file, 4, n, seededAt)
}

// checkAppend: after the append every dataset has 2*DIM_1 rows whatever the rank count
// (H5Dset_extent to 2*DIM_1: growing at 1 rank, shrinking at 4), rows DIM_1.. hold the
// append's values (1-D: int i, float i) and the rows before it what the write kernel
// wrote there.
func checkAppend(t *testing.T, file string, np int, dim1 uint64) {
	checkKernelTree(t, file, 5, []uint64{2 * dim1}, []uint64{plan.MaxUnlimited}, []uint64{1}, 9)
	for s := 0; s < 5; s++ {
		checkKernelValues(t, file, s, 2*dim1, func(v string, g uint64) float64 {
			if g >= dim1 {
				return float64(g - dim1)
			}
			return seededAt(v, g)
		})
	}
}

// checkOverwrite: the write kernel's file, every rank's DIM_1 rows rewritten with
// h5bench_overwrite's values: int i, float (float)i * 0.1.
func checkOverwrite(t *testing.T, file string, np int) {
	const dim1 = 4
	n := uint64(dim1 * np)
	checkKernelTree(t, file, 5, []uint64{n}, []uint64{n}, nil, 0)
	checkKernelValues(t, file, 2, n, func(v string, g uint64) float64 {
		if v == "id_1" {
			return float64(g % dim1)
		}
		return float64(float32(float64(g%dim1) * 0.1))
	})
}

// checkNormalDist: one dataset extent, the sum of the drawn counts (the mean DIM_1 = 64
// per rank, deviation 16: rank counts that all equal 64 would mean nothing was drawn),
// contiguous, seeded values at global indices.
func checkNormalDist(t *testing.T, file string, np int) {
	d, err := inspect.Points(file, "/Timestep_0/x")
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(d)
	if np > 1 && n == uint64(64*np) {
		t.Errorf("%s: %d particles, exactly %d ranks x 64: the counts were not drawn", file, n, np)
	}
	checkKernelTree(t, file, 5, []uint64{n}, []uint64{n}, nil, 0)
	checkKernelValues(t, file, 3, n, seededAt)
}

// checkAppend2D: a 2-D write-unlimited file (2x3 per rank, chunks 2x3) appended: extent
// [4, 3] at any rank count, every dimension unlimited, rows 2..3 holding int i+j and
// float i/(j+1) at (i, j) of the appended block.
func checkAppend2D(t *testing.T, file string) {
	inf := plan.MaxUnlimited
	checkKernelTree(t, file, 2, []uint64{4, 3}, []uint64{inf, inf}, []uint64{2, 3}, 9)
	got := readKernelVar(t, file, "/Timestep_1/px", 12)
	ids := readKernelVar(t, file, "/Timestep_1/id_1", 12)
	for i := uint64(0); i < 2; i++ {
		for j := uint64(0); j < 3; j++ {
			e := (2+i)*3 + j
			if f := float64(float32(i) / float32(j+1)); got[e] != f || ids[e] != float64(i+j) {
				t.Errorf("%s (%d,%d): px %v id_1 %v, want %v %v", file, 2+i, j, got[e], ids[e], f, i+j)
			}
		}
	}
}
