# ctest tests of the C ABI, the Fortran module and the installed package. Every MPI test
# runs through FindMPI's launcher:
#   MPIEXEC_EXECUTABLE MPIEXEC_NUMPROC_FLAG <n> MPIEXEC_PREFLAGS MPIEXEC_EXTRA_FLAGS <exe> MPIEXEC_POSTFLAGS <args>
# with PROCESSORS <n> and LABELS mpi, and through cmake/RunChecked.cmake, which requires
# exit status 0 and the result lines each program prints after checking its results.

set(_h5proxy_default_extra --oversubscribe)
execute_process(COMMAND id -u OUTPUT_VARIABLE _h5proxy_uid OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(_h5proxy_uid STREQUAL "0")
  list(APPEND _h5proxy_default_extra --allow-run-as-root)
endif()
string(REPLACE ";" " " _h5proxy_default_extra "${_h5proxy_default_extra}")
set(MPIEXEC_EXTRA_FLAGS "${_h5proxy_default_extra}" CACHE STRING
  "Extra launcher flags for the tests (default: oversubscribe; run as root only when root)")
separate_arguments(_h5proxy_extra UNIX_COMMAND "${MPIEXEC_EXTRA_FLAGS}")
set(H5PROXY_RANK_COUNTS 1 2 4 CACHE STRING "Rank counts of the MPI tests")
set(H5PROXY_TEST_DIR ${PROJECT_BINARY_DIR}/test-output)

# The tools of the HDF5 the project builds against: the prefix's with H5PROXY_HDF5_PREFIX,
# else the system's (hdf5-tools). A file the 1.14 build writes must also be readable by the
# system's 1.10.8 h5dump (the file format's default lower bound): H5DUMP_SYSTEM checks that.
if(H5PROXY_HDF5_PREFIX)
  set(_h5proxy_tool_hints HINTS ${H5PROXY_HDF5_PREFIX}/bin NO_DEFAULT_PATH)
  find_program(H5DUMP_SYSTEM h5dump PATHS /usr/bin NO_DEFAULT_PATH REQUIRED DOC "The system's h5dump (hdf5-tools 1.10.8)")
endif()
find_program(H5DIFF_EXECUTABLE h5diff ${_h5proxy_tool_hints} REQUIRED DOC "h5diff of the build's HDF5, for the C/Fortran/Go comparison")
find_program(H5DUMP_EXECUTABLE h5dump ${_h5proxy_tool_hints} REQUIRED DOC "h5dump of the build's HDF5")
find_program(PKG_CONFIG_EXECUTABLE_FOR_TESTS NAMES pkg-config pkgconf REQUIRED)

# The Go counterpart of the C simulation, for the comparison test.
set(H5PROXY_GO_SIMULATION ${PROJECT_BINARY_DIR}/simulation_go)
h5proxy_go_build(OUTPUT ${H5PROXY_GO_SIMULATION} BUILDMODE exe PACKAGE ./examples/go/simulation
  DEPENDS ${H5PROXY_GO_SOURCES})
add_custom_target(h5proxy_go_simulation ALL DEPENDS ${H5PROXY_GO_SIMULATION})

# _h5proxy_launch(<var> <np>): the launcher prefix for np ranks, '|'-joined for -D.
function(_h5proxy_launch var np)
  set(l ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS} ${_h5proxy_extra})
  string(REPLACE ";" "|" l "${l}")
  set(${var} "${l}" PARENT_SCOPE)
endfunction()

# h5proxy_add_mpi_test(NAME <name> NP <n> COMMAND <exe> [args...] EXPECT <regex>...
#                      [SCRATCH <dir>])
# Adds test <name>_np<n>. SCRATCH is emptied and created before the run.
function(h5proxy_add_mpi_test)
  cmake_parse_arguments(T "" "NAME;NP;SCRATCH" "COMMAND;EXPECT" ${ARGN})
  _h5proxy_launch(launch ${T_NP})
  list(GET T_COMMAND 0 exe)
  list(REMOVE_AT T_COMMAND 0)
  set(cmd "${launch}|${exe}")
  foreach(a ${MPIEXEC_POSTFLAGS} ${T_COMMAND})
    string(APPEND cmd "|${a}")
  endforeach()
  string(REPLACE ";" "|" expect "${T_EXPECT}")
  add_test(NAME ${T_NAME}_np${T_NP}
    COMMAND ${CMAKE_COMMAND} "-DCMD=${cmd}" "-DEXPECT=${expect}" "-DSCRATCH=${T_SCRATCH}"
            -P ${PROJECT_SOURCE_DIR}/cmake/RunChecked.cmake)
  set_tests_properties(${T_NAME}_np${T_NP} PROPERTIES PROCESSORS ${T_NP} LABELS mpi TIMEOUT 120)
endfunction()

foreach(np ${H5PROXY_RANK_COUNTS})
  h5proxy_add_mpi_test(NAME c_simulation NP ${np}
    COMMAND $<TARGET_FILE:simulation> ${H5PROXY_TEST_DIR}/c-simulation-np${np}/particles.h5
    SCRATCH ${H5PROXY_TEST_DIR}/c-simulation-np${np}
    EXPECT "Mode: SYNC" "Total number of ranks: ${np}" "Verification: OK"
           "simulation: ${np} ranks, thread level 3, .*: all checks passed")
  h5proxy_add_mpi_test(NAME fortran_simulation NP ${np}
    COMMAND $<TARGET_FILE:simulation_f> ${H5PROXY_TEST_DIR}/f-simulation-np${np}/particles.h5
    SCRATCH ${H5PROXY_TEST_DIR}/f-simulation-np${np}
    EXPECT "Total number of ranks: ${np}" "Verification: OK"
           "simulation_f: ${np} ranks, thread level 3, .*: all checks passed")
  h5proxy_add_mpi_test(NAME c_plain_writer NP ${np}
    COMMAND $<TARGET_FILE:plain_writer> ${H5PROXY_TEST_DIR}/plain-writer-np${np}/field.h5 2 64
    SCRATCH ${H5PROXY_TEST_DIR}/plain-writer-np${np}
    EXPECT "plain_writer: ${np} ranks, 2 steps written")
  h5proxy_add_mpi_test(NAME c_misuse NP ${np}
    COMMAND $<TARGET_FILE:misuse> ${H5PROXY_TEST_DIR}/misuse-np${np}
    SCRATCH ${H5PROXY_TEST_DIR}/misuse-np${np}
    EXPECT "misuse: rank 0 of ${np}: [0-9]+ checks, all passed")
endforeach()

# The patterns without an example of their own, and an application description
# (examples/apps/particles.yaml: pattern app), from C and from Fortran, through the
# generic runner (examples/c/run_pattern.c, examples/fortran/run_pattern.f90): every phase
# moves bytes and every verified read matches.
set(_h5proxy_run_patterns
  "h5perf_phdf5 h5perf api=phdf5 num-bytes=1M xfer-size=256K block-size=64K interleaved=true collective=true num-iterations=2 num-dsets=2"
  "h5perf_mpiio h5perf api=mpiio layout=mpiio num-bytes=1M xfer-size=256K block-size=128K collective=true num-iterations=2"
  "h5perf_posix h5perf api=posix layout=posix num-bytes=1K xfer-size=512 geometry=true block-size=256"
  "ior_hdf5 ior api=HDF5 blockSize=1M transferSize=256K segmentCount=2 collective=1 repetitions=2 writeFile=1 readFile=1 checkRead=1"
  "ior_posix ior api=POSIX layout=posix blockSize=1M transferSize=256K filePerProc=1 reorderTasks=1"
  "nova nova files=4 groups=20 datasets_per_group=6 datasets_2d=2"
  "macsio_sif macsio parallel_file_mode=SIF avg_num_parts=1.5 part_size=10000 vars_per_part=20 num_dumps=2 mdc=hdf5"
  "macsio_mif macsio 'parallel_file_mode=MIF 1' part_size=10000 vars_per_part=20 num_dumps=3 dataset_growth=1.5"
  "app app description=${PROJECT_SOURCE_DIR}/examples/apps/particles.yaml particles=4Ki steps=3 compute=0")
foreach(entry ${_h5proxy_run_patterns})
  separate_arguments(parts UNIX_COMMAND "${entry}")
  list(POP_FRONT parts tname pattern)
  foreach(lang c fortran)
    if(lang STREQUAL "c")
      set(exe run_pattern)
    else()
      set(exe run_pattern_f)
    endif()
    set(dir ${H5PROXY_TEST_DIR}/${lang}-pattern-${tname})
    h5proxy_add_mpi_test(NAME ${lang}_pattern_${tname} NP 2
      COMMAND $<TARGET_FILE:${exe}> ${pattern} file=${dir}/data ${parts}
      SCRATCH ${dir}
      EXPECT "${exe}: ${pattern}, 2 ranks, [1-9][0-9]* phases: all checks passed")
  endforeach()
endforeach()

h5proxy_add_mpi_test(NAME c_thread_level NP 2
  COMMAND $<TARGET_FILE:thread_level> ${H5PROXY_TEST_DIR}/thread-level
  SCRATCH ${H5PROXY_TEST_DIR}/thread-level
  EXPECT "thread_level: 2 ranks, thread level [012]: all checks passed")

# Reliability (docs/reliability.md): 12 sessions per layout x mode here, 1,000 in `make leaks`.
# Every layout x mode the build can run (30 on 1.10; 35 with HDF5 1.14's subfiling VFD, 40
# when the log-based VOL is on HDF5_PLUGIN_PATH too: leaks_c checks that the layouts it
# leaves out are refused as unsupported).
h5proxy_add_mpi_test(NAME c_leaks NP 1
  COMMAND $<TARGET_FILE:leaks_c> ${H5PROXY_TEST_DIR}/leaks 12
  SCRATCH ${H5PROXY_TEST_DIR}/leaks
  EXPECT "leaks_c: 12 sessions x (30)?(35)?(40)?: all checks passed")
h5proxy_add_mpi_test(NAME c_threads NP 1
  COMMAND $<TARGET_FILE:threads_c> ${H5PROXY_TEST_DIR}/threads
  SCRATCH ${H5PROXY_TEST_DIR}/threads
  EXPECT "threads_c: one session, two threads: .* refused as in use" "threads_c: [0-9]+ checks, all passed")

h5proxy_add_mpi_test(NAME c_simulation_static NP 2
  COMMAND $<TARGET_FILE:simulation_static> ${H5PROXY_TEST_DIR}/c-static/particles.h5
  SCRATCH ${H5PROXY_TEST_DIR}/c-static
  EXPECT "Verification: OK" "simulation: 2 ranks, .*: all checks passed")

# A rank killed (SIGKILL) in the middle of a write phase: the job ends within 30 s, and
# the launcher's message names the lost rank (docs/reliability.md, "Killed rank").
_h5proxy_launch(launch_killed 2)
add_test(NAME c_killed_rank_np2
  COMMAND ${CMAKE_COMMAND} "-DCMD=${launch_killed}|$<TARGET_FILE:killed_rank>|${H5PROXY_TEST_DIR}/killed-rank/killed.h5"
          "-DEXPECT=rank 1 kills itself|process rank 1 .*exited on signal 9" -DFAIL=1 -DTIMEOUT=30
          -DSCRATCH=${H5PROXY_TEST_DIR}/killed-rank -P ${PROJECT_SOURCE_DIR}/cmake/RunChecked.cmake)
set_tests_properties(c_killed_rank_np2 PROPERTIES PROCESSORS 2 LABELS mpi TIMEOUT 60)

if(TARGET header_cxx)
  add_test(NAME header_cxx COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:header_cxx>"
    "-DEXPECT=from C\\+\\+: OK" -P ${PROJECT_SOURCE_DIR}/cmake/RunChecked.cmake)
endif()

# C, Fortran and Go write the same file for the same options (h5diff exit 0), and a
# different seed makes h5diff find differences (exit 1): the comparison sees the data.
_h5proxy_launch(launch2 2)
add_test(NAME compare_c_fortran_go_np2
  COMMAND ${CMAKE_COMMAND} "-DLAUNCH=${launch2}" -DC_SIM=$<TARGET_FILE:simulation>
          -DF_SIM=$<TARGET_FILE:simulation_f> -DGO_SIM=${H5PROXY_GO_SIMULATION}
          -DH5DIFF=${H5DIFF_EXECUTABLE} -DH5DUMP=${H5DUMP_EXECUTABLE} -DH5DUMP_SYSTEM=${H5DUMP_SYSTEM}
          -DDIR=${H5PROXY_TEST_DIR}/compare -P ${PROJECT_SOURCE_DIR}/cmake/RunCompare.cmake)
set_tests_properties(compare_c_fortran_go_np2 PROPERTIES PROCESSORS 2 LABELS mpi TIMEOUT 180)

# Two HDF5 libraries never load into one process: libh5proxy.so and the C, Fortran, static
# and Go programs each load exactly the HDF5 the project was configured with
# (scripts/check-hdf5.sh reads their ldd).
add_test(NAME hdf5_one_library
  COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/check-hdf5.sh ${H5PROXY_HDF5_LIBRARY} ${H5PROXY_SHARED}
          $<TARGET_FILE:simulation> $<TARGET_FILE:simulation_f> $<TARGET_FILE:simulation_static>
          $<TARGET_FILE:run_pattern> $<TARGET_FILE:run_pattern_f> ${H5PROXY_GO_SIMULATION})
set_tests_properties(hdf5_one_library PROPERTIES TIMEOUT 60)

# The installed tree: install into a prefix inside the build directory, then build the
# consumer project tests/install against it with find_package and with pkg-config.
set(H5PROXY_TEST_PREFIX ${PROJECT_BINARY_DIR}/test-install)
add_test(NAME install_tree
  COMMAND ${CMAKE_COMMAND} -DBUILD=${PROJECT_BINARY_DIR} -DPREFIX=${H5PROXY_TEST_PREFIX}
          -P ${PROJECT_SOURCE_DIR}/cmake/InstallTree.cmake)
set_tests_properties(install_tree PROPERTIES FIXTURES_SETUP h5proxy_installed TIMEOUT 60)
add_test(NAME install_consumer_np2
  COMMAND ${CMAKE_COMMAND} "-DLAUNCH=${launch2}" -DPREFIX=${H5PROXY_TEST_PREFIX}
          -DLIBDIR=${CMAKE_INSTALL_LIBDIR} -DINCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR}
          -DSOURCE=${PROJECT_SOURCE_DIR}/tests/install -DBUILD=${PROJECT_BINARY_DIR}/install-consumer
          "-DGENERATOR=${CMAKE_GENERATOR}" -DC_COMPILER=${CMAKE_C_COMPILER}
          -DFortran_COMPILER=${CMAKE_Fortran_COMPILER} -DMPI_Fortran_COMPILER=${MPI_Fortran_COMPILER}
          -DPKG_CONFIG=${PKG_CONFIG_EXECUTABLE_FOR_TESTS}
          -DMPIEXEC_EXECUTABLE=${MPIEXEC_EXECUTABLE}
          -DHDF5_LIBRARY=${H5PROXY_HDF5_LIBRARY} -DCHECK_HDF5=${PROJECT_SOURCE_DIR}/scripts/check-hdf5.sh
          -P ${PROJECT_SOURCE_DIR}/cmake/RunInstallTest.cmake)
set_tests_properties(install_consumer_np2 PROPERTIES FIXTURES_REQUIRED h5proxy_installed
  PROCESSORS 2 LABELS "mpi;install" TIMEOUT 180)

# The C ABI benchmark (not a test): cmake --build <dir> --target bench-capi
_h5proxy_launch(launch1 1)
string(REPLACE "|" ";" launch1 "${launch1}")
add_custom_target(bench-capi
  COMMAND ${launch1} $<TARGET_FILE:bench_calls> ${MPIEXEC_POSTFLAGS}
  DEPENDS bench_calls
  COMMENT "C ABI call and per-phase overhead"
  USES_TERMINAL VERBATIM)
