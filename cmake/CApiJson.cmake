# The C API's safespec_report_json is what `safespec check --json` prints:
# both run on the same paths under one profile and their outputs must be
# byte for byte equal; for a single .safetensors path, check_bytes on its
# bytes (named as the path) must give the same document too.
#   -DCLI=safespec -DCAPI=c_api_test -DPROFILE=p -DPATHS=a,b
#   [-DCORRUPT=in -DSCRATCH=dir]: check IN with its header length made one
#   past the file (c_api_test --corrupt), written under SCRATCH.
string(REPLACE "," ";" paths "${PATHS}")
if(CORRUPT)
  file(MAKE_DIRECTORY ${SCRATCH})
  set(paths ${SCRATCH}/corrupt.safetensors)
  execute_process(COMMAND ${CAPI} --corrupt ${CORRUPT} ${paths} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "c_api_test --corrupt failed: ${rc}")
  endif()
endif()
execute_process(COMMAND ${CLI} check --json --profile ${PROFILE} ${paths} OUTPUT_VARIABLE from_cli RESULT_VARIABLE cli_rc)
# 0 clean, 1 findings, 2 unreadable: the report is printed in every case.
if(NOT cli_rc MATCHES "^[012]$")
  message(FATAL_ERROR "safespec check --json failed: ${cli_rc}")
endif()
set(modes --json)
list(LENGTH paths n)
if(n EQUAL 1 AND paths MATCHES "\\.safetensors$")
  list(APPEND modes --json-bytes)
endif()
foreach(mode IN LISTS modes)
  execute_process(COMMAND ${CAPI} ${mode} ${PROFILE} ${paths} OUTPUT_VARIABLE from_c RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "c_api_test ${mode} ${PROFILE} ${paths} failed: ${rc}")
  endif()
  if(NOT from_c STREQUAL from_cli)
    message(FATAL_ERROR "c_api_test ${mode} differs from safespec check --json --profile ${PROFILE} ${paths}:\n"
                        "CLI:   ${from_cli}\nC API: ${from_c}")
  endif()
endforeach()
message(STATUS "same JSON (${modes}) for ${paths}")
