# Installs the build tree BUILD into a fresh PREFIX (the install tests' fixture).
#   cmake -DBUILD=<build dir> -DPREFIX=<prefix> -P InstallTree.cmake
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD}" --prefix "${PREFIX}" RESULT_VARIABLE rc)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "cmake --install ${BUILD} --prefix ${PREFIX}: exit ${rc}")
endif()
