# Regenerates the golden vectors into SCRATCH and fails if they differ from
# corpus/vectors: the committed files are exactly what make_vectors writes.
file(REMOVE_RECURSE ${SCRATCH})
execute_process(COMMAND ${MAKE_VECTORS} ${SCRATCH} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_vectors failed: ${rc}")
endif()
execute_process(COMMAND diff -r ${SOURCE}/corpus/vectors ${SCRATCH} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "corpus/vectors differs from what make_vectors writes; run make_vectors corpus/vectors")
endif()
