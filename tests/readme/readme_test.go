//go:build readme

package readme

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var (
	cmakeBuild = flag.String("cmake-build", "build/cmake", "CMake build directory of `make cmake-test`, relative to the repository root")
	// binDir replaces the README's bin/ in its shell lines: the HDF5=1.14 build's command is
	// bin/hdf5-1.14/h5proxy (the Makefile passes its BIN).
	binDir = flag.String("bin", "bin", "directory of the h5proxy command the README's bin/h5proxy stands for, relative to the repository root")
)

// A README block: the kind its marker comment gives, its fence language and its text.
type block struct {
	kind, lang, text string
	line             int
}

// Every fenced block must follow a marker `<!-- readme-test: KIND ... -->`, so a new block
// cannot go untested by accident. Kinds:
//
//	ci      the README's two set-up commands; .ci/run runs them in a fresh clone
//	sh      shell lines run one by one from the repository root (see shellChecks)
//	go      a complete Go program
//	c       a complete C program (particles.c)
//	build   shell lines run in the directory of particles.c and simulation.f90
//	manual  not run by any test (the benchmarks take minutes)
var (
	fenceRE  = regexp.MustCompile("(?m)^```")
	markerRE = regexp.MustCompile(`<!--\s*readme-test:\s*(\w+)[^>]*-->\s*$`)
)

// shellCheck is what a README shell line must print (a regular expression over stdout and
// stderr), or why this test does not run it.
type shellCheck struct {
	want, notRun string
}

// shellChecks holds, for every shell line of the README, its check; a line missing here
// fails the test. Keys are the lines without their trailing comment.
var shellChecks = map[string]shellCheck{
	"bin/h5proxy run samples/sync-write-read-1d-contig.json":                                                  {want: `(?s)Mode: SYNC.*Total number of ranks: 2.*Verification: OK`},
	"bin/h5proxy run samples/sync-e3sm-canonical.json":                                                        {want: `(?s)Performance Results.*Total number of ranks: 4.*Note: the canonical layout`},
	"bin/h5proxy run samples/sync-openpmd.json":                                                               {want: `(?s)Performance Results.*Verification: OK`},
	"bin/h5proxy run samples/sync-amrex.json":                                                                 {want: `(?s)Performance Results.*Verification: OK`},
	"mpirun --allow-run-as-root --oversubscribe -np 4 bin/h5proxy run samples/sync-write-2d-interleaved.json": {want: `Total number of ranks: 4`},
	"bin/h5proxy run -np 2 -dir h5proxy-out examples/apps/particles.yaml steps=2":                             {want: `(?s)Total number of ranks: 2.*Verification: OK`},
	"bin/h5proxy help vpic": {want: `DIM_1`},
	"bin/h5proxy plan -rank 1 -size 2 vpic NUM_DIMS=2 DIM_1=4 DIM_2=3": {want: `Timestep_0`},
	"bin/h5proxy inspect h5proxy-out/test.h5":                          {want: `Timestep_0`},
	"bin/h5proxy derive h5proxy-out/test.h5 -np 2":                     {want: `(?s)steps: 4 .*vars: \[id_2, px, py, pz, x, y, z\].*Timestep_\$\{step\}:.*\$\{vars\}: \{type: f32, shape: \[n \* nranks\]\}`},
	"bin/h5proxy h5perf -P 2 -e 256K -x 64K -X 256K -B 16K -i 3":       {want: `(?s)Number of processors = 2.*Transfer Buffer Size: 65536 bytes.*IO API = POSIX.*IO API = MPIO.*IO API = PHDF5 \(w/MPI-IO driver\).*Transfer Buffer Size: 262144 bytes`},
	"make cmake-test": {notRun: "a prerequisite of make test, which runs this test"},
	`cmake --install build/cmake --prefix "$HOME/h5proxy"`:                                {want: `Installing: .*/h5proxy/lib/pkgconfig/h5proxy-fortran.pc`},
	`export PKG_CONFIG_PATH="$HOME/h5proxy/lib/pkgconfig"`:                                {want: `^$`},
	`mpicc particles.c $(pkg-config --cflags --libs h5proxy) -o particles`:                {want: `^$`},
	`mpif90 simulation.f90 $(pkg-config --cflags --libs h5proxy-fortran) -o simulation_f`: {want: `^$`},
}

func readmeBlocks(t *testing.T, root string) []block {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []block
	for i := 0; i < len(lines); i++ {
		if !fenceRE.MatchString(lines[i]) {
			continue
		}
		start := i
		lang := strings.TrimPrefix(lines[i], "```")
		j := i + 1
		for j < len(lines) && !fenceRE.MatchString(lines[j]) {
			j++
		}
		if j == len(lines) {
			t.Fatalf("README.md:%d: unterminated code block", start+1)
		}
		kind := ""
		for k := start - 1; k >= 0; k-- {
			if strings.TrimSpace(lines[k]) == "" {
				continue
			}
			if m := markerRE.FindStringSubmatch(lines[k]); m != nil {
				kind = m[1]
			}
			break
		}
		if kind == "" {
			t.Errorf("README.md:%d: code block without a <!-- readme-test: KIND --> marker on the line before", start+1)
		}
		out = append(out, block{kind: kind, lang: lang, text: strings.Join(lines[start+1:j], "\n") + "\n", line: start + 1})
		i = j
	}
	return out
}

// shellLines returns the commands of a shell block: one per line, blank lines and
// comment lines skipped.
func shellLines(b block) []string {
	var out []string
	for _, l := range strings.Split(b.text, "\n") {
		if s := strings.TrimSpace(l); s != "" && !strings.HasPrefix(s, "#") {
			out = append(out, l)
		}
	}
	return out
}

// checkKey is a shell line without its trailing comment, the key of shellChecks.
func checkKey(line string) string {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	return strings.TrimSpace(line)
}

// env is the environment of every command: HOME is a fresh directory (the README installs
// into "$HOME/h5proxy"), Go keeps its caches.
type env struct {
	root, home string
	vars       []string
}

func newEnv(t *testing.T, root string) *env {
	t.Helper()
	home := t.TempDir()
	vars := []string{"HOME=" + home}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", v, err)
		}
		vars = append(vars, v+"="+strings.TrimSpace(string(out)))
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "PKG_CONFIG_PATH=") {
			vars = append(vars, kv)
		}
	}
	return &env{root: root, home: home, vars: vars}
}

// run runs a bash script in dir and returns its combined output; a non-zero exit fails
// the test.
func (e *env) run(t *testing.T, dir, script string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, e.vars...), extra...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("in %s: %s\n%v\n%s", dir, script, err, out.String())
	}
	return out.String()
}

// mpirun is the launcher prefix for np ranks: as root OpenMPI needs --allow-run-as-root,
// as the README says.
func mpirun(np int) string {
	l := fmt.Sprintf("mpirun --oversubscribe -np %d", np)
	if os.Geteuid() == 0 {
		l += " --allow-run-as-root"
	}
	return l
}

func expect(t *testing.T, what, out, re string) {
	t.Helper()
	if !regexp.MustCompile(re).MatchString(out) {
		t.Errorf("%s: output does not match %q:\n%s", what, re, out)
	}
}

// TestREADME runs the README's blocks in order: the shell lines of the h5bench section, the
// install, the Go program, the C program and the Fortran example with pkg-config (the
// README's own build lines) and with CMake.
func TestREADME(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, need := range []string{filepath.Join(*binDir, "h5proxy"), filepath.Join(*cmakeBuild, "CMakeCache.txt")} {
		if _, err := os.Stat(filepath.Join(root, need)); err != nil {
			t.Fatalf("%s is missing: run `make build cmake-test` first (make test does): %v", need, err)
		}
	}
	blocks := readmeBlocks(t, root)
	e := newEnv(t, root)
	work := t.TempDir()
	counts := map[string]int{}
	prefix := filepath.Join(e.home, "h5proxy")
	built := false // the README's build lines ran
	for _, b := range blocks {
		counts[b.kind]++
		switch b.kind {
		case "ci", "manual":
		case "sh", "build":
			dir := root
			if b.kind == "build" {
				dir = work
				if _, err := os.Stat(filepath.Join(prefix, "lib", "pkgconfig", "h5proxy.pc")); err != nil {
					t.Fatalf("README.md:%d: the install block before it did not install into %s: %v", b.line, prefix, err)
				}
				copyFile(t, filepath.Join(root, "examples", "fortran", "simulation.f90"), filepath.Join(work, "simulation.f90"))
				// One shell: `export` lines hold for the lines after them.
				var script strings.Builder
				// Each line's output is marked, so each line's check sees only its own.
				keys := shellLines(b)
				for i, l := range keys {
					if _, ok := shellChecks[checkKey(l)]; !ok {
						t.Errorf("README.md:%d: no check for shell line %q: add it to shellChecks", b.line, l)
					}
					fmt.Fprintf(&script, "%s\necho '@@readme-line %d'\n", l, i)
				}
				out := e.run(t, dir, script.String())
				built = true
				for i, part := range strings.Split(out, "@@readme-line ")[:len(keys)] {
					if i > 0 {
						part = part[strings.Index(part, "\n")+1:]
					}
					if c, ok := shellChecks[checkKey(keys[i])]; ok {
						expect(t, keys[i], part, c.want)
					}
				}
				for _, exe := range []string{"particles", "simulation_f"} {
					if _, err := os.Stat(filepath.Join(work, exe)); err != nil {
						t.Errorf("README.md:%d: the build lines made no %s: %v", b.line, exe, err)
					}
				}
				continue
			}
			for _, l := range shellLines(b) {
				c, ok := shellChecks[checkKey(l)]
				switch {
				case !ok:
					t.Errorf("README.md:%d: no check for shell line %q: add it to shellChecks", b.line, l)
				case c.notRun != "":
					t.Logf("not run here: %s (%s)", l, c.notRun)
				default:
					t.Run(checkKey(l), func(t *testing.T) {
						expect(t, l, e.run(t, dir, strings.ReplaceAll(l, "bin/h5proxy", *binDir+"/h5proxy")), c.want)
					})
				}
			}
		case "go":
			t.Run("go", func(t *testing.T) { runGo(t, e, b) })
		case "c":
			if err := os.WriteFile(filepath.Join(work, "particles.c"), []byte(b.text), 0o644); err != nil {
				t.Fatal(err)
			}
		default:
			t.Errorf("README.md:%d: unknown readme-test kind %q", b.line, b.kind)
		}
	}
	for _, k := range []string{"ci", "sh", "go", "c", "build"} {
		if counts[k] == 0 {
			t.Errorf("README.md has no %q block: the test has lost what it checks", k)
		}
	}
	if !built {
		t.Fatal("the README's build lines did not run: the C and Fortran programs cannot be checked")
	}
	// The programs the README's pkg-config lines built, then the same sources through CMake
	// (C: find_package COMPONENTS C; Fortran: a project that enables only Fortran).
	t.Run("c-pkg-config", func(t *testing.T) { checkC(t, e, work, "./particles") })
	t.Run("fortran-pkg-config", func(t *testing.T) { checkFortran(t, e, work, "./simulation_f") })
	t.Run("c-cmake", func(t *testing.T) {
		dir := t.TempDir()
		copyFile(t, filepath.Join(work, "particles.c"), filepath.Join(dir, "particles.c"))
		writeFile(t, filepath.Join(dir, "CMakeLists.txt"), `cmake_minimum_required(VERSION 3.20)
project(particles C)
find_package(h5proxy REQUIRED COMPONENTS C)
add_executable(particles particles.c)
target_link_libraries(particles PRIVATE h5proxy::c)
`)
		e.run(t, dir, fmt.Sprintf(`cmake -S . -B b -DCMAKE_PREFIX_PATH=%q >/dev/null && cmake --build b >/dev/null`, prefix))
		checkC(t, e, dir, "b/particles")
	})
	t.Run("fortran-cmake-fortran-only", func(t *testing.T) {
		dir := t.TempDir()
		e.run(t, dir, fmt.Sprintf(`cmake -S %q -B b -DCMAKE_PREFIX_PATH=%q -DPROGRAM_SOURCE=%q -DPROGRAM_NAME=simulation_f >/dev/null && cmake --build b >/dev/null`,
			filepath.Join(root, "tests", "install", "fortran-only"), prefix, filepath.Join(root, "examples", "fortran", "simulation.f90")))
		checkFortran(t, e, dir, "b/simulation_f")
	})
}

// checkC runs the README's C program at 2 ranks: an async write of 4 steps whose summary
// rank 0 prints.
func checkC(t *testing.T, e *env, dir, exe string) {
	out := e.run(t, dir, mpirun(2)+" "+exe)
	expect(t, exe, out, `(?s)Mode: ASYNC.*Total number of ranks: 2.*Total write size: 64\.000 MB`)
	checkParticles(t, dir)
}

// checkFortran runs examples/fortran/simulation.f90, which checks its own results.
func checkFortran(t *testing.T, e *env, dir, exe string) {
	out := e.run(t, dir, mpirun(2)+" "+exe+" "+filepath.Join(dir, "f.h5"))
	expect(t, exe, out, `(?s)Verification: OK.*simulation_f: 2 ranks, thread level 3, .*: all checks passed`)
}

// checkParticles looks into the file the snippets write: 4 timesteps of VPIC's 8
// variables, 256 K particles per rank on 2 ranks.
func checkParticles(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("h5ls", "-r", filepath.Join(dir, "particles.h5")).CombinedOutput()
	if err != nil {
		t.Fatalf("h5ls particles.h5: %v\n%s", err, out)
	}
	for _, want := range []string{`/Timestep_3/px\s+Dataset \{524288\}`, `/Timestep_0/id_1\s+Dataset \{524288\}`} {
		expect(t, "h5ls particles.h5", string(out), want)
	}
	if n := len(regexp.MustCompile(`(?m)^/Timestep_\d+\s+Group`).FindAllString(string(out), -1)); n != 4 {
		t.Errorf("particles.h5 has %d groups, want 4 timesteps:\n%s", n, out)
	}
}

// runGo builds the Go snippet in a module of its own outside the repository, requiring
// h5proxy through a replace directive, and runs it at 2 ranks.
func runGo(t *testing.T, e *env, b block) {
	dir := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(e.root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(gomod)
	if goVersion == nil {
		t.Fatal("go.mod has no go directive")
	}
	writeFile(t, filepath.Join(dir, "go.mod"), fmt.Sprintf("module readmesnippet\n\ngo %s\n\nrequire github.com/h5proxy/h5proxy v0.0.0\n\nreplace github.com/h5proxy/h5proxy => %s\n", goVersion[1], e.root))
	// h5proxy's own checksums: the snippet needs no module h5proxy does not.
	copyFile(t, filepath.Join(e.root, "go.sum"), filepath.Join(dir, "go.sum"))
	writeFile(t, filepath.Join(dir, "main.go"), b.text)
	e.run(t, dir, "go build -o snippet .", "GOFLAGS=-mod=mod")
	out := e.run(t, dir, mpirun(2)+" ./snippet")
	expect(t, "Go snippet", out, `(?s)Mode: SYNC.*Total number of ranks: 2.*Total write size: 64\.000 MB.*Verification: OK`)
	checkParticles(t, dir)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(data))
}
