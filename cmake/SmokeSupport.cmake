# What the package smoke tests (cmake/InstallSmoke.cmake,
# cmake/SharedSmoke.cmake) share: running a step that must succeed, and
# running a built consumer on a file with its exit status and output checked.
# Both run from ${SCRATCH}/elsewhere, a directory with no corpus/ in it.

# Runs the command; a non-zero exit fails the test with its output.
# last_out: its standard output.
function(run_ok what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${SCRATCH}/elsewhere)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_out "${out}" PARENT_SCOPE)
endfunction()

# A program's exit status and output on one file, against what is expected.
function(expect_run program file code needle)
  execute_process(COMMAND ${program} ${file} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${code}")
    message(FATAL_ERROR "${program} ${file}: exit ${rc}, expected ${code}\n${out}\n${err}")
  endif()
  string(FIND "${out}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${program} ${file}: expected '${needle}' in its output:\n${out}")
  endif()
endfunction()

# examples/consumer_c's two programs, built in ${dir}, on a valid and a broken example.
function(expect_consumers dir)
  set(valid ${SOURCE}/corpus/examples/tiny-llm.safetensors)
  set(broken ${SOURCE}/corpus/examples/bad/reject_F8_gap.safetensors)
  expect_run(${dir}consumer_c ${valid} 0 "tiny-llm.safetensors: ok, 0 findings")
  expect_run(${dir}consumer_c ${broken} 1 "ST-OFFSET-GAP at tensor 'a'")
  expect_run(${dir}consumer_cxx ${valid} 0 "\"ok\":true")
  expect_run(${dir}consumer_cxx ${broken} 1 "\"rule\":\"ST-OFFSET-GAP\"")
endfunction()
