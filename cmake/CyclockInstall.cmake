# Installation: headers, both libraries, a CMake package and a pkg-config
# file.  Layout under the prefix:
#   include/cyclock.h, include/cyclock/*.h
#   lib/libcyclock.a, lib/libcyclock.so{,.0,.0.1.0}
#   lib/pkgconfig/cyclock.pc
#   lib/cmake/cyclock/cyclock{Config,ConfigVersion,Targets*}.cmake
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)

set(CYCLOCK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/cyclock)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h"
        PATTERN "sim.h" EXCLUDE) # the tests' simulated counter

install(TARGETS cyclock_static cyclock_shared
        EXPORT cyclockTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(EXPORT cyclockTargets
        NAMESPACE cyclock::
        DESTINATION ${CYCLOCK_CMAKE_DIR})

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/cyclockConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cyclockConfig.cmake
  INSTALL_DESTINATION ${CYCLOCK_CMAKE_DIR})
# 0.x: a minor release may break the API, so only 0.1.* satisfies 0.1.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cyclockConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cyclockConfig.cmake
              ${PROJECT_BINARY_DIR}/cyclockConfigVersion.cmake
        DESTINATION ${CYCLOCK_CMAKE_DIR})

# The .pc file finds the prefix from its own location (${pcfiledir}), so
# `cmake --install --prefix elsewhere` and DESTDIR staging both work.
# An absolute libdir/includedir is kept as given.
function(cyclock_pc_dir var dir)
  if(IS_ABSOLUTE "${dir}")
    set(${var} "${dir}" PARENT_SCOPE)
  else()
    set(${var} "\${prefix}/${dir}" PARENT_SCOPE)
  endif()
endfunction()
set(pc_reldir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(CYCLOCK_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH pc_up /p/${pc_reldir} /p)
  string(REGEX REPLACE "/$" "" pc_up "${pc_up}")
  set(CYCLOCK_PC_PREFIX "\${pcfiledir}/${pc_up}")
endif()
cyclock_pc_dir(CYCLOCK_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
cyclock_pc_dir(CYCLOCK_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/cyclock.pc.in
               ${PROJECT_BINARY_DIR}/cyclock.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cyclock.pc DESTINATION ${pc_reldir})
