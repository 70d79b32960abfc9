package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/internal/inspect"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy"
)

// binary is the h5proxy executable built once by TestMain; the tests drive it as a user
// would, relaunch under mpirun included.
var binary string

// TestMain builds the command with the environment of the test run (CGO_CFLAGS,
// CGO_LDFLAGS and GOFLAGS=-tags=gonum, as the Makefile exports them).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "h5proxy-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "h5proxy")
	build := exec.Command("go", "build", "-o", binary, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build -o %s .: %v\n%s", binary, err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one h5proxy invocation produced.
type result struct {
	args           []string
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("h5proxy %s: exit %d\n--- stdout:\n%s\n--- stderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// userEnv is the test's environment as a user's shell would have it: outside any MPI
// launcher and with the default launcher (H5PROXY_MPIEXEC unset).
func userEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "H5PROXY_MPIEXEC" || k == "H5PROXY_MPITEST_CHILD" || strings.HasPrefix(k, "OMPI_COMM_WORLD") ||
			strings.HasPrefix(k, "PMIX_") || strings.HasPrefix(k, "PMI_") || k == "MV2_COMM_WORLD_SIZE" || k == "MPI_LOCALNRANKS" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// h5proxy runs the binary in dir (the test's directory when empty) and returns its exit
// status and output. A run that outlives the timeout is stopped with its whole process
// group (mpirun and the ranks) and fails the test.
func h5proxy(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return h5proxyRun(t, 90*time.Second, dir, nil, args...)
}

// h5proxyEnv is h5proxy with env ("KEY=VALUE") added to the user's environment.
func h5proxyEnv(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	return h5proxyRun(t, 90*time.Second, dir, env, args...)
}

// h5proxyWithin is h5proxy with its own timeout, for commands that launch many runs.
func h5proxyWithin(t *testing.T, timeout time.Duration, dir string, args ...string) result {
	t.Helper()
	return h5proxyRun(t, timeout, dir, nil, args...)
}

// h5proxyRun runs the binary within timeout with env added to the user's environment.
func h5proxyRun(t *testing.T, timeout time.Duration, dir string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = append(userEnv(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	err := cmd.Run()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String()}
	if ctx.Err() != nil {
		t.Fatalf("timed out after %v\n%s", time.Since(begin), r)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("h5proxy %q: %v", args, err)
	}
	t.Logf("h5proxy %s: exit %d in %v", strings.Join(args, " "), r.code, time.Since(begin).Round(time.Millisecond))
	return r
}

// expect fails the test unless the run exited with code and each stream contains its
// strings.
func (r result) expect(t *testing.T, code int, stdout, stderr []string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\n%s", r.code, code, r)
	}
	for _, s := range stdout {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout lacks %q\n%s", s, r)
		}
	}
	for _, s := range stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q\n%s", s, r)
		}
	}
}

// h5benchConfig writes an h5bench configuration with a write and a read benchmark of the
// VPIC 1-D contiguous pattern into dir and returns its path.
func h5benchConfig(t *testing.T, dir string, ranks, dim1, steps int, extra map[string]string) string {
	t.Helper()
	conf := func(csv string) map[string]string {
		c := map[string]string{
			"MEM_PATTERN": "CONTIG", "FILE_PATTERN": "CONTIG", "NUM_DIMS": "1",
			"DIM_1": strconv.Itoa(dim1), "TIMESTEPS": strconv.Itoa(steps),
			"COLLECTIVE_DATA": "YES", "CSV_FILE": csv, "MODE": "SYNC",
		}
		for k, v := range extra {
			c[k] = v
		}
		return c
	}
	read := conf("read.csv")
	read["READ_OPTION"] = "FULL"
	doc := map[string]any{
		"mpi":         map[string]any{"command": "mpirun", "ranks": strconv.Itoa(ranks)},
		"vol":         map[string]any{},
		"file-system": map[string]any{},
		"directory":   dir,
		"benchmarks": []any{
			map[string]any{"benchmark": "write", "file": "particles.h5", "configuration": conf("write.csv")},
			map[string]any{"benchmark": "read", "file": "particles.h5", "configuration": read},
		},
	}
	return writeJSON(t, filepath.Join(dir, "config.json"), doc)
}

func writeJSON(t *testing.T, path string, v any) string {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// vars are the VPIC particle variables in h5bench's order, with their types.
var vars = []struct {
	name string
	typ  plan.Type
}{
	{"x", plan.F32}, {"y", plan.F32}, {"z", plan.F32},
	{"px", plan.F32}, {"py", plan.F32}, {"pz", plan.F32},
	{"id_1", plan.I32}, {"id_2", plan.F32},
}

// wantTree is the structure of a VPIC 1-D file: Timestep_<s> groups of the 8 variables.
func wantTree(steps int, n uint64) []string {
	var out []string
	for s := 0; s < steps; s++ {
		g := fmt.Sprintf("/Timestep_%d", s)
		out = append(out, g+" group")
		for _, v := range vars {
			out = append(out, fmt.Sprintf("%s/%s dataset %s [%d]", g, v.name, v.typ, n))
		}
	}
	slices.Sort(out)
	return out
}

// checkTree compares the file's structure, read with the independent reader
// (gonum.org/v1/hdf5), with wantTree.
func checkTree(t *testing.T, file string, steps int, n uint64) {
	t.Helper()
	if !inspect.Available() {
		t.Skip("independent reader not built (needs -tags gonum): file structure not checked")
	}
	tree, err := inspect.Tree(file)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, node := range tree {
		got = append(got, node.String())
	}
	if want := wantTree(steps, n); !slices.Equal(got, want) {
		t.Errorf("%s structure:\n%s\nwant:\n%s", file, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// checkValues reads a dataset with the independent reader and compares the elements at
// idx (all when nil) with the fill h5proxy writes from an h5bench configuration by default:
// fill=once, step 0's seeded values at every step.
func checkValues(t *testing.T, file string, step int, v string, n int, idx []int) {
	t.Helper()
	path := fmt.Sprintf("/Timestep_%d/%s", step, v)
	var get func(i int) float64
	if v == "id_1" {
		d := make([]int32, n)
		if err := inspect.Read(file, path, &d); err != nil {
			t.Fatal(err)
		}
		get = func(i int) float64 { return float64(d[i]) }
	} else {
		d := make([]float32, n)
		if err := inspect.Read(file, path, &d); err != nil {
			t.Fatal(err)
		}
		get = func(i int) float64 { return float64(d[i]) }
	}
	class := plan.Float32
	if v == "id_1" {
		class = plan.Int32
	}
	if idx == nil {
		for i := 0; i < n; i++ {
			idx = append(idx, i)
		}
	}
	for _, i := range idx {
		if got, want := get(i), emulate.Value(class, proxy.DefaultSeed, v, emulate.DataStep(emulate.Once, step), uint64(i)); got != want {
			t.Fatalf("%s %s[%d] = %v, want %v", file, path, i, got, want)
		}
	}
}

// binaryUnits formats a byte count or rate as h5bench does: %.3f and K, M, G, T = 1024^n.
func binaryUnits(v float64) (string, string) {
	u := ""
	for _, next := range []string{"K", "M", "G", "T"} {
		if v < 1024 {
			break
		}
		v /= 1024
		u = next
	}
	return fmt.Sprintf("%.3f", v), u
}

// csvRow is one "metric, value, unit" line.
type csvRow struct{ metric, value, unit string }

// h5benchMetrics are the rows of h5bench's CSV, in its order.
var h5benchMetrics = []string{"operation", "ranks", "collective data", "collective meta", "subfiling",
	"total compute time", "total size", "raw time", "raw rate", "metadata time", "observed rate", "observed time"}

// readCSV parses an h5bench CSV and checks its header and metric names.
func readCSV(t *testing.T, path string) map[string]csvRow {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) == 0 || lines[0] != "metric, value, unit" {
		t.Fatalf("%s: header %q, want \"metric, value, unit\"", path, lines[0])
	}
	rows := map[string]csvRow{}
	var names []string
	for _, l := range lines[1:] {
		f := strings.Split(l, ", ")
		if len(f) != 3 {
			t.Fatalf("%s: line %q is not metric, value, unit", path, l)
		}
		r := csvRow{f[0], f[1], strings.TrimSpace(f[2])}
		rows[r.metric] = r
		names = append(names, r.metric)
	}
	// h5bench's rows first, in h5bench's order; h5proxy's own rows may follow.
	if len(names) < len(h5benchMetrics) || !slices.Equal(names[:len(h5benchMetrics)], h5benchMetrics) {
		t.Errorf("%s: metrics %q, want h5bench's %q first", path, names, h5benchMetrics)
	}
	if rows["mode"].value == "" || rows["data preparation time"].unit != "seconds" {
		t.Errorf("%s: h5proxy rows missing: %+v", path, rows)
	}
	return rows
}

// checkCSV compares a CSV with the JSON report's phase it was written from.
func checkCSV(t *testing.T, path string, rep *proxy.Report, p proxy.PhaseReport, wantBytes float64) {
	t.Helper()
	rows := readCSV(t, path)
	size, unit := binaryUnits(wantBytes)
	want := map[string]csvRow{
		"operation":       {"operation", p.Phase, ""},
		"ranks":           {"ranks", strconv.Itoa(rep.Ranks), ""},
		"collective data": {"collective data", "YES", ""},
		"collective meta": {"collective meta", "NO", ""},
		"subfiling":       {"subfiling", "NO", ""},
		"total size":      {"total size", size, unit + "B"},
		"raw time":        {"raw time", fmt.Sprintf("%.3f", p.RawTime.Max), "seconds"},
		"metadata time":   {"metadata time", fmt.Sprintf("%.3f", p.MetadataTime.Max), "seconds"},
		"observed time":   {"observed time", fmt.Sprintf("%.3f", p.ObservedTime), "seconds"},
	}
	for _, m := range []struct {
		name string
		v    float64
	}{{"raw rate", p.RawRate}, {"observed rate", p.ObservedRate}} {
		v, u := binaryUnits(m.v)
		want[m.name] = csvRow{m.name, v, u + "B/s"}
	}
	for k, w := range want {
		if rows[k] != w {
			t.Errorf("%s: %q row %+v, want %+v", path, k, rows[k], w)
		}
	}
	if ct := rows["total compute time"]; ct.unit != "seconds" {
		t.Errorf("%s: total compute time unit %q", path, ct.unit)
	}
	if p.RawTime.Max <= 0 || p.ObservedTime < p.RawTime.Max || p.RawRate <= 0 {
		t.Errorf("%s phase: raw time %v, observed time %v, raw rate %v", p.Phase, p.RawTime.Max, p.ObservedTime, p.RawRate)
	}
}

// readReport parses a VPIC run's JSON report.
func readReport(t *testing.T, path string) *proxy.Report {
	t.Helper()
	return readPatternReport(t, path, "vpic")
}

// readPatternReport parses a JSON report of a sync run on the native layout, checking the
// top-level names the schema promises.
func readPatternReport(t *testing.T, path, pattern string) *proxy.Report {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, k := range []string{"schema_version", "h5proxy_version", "hdf5_version", "hdf5_build", "mpi_version", "ranks", "nodes",
		"pattern", "mode_requested", "mode_effective", "layout", "config", "phases"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("%s lacks %q", path, k)
		}
	}
	var rep proxy.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if rep.SchemaVersion != proxy.SchemaVersion || rep.HDF5Version != proxy.HDF5Version() || rep.HDF5Build != wantHDF5Build() ||
		!strings.HasPrefix(rep.HDF5Version, rep.HDF5Build+".") || !strings.Contains(rep.MPIVersion, "MPI") ||
		rep.Pattern != pattern || rep.ModeEffective != "sync" || rep.Layout != "native" {
		t.Errorf("%s: schema %d, HDF5 %q (build %q, want %q), MPI %q, pattern %q, mode %q, layout %q", path, rep.SchemaVersion,
			rep.HDF5Version, rep.HDF5Build, wantHDF5Build(), rep.MPIVersion, rep.Pattern, rep.ModeEffective, rep.Layout)
	}
	return &rep
}

// checkPhase checks one phase of a report: its name, steps and bytes summed over ranks.
func checkPhase(t *testing.T, rep *proxy.Report, phase string, steps int, bytesPerRankStep float64) proxy.PhaseReport {
	t.Helper()
	if len(rep.Phases) != 1 {
		t.Fatalf("%d phases in a one-benchmark report, want 1", len(rep.Phases))
	}
	p := rep.Phases[0]
	perStep := bytesPerRankStep * float64(rep.Ranks)
	if p.Phase != phase || p.Steps != steps || p.Bytes != perStep*float64(steps) || len(p.PerStep) != steps {
		t.Errorf("%s phase: %q, %d steps, %v bytes, %d per-step entries; want %q, %d, %v, %d",
			phase, p.Phase, p.Steps, p.Bytes, len(p.PerStep), phase, steps, perStep*float64(steps), steps)
	}
	for _, s := range p.PerStep {
		if s.Bytes != perStep {
			t.Errorf("%s step %d: %v bytes, want %v", phase, s.Step, s.Bytes, perStep)
		}
	}
	if p.RankBytes.Min != bytesPerRankStep*float64(steps) || p.RankBytes.Max != p.RankBytes.Min {
		t.Errorf("%s: per-rank bytes min %v max %v, want %v on every rank", phase, p.RankBytes.Min, p.RankBytes.Max, bytesPerRankStep*float64(steps))
	}
	if phase == "read" && (!p.Verified || p.Mismatches != 0) {
		t.Errorf("read: verified %v, mismatches %v", p.Verified, p.Mismatches)
	}
	return p
}

// sections splits the human summary into its per-phase blocks.
func sections(stdout string) []string {
	parts := strings.Split(stdout, "=================== Performance Results ==================")
	return parts[1:]
}

// TestRunWriteRead runs a small h5bench write+read configuration on 2 ranks: h5proxy
// relaunches itself under mpirun, prints h5bench's summary, writes h5bench's CSVs and the
// JSON reports, and the file has VPIC's structure and the seeded values.
func TestRunWriteRead(t *testing.T) {
	const ranks, dim1, steps = 2, 4096, 3
	dir := t.TempDir()
	cfg := h5benchConfig(t, dir, ranks, dim1, steps, nil)
	report := filepath.Join(dir, "report.json")
	r := h5proxy(t, dir, "run", "--report", report, cfg)
	const total = dim1 * 32 * ranks * steps // h5bench counts 32 bytes per particle
	size, unit := binaryUnits(total)
	r.expect(t, 0, []string{"Mode: SYNC"}, []string{`launching 2 ranks: "mpirun" "-np" "2"`})
	sec := sections(r.stdout)
	if len(sec) != 2 {
		t.Fatalf("%d summaries, want 2 (write, read)\n%s", len(sec), r)
	}
	for i, op := range []string{"write", "read"} {
		for _, want := range []string{"Mode: SYNC\n", "Total number of ranks: 2\n", fmt.Sprintf("Total %s size: %s %sB\n", op, size, unit),
			fmt.Sprintf("SYNC Raw %s rate: ", op), fmt.Sprintf("SYNC Observed %s rate: ", op), "Observed completion time: "} {
			if !strings.Contains(sec[i], want) {
				t.Errorf("%s summary lacks %q:\n%s", op, want, sec[i])
			}
		}
	}
	if strings.Contains(sec[0], "Verification") || !strings.Contains(sec[1], "Verification: OK") {
		t.Errorf("want \"Verification: OK\" in the read summary only:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "{") {
		t.Errorf("JSON mixed into stdout:\n%s", r.stdout)
	}

	// JSON reports, one per benchmark, and the CSVs written from them.
	for i, phase := range []string{"write", "read"} {
		rep := readReport(t, fmt.Sprintf("%s.%d", report, i))
		if rep.Ranks != ranks || rep.Config["DIM_1"] != "4096" || rep.Config["file"] != filepath.Join(dir, "particles.h5") {
			t.Errorf("report %d: ranks %d, DIM_1 %q, file %q", i, rep.Ranks, rep.Config["DIM_1"], rep.Config["file"])
		}
		p := checkPhase(t, rep, phase, steps, dim1*32)
		checkCSV(t, filepath.Join(dir, phase+".csv"), rep, p, total)
	}
	if _, err := os.Stat(report); err == nil {
		t.Errorf("%s written besides the per-benchmark reports", report)
	}

	// The file, read independently: structure, then every element of two variables.
	file := filepath.Join(dir, "particles.h5")
	checkTree(t, file, steps, dim1*ranks)
	checkValues(t, file, 0, "x", dim1*ranks, nil)
	checkValues(t, file, steps-1, "id_1", dim1*ranks, nil)

	// h5proxy inspect lists what the independent reader sees.
	ins := h5proxy(t, dir, "inspect", file)
	ins.expect(t, 0, nil, nil)
	if got, want := strings.Split(strings.TrimSpace(ins.stdout), "\n"), wantTree(steps, dim1*ranks); !slices.Equal(got, want) {
		t.Errorf("inspect output:\n%s\nwant:\n%s", ins.stdout, strings.Join(want, "\n"))
	}
}

// TestAcceptanceSample runs the acceptance configuration,
// samples/sync-write-read-1d-contig.json, with only its directory and compute time
// changed: 2 ranks, DIM_1=2097152, 4 timesteps, write then verified read.
func TestAcceptanceSample(t *testing.T) {
	doc, dir := sampleIn(t, "../../samples/sync-write-read-1d-contig.json")
	for _, b := range doc["benchmarks"].([]any) {
		conf := b.(map[string]any)["configuration"].(map[string]any)
		if conf["EMULATED_COMPUTE_TIME_PER_TIMESTEP"] != "1 s" || conf["DIM_1"] != "2097152" || conf["TIMESTEPS"] != "4" {
			t.Fatalf("the sample changed: %v", conf)
		}
		conf["EMULATED_COMPUTE_TIME_PER_TIMESTEP"] = "10 ms"
	}
	cfg := writeJSON(t, filepath.Join(dir, "sample.json"), doc)
	r := h5proxy(t, dir, "run", cfg)
	r.expect(t, 0, []string{"Mode: SYNC", "Total number of ranks: 2", "Total write size: 512.000 MB", "Total read size: 512.000 MB"},
		[]string{"launching 2 ranks"})
	sec := sections(r.stdout)
	if len(sec) != 2 || !strings.Contains(sec[1], "Verification: OK") {
		t.Fatalf("want a write and a verified read summary\n%s", r)
	}
	// 3 compute periods of 10 ms between 4 timesteps: not the sample's 1 s.
	for i, s := range sec {
		m := regexp.MustCompile(`Total emulated compute time: ([0-9.]+) s`).FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("summary %d has no compute time:\n%s", i, s)
		}
		if c, _ := strconv.ParseFloat(m[1], 64); c < 0.030 || c > 1 {
			t.Errorf("summary %d: emulated compute %v s, want 3 x 10 ms", i, c)
		}
	}
	for csv, op := range map[string]string{"output.csv": "write", "output-read.csv": "read"} {
		rows := readCSV(t, filepath.Join(dir, csv))
		if rows["operation"].value != op || rows["ranks"].value != "2" || rows["total size"] != (csvRow{"total size", "512.000", "MB"}) ||
			rows["collective data"].value != "YES" || rows["collective meta"].value != "YES" {
			t.Errorf("%s: %+v", csv, rows)
		}
	}
	const n = 2 * 2097152
	file := filepath.Join(dir, "test.h5")
	checkTree(t, file, 4, n)
	// Spot checks of values, around the boundary between the two ranks' blocks.
	for _, v := range []string{"x", "id_1", "pz"} {
		checkValues(t, file, 3, v, n, []int{0, 1, n/2 - 1, n / 2, n - 1})
	}
}

// TestRunNoLaunch runs outside mpirun as an MPI singleton: one rank, whatever the
// configuration asks for.
func TestRunNoLaunch(t *testing.T) {
	const dim1, steps = 1000, 2
	dir := t.TempDir()
	cfg := h5benchConfig(t, dir, 2, dim1, steps, nil)
	report := filepath.Join(dir, "r.json")
	r := h5proxy(t, dir, "run", "--no-launch", "--report", report, cfg)
	r.expect(t, 0, []string{"Total number of ranks: 1\n", "Total write size: 62.500 KB", "Verification: OK"},
		[]string{"configuration asks for 2 ranks, running on 1"})
	if strings.Contains(r.stderr, "launching") {
		t.Errorf("--no-launch launched:\n%s", r)
	}
	for i, phase := range []string{"write", "read"} {
		rep := readReport(t, fmt.Sprintf("%s.%d", report, i))
		if rep.Ranks != 1 {
			t.Errorf("report %d: %d ranks, want 1", i, rep.Ranks)
		}
		checkPhase(t, rep, phase, steps, dim1*32)
	}
	checkTree(t, filepath.Join(dir, "particles.h5"), steps, dim1)
}

// TestRunQuietNp: -np overrides the configuration's ranks, -quiet drops the summary but
// not the CSV.
func TestRunQuietNp(t *testing.T) {
	dir := t.TempDir()
	cfg := h5benchConfig(t, dir, 2, 100, 1, nil)
	r := h5proxy(t, dir, "run", "-np", "1", "-quiet", cfg)
	r.expect(t, 0, nil, []string{`launching 1 ranks: "mpirun" "-np" "1"`})
	if strings.Contains(r.stdout, "Performance Results") {
		t.Errorf("-quiet printed a summary:\n%s", r)
	}
	if rows := readCSV(t, filepath.Join(dir, "read.csv")); rows["ranks"].value != "1" || rows["total size"] != (csvRow{"total size", "3.125", "KB"}) {
		t.Errorf("read.csv: %+v", rows)
	}
}

// TestRunModes: h5bench's MODE=ASYNC (and h5proxy's CACHE) run unchanged, print the
// effective "Mode:" line h5bench's --validate-mode greps for, and verify the read.
func TestRunModes(t *testing.T) {
	for _, mode := range []string{"ASYNC", "CACHE"} {
		dir := t.TempDir()
		cfg := h5benchConfig(t, dir, 2, 2000, 3, map[string]string{"MODE": mode, "EMULATED_COMPUTE_TIME_PER_TIMESTEP": "20 ms"})
		r := h5proxy(t, dir, "run", cfg)
		r.expect(t, 0, []string{"Mode: " + mode + "\n", mode + " Raw write rate", "Background I/O time", "Verification: OK"}, nil)
		checkTree(t, filepath.Join(dir, "particles.h5"), 3, 2000*2)
		rows := readCSV(t, filepath.Join(dir, "write.csv"))
		if rows["mode"].value != mode || rows["background time"].unit != "seconds" || rows["hidden fraction"].value == "" || rows["drain time"].unit != "seconds" {
			t.Errorf("%s write.csv lacks the background rows: %+v", mode, rows)
		}
	}
}

// dirFiles lists the names in dir.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestRunConfigErrors: a bad configuration fails before anything is launched or written,
// naming the key and the value; a failure inside the launched run fails the command.
func TestRunConfigErrors(t *testing.T) {
	t.Run("bad key in the second benchmark", func(t *testing.T) {
		dir := t.TempDir()
		cfg := h5benchConfig(t, dir, 2, 64, 1, nil)
		// The write benchmark is valid: nothing of it may run either.
		data, _ := os.ReadFile(cfg)
		data = bytes.Replace(data, []byte(`"READ_OPTION": "FULL"`), []byte(`"READ_OPTION": "FULL", "DIMS_2": "3"`), 1)
		os.WriteFile(cfg, data, 0o644)
		r := h5proxy(t, dir, "run", cfg)
		r.expect(t, 1, nil, []string{"benchmarks[1]", `key "DIMS_2"`, `value "3"`, "unknown key (did you mean DIM_2?)", "allowed: ", "DIM_2"})
		if strings.Contains(r.stderr, "launching") || r.stdout != "" {
			t.Errorf("a bad configuration was launched:\n%s", r)
		}
		if got := dirFiles(t, dir); !slices.Equal(got, []string{"config.json"}) {
			t.Errorf("files after a rejected configuration: %q, want only config.json", got)
		}
	})
	t.Run("bad mode", func(t *testing.T) {
		dir := t.TempDir()
		cfg := h5benchConfig(t, dir, 2, 64, 1, map[string]string{"MODE": "LOGVOL"})
		r := h5proxy(t, dir, "run", cfg)
		r.expect(t, 1, nil, []string{`"MODE"`, `"LOGVOL"`, "not an allowed value", "allowed: sync, async, async-model, cache, cache-model, log"})
		if got := dirFiles(t, dir); !slices.Equal(got, []string{"config.json"}) {
			t.Errorf("files after a rejected configuration: %q", got)
		}
	})
	t.Run("missing config file", func(t *testing.T) {
		dir := t.TempDir()
		r := h5proxy(t, dir, "run", "nope.json")
		r.expect(t, 1, nil, []string{"h5proxy: ", "nope.json", "no such file or directory"})
	})
	t.Run("not JSON", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "c.json"), []byte("DIM_1=4\n"), 0o644)
		r := h5proxy(t, dir, "run", "c.json")
		r.expect(t, 1, nil, []string{"config: ", "invalid character"})
	})
	t.Run("launched run fails", func(t *testing.T) {
		// The read benchmark alone, of a file that does not exist: found by the ranks.
		dir := t.TempDir()
		doc := map[string]any{"mpi": map[string]any{"ranks": 2}, "directory": dir, "benchmarks": []any{
			map[string]any{"benchmark": "read", "file": "missing.h5", "configuration": map[string]any{"DIM_1": "8"}}}}
		cfg := writeJSON(t, filepath.Join(dir, "c.json"), doc)
		r := h5proxy(t, dir, "run", cfg)
		r.expect(t, 1, nil, []string{"launching 2 ranks", "benchmark 0 (read)", filepath.Join(dir, "missing.h5"), "launched run failed"})
		// Both ranks fail alike: the error once, without OpenMPI's termination notices.
		if n := strings.Count(r.stderr, filepath.Join(dir, "missing.h5")+`": stat`); n != 1 {
			t.Errorf("the ranks' common error appears %d times, want once:\n%s", n, r)
		}
		for _, notice := range []string{"Primary job", "mpirun detected", "-----"} {
			if strings.Contains(r.stderr, notice) {
				t.Errorf("OpenMPI's termination notice %q shown:\n%s", notice, r)
			}
		}
	})
}

// TestUsageErrors: command-line mistakes exit with status 2 and say what is wrong.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		stderr []string
	}{
		{nil, []string{"Usage:", "h5proxy run [flags] [CONFIG.json]"}},
		{[]string{"frob"}, []string{`unknown command "frob"`, "Usage:", "h5proxy plan"}},
		{[]string{"run", "--frob"}, []string{"flag provided but not defined: -frob", "-no-launch", "-report"}},
		{[]string{"run", "-np", "many"}, []string{`invalid value "many" for flag -np`}},
		{[]string{"run", "a.json", "b.json"}, []string{"one configuration file at most"}},
		{[]string{"run", "-np", "0"}, []string{"-np 0", "at least 1"}},
		{[]string{"run", "-np=-3", "samples/none.json"}, []string{"-np -3", "at least 1"}},
		{[]string{"plan"}, []string{"missing PATTERN", "vpic"}},
		{[]string{"plan", "-x", "vpic"}, []string{"flag provided but not defined: -x", "-rank", "-size", "-phase"}},
		{[]string{"plan", "vpic", "DIM_1=4", "-rank", "1"}, []string{"flag -rank after PATTERN vpic", "flags go before the pattern"}},
		{[]string{"plan", "vpic", "DIM_1"}, []string{`"DIM_1" is not KEY=VALUE`}},
		{[]string{"plan", "-rank", "2", "-size", "2", "vpic"}, []string{"-rank 2 -size 2", "0 <= rank < size"}},
		{[]string{"plan", "-phase", "bogus", "vpic"}, []string{`-phase "bogus"`, "write or read"}},
		{[]string{"plan", "nope"}, []string{`"nope"`, "vpic"}},
		{[]string{"help", "nope"}, []string{`unknown pattern "nope"`, "vpic", "session"}},
		{[]string{"inspect"}, []string{"need exactly one file"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := h5proxy(t, "", tc.args...)
			// "plan nope" is a configuration error (unknown pattern), not a usage error.
			code := 2
			if slices.Equal(tc.args, []string{"plan", "nope"}) {
				code = 1
			}
			r.expect(t, code, nil, tc.stderr)
			if r.stdout != "" {
				t.Errorf("output on stdout:\n%s", r)
			}
		})
	}
}

// TestHelp: the help command and every command's --help exit 0 and list keys and flags.
func TestHelp(t *testing.T) {
	h5proxy(t, "", "help").expect(t, 0, []string{"Usage:", "h5proxy run [flags] [CONFIG.json]", "h5proxy plan", "h5proxy sweep [flags] CONFIG.json KEY=v1,v2,...",
		"Patterns: [", "dlio", "nova", "openpmd", "vpic vpic-append vpic-normal-dist vpic-overwrite vpic-unlimited]", "h5proxy help session",
		"h5bench benchmarks run unchanged: [write write-unlimited write_var_normal_dist overwrite append read", "H5PROXY_MPIEXEC"}, nil)
	h5proxy(t, "", "--help").expect(t, 0, []string{"Usage:", "Patterns: [", "vpic-unlimited]"}, nil)
	h5proxy(t, "", "help", "vpic-normal-dist").expect(t, 0, []string{"h5bench write_var_normal_dist",
		"STDEV_DIM_1              int   1        standard deviation of the per-rank particle count"}, nil)
	h5proxy(t, "", "help", "vpic-unlimited").expect(t, 0, []string{"h5bench write-unlimited", "COMPRESS                 bool  YES"}, nil)
	h5proxy(t, "", "help", "vpic-append").expect(t, 0, []string{"h5bench append", "[CONTIG|STRIDED]", "DIM_1", "2*DIM_1",
		"COLLECTIVE_METADATA      bool  -        accepted like h5bench, no effect"}, nil)
	h5proxy(t, "", "help", "vpic-overwrite").expect(t, 0, []string{"h5bench overwrite", "TIMESTEPS", "(accepted, ignored)"}, nil)
	h5proxy(t, "", "help", "openpmd").expect(t, 0, []string{"minBlock", "grid", "balanced", "encoding", "pattern", "OPENPMD_HDF5_INDEPENDENT", "fileLocation"}, nil)
	h5proxy(t, "", "help", "exerciser").expect(t, 0, []string{"numdims", "minels", "nsizes", "bufmult", "dimranks", "metacoll", "derivedtype",
		"addattr", "indepio", "keepfile", "usechunked", "maxcheck", "memblock", "memstride", "fileblocks", "filestrides", "rshift", "iterations   int     10"}, nil)
	h5proxy(t, "", "help", "amrex").expect(t, 0, []string{"ncells", "max_grid_size", "nplotfile", "hdf5compression", "restart_check", "(accepted, ignored)"}, nil)
	h5proxy(t, "", "help", "session").expect(t, 0, []string{"file", "compute_time", "EMULATED_COMPUTE_TIME_PER_TIMESTEP",
		"CSV_FILE", "MODE", "IO_MEM_LIMIT", "async.staging_bytes", "cache.path", "sync|async|async-model|cache|cache-model|log", "trace_file"}, nil)
	h5proxy(t, "", "help", "vpic").expect(t, 0, []string{"DIM_1", "TIMESTEPS", "MEM_PATTERN", "READ_OPTION", "COLLECTIVE_DATA", "(accepted, ignored)",
		"EMULATED_COMPUTE_TIME_PER_TIMESTEP", "CSV_FILE"}, nil)
	h5proxy(t, "", "help", "concat").expect(t, 0, []string{"chunk", "deflate", "empty-layout", "contiguous|chunked|compact",
		"input-driver", "fill-time", "partition-key", "_file_index"}, nil)
	for _, cmd := range []string{"run", "plan", "inspect", "concat", "sweep"} {
		r := h5proxy(t, "", cmd, "--help")
		r.expect(t, 0, nil, []string{"Usage: h5proxy " + cmd})
		flags := map[string][]string{"run": {"-no-launch", "-np", "-report", "-quiet", "-set", "-dir"}, "plan": {"-rank", "-size", "-phase", "-async"},
			"concat": {"-o", "-f", "-inputs", "-np", "-json", "-chunk", "-mdc", "-partition-key"},
			"sweep":  {"-reps", "-out", "-metric", "-x", "-by", "-np", "-keep", "-n", "-replot"}}
		for _, f := range flags[cmd] {
			if !strings.Contains(r.stderr, "  "+f) {
				t.Errorf("%s --help does not list %s:\n%s", cmd, f, r)
			}
		}
	}
}

// TestVersion prints the h5proxy, Go and HDF5 versions: the library loaded, the build's
// HDF5 switch (the Makefile's HDF5, exported as H5PROXY_HDF5), the headers compiled
// against (equal to the library) and the one library file loaded.
func TestVersion(t *testing.T) {
	build := wantHDF5Build()
	r := h5proxy(t, "", "version")
	v := proxy.HDF5Version()
	if !strings.HasPrefix(v, build+".") {
		t.Errorf("HDF5 %s loaded, want the build's HDF5=%s", v, build)
	}
	r.expect(t, 0, []string{"\nHDF5 " + v + " (build HDF5=" + build + ", headers " + v + ", library /"}, nil)
	if m := regexp.MustCompile(`library ([^,\n]*)\)\n`).FindStringSubmatch(r.stdout); m == nil || !strings.Contains(m[1], "/libhdf5") {
		t.Errorf("version: want exactly one HDF5 library path:\n%s", r.stdout)
	}
	if !regexp.MustCompile(`^h5proxy ` + regexp.QuoteMeta(proxy.Version) + ` \(go1\.[0-9]+`).MatchString(r.stdout) {
		t.Errorf("version line: %q", r.stdout)
	}
}

// wantHDF5Build is the HDF5 build the tests run against: the Makefile's switch, exported
// as H5PROXY_HDF5 (default 1.10, the system's).
func wantHDF5Build() string {
	if b := os.Getenv("H5PROXY_HDF5"); b != "" {
		return b
	}
	return "1.10"
}

// planOp is one line of a printed plan.
type planOp struct {
	kind, path string
	attrs      map[string]string
}

// readPlan parses `h5proxy plan` output: a header, one operation per line, a footer.
func readPlan(t *testing.T, out string) (header string, ops []planOp, footer string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "# ") || !strings.HasPrefix(lines[len(lines)-1], "# ") {
		t.Fatalf("plan output without header and footer:\n%s", out)
	}
	for _, l := range lines[1 : len(lines)-1] {
		f := strings.Fields(l)
		if len(f) < 2 {
			t.Fatalf("plan line %q", l)
		}
		op := planOp{kind: f[0], path: f[1], attrs: map[string]string{}}
		for _, a := range f[2:] {
			if k, v, ok := strings.Cut(a, "="); ok {
				op.attrs[k] = v
			} else {
				op.attrs[a] = ""
			}
		}
		ops = append(ops, op)
	}
	return lines[0], ops, lines[len(lines)-1]
}

func kinds(ops []planOp, kind string) []planOp {
	var out []planOp
	for _, op := range ops {
		if op.kind == kind {
			out = append(out, op)
		}
	}
	return out
}

// TestPlan prints rank 1's plans of a 2-rank VPIC run: 8 datasets of 8 particles, rank 1
// writing and reading elements 4..7.
func TestPlan(t *testing.T) {
	r := h5proxy(t, "", "plan", "-rank", "1", "-size", "2", "vpic", "DIM_1=4", "TIMESTEPS=1")
	r.expect(t, 0, nil, nil)
	header, ops, footer := readPlan(t, r.stdout)
	if header != "# vpic write plan of rank 1 of 2, file out.h5" {
		t.Errorf("header %q", header)
	}
	if footer != fmt.Sprintf("# %d operations, 128 bytes", len(ops)) {
		t.Errorf("footer %q for %d operations of 8 x 4 x 4 bytes", footer, len(ops))
	}
	if ops[0].kind != "create-file" || ops[0].path != "out.h5" || ops[1].kind != "create-group" || ops[1].path != "/Timestep_0" ||
		ops[len(ops)-1].kind != "close-file" {
		t.Errorf("plan does not create the file and group first and close the file last:\n%s", r.stdout)
	}
	creates, writes := kinds(ops, "create-dataset"), kinds(ops, "write")
	if len(creates) != 8 || len(writes) != 8 {
		t.Fatalf("%d create-dataset and %d write operations, want 8 each:\n%s", len(creates), len(writes), r.stdout)
	}
	for i, v := range vars {
		c, w := creates[i], writes[i]
		path := "/Timestep_0/" + v.name
		if c.path != path || c.attrs["type"] != v.typ.String() || c.attrs["shape"] != "[8]" {
			t.Errorf("create %d: %s type=%s shape=%s, want %s type=%s shape=[8]", i, c.path, c.attrs["type"], c.attrs["shape"], path, v.typ)
		}
		if w.path != path || w.attrs["start"] != "[4]" || w.attrs["block"] != "[4]" || w.attrs["count"] != "[1]" ||
			w.attrs["mem"] != v.typ.String()+"[4]" {
			t.Errorf("write %d: %s start=%s block=%s count=%s mem=%s, want %s start=[4] block=[4] count=[1] mem=%s[4]",
				i, w.path, w.attrs["start"], w.attrs["block"], w.attrs["count"], w.attrs["mem"], path, v.typ)
		}
	}

	// Rank 0 writes the first half; the file name and timesteps are options.
	r = h5proxy(t, "", "plan", "-size", "2", "vpic", "DIM_1=4", "TIMESTEPS=2", "file=/data/p.h5")
	r.expect(t, 0, nil, nil)
	header, ops, _ = readPlan(t, r.stdout)
	if header != "# vpic write plan of rank 0 of 2, file /data/p.h5" || len(kinds(ops, "create-group")) != 2 {
		t.Errorf("header %q, %d groups", header, len(kinds(ops, "create-group")))
	}
	for _, w := range kinds(ops, "write") {
		if w.attrs["start"] != "[0]" || w.attrs["block"] != "[4]" {
			t.Errorf("rank 0: %s start=%s block=%s", w.path, w.attrs["start"], w.attrs["block"])
		}
	}

	// The read plan opens what the write plan created and reads the same elements.
	r = h5proxy(t, "", "plan", "-phase", "read", "-rank", "1", "-size", "2", "vpic", "DIM_1=4", "TIMESTEPS=1")
	r.expect(t, 0, nil, nil)
	header, ops, footer = readPlan(t, r.stdout)
	if header != "# vpic read plan of rank 1 of 2, file out.h5" || !strings.HasSuffix(footer, " 128 bytes") {
		t.Errorf("header %q footer %q", header, footer)
	}
	if ops[0].kind != "open-file" || len(kinds(ops, "open-dataset")) != 8 || len(kinds(ops, "create-dataset")) != 0 ||
		len(kinds(ops, "write")) != 0 || ops[len(ops)-1].kind != "close-file" {
		t.Errorf("read plan:\n%s", r.stdout)
	}
	reads := kinds(ops, "read")
	if len(reads) != 8 {
		t.Fatalf("%d reads, want 8", len(reads))
	}
	for _, rd := range reads {
		if rd.attrs["start"] != "[4]" || rd.attrs["block"] != "[4]" {
			t.Errorf("read %s start=%s block=%s, want [4] [4]", rd.path, rd.attrs["start"], rd.attrs["block"])
		}
	}

	// Option errors name the key and the value.
	h5proxy(t, "", "plan", "vpic", "DIM_1=lots").expect(t, 1, nil, []string{`key "DIM_1"`, `value "lots"`, "16 M"})
	// A misspelt key suggests the nearest one before the full list.
	r = h5proxy(t, "", "plan", "vpic", "TIMESTEP=2")
	r.expect(t, 1, nil, []string{`key "TIMESTEP"`, "unknown key (did you mean TIMESTEPS?); allowed: "})
}

// TestInspect lists a file written by a singleton run; a missing file is an error naming it.
func TestInspect(t *testing.T) {
	dir := t.TempDir()
	doc := map[string]any{"directory": dir, "benchmarks": []any{map[string]any{"benchmark": "write", "file": "w.h5",
		"configuration": map[string]any{"DIM_1": "16", "TIMESTEPS": "2"}}}}
	cfg := writeJSON(t, filepath.Join(dir, "c.json"), doc)
	h5proxy(t, dir, "run", "--no-launch", "--quiet", cfg).expect(t, 0, nil, nil)
	r := h5proxy(t, dir, "inspect", "w.h5")
	r.expect(t, 0, []string{"/Timestep_1 group\n", "/Timestep_1/id_1 dataset i32 [16]\n"}, nil)
	if got, want := strings.Split(strings.TrimSpace(r.stdout), "\n"), wantTree(2, 16); !slices.Equal(got, want) {
		t.Errorf("inspect:\n%s\nwant:\n%s", r.stdout, strings.Join(want, "\n"))
	}
	// Files HDF5 cannot open are named with the reason, before HDF5 is asked.
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not HDF5 at all\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret.h5"), nil, 0o000)
	cases := [][2]string{{"missing.h5", "missing.h5: file does not exist"}, {"notes.txt", "notes.txt: not an HDF5 file"}, {".", ".: is a directory"}}
	if os.Getuid() != 0 { // root reads any file
		cases = append(cases, [2]string{"secret.h5", "secret.h5: file is not readable"})
	}
	for _, c := range cases {
		r := h5proxy(t, dir, "inspect", c[0])
		r.expect(t, 1, nil, []string{c[1]})
		if strings.Contains(r.stderr, "code -1") {
			t.Errorf("HDF5's own error shown:\n%s", r)
		}
	}
	// A user block before the superblock: the signature is found at 512.
	ub := filepath.Join(dir, "userblock.h5")
	data, err := os.ReadFile(filepath.Join(dir, "w.h5"))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkHDF5(filepath.Join(dir, "w.h5")); err != nil {
		t.Errorf("checkHDF5 rejects a file HDF5 wrote: %v", err)
	}
	os.WriteFile(ub, append(make([]byte, 512), data[:64]...), 0o644)
	if err := checkHDF5(ub); err != nil {
		t.Errorf("checkHDF5 misses a signature after a 512-byte user block: %v", err)
	}
}

// TestRunFailureOnce: an output directory that cannot be created is found before any
// rank is launched; the launched ranks' stderr filter passes an error common to all ranks
// once, every differing one, and drops OpenMPI's termination notices (TestRunConfigErrors
// checks it on a real failed run).
func TestRunFailureOnce(t *testing.T) {
	t.Run("bad directory", func(t *testing.T) {
		dir := t.TempDir()
		for _, bad := range []string{"/proc/h5proxy-test", filepath.Join(dir, "file.txt", "sub")} {
			os.WriteFile(filepath.Join(dir, "file.txt"), nil, 0o644)
			doc := map[string]any{"mpi": map[string]any{"ranks": 2}, "directory": bad, "benchmarks": []any{
				map[string]any{"benchmark": "write", "file": "x.h5", "configuration": map[string]any{"DIM_1": "8", "TIMESTEPS": "1"}}}}
			cfg := writeJSON(t, filepath.Join(dir, "c.json"), doc)
			r := h5proxy(t, dir, "run", cfg)
			r.expect(t, 1, nil, []string{fmt.Sprintf("output directory %q cannot be created", bad)})
			if strings.Contains(r.stderr, "launching") || strings.Count(r.stderr, "output directory") != 1 {
				t.Errorf("launched, or the error repeated:\n%s", r)
			}
		}
	})
	t.Run("filter", func(t *testing.T) {
		var out bytes.Buffer
		w := newRankErrors(&out)
		rule := strings.Repeat("-", 74) + "\n"
		in := "h5proxy: benchmark 0 (read): boom\n" +
			"12:00:00.001 ERR phase failed error=boom rank=0\n" +
			"h5proxy: benchmark 0 (read): boom\n" +
			"12:00:00.002 ERR phase failed error=boom rank=1\n" +
			"12:00:00.003 ERR phase failed error=other rank=1\n" +
			"h5proxy: benchmark 0 (read): rank 1 only\n" +
			"12:00:00.004 INF step done rank=0\n12:00:00.004 INF step done rank=0\n" +
			rule + "Primary job  terminated normally, but 1 process returned\na non-zero exit code.\n" + rule +
			rule + "mpirun detected that one or more processes exited with non-zero status, thus causing\n\n  Exit code:    1\n" + rule +
			rule + "mpirun noticed that process rank 1 exited on signal 11 (Segmentation fault).\n" + rule + "partial"
		for i := 0; i < len(in); i += 7 { // arbitrary chunks, as pipes deliver them
			w.Write([]byte(in[i:min(i+7, len(in))]))
		}
		w.Flush()
		want := "h5proxy: benchmark 0 (read): boom\n" +
			"12:00:00.001 ERR phase failed error=boom rank=0\n" +
			"12:00:00.003 ERR phase failed error=other rank=1\n" +
			"h5proxy: benchmark 0 (read): rank 1 only\n" +
			"12:00:00.004 INF step done rank=0\n12:00:00.004 INF step done rank=0\n" +
			rule + "mpirun noticed that process rank 1 exited on signal 11 (Segmentation fault).\n" + rule + "partial"
		if out.String() != want {
			t.Errorf("filtered:\n%s\nwant:\n%s", out.String(), want)
		}
	})
}

// TestRunLauncherCount: an mpi.configuration without a rank option leaves the count to
// mpirun, as h5bench's runner does; the launch message says so instead of naming
// mpi.ranks, and a warning says mpi.ranks is ignored.
func TestRunLauncherCount(t *testing.T) {
	dir := t.TempDir()
	doc := map[string]any{"mpi": map[string]any{"command": "mpirun", "ranks": "4", "configuration": "--oversubscribe"}, "directory": dir,
		"benchmarks": []any{map[string]any{"benchmark": "write", "file": "x.h5", "configuration": map[string]any{"DIM_1": "8", "TIMESTEPS": "1"}}}}
	cfg := writeJSON(t, filepath.Join(dir, "c.json"), doc)
	r := h5proxy(t, dir, "run", cfg)
	r.expect(t, 0, []string{"Total number of ranks: "}, []string{`launching mpirun's default number of ranks (mpi.configuration gives no -np): "mpirun" "--oversubscribe"`,
		"mpi.ranks=4 ignored", "add -np 4 to mpi.configuration"})
	if strings.Contains(r.stderr, "launching 4 ranks") || strings.Contains(r.stderr, "asks for 4 ranks") {
		t.Errorf("the message names mpi.ranks:\n%s", r)
	}
	// With -np in the configuration, the count is the configuration's and is named.
	doc["mpi"] = map[string]any{"command": "mpirun", "ranks": "1", "configuration": "--oversubscribe -np 1"}
	cfg = writeJSON(t, filepath.Join(dir, "c.json"), doc)
	r = h5proxy(t, dir, "run", cfg)
	r.expect(t, 0, []string{"Total number of ranks: 1\n"}, []string{`launching 1 ranks: "mpirun" "--oversubscribe" "-np" "1"`})
}

// TestRunE3SMSummary: the summary names the history files E3SM writes (out_h0.h5 and
// out_h1.h5 for out.h5), says why the canonical layout is slow, and names the CSV and
// JSON outputs with their units; log fields are rounded.
func TestRunE3SMSummary(t *testing.T) {
	dir := t.TempDir()
	doc := map[string]any{"pattern": "e3sm", "phases": []string{"write"},
		"session": map[string]any{"file": filepath.Join(dir, "out.h5"), "report_file": filepath.Join(dir, "r.json"), "CSV_FILE": filepath.Join(dir, "w.csv")},
		"options": map[string]any{"case": "F", "ne": 2, "lev": 4, "r": 2}}
	cfg := writeJSON(t, filepath.Join(dir, "c.json"), doc)
	r := h5proxy(t, dir, "run", "-np", "2", cfg)
	h0, h1 := filepath.Join(dir, "out_h0.h5"), filepath.Join(dir, "out_h1.h5")
	r.expect(t, 0, []string{"layout native, file " + h0 + ", " + h1 + "\n", "Note: the canonical layout writes each decomposed variable",
		"CSV (h5bench's units: KB, MB = 1024^n bytes): " + filepath.Join(dir, "w.csv") + "\n",
		"JSON report (SI units: bytes, seconds, bytes/s): " + filepath.Join(dir, "r.json") + "\n"}, nil)
	for _, f := range []string{h0, h1} {
		if err := checkHDF5(f); err != nil {
			t.Error(err)
		}
	}
	rep := readPatternReport(t, filepath.Join(dir, "r.json"), "e3sm")
	if p := rep.Phases[0]; !slices.Equal(p.Files, []string{h0, h1}) || p.File != filepath.Join(dir, "out.h5") {
		t.Errorf("report files %q (configured %s), want %q", p.Files, p.File, []string{h0, h1})
	}
	// raw_s is logged rounded: three decimals, or three significant digits below 0.1.
	m := regexp.MustCompile(`raw_s=(\S+)`).FindAllStringSubmatch(r.stderr, -1)
	if len(m) == 0 {
		t.Fatalf("no raw_s log field:\n%s", r)
	}
	for _, f := range m {
		v, err := strconv.ParseFloat(f[1], 64)
		_, dec, _ := strings.Cut(f[1], ".")
		if err != nil || (len(dec) > 3 && (v >= 0.1 || len(strings.TrimLeft(dec, "0")) > 3)) {
			t.Errorf("raw_s=%s is not rounded", f[1])
		}
	}
}
