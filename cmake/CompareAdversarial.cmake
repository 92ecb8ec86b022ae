# Regenerates corpus/adversarial into SCRATCH and fails if it differs from the
# committed one: the committed files and MANIFEST.tsv are exactly what
# make_adversarial writes.
file(REMOVE_RECURSE ${SCRATCH})
execute_process(COMMAND ${MAKE_ADVERSARIAL} ${SCRATCH} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_adversarial failed: ${rc}")
endif()
execute_process(COMMAND diff -r ${SOURCE}/corpus/adversarial ${SCRATCH} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "corpus/adversarial differs from what make_adversarial writes; run make_adversarial corpus/adversarial")
endif()
