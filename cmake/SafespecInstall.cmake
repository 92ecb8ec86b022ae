# What `cmake --install` puts under a prefix, so that other projects use
# safespec in-process: libsafespec (static, or shared with BUILD_SHARED_LIBS)
# and include/safespec/safespec.h; the safespec command; the conformance suite
# and the golden vectors under share/safespec/, where the installed command
# finds them (cli/conformance.cpp); lib/cmake/safespec/ for
# find_package(safespec CONFIG), which gives safespec::safespec; and
# lib/pkgconfig/safespec.pc.
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
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/safespec/safespec.h ${PROJECT_SOURCE_DIR}/include/safespec/numerics.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/safespec)
install(TARGETS safespec RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/corpus/conformance/ DESTINATION ${CMAKE_INSTALL_DATADIR}/safespec/conformance)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/corpus/vectors/ DESTINATION ${CMAKE_INSTALL_DATADIR}/safespec/vectors)

install(EXPORT safespecTargets NAMESPACE safespec:: DESTINATION ${safespec_cmake_dir})
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
        DESTINATION ${safespec_cmake_dir})

# safespec.pc, relocatable: its prefix is found from where the file lies
# (${pcfiledir}), so an install with `cmake --install --prefix P` works.
file(RELATIVE_PATH safespec_pc_prefix /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" safespec_pc_prefix "${safespec_pc_prefix}")
# A static libsafespec: every library under it (fmt and simdjson through their
# own .pc files), and the C++ runtime for a C program's link; a shared one:
# only itself, the rest for --static.
if(BUILD_SHARED_LIBS)
  set(SAFESPEC_PC_LIBS "-lsafespec")
  set(SAFESPEC_PC_LIBS_PRIVATE "-lsafespec_lib -lsafespec_spec -lstdc++ -lm")
  set(SAFESPEC_PC_REQUIRES "")
  set(SAFESPEC_PC_REQUIRES_PRIVATE "fmt simdjson")
else()
  set(SAFESPEC_PC_LIBS "-lsafespec -lsafespec_lib -lsafespec_spec -lstdc++ -lm")
  set(SAFESPEC_PC_LIBS_PRIVATE "")
  set(SAFESPEC_PC_REQUIRES "fmt simdjson")
  set(SAFESPEC_PC_REQUIRES_PRIVATE "")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/safespec.pc.in ${PROJECT_BINARY_DIR}/safespec.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/safespec.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
