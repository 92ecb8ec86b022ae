# Fails if BINARY (the shipped safespec) carries test code: any RapidCheck
# (rc::) or Catch2 (Catch::) symbol in `nm -C`. Also fails on a binary without
# symbols, where the check would prove nothing.
#   -DBINARY=path
execute_process(COMMAND nm -C ${BINARY} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm -C ${BINARY} failed: ${rc}")
endif()
string(FIND "${symbols}" "safespec::" found)
if(found EQUAL -1)
  message(FATAL_ERROR "${BINARY}: no safespec:: symbol; is it stripped?")
endif()
foreach(marker IN ITEMS "rc::" "Catch::")
  # The namespace, not a name that ends in it (src::, Arc::).
  string(REGEX MATCHALL "[^\n]*[^A-Za-z0-9_\n]${marker}[^\n]*" hits "${symbols}")
  list(LENGTH hits count)
  if(count GREATER 0)
    list(GET hits 0 first)
    message(FATAL_ERROR "${BINARY} carries test code: ${count} symbols with ${marker}, e.g.\n${first}")
  endif()
endforeach()
message(STATUS "${BINARY}: no rc:: or Catch:: symbol")
