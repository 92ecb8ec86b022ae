# Regenerates the conformance suite into SCRATCH and fails if it differs from
# corpus/conformance: the committed files are exactly what make_conformance writes.
file(REMOVE_RECURSE ${SCRATCH})
execute_process(COMMAND ${MAKE_CONFORMANCE} ${SCRATCH} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_conformance failed: ${rc}")
endif()
execute_process(COMMAND diff -r ${SOURCE}/corpus/conformance ${SCRATCH} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "corpus/conformance differs from what make_conformance writes; run make_conformance corpus/conformance")
endif()
