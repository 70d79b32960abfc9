package main

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/internal/profile"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
)

// iorRows counts the results rows of an access in h5proxy ior's report.
func iorRows(stdout, access string) int {
	n := 0
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, fmt.Sprintf("%-10s", access)) {
			n++
		}
	}
	return n
}

// iorRun runs h5proxy ior on ranks ranks and checks IOR's report: header, options echo,
// one results row per iteration of each timed access, the Max lines and the summary rows.
func iorRun(t *testing.T, dir string, ranks, reps int, write, read bool, args ...string) result {
	t.Helper()
	r := h5proxy(t, dir, append([]string{"ior", "-np", fmt.Sprint(ranks)}, args...)...)
	r.expect(t, 0, []string{"IOR-3.3.0: MPI Coordinated Test of Parallel I/O\n", "\nOptions: \napi                 : ",
		fmt.Sprintf("tasks               : %d\n", ranks), fmt.Sprintf("repetitions         : %d\n", reps),
		"\nResults: \n\naccess    bw(MiB/s)  IOPS       Latency(s)  block(KiB)", "\nSummary of all tests:\nOperation   Max(MiB)", "Finished            : "},
		[]string{fmt.Sprintf("launching %d ranks", ranks)})
	want := map[string]int{"write": 0, "read": 0}
	if write {
		want["write"] = reps + 1 // the iterations and the summary row
	}
	if read {
		want["read"] = reps + 1
	}
	for access, n := range want {
		if got := iorRows(r.stdout, access); got != n {
			t.Errorf("%d %s rows, want %d\n%s", got, access, n, r)
		}
	}
	if write != strings.Contains(r.stdout, "Max Write: ") || read != strings.Contains(r.stdout, "Max Read:  ") {
		t.Errorf("Max lines: want write %v read %v\n%s", write, read, r)
	}
	return r
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// checkIORDatasets checks, through the independent reader, IOR's HDF5 structure: one
// 1-D native long long dataset per segment, Dataset-0000.SSSS, of n elements.
func checkIORDatasets(t *testing.T, file string, segments int, n uint64) {
	t.Helper()
	nodes, err := inspect.Tree(file)
	if err != nil {
		t.Fatal(err)
	}
	var want []inspect.Node
	for s := 0; s < segments; s++ {
		want = append(want, inspect.Node{Path: fmt.Sprintf("/Dataset-0000.%04d", s), Dataset: true, Type: plan.I64, Shape: []uint64{n}, MaxShape: []uint64{n}})
	}
	if !reflect.DeepEqual(nodes, want) {
		t.Errorf("%s:\n got %v\nwant %v", file, nodes, want)
	}
}

// TestIOR runs IOR command lines at 1, 2 and 4 ranks, each -a, shared and file per
// process, with collective transfers, reordered reads (-C, -Q, -Z, -X), random offsets,
// fsyncs, repetitions, write and read checks, kept and removed files, hints; the raw
// layouts' files have IOR's sizes, the HDF5 files IOR's datasets; a corrupted byte
// fails the read check.
func TestIOR(t *testing.T) {
	dir := t.TempDir()
	p1 := filepath.Join(dir, "p1")
	// 1 rank, POSIX, shared, fsync per write and at the end, 2 iterations, every check.
	iorRun(t, dir, 1, 2, true, true, "-a", "POSIX", "-b", "32k", "-t", "8k", "-s", "2", "-i", "2", "-e", "-Y", "-w", "-r", "-W", "-R", "-G", "1", "-k", "-o", p1)
	if got := fileSize(t, p1); got != 2*32<<10 {
		t.Errorf("%s: %d bytes, want segments x blocks = 65536", p1, got)
	}
	// A read of another run's file with the writer's -G is checked: intact it passes, one
	// byte changed fails.
	read := []string{"ior", "-np", "1", "-a", "POSIX", "-b", "32k", "-t", "8k", "-s", "2", "-r", "-R", "-G", "1", "-k", "-o", p1}
	h5proxy(t, dir, read...).expect(t, 0, []string{"Max Read:  "}, nil)
	f, err := os.OpenFile(p1, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0xff, 0x00, 0xff}, 40000); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// -K instead of -k: the file stays because the check failed.
	read[len(read)-3] = "-K"
	h5proxy(t, dir, read...).expect(t, 1, nil, []string{"ior ERROR: data check error", "mismatching elements"})
	if got := fileSize(t, p1); got != 2*32<<10 {
		t.Errorf("-K: %s has %d bytes after a failed check", p1, got)
	}

	// 2 ranks, MPI-IO, shared, collective, reads shifted by one task.
	m2 := filepath.Join(dir, "m2")
	r := iorRun(t, dir, 2, 1, true, true, "-a", "MPIIO", "-c", "-C", "-b", "16k", "-t", "4k", "-s", "3", "-w", "-r", "-R", "-k", "-o", m2)
	major, minor := proxy.MPIStandardVersion()
	r.expect(t, 0, []string{fmt.Sprintf("apiVersion          : (%d.%d)\n", major, minor), "type                : collective\n", "ordering inter file : constant task offset\ntask offset         : 1\n"}, nil)
	if got := fileSize(t, m2); got != 2*3*16<<10 {
		t.Errorf("%s: %d bytes, want tasks x segments x blocks", m2, got)
	}

	// 2 ranks, HDF5, file per process, reordered, no fill, alignment: each task's file.
	h2 := filepath.Join(dir, "h2.h5")
	iorRun(t, dir, 2, 1, true, true, "-a", "HDF5", "-F", "-C", "-n", "-J", "4k", "-b", "16k", "-t", "8k", "-s", "2", "-w", "-r", "-R", "-k", "-o", h2)
	for rank := 0; rank < 2; rank++ {
		checkIORDatasets(t, fmt.Sprintf("%s.%08d", h2, rank), 2, 16<<10/8)
	}

	// 4 ranks, HDF5, shared, collective, random task reordering with a negative seed, 2
	// iterations, write and read checks.
	h4 := filepath.Join(dir, "h4.h5")
	r = iorRun(t, dir, 4, 2, true, true, "-a", "HDF5", "-c", "-Z", "-X", "-3", "-i", "2", "-s", "3", "-b", "8k", "-t", "2k", "-w", "-r", "-W", "-R", "-k", "-o", h4)
	r.expect(t, 0, []string{"apiVersion          : " + proxy.HDF5Version() + " (Parallel)\n", "ordering inter file : random task offset\ntask offset         : 1\nreorder random seed : -3\n"}, nil)
	checkIORDatasets(t, h4, 3, 4*8<<10/8)

	// 4 ranks, POSIX, file per process, random offsets, reads shifted by -Q 3, a write
	// check; -g and -x accepted.
	x4 := filepath.Join(dir, "x4")
	iorRun(t, dir, 4, 1, true, true, "-a", "POSIX", "-F", "-z", "-C", "-Q", "3", "-b", "8k", "-t", "1k", "-s", "2", "-w", "-r", "-W", "-g", "-x", "-k", "-o", x4)
	for rank := 0; rank < 4; rank++ {
		if got := fileSize(t, fmt.Sprintf("%s.%08d", x4, rank)); got != 2*8<<10 {
			t.Errorf("rank %d's file: %d bytes, want segments x blocks", rank, got)
		}
	}

	// 2 ranks, MPI-IO, file per process, -Z, hints from a file shown with -H; the files
	// removed without -k; -x reset with IOR's warning.
	hints := filepath.Join(dir, "hints")
	if err := os.WriteFile(hints, []byte("IOR_HINT__MPI__romio_cb_write=enable\nother=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	z2 := filepath.Join(dir, "z2")
	r = iorRun(t, dir, 2, 1, true, true, "-a", "MPIIO", "-F", "-Z", "-x", "-H", "-U", hints, "-b", "8k", "-t", "8k", "-w", "-r", "-R", "-o", z2)
	r.expect(t, 0, []string{"ior WARNING: retry only available in POSIX.  Using value of 0.", "hints passed to MPI_File_open {\n\tromio_cb_write = enable\n}", "\nremove    -"}, nil)
	if strings.Contains(r.stdout, "other") {
		t.Errorf("a line without IOR_HINT__MPI__ became a hint\n%s", r)
	}
	for rank := 0; rank < 2; rank++ {
		if _, err := os.Stat(fmt.Sprintf("%s.%08d", z2, rank)); !os.IsNotExist(err) {
			t.Errorf("rank %d's file left behind without -k: %v", rank, err)
		}
	}
	// A write alone (-w), then a write check alone (-W: a read phase, no read rows).
	w1 := filepath.Join(dir, "w1.h5")
	iorRun(t, dir, 1, 1, true, false, "-a", "HDF5", "-b", "8k", "-t", "8k", "-w", "-W", "-o", w1)
	if _, err := os.Stat(w1); !os.IsNotExist(err) {
		t.Errorf("%s left behind without -k: %v", w1, err)
	}
}

// TestIORErrors: bad IOR command lines stop before any rank is launched, with IOR's
// messages on stderr and exit status 2.
func TestIORErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-b", "10k", "-t", "4k"}, "ior ERROR: block size must be a multiple of transfer size"},
		{[]string{"-q"}, "Error invalid argument: -q (quitOnError is not supported by h5proxy ior)\nInvalid options"},
		{[]string{"-y"}, "Error invalid argument: -y\nInvalid options"},
		{[]string{"-t", "1q"}, `Error invalid argument: -t 1q (size "1q": unknown suffix "q" (k, m or g))`},
		{[]string{"-a", "HDF5", "-z"}, "ior ERROR: random offset not available with HDF5"},
	} {
		r := h5proxy(t, "", append([]string{"ior"}, tc.args...)...)
		r.expect(t, 2, nil, []string{tc.want})
		if strings.Contains(r.stderr, "launching") {
			t.Errorf("%q launched ranks\n%s", tc.args, r)
		}
	}
	r := h5proxy(t, "", "ior", "-np", "0")
	r.expect(t, 2, nil, []string{"-np 0: the number of ranks must be at least 1"})
}

// TestIORSet: -set KEY=VALUE sets a session key over the test's own, in every launched
// rank: with layout=null the same test writes no file; a key the session does not know,
// a bad value and a -set without KEY=VALUE are refused before any rank is launched,
// naming them.
func TestIORSet(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-a", "MPIIO", "-b", "32k", "-t", "8k", "-w", "-k"}
	stored, null := filepath.Join(dir, "stored"), filepath.Join(dir, "null")
	iorRun(t, dir, 2, 1, true, false, append(args, "-o", stored)...)
	iorRun(t, dir, 2, 1, true, false, append([]string{"-set", "layout=null"}, append(args, "-o", null)...)...)
	if got := fileSize(t, stored); got != 2*32<<10 {
		t.Errorf("%s: %d bytes, want 2 ranks' blocks", stored, got)
	}
	if _, err := os.Stat(null); !os.IsNotExist(err) {
		t.Errorf("-set layout=null: %s exists (%v), want no file", null, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-set"}, "-set needs a session key and its value, KEY=VALUE"},
		{[]string{"-set", "transfer_runs"}, "-set needs a session key and its value, KEY=VALUE"},
		{[]string{"-set", "transfer_runs=maybe"}, "transfer_runs"},
		{[]string{"-set", "no_such_key=1"}, "no_such_key"},
	} {
		r := h5proxy(t, "", append(append([]string{"ior", "-np", "2"}, tc.args...), args...)...)
		r.expect(t, 2, nil, []string{tc.want})
		if strings.Contains(r.stderr, "launching") {
			t.Errorf("%q launched ranks\n%s", tc.args, r)
		}
	}
}

// TestIORFromJSON: the ior pattern from a native configuration under h5proxy run: IOR's
// rows after h5bench's summary of each phase, the read verified, the keys IOR's names.
func TestIORFromJSON(t *testing.T) {
	dir := t.TempDir()
	cfg := writeJSON(t, filepath.Join(dir, "ior.json"), map[string]any{
		"pattern": "ior", "phases": []string{"write", "read"},
		"session": map[string]any{"file": filepath.Join(dir, "ior.h5"), "layout": "native", "fill": "once"},
		"options": map[string]any{"api": "HDF5", "blockSize": "16k", "transferSize": "4k", "segmentCount": 2, "filePerProc": 1, "reorderTasks": 1, "repetitions": 2},
	})
	r := h5proxy(t, dir, "run", "-np", "2", cfg)
	r.expect(t, 0, []string{"Pattern: ior (write phase)", "Verification: OK", "Max Write: ", "Max Read:  "}, []string{"launching 2 ranks"})
	if got := iorRows(r.stdout, "read"); got != 3 {
		t.Errorf("%d read rows, want 2 iterations and the summary row\n%s", got, r)
	}
	for rank := 0; rank < 2; rank++ {
		checkIORDatasets(t, filepath.Join(dir, fmt.Sprintf("ior.h5.%08d", rank)), 2, 16<<10/8)
	}
}

// TestIORIterationOrder: h5proxy ior runs and prints IOR's iterations in IOR's order
// (write, read, then the timed removal, per iteration) and opens an HDF5 file per process
// through MPI-IO on MPI_COMM_SELF, as IOR does: HDF5 then allocates the datasets early,
// where the default driver would allocate them late.
func TestIORIterationOrder(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "o.h5")
	page := filepath.Join(dir, "ior.html")
	r := iorRun(t, dir, 2, 2, true, true, "-html", page, "-a", "HDF5", "-F", "-b", "16k", "-t", "8k", "-s", "2", "-i", "2", "-w", "-r", "-o", f)
	// -html: the same rows as the text report, as a table of numbers, and the figure.
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	results, perAccess, _ := strings.Cut(string(html), "<caption>Per access</caption>")
	for _, access := range []string{"write", "read"} {
		if n := strings.Count(results, "<tr><td>"+access+"</td><td class=\"num\">"); n != 2 {
			t.Errorf("the results table has %d %s rows, want 2 (one per iteration)", n, access)
		}
		if !strings.Contains(perAccess, "<tr><td>"+access+"</td>") {
			t.Errorf("the per-access table lacks %s", access)
		}
	}
	if !strings.Contains(string(html), "<figure") || !strings.Contains(string(html), "h5proxy ior -a HDF5 -F") {
		t.Errorf("the page lacks its figure or its command")
	}
	var order []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if fields := strings.Fields(l); len(fields) > 2 && (fields[0] == "write" || fields[0] == "read" || fields[0] == "remove") && !strings.Contains(l, "HDF5") {
			order = append(order, fields[0]+fields[len(fields)-1])
		}
	}
	if got := strings.Join(order, " "); got != "write0 read0 remove0 write1 read1 remove1" {
		t.Errorf("rows in order %q, want write0 read0 remove0 write1 read1 remove1\n%s", got, r)
	}
	for rank := 0; rank < 2; rank++ {
		if _, err := os.Stat(fmt.Sprintf("%s.%08d", f, rank)); !os.IsNotExist(err) {
			t.Errorf("rank %d's file left after the removals: %v", rank, err)
		}
	}
	iorRun(t, dir, 2, 1, true, false, "-a", "HDF5", "-F", "-b", "16k", "-t", "8k", "-s", "2", "-w", "-k", "-o", f)
	for rank := 0; rank < 2; rank++ {
		out, err := exec.Command("h5dump", "-p", "-H", fmt.Sprintf("%s.%08d", f, rank)).CombinedOutput()
		if err != nil {
			t.Fatalf("h5dump: %v\n%s", err, out)
		}
		if n := strings.Count(string(out), "H5D_ALLOC_TIME_EARLY"); n != 2 || strings.Contains(string(out), "H5D_ALLOC_TIME_LATE") {
			t.Errorf("rank %d's file: %d datasets allocated early, want both (MPI-IO driver)\n%s", rank, n, out)
		}
	}
}

// TestIORFileView runs IOR's MPI-IO file view (-V) on 2 ranks under the profiler: the file
// holds the same bytes at the same offsets as the run without -V, and the MPI-IO calls are
// IOR's (aiori-MPIIO.c: MPIIO_Open sets the view once per open, MPIIO_Xfer seeks and moves
// one transfer type with MPI_File_write_all or read_all): per rank 2 views (the write's and
// the read's open), 12 collective writes and 12 collective reads of 4 KiB, none at explicit
// offsets.
func TestIORFileView(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t)
	args := []string{"-a", "MPIIO", "-c", "-b", "16k", "-t", "4k", "-s", "3", "-w", "-r", "-R", "-k"}
	fv, fp := filepath.Join(dir, "fv"), filepath.Join(dir, "fp")
	r := h5proxy(t, dir, append([]string{"profile", "-np", "2", "-lib", lib, "-noplot", "-o", "v.json", "--", binary, "ior"}, append(args, "-V", "-o", fv)...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "Max Read:  ") {
		t.Fatal(r)
	}
	iorRun(t, dir, 2, 1, true, true, append(args, "-o", fp)...)
	a, err := os.ReadFile(fv)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fp)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 2*3*16<<10 || !bytes.Equal(a, b) {
		t.Errorf("-V wrote %d bytes, without -V %d; equal: %v", len(a), len(b), bytes.Equal(a, b))
	}
	p, err := profile.Load(filepath.Join(dir, "v.json"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := p.Find("MPIIO", fv, "", -1)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]int64{"MPIIO_COLL_OPENS": 4, "MPIIO_VIEWS": 4, "MPIIO_COLL_WRITES": 24, "MPIIO_COLL_READS": 24,
		"MPIIO_INDEP_WRITES": 0, "MPIIO_INDEP_READS": 0, "MPIIO_BYTES_WRITTEN": 2 * 3 * 16 << 10, "MPIIO_BYTES_READ": 2 * 3 * 16 << 10,
		"MPIIO_SIZE_WRITE_AGG_1K_10K": 24, "MPIIO_SIZE_READ_AGG_1K_10K": 24, "MPIIO_ACCESS1_ACCESS": 4096, "MPIIO_ACCESS1_COUNT": 48} {
		if got := rec.Counters[k]; got != v {
			t.Errorf("%s = %d, want %d", k, got, v)
		}
	}
	for call, n := range map[string]int64{"MPI_File_set_view": 4, "MPI_File_write_all": 24, "MPI_File_read_all": 24, "MPI_File_write_at_all": 0, "MPI_File_read_at_all": 0} {
		if got := p.Calls[call].N; got != n {
			t.Errorf("%s calls %d, want %d", call, got, n)
		}
	}
}

// TestIORCallsAsIOR pins, under h5proxy's profiler, the counters that follow from IOR
// 4.1's call sequence for a shared file at 2 ranks (-b 16k -t 4k -s 2 -c -w -r: 8
// transfers per task and access), the sources' lines named beside each. Against the real
// IOR 4.1 built on HDF5 1.10.8 the same run differs in no counter (docs/ior.md).
func TestIORCallsAsIOR(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t)
	run := func(api string) (*profile.Profile, string) {
		file := filepath.Join(dir, api)
		out := api + ".json"
		r := h5proxy(t, dir, "profile", "-np", "2", "-lib", lib, "-noplot", "-o", out, "--", binary, "ior",
			"-a", api, "-b", "16k", "-t", "4k", "-s", "2", "-c", "-w", "-r", "-o", file)
		if r.code != 0 || !strings.Contains(r.stdout, "Max Read:  ") {
			t.Fatal(r)
		}
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Errorf("%s: the file is left after the run (IOR's RemoveFile): %v", api, err)
		}
		p, err := profile.Load(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		return p, file
	}
	counters := func(p *profile.Profile, module, file, name string, want map[string]int64) map[string]int64 {
		t.Helper()
		rec, err := p.Find(module, file, name, -1)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range want {
			if got := rec.Counters[k]; got != v {
				t.Errorf("%s %s%s: %s = %d, want %d", module, filepath.Base(file), name, k, got, v)
			}
		}
		return rec.Counters
	}

	// POSIX: POSIX_Create opens on every task with O_CREAT|O_RDWR, mode 0664, and
	// POSIX_Open once more for the read (aiori-POSIX.c); POSIX_Xfer seeks before every
	// transfer; POSIX_GetFileSize stats on every task after each access (ior.c:
	// CheckFileSize), through glibc 2.36's stat, which Darshan 3.5 does not count
	// (POSIX_STATS 0; the call table has them, among the process's other stats and fstats
	// of files it tracks); the existence checks use access(2),
	// which profilers do not count.
	p, file := run("POSIX")
	counters(p, "POSIX", file, "", map[string]int64{"POSIX_OPENS": 4, "POSIX_SEEKS": 32, "POSIX_STATS": 0,
		"POSIX_MODE": 0o664, "POSIX_WRITES": 16, "POSIX_READS": 16})
	if n := p.Calls["stat"].N; n < 4 {
		t.Errorf("POSIX: %d stat calls in the call table, want IOR's 4 (CheckFileSize) at least", n)
	}
	if n := p.Calls["pwrite"].N + p.Calls["pread"].N; n != 0 {
		t.Errorf("POSIX: %d pwrite/pread calls, want none (IOR's lseek + write/read)", n)
	}

	// MPIIO: 4 collective opens (create, read) and 3 of task 0 on MPI_COMM_SELF: the two
	// MPIIO_GetFileSize (aiori-MPIIO.c) and RemoveFile's MPIIO_Access at the end (the one
	// before the write finds no file); every open passes SetHints' info object
	// (utilities.c), IOR sets no view. Each MPI_File_get_size is OMPIO's lseek pair, and no
	// other size is asked.
	p, file = run("MPIIO")
	mc := counters(p, "MPIIO", file, "", map[string]int64{"MPIIO_COLL_OPENS": 4, "MPIIO_INDEP_OPENS": 3, "MPIIO_HINTS": 7,
		"MPIIO_VIEWS": 0, "MPIIO_COLL_WRITES": 16, "MPIIO_COLL_READS": 16})
	counters(p, "POSIX", file, "", map[string]int64{"POSIX_OPENS": mc["MPIIO_COLL_OPENS"] + mc["MPIIO_INDEP_OPENS"], "POSIX_SEEKS": 4})

	// HDF5: the same file-level calls through the MPI-IO backend (HDF5 1.10 has neither
	// H5Fis_accessible nor H5Fdelete); HDF5's MPI-IO driver passes IOR's info object at
	// every open and set_view; H5Dcreate and H5Dopen are the 1.6 API's (IOR builds with
	// H5_USE_16_API); the file selection's stride is a transfer's elements (SeekOffset).
	p, file = run("HDF5")
	mc = counters(p, "MPIIO", file, "", map[string]int64{"MPIIO_COLL_OPENS": 4, "MPIIO_INDEP_OPENS": 3})
	if mc["MPIIO_VIEWS"] == 0 || mc["MPIIO_HINTS"] != mc["MPIIO_VIEWS"]+7 {
		t.Errorf("HDF5: MPIIO_HINTS = %d with %d views, want every open and view hinted (%d)", mc["MPIIO_HINTS"], mc["MPIIO_VIEWS"], mc["MPIIO_VIEWS"]+7)
	}
	for s := 0; s < 2; s++ {
		counters(p, "H5D", file, fmt.Sprintf("/Dataset-0000.%04d", s), map[string]int64{"H5D_USE_DEPRECATED": 1,
			"H5D_ACCESS1_STRIDE_D5": 4096 / 8, "H5D_OPENS": 4, "H5D_WRITES": 8, "H5D_READS": 8})
	}
}

// TestIORTransferRuns: the ior pattern through the mpiio layout and through the native
// layout (-a HDF5, IOR's HDF5 calls) under the profiler with every call traced, with a
// step's transfers made in runs from one C loop (transfer_runs=YES, the default) and one
// call each (NO): the two profiles differ in no counter, and every rank's traced HDF5,
// MPI-IO and POSIX calls are the same calls with the same offsets and sizes in the same
// order, collective, independent and through IOR's file view.
func TestIORTransferRuns(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t)
	for _, tc := range []struct {
		name string
		opts map[string]any
		call string // the read call each transfer makes
	}{
		{"collective", map[string]any{"collective": 1}, "MPI_File_read_at_all"},
		{"independent", map[string]any{}, "MPI_File_read_at"},
		{"view", map[string]any{"collective": 1, "useFileView": 1}, "MPI_File_read_all"},
		{"hdf5-collective", map[string]any{"api": "HDF5", "collective": 1}, "H5Dread"},
		{"hdf5-independent", map[string]any{"api": "HDF5"}, "H5Dread"},
	} {
		layout := "mpiio"
		if tc.opts["api"] == "HDF5" {
			layout = "native"
		}
		profiles := map[string]*profile.Profile{}
		for _, runs := range []string{"YES", "NO"} {
			name := tc.name + "-" + runs
			// Each run creates the file afresh: HDF5's create looks at the size of a file
			// already there (an lseek to its end) before truncating it.
			file := filepath.Join(dir, tc.name+".dat")
			if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			opts := map[string]any{"api": "MPIIO", "blockSize": "16k", "transferSize": "4k", "segmentCount": 2, "repetitions": 2}
			maps.Copy(opts, tc.opts)
			cfg := writeJSON(t, filepath.Join(dir, name+".json"), map[string]any{
				"pattern": "ior", "phases": []string{"write", "read"},
				"session": map[string]any{"file": file, "layout": layout, "fill": "once", "verify": "no", "transfer_runs": runs},
				"options": opts,
			})
			r := h5proxy(t, dir, "profile", "-np", "2", "-trace", "-lib", lib, "-noplot", "-o", name+".prof.json", "--", binary, "run", cfg)
			if r.code != 0 {
				t.Fatal(r)
			}
			p, err := profile.Load(filepath.Join(dir, name+".prof.json"))
			if err != nil {
				t.Fatal(err)
			}
			profiles[runs] = p
		}
		a, b := profiles["YES"], profiles["NO"]
		if d := profile.Compare(a, b); !d.Identical() {
			var w strings.Builder
			d.Print(&w, false)
			t.Errorf("%s: the profiles with and without runs differ:\n%s", tc.name, w.String())
		}
		// 2 ranks x 2 repetitions x 2 segments x 4 transfers.
		if n := a.Calls[tc.call].N; n != 32 || b.Calls[tc.call].N != n {
			t.Errorf("%s: %d %s calls with runs, %d without, want 32", tc.name, n, tc.call, b.Calls[tc.call].N)
		}
		calls := func(p *profile.Profile) map[int][]string { // each rank's, in its order
			s := map[int][]string{}
			for _, e := range p.Events {
				if e.Module == "MPIIO" || e.Module == "POSIX" || e.Module == "H5D" {
					s[e.Rank] = append(s[e.Rank], fmt.Sprintf("%s %s %d+%d coll=%v", e.Call, profile.SharedFPKey(filepath.Base(e.File)), e.Offset, e.Length, e.Collective))
				}
			}
			return s
		}
		ca, cb := calls(a), calls(b)
		if len(ca) != 2 || !reflect.DeepEqual(ca, cb) {
			t.Errorf("%s: traced calls of %d ranks with runs, %d without; equal %v\nwith:    %q\nwithout: %q", tc.name, len(ca), len(cb), reflect.DeepEqual(ca, cb), ca[0], cb[0])
		}
	}
}
