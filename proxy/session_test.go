package proxy_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/vpic"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
)

// rankCounts are the communicator sizes the multi-rank tests sweep: 1, 2 and 4, or 2
// alone in make test's 1.14 suite (mpitest.Sweep; docs/hdf5.md, "What each suite runs").
var rankCounts = mpitest.Sweep(1, 2, 4)

// combo is one VPIC configuration exercised end to end.
type combo struct {
	name string
	kv   string // pattern and session options
	read bool   // whether the read kernel can read the file (CONTIG or STRIDED files)
}

var combos = []combo{
	{"cc1d", "MEM_PATTERN=CONTIG;FILE_PATTERN=CONTIG;NUM_DIMS=1;DIM_1=1000;COLLECTIVE_DATA=YES", true},
	{"cc2d", "MEM_PATTERN=CONTIG;FILE_PATTERN=CONTIG;NUM_DIMS=2;DIM_1=10;DIM_2=7", true},
	{"cc3d", "MEM_PATTERN=CONTIG;FILE_PATTERN=CONTIG;NUM_DIMS=3;DIM_1=4;DIM_2=3;DIM_3=5;COLLECTIVE_DATA=YES;COLLECTIVE_METADATA=YES", true},
	{"ci1d", "MEM_PATTERN=CONTIG;FILE_PATTERN=INTERLEAVED;NUM_DIMS=1;DIM_1=500", false},
	{"ci2d", "MEM_PATTERN=CONTIG;FILE_PATTERN=INTERLEAVED;NUM_DIMS=2;DIM_1=6;DIM_2=5;COLLECTIVE_DATA=YES", false},
	{"ic1d", "MEM_PATTERN=INTERLEAVED;FILE_PATTERN=CONTIG;NUM_DIMS=1;DIM_1=500;COLLECTIVE_DATA=YES", false},
	{"ic2d", "MEM_PATTERN=INTERLEAVED;FILE_PATTERN=CONTIG;NUM_DIMS=2;DIM_1=6;DIM_2=5", false},
	{"ii1d", "MEM_PATTERN=INTERLEAVED;FILE_PATTERN=INTERLEAVED;NUM_DIMS=1;DIM_1=500;COLLECTIVE_DATA=YES", false},
	{"ii2d", "MEM_PATTERN=INTERLEAVED;FILE_PATTERN=INTERLEAVED;NUM_DIMS=2;DIM_1=6;DIM_2=5", false},
	{"cs1d", "MEM_PATTERN=CONTIG;FILE_PATTERN=STRIDED;NUM_DIMS=1;DIM_1=64;STRIDE_SIZE=8;BLOCK_SIZE=3;BLOCK_CNT=5;READ_OPTION=STRIDED", true},
	{"compress", "NUM_DIMS=2;DIM_1=8;DIM_2=6;COMPRESS=YES;CHUNK_DIM_1=4;CHUNK_DIM_2=3", true},
	{"fpp", "NUM_DIMS=1;DIM_1=300;FILE_PER_PROC=YES", true},
	{"align", "NUM_DIMS=1;DIM_1=300;ALIGN=YES;ALIGN_THRESHOLD=4096;ALIGN_LEN=65536;COLLECTIVE_METADATA=YES", true},
}

const timesteps = 2

// modes are the I/O modes every end-to-end test runs under: they must write identical
// files.
var modes = []string{"sync", "async", "cache"}

// testDir returns a directory shared by the parent test and its launched ranks.
func testDir(t *testing.T) string {
	t.Helper()
	const key = "H5PROXY_TEST_DIR"
	if mpitest.Child() {
		d := os.Getenv(key)
		if d == "" {
			t.Fatal(key + " not set in the launched rank")
		}
		return d
	}
	d := t.TempDir()
	t.Setenv(key, d)
	return d
}

func fileOf(dir, name string, size int) string {
	return filepath.Join(dir, fmt.Sprintf("%s-np%d.h5", name, size))
}

func config(t testing.TB, kv, file string) proxy.Config {
	t.Helper()
	if !strings.Contains(kv, "TIMESTEPS=") {
		kv += fmt.Sprintf(";TIMESTEPS=%d", timesteps)
	}
	kvs, err := proxy.ParseKV(kv + ";file=" + file)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := proxy.ParseOptions("vpic", kvs)
	if err != nil {
		t.Fatalf("%s: %v", kv, err)
	}
	return cfg
}

// finalizeMPI is set by the first session of a launched rank; TestMain calls it.
var finalizeMPI func() error

// TestMain finalizes MPI in launched ranks: mpirun treats an exit without MPI_Finalize
// as a failure.
func TestMain(m *testing.M) {
	code := m.Run()
	if finalizeMPI != nil {
		if err := finalizeMPI(); err != nil && code == 0 {
			fmt.Fprintln(os.Stderr, "MPI_Finalize:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// world initializes MPI in a launched rank (once) and returns the world communicator.
func world(t testing.TB) proxy.Comm {
	t.Helper()
	runtime.LockOSThread()
	if finalizeMPI == nil {
		f, err := proxy.InitMPI()
		if err != nil {
			t.Fatal(err)
		}
		finalizeMPI = f
	}
	return proxy.World()
}

// session opens a session on the world communicator.
func session(t testing.TB, cfg proxy.Config) *proxy.Session {
	t.Helper()
	world(t)
	s, err := proxy.NewSession(proxy.World(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWriteReadVerify writes every VPIC pattern at 1, 2 and 4 ranks, reads it back
// through the proxy with element-by-element verification, checks the reduced byte counts
// in the JSON report, then (in the parent) re-reads every file with gonum.org/v1/hdf5 and
// compares structure and values.
func TestWriteReadVerify(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, rankCounts...) {
		for _, np := range rankCounts {
			for _, mode := range vpicModes {
				for _, c := range combos {
					checkIndependently(t, c, np, fileOf(dir, c.name+"-"+mode, np))
				}
			}
		}
		return
	}
	size := world(t).Size()
	for _, mode := range vpicModes {
		for _, c := range combos {
			writeReadVerify(t, c, mode, fileOf(dir, c.name+"-"+mode, size), size)
		}
	}
}

// vpicModes adds the async mode without the write copy (data generated in lent staging
// memory) to the VPIC end-to-end runs.
var vpicModes = append(modes[:len(modes):len(modes)], "async-nocopy")

// modeKV renders a tested mode as session options.
func modeKV(mode string) string {
	if mode == "async-nocopy" {
		return "mode=async;async.write_memcpy=NO"
	}
	return "mode=" + mode
}

// writeReadVerify runs one combination under one mode and checks the report.
func writeReadVerify(t *testing.T, c combo, mode, file string, size int) {
	t.Helper()
	cfg := config(t, c.kv+";"+modeKV(mode), file)
	cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
	if c.read {
		cfg.Phases = append(cfg.Phases, patterns.PhaseRead)
	}
	cfg.ReportFile = file + ".json"
	s := session(t, cfg)
	if err := s.Run(); err != nil {
		t.Fatalf("%s %s: %v", c.name, mode, err)
	}
	rep, err := s.WriteReports(nil)
	if err != nil {
		t.Fatalf("%s %s: %v", c.name, mode, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	pat, _ := cfg.NewPattern()
	want := float64(bytesPerStep(pat.(*vpic.Pattern), size) * timesteps)
	for _, p := range rep.Phases {
		if p.Bytes != want {
			t.Errorf("%s %s: report bytes %v, want %v", c.name, p.Phase, p.Bytes, want)
		}
		if p.Phase == "read" && (!p.Verified || p.Mismatches != 0) {
			t.Errorf("%s read: verified=%v mismatches=%v", c.name, p.Verified, p.Mismatches)
		}
		if len(p.PerStep) != timesteps {
			t.Errorf("%s %s: %d per-step entries", c.name, p.Phase, len(p.PerStep))
		}
	}
	if world(t).Rank() == 0 {
		checkJSONReport(t, cfg.ReportFile, rep)
	}
	if mode != "sync" && (rep.Phases[0].BackgroundTime.Max <= 0 || rep.ModeEffective != strings.TrimSuffix(mode, "-nocopy")) {
		t.Errorf("%s %s: background time %v, mode %s", c.name, mode, rep.Phases[0].BackgroundTime, rep.ModeEffective)
	}
}

// bytesPerStep is what all ranks move per step: h5bench counts 32 bytes per particle.
func bytesPerStep(p *vpic.Pattern, size int) uint64 {
	per := p.C.Particles()
	if p.C.FilePattern == "STRIDED" {
		per = p.C.Block * p.C.BlockCount
	}
	return per * vpic.BytesPerParticle * uint64(size)
}

func checkJSONReport(t *testing.T, path string, rep *proxy.Report) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got proxy.Report
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("report %s: %v", path, err)
	}
	if got.SchemaVersion != proxy.SchemaVersion || got.Ranks != rep.Ranks || got.HDF5Version == "" || got.MPIVersion == "" {
		t.Errorf("report header: %+v", got)
	}
	if len(got.Phases) != len(rep.Phases) || got.Phases[0].Bytes != rep.Phases[0].Bytes {
		t.Errorf("report phases differ from the in-memory report")
	}
	if got.Config["pattern"] != "vpic" || got.Config["TIMESTEPS"] == "" {
		t.Errorf("report config lacks the effective settings: %v", got.Config)
	}
}

// checkIndependently re-reads a written file through gonum's serial reader.
func checkIndependently(t *testing.T, c combo, np int, file string) {
	t.Helper()
	cfg := config(t, c.kv, file)
	pat, err := cfg.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	vp := pat.(*vpic.Pattern)
	files := []string{file}
	if vp.C.FilePerProc {
		files = nil
		for r := 0; r < np; r++ {
			files = append(files, vp.FilePath(patterns.Env{Rank: r, Size: np, Path: file}))
		}
	}
	for r, f := range files {
		// Expected structure from rank r's write plan: what h5bench_write creates.
		want := map[string]*plan.DatasetSpec{}
		for step := 0; step < timesteps; step++ {
			pl, err := pat.Step(patterns.PhaseWrite, step, patterns.Env{Rank: r, Size: np, Path: file})
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range pl.Ops {
				if op.Dataset != nil {
					want[op.Path] = op.Dataset
				}
			}
		}
		tree, err := inspect.Tree(f)
		if err != nil {
			t.Fatalf("%s np=%d: %v", c.name, np, err)
		}
		groups := 0
		for _, n := range tree {
			if !n.Dataset {
				groups++
				continue
			}
			w, ok := want[n.Path]
			if !ok {
				t.Errorf("%s: unexpected dataset %s", f, n.Path)
				continue
			}
			if !n.Type.Equal(w.Type) || !reflect.DeepEqual(n.Shape, w.Shape) {
				t.Errorf("%s %s: %s %v, want %s %v", f, n.Path, n.Type, n.Shape, w.Type, w.Shape)
			}
			delete(want, n.Path)
			checkValues(t, f, n, vp, np, r)
		}
		if groups != timesteps || len(want) != 0 {
			t.Errorf("%s: %d groups (want %d), missing datasets %v", f, groups, timesteps, keysOf(want))
		}
		if vp.C.Compress {
			checkChunked(t, f, "/Timestep_0/x", vp)
		}
	}
}

// checkValues compares every written element with the seeded fill; with FILE_PER_PROC
// only rank r's slice of its own file was written.
func checkValues(t *testing.T, file string, n inspect.Node, vp *vpic.Pattern, np, onlyRank int) {
	t.Helper()
	step := 0
	fmt.Sscanf(strings.TrimPrefix(n.Path, "/Timestep_"), "%d", &step)
	// The written elements: the union of every rank's write selection.
	var written []plan.Run
	for r := 0; r < np; r++ {
		if vp.C.FilePerProc && r != onlyRank {
			continue
		}
		pl, err := vp.Step(patterns.PhaseWrite, step, patterns.Env{Rank: r, Size: np})
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range pl.Ops {
			if op.Kind == plan.Write && op.Path == n.Path {
				written = append(written, op.Transfer.Selection.Runs(op.Transfer.FileShape)...)
				break
			}
		}
	}
	total := int(plan.Product(n.Shape))
	values := readAll(t, file, n, total)
	checked := 0
	for _, run := range written {
		for g := run.Start; g < run.Start+run.Len; g++ {
			for _, m := range n.Type.Fields(strings.TrimPrefix(n.Path[strings.LastIndex(n.Path, "/"):], "/")) {
				want := emulate.Value(m.Type.Class, proxy.DefaultSeed, m.Name, step, g)
				if got := values(int(g), m.Name); got != want {
					t.Fatalf("%s %s.%s[%d] = %v, want %v", file, n.Path, m.Name, g, got, want)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Errorf("%s %s: nothing checked", file, n.Path)
	}
}

// readAll reads a dataset with gonum and returns an accessor (element, member) -> value.
func readAll(t *testing.T, file string, n inspect.Node, total int) func(int, string) float64 {
	t.Helper()
	switch n.Type.Class {
	case plan.Float32:
		v := make([]float32, total)
		if err := inspect.Read(file, n.Path, &v); err != nil {
			t.Fatal(err)
		}
		return func(i int, _ string) float64 { return float64(v[i]) }
	case plan.Int32:
		v := make([]int32, total)
		if err := inspect.Read(file, n.Path, &v); err != nil {
			t.Fatal(err)
		}
		return func(i int, _ string) float64 { return float64(v[i]) }
	case plan.Compound:
		// A Go struct mirroring the compound, built at run time with hdf5 member tags.
		var fields []reflect.StructField
		for i, m := range n.Type.Members {
			ft := reflect.TypeOf(float32(0))
			if m.Type.Class == plan.Int32 {
				ft = reflect.TypeOf(int32(0))
			}
			fields = append(fields, reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: ft, Tag: reflect.StructTag(`hdf5:"` + m.Name + `"`)})
		}
		st := reflect.StructOf(fields)
		sl := reflect.New(reflect.SliceOf(st))
		sl.Elem().Set(reflect.MakeSlice(reflect.SliceOf(st), total, total))
		if err := inspect.Read(file, n.Path, sl.Interface()); err != nil {
			t.Fatal(err)
		}
		idx := map[string]int{}
		for i, m := range n.Type.Members {
			idx[m.Name] = i
		}
		return func(i int, member string) float64 {
			f := sl.Elem().Index(i).Field(idx[member])
			if f.Kind() == reflect.Int32 {
				return float64(f.Int())
			}
			return f.Float()
		}
	}
	t.Fatalf("%s: unexpected type %s", n.Path, n.Type)
	return nil
}

// datasetInfo reads a dataset's creation properties through the HDF5 layer (gonum cannot
// see chunking, deflate or fill time).
func datasetInfo(t *testing.T, file, dset string) h5.Info {
	t.Helper()
	f, err := h5.OpenFile(file, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	d, err := h5.OpenDataset(f, dset)
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseDataset(d)
	info, err := h5.DatasetInfo(d)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// checkChunked checks chunking and deflate of a compressed VPIC dataset.
func checkChunked(t *testing.T, file, dset string, vp *vpic.Pattern) {
	t.Helper()
	info := datasetInfo(t, file, dset)
	if want := vp.C.ChunkDims[:vp.C.NumDims]; !reflect.DeepEqual(info.Chunk, want) || info.Deflate != 9 {
		t.Errorf("%s %s: chunk %v deflate %d, want %v and 9", file, dset, info.Chunk, info.Deflate, want)
	}
}

func keysOf[T any](m map[string]T) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	return k
}

// TestReadOtherRankCount reads files written at one rank count with another: values
// depend on global indices only, so verification must pass.
func TestReadOtherRankCount(t *testing.T) {
	dir := testDir(t)
	// The parent launches the 4-rank writer, then the 2-rank reader.
	if mpitest.Run(t, 4) {
		mpitest.Run(t, 2)
		return
	}
	size := world(t).Size()
	file := filepath.Join(dir, "shared.h5")
	// 4 ranks write 2*DIM_1 rows; then 2 ranks read twice as many rows each.
	if size == 4 {
		cfg := config(t, "NUM_DIMS=2;DIM_1=6;DIM_2=5", file)
		cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
		s := session(t, cfg)
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		s.Close()
		return
	}
	cfg := config(t, "NUM_DIMS=2;DIM_1=12;DIM_2=5;verify=yes;COLLECTIVE_DATA=YES", file)
	cfg.Phases = []patterns.Phase{patterns.PhaseRead}
	s := session(t, cfg)
	defer s.Close()
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Report()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.Phases[0].Bytes, float64(12*5*32*2*timesteps); got != want {
		t.Errorf("read %v bytes, want %v", got, want)
	}
}

// TestCornerReads runs the rank-0 2-D read options on files written by every rank count.
func TestCornerReads(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 1, 2, 4) {
		return
	}
	size := world(t).Size()
	file := fileOf(dir, "corner", size)
	base := "NUM_DIMS=2;DIM_1=40;DIM_2=30;BLOCK_SIZE=6;BLOCK_SIZE_2=4;STRIDE_SIZE=9;STRIDE_SIZE_2=5"
	w := config(t, base, file)
	w.Phases = []patterns.Phase{patterns.PhaseWrite}
	s := session(t, w)
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, opt := range []string{"LDC", "RDC", "PRL", "CS", "FULL", "PARTIAL"} {
		r := config(t, base+";verify=yes;COLLECTIVE_DATA=YES;READ_OPTION="+opt, file)
		r.Phases = []patterns.Phase{patterns.PhaseRead}
		s := session(t, r)
		if err := s.Run(); err != nil {
			t.Fatalf("%s: %v", opt, err)
		}
		rep, err := s.Report()
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if rep.Phases[0].Bytes == 0 || !rep.Phases[0].Verified {
			t.Errorf("%s: read %v bytes, verified %v", opt, rep.Phases[0].Bytes, rep.Phases[0].Verified)
		}
	}
}

// TestVerifyDetectsCorruption reads with another seed: every element must mismatch, and
// every rank must get the same ErrVerify with the counts.
func TestVerifyDetectsCorruption(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	file := filepath.Join(dir, "seeded.h5")
	w := config(t, "DIM_1=100", file)
	w.Phases = []patterns.Phase{patterns.PhaseWrite}
	s := session(t, w)
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r := config(t, "DIM_1=100;verify=yes;seed=7", file)
	r.Phases = []patterns.Phase{patterns.PhaseRead}
	s = session(t, r)
	defer s.Close()
	err := s.Run()
	if !errors.Is(err, proxy.ErrVerify) {
		t.Fatalf("err = %v, want ErrVerify", err)
	}
	// 8 variables x 100 particles x 2 ranks x 2 steps, minus chance collisions (none with
	// 24-bit floats at this size is overwhelmingly likely; allow a handful).
	m := regexp.MustCompile(`(\d+) mismatching elements on (\d+) of 2 ranks`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("no counts in %q", err)
	}
	n, _ := strconv.Atoi(m[1])
	if ranks, _ := strconv.Atoi(m[2]); n < 3190 || n > 3200 || ranks != 2 {
		t.Errorf("counts %v on %v ranks in %q", n, ranks, err)
	}
}

// TestMisuse checks the errors of calls out of order and of bad environments.
func TestMisuse(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	cfg := config(t, "DIM_1=10", filepath.Join(dir, "misuse.h5"))
	s := session(t, cfg)
	if err := s.Step(0); !errors.Is(err, proxy.ErrState) {
		t.Errorf("Step before BeginPhase: %v", err)
	}
	if err := s.EndPhase(); !errors.Is(err, proxy.ErrState) {
		t.Errorf("EndPhase before BeginPhase: %v", err)
	}
	if err := s.BeginPhase(patterns.PhaseWrite); err != nil {
		t.Fatal(err)
	}
	if err := s.Step(1); !errors.Is(err, proxy.ErrState) || !strings.Contains(err.Error(), "next step of the write phase is 0") {
		t.Errorf("Step out of order: %v", err)
	}
	if err := s.BeginPhase(patterns.PhaseRead); !errors.Is(err, proxy.ErrState) {
		t.Errorf("nested BeginPhase: %v", err)
	}
	if err := s.Step(timesteps); !errors.Is(err, proxy.ErrState) || !strings.Contains(err.Error(), "has 2 steps") {
		t.Errorf("Step past the last: %v", err)
	}
	if _, err := s.Report(); !errors.Is(err, proxy.ErrState) {
		t.Errorf("Report during a phase: %v", err)
	}
	// Closing mid-phase closes the file and says so; the file is still a valid HDF5 file.
	if err := s.Close(); !errors.Is(err, proxy.ErrState) {
		t.Errorf("Close mid-phase: %v", err)
	}
	if err := s.Close(); !errors.Is(err, proxy.ErrClosed) {
		t.Errorf("second Close: %v", err)
	}
	if err := s.Step(0); !errors.Is(err, proxy.ErrClosed) {
		t.Errorf("Step after Close: %v", err)
	}
	// Missing output directory: an error before any I/O, on every rank.
	bad := config(t, "DIM_1=10", filepath.Join(dir, "no-such-dir", "x.h5"))
	s = session(t, bad)
	if err := s.Run(); err == nil || !strings.Contains(err.Error(), "no-such-dir") {
		t.Errorf("missing directory: %v", err)
	}
	s.Close()
	// Missing input file.
	missing := config(t, "DIM_1=10", filepath.Join(dir, "absent.h5"))
	missing.Phases = []patterns.Phase{patterns.PhaseRead}
	s = session(t, missing)
	if err := s.Run(); err == nil || !strings.Contains(err.Error(), "absent.h5") {
		t.Errorf("missing input: %v", err)
	}
	s.Close()
}

// TestNullLayout runs the pattern without I/O: bytes are still counted.
func TestNullLayout(t *testing.T) {
	if mpitest.Run(t, 2) {
		return
	}
	cfg := config(t, "DIM_1=1000;layout=null", "")
	s := session(t, cfg)
	defer s.Close()
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Report()
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Phases) != 2 || rep.Phases[0].Bytes != 1000*32*2*timesteps || rep.Phases[1].Verified {
		t.Errorf("null layout report: %+v", rep.Phases)
	}
}

// TestNullLayoutShapes checks that the null layout's dataset extents belong to the session
// that wrote them: its own read phase is planned from them, another session's read finds
// none (they are not kept process-wide) and fails naming the dataset.
func TestNullLayoutShapes(t *testing.T) {
	cfg := config(t, "DIM_1=10;layout=null", "")
	cfg.Phases = []patterns.Phase{patterns.PhaseWrite, patterns.PhaseRead}
	if rep := runReport(t, cfg, "write then read"); len(rep.Phases) != 2 || rep.Phases[1].Bytes != 10*32*timesteps {
		t.Errorf("read after write in one session: %+v", rep.Phases)
	}
	cfg.Phases = []patterns.Phase{patterns.PhaseRead}
	s := session(t, cfg)
	defer s.Close()
	if err := s.Run(); err == nil || !strings.Contains(err.Error(), "no dataset /Timestep_0/") {
		t.Errorf("a read in a new session found the earlier session's datasets: %v", err)
	}
}

// TestConfigErrors checks that bad options fail before any I/O with the key and value.
func TestConfigErrors(t *testing.T) {
	cases := []struct{ kv, want string }{
		{"DIM_1=abc", `key "DIM_1" value "abc"`},
		{"NOT_A_KEY=1", `unknown key; allowed: ALIGN`},
		{"async.staging_bytes=0", `key "async.staging_bytes" value "0": out of range`},
		{"compute_jitter=2", `key "compute_jitter" value "2": out of range`},
		{"compute_trace=/no/such/trace", `key "compute_trace" value "/no/such/trace"`},
		{"MODE=turbo", `key "MODE" value "turbo": not an allowed value`},
		{"SUBFILING=YES;subfiling.count=2;subfiling.ranks_per_file=2", `key "subfiling.ranks_per_file" value "2": exclusive with subfiling.count=2`},
		{"subfiling.count=-1", `key "subfiling.count" value "-1": out of range`},
		{"verify=yes;fill=random", `only seeded and once fills can be verified`},
		{"mode=cache;async.write_memcpy=no", `key "async.write_memcpy" value "NO": the cache mode always copies`},
		{"async.write_memcpy=maybe", `key "async.write_memcpy" value "maybe"`},
	}
	for _, c := range cases {
		kvs, err := proxy.ParseKV(c.kv + ";file=x.h5")
		if err != nil {
			t.Fatal(err)
		}
		_, err = proxy.ParseOptions("vpic", kvs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.kv, err, c.want)
		}
	}
	if _, err := proxy.ParseOptions("nope", nil); err == nil || !strings.Contains(err.Error(), "available: ") || !strings.Contains(err.Error(), "vpic") {
		t.Errorf("unknown pattern: %v", err)
	}
	var oe *options.Error
	_, err := proxy.ParseOptions("vpic", []options.KV{{Key: "file", Value: "x"}, {Key: "TIMESTEPS", Value: "0"}})
	if !errors.As(err, &oe) || oe.Key != "TIMESTEPS" {
		t.Errorf("TIMESTEPS=0: %v", err)
	}
}

// TestNativeJSON decodes the native configuration schema.
func TestNativeJSON(t *testing.T) {
	cfg, err := proxy.DecodeConfig([]byte(`{"pattern":"vpic","phases":["write"],
		"session":{"file":"/tmp/a.h5","compute_time":"250ms","compute_kind":"spin"},
		"options":{"TIMESTEPS":3,"DIM_1":"1 K","COLLECTIVE_DATA":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.File != "/tmp/a.h5" || cfg.ComputePerStep.Milliseconds() != 250 || cfg.ComputeKind != emulate.Spin || len(cfg.Phases) != 1 {
		t.Errorf("decoded %+v", cfg)
	}
	pat, err := cfg.NewPattern()
	if err != nil {
		t.Fatal(err)
	}
	if c := pat.(*vpic.Pattern).C; c.Timesteps != 3 || c.Dims[0] != 1024 || !c.CollectiveData {
		t.Errorf("pattern config %+v", c)
	}
	if _, err := proxy.DecodeConfig([]byte(`{"pattern":"vpic","sesion":{}}`)); err == nil || !strings.Contains(err.Error(), "sesion") {
		t.Errorf("typo in top-level key: %v", err)
	}
	if _, err := proxy.DecodeConfig([]byte(`{"pattern":"vpic","session":{"fil":"x"}}`)); err == nil || !strings.Contains(err.Error(), `"fil"`) {
		t.Errorf("unknown session key: %v", err)
	}
}

// TestBackgroundFailure injects a full-disk failure into step 2's write of y under each
// background mode: the error surfaces at the next wait (at the latest the phase end)
// naming the step, operation and dataset; the earlier steps stay intact and readable.
func TestBackgroundFailure(t *testing.T) {
	dir := testDir(t)
	bg := []string{"async", "async-nocopy", "cache"}
	if mpitest.Run(t, 1, 2) {
		for _, np := range []int{1, 2} {
			for _, mode := range bg {
				file := fileOf(dir, "faulty-"+mode, np)
				for step := 0; step < 2; step++ {
					for _, v := range []string{"x", "id_1"} {
						n, err := inspect.Points(file, fmt.Sprintf("/Timestep_%d/%s", step, v))
						if err != nil {
							t.Fatalf("%s: step %d unreadable after the failure: %v", file, step, err)
						}
						values := readAll(t, file, inspect.Node{Path: fmt.Sprintf("/Timestep_%d/%s", step, v), Type: vpic.VarType(v)}, n)
						for g := 0; g < n; g++ {
							if want := emulate.Value(vpic.VarType(v).Class, proxy.DefaultSeed, v, step, uint64(g)); values(g, v) != want {
								t.Fatalf("%s step %d %s[%d] = %v, want %v", file, step, v, g, values(g, v), want)
							}
						}
					}
				}
			}
		}
		return
	}
	proxy.RegisterFaultyLayout("write /Timestep_2/y")
	size := world(t).Size()
	for _, mode := range bg {
		cfg := config(t, "DIM_1=512;TIMESTEPS=4;COLLECTIVE_DATA=YES;"+modeKV(mode), fileOf(dir, "faulty-"+mode, size))
		cfg.Layout = "faulty"
		cfg.Phases = []patterns.Phase{patterns.PhaseWrite}
		s := session(t, cfg)
		err := s.Run()
		var be *proxy.BackgroundError
		if !errors.As(err, &be) || be.Step != 2 || be.Path != "/Timestep_2/y" || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s: err = %v, want a background error for step 2 /Timestep_2/y wrapping ENOSPC", mode, err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("%s: close after the failure: %v", mode, err)
		}
	}
}

// TestCacheServesReads writes and reads in one cache-mode session: every read is served
// from node-local storage and verifies.
func TestCacheServesReads(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return
	}
	size := world(t).Size()
	cfg := config(t, "DIM_1=1000;COLLECTIVE_DATA=YES;mode=cache;verify=yes;cache.path="+dir, fileOf(dir, "cached", size))
	s := session(t, cfg)
	defer s.Close()
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Report()
	if err != nil {
		t.Fatal(err)
	}
	read := rep.Phases[1]
	if want := float64(8 * timesteps * size); read.CacheReadHits != want || !read.Verified || read.Mismatches != 0 {
		t.Errorf("cache hits %v (want %v), verified %v, mismatches %v", read.CacheReadHits, want, read.Verified, read.Mismatches)
	}
}
