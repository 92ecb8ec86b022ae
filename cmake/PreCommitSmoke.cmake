# The pre-commit hook (.pre-commit-hooks.yaml), proven by use: Debian's
# pre-commit runs it in a scratch git repository whose .pre-commit-config.yaml
# names this source tree at its HEAD commit (the hook as committed; pre-commit
# clones it once into a scratch home), with the built command first on PATH.
# A valid checkpoint passes, a broken one fails the hook with its finding, and
# a file that is no checkpoint is not given to it.
#   -DPRE_COMMIT= -DCLI= -DSOURCE= -DSCRATCH=
if(NOT PRE_COMMIT)
  message(FATAL_ERROR "pre-commit is not installed (scripts/setup.sh installs Debian's package); the hook is untested")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/SmokeSupport.cmake)
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH}/repo ${SCRATCH}/home ${SCRATCH}/elsewhere)
file(COPY_FILE ${SOURCE}/corpus/examples/tiny-llm.safetensors ${SCRATCH}/repo/good.safetensors)
file(COPY_FILE ${SOURCE}/corpus/examples/bad/reject_F8_gap.safetensors ${SCRATCH}/repo/gap.safetensors)
file(WRITE ${SCRATCH}/repo/notes.txt "not a checkpoint\n")
get_filename_component(cli_dir ${CLI} DIRECTORY)
# safe.directory: a checkout owned by another user (a CI container's) is still read.
set(env ${CMAKE_COMMAND} -E env "PATH=${cli_dir}:$ENV{PATH}" "PRE_COMMIT_HOME=${SCRATCH}/home" "SKIP=" "NO_COLOR=1"
        GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0=*)

run_ok("git init" git -C ${SCRATCH}/repo init -q)
# The hook is read from a commit, so the source must be a git checkout.
run_ok("git rev-parse HEAD in ${SOURCE}" git -c safe.directory=* -C ${SOURCE} rev-parse HEAD)
string(STRIP "${last_out}" head)
file(WRITE ${SCRATCH}/repo/.pre-commit-config.yaml
     "repos:\n- repo: ${SOURCE}\n  rev: ${head}\n  hooks:\n  - id: safespec-check\n")
run_ok("git add" git -C ${SCRATCH}/repo add .pre-commit-config.yaml good.safetensors gap.safetensors notes.txt)

# The hook on one staged file: its exit status, and a line its output must hold.
function(expect_hook file code needle)
  execute_process(COMMAND ${env} ${PRE_COMMIT} run safespec-check --color never --files ${file}
                  WORKING_DIRECTORY ${SCRATCH}/repo RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${code}")
    message(FATAL_ERROR "pre-commit on ${file}: exit ${rc}, expected ${code}\n${out}\n${err}")
  endif()
  string(FIND "${out}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "pre-commit on ${file}: expected '${needle}' in its output:\n${out}\n${err}")
  endif()
endfunction()
expect_hook(good.safetensors 0 "safespec check")
expect_hook(good.safetensors 0 "Passed")
expect_hook(gap.safetensors 1 "ST-OFFSET-GAP at tensor 'a'")
expect_hook(notes.txt 0 "(no files to check)Skipped")
