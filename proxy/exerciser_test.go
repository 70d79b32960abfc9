package proxy_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/h5bench"
	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/patterns"
	"github.com/h5proxy/h5proxy/patterns/exerciser"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
	logl "github.com/h5proxy/h5proxy/proxy/layout/log"
)

// exerciserGrid is the dimranks of the 2-D end-to-end run at np ranks.
var exerciserGrid = map[int][2]uint64{1: {1, 1}, 2: {1, 2}, 4: {2, 2}}

// exerciserKV is the 2-D run: 2x4 then 4x4 elements per rank, file blocks of 1x2 with
// strides 2x2 (gaps between the blocks), chunked, with attributes and the compound
// dataset, two iterations per size.
func exerciserKV(np int) string {
	g := exerciserGrid[np]
	return fmt.Sprintf("numdims=2;minels=2 4;nsizes=2;bufmult=2 1;iterations=2;addattr=true;derivedtype=true;usechunked=true;keepfile=true;fileblocks=1 2;filestrides=2 2;dimranks=%d %d;verify=yes", g[0], g[1])
}

func exerciserConfig(t *testing.T, kv, file string) proxy.Config {
	t.Helper()
	return patternConfig(t, "exerciser", kv, file)
}

// capturing records the measurements the session hands the exerciser's report.
type capturing struct {
	patterns.Pattern
	got []patterns.PhaseTimes
}

func (c *capturing) KernelReport(t patterns.PhaseTimes) []patterns.Line {
	c.got = append(c.got, t)
	return c.Pattern.(patterns.Reporter).KernelReport(t)
}

// Cleanup keeps the wrapped pattern's file removal.
func (c *capturing) Cleanup(env patterns.Env) []string {
	return c.Pattern.(interface{ Cleanup(patterns.Env) []string }).Cleanup(env)
}

// runExerciser runs cfg on the world and returns the report and what the kernel report got.
func runExerciser(t *testing.T, cfg proxy.Config) (*proxy.Report, *capturing, error) {
	t.Helper()
	s := session(t, cfg)
	defer s.Close()
	c := &capturing{}
	proxy.WrapPattern(s, func(p patterns.Pattern) patterns.Pattern { c.Pattern = p; return c })
	if err := s.Run(); err != nil {
		return nil, c, err
	}
	rep, err := s.Report()
	return rep, c, err
}

// TestExerciser runs the 2-D exerciser at 1, 2 and 4 ranks: every read-back is checked,
// the bytes are the exerciser's, the kernel table's cells are the statistics of the
// per-iteration measurements; the parent then compares the file left (keepfile) with what
// the exerciser leaves: the last iteration of the last size. At 4 ranks h5bench's sample
// runs too (exerciserSample).
func TestExerciser(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, rankCounts...) {
		for _, np := range rankCounts {
			checkExerciserFile(t, fileOf(dir, "exerciser", np), np)
		}
		return
	}
	np := world(t).Size()
	rep, c, err := runExerciser(t, exerciserConfig(t, exerciserKV(np), fileOf(dir, "exerciser", np)))
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Phases[0]
	// Per iteration and rank: the double buffer written and read, the compound written.
	var want float64
	for _, els := range []float64{8, 16} {
		want += 2 * float64(np) * els * (8 + 8 + 36) // the compound moves its members, not its padding
	}
	if len(rep.Phases) != 1 || p.Phase != "write" || !p.Verified || p.Mismatches != 0 || p.Bytes != want || p.Steps != 4 {
		t.Fatalf("phase %s verified %v mismatches %v bytes %v (want %v) steps %d", p.Phase, p.Verified, p.Mismatches, p.Bytes, want, p.Steps)
	}
	if len(c.got) != 1 {
		t.Fatalf("%d kernel reports", len(c.got))
	}
	checkExerciserReport(t, rep, c.got[0], np, []float64{64, 128})
	if np == 4 {
		exerciserSample(t, dir)
	}
}

// checkExerciserReport checks the kernel lines against the measurements: the table's
// heading, five rows per size, each CSV cell the statistic of the per-iteration values
// (the slowest rank's time of the calls the column times), and the per-kind times against
// the session's raw time.
func checkExerciserReport(t *testing.T, rep *proxy.Report, pt patterns.PhaseTimes, np int, bufsizes []float64) {
	t.Helper()
	p := rep.Phases[0]
	iters := len(pt.Steps) / len(bufsizes)
	cells := map[string]float64{}
	var rows []string
	for _, l := range p.Kernel {
		if l.Name != "" {
			cells[l.Name] = l.Value
		} else if strings.HasPrefix(l.Text, "Min ") || strings.HasPrefix(l.Text, "Std ") {
			rows = append(rows, l.Text)
		}
	}
	if !slices.ContainsFunc(p.Kernel, func(l patterns.Line) bool { return l.Text == exerciser.Header }) || len(rows) != 2*len(bufsizes) {
		t.Errorf("kernel lines lack the heading or the rows: %+v", p.Kernel)
	}
	if len(cells) != len(bufsizes)*len(exerciser.Stats)*len(exerciser.Columns) {
		t.Errorf("%d CSV cells, want %d", len(cells), len(bufsizes)*len(exerciser.Stats)*len(exerciser.Columns))
	}
	for s, b := range bufsizes {
		var wr, rd, rate []float64
		for _, st := range pt.Steps[s*iters : (s+1)*iters] {
			w, r := st.Ops[plan.Write].Max, st.Ops[plan.Read].Max
			// Each rank's raw time is its writes plus its reads.
			if w <= 0 || r <= 0 || st.Raw.Max > w+r*(1+1e-9) || st.Raw.Max < max(w, r)*(1-1e-9) {
				t.Errorf("size %v: write %v read %v, raw %+v", b, w, r, st.Raw)
			}
			wr, rd = append(wr, w), append(rd, r)
			rate = append(rate, b/1048576/w*float64(np))
		}
		avg := func(x []float64) float64 {
			var s float64
			for _, v := range x {
				s += v
			}
			return s / float64(len(x))
		}
		for name, v := range map[string]float64{
			fmt.Sprintf("Max H5DWrite %v", b): slices.Max(wr), fmt.Sprintf("Min H5Dread %v", b): slices.Min(rd),
			fmt.Sprintf("Avg RawWrBDWTH %v", b): avg(rate), fmt.Sprintf("Med H5Dread %v", b): avg(rd), // two iterations
		} {
			if got, ok := cells[name]; !ok || math.Abs(got-v) > 1e-9*math.Abs(v) {
				t.Errorf("cell %q = %v (present %v), want %v", name, got, ok, v)
			}
		}
	}
	var csv bytes.Buffer
	if err := rep.WriteCSV(&csv, 0, ""); err != nil {
		t.Fatal(err)
	}
	if row := fmt.Sprintf("Max H5DWrite %v, %.3f, s\n", bufsizes[0], cells[fmt.Sprintf("Max H5DWrite %v", bufsizes[0])]); !strings.Contains(csv.String(), row) {
		t.Errorf("CSV lacks %q:\n%s", row, csv.String())
	}
	var sum bytes.Buffer
	if err := rep.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.String(), rows[0]) || strings.Contains(sum.String(), "Max H5DWrite") {
		t.Errorf("summary: the table rows, not the CSV cells:\n%s", sum.String())
	}
}

// checkExerciserFile compares the file the 2-D run leaves with the exerciser's: /Data with
// its 64 attributes, the last iteration's double dataset of the last size (4x4 elements per
// rank as 1x2 blocks at strides 2x2: 8x4 per rank, chunked 1x2, fill time never) holding
// rank+1 in each rank's blocks, and the compound dataset of the rank buffers.
func checkExerciserFile(t *testing.T, file string, np int) {
	t.Helper()
	g := exerciserGrid[np]
	dname := "/Data/hdf5DataSet1-iter1-size16"
	dshape := []uint64{8 * g[0], 4 * g[1]}
	cshape := []uint64{4 * g[0], 4 * g[1]}
	got := treeLines(t, file)
	sp := exerciser.SimParams
	sp.Name = "" // files keep no struct name
	want := []string{"/Data group", "/Data/derivedData group",
		fmt.Sprintf("/Data/derivedData/simulation parameters dataset %s %v", sp, cshape),
		fmt.Sprintf("%s dataset f64 %v", dname, dshape)}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("np=%d: file holds\n%s\nwant\n%s", np, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	f, err := h5.OpenFile(file, h5.Access{FileSpec: plan.FileSpec{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseFile(f)
	grp, err := h5.OpenGroup(f, "/Data")
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseGroup(grp)
	names, err := h5.AttributeNames(grp)
	if err != nil || len(names) != 64 {
		t.Fatalf("/Data attributes %d (%v)", len(names), err)
	}
	a, err := h5.ReadAttribute(grp, "Attribute 63 Name")
	if err != nil || !a.Type.Equal(plan.I8) || !reflect.DeepEqual(a.Shape, []uint64{1024}) || !bytes.HasPrefix(a.Value, []byte("This is my attribute string number 63\x00\x00")) {
		t.Errorf("attribute 63: %+v %v", a, err)
	}
	for _, c := range []struct {
		path  string
		chunk []uint64
	}{{dname, []uint64{1, 2}}, {exerciser.Derived, []uint64{4, 4}}} {
		if info := datasetInfo(t, file, c.path); !reflect.DeepEqual(info.Chunk, c.chunk) || !info.FillNever {
			t.Errorf("%s: chunk %v fill never %v, want %v and true", c.path, info.Chunk, info.FillNever, c.chunk)
		}
	}
	vals := readWhole(t, f, dname, plan.F64, dshape)
	for r := 0; r < np; r++ {
		r0, c0 := uint64(r)/g[1]*8, uint64(r)%g[1]*4
		for i := uint64(0); i < 4; i++ {
			for j := uint64(0); j < 4; j++ {
				e := (r0+2*i)*dshape[1] + c0 + j // rows every 2, both columns of each 2-wide block
				if v := math.Float64frombits(binary.LittleEndian.Uint64(vals[8*e:])); v != float64(r+1) {
					t.Fatalf("np=%d %s element %d = %v, want rank %d's %d", np, dname, e, v, r, r+1)
				}
			}
		}
	}
	sim := readWhole(t, f, exerciser.Derived, exerciser.SimParams, cshape)
	for r := 0; r < np; r++ {
		r0, c0 := uint64(r)/g[1]*4, uint64(r)%g[1]*4
		wantRank := exerciser.SimParamsData(r, 16)
		for i := uint64(0); i < 4; i++ {
			e := (r0+i)*cshape[1] + c0
			if got := sim[40*e : 40*(e+4)]; !bytes.Equal(got, wantRank[40*4*i:40*4*(i+1)]) {
				t.Fatalf("np=%d compound row %d of rank %d differs", np, i, r)
			}
		}
	}
}

// readWhole reads a whole dataset's bytes.
func readWhole(t *testing.T, f h5.ID, path string, typ plan.Type, shape []uint64) []byte {
	t.Helper()
	d, err := h5.OpenDataset(f, path)
	if err != nil {
		t.Fatal(err)
	}
	defer h5.CloseDataset(d)
	n := plan.Product(shape)
	buf := make([]byte, int(n)*typ.Size)
	tr := &plan.Transfer{MemType: typ, MemShape: []uint64{n}, FileType: typ, FileShape: shape, Selection: plan.All(shape)}
	if err := h5.Read(d, tr, false, buf); err != nil {
		t.Fatal(err)
	}
	return buf
}

// exerciserSmall is one iteration of one 2-D size split along dimension 0 (one contiguous
// run per rank, as a collective MPI-IO transfer needs).
const exerciserSmall = "numdims=2;minels=4 4;nsizes=1;iterations=1;addattr=true;derivedtype=true;keepfile=true;dimranks=2 1"

// TestExerciserStrategies runs the exerciser at 2 ranks under the async and cache modes and
// the log, mpiio and null layouts: the stored files equal the sync/native one (the log's
// once replayed) with the read-back checked; the subfiling layout refuses the reopen of a
// dataset it wrote, naming why. Then rshift, maxcheck and the removal of the file
// (exerciserShift), in the same launch.
func TestExerciserStrategies(t *testing.T) {
	dir := testDir(t)
	runs := []struct{ name, kv string }{{"native", ""}, {"async", ";mode=async"}, {"cache", ";mode=cache"},
		{"log", ";layout=log"}, {"mpiio", ";layout=mpiio"}, {"null", ";layout=null;verify=auto"}}
	if mpitest.Run(t, 2) {
		native := filepath.Join(dir, "native.h5")
		for _, r := range []string{"async", "cache", "log"} {
			f := filepath.Join(dir, r+".h5")
			if r == "log" {
				f = plainOf(f)
			}
			sameFiles(t, native, f)
		}
		if _, err := os.Stat(filepath.Join(dir, "shift.h5")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("file left without keepfile: %v", err)
		}
		return
	}
	for _, r := range runs {
		file := filepath.Join(dir, r.name+".h5")
		kv := exerciserSmall + r.kv
		if !strings.Contains(kv, "verify=") {
			kv += ";verify=yes"
		}
		rep, _, err := runExerciser(t, exerciserConfig(t, kv, file))
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		p := rep.Phases[0]
		if stores := r.name != "null"; p.Verified != stores || p.Mismatches != 0 || p.Bytes != 2*16*(8+8+36) {
			t.Errorf("%s: verified %v mismatches %v bytes %v", r.name, p.Verified, p.Mismatches, p.Bytes)
		}
		if r.name == "log" && world(t).Rank() == 0 {
			if err := logl.Replay(file, plainOf(file)); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, _, err := runExerciser(t, exerciserConfig(t, exerciserSmall+";layout=subfiling", filepath.Join(dir, "subfiling.h5")))
	if err == nil || !strings.Contains(err.Error(), "open-dataset /Data/hdf5DataSet1-iter0-size16") || !strings.Contains(err.Error(), "cannot gain mappings") {
		t.Errorf("subfiling: %v, want the reopen refused", err)
	}
	exerciserShift(t, filepath.Join(dir, "shift.h5"))
}

// exerciserShift: with rshift=1 each rank writes at the next rank's place and reads the
// one after, whose data (another rank's) the check expects; maxcheck leaves the second size
// unchecked (the phase is then not reported verified); without keepfile the file is gone.
func exerciserShift(t *testing.T, file string) {
	t.Helper()
	rep, _, err := runExerciser(t, exerciserConfig(t, "numdims=1;minels=8;nsizes=2;iterations=1;rshift=1;indepio=true;maxcheck=64;verify=yes", file))
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Phases[0]; p.Verified || p.Mismatches != 0 || p.VerifyTime.Max <= 0 {
		t.Errorf("verified %v (want false: size 2 unchecked), mismatches %v, verify time %v", p.Verified, p.Mismatches, p.VerifyTime)
	}
}

// exerciserSample runs h5bench/testdata/sync-exerciser.json (h5bench's
// samples/sync-exerciser.json with smaller buffers) through the h5bench adapter at its 4
// ranks: its dimranks 8 4 do not multiply to 4, so dimension 0 is split, with the
// exerciser's warning in the report.
func exerciserSample(t *testing.T, dir string) {
	t.Helper()
	f, err := h5bench.Load("../h5bench/testdata/sync-exerciser.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.Runs[0].Config
	if !strings.HasPrefix(filepath.Base(cfg.File), "hdf5TestFile-") || f.MPI.Ranks != 4 {
		t.Fatalf("file %s ranks %d", cfg.File, f.MPI.Ranks)
	}
	for k, v := range map[string]string{"file": filepath.Join(dir, "sample.h5"), "iterations": "2", "verify": "yes"} {
		if err := cfg.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	rep, c, err := runExerciser(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Phases[0]; !p.Verified || p.Mismatches != 0 || p.Steps != 4 {
		t.Errorf("verified %v mismatches %v steps %d", p.Verified, p.Mismatches, p.Steps)
	}
	if k := rep.Phases[0].Kernel; len(k) == 0 || k[0].Text != "WARNING!! - ndomains: 32 must be: 4. Only dividing dim-0" {
		t.Errorf("first kernel line %+v", k)
	}
	checkExerciserReport(t, rep, c.got[0], 4, []float64{128, 512})
}
