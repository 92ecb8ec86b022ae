# Regenerates the conformance suite with `safespec conformance generate` into
# SCRATCH and fails if it differs from corpus/conformance: the committed
# files are exactly what the command writes (issue 6).
file(REMOVE_RECURSE ${SCRATCH})
execute_process(COMMAND ${SAFESPEC} conformance generate ${SCRATCH} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "safespec conformance generate failed: ${rc}")
endif()
execute_process(COMMAND diff -r ${SOURCE}/corpus/conformance ${SCRATCH} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "corpus/conformance differs from what the command writes; run safespec conformance generate corpus/conformance")
endif()
