package proxy_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/h5proxy/h5proxy/"

// listImports returns every package of the module with its non-test imports (go list).
func listImports(t *testing.T, deps bool, pkgs ...string) map[string][]string {
	t.Helper()
	args := []string{"list", "-f", `{{.ImportPath}} {{join .Imports " "}}`}
	if deps {
		args = []string{"list", "-deps", "-f", `{{.ImportPath}}`}
	}
	out, err := exec.Command("go", append(args, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		m[f[0]] = f[1:]
	}
	return m
}

// TestArchitecture keeps the package boundaries of docs/architecture.md.
func TestArchitecture(t *testing.T) {
	// The cgo bindings depend on plan only (and system packages).
	for _, b := range []string{"internal/h5", "internal/mpi"} {
		for dep := range listImports(t, true, module+b) {
			if strings.HasPrefix(dep, module) && dep != module+b && dep != module+"plan" {
				t.Errorf("%s depends on %s", b, dep)
			}
		}
	}
	apps := []string{"patterns/vpic", "patterns/amrex", "patterns/openpmd", "patterns/e3sm"}
	for pkg, imports := range listImports(t, false, "../...") {
		short := strings.TrimPrefix(pkg, module)
		for _, imp := range imports {
			app := slices.Contains(apps, strings.TrimPrefix(imp, module))
			if app && !appImporter(short) {
				t.Errorf("%s imports the application pattern %s (only patterns/all may)", short, imp)
			}
			// The tools stand beside the library: they use neither the session (proxy) nor
			// the patterns, and no pattern or library package uses them. The description
			// model (patterns/app/desc: pure data, its parser and its one writer) is the
			// exception: derive builds a description in it (architecture.md, wave 4).
			if strings.HasPrefix(short, "tools/") && imp != module+"patterns/app/desc" && (imp == module+"proxy" || strings.HasPrefix(imp, module+"proxy/") || strings.HasPrefix(imp, module+"patterns")) {
				t.Errorf("%s imports %s", short, imp)
			}
			if strings.HasPrefix(imp, module+"tools/") && !strings.HasPrefix(short, "cmd/") && !strings.HasPrefix(short, "bench/") && !strings.HasPrefix(short, "tools/") {
				t.Errorf("%s imports the tool %s", short, imp)
			}
			// Strategies register in package stack: only the strategies' own packages and
			// proxy/strategies.go name them.
			if strings.HasPrefix(imp, module+"proxy/layout/") || strings.HasPrefix(imp, module+"proxy/mode/") {
				if !strings.HasPrefix(short, "proxy/layout/") && !strings.HasPrefix(short, "proxy/mode/") && short != "proxy" && !strings.HasPrefix(short, "cmd/") {
					t.Errorf("%s imports the strategy package %s", short, imp)
				}
			}
		}
	}
}

// TestLayers pins the direction of the layers (go list): no package under patterns/ depends
// on the proxy or on what owns HDF5 and MPI (the cgo bindings), even indirectly, so the
// plan-making side does not know the proxy exists (the proxy hands the e3sm pattern its
// map reader); the C ABI sees the proxy's API only: it imports no pattern package (phases
// and pattern lookup are the session's words: proxy.Phase, proxy.PatternNames, ...).
func TestLayers(t *testing.T) {
	for pkg := range listImports(t, false, "../patterns/...") {
		for dep := range listImports(t, true, pkg) {
			short := strings.TrimPrefix(dep, module)
			if short == "proxy" || strings.HasPrefix(short, "proxy/") || short == "internal/h5" || short == "internal/mpi" || strings.HasPrefix(short, "tools/") {
				t.Errorf("%s depends on %s", strings.TrimPrefix(pkg, module), short)
			}
		}
	}
	for pkg, imports := range listImports(t, false, "../capi/...") {
		for _, imp := range imports {
			if short := strings.TrimPrefix(imp, module); short == "patterns" || strings.HasPrefix(short, "patterns/") {
				t.Errorf("%s imports the pattern package %s", strings.TrimPrefix(pkg, module), short)
			}
		}
	}
}

// appImporter reports whether pkg may import an application pattern package: the
// registration (patterns/all), the E3SM map reader (it builds e3sm.Map values), the
// h5bench adapters (each translates one application's h5bench entry), the description
// engine (its map decompositions read E3SM-IO map files through patterns/e3sm), benchmarks and
// examples. The library and its front ends (proxy, capi, cmd) may not.
func appImporter(pkg string) bool {
	switch {
	case pkg == "patterns/all", pkg == "proxy/e3smmap", pkg == "h5bench", pkg == "patterns/app",
		strings.HasPrefix(pkg, "bench/"), strings.HasPrefix(pkg, "examples/"):
		return true
	}
	return false
}
