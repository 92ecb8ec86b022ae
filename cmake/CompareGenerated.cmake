# Regenerates committed files into SCRATCH and fails unless they are exactly
# what the generator writes: `GENERATOR [ARGS...] SCRATCH`, then `diff -r` of
# COMMITTED against SCRATCH, or of each of DIRS (subdirectories, when the
# generator writes more than is committed under one root).
#   -DGENERATOR=exe -DARGS=a,b (optional) -DCOMMITTED=dir -DDIRS=x,y (optional)
#   -DSCRATCH=dir
string(REPLACE "," ";" args "${ARGS}")
string(REPLACE "," ";" dirs "${DIRS}")
get_filename_component(name ${GENERATOR} NAME)
string(REPLACE ";" " " shown_args "${args}")
file(REMOVE_RECURSE ${SCRATCH})
execute_process(COMMAND ${GENERATOR} ${args} ${SCRATCH} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${name} ${shown_args} failed: ${rc}")
endif()
set(paths "")
foreach(dir IN LISTS dirs)
  list(APPEND paths "/${dir}")
endforeach()
if(NOT dirs)
  set(paths "/")  # the whole of COMMITTED
endif()
foreach(path IN LISTS paths)
  execute_process(COMMAND diff -r ${COMMITTED}${path} ${SCRATCH}${path} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${COMMITTED}${path} differs from what ${name} ${shown_args} writes; run ${name} ${shown_args} ${COMMITTED}")
  endif()
endforeach()
