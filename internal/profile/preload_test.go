package profile

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/h5proxy/h5proxy/internal/launch"
	"github.com/h5proxy/h5proxy/internal/profile/preloadtest"
)

// The tests build libh5proxy-profile.so and tests/profile/kernel.c (plain mpicc and HDF5,
// nothing of h5proxy) and check the records of known I/O counter by counter.

var (
	buildOnce        sync.Once
	libPath, kernel  string
	buildErr         error
	buildDir, srcDir string
	// kernel.c as a library (main renamed kernel_main) and tests/profile/local.c, which
	// loads it RTLD_LOCAL (TestLocalLibraries)
	libKernel, local string
)

func build(t *testing.T) (lib, prog string) {
	t.Helper()
	buildOnce.Do(func() {
		srcDir, buildErr = filepath.Abs("../..")
		if buildErr != nil {
			return
		}
		buildDir, buildErr = os.MkdirTemp("", "h5proxy-profile-test-")
		if buildErr != nil {
			return
		}
		flags := func(pkgs ...string) []string {
			out, err := exec.Command("pkg-config", append([]string{"--cflags", "--libs"}, pkgs...)...).Output()
			if err != nil {
				buildErr = err
			}
			return strings.Fields(string(out))
		}
		libPath = filepath.Join(buildDir, "libh5proxy-profile.so")
		kernel = filepath.Join(buildDir, "kernel")
		if buildErr = preloadtest.Build(libPath); buildErr != nil {
			return
		}
		mpicc := exec.Command("mpicc", append(append([]string{"-O2", "-Wall", "-Werror", "-o", kernel, filepath.Join(srcDir, "tests/profile/kernel.c")},
			flags("hdf5-openmpi")...), "-lpthread")...)
		if out, err := mpicc.CombinedOutput(); err != nil {
			buildErr = &buildError{"mpicc", string(out), err}
			return
		}
		libKernel, local = filepath.Join(buildDir, "libkernel.so"), filepath.Join(buildDir, "local")
		mpicc = exec.Command("mpicc", append(append([]string{"-O2", "-Wall", "-Werror", "-fPIC", "-shared", "-Dmain=kernel_main", "-o", libKernel,
			filepath.Join(srcDir, "tests/profile/kernel.c")}, flags("hdf5-openmpi")...), "-lpthread")...)
		if out, err := mpicc.CombinedOutput(); err != nil {
			buildErr = &buildError{"mpicc -shared", string(out), err}
			return
		}
		if out, err := exec.Command("cc", "-O2", "-Wall", "-Werror", "-o", local, filepath.Join(srcDir, "tests/profile/local.c"), "-ldl").CombinedOutput(); err != nil {
			buildErr = &buildError{"cc", string(out), err}
		}
	})
	if buildErr != nil {
		t.Fatalf("building the profiler and the test kernel: %v", buildErr)
	}
	return libPath, kernel
}

type buildError struct {
	tool, out string
	err       error
}

func (e *buildError) Error() string { return e.tool + ": " + e.err.Error() + "\n" + e.out }

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// runKernel runs the kernel in mode on np ranks (0: without a launcher) under the library,
// and returns its data directory, record directory and error.
func runKernel(t *testing.T, np int, mode string, env ...string) (data, records string, out []byte, err error) {
	t.Helper()
	_, prog := build(t)
	return runProgram(t, np, []string{prog}, mode, env...)
}

// runProgram is runKernel for the command prog (the kernel, or local with its library).
func runProgram(t *testing.T, np int, prog []string, mode string, env ...string) (data, records string, out []byte, err error) {
	t.Helper()
	lib, _ := build(t)
	data, records = t.TempDir(), t.TempDir()
	var cmd *exec.Cmd
	penv := append([]string{"LD_PRELOAD=" + lib, "H5PROXY_PROFILE_DIR=" + records}, env...)
	if np == 0 {
		cmd = exec.Command(prog[0], append(prog[1:], mode, data)...)
		cmd.Env = append(os.Environ(), penv...)
	} else {
		argv, lenv, lerr := launch.Launcher(np)
		if lerr != nil {
			t.Fatal(lerr)
		}
		for _, e := range penv {
			argv = append(argv, "-x", e)
		}
		argv = append(append(argv, prog...), mode, data)
		cmd = exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), lenv...)
	}
	out, err = cmd.CombinedOutput()
	return data, records, out, err
}

func mustMerge(t *testing.T, records string) *Profile {
	t.Helper()
	procs, err := ReadDir(records)
	if err != nil {
		t.Fatal(err)
	}
	return Merge(procs)
}

func expect(t *testing.T, r Record, want map[string]int64) {
	t.Helper()
	for k, v := range want {
		got, ok := r.Counters[k]
		if !ok {
			t.Errorf("%s %s: no counter %s", r.Module, r.File, k)
		} else if got != v {
			t.Errorf("%s %s %s rank %d: %s = %d, want %d", r.Module, filepath.Base(r.File), r.Name, r.Rank, k, got, v)
		}
	}
}

func TestKernelTwoRanks(t *testing.T) {
	data, records, out, err := runKernel(t, 2, "mpi", "H5PROXY_PROFILE_TRACE=1")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p := mustMerge(t, records)
	if p.Ranks != 2 || p.Partial || !p.Traced {
		t.Fatalf("ranks %d partial %v traced %v, want 2 false true", p.Ranks, p.Partial, p.Traced)
	}
	// POSIX: each rank 4 writes of 1000 B (write), one pwrite of 1000 B at 10000, an fsync.
	for rank := 0; rank < 2; rank++ {
		r, err := p.Find("POSIX", filepath.Join(data, "posix."+string(rune('0'+rank))+".dat"), "", rank)
		if err != nil {
			t.Fatal(err)
		}
		expect(t, r, map[string]int64{
			"POSIX_OPENS": 1, "POSIX_WRITES": 5, "POSIX_READS": 0, "POSIX_FSYNCS": 1, "POSIX_BYTES_WRITTEN": 5000,
			"POSIX_MAX_BYTE_WRITTEN": 10999, "POSIX_SIZE_WRITE_100_1K": 5, "POSIX_SIZE_WRITE_1K_10K": 0,
			// Darshan's rule: the first write at 0 is neither (0 > last byte 0 is false), then
			// 1000, 2000, 3000 are consecutive and sequential, 10000 sequential only; the
			// strides are 0 four times and 6000 once, and a zero stride never enters
			// Darshan's common values (DARSHAN_UPDATE_COMMON_VAL_COUNTERS)
			"POSIX_CONSEC_WRITES": 3, "POSIX_SEQ_WRITES": 4, "POSIX_ACCESS1_ACCESS": 1000, "POSIX_ACCESS1_COUNT": 5,
			"POSIX_STRIDE1_STRIDE": 6000, "POSIX_STRIDE1_COUNT": 1, "POSIX_STRIDE2_STRIDE": 0, "POSIX_STRIDE2_COUNT": 0,
			"POSIX_MEM_NOT_ALIGNED": 0, "POSIX_MODE": 0o644,
			"POSIX_MEM_ALIGNMENT": 8,
			// its fstat and stat are glibc 2.36's own symbols, which Darshan 3.5 does not
			// wrap (it wraps __xstat, __lxstat, __fxstat): not counted, as in its log
			"POSIX_STATS": 0,
		})
		if n := p.RankCalls[rank]["stat"].N; n < 2 {
			t.Errorf("rank %d: %d stat calls in the call table, want the kernel's fstat and stat at least", rank, n)
		}
	}
	// MPI-IO: a collective open with one hint, 4 collective writes of 1000 B per rank.
	r, err := p.Find("MPIIO", filepath.Join(data, "mpiio.dat"), "", -1)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, r, map[string]int64{
		"MPIIO_COLL_OPENS": 2, "MPIIO_INDEP_OPENS": 0, "MPIIO_HINTS": 2, "MPIIO_COLL_WRITES": 8, "MPIIO_INDEP_WRITES": 0,
		"MPIIO_BYTES_WRITTEN": 8000, "MPIIO_SIZE_WRITE_AGG_100_1K": 8, "MPIIO_ACCESS1_ACCESS": 1000, "MPIIO_ACCESS1_COUNT": 8,
	})
	// H5F: the H5Iget_file_id reference released with H5Fclose does not end the file's
	// record: the flush after it counts on the file.
	r, err = p.Find("H5F", filepath.Join(data, "kernel.h5"), "", -1)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, r, map[string]int64{"H5F_OPENS": 2, "H5F_FLUSHES": 2, "H5F_USE_MPIIO": 1})
	if r.FCounters["H5F_F_CLOSE_END_TIMESTAMP"] < r.FCounters["H5F_F_OPEN_END_TIMESTAMP"] {
		t.Errorf("H5F close timestamp %v before open %v", r.FCounters["H5F_F_CLOSE_END_TIMESTAMP"], r.FCounters["H5F_F_OPEN_END_TIMESTAMP"])
	}
	// H5D: /g/x, 4 collective writes of 50 ints per rank, regular hyperslabs.
	r, err = p.Find("H5D", filepath.Join(data, "kernel.h5"), "/g/x", -1)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, r, map[string]int64{
		"H5D_OPENS": 2, "H5D_WRITES": 8, "H5D_BYTES_WRITTEN": 1600, "H5D_REGULAR_HYPERSLAB_SELECTS": 8,
		"H5D_SIZE_WRITE_AGG_100_1K": 8, "H5D_USE_MPIIO_COLLECTIVE": 1, "H5D_DATASPACE_NDIMS": 1,
		"H5D_DATASPACE_NPOINTS": 400, "H5D_DATATYPE_SIZE": 4, "H5D_ACCESS1_ACCESS": 200, "H5D_ACCESS1_LENGTH_D5": 50,
		"H5D_ACCESS1_STRIDE_D5": 1, "H5D_ACCESS1_LENGTH_D1": 0, "H5D_ACCESS1_COUNT": 8, "H5D_USE_DEPRECATED": 0,
	})
	// The reference's H5Fclose is no close event: one per rank, after the flush.
	for rank := 0; rank < 2; rank++ {
		var seq []string
		for _, e := range p.Events {
			if e.Rank == rank && e.Module == "H5F" && (e.Call == "H5Fflush" || e.Call == "H5Fclose") {
				seq = append(seq, e.Call)
			}
		}
		if strings.Join(seq, " ") != "H5Fflush H5Fclose" {
			t.Errorf("rank %d: H5F events %v, want the flush then the one close", rank, seq)
		}
	}
	// calls and events
	if c := p.Calls["H5Dwrite"]; c.N != 8 {
		t.Errorf("H5Dwrite calls %d, want 8", c.N)
	}
	var writes int
	for _, e := range p.Events {
		if e.Call == "H5Dwrite" {
			writes++
			if !e.Collective || e.Length != 200 || len(e.Selection) == 0 {
				t.Errorf("H5Dwrite event %+v: want collective, 200 B, a selection", e)
			}
		}
	}
	if writes != 8 {
		t.Errorf("%d H5Dwrite events, want 8", writes)
	}
	// the description: one dataset /g/x of 200 ints per rank in rank order, 4 writes each
	c, err := Capture(p, "kernel")
	if err != nil {
		t.Fatal(err)
	}
	checked(t, c)
	f := fileOf(t, c.Desc, "kernel")
	x := datasetOf(t, f, "/g/x")
	if got := words(c.Desc.Name.Text, c.Desc.Steps.Text, f.Name.Text, x.Type.Text, texts(x.Shape), decompText(x.Decompose), waysOf(c, f)); got != "kernel 1 kernel.h5 i32 [200 * nranks] {kind: block} create: ; collective_metadata: ; handles: ; write kernel, flush kernel end" {
		t.Errorf("description %s:\n%s", got, c.YAML)
	}
	if len(c.Unexpressed) != 1 || !strings.Contains(c.Unexpressed[0], "4 H5Dwrite per rank per step") {
		t.Errorf("unexpressed %q, want the 4 writes per step", c.Unexpressed)
	}
	// the outputs
	dir := t.TempDir()
	if err := p.WriteJSON(filepath.Join(dir, "p.json")); err != nil {
		t.Fatal(err)
	}
	q, err := Load(filepath.Join(dir, "p.json"))
	if err != nil {
		t.Fatal(err)
	}
	if d := Compare(p, q); !d.Identical() || len(d.Equal) == 0 {
		t.Errorf("a profile against its own JSON: %s", d.Verdict())
	}
	files, err := p.Plot(filepath.Join(dir, "p"))
	if err != nil || len(files) != 4 {
		t.Fatalf("plots %v: %v", files, err)
	}
	if err := p.WriteCSV(filepath.Join(dir, "p.csv")); err != nil {
		t.Fatal(err)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "p.csv"))
	if !strings.Contains(string(csv), "H5D,"+filepath.Join(data, "kernel.h5")+",/g/x,-1,H5D_WRITES,8\n") {
		t.Errorf("CSV lacks the H5D_WRITES row:\n%.2000s", csv)
	}
}

// TestLocalLibraries: a program that loads libmpi and libhdf5 RTLD_LOCAL, as Python loads
// h5py's and mpi4py's modules, is profiled as the kernel linked with them is: the wrappers
// find the next MPI_Init, PMPI_* and H5* in the loading library's scope (they were NULL
// through dlsym(RTLD_NEXT): a SIGSEGV in MPI_Init), and MPI_COMM_WORLD and MPI_INFO_NULL
// are libmpi's (a weak reference to them is NULL there: no record had the right rank).
func TestLocalLibraries(t *testing.T) {
	build(t)
	data, records, out, err := runProgram(t, 2, []string{local, libKernel}, "mpi")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(string(out), "h5proxy-profile:") {
		t.Errorf("the profiler complained:\n%s", out)
	}
	p := mustMerge(t, records)
	if p.Ranks != 2 || p.Partial {
		t.Fatalf("ranks %d partial %v, want 2 complete", p.Ranks, p.Partial)
	}
	for rank := 0; rank < 2; rank++ {
		r, err := p.Find("POSIX", filepath.Join(data, "posix."+string(rune('0'+rank))+".dat"), "", rank)
		if err != nil {
			t.Fatal(err)
		}
		expect(t, r, map[string]int64{"POSIX_WRITES": 5, "POSIX_BYTES_WRITTEN": 5000})
	}
	r, err := p.Find("MPIIO", filepath.Join(data, "mpiio.dat"), "", -1)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, r, map[string]int64{"MPIIO_COLL_OPENS": 2, "MPIIO_HINTS": 2, "MPIIO_COLL_WRITES": 8, "MPIIO_BYTES_WRITTEN": 8000})
	r, err = p.Find("H5D", filepath.Join(data, "kernel.h5"), "/g/x", -1)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, r, map[string]int64{"H5D_WRITES": 8, "H5D_BYTES_WRITTEN": 1600, "H5D_USE_MPIIO_COLLECTIVE": 1, "H5D_ACCESS1_LENGTH_D5": 50})
	if p.MPIVersion == "" || p.HDF5Version == "" {
		t.Errorf("MPI version %q, HDF5 version %q: want both recorded", p.MPIVersion, p.HDF5Version)
	}
}

func TestThreadsNoMPI(t *testing.T) {
	data, records, out, err := runKernel(t, 0, "threads")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p := mustMerge(t, records)
	if p.Ranks != 1 || p.Partial {
		t.Fatalf("ranks %d partial %v", p.Ranks, p.Partial)
	}
	for _, th := range []string{"0", "1"} {
		r, err := p.Find("POSIX", filepath.Join(data, "thread."+th+".dat"), "", 0)
		if err != nil {
			t.Fatal(err)
		}
		expect(t, r, map[string]int64{"POSIX_OPENS": 1, "POSIX_WRITES": 8, "POSIX_BYTES_WRITTEN": 32768,
			"POSIX_SIZE_WRITE_1K_10K": 8, "POSIX_CONSEC_WRITES": 7, "POSIX_SEQ_WRITES": 7, "POSIX_FILE_NOT_ALIGNED": 0,
			"POSIX_MEM_NOT_ALIGNED": 0})
	}
}

func TestPlainProgram(t *testing.T) {
	data, records, out, err := runKernel(t, 0, "plain")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p := mustMerge(t, records)
	r, err := p.Find("POSIX", filepath.Join(data, "plain.dat"), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, r, map[string]int64{"POSIX_OPENS": 1, "POSIX_WRITES": 3, "POSIX_READS": 3, "POSIX_SEEKS": 1,
		"POSIX_BYTES_READ": 300, "POSIX_BYTES_WRITTEN": 300, "POSIX_RW_SWITCHES": 1, "POSIX_SIZE_READ_0_100": 3,
		"POSIX_CONSEC_READS": 2, "POSIX_SEQ_READS": 2, "POSIX_MAX_BYTE_READ": 299})
	for _, m := range []string{"MPIIO", "H5F", "H5D"} {
		if _, _, n := p.Totals(m); n != 0 {
			t.Errorf("%s: %d records in a program without MPI or HDF5", m, n)
		}
	}
}

func TestNoHDF5(t *testing.T) {
	_, records, out, err := runKernel(t, 2, "nohdf5", "H5PROXY_PROFILE_TRACE=1")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p := mustMerge(t, records)
	for m, want := range map[string]bool{"POSIX": true, "MPIIO": true, "H5F": false, "H5D": false} {
		if _, _, n := p.Totals(m); (n > 0) != want {
			t.Errorf("%s: %d records", m, n)
		}
	}
	if p.HDF5Version != "" {
		t.Errorf("HDF5 version %q in a program that never called HDF5", p.HDF5Version)
	}
	if _, err := Capture(p, "nohdf5"); !errors.Is(err, ErrNoHDF5) {
		t.Errorf("capture of a program without HDF5: %v, want ErrNoHDF5", err)
	}
}

func TestCrashKeepsPartialRecords(t *testing.T) {
	data, records, out, err := runKernel(t, 1, "crash")
	if err == nil {
		t.Fatalf("the crashing kernel exited 0:\n%s", out)
	}
	p := mustMerge(t, records)
	if !p.Partial || len(p.PartialRanks) != 1 || !strings.Contains(p.PartialRanks[0], "SIGSEGV") {
		t.Fatalf("partial %v %q, want partial with SIGSEGV", p.Partial, p.PartialRanks)
	}
	r, err := p.Find("POSIX", filepath.Join(data, "posix.0.dat"), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, r, map[string]int64{"POSIX_WRITES": 5, "POSIX_BYTES_WRITTEN": 5000})
}

func TestUnwritableDirectory(t *testing.T) {
	lib, prog := build(t)
	data := t.TempDir()
	cmd := exec.Command(prog, "plain", data)
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+lib, "H5PROXY_PROFILE_DIR=/nonexistent/h5proxy-profile")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the program failed under an unwritable record directory: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "h5proxy-profile: cannot write /nonexistent/h5proxy-profile/"); n != 1 {
		t.Errorf("want one message naming the directory, got:\n%s", out)
	}
	if _, err := ReadDir("/nonexistent/h5proxy-profile"); err == nil {
		t.Error("ReadDir of a directory without records: no error")
	}
	if b, err := os.ReadFile(filepath.Join(data, "plain.dat")); err != nil || len(b) != 300 {
		t.Errorf("the program's own file: %d bytes, %v", len(b), err)
	}
}

// TestDirectoryTooLong: a record directory whose path cannot fit in PATH_MAX is refused
// once, naming the variable and the start of its value, never cut short into another
// directory; the program runs unchanged and nothing is written.
func TestDirectoryTooLong(t *testing.T) {
	lib, prog := build(t)
	data, work := t.TempDir(), t.TempDir()
	long := strings.Repeat("d", 250) + strings.Repeat("/"+strings.Repeat("d", 250), 20) // 5270 bytes, relative
	cmd := exec.Command(prog, "plain", data)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+lib, "H5PROXY_PROFILE_DIR="+long)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the program failed under a too long record directory: %v\n%s", err, out)
	}
	want := "h5proxy-profile: H5PROXY_PROFILE_DIR=" + long[:200] + "... makes a directory path longer than PATH_MAX"
	if n := strings.Count(string(out), want); n != 1 {
		t.Errorf("want one message %q, got:\n%s", want, out)
	}
	if b, err := os.ReadFile(filepath.Join(data, "plain.dat")); err != nil || len(b) != 300 {
		t.Errorf("the program's own file: %d bytes, %v", len(b), err)
	}
	if entries, err := os.ReadDir(work); err != nil || len(entries) != 0 {
		t.Errorf("the working directory holds %d entries (%v), want none: a record file went elsewhere", len(entries), err)
	}
}

func TestCompareDiffers(t *testing.T) {
	a := &Profile{SchemaVersion: 1, Ranks: 1, Records: []Record{{Module: "POSIX", File: "/x/f.dat", Rank: 0,
		Counters: map[string]int64{"POSIX_WRITES": 3, "POSIX_MAX_WRITE_TIME_SIZE": 10}}}}
	b := &Profile{SchemaVersion: 1, Ranks: 1, Records: []Record{{Module: "POSIX", File: "/y/f.dat", Rank: 0,
		Counters: map[string]int64{"POSIX_WRITES": 4, "POSIX_MAX_WRITE_TIME_SIZE": 99}},
		{Module: "H5F", File: "/y/g.h5", Rank: -1, Counters: map[string]int64{"H5F_OPENS": 1}}}}
	d := Compare(a, b)
	if d.Identical() || len(d.Differ) != 1 || d.Differ[0].Counter != "POSIX_WRITES" || len(d.OnlyB) != 1 {
		t.Fatalf("diff %+v", d)
	}
	if got, want := d.Verdict(), "differs in 1 counters, 1 records in one profile only"; got != want {
		t.Errorf("verdict %q, want %q", got, want)
	}
	b.Records = b.Records[:1]
	b.Records[0].Counters["POSIX_WRITES"] = 3
	if d := Compare(a, b); !d.Identical() || d.Verdict() != "identical: 1 counters equal" {
		t.Errorf("files of one name in two directories, equal counters: %s", d.Verdict())
	}
}

// TestForkedChild: a forked child's I/O is its own record file (forked), the parent's
// profile holds only the parent's, and both processes run to completion.
func TestForkedChild(t *testing.T) {
	data, records, out, err := runKernel(t, 0, "fork")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	procs, err := ReadDir(records)
	if err != nil {
		t.Fatal(err)
	}
	p := Merge(procs)
	if p.Ranks != 1 {
		t.Fatalf("%d processes merged, want the parent alone", p.Ranks)
	}
	if _, err := p.Find("POSIX", filepath.Join(data, "parent.dat"), "", 0); err != nil {
		t.Error(err)
	}
	if _, err := p.Find("POSIX", filepath.Join(data, "child.dat"), "", 0); err == nil {
		t.Error("the child's file in the parent's profile")
	}
	files, _ := filepath.Glob(filepath.Join(records, "h5proxy-profile.*.jsonl"))
	forked := 0
	for _, f := range files {
		pr, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if pr.Header.Forked {
			forked++
			if len(pr.Records) != 1 || filepath.Base(pr.Records[0].File) != "child.dat" || pr.Records[0].Counters["POSIX_BYTES_WRITTEN"] != 100 {
				t.Errorf("the child's records: %+v", pr.Records)
			}
		}
	}
	if forked != 1 {
		t.Errorf("%d record files of forked children, want 1", forked)
	}
}

// TestHDF5Mismatch: a library built for another HDF5 says so once and records the other
// levels; the program runs unchanged.
func TestHDF5Mismatch(t *testing.T) {
	build(t)
	lib := filepath.Join(t.TempDir(), "libh5proxy-profile-1.99.so")
	if err := preloadtest.Build(lib, "-DEXPECT_HDF5_MINOR=99"); err != nil {
		t.Fatal(err)
	}
	data, records := t.TempDir(), t.TempDir()
	argv, lenv, err := launch.Launcher(1)
	if err != nil {
		t.Fatal(err)
	}
	argv = append(argv, "-x", "LD_PRELOAD="+lib, "-x", "H5PROXY_PROFILE_DIR="+records, kernel, "mpi", data)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), lenv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the program failed under a mismatched profiler: %v\n%s", err, out)
	}
	// The program's HDF5 is the build's (1.10.8, or 1.14.5 with HDF5=1.14).
	version, err := exec.Command("pkg-config", "--modversion", "hdf5-openmpi").Output()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "this program's HDF5 is "+strings.TrimSpace(string(version))+", not the 1.99."); n != 1 {
		t.Errorf("want one message naming both versions:\n%s", out)
	}
	p := mustMerge(t, records)
	for m, want := range map[string]bool{"POSIX": true, "MPIIO": true, "H5F": false, "H5D": false} {
		if _, _, n := p.Totals(m); (n > 0) != want {
			t.Errorf("%s: %d records", m, n)
		}
	}
}

// TestMultiDataset checks HDF5 1.14's H5Dwrite_multi and H5Dread_multi: each dataset of a
// call is counted as Darshan's H5D module counts an H5Dwrite or H5Dread of it, and the call
// once in the calls table. Against HDF5 1.10, which has no such calls, the library must not
// define them (a program there cannot call them, and the library must still load).
func TestMultiDataset(t *testing.T) {
	lib, _ := build(t)
	ver, err := exec.Command("pkg-config", "--modversion", "hdf5-openmpi").Output()
	if err != nil {
		t.Fatal(err)
	}
	has := !strings.HasPrefix(string(ver), "1.10.") && !strings.HasPrefix(string(ver), "1.12.")
	f, err := elf.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.DynamicSymbols()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF {
			defined[s.Name] = true
		}
	}
	for _, name := range []string{"H5Dwrite_multi", "H5Dread_multi"} {
		if defined[name] != has {
			t.Errorf("HDF5 %s: library defines %s: %v, want %v", strings.TrimSpace(string(ver)), name, defined[name], has)
		}
	}
	data, records, out, err := runKernel(t, 2, "multi", "H5PROXY_PROFILE_TRACE=1")
	if !has {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(string(out), "has no H5Dwrite_multi") {
			t.Errorf("kernel multi against HDF5 %s: %v\n%s", ver, err, out)
		}
		return
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p := mustMerge(t, records)
	// per rank one call of each kind moving a (50 ints) and b (100 doubles) collectively
	for _, c := range []struct {
		name  string
		bytes int64
	}{{"/a", 2 * 50 * 4}, {"/b", 2 * 100 * 8}} {
		r, err := p.Find("H5D", filepath.Join(data, "multi.h5"), c.name, -1)
		if err != nil {
			t.Fatal(err)
		}
		expect(t, r, map[string]int64{"H5D_OPENS": 2, "H5D_WRITES": 2, "H5D_READS": 2, "H5D_BYTES_WRITTEN": c.bytes,
			"H5D_BYTES_READ": c.bytes, "H5D_REGULAR_HYPERSLAB_SELECTS": 4, "H5D_USE_MPIIO_COLLECTIVE": 1, "H5D_RW_SWITCHES": 2})
	}
	for _, call := range []string{"H5Dwrite_multi", "H5Dread_multi"} {
		if c := p.Calls[call]; c.N != 2 {
			t.Errorf("%s calls %d, want 2 (one per rank)", call, c.N)
		}
		n := 0
		for _, e := range p.Events {
			if e.Call == call {
				n++
			}
		}
		if n != 4 {
			t.Errorf("%d %s events, want 4 (one per dataset per rank)", n, call)
		}
	}
	if c := p.Calls["H5Dwrite"]; c.N != 0 {
		t.Errorf("H5Dwrite calls %d, want 0 (the multi call is not two H5Dwrite)", c.N)
	}
	// capture folds the multi calls' events as writes and reads of each dataset
	d, err := Capture(p, "multi")
	if err != nil {
		t.Fatal(err)
	}
	checked(t, d)
	mf := fileOf(t, d.Desc, "multi")
	for _, w := range [][2]string{{"/a", "i32 [50 * nranks] {kind: block}"}, {"/b", "f64 [100 * nranks] {kind: block}"}} {
		ds := datasetOf(t, mf, w[0])
		if got := words(ds.Type.Text, texts(ds.Shape), decompText(ds.Decompose)); got != w[1] {
			t.Errorf("dataset %s: %s, want %s:\n%s", w[0], got, w[1], d.YAML)
		}
	}
	var acts []string
	for _, a := range d.Desc.Timeline {
		acts = append(acts, words(a.Write.Text, a.Read.Text, a.At.Text))
	}
	if want := []string{"multi  ", " multi restart"}; !slices.Equal(acts, want) {
		t.Errorf("timeline %q, want %q:\n%s", acts, want, d.YAML)
	}
}

// TestStdioAsDarshan runs tests/profile/kernel.c's stdio mode at 2 ranks: the C calls of
// libstdc++'s std::ifstream and std::fstream (AMReX's and openPMD-api's input reads), an
// fdopen, the fortified __open_2, fileno(stdout) and a file in Open MPI's session
// directory. The records are Darshan 3.5's for the same run (checked against
// /opt/h5proxy/darshan's log when this test was written): a fileno of a stream fopen
// opened is an open and a POSIX_FILENOS, the reads and seeks through it count on the file;
// the session directory is the program's I/O (issue 36: OMPIO's shared-file-pointer files
// there were 20 of Darshan's 44 AMReX opens the profiler left out); nothing MPI_Init opened
// itself is recorded (Darshan starts after it).
func TestStdioAsDarshan(t *testing.T) {
	lib, prog := build(t)
	data, records := t.TempDir(), t.TempDir()
	in := filepath.Join(data, "in.txt")
	if err := os.WriteFile(in, []byte(strings.Repeat("x", 150)), 0o644); err != nil {
		t.Fatal(err)
	}
	argv, lenv, err := launch.Launcher(2)
	if err != nil {
		t.Fatal(err)
	}
	argv = append(argv, "-x", "LD_PRELOAD="+lib, "-x", "H5PROXY_PROFILE_DIR="+records, prog, "stdio", data)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), lenv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p := mustMerge(t, records)
	r, err := p.Find("POSIX", in, "", -1)
	if err != nil {
		t.Fatal(err)
	}
	// per rank: 3 seeks and a read (the whole file) after 4 filenos; 2 filenos and 2 reads
	// (the file, then 0 bytes); /proc/self/status's stream is not followed, but it gets the
	// descriptor fclose left mapped to in.txt: its 2 reads count there, as in Darshan
	expect(t, r, map[string]int64{"POSIX_OPENS": 12, "POSIX_FILENOS": 12, "POSIX_SEEKS": 6, "POSIX_READS": 10,
		"POSIX_SIZE_READ_100_1K": 4})
	std, err := p.Find("POSIX", "<STDOUT>", "", -1)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, std, map[string]int64{"POSIX_OPENS": 2, "POSIX_FILENOS": 2, "POSIX_FILE_ALIGNMENT": 0})
	session := 0
	for rank := 0; rank < 2; rank++ {
		r, err := p.Find("POSIX", filepath.Join(data, fmt.Sprintf("fd.%d.dat", rank)), "", rank)
		if err != nil {
			t.Fatal(err)
		}
		// open, the fdopen'd stream's fileno, __open_2
		expect(t, r, map[string]int64{"POSIX_OPENS": 3, "POSIX_FILENOS": 1})
	}
	for _, r := range p.Records {
		switch {
		case strings.HasPrefix(r.File, "/proc/"):
			t.Errorf("record of an excluded path: %s", r.File)
		case strings.Contains(r.File, "/h5proxy-kernel."):
			session++
			expect(t, r, map[string]int64{"POSIX_OPENS": 1, "POSIX_WRITES": 1, "POSIX_BYTES_WRITTEN": 10})
		case strings.Contains(r.File, "pmix") || strings.Contains(r.File, "dstore"):
			t.Errorf("record of a file MPI_Init opened: %s", r.File)
		}
	}
	if session != 2 {
		t.Errorf("%d records of the session directory's files, want one per rank", session)
	}
}
