# Installation: headers, both libraries, a CMake package, a pkg-config
# file and the library's man pages.  Layout under the prefix:
#   include/cyclock.h, include/cyclock.hpp (C++), include/cyclock/*.h
#   lib/libcyclock.a, lib/libcyclock.so{,.0,.0.1.0}
#   lib/pkgconfig/cyclock.pc
#   lib/cmake/cyclock/cyclock{Config,ConfigVersion,Targets*}.cmake
#   share/man/man3/cyclock*.3 (pages and one link page per function),
#   share/man/man7/cyclock-preload.7
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)

set(CYCLOCK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/cyclock)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp"
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

# The library's man pages: docs/man/*.3 to man3, and the preload's
# cyclock-preload.7 to man7 where the preload is built (cyclock.1 is the
# tool's, tools/cyclock/CMakeLists.txt).  Every function a man3 page's NAME
# section names gets a link page, man3/<function>.3 holding
# ".so man3/<page>.3", so that "man cyclock_read" works.  The NAME lines
# are the one list of what is documented; tests/build/man.sh checks it
# against the public headers.
file(GLOB cyclock_man3 CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/man/*.3)
set(cyclock_man_dir ${PROJECT_BINARY_DIR}/man/man3)
set(cyclock_man_links "")
set(cyclock_man_names "")
foreach(page IN LISTS cyclock_man3)
  get_filename_component(base ${page} NAME_WE)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${page})
  file(READ ${page} text)
  # The NAME section: its text lines up to the "\-" before the description.
  if(NOT text MATCHES "\n\\.SH NAME\n(([^.\n][^\n]*\n)+)")
    message(FATAL_ERROR "${page}: no NAME section")
  endif()
  string(FIND "${CMAKE_MATCH_1}" "\\-" dash)
  if(dash LESS 0)
    message(FATAL_ERROR "${page}: its NAME section has no \\-")
  endif()
  string(SUBSTRING "${CMAKE_MATCH_1}" 0 ${dash} names)
  string(REGEX MATCHALL "[A-Za-z0-9_]+" names "${names}")
  foreach(name IN LISTS names)
    if(name IN_LIST cyclock_man_names)
      message(FATAL_ERROR "${page}: ${name} is named by another page too")
    endif()
    list(APPEND cyclock_man_names ${name})
    if(NOT name STREQUAL base)
      file(CONFIGURE OUTPUT ${cyclock_man_dir}/${name}.3 CONTENT ".so man3/${base}.3\n")
      list(APPEND cyclock_man_links ${cyclock_man_dir}/${name}.3)
    endif()
  endforeach()
endforeach()
install(FILES ${cyclock_man3} ${cyclock_man_links} DESTINATION ${CMAKE_INSTALL_MANDIR}/man3)
if(TARGET cyclock_preload)
  install(FILES ${PROJECT_SOURCE_DIR}/docs/man/cyclock-preload.7
          DESTINATION ${CMAKE_INSTALL_MANDIR}/man7)
endif()
