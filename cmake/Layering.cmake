# The layers, as the includes must respect them. Every folder that holds C or
# C++ sources has a row; a file takes the row whose path prefix is the
# longest match for its own path, and a source in a folder without a row
# fails the check, so a new folder must say where it stands.
#
#   path prefix | project prefixes its includes may start with ("!p": refused
#               even where a shorter prefix allows it) | third-party
#               libraries it may include | system headers it may include
#
# Checked: every #include "...", and every #include <...> whose first part
# is a project folder or one of the third-party libraries below; any other
# <...> is a system header, which only the last column restricts ("C++
# standard": names without a dot or a slash). A quoted include of a bare
# file name lying beside the including file (examples/toy_parser.h,
# props/c_check.h, numerics.h) stays in its folder and always passes.
set(layering_table
  # The specification reads as the spec and builds anywhere.
  "spec/             | spec/                                             |                      | C++ standard"
  # The library: files, reports, the commands' work. It never reaches the C
  # API built on it, nor anything above.
  "src/              | spec/ src/ !src/c_api/                            | fmt curl             | any"
  # simdjson has one user: the shard index's fallback reader, whose parse
  # errors are ST-INDEX-JSON's messages (README.md, Dependencies, says why).
  "src/parse/shard_index.cpp | spec/ src/ !src/c_api/                    | fmt simdjson curl    | any"
  # The C API's implementation: the public header it implements, the library under it.
  "src/c_api/        | spec/ src/ safespec/                              |                      | any"
  # The public C header, for any C99 compiler: its siblings and these two.
  "include/safespec/ |                                                   |                      | stddef.h stdint.h"
  # The generators, for the tests, the suite, tools and benchmarks.
  "gen/              | spec/ src/ gen/                                   | rapidcheck           | any"
  # The conformance runner, linked into the shipped command: never the generators.
  "conformance/      | spec/ src/ conformance/ !conformance/suite        |                      | any"
  "conformance/suite | spec/ src/ gen/ conformance/                      | rapidcheck           | any"
  # The shipped command, which carries no test code; safespec_generate alone writes the suite.
  "cli/              | spec/ src/ conformance/ !conformance/suite cli/   | CLI fmt              | any"
  "cli/generate_main | spec/ src/ conformance/ cli/                      | CLI                  | any"
  # Python is a client of the C API like any outside program, so the module
  # offers what C offers and the C API grows where Python needs more.
  "python/           | safespec/ python/                                 | pybind11             | any"
  # Above the libraries, and nothing includes them (props/ tests the tools' examples).
  "fuzz/             | spec/ src/ fuzz/                                  | fuzzer               | any"
  "tools/            | spec/ src/ gen/ tools/                            |                      | any"
  "bench/            | spec/ src/ gen/ bench/                            | benchmark            | any"
  "props/            | spec/ src/ gen/ conformance/ tools/ safespec/ props/ | rapidcheck catch2    | any"
  # Outside programs: the installed C header only.
  "examples/         | safespec/                                         |                      | any"
)
set(layering_third_party fmt simdjson curl CLI rapidcheck catch2 benchmark pybind11 fuzzer)
#   cmake -DROOT=<source dir> -P Layering.cmake
#   cmake -DROOT=<source dir> -DPLANTED=<file> -P Layering.cmake: each line of
#     FILE, "path: #include ...", is checked as if it were in that path, and
#     the run fails unless every one is refused and every row has one.

cmake_minimum_required(VERSION 3.20)  # if(IN_LIST)
set(layering_rows "")
set(layering_project_folders safespec)
foreach(row IN LISTS layering_table)
  if(NOT row MATCHES "^([^|]+)\\|([^|]*)\\|([^|]*)\\|([^|]*)$")
    message(FATAL_ERROR "cmake/Layering.cmake: a row that is not 'path | prefixes | libraries | system': ${row}")
  endif()
  string(STRIP "${CMAKE_MATCH_1}" key)
  separate_arguments(allowed UNIX_COMMAND "${CMAKE_MATCH_2}")
  separate_arguments(third UNIX_COMMAND "${CMAKE_MATCH_3}")
  string(STRIP "${CMAKE_MATCH_4}" system)
  list(APPEND layering_rows ${key})
  set(layering_allowed_${key} "")
  set(layering_refused_${key} "")
  foreach(p IN LISTS allowed)
    if(p MATCHES "^!(.+)")
      list(APPEND layering_refused_${key} ${CMAKE_MATCH_1})
    else()
      list(APPEND layering_allowed_${key} ${p})
    endif()
  endforeach()
  set(layering_third_${key} ${third})
  set(layering_system_${key} "${system}")
  string(REGEX REPLACE "/.*" "" top ${key})
  list(APPEND layering_project_folders ${top})
endforeach()
list(REMOVE_DUPLICATES layering_project_folders)

# out: the row whose prefix is the longest match for `path`, or "".
function(layering_row_of path out)
  set(best "")
  foreach(key IN LISTS layering_rows)
    string(FIND "${path}" "${key}" at)
    string(LENGTH "${key}" n)
    string(LENGTH "${best}" n_best)
    if(at EQUAL 0 AND n GREATER n_best)
      set(best ${key})
    endif()
  endforeach()
  set(${out} "${best}" PARENT_SCOPE)
endfunction()

# out: TRUE when `target` starts with one of `prefixes`.
function(layering_starts_with target prefixes out)
  foreach(p IN LISTS prefixes)
    string(FIND "${target}" "${p}" at)
    if(at EQUAL 0)
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} FALSE PARENT_SCOPE)
endfunction()

# out: why the include `line` in `path` (relative to ROOT) crosses the
# table, or "" when it does not.
function(layering_why path line out)
  set(${out} "" PARENT_SCOPE)
  layering_row_of(${path} key)
  if(key STREQUAL "")
    set(${out} "no row in cmake/Layering.cmake's table for this folder" PARENT_SCOPE)
    return()
  endif()
  if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*([<\"])([^>\"]+)[>\"]")
    return()
  endif()
  set(quoted "${CMAKE_MATCH_1}")
  set(target "${CMAKE_MATCH_2}")
  string(REGEX MATCH "^[A-Za-z0-9_]+" first "${target}")
  if(quoted STREQUAL "\"" OR (target MATCHES "/" AND first IN_LIST layering_project_folders))
    get_filename_component(dir ${path} DIRECTORY)
    if(quoted STREQUAL "\"" AND NOT target MATCHES "/" AND EXISTS ${ROOT}/${dir}/${target})
      return()
    endif()
    layering_starts_with("${target}" "${layering_allowed_${key}}" allowed)
    layering_starts_with("${target}" "${layering_refused_${key}}" refused)
    if(refused)
      list(JOIN layering_refused_${key} " " text)
      set(${out} "${key} may not include ${text}" PARENT_SCOPE)
    elseif(NOT allowed)
      list(JOIN layering_allowed_${key} " " text)
      if(text STREQUAL "")
        set(text "no project folder, only the files beside it")
      endif()
      set(${out} "${key} may include ${text}" PARENT_SCOPE)
    endif()
  elseif(first IN_LIST layering_third_party)
    if(NOT first IN_LIST layering_third_${key})
      set(${out} "${key} may not use ${first}" PARENT_SCOPE)
    endif()
  elseif(layering_system_${key} STREQUAL "C++ standard")
    if(NOT target MATCHES "^[a-z0-9_]+$")
      set(${out} "${key} uses the C++ standard library only" PARENT_SCOPE)
    endif()
  elseif(NOT layering_system_${key} STREQUAL "any")
    separate_arguments(headers UNIX_COMMAND "${layering_system_${key}}")
    if(NOT target IN_LIST headers)
      set(${out} "${key} includes ${layering_system_${key}} only" PARENT_SCOPE)
    endif()
  endif()
endfunction()

set(problems "")
if(DEFINED PLANTED)
  # Each planted include must be refused, and each row must have one.
  file(STRINGS ${PLANTED} planted REGEX "^[^ ]+: ")
  set(rows_planted "")
  foreach(entry IN LISTS planted)
    string(REGEX MATCH "^([^ ]+): (.*)$" _ "${entry}")
    set(path ${CMAKE_MATCH_1})
    set(line "${CMAKE_MATCH_2}")
    layering_why(${path} "${line}" why)
    if(why STREQUAL "")
      string(APPEND problems "  ${path}: ${line} (passed; it must be refused)\n")
    else()
      message(STATUS "refused, as it must be: ${path}: ${line} (${why})")
    endif()
    layering_row_of(${path} key)
    list(APPEND rows_planted "${key}")
  endforeach()
  foreach(key IN LISTS layering_rows)
    if(NOT key IN_LIST rows_planted)
      string(APPEND problems "  ${key}: no planted include in ${PLANTED}\n")
    endif()
  endforeach()
  if(problems)
    message(FATAL_ERROR "the layering check lets planted includes through:\n${problems}")
  endif()
  return()
endif()

file(GLOB tops LIST_DIRECTORIES true RELATIVE ${ROOT} ${ROOT}/*)
set(n 0)
foreach(top IN LISTS tops)
  # Build trees (build/, or any folder CMake configured) hold generated and fetched code.
  if(NOT IS_DIRECTORY ${ROOT}/${top} OR top MATCHES "^(\\.|build)" OR EXISTS ${ROOT}/${top}/CMakeCache.txt)
    continue()
  endif()
  set(patterns "")
  foreach(ext c cc cpp cxx h hh hpp hxx inc ipp)
    list(APPEND patterns ${ROOT}/${top}/*.${ext})
  endforeach()
  file(GLOB_RECURSE files RELATIVE ${ROOT} ${patterns})
  foreach(f IN LISTS files)
    math(EXPR n "${n} + 1")
    layering_row_of(${f} key)
    if(key STREQUAL "")
      string(APPEND problems "  ${f}: no row in the table for its folder\n")
      continue()
    endif()
    file(STRINGS ${ROOT}/${f} lines REGEX "^[ \t]*#[ \t]*include")
    foreach(line IN LISTS lines)
      layering_why(${f} "${line}" why)
      if(NOT why STREQUAL "")
        string(APPEND problems "  ${f}: ${line} (${why})\n")
      endif()
    endforeach()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "includes that cross the layers (cmake/Layering.cmake's table):\n${problems}")
endif()
message(STATUS "${n} files: every include follows cmake/Layering.cmake's table")
