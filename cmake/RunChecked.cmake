# Runs a command and checks its results: exit status 0 and every EXPECT regular
# expression found in its standard output.
#   cmake -DCMD=<a|b|c> -DEXPECT=<re1|re2> [-DSCRATCH=<dir>] -P RunChecked.cmake
# Arguments are '|'-separated (ctest would split ';').
string(REPLACE "|" ";" cmd "${CMD}")
string(REPLACE "|" ";" expect "${EXPECT}")
if(SCRATCH)
  file(REMOVE_RECURSE "${SCRATCH}")
  file(MAKE_DIRECTORY "${SCRATCH}")
endif()
string(REPLACE ";" " " shown "${cmd}")
message("running: ${shown}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("---- stdout ----\n${out}---- stderr ----\n${err}----------------")
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "exit status ${rc}, want 0")
endif()
foreach(re IN LISTS expect)
  if(NOT out MATCHES "${re}")
    message(FATAL_ERROR "standard output lacks a line matching: ${re}")
  endif()
endforeach()
