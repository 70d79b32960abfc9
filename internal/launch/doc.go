// Package launch builds the command line that starts n MPI ranks on this machine, shared by
// the test helper (internal/mpitest) and the h5proxy command, so that both launch alike.
//
// The launcher is `mpirun` from PATH, or the words of $H5PROXY_MPIEXEC (for example
// "mpiexec --bind-to none", "srun --mpi=pmix"), followed by "-np N", or "-n N" for the
// site launchers that take that instead (srun, aprun, jsrun, flux: RankFlag). The environment additions let OpenMPI
// oversubscribe cores (OMPI_MCA_rmaps_base_oversubscribe=1, the variable h5bench's CI uses)
// and, only when the caller runs as root, run as root (OMPI_ALLOW_RUN_AS_ROOT and
// OMPI_ALLOW_RUN_AS_ROOT_CONFIRM). Variables are used rather than flags because other
// launchers ignore them instead of rejecting them.
//
//	argv, env, err := launch.Launcher(4)
//	if err != nil {
//		return err
//	}
//	cmd := exec.Command(argv[0], append(argv[1:], exe, "-config", path)...)
//	cmd.Env = append(os.Environ(), env...)
package launch
