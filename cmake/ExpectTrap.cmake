# A run that must fail: PROGRAM INPUT exits non-zero or dies of a signal (a
# trap), and its stderr holds EXPECT, so the failure is the one meant and not
# any crash. CTest's WILL_FAIL would not do: a test killed by a signal counts
# as failed whatever WILL_FAIL says.   -DPROGRAM=exe -DINPUT=file -DEXPECT=text
execute_process(COMMAND ${PROGRAM} ${INPUT} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(rc STREQUAL "0")
  message(FATAL_ERROR "${PROGRAM} ${INPUT} exited 0; expected it to trap with: ${EXPECT}")
endif()
string(FIND "${err}" "${EXPECT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${PROGRAM} ${INPUT} failed (${rc}) without saying: ${EXPECT}\nstderr:\n${err}")
endif()
message(STATUS "${PROGRAM} ${INPUT}: ${rc}, as expected")
