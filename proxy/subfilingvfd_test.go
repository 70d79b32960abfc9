package proxy_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
	"github.com/h5proxy/h5proxy/proxy/layout/subfilingvfd"
)

// vfdCase is one subfiling VFD setting of TestSubfilingVFD.
type vfdCase struct {
	name string
	kv   string
	// stripe is the stripe size; subfiles the count expected at size ranks on one node.
	stripe   int64
	subfiles func(size int) int
}

var vfdCases = []vfdCase{
	{"s64k-ioc1", "subfiling_vfd.stripe_size=64KiB;subfiling_vfd.ioc_per_node=1", 64 << 10, func(int) int { return 1 }},
	{"s64k-ioc2", "subfiling_vfd.stripe_size=64KiB;subfiling_vfd.ioc_per_node=2", 64 << 10, func(n int) int { return min(2, n) }},
	{"s1m-ioc4", "subfiling_vfd.stripe_size=1MiB;subfiling_vfd.ioc_per_node=4;subfiling_vfd.thread_pool=2", 1 << 20, func(n int) int { return min(4, n) }},
	{"s128k-count1", "subfiling_vfd.stripe_size=128KiB;subfiling_vfd.ioc_per_node=4;subfiling_vfd.stripe_count=1", 128 << 10, func(int) int { return 1 }},
}

// vfdKV is the VPIC configuration the VFD tests write: 8 variables of 24 Ki elements
// per rank and step (768 KiB), collective as h5bench's samples (the layout issues them
// independently).
const vfdKV = "NUM_DIMS=1;DIM_1=24576;COLLECTIVE_DATA=YES;COLLECTIVE_METADATA=YES"

// TestSubfilingVFD checks the subfiling-vfd layout on the build it runs on. Against HDF5
// 1.14 with the subfiling VFD it writes VPIC at 1, 2 and 4 ranks for each stripe size and
// I/O concentrator count of vfdCases, reads it back through the VFD verifying every
// element, and checks on rank 0: the .config file (stripe size, aggregator and subfile
// counts), the number of subfiles, the size of each (the logical file striped
// round-robin), the fused file (h5proxy's Fuse) equal to the native layout's file under
// h5diff of the same HDF5, and read back by the native layout. Against a build without
// the VFD (HDF5 1.10.8) it checks that the layout is refused, naming the build that has it.
func TestSubfilingVFD(t *testing.T) {
	if !h5.HaveSubfiling() {
		_, err := proxy.ParseOptions("vpic", mustKV(t, "layout=subfiling-vfd;file=x.h5"))
		var oe *options.Error
		if !errors.As(err, &oe) || oe.Key != "layout" || oe.Value != "subfiling-vfd" ||
			!strings.Contains(err.Error(), "HDF5=1.14 make build") || !strings.Contains(err.Error(), "HDF5 "+h5.Version()) {
			t.Fatalf("HDF5 %s: layout=subfiling-vfd: want a config error naming the layout, the HDF5 version and the build that has the VFD; got %v", h5.Version(), err)
		}
		return
	}
	dir := testDir(t)
	if mpitest.Run(t, 1, 2, 4) {
		return
	}
	w := world(t)
	rank, size := w.Rank(), w.Size()
	for _, c := range vfdCases {
		vfdFile := fileOf(dir, "vfd-"+c.name, size)
		nativeFile := fileOf(dir, "vfd-native-"+c.name, size)
		runVerified(t, config(t, vfdKV+";layout=subfiling-vfd;verify=yes;"+c.kv, vfdFile))
		runVerified(t, config(t, vfdKV, nativeFile))
		if rank == 0 {
			checkVFDFiles(t, c, size, vfdFile, nativeFile)
		}
		if err := w.Barrier(); err != nil {
			t.Fatal(err)
		}
		if c.name == "s64k-ioc2" { // the fused file reads back through the native layout
			readPlain(t, combo{name: c.name, kv: vfdKV}, plainOf(vfdFile))
		}
	}
}

// checkVFDFiles checks the VFD's files of one case and its fused file against the native
// one (rank 0).
func checkVFDFiles(t *testing.T, c vfdCase, size int, vfdFile, nativeFile string) {
	t.Helper()
	fs, err := subfilingvfd.ReadFiles(vfdFile, "")
	if err != nil {
		t.Errorf("%s: %v", c.name, err)
		return
	}
	n := c.subfiles(size)
	if fs.StripeSize != c.stripe || fs.IOCs != n || len(fs.Subfiles) != n {
		t.Errorf("%s at %d ranks: config says stripe %d, %d IOCs, %d subfiles; want %d, %d, %d", c.name, size, fs.StripeSize, fs.IOCs, len(fs.Subfiles), c.stripe, n, n)
	}
	all, _ := filepath.Glob(vfdFile + ".subfile_*_of_*")
	if len(all) != n {
		t.Errorf("%s: %d subfiles on disk %v, want %d", c.name, len(all), all, n)
	}
	for i, sub := range fs.Subfiles {
		if want := fmt.Sprintf("%s.subfile_%d_%0*d_of_%d", filepath.Base(vfdFile), inode(t, vfdFile), len(fmt.Sprint(n)), i+1, n); filepath.Base(sub) != want {
			t.Errorf("%s: subfile %d is %s, want %s", c.name, i, filepath.Base(sub), want)
		}
	}
	plain := plainOf(vfdFile)
	if err := subfilingvfd.Fuse(vfdFile, plain, ""); err != nil {
		t.Errorf("%s: fuse: %v", c.name, err)
		return
	}
	st, err := os.Stat(plain)
	if err != nil {
		t.Fatal(err)
	}
	// The logical file of L bytes in stripes of S round-robin over n subfiles: subfile i
	// holds stripes i, i+n, ..., the last one possibly partial.
	logical, stripe := st.Size(), c.stripe
	for i, sub := range fs.Subfiles {
		var want int64
		for off := int64(i) * stripe; off < logical; off += int64(n) * stripe {
			want += min(stripe, logical-off)
		}
		if sst, err := os.Stat(sub); err != nil || sst.Size() != want {
			t.Errorf("%s: subfile %d of %d: size %v (%v), want %d of a %d-byte logical file", c.name, i+1, n, sizeOf(sst), err, want, logical)
		}
	}
	if nst, err := os.Stat(nativeFile); err != nil || logical < nst.Size()*99/100 {
		t.Errorf("%s: fused file of %d bytes, native file %v (%v)", c.name, logical, sizeOf(nst), err)
	}
	if out, err := exec.Command(hdf5Tool(t, "h5diff"), nativeFile, plain).CombinedOutput(); err != nil {
		t.Errorf("%s: h5diff %s %s: %v\n%s", c.name, nativeFile, plain, err, out)
	}
}

func sizeOf(st os.FileInfo) any {
	if st == nil {
		return "none"
	}
	return st.Size()
}

// inode returns a file's inode number, which names the VFD's subfiles.
func inode(t *testing.T, path string) uint64 {
	t.Helper()
	cfg, err := subfilingvfd.ConfigPath(path, "")
	if err != nil {
		t.Fatal(err)
	}
	var ino uint64
	if _, err := fmt.Sscanf(strings.TrimPrefix(filepath.Base(cfg), filepath.Base(path)+".subfile_"), "%d.config", &ino); err != nil {
		t.Fatal(err)
	}
	return ino
}

// hdf5Tool returns the path of an HDF5 command-line tool of the library this process
// runs: bin/ next to the lib/ directory of the libhdf5 it mapped (two HDF5s live on a
// machine with the 1.14 build; their tools must match the files' library).
func hdf5Tool(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || !strings.HasPrefix(filepath.Base(fields[5]), "libhdf5") || strings.Contains(fields[5], "_hl") {
			continue
		}
		lib := fields[5]
		for _, bin := range []string{filepath.Join(filepath.Dir(lib), "..", "bin", name), "/usr/bin/" + name} {
			if _, err := os.Stat(bin); err == nil && (strings.HasPrefix(bin, "/usr/bin") == strings.HasPrefix(lib, "/usr/")) {
				return bin
			}
		}
		t.Fatalf("no %s for the HDF5 of %s", name, lib)
	}
	t.Fatal("libhdf5 is not mapped into this process")
	return ""
}

// TestSubfilingVFDSettings checks the layout's settings before any I/O, on the build it
// runs on: bad values name the key (or the environment variable that stood for it), and
// a failed configuration leaves an existing file untouched. Without the VFD, the layout is
// refused with the build that has it (after the values its table refuses on any build).
func TestSubfilingVFDSettings(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "keep.h5")
	if err := os.WriteFile(file, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	notDir := file
	cases := []struct {
		kv, env, key, reason string
	}{
		{kv: "subfiling_vfd.stripe_size=0", key: subfilingvfd.KeyStripeSize, reason: "out of range"},
		{kv: "subfiling_vfd.stripe_size=-4096", key: subfilingvfd.KeyStripeSize, reason: "not a valid size"},
		{env: "H5FD_SUBFILING_STRIPE_SIZE=0", key: subfilingvfd.KeyStripeSize, reason: "H5FD_SUBFILING_STRIPE_SIZE"},
		{kv: "subfiling_vfd.ioc_per_node=0", key: subfilingvfd.KeyIOCPerNode, reason: "out of range"},
		{kv: "subfiling_vfd.thread_pool=0", key: subfilingvfd.KeyThreadPool, reason: "out of range"},
		{kv: "subfiling_vfd.subfile_dir=" + filepath.Join(dir, "missing"), key: subfilingvfd.KeySubfileDir, reason: "no such file or directory"},
		{kv: "subfiling_vfd.subfile_dir=" + notDir, key: subfilingvfd.KeySubfileDir, reason: "not a directory"},
		{kv: "subfiling_vfd.config_dir=" + filepath.Join(dir, "missing"), key: subfilingvfd.KeyConfigDir, reason: "no such file or directory"},
		{env: "H5FD_SUBFILING_SUBFILE_PREFIX=" + notDir, key: subfilingvfd.KeySubfileDir, reason: "H5FD_SUBFILING_SUBFILE_PREFIX"},
	}
	for _, c := range cases {
		if c.env != "" {
			k, v, _ := strings.Cut(c.env, "=")
			t.Setenv(k, v)
		}
		kv := "layout=subfiling-vfd;file=" + file
		if c.kv != "" {
			kv += ";" + c.kv
		}
		_, err := proxy.ParseOptions("vpic", mustKV(t, kv))
		var oe *options.Error
		switch {
		case !h5.HaveSubfiling():
			// Values the key's table refuses are refused first, on any build.
			parseErr := errors.As(err, &oe) && oe.Key == c.key && strings.Contains(err.Error(), c.reason) && c.kv != ""
			if !parseErr && (!errors.As(err, &oe) || oe.Key != "layout" || !strings.Contains(err.Error(), "HDF5=1.14 make build")) {
				t.Errorf("%s%s on HDF5 %s: want the layout refused naming the build that has it, got %v", c.kv, c.env, h5.Version(), err)
			}
		case !errors.As(err, &oe) || oe.Key != c.key || !strings.Contains(err.Error(), c.reason):
			t.Errorf("%s%s: want an error naming %s (%s), got %v", c.kv, c.env, c.key, c.reason, err)
		}
		if c.env != "" {
			os.Unsetenv(strings.SplitN(c.env, "=", 2)[0])
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "precious" {
		t.Errorf("a refused configuration touched %s: %q, %v", file, b, err)
	}
	if !h5.HaveSubfiling() {
		return
	}
	// The VFD's environment variables stand for keys not given; a key given wins.
	t.Setenv("H5FD_SUBFILING_STRIPE_SIZE", "131072")
	for kv, want := range map[string]int64{"": 131072, ";subfiling_vfd.stripe_size=1MiB": 1 << 20} {
		cfg, err := proxy.ParseOptions("vpic", mustKV(t, "layout=subfiling-vfd;file="+file+kv))
		if err != nil {
			t.Fatal(err)
		}
		v, err := cfg.Settings()
		if err != nil {
			t.Fatal(err)
		}
		s, err := subfilingvfd.Resolve(v)
		if err != nil || s.StripeSize != want {
			t.Errorf("%q with H5FD_SUBFILING_STRIPE_SIZE=131072: stripe size %d (%v), want %d", kv, s.StripeSize, err, want)
		}
	}
}

// TestSubfilingVFDThreadsUnbound checks that the VFD's I/O concentrator threads may run
// on every CPU of the machine when the launcher binds the rank to one core (OpenMPI's
// default at 2 ranks), while the rank's own threads keep their binding: bound, the
// concentrator shares its rank's core with the rank's MPI polling, and each request from
// another rank waits for a time slice (E3SM's tens of thousands of small writes were on
// course for a quarter of an hour at 2 ranks; docs/layouts.md). It binds every thread of the rank to
// one CPU itself, so it does not depend on the launcher, opens a VFD file (2 concentrators
// of 2 workers, one per rank), counts the threads allowed more than that CPU, then writes
// and reads back the file, verified. Without the VFD the layout is refused.
func TestSubfilingVFDThreadsUnbound(t *testing.T) {
	dir, w, ok := vfdAtTwoRanks(t)
	if !ok {
		return
	}
	var own unix.CPUSet
	if err := unix.SchedGetaffinity(0, &own); err != nil {
		t.Fatal(err)
	}
	cpu := 0
	for !own.IsSet(cpu) {
		cpu++
	}
	var one unix.CPUSet
	one.Set(cpu)
	tids := threads(t)
	for _, tid := range tids {
		if err := unix.SchedSetaffinity(tid, &one); err != nil && !errors.Is(err, unix.ESRCH) {
			t.Fatal(err)
		}
	}
	machine := allowedCPUs(t)
	file := fileOf(dir, "vfd-unbound", w.Size())
	s := session(t, config(t, "NUM_DIMS=1;DIM_1=4096;TIMESTEPS=1;verify=yes;layout=subfiling-vfd;subfiling_vfd.ioc_per_node=2;subfiling_vfd.thread_pool=2", file))
	defer s.Close()
	if err := s.BeginPhase(patterns.PhaseWrite); err != nil {
		t.Fatal(err)
	}
	wide, bound := 0, 0
	for _, tid := range threads(t) {
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &set); err != nil {
			continue // a thread that ended
		}
		switch {
		case set.Count() > 1:
			wide++
		case slices.Contains(tids, tid):
			bound++
		}
	}
	// The concentrator's main thread and its 2 workers.
	if machine > 1 && wide < 3 {
		t.Errorf("rank %d: %d threads may leave CPU %d with the VFD file open, want its concentrator's 3 (the machine has %d CPUs)", w.Rank(), wide, cpu, machine)
	}
	if bound < len(tids)/2 {
		t.Errorf("rank %d: %d of the rank's %d threads kept their binding to CPU %d", w.Rank(), bound, len(tids), cpu)
	}
	if err := s.Step(0); err != nil {
		t.Fatal(err)
	}
	if err := s.EndPhase(); err != nil {
		t.Fatal(err)
	}
	if err := s.RunPhase(patterns.PhaseRead); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Report()
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Phases[len(rep.Phases)-1]; r.Phase != "read" || !r.Verified || r.Mismatches != 0 || r.Bytes == 0 {
		t.Errorf("read back: %+v", r)
	}
	for _, tid := range threads(t) {
		unix.SchedSetaffinity(tid, &own)
	}
}

// vfdAtTwoRanks starts a VFD test at 2 ranks: in a launched rank it returns the test's
// directory, the world communicator and true. Without the VFD it checks that the layout
// is refused naming the build that has it, and returns false, as it does in the parent of
// the launched ranks.
func vfdAtTwoRanks(t *testing.T) (string, proxy.Comm, bool) {
	t.Helper()
	if !h5.HaveSubfiling() {
		if _, err := proxy.ParseOptions("vpic", mustKV(t, "layout=subfiling-vfd;file=x.h5")); !errors.Is(err, proxy.ErrUnsupported) || !strings.Contains(err.Error(), "HDF5=1.14 make build") {
			t.Fatalf("HDF5 %s: layout=subfiling-vfd: want the layout refused naming the build that has it, got %v", h5.Version(), err)
		}
		return "", proxy.Comm{}, false
	}
	dir := testDir(t)
	if mpitest.Run(t, 2) {
		return dir, proxy.Comm{}, false
	}
	return dir, world(t), true
}

// threads lists the thread ids of this process.
func threads(t *testing.T) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var tids []int
	for _, e := range ents {
		var tid int
		if _, err := fmt.Sscan(e.Name(), &tid); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids
}

// allowedCPUs returns how many CPUs the kernel lets a thread of this process run on
// (its cpuset), by asking for all of them on a locked thread, then restoring it.
func allowedCPUs(t *testing.T) int {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var own, all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &own); err != nil {
		t.Fatal(err)
	}
	defer unix.SchedSetaffinity(0, &own)
	for cpu := 0; cpu < len(all)*64; cpu++ {
		all.Set(cpu)
	}
	if err := unix.SchedSetaffinity(0, &all); err != nil {
		t.Fatal(err)
	}
	var got unix.CPUSet
	if err := unix.SchedGetaffinity(0, &got); err != nil {
		t.Fatal(err)
	}
	return got.Count()
}

// sharedChunksDescription has the ranks write into shared chunks: 4 series of one
// element per rank and step, one chunk per step, extended at every step.
const sharedChunksDescription = `
name: shared-chunks
steps: 3
files:
  h:
    name: shared.h5
    datasets:
      a: {type: f64, shape: [nranks], extend: 0, chunk: [nranks]}
      b: {type: f64, shape: [nranks], extend: 0, chunk: [nranks]}
      c: {type: i32, shape: [nranks], extend: 0, chunk: [nranks]}
      d: {type: i64, shape: [nranks], extend: 0, chunk: [nranks]}
timeline:
  - write: h
  - read: h
    at: restart
`

// TestSubfilingVFDSharedChunks writes, at 2 ranks through the VFD, series whose chunks
// both ranks write (each rank one element of each chunk, a chunk allocated at the create
// and at every extension), and reads every element back verified: HDF5's fill of a new
// chunk, which the VFD does not order before the other ranks' writes, must not zero a
// rank's value (the layout creates such datasets with fill time never; the fused file
// says so). Without the VFD the layout is refused.
func TestSubfilingVFDSharedChunks(t *testing.T) {
	dir, w, ok := vfdAtTwoRanks(t)
	if !ok {
		return
	}
	desc := filepath.Join(dir, "shared.yaml")
	if w.Rank() == 0 {
		if err := os.WriteFile(desc, []byte(sharedChunksDescription), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Barrier(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // the fill's race lost a value in about two runs out of three
		sub := filepath.Join(dir, fmt.Sprint("run", i))
		if w.Rank() == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Barrier(); err != nil {
			t.Fatal(err)
		}
		kvs, err := proxy.ParseKV("description=" + desc + ";layout=subfiling-vfd;verify=yes;file=" + filepath.Join(sub, "run.h5"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := proxy.ParseOptions("app", kvs)
		if err != nil {
			t.Fatal(err)
		}
		runVerified(t, cfg)
		if w.Rank() != 0 || i > 0 {
			continue
		}
		shared, plain := filepath.Join(sub, "shared.h5"), filepath.Join(sub, "plain.h5")
		if err := subfilingvfd.Fuse(shared, plain, ""); err != nil {
			t.Fatal(err)
		}
		f, err := h5.OpenFile(plain, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := h5.OpenDataset(f, "/a")
		if err != nil {
			t.Fatal(err)
		}
		info, err := h5.DatasetInfo(d)
		h5.CloseDataset(d)
		h5.CloseFile(f)
		if err != nil || !info.FillNever || info.Shape[0] != 6 {
			t.Errorf("fused /a: fill never %v, shape %v (%v); want fill time never, 6 elements", info.FillNever, info.Shape, err)
		}
	}
}
