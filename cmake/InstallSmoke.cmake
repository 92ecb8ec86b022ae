# The installed package, proven by use: `cmake --install` of BUILD into a
# scratch prefix; examples/consumer_c built against it with
# find_package(safespec CONFIG) (and its C program again from
# examples/consumer_c_only, a project that enables C alone) and, separately,
# with the flags pkg-config gives; both programs run on a valid and a broken example; and the installed
# `safespec conformance run` and `conformance numeric` find the installed
# suite and vectors from a directory with no corpus/ in it.
#   -DBUILD=dir -DSOURCE=dir -DSCRATCH=dir -DC_COMPILER= -DCXX_COMPILER= [-DSANITIZE=address,...]
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH}/elsewhere)
set(prefix ${SCRATCH}/prefix)

include(${CMAKE_CURRENT_LIST_DIR}/SmokeSupport.cmake)

run_ok("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
file(GLOB pc_files ${prefix}/lib*/pkgconfig/safespec.pc ${prefix}/lib/*/pkgconfig/safespec.pc)
foreach(expected include/safespec/safespec.h bin/safespec share/safespec/conformance/manifest.jsonl
                 share/safespec/vectors)
  if(NOT EXISTS ${prefix}/${expected})
    message(FATAL_ERROR "cmake --install wrote no ${expected}")
  endif()
endforeach()
if(NOT pc_files)
  message(FATAL_ERROR "cmake --install wrote no safespec.pc")
endif()
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir ${pc_file} DIRECTORY)

# Sanitized libraries need the sanitizers' runtime at the consumer's link.
# The library is C++, and clang's C driver leaves out UBSan's C++ part (the
# vptr and function checks) that clang++ links by itself: the C program
# linked with pkg-config's flags asks for it (c_link_flags).
set(link_flags "")
set(c_link_flags "")
if(SANITIZE)
  set(link_flags "-fsanitize=${SANITIZE}")
  set(c_link_flags ${link_flags})
  if(C_COMPILER MATCHES "clang")
    list(APPEND c_link_flags -fsanitize-link-c++-runtime)
  endif()
endif()

# find_package(safespec CONFIG)
run_ok("configure examples/consumer_c"
       ${CMAKE_COMMAND} -S ${SOURCE}/examples/consumer_c -B ${SCRATCH}/consumer -G Ninja -DCMAKE_PREFIX_PATH=${prefix}
       -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_EXE_LINKER_FLAGS=${link_flags}")
run_ok("build examples/consumer_c" ${CMAKE_COMMAND} --build ${SCRATCH}/consumer)
# The same C program from a project that enables C alone. Not under the
# sanitizers: their runtimes need the C++ runtime in a C link themselves
# (clang's C driver cannot even link CMake's compiler test with them).
if(NOT SANITIZE)
  run_ok("configure examples/consumer_c_only"
         ${CMAKE_COMMAND} -S ${SOURCE}/examples/consumer_c_only -B ${SCRATCH}/consumer_c_only -G Ninja
         -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER})
  run_ok("build examples/consumer_c_only" ${CMAKE_COMMAND} --build ${SCRATCH}/consumer_c_only)
  expect_run(${SCRATCH}/consumer_c_only/consumer_c ${SOURCE}/corpus/examples/tiny-llm.safetensors 0
             "tiny-llm.safetensors: ok, 0 findings")
endif()
# pkg-config: the compilers called directly with its flags, and a run path
# to the library folder, which pkg-config leaves to the consumer (a shared
# libsafespec is found through it; a static one makes it unused).
set(ENV{PKG_CONFIG_PATH} ${pc_dir})
run_ok("pkg-config" pkg-config --cflags --libs safespec)
string(STRIP "${last_out}" pc_flags)
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
get_filename_component(libdir ${pc_dir} DIRECTORY)
list(APPEND pc_flags -Wl,-rpath,${libdir})
run_ok("cc with pkg-config" ${C_COMPILER} -std=c99 ${SOURCE}/examples/consumer_c/main.c ${pc_flags} ${c_link_flags}
       -o ${SCRATCH}/pc_consumer_c)
run_ok("c++ with pkg-config" ${CXX_COMPILER} -std=c++17 ${SOURCE}/examples/consumer_c/main.cpp ${pc_flags}
       ${link_flags} -o ${SCRATCH}/pc_consumer_cxx)

expect_consumers(${SCRATCH}/consumer/)
expect_consumers(${SCRATCH}/pc_)

# The installed command, run where there is no corpus/: it finds its suite
# and vectors under share/safespec.
set(cmd ${prefix}/bin/safespec)
run_ok("installed conformance run"
       ${cmd} conformance run --profile safetensors --jobs 2
       --impl "'${cmd}' check --profile safetensors --fail-on error {file}")
run_ok("installed conformance numeric"
       ${cmd} conformance numeric --jobs 2
       --impl "'${cmd}' linear {checkpoint} --layer {layer} --input {input} --out {output}")
message(STATUS "installed into ${prefix}; consumers built with find_package and pkg-config; suite and vectors found")
