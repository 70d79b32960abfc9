# Building Go packages from CMake: the sources a build depends on, and a custom command
# running `go build`.

# h5proxy_go_sources(<var>): the Go module's non-test sources (Go, C and headers of the
# packages linked into libh5proxy and the examples) plus go.mod/go.sum and the public
# header, for DEPENDS. CONFIGURE_DEPENDS re-globs at build time, so new files count.
function(h5proxy_go_sources var)
  set(root ${PROJECT_SOURCE_DIR})
  set(globs)
  foreach(dir capi proxy patterns options emulate internal examples/go)
    list(APPEND globs ${root}/${dir}/*.go ${root}/${dir}/*.c ${root}/${dir}/*.h)
  endforeach()
  file(GLOB_RECURSE files CONFIGURE_DEPENDS ${globs})
  list(FILTER files EXCLUDE REGEX "_test\\.go$")
  list(APPEND files ${root}/go.mod ${root}/go.sum ${root}/include/h5proxy.h)
  set(${var} ${files} PARENT_SCOPE)
endfunction()

# h5proxy_go_build(OUTPUT <file> BUILDMODE <mode> PACKAGE <pkg> [LDFLAGS <flags>]
#                  [DEPENDS <files>...] [SYMLINK <link>])
# Runs `go build -buildmode=<mode> -o <file> <pkg>` in the module root whenever a
# dependency changed, with the HDF5 the project configured (PKG_CONFIG_PATH, CGO_CFLAGS,
# CGO_LDFLAGS from CMakeLists.txt), whatever the caller's environment says. SYMLINK additionally creates <link> pointing to <file>.
function(h5proxy_go_build)
  cmake_parse_arguments(GB "" "OUTPUT;BUILDMODE;PACKAGE;LDFLAGS;SYMLINK" "DEPENDS" ${ARGN})
  set(cmd ${GO_EXECUTABLE} build -buildmode=${GB_BUILDMODE})
  if(GB_LDFLAGS)
    list(APPEND cmd "-ldflags=${GB_LDFLAGS}")
  endif()
  list(APPEND cmd -o ${GB_OUTPUT} ${GB_PACKAGE})
  set(outputs ${GB_OUTPUT})
  set(extra)
  if(GB_SYMLINK)
    get_filename_component(target_name ${GB_OUTPUT} NAME)
    list(APPEND outputs ${GB_SYMLINK})
    set(extra COMMAND ${CMAKE_COMMAND} -E create_symlink ${target_name} ${GB_SYMLINK})
  endif()
  get_filename_component(out_name ${GB_OUTPUT} NAME)
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${CMAKE_COMMAND} -E env CGO_ENABLED=1 "PKG_CONFIG_PATH=${H5PROXY_PKG_CONFIG_PATH}"
            "CGO_CFLAGS=${H5PROXY_CGO_CFLAGS}" "CGO_LDFLAGS=${H5PROXY_CGO_LDFLAGS}" ${cmd}
    ${extra}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    DEPENDS ${GB_DEPENDS}
    COMMENT "go build -buildmode=${GB_BUILDMODE} ${GB_PACKAGE} -> ${out_name}"
    VERBATIM)
endfunction()
