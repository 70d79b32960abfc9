package proxy_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/internal/mpitest"
	"github.com/h5proxy/h5proxy/options"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
)

// iotestCase is one HDF5 I/O test configuration with what hdf5_iotest creates for it,
// written out here from the program (dataset.c), independently of the pattern.
type iotestCase struct {
	name    string
	kv      string
	rank    int
	step    bool // slowest-dimension=step
	chunked bool
	strong  bool
}

// The I/O test's sizes: 2 steps, 3 arrays of 3x4 blocks (weak) or a 6x8 array (strong).
const (
	ioSteps, ioArrays = 2, 3
	ioRows, ioCols    = 3, 4
)

var iotestCases = []iotestCase{
	{"r4s", "dataset-rank=4;slowest-dimension=step", 4, true, false, false},
	{"r4ac", "dataset-rank=4;slowest-dimension=array;dataset-layout=chunked;mpi-io=collective", 4, false, true, false},
	{"r3sc", "dataset-rank=3;slowest-dimension=step;dataset-layout=chunked", 3, true, true, false},
	{"r3a", "dataset-rank=3;slowest-dimension=array;mpi-io=collective", 3, false, false, false},
	{"r2s", "dataset-rank=2;slowest-dimension=step;scaling=strong;rows=6;columns=8", 2, true, false, true},
	{"r2ac", "dataset-rank=2;slowest-dimension=array;dataset-layout=chunked", 2, false, true, false},
}

// grid is the process grid of a rank count.
func grid(size int) (rows, cols int) {
	switch size {
	case 2:
		return 2, 1
	case 4:
		return 2, 2
	}
	return 1, 1
}

func iotestConfig(t *testing.T, kv, file string, size int) proxy.Config {
	t.Helper()
	pr, pc := grid(size)
	all := fmt.Sprintf("steps=%d;arrays=%d;rows=%d;columns=%d;process-rows=%d;process-columns=%d;", ioSteps, ioArrays, ioRows, ioCols, pr, pc)
	kvs, err := proxy.ParseKV(all + kv + ";file=" + file)
	if err != nil {
		t.Fatal(err)
	}
	// A later key wins: the case's rows and columns replace the defaults above.
	last := map[string]int{}
	for i, p := range kvs {
		last[p.Key] = i
	}
	var uniq []options.KV
	for i, p := range kvs {
		if last[p.Key] == i {
			uniq = append(uniq, p)
		}
	}
	cfg, err := proxy.ParseOptions("iotest", uniq)
	if err != nil {
		t.Fatalf("%s: %v", kv, err)
	}
	return cfg
}

// block is a rank's block and total is an array's extent.
func (c iotestCase) block(size int) (r, cl uint64) {
	if !c.strong {
		return ioRows, ioCols
	}
	pr, pc := grid(size)
	return 6 / uint64(pr), 8 / uint64(pc)
}

func (c iotestCase) total(size int) (r, cl uint64) {
	if c.strong {
		return 6, 8
	}
	pr, pc := grid(size)
	return ioRows * uint64(pr), ioCols * uint64(pc)
}

// want is the file's tree, each dataset's chunk (nil: contiguous) and, for each dataset,
// the step that wrote element g.
func (c iotestCase) want(size int) (nodes []inspect.Node, chunk []uint64, stepOf map[string]func(g uint64) int) {
	R, C := c.total(size)
	r, cl := c.block(size)
	plane := R * C
	stepOf = map[string]func(uint64) int{}
	ds := func(path string, shape, max []uint64, step func(uint64) int) {
		if max == nil {
			max = shape
		}
		nodes = append(nodes, inspect.Node{Path: path, Dataset: true, Type: plan.F64, Shape: shape, MaxShape: max})
		stepOf[path] = step
	}
	const u = plan.MaxUnlimited
	switch c.rank {
	case 4:
		if c.step {
			ds("/dataset", []uint64{ioSteps, ioArrays, R, C}, map[bool][]uint64{true: {u, ioArrays, R, C}}[c.chunked],
				func(g uint64) int { return int(g / (ioArrays * plane)) })
			chunk = []uint64{1, ioArrays, r, cl}
		} else {
			ds("/dataset", []uint64{ioArrays, ioSteps, R, C}, map[bool][]uint64{true: {ioArrays, u, R, C}}[c.chunked],
				func(g uint64) int { return int(g/plane) % ioSteps })
			chunk = []uint64{ioArrays, 1, r, cl}
		}
	case 3:
		chunk = []uint64{1, r, cl}
		if c.step {
			for s := 0; s < ioSteps; s++ {
				ds(fmt.Sprintf("/step=%d", s), []uint64{ioArrays, R, C}, nil, func(uint64) int { return s })
			}
		} else {
			for a := 0; a < ioArrays; a++ {
				ds(fmt.Sprintf("/array=%d", a), []uint64{ioSteps, R, C}, map[bool][]uint64{true: {u, R, C}}[c.chunked],
					func(g uint64) int { return int(g / plane) })
			}
		}
	case 2:
		chunk = []uint64{r, cl}
		outer, inner, on, in := "step", "array", ioSteps, ioArrays
		if !c.step {
			outer, inner, on, in = "array", "step", ioArrays, ioSteps
		}
		for o := 0; o < on; o++ {
			nodes = append(nodes, inspect.Node{Path: fmt.Sprintf("/%s=%d", outer, o)})
			for i := 0; i < in; i++ {
				s := o
				if !c.step {
					s = i
				}
				ds(fmt.Sprintf("/%s=%d/%s=%d", outer, o, inner, i), []uint64{R, C}, nil, func(uint64) int { return s })
			}
		}
	}
	if !c.chunked {
		chunk = nil
	}
	return nodes, chunk, stepOf
}

// TestIOTestWriteRead runs every dataset organisation of the HDF5 I/O test at 1, 2 and 4
// ranks (1x1, 2x1 and 2x2 grids): the write phase, then the read phase verified element by
// element, checking the bytes and the kernel's report lines against the report; two cases
// also under the async and cache modes and the log, subfiling and mpiio layouts. The parent
// then compares each native file with what hdf5_iotest creates (tree, types, extents,
// maximum extents, chunks) and every value with the seeded fill.
func TestIOTestWriteRead(t *testing.T) {
	dir := testDir(t)
	if mpitest.Run(t, rankCounts...) {
		for _, np := range rankCounts {
			for _, c := range iotestCases {
				checkIOTestFile(t, c, np, filepath.Join(dir, fmt.Sprintf("io-%s-np%d.h5", c.name, np)))
			}
		}
		return
	}
	size := world(t).Size()
	for _, c := range iotestCases {
		runIOTest(t, c, "", filepath.Join(dir, fmt.Sprintf("io-%s-np%d.h5", c.name, size)), size)
	}
	extra := []string{"mode=async", "mode=cache", "layout=log", "mode=async" + layoutKV("subfiling", size)}
	for _, e := range extra {
		for _, c := range []iotestCase{iotestCases[1], iotestCases[5]} {
			name := strings.NewReplacer("=", "-", ";", "-", ".", "-").Replace(e)
			runIOTest(t, c, e, filepath.Join(dir, fmt.Sprintf("io-%s-%s-np%d.h5", c.name, name, size)), size)
		}
	}
	// The mpiio layout moves independent transfers; a collective one of a block that is not
	// one run of the file (2x2 grid: each block's rows are apart) fails with its reason.
	for _, c := range []iotestCase{iotestCases[0], iotestCases[5]} {
		runIOTest(t, c, "layout=mpiio", filepath.Join(dir, fmt.Sprintf("io-%s-mpiio-np%d.h5", c.name, size)), size)
	}
	if size == 4 {
		s := session(t, iotestConfig(t, iotestCases[1].kv+";layout=mpiio", filepath.Join(dir, fmt.Sprintf("io-coll-mpiio-np%d.h5", size)), size))
		err := s.Run()
		s.Close()
		if err == nil || !strings.Contains(err.Error(), "write /dataset") || !strings.Contains(err.Error(), "use independent transfers") {
			t.Errorf("collective transfers under the mpiio layout: %v", err)
		}
	}
	// A process grid that does not cover the ranks fails before any I/O, naming the keys.
	cfg := iotestConfig(t, "process-rows=3", filepath.Join(dir, fmt.Sprintf("io-grid-np%d.h5", size)), size)
	s := session(t, cfg)
	defer s.Close()
	err := s.Run()
	if err == nil || !strings.Contains(err.Error(), `key "process-rows"`) || !strings.Contains(err.Error(), "process-columns") ||
		!strings.Contains(err.Error(), fmt.Sprintf("but the run has %d ranks", size)) {
		t.Errorf("grid of 3 rows at %d ranks: %v", size, err)
	}
	if _, statErr := os.Stat(cfg.File); statErr == nil {
		t.Errorf("%s exists: the bad grid half-ran", cfg.File)
	}
}

// runReport runs a session's phases, closes it and returns its report; what names the
// run in failures.
func runReport(t *testing.T, cfg proxy.Config, what string) *proxy.Report {
	t.Helper()
	s := session(t, cfg)
	if err := s.Run(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	rep, err := s.Report()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return rep
}

// runIOTest writes and reads one case and checks the report and the kernel's lines.
func runIOTest(t *testing.T, c iotestCase, extra, file string, size int) {
	t.Helper()
	kv := c.kv
	if extra != "" {
		kv += ";" + extra
	}
	rep := runReport(t, iotestConfig(t, kv, file, size), c.name+" "+extra)
	r, cl := c.block(size)
	rankBytes := float64(ioSteps * ioArrays * r * cl * 8)
	if len(rep.Phases) != 2 {
		t.Fatalf("%s %s: %d phases", c.name, extra, len(rep.Phases))
	}
	w, rd := rep.Phases[0], rep.Phases[1]
	if w.Bytes != rankBytes*float64(size) || rd.Bytes != w.Bytes || !rd.Verified || rd.Mismatches != 0 || rd.Steps != ioSteps {
		t.Errorf("%s %s: bytes %v/%v (want %v), verified %v, mismatches %v, steps %d", c.name, extra, w.Bytes, rd.Bytes, rankBytes*float64(size), rd.Verified, rd.Mismatches, rd.Steps)
	}
	if world(t).Rank() != 0 {
		return
	}
	// The kernel's lines: the program's quantities from the report's (rank 0 has both).
	k := map[string]float64{}
	for _, l := range rd.Kernel {
		if l.Name != "" {
			k[l.Name] = l.Value
		}
	}
	rate := func(sec float64) float64 { return rankBytes / (1 << 20) / sec }
	exact := map[string]float64{"write-min": w.RawTime.Min, "write-max": w.RawTime.Max, "read-min": rd.RawTime.Min, "read-max": rd.RawTime.Max,
		"write-rate-min": rate(w.RawTime.Max), "write-rate-max": rate(w.RawTime.Min), "read-rate-min": rate(rd.RawTime.Max), "read-rate-max": rate(rd.RawTime.Min)}
	for name, want := range exact {
		if got, ok := k[name]; !ok || math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("%s %s: kernel %s = %v, want %v", c.name, extra, name, got, want)
		}
	}
	if st, err := os.Stat(file); err != nil || k["fsize"] != float64(st.Size()) {
		t.Errorf("%s %s: fsize %v, the file has %v (%v)", c.name, extra, k["fsize"], st, err)
	}
	// Spans lie inside the phases' windows (a read's plus its open) and hold the transfers;
	// creates and opens are part of the file and metadata times; the wall clock covers both.
	if k["write-phase-max"] > w.ObservedTime || k["write-phase-min"] < w.RawTime.Min || k["write-phase-min"] > k["write-phase-max"] ||
		k["read-phase-max"] > rd.ObservedTime+rd.FileOpenTime.Max || k["read-phase-min"] < rd.RawTime.Min ||
		k["creat-min"] <= 0 || k["creat-max"] > w.FileOpenTime.Max+w.MetadataTime.Max ||
		k["wall"] < w.ObservedTime+rd.ObservedTime {
		t.Errorf("%s %s: kernel %v against write %+v read %+v", c.name, extra, k, w, rd)
	}
	var csv bytes.Buffer
	if err := rep.WriteCSV(&csv, 1, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv.String(), fmt.Sprintf("\nwrite-max, %.3f, s\n", w.RawTime.Max)) || !strings.HasSuffix(csv.String(), fmt.Sprintf("read-rate-max, %.3f, MiB/s\n", k["read-rate-max"])) {
		t.Errorf("%s %s: CSV lacks the kernel's columns:\n%s", c.name, extra, csv.String())
	}
}

// checkIOTestFile compares a native file with the program's: tree, types, extents and
// maximum extents, chunks, and every value with the seeded fill of the step that wrote it.
func checkIOTestFile(t *testing.T, c iotestCase, np int, file string) {
	t.Helper()
	nodes, chunk, stepOf := c.want(np)
	got, err := inspect.Tree(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(nodes) {
		t.Fatalf("%s: tree %v\nwant %v", file, got, nodes)
	}
	want := map[string]inspect.Node{}
	for _, n := range nodes {
		want[n.Path] = n
	}
	for _, n := range got {
		w, ok := want[n.Path]
		if !ok || n.Dataset != w.Dataset || !n.Type.Equal(w.Type) || !reflect.DeepEqual(n.Shape, w.Shape) || !reflect.DeepEqual(n.MaxShape, w.MaxShape) {
			t.Errorf("%s: %v, want %v", file, n, w)
			continue
		}
		if !n.Dataset {
			continue
		}
		if info := datasetInfo(t, file, n.Path); !reflect.DeepEqual(info.Chunk, chunk) {
			t.Errorf("%s %s: chunk %v, want %v", file, n.Path, info.Chunk, chunk)
		}
		values := make([]float64, plan.Product(n.Shape))
		if err := inspect.Read(file, n.Path, &values); err != nil {
			t.Fatal(err)
		}
		variable := strings.TrimPrefix(n.Path, "/")
		for g, v := range values {
			if want := emulate.Value(plan.Float64, proxy.DefaultSeed, variable, stepOf[n.Path](uint64(g)), uint64(g)); v != want {
				t.Fatalf("%s %s[%d] = %v, want %v", file, n.Path, g, v, want)
			}
		}
	}
}
