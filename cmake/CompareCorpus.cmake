# Regenerates the corpus into SCRATCH and fails if it differs from the
# committed one: the committed files are exactly what make_corpus writes.
file(REMOVE_RECURSE ${SCRATCH})
execute_process(COMMAND ${MAKE_CORPUS} ${SCRATCH} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_corpus failed: ${rc}")
endif()
foreach(dir examples header_fuzzer differential_fuzzer marker_fuzzer checkpoint_fuzzer linear_fuzzer roundtrip_fuzzer index_fuzzer)
  execute_process(COMMAND diff -r ${SOURCE}/corpus/${dir} ${SCRATCH}/${dir} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "corpus/${dir} differs from what make_corpus writes; run make_corpus corpus")
  endif()
endforeach()
