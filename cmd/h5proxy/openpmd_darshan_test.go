package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/internal/launch"
)

// openPMDInput is h5bench's openpmd.input for its openpmd write entry (dim 3, balanced,
// ratio 1, minBlock 8 16 16, grid 4 4 2, steps 1), without its fileLocation line.
const openPMDInput = "dim=3\nbalanced=true\nratio=1\nsteps=1\nminBlock=8 16 16\ngrid=4 4 2\n"

// darshanPrefix returns the real Darshan runtime's prefix (make darshan), or skips.
func darshanPrefix(t *testing.T) string {
	t.Helper()
	prefix := os.Getenv("DARSHAN")
	if prefix == "" {
		prefix = "/opt/h5proxy/darshan"
	}
	if _, err := os.Stat(filepath.Join(prefix, "lib", "libdarshan.so")); err != nil {
		t.Skipf("Darshan's runtime is not installed (%v): make darshan builds Darshan 3.5.0 into /opt/h5proxy/darshan", err)
	}
	if os.Getenv("H5PROXY_HDF5") == "1.14" {
		t.Skip("Darshan in /opt/h5proxy/darshan is built against the system's HDF5 1.10: the HDF5=1.10 build runs this test")
	}
	return prefix
}

// underDarshan runs argv at 2 ranks in dir under the real Darshan and returns
// darshan-parser's lines of its log.
func underDarshan(t *testing.T, prefix, dir string, argv ...string) []string {
	t.Helper()
	launcher, env, err := launch.Launcher(2)
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "run.darshan")
	args := append(launcher[1:], "-x", "LD_PRELOAD="+filepath.Join(prefix, "lib", "libdarshan.so"), "-x", "DARSHAN_LOGFILE="+log)
	cmd := exec.Command(launcher[0], append(args, argv...)...)
	cmd.Dir, cmd.Env = dir, append(userEnv(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v under Darshan: %v\n%s", argv, err, out)
	}
	out, err := exec.Command(filepath.Join(prefix, "bin", "darshan-parser"), log).Output()
	if err != nil {
		t.Fatalf("darshan-parser %s: %v", log, err)
	}
	return strings.Split(string(out), "\n")
}

// openPMDUnderDarshan runs h5proxy's openpmd write of h5bench's entry under Darshan in
// dir/out and returns darshan-parser's lines.
func openPMDUnderDarshan(t *testing.T, prefix, dir string) []string {
	t.Helper()
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	conf := `{"mpi": {"command": "mpirun", "ranks": "2"}, "vol": {}, "file-system": {}, "directory": "` + out + `", "benchmarks": [
 {"benchmark": "openpmd", "configuration": {"operation": "write", "dim": "3", "balanced": "true", "ratio": "1", "steps": "1", "minBlock": "8 16 16", "grid": "4 4 2"}}]}`
	cfg := filepath.Join(dir, "openpmd.json")
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return underDarshan(t, prefix, dir, binary, "run", "-quiet", cfg)
}

// darshanRecords maps, for the records of files named base, each H5D record's name
// (the part after the file's path) to its counters, and reports any record not shared
// (rank -1).
func darshanRecords(t *testing.T, lines []string, base string) map[string]map[string]int64 {
	t.Helper()
	recs := map[string]map[string]int64{}
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) < 6 || strings.HasPrefix(l, "#") || f[0] != "H5D" {
			continue
		}
		file, name, _ := strings.Cut(f[5], ".h5:")
		if filepath.Base(file)+".h5" != base {
			continue
		}
		if f[1] != "-1" {
			t.Errorf("H5D record %s of rank %s, want every record shared (-1)", name, f[1])
		}
		if recs[name] == nil {
			recs[name] = map[string]int64{}
		}
		v, _ := strconv.ParseInt(f[4], 10, 64)
		recs[name][f[3]] = v
	}
	return recs
}

// TestOpenPMDDarshanRecords: under the real Darshan 3.5, h5proxy's openpmd write of
// h5bench's entry (2 ranks) has the real 8a's H5D records: two shared ones per dataset,
// as openPMD-api 0.15.1 makes them (docs/fidelity-notes.md, the openPMD bullet of issue
// 36). createDataset's H5Dcreate(parent, name) gives FILE:/PARENTname (Darshan appends
// the name passed to H5Iget_name of the location, with no separator): 2 opens, the
// dataset's shape, chunk and type. writeDataset's H5Dopen(file, path) and
// writeAttribute's H5Oopen(file, path) give FILE://PATH: the opens and every write.
func TestOpenPMDDarshanRecords(t *testing.T) {
	prefix := darshanPrefix(t)
	recs := darshanRecords(t, openPMDUnderDarshan(t, prefix, t.TempDir()), "8a_parallel_3Db.h5")
	meshes := []string{"/data/fields/B/x", "/data/fields/B/y", "/data/fields/B/z", "/data/fields/E/x", "/data/fields/E/y", "/data/fields/E/z", "/data/fields/rho"}
	all := append(meshes, "/data/particles/ion/charge", "/data/particles/ion/id", "/data/particles/ion/position/x")
	if len(recs) != 2*len(all) {
		t.Errorf("%d H5D records, want %d (two per dataset): %v", len(recs), 2*len(all), keys(recs))
	}
	for _, p := range all {
		dir, name := filepath.Dir(p), filepath.Base(p)
		create, opens := recs[dir+name], recs["/"+p]
		if create == nil || opens == nil {
			t.Errorf("%s: records %q %v and %q %v, want both", p, dir+name, create != nil, "/"+p, opens != nil)
			continue
		}
		ndims, points := int64(3), int64(32*64*32)
		if !strings.HasPrefix(p, "/data/fields/") {
			ndims = 1
		}
		if create["H5D_OPENS"] != 2 || create["H5D_WRITES"] != 0 || create["H5D_DATASPACE_NDIMS"] != ndims || create["H5D_DATASPACE_NPOINTS"] != points || create["H5D_DATATYPE_SIZE"] != 8 {
			t.Errorf("%s's create record: opens %d, writes %d, ndims %d, npoints %d, type size %d; want 2, 0, %d, %d, 8", p,
				create["H5D_OPENS"], create["H5D_WRITES"], create["H5D_DATASPACE_NDIMS"], create["H5D_DATASPACE_NPOINTS"], create["H5D_DATATYPE_SIZE"], ndims, points)
		}
		if opens["H5D_WRITES"] != 2 || opens["H5D_BYTES_WRITTEN"] != 8*points || opens["H5D_DATASPACE_NDIMS"] != ndims {
			t.Errorf("%s's open record: writes %d, bytes %d, ndims %d; want 2 (one per rank), %d, %d", p,
				opens["H5D_WRITES"], opens["H5D_BYTES_WRITTEN"], opens["H5D_DATASPACE_NDIMS"], 8*points, ndims)
		}
	}
}

// TestOpenPMDAgainstThe8aProgram runs the real 8a (openPMD-api 0.15.1, make openpmd:
// /opt/h5proxy/openpmd/bin/h5bench_openpmd_write, or $OPENPMD_WRITE) and h5proxy's
// openpmd write with h5bench's input under the real Darshan at 2 ranks: every non-timing
// POSIX, MPI-IO, H5F and H5D counter summed over records is equal, but the records' file
// hash (H5D_FILE_REC_ID: the run directories differ) and, of the input file's record,
// those that follow the length of /proc/self/status's text, which names the process
// (8a's timers read it on the input file's descriptor).
func TestOpenPMDAgainstThe8aProgram(t *testing.T) {
	prefix := darshanPrefix(t)
	exe := os.Getenv("OPENPMD_WRITE")
	if exe == "" {
		exe = "/opt/h5proxy/openpmd/bin/h5bench_openpmd_write"
	}
	if _, err := os.Stat(exe); err != nil {
		t.Skipf("the real 8a is not built (%v): make openpmd builds openPMD-api 0.15.1's 8a into /opt/h5proxy/openpmd", err)
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(real, "openpmd.input")
	if err := os.WriteFile(input, []byte(openPMDInput+"fileLocation="+real+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := sums(underDarshan(t, prefix, real, exe, input))
	b := sums(openPMDUnderDarshan(t, prefix, filepath.Join(dir, "h5proxy")))
	if a["POSIX_WRITES"] == 0 || a["H5D_WRITES"] == 0 {
		t.Fatalf("the real 8a's log has POSIX_WRITES %d, H5D_WRITES %d", a["POSIX_WRITES"], a["H5D_WRITES"])
	}
	for k, v := range a {
		if k != "H5D_FILE_REC_ID" && b[k] != v {
			t.Errorf("%s: the real 8a %d, h5proxy %d", k, v, b[k])
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok && v != 0 {
			t.Errorf("%s: h5proxy %d, not in the real 8a's log", k, v)
		}
	}
}

// sums adds darshan-parser's counters (not the timing ones, the slowest access's size
// among them, nor the fastest and slowest ranks') of the POSIX, MPI-IO, H5F and H5D
// records over all records; of openpmd.input's, not those that follow the length of the
// /proc/self/status text read on its descriptor (the bytes read, the last byte and the
// access sizes).
func sums(lines []string) map[string]int64 {
	textLength := map[string]bool{"POSIX_BYTES_READ": true, "POSIX_MAX_BYTE_READ": true}
	for k := 1; k <= 4; k++ {
		textLength["POSIX_ACCESS"+strconv.Itoa(k)+"_ACCESS"] = true
		textLength["POSIX_ACCESS"+strconv.Itoa(k)+"_COUNT"] = true
	}
	s := map[string]int64{}
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) < 6 || strings.HasPrefix(l, "#") || strings.Contains(f[3], "_F_") || strings.HasSuffix(f[3], "_TIME_SIZE") || strings.Contains(f[3], "FASTEST") || strings.Contains(f[3], "SLOWEST") {
			continue
		}
		if filepath.Base(f[5]) == "openpmd.input" && textLength[f[3]] {
			continue
		}
		switch f[0] {
		case "POSIX", "MPI-IO", "H5F", "H5D":
			v, _ := strconv.ParseInt(f[4], 10, 64)
			s[f[3]] += v
		}
	}
	return s
}

// keys lists a map's keys.
func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
