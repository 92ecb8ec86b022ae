# The shared libsafespec (BUILD_SHARED_LIBS), proven by use: the library
# alone (target safespec_c, no tests, no command) configured and built
# shared in ${SCRATCH}/build, installed with `--component library` into a
# scratch prefix, and then
#  - the installed .so exports every SAFESPEC_API function the headers
#    declare and nothing of safespec's C++ (hidden visibility, the static
#    libraries inside it hidden by --exclude-libs), only the libstdc++
#    vague-linkage symbols that any C++ library exports;
#  - examples/consumer_c is built against it with find_package and with
#    pkg-config, and the C API's own C tests (props/c_api_test.c,
#    props/c_api_numerics_test.c) with the installed header alone; each
#    program must need libsafespec.so.0 (not a static copy) and pass.
# ${SCRATCH}/build is kept between runs: a cold run compiles the library
# once more, a warm one only what changed. It is built with the build type
# and compiler launcher of the build that runs the test: its compile commands
# are then the same as that build's own library files (PIC there too, for the
# Python module), so a compiler cache (scripts/test.sh uses ccache) serves
# them from the objects just made instead of compiling the library again.
#   -DSOURCE=dir -DSCRATCH=dir -DGENERATOR= -DC_COMPILER= -DCXX_COMPILER= -DNM= -DREADELF=
#   -DBUILD_TYPE= -DLAUNCHER=
set(build ${SCRATCH}/build)
set(prefix ${SCRATCH}/prefix)
file(REMOVE_RECURSE ${prefix} ${SCRATCH}/consumer ${SCRATCH}/elsewhere)
file(MAKE_DIRECTORY ${SCRATCH}/elsewhere)

include(${CMAKE_CURRENT_LIST_DIR}/SmokeSupport.cmake)

if(NOT EXISTS ${build}/CMakeCache.txt)
  run_ok("configure the shared library"
         ${CMAKE_COMMAND} -S ${SOURCE} -B ${build} -G ${GENERATOR} -DBUILD_SHARED_LIBS=ON -DSAFESPEC_TESTS=OFF
         -DSAFESPEC_PYTHON=OFF "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}" -DCMAKE_C_COMPILER=${C_COMPILER}
         -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_C_COMPILER_LAUNCHER=${LAUNCHER}"
         "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
endif()
run_ok("build the shared library" ${CMAKE_COMMAND} --build ${build} --target safespec_c)
run_ok("install the library component" ${CMAKE_COMMAND} --install ${build} --component library --prefix ${prefix})

file(GLOB_RECURSE so_files ${prefix}/libsafespec.so.0)
file(GLOB_RECURSE static_files ${prefix}/*.a)
file(GLOB_RECURSE pc_files ${prefix}/safespec.pc)
if(NOT so_files OR NOT pc_files OR NOT EXISTS ${prefix}/include/safespec/numerics.h)
  message(FATAL_ERROR "--component library installed no libsafespec.so.0, safespec.pc or header under ${prefix}")
endif()
if(static_files OR EXISTS ${prefix}/bin/safespec)
  message(FATAL_ERROR "a shared library-only install holds ${static_files} ${prefix}/bin/safespec")
endif()
list(GET so_files 0 so)
get_filename_component(libdir ${so} DIRECTORY)
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir ${pc_file} DIRECTORY)

# --- what it exports ------------------------------------------------------
# Every header of include/safespec/ is installed, and every one is read, so
# a new header's functions are held to the exports like the others'.
file(GLOB source_headers RELATIVE ${SOURCE}/include/safespec ${SOURCE}/include/safespec/*.h)
file(GLOB installed_headers RELATIVE ${prefix}/include/safespec ${prefix}/include/safespec/*.h)
list(SORT source_headers)
list(SORT installed_headers)
if(NOT source_headers STREQUAL installed_headers)
  message(FATAL_ERROR "--component library installed the headers ${installed_headers}, the source has ${source_headers}")
endif()
set(declared "")
foreach(header IN LISTS installed_headers)
  file(READ ${prefix}/include/safespec/${header} text)
  string(REGEX MATCHALL "\nSAFESPEC_API [^;(]*[ *](safespec_[a-z0-9_]+)\\(" decls "${text}")
  foreach(d IN LISTS decls)
    string(REGEX REPLACE ".*[ *](safespec_[a-z0-9_]+)\\($" "\\1" name "${d}")
    list(APPEND declared ${name})
  endforeach()
endforeach()
run_ok("nm" ${NM} -D --defined-only ${so})
string(REGEX MATCHALL "[^\n]+" lines "${last_out}")
set(exported "")
set(foreign "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^.* " "" sym "${line}")
  if(sym MATCHES "^safespec_")
    list(APPEND exported ${sym})
  # libstdc++'s own template and type-info symbols (std::bad_variant_access'
  # typeinfo, a local static of std::to_chars): libstdc++ declares namespace
  # std with default visibility, so every C++ library exports what it
  # instantiates of them.
  elseif(NOT sym MATCHES "^_Z(T[ISV]|GV)?Z?N?St")
    list(APPEND foreign ${sym})
  endif()
endforeach()
list(SORT declared)
list(SORT exported)
list(LENGTH declared n_declared)
if(n_declared LESS 40 OR NOT declared STREQUAL exported)
  message(FATAL_ERROR "libsafespec.so exports\n  ${exported}\nthe headers declare (SAFESPEC_API)\n  ${declared}")
endif()
if(foreign)
  message(FATAL_ERROR "libsafespec.so exports more than the C API: ${foreign}")
endif()

# Each program must load the shared library, not hold a copy of it.
function(expect_shared program)
  run_ok("readelf ${program}" ${READELF} -d ${program})
  if(NOT last_out MATCHES "NEEDED[^\n]*libsafespec\\.so\\.0")
    message(FATAL_ERROR "${program} does not need libsafespec.so.0:\n${last_out}")
  endif()
endfunction()

# --- consumers --------------------------------------------------------------
run_ok("configure examples/consumer_c"
       ${CMAKE_COMMAND} -S ${SOURCE}/examples/consumer_c -B ${SCRATCH}/consumer -G ${GENERATOR}
       -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
run_ok("build examples/consumer_c" ${CMAKE_COMMAND} --build ${SCRATCH}/consumer)
expect_shared(${SCRATCH}/consumer/consumer_c)
expect_consumers(${SCRATCH}/consumer/)

# pkg-config gives -lsafespec alone; the run path is the consumer's business.
set(ENV{PKG_CONFIG_PATH} ${pc_dir})
run_ok("pkg-config" pkg-config --cflags --libs safespec)
string(STRIP "${last_out}" pc_flags)
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
set(rpath -Wl,-rpath,${libdir})
run_ok("cc with pkg-config" ${C_COMPILER} -std=c99 ${SOURCE}/examples/consumer_c/main.c ${pc_flags} ${rpath}
       -o ${SCRATCH}/pc_consumer_c)
run_ok("c++ with pkg-config" ${CXX_COMPILER} -std=c++17 ${SOURCE}/examples/consumer_c/main.cpp ${pc_flags} ${rpath}
       -o ${SCRATCH}/pc_consumer_cxx)
expect_shared(${SCRATCH}/pc_consumer_cxx)
expect_consumers(${SCRATCH}/pc_)

# The C API's own C tests, against the installed header and library only
# (-I${SOURCE} for props/, which holds the tests' shared cases).
run_ok("cc c_api_numerics_test" ${C_COMPILER} -std=c99 -Wall -Wextra -Wpedantic -Werror -I${SOURCE}
       ${SOURCE}/props/c_api_numerics_test.c ${pc_flags} -lm ${rpath} -o ${SCRATCH}/c_api_numerics_test)
run_ok("cc c_api_test" ${C_COMPILER} -std=c99 -Wall -Wextra -Wpedantic -Werror -pthread
       ${SOURCE}/props/c_api_test.c ${pc_flags} ${rpath} -o ${SCRATCH}/c_api_test)
foreach(program c_api_numerics_test c_api_test)
  expect_shared(${SCRATCH}/${program})
endforeach()
run_ok("c_api_numerics_test on the shared library" ${SCRATCH}/c_api_numerics_test)
run_ok("c_api_test on the shared library" ${SCRATCH}/c_api_test ${SOURCE}/corpus/examples)
message(STATUS "shared libsafespec built and installed alone; ${n_declared} functions exported and nothing else of "
               "safespec; consumers and the C tests linked against it and passed")
