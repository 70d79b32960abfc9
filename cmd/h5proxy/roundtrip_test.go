package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// mpiccProgram compiles a C program with mpicc against parallel HDF5 into dir.
func mpiccProgram(t *testing.T, dir, name string, srcs ...string) string {
	t.Helper()
	if _, err := exec.LookPath("mpicc"); err != nil {
		t.Skip("mpicc not installed")
	}
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "hdf5-openmpi").Output()
	if err != nil {
		t.Fatalf("pkg-config hdf5-openmpi: %v", err)
	}
	exe := filepath.Join(dir, name)
	args := append(append([]string{"-O2", "-Wall", "-Werror", "-o", exe}, srcs...), strings.Fields(string(flags))...)
	if out, err := exec.Command("mpicc", args...).CombinedOutput(); err != nil {
		t.Fatalf("mpicc %s: %v\n%s", name, err, out)
	}
	return exe
}

// h5dumpH is a file's `h5dump -pH` without its first line (the file name).
func h5dumpH(t *testing.T, file string) string {
	t.Helper()
	out, err := exec.Command("h5dump", "-pH", file).Output()
	if err != nil {
		t.Fatalf("h5dump -pH %s: %v", file, err)
	}
	_, rest, _ := strings.Cut(string(out), "\n")
	return rest
}

// differing lists the counters diff finds unequal, as "module file[:dataset]: counter",
// and the records one profile alone has; rename rewrites the first profile's file base
// names (OLD=NEW) first.
func differing(t *testing.T, a, b string, rename ...string) []string {
	t.Helper()
	pa, err := profile.Load(a)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := profile.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	d := profile.CompareRenamed(pa, pb, rename)
	var out []string
	for _, c := range d.Differ {
		rec := c.Module + " " + filepath.Base(c.File)
		if c.Name != "" {
			rec += ":" + c.Name
		}
		out = append(out, rec+": "+c.Counter)
	}
	for _, r := range append(d.OnlyA, d.OnlyB...) {
		out = append(out, "only in one profile: "+r)
	}
	slices.Sort(out)
	return out
}

// roundTrip profiles program (traced) at np ranks writing into dir/ref, captures the
// trace into a description, runs the description at np ranks under the profiler writing
// into dir/proxy, and returns both profiles' paths and the description's.
func roundTrip(t *testing.T, dir, lib string, np string, program ...string) (ref, proxy, desc string) {
	t.Helper()
	ref, proxy, desc = filepath.Join(dir, "ref.json"), filepath.Join(dir, "proxy.json"), filepath.Join(dir, "app.yaml")
	for _, d := range []string{"ref", "proxy"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := h5proxy(t, dir, append([]string{"profile", "-lib", lib, "-np", np, "-trace", "-noplot", "-o", ref, "--"}, program...)...)
	if r.code != 0 {
		t.Fatal(r)
	}
	if r = h5proxy(t, dir, "capture", "-from", ref, "-o", desc); r.code != 0 {
		t.Fatal(r)
	}
	r = h5proxy(t, dir, "profile", "-lib", lib, "-np", np, "-noplot", "-o", proxy, "--", binary, "run", "-quiet", "-dir", filepath.Join(dir, "proxy"), desc)
	if r.code != 0 {
		t.Fatal(r)
	}
	return ref, proxy, desc
}

// TestCaptureRoundTripVPIC captures bench/ref's VPIC write (h5bench's call sequence) at 2
// ranks and runs the description: equal profiles in every counter (counts, sizes,
// collective modes) and the same file under h5dump -pH.
func TestCaptureRoundTripVPIC(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t)
	vpic := mpiccProgram(t, dir, "vpic_write", "../../bench/ref/vpic_write.c")
	ref, proxy, _ := roundTrip(t, dir, lib, "2", vpic, filepath.Join(dir, "ref", "vpic.h5"), "4096", "2", "yes", "yes", "0")
	if d := differing(t, ref, proxy); len(d) != 0 {
		t.Errorf("profiles differ in %d counters: %v", len(d), d)
	}
	if a, b := h5dumpH(t, filepath.Join(dir, "ref", "vpic.h5")), h5dumpH(t, filepath.Join(dir, "proxy", "vpic.h5")); a != b {
		t.Errorf("h5dump -pH differs:\n%s\n---\n%s", a, b)
	}
}

// checkPlainDiffs fails on any difference between the profiles: rank 0's independent
// write of each step's mesh included (the description's rank0 decomposition passes
// H5S_ALL, and the other ranks make no call, as the program does).
func checkPlainDiffs(t *testing.T, ref, proxy string, rename ...string) {
	t.Helper()
	if got := differing(t, ref, proxy, rename...); len(got) != 0 {
		t.Errorf("profiles differ in %d counters: %v", len(got), got)
	}
}

// TestCaptureRoundTripPlainC captures examples/c/plain_writer, a program built with plain
// mpicc and HDF5, at 2 ranks: groups per step, block decompositions in 1-D and 2-D, a
// chunked dataset, collective metadata, collective transfers, rank 0's independent write
// and a flush per step. Running the description gives the same profile, every counter,
// and the same file under h5dump -pH; at 3 ranks the
// block decompositions generalize and the description's profile equals the program's
// own at 3 ranks; an uneven decomposition captured at 2 ranks fails at 3 with an error
// naming the key and value.
func TestCaptureRoundTripPlainC(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t)
	prog := mpiccProgram(t, dir, "plain_writer", "../../examples/c/plain_writer.c")
	ref, proxy, desc := roundTrip(t, dir, lib, "2", prog, filepath.Join(dir, "ref", "field.h5"), "2", "64")
	checkPlainDiffs(t, ref, proxy)
	if a, b := h5dumpH(t, filepath.Join(dir, "ref", "field.h5")), h5dumpH(t, filepath.Join(dir, "proxy", "field.h5")); a != b {
		t.Errorf("h5dump -pH differs:\n%s\n---\n%s", a, b)
	}

	// M = 3 ranks: the program and the description (captured at 2) again.
	ref3, proxy3 := filepath.Join(dir, "ref3.json"), filepath.Join(dir, "proxy3.json")
	if r := h5proxy(t, dir, "profile", "-lib", lib, "-np", "3", "-noplot", "-o", ref3, "--", prog, filepath.Join(dir, "ref", "field3.h5"), "2", "64"); r.code != 0 {
		t.Fatal(r)
	}
	if err := os.MkdirAll(filepath.Join(dir, "proxy3"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := h5proxy(t, dir, "profile", "-lib", lib, "-np", "3", "-noplot", "-o", proxy3, "--", binary, "run", "-quiet", "-dir", filepath.Join(dir, "proxy3"), desc); r.code != 0 {
		t.Fatal(r)
	}
	checkPlainDiffs(t, ref3, proxy3, "field3=field") // the program wrote field3.h5
	if a, b := h5dumpH(t, filepath.Join(dir, "ref", "field3.h5")), h5dumpH(t, filepath.Join(dir, "proxy3", "field.h5")); a != b {
		t.Errorf("3 ranks: h5dump -pH differs:\n%s\n---\n%s", a, b)
	}

	// An uneven decomposition does not generalize: a clear error before any I/O (one step:
	// its group step_0 stays a name).
	un := filepath.Join(dir, "uneven.yaml")
	if r := h5proxy(t, dir, "capture", "-lib", lib, "-np", "2", "-o", un, "--", prog, filepath.Join(dir, "ref", "uneven.h5"), "1", "8", "uneven"); r.code != 0 {
		t.Fatal(r)
	}
	r := h5proxy(t, dir, "run", "-np", "3", "-quiet", "-dir", filepath.Join(dir, "proxy3"), un)
	// the first rank to fail names its key: temperature's block of 2 ranks' rows, or
	// pressure's counts of 2 ranks
	if r.code == 0 || !(strings.Contains(r.stderr, `.groups.step_0.datasets.temperature.decompose.kind value "block"`) && strings.Contains(r.stderr, "not divisible by the 3 ranks") ||
		strings.Contains(r.stderr, `.groups.step_0.datasets.pressure.decompose.file value "uneven-step_0_pressure.counts": 2 counts for 3 ranks`)) {
		t.Errorf("uneven description at 3 ranks: %v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "proxy3", "uneven.h5")); !os.IsNotExist(err) {
		t.Errorf("the failed run left a file: %v", err)
	}
}

// e3smHeader is a small history file for bench/ref's E3SM-IO reference over the F map's
// three decompositions (D1, D2: 866 columns; D3: 72 levels x 866): global attributes
// (a string and an i32 array; the reference adds a u64 -DIM_ attribute per dimension,
// time's H5S_UNLIMITED), partitioned fixed and record variables, rank 0's record variables
// (a scalar per record and an 8-char string) and fixed ones (a scalar and a 1-D array),
// with string and number attributes; 3 records.
func e3smHeader() string {
	str := func(s string) string { return fmt.Sprintf("str %d %x", len(s)+1, s+"\x00") }
	f64 := func(v float64) string {
		return fmt.Sprintf("f64 1 %016x", bits.ReverseBytes64(math.Float64bits(v))) // little-endian bytes
	}
	return strings.Join([]string{
		"file h0 3",
		"gattr title " + str("tiny E3SM"),
		"gattr ne i32 2 040000001e000000",
		"dim time 0", "dim ncol 866", "dim lev 72",
		"var lat f64 1 0 1 866", "attr units " + str("degrees_north"), "attr _FillValue " + f64(1e36),
		"var area f64 2 0 1 866",
		"var T f32 3 1 2 72 866", "attr long_name " + str("Temperature"), "attr units " + str("K"),
		"var PS f32 1 1 1 866",
		"var time f64 0 1 0", "attr units " + str("days since 2000-01-01"),
		"var date_written char 0 1 1 8",
		"var P0 f64 0 0 0",
		"var hyam f64 0 0 1 72",
	}, "\n") + "\n"
}

// e3smReference builds the profiler and bench/ref's E3SM-IO reference into dir and returns
// them with the absolute path of E3SM-IO's 16-process F map.
func e3smReference(t *testing.T, dir string) (lib, prog, mapFile string) {
	t.Helper()
	lib = buildProfileLib(t)
	prog = mpiccProgram(t, dir, "e3sm_canonical", "../../bench/ref/e3sm_canonical.c")
	mapFile, err := filepath.Abs("../../data/e3sm/map_f_case_16p.h5")
	if err != nil {
		t.Fatal(err)
	}
	return lib, prog, mapFile
}

// e3smOrderCounters are the POSIX counters that depend on where HDF5 puts objects in the
// file (the order of offsets, the end of the file): E3SM-IO defines every dataset and
// attribute before its first write, the description creates each dataset at its first
// write, so the same writes land at other offsets.
//
// POSIX_MEM_NOT_ALIGNED is among them for another reason: the reference writes from
// E3SM-IO's one buffer carved by kind, some variables from addresses off an 8-byte
// boundary, and a description does not say where a program's buffers sit in memory.
var e3smOrderCounters = []string{"POSIX_CONSEC_WRITES", "POSIX_SEQ_WRITES", "POSIX_FILE_NOT_ALIGNED", "POSIX_MAX_BYTE_WRITTEN", "POSIX_MEM_NOT_ALIGNED"}

// offsetRe matches the addresses h5dump -p prints for contiguous datasets: the
// description creates each dataset at its first write where E3SM-IO defines them all
// first, so HDF5 allocates them in another order.
var offsetRe = regexp.MustCompile(`OFFSET \d+`)

// TestCaptureRoundTripE3SM captures bench/ref's E3SM-IO reference (the canonical HDF5
// write: the F map's union selections, H5Dset_extent before every record, rank 0's
// independent writes, 3150 attributes in the full case) at 2 ranks with a small header,
// and runs the description: its attributes come with names, types and values, its record
// variables are series created empty and extended before each write, its partitioned
// variables a map file of the ranks' unions written beside it, with E3SM-IO's MPI-IO hints
// and LATEST format bounds. The history file's H5F, H5D and MPIIO counters are equal, every
// one, and so are the HDF5 calls and the POSIX counters but those of the file's layout
// order (e3smOrderCounters); the file is the same under h5dump -pH but for its contiguous
// datasets' addresses.
func TestCaptureRoundTripE3SM(t *testing.T) {
	dir := t.TempDir()
	lib, prog, mapFile := e3smReference(t, dir)
	hdr := filepath.Join(dir, "h0.hdr")
	if err := os.WriteFile(hdr, []byte(e3smHeader()), 0o644); err != nil {
		t.Fatal(err)
	}
	ref, proxy, desc := roundTrip(t, dir, lib, "2", prog, mapFile, filepath.Join(dir, "ref", "e3sm.h5"), hdr)
	y, err := os.ReadFile(desc)
	if err != nil {
		t.Fatal(err)
	}
	h0 := "files.e3sm_h0."
	expectKeys(t, capturedKeys(t, desc), map[string]string{
		"steps":                                         "3",
		"hints.nc_in_place_swap":                        "enable",
		"hints.nc_var_align_size":                       "1",
		"hints.romio_cb_write":                          "enable",
		"hints.romio_no_indep_rw":                       "true",
		h0 + "libver":                                   "latest",
		h0 + "attributes.-DIM_time.type":                "u64",
		h0 + "attributes.-DIM_time.value":               "18446744073709551615",
		h0 + "attributes.ne.type":                       "i32",
		h0 + "attributes.ne.shape":                      "[2]",
		h0 + "attributes.ne.value":                      "[4, 30]",
		h0 + "datasets.lat.attributes._FillValue.value": "[1e+36]",
		h0 + "datasets.T.shape":                         "[1, 72, 866]",
		h0 + "datasets.T.extend":                        "0",
		h0 + "datasets.T.start_empty":                   "true",
		h0 + "datasets.T.fill":                          "undefined",
		h0 + "datasets.T.fill_time":                     "never",
		h0 + "datasets.T.decompose.kind":                "map",
		h0 + "datasets.T.decompose.file":                "e3sm_canonical.map.h5",
		h0 + "datasets.T.decompose.decomp":              "3",
		h0 + "datasets.hyam.type":                       "f64",
		h0 + "datasets.hyam.shape":                      "[72]",
		h0 + "datasets.hyam.decompose.kind":             "rank0",
		h0 + "datasets.hyam.decompose.select":           "hyperslab",
		h0 + "datasets.P0.shape":                        "[]",
		h0 + "datasets.P0.decompose":                    "rank0",
		"timeline[*].collective & every & datasets":     "false & 3 & [P0, hyam]",
	}, string(y))
	if _, err := os.Stat(filepath.Join(dir, "e3sm_canonical.map.h5")); err != nil {
		t.Errorf("the map file beside the description: %v", err)
	}

	// Structure: the history file's H5F and H5D counters, the HDF5 calls, the MPI-IO
	// transfers' kinds and counts.
	pa, err := profile.Load(ref)
	if err != nil {
		t.Fatal(err)
	}
	// The trace itself: attributes with their values, extents, the ranks' block lists.
	var units, extent, blocks bool
	for _, e := range pa.Events {
		var a struct{ Object, Name, Value string }
		var sel struct{ Blocks [][]int64 }
		switch {
		case e.Call == "H5Awrite" && e.Rank == 1 && json.Unmarshal(e.Attribute, &a) == nil && a.Object == "/lat" && a.Name == "units":
			units = a.Value == fmt.Sprintf("%x", "degrees_north\x00")
		case e.Call == "H5Dset_extent" && e.Name == "/T" && slices.Equal(e.Extent, []int64{3, 72, 866}):
			extent = true
		case e.Call == "H5Dwrite" && e.Name == "/T" && e.Rank == 1 && json.Unmarshal(e.Selection, &sel) == nil && len(sel.Blocks) > 0:
			blocks = len(sel.Blocks[0]) == 6 // start and end corners of [record, level, column]
		}
	}
	if !units || !extent || !blocks {
		t.Errorf("trace: lat's units with its value %v, T extended to 3 records %v, rank 1's block list of T %v", units, extent, blocks)
	}
	pb, err := profile.Load(proxy)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, c := range profile.Compare(pa, pb).Differ {
		if filepath.Base(c.File) != "e3sm_h0.h5" {
			continue // the maps: E3SM-IO's and the captured one
		}
		if c.Module != "POSIX" || !slices.Contains(e3smOrderCounters, c.Counter) {
			t.Errorf("%s %s %s: %d against %d", c.Module, c.Name, c.Counter, c.A, c.B)
			continue
		}
		left = append(left, c.Counter)
	}
	for _, call := range []string{"H5Fcreate", "H5Fclose", "H5Dcreate2", "H5Dopen2", "H5Dclose", "H5Dwrite", "H5Dread", "H5Dset_extent", "H5Acreate2", "H5Awrite"} {
		if a, b := pa.Calls[call].N, pb.Calls[call].N; a != b {
			t.Errorf("%s: %d calls against %d", call, a, b)
		}
	}
	t.Logf("POSIX counters of the file's layout order: %v", left)
	a := offsetRe.ReplaceAllString(h5dumpH(t, filepath.Join(dir, "ref", "e3sm_h0.h5")), "OFFSET *")
	b := offsetRe.ReplaceAllString(h5dumpH(t, filepath.Join(dir, "proxy", "e3sm_h0.h5")), "OFFSET *")
	if a != b {
		t.Errorf("h5dump -pH (addresses masked) differs:\n%s\n---\n%s", a, b)
	}
}
