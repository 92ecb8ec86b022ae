# Fails if a comment in the tree cites one of the project's issue numbers
# ("issue 14", "Issue 15:"): a comment says what the code is for, which
# outlives the ticket that asked for it. Upstream issues are cited by their
# repository ("safetensors #849", a URL) and are not matched.
#   -DROOT=the source tree   [-DFILES=a;list to check instead, for the planted test]
set(folders spec src cli conformance gen tools fuzz bench props python include examples scripts cmake)
if(DEFINED FILES)
  set(files ${FILES})
else()
  set(files "")
  foreach(folder IN LISTS folders)
    file(GLOB_RECURSE found LIST_DIRECTORIES false
         ${ROOT}/${folder}/*.cpp ${ROOT}/${folder}/*.hpp ${ROOT}/${folder}/*.h ${ROOT}/${folder}/*.c
         ${ROOT}/${folder}/*.py ${ROOT}/${folder}/*.pyi ${ROOT}/${folder}/*.sh ${ROOT}/${folder}/*.cmake
         ${ROOT}/${folder}/CMakeLists.txt)
    list(APPEND files ${found})
  endforeach()
  list(APPEND files ${ROOT}/CMakeLists.txt)
endif()
set(hits "")
foreach(f IN LISTS files)
  file(STRINGS ${f} lines REGEX "(//|#|/\\*|^ *\\*).*[Ii]ssues? [0-9]+")
  foreach(line IN LISTS lines)
    # This file's own pattern and description are not citations.
    if(line MATCHES "\\[Ii\\]ssues" OR line MATCHES "\"issue 14\"")
      continue()
    endif()
    string(APPEND hits "${f}: ${line}\n")
  endforeach()
endforeach()
if(NOT hits STREQUAL "")
  message(FATAL_ERROR "comments cite issue numbers; say what the code is for instead:\n${hits}")
endif()
list(LENGTH files n)
message(STATUS "${n} files: no comment cites an issue number")
