# safespec as the implementation under test of its own runners, which it must
# pass at 100% under every profile: each profile's
# `check` against that profile's expectations, and `linear` against the
# golden vectors of both semantics, bit for bit. The suite's expectation is
# whether the consumer loads a file, so a mis-load passes: --fail-on error.
# Under sanitizers each of the 636 runs pays ASan's start-up, about 75 s a
# profile on 2 cores; strict alone still sends every file through the
# sanitized command, and the in-process test of every profile's expectations
# (unit_conformance_suite_test.cpp) runs there too.
set(own_suite_profiles safetensors sglang comfyui kitchen strict)
if(SAFESPEC_SANITIZE)
  set(own_suite_profiles strict)
endif()
foreach(profile IN LISTS own_suite_profiles)
  add_test(NAME conformance.own_suite_${profile}
           COMMAND safespec conformance run --suite ${PROJECT_SOURCE_DIR}/corpus/conformance --profile ${profile}
                   --impl "'$<TARGET_FILE:safespec>' check --profile ${profile} --fail-on error --data {file}")
  set_tests_properties(conformance.own_suite_${profile} PROPERTIES TIMEOUT 900)
endforeach()
foreach(semantics cuda eager)
  add_test(NAME conformance.own_vectors_${semantics}
           COMMAND safespec conformance numeric --vectors ${PROJECT_SOURCE_DIR}/corpus/vectors --semantics ${semantics}
                   --impl "'$<TARGET_FILE:safespec>' linear {checkpoint} --layer {layer} --input {input} --out {output} --semantics ${semantics}")
  set_tests_properties(conformance.own_vectors_${semantics} PROPERTIES TIMEOUT 300)
endforeach()
