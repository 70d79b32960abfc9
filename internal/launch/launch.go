package launch

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// EnvLauncher names the environment variable that replaces the default launcher, mpirun.
// Its value is split on white space.
const EnvLauncher = "H5PROXY_MPIEXEC"

// Launcher returns the argv prefix that launches n ranks, such as
// ["mpirun", "-np", "4"], and the "KEY=VALUE" variables to add to the launcher's
// environment. It fails if n < 1 or the launcher is not found.
func Launcher(n int) (argv []string, env []string, err error) {
	if n < 1 {
		return nil, nil, fmt.Errorf("launch: %d ranks requested, need at least 1", n)
	}
	argv = strings.Fields(os.Getenv(EnvLauncher))
	if len(argv) == 0 {
		argv = []string{"mpirun"}
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, nil, fmt.Errorf("launch: MPI launcher %q not found (install OpenMPI, e.g. apt-get install openmpi-bin, or set %s): %w",
			argv[0], EnvLauncher, err)
	}
	argv = append(argv, "-np", strconv.Itoa(n))
	env = []string{"OMPI_MCA_rmaps_base_oversubscribe=1"}
	if os.Getuid() == 0 {
		env = append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	return argv, env, nil
}
