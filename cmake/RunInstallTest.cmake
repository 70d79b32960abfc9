# Builds tests/install against an installed h5proxy, with find_package and with
# pkg-config, and runs the consumers under MPI.
#   cmake -DLAUNCH=<mpiexec|-n|2|...> -DPREFIX= -DLIBDIR= -DINCLUDEDIR= -DSOURCE= -DBUILD=
#         -DGENERATOR= -DC_COMPILER= -DFortran_COMPILER= -DMPI_Fortran_COMPILER=
#         -DPKG_CONFIG= -DMPIEXEC_EXECUTABLE= -DHDF5_LIBRARY= -DCHECK_HDF5=
#         -P RunInstallTest.cmake
string(REPLACE "|" ";" launch "${LAUNCH}")

# The installed tree: the public header, both libraries, the module, the package files,
# and never cgo's generated header.
foreach(f ${INCLUDEDIR}/h5proxy.h ${INCLUDEDIR}/h5proxy/fortran/h5proxy.mod
          ${LIBDIR}/libh5proxy.so ${LIBDIR}/libh5proxy.so.1 ${LIBDIR}/libh5proxy.a
          ${LIBDIR}/libh5proxy_fortran.a ${LIBDIR}/pkgconfig/h5proxy.pc ${LIBDIR}/pkgconfig/h5proxy-fortran.pc
          ${LIBDIR}/cmake/h5proxy/h5proxy-config.cmake ${LIBDIR}/cmake/h5proxy/h5proxy-config-version.cmake
          ${LIBDIR}/cmake/h5proxy/h5proxy-targets.cmake)
  if(NOT EXISTS ${PREFIX}/${f})
    message(FATAL_ERROR "installed tree lacks ${f}")
  endif()
endforeach()
file(GLOB_RECURSE generated ${PREFIX}/*libh5proxy.h)
if(generated)
  message(FATAL_ERROR "the cgo-generated header was installed: ${generated}")
endif()
if(NOT IS_SYMLINK ${PREFIX}/${LIBDIR}/libh5proxy.so)
  message(FATAL_ERROR "${LIBDIR}/libh5proxy.so should be a symlink to libh5proxy.so.1")
endif()

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${what}: exit ${rc}\n${out}\n${err}")
  endif()
  set(step_out "${out}" PARENT_SCOPE)
  message("${what}: ok")
endfunction()

function(run_consumer exe pattern)
  step("run ${exe}" ${launch} ${exe})
  if(NOT step_out MATCHES "${pattern}")
    message(FATAL_ERROR "${exe}: output lacks '${pattern}':\n${step_out}")
  endif()
endfunction()

# 1. find_package(h5proxy COMPONENTS C Fortran MPI)
file(REMOVE_RECURSE ${BUILD})
step("configure consumer" ${CMAKE_COMMAND} -S ${SOURCE} -B ${BUILD} -G ${GENERATOR}
  -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_C_COMPILER=${C_COMPILER}
  -DCMAKE_Fortran_COMPILER=${Fortran_COMPILER} -DMPIEXEC_EXECUTABLE=${MPIEXEC_EXECUTABLE})
step("build consumer" ${CMAKE_COMMAND} --build ${BUILD})
run_consumer(${BUILD}/consumer_c "consumer_c: 2 ranks, 12800 bytes: OK")
run_consumer(${BUILD}/consumer_c_static "consumer_c: 2 ranks, 12800 bytes: OK")
run_consumer(${BUILD}/consumer_umbrella "consumer_c: 2 ranks, 12800 bytes: OK")
run_consumer(${BUILD}/consumer_f "consumer_f: 2 ranks, 12800. bytes: OK")

# The static consumer carries the library: no libh5proxy.so at run time.
execute_process(COMMAND ldd ${BUILD}/consumer_c_static OUTPUT_VARIABLE deps)
if(deps MATCHES "libh5proxy")
  message(FATAL_ERROR "consumer_c_static depends on a shared libh5proxy:\n${deps}")
endif()

# 2. pkg-config, with the plain C compiler (MPI comes through Requires).
set(pcenv ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${PREFIX}/${LIBDIR}/pkgconfig)
step("pkg-config --modversion" ${pcenv} ${PKG_CONFIG} --modversion h5proxy)
if(NOT step_out MATCHES "^0\\.1\\.0")
  message(FATAL_ERROR "pkg-config --modversion h5proxy: ${step_out}")
endif()
step("pkg-config --static --libs" ${pcenv} ${PKG_CONFIG} --static --libs h5proxy)
if(NOT step_out MATCHES "-lh5proxy" OR NOT step_out MATCHES "-lhdf5" OR NOT step_out MATCHES "-lmpi")
  message(FATAL_ERROR "pkg-config --static --libs h5proxy lacks -lh5proxy/-lhdf5/-lmpi: ${step_out}")
endif()
step("pkg-config --cflags --libs" ${pcenv} ${PKG_CONFIG} --cflags --libs h5proxy)
separate_arguments(pcflags UNIX_COMMAND "${step_out}")
# No -Wl,-rpath of our own: the .pc file's Libs carries it, so the program finds
# libh5proxy.so.1 in this non-system prefix at run time.
step("compile consumer with pkg-config" ${C_COMPILER} -Wall -Wextra -Werror ${SOURCE}/consumer.c
  ${pcflags} -o ${BUILD}/consumer_pc)
run_consumer(${BUILD}/consumer_pc "consumer_c: 2 ranks, 12800 bytes: OK")

# 3. Plain mpif90 with h5proxy-fortran.pc (module directory, both libraries, rpath).
step("pkg-config --cflags --libs h5proxy-fortran" ${pcenv} ${PKG_CONFIG} --cflags --libs h5proxy-fortran)
separate_arguments(pcfflags UNIX_COMMAND "${step_out}")
step("compile Fortran consumer with mpif90 and pkg-config" ${MPI_Fortran_COMPILER} -Wall -Werror
  ${SOURCE}/consumer.f90 ${pcfflags} -o ${BUILD}/consumer_f_pc)
run_consumer(${BUILD}/consumer_f_pc "consumer_f: 2 ranks, 12800. bytes: OK")

# 4. A project that enables only Fortran: find_package(h5proxy COMPONENTS Fortran).
set(fbuild ${BUILD}-fortran-only)
file(REMOVE_RECURSE ${fbuild})
step("configure Fortran-only consumer" ${CMAKE_COMMAND} -S ${SOURCE}/fortran-only -B ${fbuild} -G ${GENERATOR}
  -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_Fortran_COMPILER=${Fortran_COMPILER}
  -DMPIEXEC_EXECUTABLE=${MPIEXEC_EXECUTABLE})
step("build Fortran-only consumer" ${CMAKE_COMMAND} --build ${fbuild})
run_consumer(${fbuild}/consumer_f_only "consumer_f: 2 ranks, 12800. bytes: OK")

# 5. Every consumer, whichever way it was built, loads exactly the HDF5 h5proxy was built
# against (scripts/check-hdf5.sh), never a second one.
step("one HDF5 in every consumer" bash ${CHECK_HDF5} ${HDF5_LIBRARY} ${BUILD}/consumer_c ${BUILD}/consumer_c_static
  ${BUILD}/consumer_umbrella ${BUILD}/consumer_f ${BUILD}/consumer_pc ${BUILD}/consumer_f_pc ${fbuild}/consumer_f_only)
