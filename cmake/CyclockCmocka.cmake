# Finds cmocka and, if found, defines the INTERFACE target cyclock_cmocka.
# pkg-config first (Debian's libcmocka-dev ships cmocka.pc), then a plain
# header + library search for installs without a .pc file.
include_guard(GLOBAL)

find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(CMOCKA QUIET IMPORTED_TARGET cmocka)
endif()

if(CMOCKA_FOUND)
  add_library(cyclock_cmocka INTERFACE)
  target_link_libraries(cyclock_cmocka INTERFACE PkgConfig::CMOCKA)
else()
  find_path(CMOCKA_INCLUDE_DIR cmocka.h)
  find_library(CMOCKA_LIBRARY cmocka)
  if(CMOCKA_INCLUDE_DIR AND CMOCKA_LIBRARY)
    add_library(cyclock_cmocka INTERFACE)
    target_include_directories(cyclock_cmocka INTERFACE ${CMOCKA_INCLUDE_DIR})
    target_link_libraries(cyclock_cmocka INTERFACE ${CMOCKA_LIBRARY})
  endif()
endif()
