package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/profile"
)

// groupsDescription writes files shared by groups of ranks (N-to-M): each group of
// `group` consecutive ranks opens part_<g>.h5 through MPI-IO on its own communicator, its
// datasets decomposed over the group's ranks (a block of x, a row of m each, meta from
// the group's first rank alone with an independent transfer); the restart read reads each
// file back with a group of readers, written_by writers ago.
const groupsDescription = `
name: groups
params: {n: 8, group: 2, writers: 4}
files:
  part:
    name: part_${div(rank, group)}.h5
    ranks: group
    attributes: {group: {type: i32, value: "${div(rank, group)}"}}
    datasets:
      x: {type: f64, shape: [n * group]}
      m: {type: i32, shape: [group, n], decompose: {grid: [0, 1]}}
      meta: {type: i64, shape: [4], decompose: rank0}
timeline:
  - write: part
    datasets: [x, m]
  - write: part
    datasets: [meta]
    collective: false
  - read: part
    at: restart
    written_by: writers
`

// readPhase is a report's read phase: verified, with its mismatches.
func readPhase(t *testing.T, report string) (verified bool, mismatches float64, reads int64) {
	t.Helper()
	var r struct {
		Phases []struct {
			Phase      string
			Verified   bool
			Mismatches float64
			Census     struct {
				Calls []struct {
					Call  string
					Count int64
				}
			}
		}
	}
	loadJSON(t, report, &r)
	for _, p := range r.Phases {
		if p.Phase != "read" {
			continue
		}
		for _, c := range p.Census.Calls {
			if c.Call == "H5Dread" {
				reads = c.Count
			}
		}
		return p.Verified, p.Mismatches, reads
	}
	t.Fatalf("%s has no read phase", report)
	return
}

// TestAppGroupFiles runs the N-to-M description at 4 ranks in groups of 2 (two files, each
// created and written by its group alone) and at 2 ranks in groups of 1 and 2 (two files
// and one), checks the files exist with the group's shapes and nothing else does, and
// reads them back, every value verified, on as many ranks and on a different number
// (4 writers' 2 files read by 2 ranks, each reading a file alone, and by 1 rank, reading
// both one after the other, serially); the raw, log and
// subfiling layouts split the communicator by group too.
func TestAppGroupFiles(t *testing.T) {
	dir := t.TempDir()
	desc := filepath.Join(dir, "groups.yaml")
	if err := os.WriteFile(desc, []byte(groupsDescription), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		np, group string
		files     []string
	}{
		{"4", "2", []string{"part_0.h5", "part_1.h5"}},
		{"2", "1", []string{"part_0.h5", "part_1.h5"}}, // a file per rank (sec2)
		{"2", "2", []string{"part_0.h5"}},              // one shared file
	} {
		out := filepath.Join(dir, "np"+c.np+"g"+c.group)
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		rep := filepath.Join(out, "report.json")
		h5proxy(t, dir, "run", "-np", c.np, "-quiet", "-dir", out, "-report", rep, desc, "group="+c.group, "writers="+c.np).expect(t, 0, nil, nil)
		ents, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".h5") {
				got = append(got, e.Name())
			}
		}
		if strings.Join(got, " ") != strings.Join(c.files, " ") {
			t.Errorf("np %s group %s: files %v, want %v", c.np, c.group, got, c.files)
		}
		for _, f := range c.files {
			dump := h5dumpH(t, filepath.Join(out, f))
			if want := "DATASPACE  SIMPLE { ( " + map[string]string{"1": "8", "2": "16"}[c.group] + " ) / "; !strings.Contains(dump, want) {
				t.Errorf("np %s group %s: %s's x is not the group's %q:\n%s", c.np, c.group, f, want, dump)
			}
		}
		if v, m, _ := readPhase(t, rep); !v || m != 0 {
			t.Errorf("np %s group %s: restart read verified %v, mismatches %v", c.np, c.group, v, m)
		}
	}

	// Every layout opens a group's file on the group's communicator.
	for _, layout := range []string{"log", "mpiio", "posix", "subfiling"} {
		out := filepath.Join(dir, layout)
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		rep := filepath.Join(out, "report.json")
		h5proxy(t, dir, "run", "-np", "4", "-quiet", "-dir", out, "-report", rep, desc, "layout="+layout).expect(t, 0, nil, nil)
		if v, m, _ := readPhase(t, rep); !v || m != 0 {
			t.Errorf("layout %s: restart read verified %v, mismatches %v", layout, v, m)
		}
		for _, f := range []string{"part_0.h5", "part_1.h5"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Errorf("layout %s: %v", layout, err)
			}
		}
	}

	// 4 writers' two files read by 2 ranks: each reads one file alone, all of it.
	four := filepath.Join(dir, "np4g2")
	cfg := readOnly(t, four, desc)
	rep := filepath.Join(four, "read2.report.json")
	h5proxy(t, four, "run", "-np", "2", "-quiet", "-report", rep, cfg).expect(t, 0, nil, nil)
	if v, m, reads := readPhase(t, rep); !v || m != 0 || reads != 6 {
		t.Errorf("2 readers of 4 writers' files: verified %v, mismatches %v, H5Dread %d (want 3 per rank)", v, m, reads)
	}

	// 1 reader reads both files, each alone (no MPI-IO) and whole: 2 opens, 6 reads.
	rep = filepath.Join(four, "read1.report.json")
	h5proxy(t, four, "run", "-np", "1", "-quiet", "-report", rep, cfg).expect(t, 0, nil, nil)
	if v, m, reads := readPhase(t, rep); !v || m != 0 || reads != 6 {
		t.Errorf("1 reader of 4 writers' files: verified %v, mismatches %v, H5Dread %d (want 3 per file)", v, m, reads)
	}
	checkCensus(t, "1 reader", rep, "read H5Fopen count=2 max=2 ", "read H5Fclose count=2 max=2 ", "read collective=0 ")

	// 3 readers cannot split 2 files evenly: an error naming the key, before any I/O.
	r := h5proxy(t, four, "run", "-np", "3", "-quiet", "-report", filepath.Join(four, "read3.json"), cfg)
	if r.code == 0 || !strings.Contains(r.stderr, `key timeline[2].written_by value "writers"`) || !strings.Contains(r.stderr, "3 readers do not split into 2 equal groups") {
		t.Errorf("3 readers: %v", r)
	}
}

// TestAppPointsProfile profiles a description whose dataset is decomposed by a point list
// at 2 ranks: each rank's points are one H5Sselect_elements, which the profile counts as
// a real code's (H5D_POINT_SELECTS: a write and a restart read per rank, no hyperslab),
// and the values read back equal.
func TestAppPointsProfile(t *testing.T) {
	dir := t.TempDir()
	lib := buildProfileLib(t)
	if err := os.WriteFile(filepath.Join(dir, "pts.txt"), []byte("0 0 0\n0 0 3\n1 0 1\n1 0 2\n0 1 0\n1 1 1\n1 1 2\n0 1 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	desc := filepath.Join(dir, "points.yaml")
	if err := os.WriteFile(desc, []byte(`name: points
files:
  out:
    name: pts.h5
    datasets:
      v: {type: f64, shape: [2, 4], decompose: {kind: points, file: pts.txt}}
timeline:
  - write: out
  - read: out
    at: restart
`), 0o644); err != nil {
		t.Fatal(err)
	}
	prof, rep := filepath.Join(dir, "prof.json"), filepath.Join(dir, "report.json")
	if r := h5proxy(t, dir, "profile", "-lib", lib, "-np", "2", "-noplot", "-o", prof, "--", binary, "run", "-quiet", "-report", rep, desc); r.code != 0 {
		t.Fatal(r)
	}
	if v, m, reads := readPhase(t, rep); !v || m != 0 || reads != 2 {
		t.Errorf("points read back: verified %v, mismatches %v, H5Dread %d", v, m, reads)
	}
	p, err := profile.Load(prof)
	if err != nil {
		t.Fatal(err)
	}
	var points, slabs int64
	for _, r := range p.Records {
		if r.Module == "H5D" && r.Name == "/v" {
			points += r.Counters["H5D_POINT_SELECTS"]
			slabs += r.Counters["H5D_REGULAR_HYPERSLAB_SELECTS"] + r.Counters["H5D_IRREGULAR_HYPERSLAB_SELECTS"]
		}
	}
	if points != 4 || slabs != 0 {
		t.Errorf("H5D_POINT_SELECTS %d (want 4: a write and a read per rank), hyperslab selects %d (want 0)", points, slabs)
	}
}

// ghostDescription writes from buffers with ghost cells: g more elements on each side of
// each rank's block (rho in every dimension, u along rows only, hdr, rank 0's, by one).
const ghostDescription = `
name: ghost
params: {n: 4, g: 2}
files:
  out:
    name: field.h5
    datasets:
      rho: {type: f64, shape: [n * nranks, n, 3], memory: {ghost: g}}
      u: {type: f32, shape: [n * nranks, 6], chunk: [n, 6], memory: {ghost: [g, 0]}}
      hdr: {type: i32, shape: [5], decompose: rank0, memory: {ghost: 1}}
timeline:
  - write: out
  - read: out
    at: restart
`

// TestAppGhostCells runs the ghost-cell description at 2 ranks on the native layout (the
// memory space selected in HDF5), the subfiling model (the same) and the raw mpiio layout
// (the interior packed by the session): the restart read verifies every value into
// buffers with ghost cells, and the file equals the one written without ghosts (g=0):
// the same structure under h5dump -pH, the same values under h5diff, the same bytes for
// the raw file.
func TestAppGhostCells(t *testing.T) {
	ghostRuns(t, ghostDescription, nil, 6, "native", "subfiling", "mpiio")
}

// TestAppGhostCellsInterleavedCyclicPoints: ghost cells around an interleaved struct's
// elements, block-cyclic rows and a point list (patterns/app/testdata/ghost-more.yaml)
// write the file written without ghosts (g=0), on the native layout (HDF5 selects the
// interior of the memory space) and the raw mpiio layout (the session packs it), and the
// restart read verifies every value read into buffers with ghost cells.
func TestAppGhostCellsInterleavedCyclicPoints(t *testing.T) {
	src, errD := os.ReadFile("../../patterns/app/testdata/ghost-more.yaml")
	pts, errP := os.ReadFile("../../patterns/app/testdata/ghost-pts.txt")
	if errD != nil || errP != nil {
		t.Fatal(errD, errP)
	}
	// The raw layout writes a struct's members, scattered in the file's records, through a
	// file view (collectively, one contiguous run per rank is needed without one).
	ghostRuns(t, string(src), map[string]string{"ghost-pts.txt": string(pts)}, 8, "native", "mpiio mpiio.file_view=YES")
}

// ghostRuns runs description src (beside files, its inputs) at 2 ranks with g=2 and g=0
// on each layout (a name, then any KEY=VALUE settings it needs) and compares the two
// files: bytes for the raw mpiio layout, h5dump -pH and h5diff for the others. The
// restart read must verify every value with reads H5Dread calls over the ranks.
func ghostRuns(t *testing.T, src string, files map[string]string, reads int64, layouts ...string) {
	t.Helper()
	dir := t.TempDir()
	desc := filepath.Join(dir, "ghost.yaml")
	if err := os.WriteFile(desc, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, run := range layouts {
		settings := strings.Fields(run)
		layout := settings[0]
		files := map[string]string{}
		for _, g := range []string{"2", "0"} {
			out := filepath.Join(dir, layout+"-g"+g)
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
			rep := filepath.Join(out, "report.json")
			args := append([]string{"run", "-np", "2", "-quiet", "-dir", out, "-report", rep, desc, "g=" + g, "layout=" + layout}, settings[1:]...)
			h5proxy(t, dir, args...).expect(t, 0, nil, nil)
			if v, m, n := readPhase(t, rep); !v || m != 0 || n != reads {
				t.Errorf("%s g=%s: read back verified %v, mismatches %v, H5Dread %d (want %d: collective, every rank calls)", layout, g, v, m, n, reads)
			}
			files[g] = filepath.Join(out, "field.h5")
		}
		if layout == "mpiio" {
			a, errA := os.ReadFile(files["2"])
			b, errB := os.ReadFile(files["0"])
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Errorf("mpiio: the raw file with ghosts differs from the one without (%v, %v)", errA, errB)
			}
			continue
		}
		if a, b := h5dumpH(t, files["2"]), h5dumpH(t, files["0"]); a != b {
			t.Errorf("%s: h5dump -pH differs with ghosts:\n%s\n---\n%s", layout, a, b)
		}
		if _, err := exec.LookPath("h5diff"); err == nil {
			if out, err := exec.Command("h5diff", files["2"], files["0"]).CombinedOutput(); err != nil {
				t.Errorf("%s: h5diff: the values differ with ghosts: %v\n%s", layout, err, out)
			}
		}
	}
}
