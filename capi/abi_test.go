//go:build cgo

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/h5proxy/h5proxy/proxy"
)

// The hand-written header is the contract; these tests keep the library, the cgo-generated
// header and the Fortran module from drifting away from it.

const (
	headerPath  = "../include/h5proxy.h"
	fortranPath = "../fortran/h5proxy.f90"
)

// proto is one C prototype: return type and parameter types, normalized.
type proto struct {
	ret    string
	params []string
}

func (p proto) String() string { return p.ret + " (" + strings.Join(p.params, ", ") + ")" }

var (
	commentRE = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	protoRE   = regexp.MustCompile(`(?:extern\s+)?((?:const\s+)?\w+\s*\**)\s*\b(h5proxy_\w+)\s*\(([^)]*)\)\s*;`)
	spaceRE   = regexp.MustCompile(`\s+`)
)

// normType reduces a C type to what the ABI depends on: const and parameter names go,
// MPI_Fint is int in OpenMPI (and what cgo writes for C.MPI_Fint).
func normType(decl string, param bool) string {
	decl = strings.TrimSpace(spaceRE.ReplaceAllString(decl, " "))
	decl = strings.ReplaceAll(decl, "const ", "")
	decl = strings.ReplaceAll(decl, "*", " * ")
	words := strings.Fields(decl)
	if param && len(words) > 1 && words[len(words)-1] != "*" {
		words = words[:len(words)-1] // the parameter's name
	}
	t := strings.Join(words, " ")
	t = strings.ReplaceAll(t, " *", "*")
	if t == "MPI_Fint" {
		t = "int"
	}
	return t
}

// parsePrototypes returns the h5proxy_ functions declared in C source text.
func parsePrototypes(t *testing.T, text string) map[string]proto {
	t.Helper()
	text = commentRE.ReplaceAllString(text, "")
	out := map[string]proto{}
	for _, m := range protoRE.FindAllStringSubmatch(text, -1) {
		p := proto{ret: normType(m[1], false)}
		if args := strings.TrimSpace(m[3]); args != "void" && args != "" {
			for _, a := range strings.Split(args, ",") {
				p.params = append(p.params, normType(a, true))
			}
		}
		if _, dup := out[m[2]]; dup {
			t.Errorf("%s declared twice", m[2])
		}
		out[m[2]] = p
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHeaderMatchesGenerated checks that the cgo-generated header declares exactly the
// functions of include/h5proxy.h, with the same types.
//
// The generated header is the one `go build -buildmode=c-archive` (and c-shared) installs
// beside the library: cmd/go writes it by running cmd/cgo with -exportheader on the main
// package, and copies it. exportHeader runs that same generator on this package alone,
// with the package's cgo flags, which gives the same text (prototypes and preamble, checked
// against the c-archive's header with diff, 2026-11-30) in seconds: the c-archive build it
// replaces linked the archive and ran cgo again for every package with C. The test took
// 22-35 s with that build (a warm build cache, as after cmake-test), 2.2-2.6 s with this
// (`go test -count=1 -run '^TestHeaderMatchesGenerated$' ./capi` in `make env`, 3 runs
// each, interleaved, load 6, 2026-11-30).
// That the archive builds is CMake's check: libh5proxy.a, built by cmake-test in both
// suites and linked by ctest's static consumers.
func TestHeaderMatchesGenerated(t *testing.T) {
	gen := parsePrototypes(t, exportHeader(t))
	hand := parsePrototypes(t, readFile(t, headerPath))
	if len(hand) < 20 {
		t.Fatalf("parsed only %d prototypes from %s", len(hand), headerPath)
	}
	for name, h := range hand {
		g, ok := gen[name]
		switch {
		case !ok:
			t.Errorf("%s: declared in %s but not exported by the library", name, headerPath)
		case h.String() != g.String():
			t.Errorf("%s: header declares %s, library exports %s", name, h, g)
		}
	}
	for name := range gen {
		if _, ok := hand[name]; !ok {
			t.Errorf("%s: exported by the library but missing from %s", name, headerPath)
		}
	}
}

// exportHeader returns the header cmd/cgo generates for this package's exported
// functions, run as cmd/go runs it for a c-archive build: on the package's cgo files, with
// the import path, and the C flags of the environment (CGO_CPPFLAGS, CGO_CFLAGS), of the
// #cgo directives and of their pkg-config packages.
func exportHeader(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", ".").Output()
	if err != nil {
		t.Fatalf("go list -json .: %v", err)
	}
	var pkg struct {
		ImportPath                       string
		CgoFiles, CgoCPPFLAGS, CgoCFLAGS []string
		CgoPkgConfig                     []string
	}
	if err := json.Unmarshal(out, &pkg); err != nil {
		t.Fatal(err)
	}
	if len(pkg.CgoFiles) == 0 {
		t.Fatal("go list: the package has no cgo file")
	}
	var flags []string
	for _, v := range []string{"CGO_CPPFLAGS", "CGO_CFLAGS"} {
		val, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", v, err)
		}
		flags = append(flags, strings.Fields(string(val))...)
	}
	flags = append(flags, pkg.CgoCPPFLAGS...)
	flags = append(flags, pkg.CgoCFLAGS...)
	if len(pkg.CgoPkgConfig) > 0 {
		pc := os.Getenv("PKG_CONFIG")
		if pc == "" {
			pc = "pkg-config"
		}
		out, err := exec.Command(pc, append([]string{"--cflags", "--"}, pkg.CgoPkgConfig...)...).Output()
		if err != nil {
			t.Fatalf("%s --cflags %s: %v", pc, strings.Join(pkg.CgoPkgConfig, " "), err)
		}
		flags = append(flags, strings.Fields(string(out))...)
	}
	dir := t.TempDir()
	header := filepath.Join(dir, "libh5proxy.h")
	args := append([]string{"tool", "cgo", "-objdir", dir, "-importpath", pkg.ImportPath, "-exportheader", header, "--"}, flags...)
	cmd := exec.Command("go", append(args, pkg.CgoFiles...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go tool cgo -exportheader: %v\n%s", err, out)
	}
	return readFile(t, header)
}

var (
	enumRE   = regexp.MustCompile(`\b(H5PROXY_\w+)\s*=\s*(-?\d+)`)
	defineRE = regexp.MustCompile(`(?m)^#define\s+(H5PROXY_\w+)\s+(-?\d+)`)
	fparamRE = regexp.MustCompile(`(?im)^\s*integer\(c_int\),\s*parameter,\s*public\s*::\s*(H5PROXY_\w+)\s*=\s*(-?\d+)`)
	fbindRE  = regexp.MustCompile(`bind\(C,\s*name="(\w+)"\)`)
)

// headerConstants returns the numeric enum constants and macros of the header.
func headerConstants(t *testing.T) map[string]int {
	t.Helper()
	text := commentRE.ReplaceAllString(readFile(t, headerPath), "")
	out := map[string]int{}
	for _, re := range []*regexp.Regexp{enumRE, defineRE} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			v, err := strconv.Atoi(m[2])
			if err != nil {
				t.Fatal(err)
			}
			out[m[1]] = v
		}
	}
	return out
}

// TestConstants checks the status codes, phases and versions of the header against the
// Go side and the proxy version.
func TestConstants(t *testing.T) {
	h := headerConstants(t)
	for code, name := range statusNames {
		if v, ok := h[name]; !ok || v != int(code) {
			t.Errorf("%s: header has %d (present %v), Go has %d", name, v, ok, code)
		}
	}
	n := 0
	for name := range h {
		if strings.HasPrefix(name, "H5PROXY_ERR_") || name == "H5PROXY_OK" {
			n++
		}
	}
	if n != len(statusNames) {
		t.Errorf("header has %d status codes, Go knows %d", n, len(statusNames))
	}
	want := map[string]int{"H5PROXY_PHASE_WRITE": phaseWrite, "H5PROXY_PHASE_READ": phaseRead, "H5PROXY_ABI_VERSION": abiVersion}
	for name, v := range want {
		if h[name] != v {
			t.Errorf("%s: header has %d, Go has %d", name, h[name], v)
		}
	}
	version := fmt.Sprintf("%d.%d.%d", h["H5PROXY_VERSION_MAJOR"], h["H5PROXY_VERSION_MINOR"], h["H5PROXY_VERSION_PATCH"])
	if version != proxy.Version {
		t.Errorf("header version %s, proxy.Version %s", version, proxy.Version)
	}
}

// TestFortranModule checks that the Fortran module's constants are the header's (names
// and values) and that it binds only functions the header declares.
func TestFortranModule(t *testing.T) {
	h := headerConstants(t)
	src := readFile(t, fortranPath)
	f := map[string]int{}
	for _, m := range fparamRE.FindAllStringSubmatch(src, -1) {
		v, _ := strconv.Atoi(m[2])
		f[strings.ToUpper(m[1])] = v
	}
	for name, v := range h {
		if fv, ok := f[name]; !ok || fv != v {
			t.Errorf("%s: header has %d, Fortran module has %d (present %v)", name, v, fv, ok)
		}
	}
	for name := range f {
		if _, ok := h[name]; !ok {
			t.Errorf("%s: in the Fortran module but not in the header", name)
		}
	}
	hand := parsePrototypes(t, readFile(t, headerPath))
	var bound []string
	for _, m := range fbindRE.FindAllStringSubmatch(src, -1) {
		if m[1] == "strlen" {
			continue
		}
		bound = append(bound, m[1])
		if _, ok := hand[m[1]]; !ok {
			t.Errorf("Fortran binds %s, which the header does not declare", m[1])
		}
	}
	// Every function is reachable from Fortran except those taking a C MPI_Comm or
	// returning a pointer to a C string (wrapped through their copy variants).
	for name := range hand {
		switch name {
		case "h5proxy_session_create", "h5proxy_last_error":
			continue
		}
		if !slices.Contains(bound, name) {
			t.Errorf("%s has no Fortran binding", name)
		}
	}
}
