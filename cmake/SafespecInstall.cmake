# What `cmake --install` puts under a prefix, so that other projects use
# safespec in-process: libsafespec (static, or shared with BUILD_SHARED_LIBS)
# and include/safespec/safespec.h; the safespec command; the conformance suite
# and the golden vectors under share/safespec/, where the installed command
# finds them (cli/conformance.cpp); lib/cmake/safespec/ for
# find_package(safespec CONFIG), which gives safespec::safespec; and
# lib/pkgconfig/safespec.pc.
#
# Two components: `library` (libsafespec, the headers, the CMake package and
# safespec.pc: what a program that links safespec needs) and `command` (the
# command, the suite and the vectors). A plain `cmake --install` puts both;
# `--component library` installs a build of the safespec_c target alone, as
# cmake/SharedSmoke.cmake does with a shared one.
include(CMakePackageConfigHelpers)

set(safespec_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/safespec)

# A static libsafespec needs the static libraries under it at the final link;
# a shared one holds them.
if(BUILD_SHARED_LIBS)
  set(safespec_installed_libs safespec_c)
else()
  set(safespec_installed_libs safespec_c safespec_lib safespec_spec)
endif()
install(TARGETS ${safespec_installed_libs} EXPORT safespecTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library NAMELINK_COMPONENT library
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT library)
install(FILES ${PROJECT_SOURCE_DIR}/include/safespec/safespec.h ${PROJECT_SOURCE_DIR}/include/safespec/numerics.h
              ${PROJECT_SOURCE_DIR}/include/safespec/layer.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/safespec COMPONENT library)
install(TARGETS safespec RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT command)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/corpus/conformance/ DESTINATION ${CMAKE_INSTALL_DATADIR}/safespec/conformance
        COMPONENT command)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/corpus/vectors/ DESTINATION ${CMAKE_INSTALL_DATADIR}/safespec/vectors
        COMPONENT command)

install(EXPORT safespecTargets NAMESPACE safespec:: DESTINATION ${safespec_cmake_dir} COMPONENT library)
set(SAFESPEC_STATIC_PACKAGE ON)
if(BUILD_SHARED_LIBS)
  set(SAFESPEC_STATIC_PACKAGE OFF)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/safespecConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/safespecConfig.cmake INSTALL_DESTINATION ${safespec_cmake_dir})
# 0.x releases make no promise between minor versions.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/safespecConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/safespecConfig.cmake ${PROJECT_BINARY_DIR}/safespecConfigVersion.cmake
        DESTINATION ${safespec_cmake_dir} COMPONENT library)

# safespec.pc, relocatable: its prefix is found from where the file lies
# (${pcfiledir}), so an install with `cmake --install --prefix P` works.
file(RELATIVE_PATH safespec_pc_prefix /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" safespec_pc_prefix "${safespec_pc_prefix}")
# A static libsafespec: every library under it (fmt and simdjson through their
# own .pc files), and the C++ runtime for a C program's link; a shared one:
# only itself. It holds safespec_lib and safespec_spec and records fmt,
# simdjson and the C++ runtime as its own dependencies (DT_NEEDED), and a
# shared build installs no static archives, so a Libs.private naming them
# would make `pkg-config --static` fail and a Requires.private would demand
# fmt.pc and simdjson.pc of a consumer that never links them.
if(BUILD_SHARED_LIBS)
  set(SAFESPEC_PC_LIBS "-lsafespec")
  set(SAFESPEC_PC_LIBS_PRIVATE "")
  set(SAFESPEC_PC_REQUIRES "")
  set(SAFESPEC_PC_REQUIRES_PRIVATE "")
else()
  set(SAFESPEC_PC_LIBS "-lsafespec -lsafespec_lib -lsafespec_spec -lstdc++ -lm")
  set(SAFESPEC_PC_LIBS_PRIVATE "")
  set(SAFESPEC_PC_REQUIRES "fmt simdjson")
  set(SAFESPEC_PC_REQUIRES_PRIVATE "")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/safespec.pc.in ${PROJECT_BINARY_DIR}/safespec.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/safespec.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT library)
