// Package preloadtest builds libh5proxy-profile.so for tests, from the same sources and with
// the same flags as the Makefile's rule: preload/profile-*.c (a core and one source per
// module over preload/profile.h), compiled against HDF5's and MPI's headers and linked with
// neither. Tests of the profiler and of the commands that run it build their own copy (the
// plain one once per test package: internal/profile, cmd/h5proxy, tests/corpus), so they
// never depend on a stale bin/.
package preloadtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Flags are the compiler flags of the Makefile's PROFILE_CFLAGS.
var Flags = []string{"-O2", "-g", "-fPIC", "-shared", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter"}

// Sources returns the library's C sources below the module root (the directory holding
// go.mod, searched upwards from the working directory), sorted as the Makefile sorts them.
func Sources() ([]string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, fmt.Errorf("preloadtest: no go.mod above the working directory")
		}
		dir = parent
	}
	srcs, err := filepath.Glob(filepath.Join(dir, "preload", "profile-*.c"))
	if err != nil {
		return nil, err
	}
	if len(srcs) == 0 {
		return nil, fmt.Errorf("preloadtest: no preload/profile-*.c in %s", dir)
	}
	return srcs, nil // Glob sorts
}

// Build compiles libh5proxy-profile.so at out with Flags, then extra (a -D to build for
// another HDF5, say); the error carries the compiler's output.
func Build(out string, extra ...string) error {
	srcs, err := Sources()
	if err != nil {
		return err
	}
	cflags, err := exec.Command("pkg-config", "--cflags", "hdf5-openmpi", "ompi").Output()
	if err != nil {
		return fmt.Errorf("pkg-config --cflags hdf5-openmpi ompi: %w", err)
	}
	args := append(append(append([]string{}, Flags...), extra...), strings.Fields(string(cflags))...)
	args = append(append(append(args, "-o", out), srcs...), "-ldl", "-lpthread")
	if b, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("cc %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return nil
}
