package proxy_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
	logl "github.com/h5proxy/h5proxy/proxy/layout/log"
	"github.com/h5proxy/h5proxy/proxy/layout/subfiling"
)

// faultLayouts are every built-in layout, faultModes every mode.
var (
	faultLayouts = []string{"native", "null", "mpiio", "posix", "log", "subfiling", "subfiling-vfd"}
	faultModes   = []string{"sync", "async", "async-model", "cache"}
	// faultExempt are the strategies the faults leave out, and why.
	faultExempt = map[string]string{
		"log-vol":     "needs the log-based VOL on HDF5_PLUGIN_PATH (TestLogVOL where it is built; TestLogVOLRefused)",
		"cache-model": "mode=cache runs the same model where no Cache VOL is loaded, as in this test",
	}
)

// faultDirs makes the test's file systems: full, a 1 MiB tmpfs that a large write fills
// (ENOSPC, as a file system filling up mid-phase), and ro, a tmpfs mounted read-only (as
// root, permission bits do not stop writes; a read-only mount does). Both are unmounted at
// the end of the test.
func faultDirs(t *testing.T, dir string) (full, ro string) {
	t.Helper()
	full, ro = filepath.Join(dir, "full"), filepath.Join(dir, "ro")
	if mpitest.Child() {
		return full, ro
	}
	for _, m := range []struct{ dir, opts string }{{full, "size=1m"}, {ro, "size=64k,ro"}} {
		if err := os.Mkdir(m.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("mount", "-t", "tmpfs", "-o", m.opts, "tmpfs", m.dir).CombinedOutput()
		if err != nil {
			t.Fatalf("mounting a tmpfs (%s) on %s, which the fault tests need (run as root): %v\n%s", m.opts, m.dir, err, out)
		}
		d := m.dir
		t.Cleanup(func() {
			if out, err := exec.Command("umount", d).CombinedOutput(); err != nil {
				t.Errorf("umount %s: %v\n%s", d, err, out)
			}
		})
	}
	return full, ro
}

// runPhases runs a session of the given phases, calling between after each phase but the
// last, and returns its error (RunPhase's, else Close's).
func runPhases(t *testing.T, kv, file string, between func(), phases ...patterns.Phase) error {
	t.Helper()
	cfg := config(t, kv, file)
	cfg.Phases = phases
	world(t)
	s, err := proxy.NewSession(proxy.World(), cfg)
	if err != nil {
		return err
	}
	for i, ph := range phases {
		if err = s.RunPhase(ph); err != nil {
			break
		}
		if i < len(phases)-1 && between != nil {
			between()
		}
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// sums returns the SHA-256 of every file of a written file (itself and its companions).
func sums(t *testing.T, file string) map[string][sha256.Size]byte {
	t.Helper()
	matches, _ := filepath.Glob(strings.TrimSuffix(file, ".h5") + "*")
	m := map[string][sha256.Size]byte{}
	for _, f := range matches {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[f] = sha256.Sum256(b)
	}
	return m
}

// wantFault checks that err names every one of the words (step, operation, file); a word
// "a|b" is either a or b.
func wantFault(t *testing.T, what string, err error, words ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	t.Logf("%s: %.400s", what, err)
	for _, w := range words {
		if !slices.ContainsFunc(strings.Split(w, "|"), func(w string) bool { return strings.Contains(err.Error(), w) }) {
			t.Errorf("%s: error %q does not name %q", what, err, w)
		}
	}
}

// removeFiles removes a file and the layouts' companions (subfiles, per-rank files).
func removeFiles(t *testing.T, file string) {
	t.Helper()
	stem := strings.TrimSuffix(file, ".h5")
	matches, _ := filepath.Glob(stem + "*")
	for _, m := range matches {
		if err := os.RemoveAll(m); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFaults runs every layout under every mode into failing file systems: a file system
// that fills up mid-phase, a missing and a read-only output directory, an input file
// removed between the write and the read phase. Each failure names the step (or phase),
// the operation and the file; a file closed before the fault still reads back and
// verifies. One rank runs every combination; cmd/h5proxy's TestFaultAcrossRanks fills the
// file system under two ranks, where a rank failing alone ends the job.
func TestFaults(t *testing.T) {
	dir := testDir(t)
	full, ro := faultDirs(t, dir)
	if mpitest.Run(t, 1) {
		covered := func(names []string) []string {
			return slices.Sorted(slices.Values(append(slices.Clone(names), slices.Collect(maps.Keys(faultExempt))...)))
		}
		all := slices.Sorted(slices.Values(append(proxy.Layouts(), proxy.Modes()...)))
		if !slices.Equal(covered(append(slices.Clone(faultLayouts), faultModes...)), all) {
			t.Errorf("the faults cover layouts %v and modes %v, and leave out %v; the registries have %v and %v", faultLayouts, faultModes, faultExempt, proxy.Layouts(), proxy.Modes())
		}
		return
	}
	size := world(t).Size()
	small := "DIM_1=64;TIMESTEPS=2;COLLECTIVE_DATA=YES;cache.path=" + dir
	large := "DIM_1=65536;TIMESTEPS=4;COLLECTIVE_DATA=YES;cache.path=" + dir
	for _, layout := range faultLayouts {
		if err := proxy.LayoutAvailable(layout); err != nil {
			// A layout this build cannot run (subfiling-vfd on HDF5 1.10) is refused before
			// any file exists.
			f := fileOf(full, layout+"-unavailable", size)
			if _, rerr := proxy.ParseOptions("vpic", mustKV(t, small+";layout="+layout+";file="+f)); !errors.Is(err, proxy.ErrUnsupported) || !errors.Is(rerr, proxy.ErrUnsupported) {
				t.Errorf("%s: unavailable (%v), yet a session gave %v", layout, err, rerr)
			}
			if _, serr := os.Stat(f); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("%s: a refused layout left %s (%v)", layout, f, serr)
			}
			continue
		}
		for _, mode := range faultModes {
			name := layout + "-" + mode
			kv := ";layout=" + layout + ";" + modeKV(mode)
			write, read := patterns.PhaseWrite, patterns.PhaseRead
			// A file written, verified and closed before the fault. The raw layouts keep no
			// metadata, so only the session that wrote a file can read it: it is read there,
			// and its bytes must not change.
			kept := fileOf(full, name+"-kept", size)
			phases := []patterns.Phase{write}
			if raw := layout == "mpiio" || layout == "posix"; raw {
				phases = append(phases, read)
			}
			if err := runPhases(t, small+kv, kept, nil, phases...); err != nil {
				t.Fatalf("%s: writing %s before the fault: %v", name, kept, err)
			}
			before := sums(t, kept)
			if len(before) == 0 && layout != "null" {
				t.Fatalf("%s: no file %s", name, kept)
			}
			// The file system fills up in the middle of the phase. Through the real
			// subfiling VFD the layout refuses the write that would fill it: HDF5 1.14.5's
			// I/O concentrator does not return a failed pwrite (ENOSPC) to the writing
			// rank, whose H5Dwrite would never return.
			filled := fileOf(full, name+"-filled", size)
			err := runPhases(t, large+kv, filled, nil, write)
			switch {
			case layout == "subfiling-vfd":
				wantFault(t, name+" full file system", err, "write phase", "step ", "write /Timestep_", filled, "no space left for the write")
				if !errors.Is(err, syscall.ENOSPC) {
					t.Errorf("%s: %v does not wrap ENOSPC", name, err)
				}
			case layout == "null":
				if err != nil {
					t.Errorf("%s: the null layout writes nothing, yet: %v", name, err)
				}
			default:
				// The log layout buffers the step's data and writes its log at the flush
				// that ends the phase, as the Log VOL does at close.
				op := "write /Timestep_"
				if layout == "log" {
					op = "flush-file " + filled
				}
				wantFault(t, name+" full file system", err, "write phase", "step ", op, filled, "is full")
			}
			removeFiles(t, filled)
			if after := sums(t, kept); !reflect.DeepEqual(after, before) {
				t.Errorf("%s: %s changed in the fault", name, kept)
			}
			if layout != "null" && len(phases) == 1 {
				if err := runPhases(t, small+kv+";verify=yes", kept, nil, read); err != nil {
					t.Errorf("%s: %s, closed before the fault, does not read back: %v", name, kept, err)
				}
			}
			removeFiles(t, kept)
			if layout == "null" {
				continue
			}
			missing := filepath.Join(dir, "missing", name+".h5")
			wantFault(t, name+" missing directory", runPhases(t, small+kv, missing, nil, write), "write phase", missing)
			rof := filepath.Join(ro, name+".h5")
			wantFault(t, name+" read-only directory", runPhases(t, small+kv, rof, nil, write), "write phase", "create-file", rof, "read only|read-only")
			// The input disappears between the write and the read phase.
			gone := fileOf(dir, name+"-gone", size)
			err = runPhases(t, small+kv, gone, func() { removeFiles(t, gone) }, write, read)
			wantFault(t, name+" removed input", err, "read phase", gone)
			if !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s removed input: %v does not wrap ErrNotExist", name, err)
			}
		}
	}
	// AMReX writes a plotfile per step: the file system fills in the second (each holds
	// 512 KiB of cell data); the first, closed before, reads back whole.
	for _, mode := range faultModes {
		out := filepath.Join(full, "amrex-"+mode)
		cfg := amrexConfig(t, "ncells=32;max_grid_size=16;nlevs=1;ncomp=2;nppc=0;nplotfile=3;nparticlefile=0;"+modeKV(mode), out, patterns.PhaseWrite)
		s := session(t, cfg)
		err := s.Run()
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		wantFault(t, "amrex "+mode+" full file system", err, "write phase", filepath.Join(out, "plt00001.h5"), "step 1|end after step 1", "is full")
		checkSeeded(t, filepath.Join(out, "plt00000.h5"), "/level_0/data:datatype=0", plan.Float64, 0, 32*32*32*2)
		if err := os.RemoveAll(out); err != nil {
			t.Fatal(err)
		}
	}
}

// overwrite replaces the bytes of dataset path in file with 0xff, as a corrupted block
// would: the file still opens, the dataset's contents are garbage.
func overwrite(t *testing.T, file, path string) {
	t.Helper()
	off, shape := datasetAt(t, file, path)
	if len(shape) != 1 {
		t.Fatalf("%s %s: shape %v, want one dimension", file, path, shape)
	}
	overwriteAt(t, file, off, int(shape[0]))
}

// datasetAt returns where contiguous dataset path starts in file and its shape.
func datasetAt(t *testing.T, file, path string) (int64, []uint64) {
	t.Helper()
	f, err := h5.OpenFile(file, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := h5.OpenDataset(f, path)
	if err != nil {
		t.Fatal(err)
	}
	off, ok, err := h5.DatasetOffset(d)
	shape, serr := h5.DatasetShape(d)
	h5.CloseDataset(d)
	h5.CloseFile(f)
	if err != nil || serr != nil || !ok {
		t.Fatalf("%s %s: offset %d (%v, %v), shape %v (%v)", file, path, off, ok, err, shape, serr)
	}
	return int64(off), shape
}

// overwriteAt writes n bytes 0xff at offset off of file.
func overwriteAt(t *testing.T, file string, off int64, n int) {
	t.Helper()
	w, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteAt(bytes.Repeat([]byte{0xff}, n), off); err != nil {
		t.Fatal(err)
	}
}

// truncate cuts a file to half its size.
func truncate(t *testing.T, file string) {
	t.Helper()
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(file, st.Size()/2); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedInputs gives damaged log and subfiled files to the read phase (under every
// mode) and to replay (log) or fuse (subfiling): a truncated file, a corrupted log index, a missing subfile.
// Each fails naming the operation and the file; nothing is left half-written at the
// conversion's output.
func TestDamagedInputs(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, 1) {
		return
	}
	kv := "DIM_1=64;TIMESTEPS=2;COLLECTIVE_DATA=YES"
	for _, c := range []struct {
		layout, damage string
		hurt           func(file string)
		// want names the damaged file in the errors.
		want func(file string) string
	}{
		{"log", "truncated", func(f string) { truncate(t, f) }, func(f string) string { return f }},
		{"log", "corrupted index", func(f string) { overwrite(t, f, "/_LOG/_md_0") }, func(f string) string { return f }},
		{"subfiling", "truncated master", func(f string) { truncate(t, f) }, func(f string) string { return f }},
		{"subfiling", "missing subfile", func(f string) {
			if err := os.Remove(f + ".subfile_1_of_1"); err != nil {
				t.Fatal(err)
			}
		}, func(f string) string { return f + ".subfile_1_of_1" }},
		{"subfiling", "truncated subfile", func(f string) { truncate(t, f+".subfile_1_of_1") }, func(f string) string { return f + ".subfile_1_of_1" }},
	} {
		name := c.layout + " " + c.damage
		file := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".h5")
		if err := runPhases(t, kv+";layout="+c.layout, file, nil, patterns.PhaseWrite); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c.hurt(file)
		for _, mode := range faultModes {
			err := runPhases(t, kv+";layout="+c.layout+";verify=yes;"+modeKV(mode), file, nil, patterns.PhaseRead)
			wantFault(t, name+": "+mode+" read", err, "read phase", c.want(file))
		}
		out := plainOf(file)
		convert, op := logl.Replay, "replay"
		if c.layout == "subfiling" {
			convert, op = subfiling.Fuse, "fuse"
		}
		err := convert(file, out)
		wantFault(t, name+": "+op, err, c.want(file))
		if _, serr := os.Stat(out); err != nil && serr == nil {
			t.Errorf("%s: %s failed but left %s", name, op, out)
		}
	}
}
