# What the Linux cross toolchain files share: the including file sets
# CMAKE_SYSTEM_PROCESSOR (qemu-user's name for it too) and cyclock_triple,
# Debian's GNU triple, then includes this.
set(CMAKE_SYSTEM_NAME Linux)

set(CMAKE_C_COMPILER ${cyclock_triple}-gcc)
find_program(cyclock_cross_cxx ${cyclock_triple}-g++)
if(cyclock_cross_cxx) # optional: only the C++ header check uses it
  set(CMAKE_CXX_COMPILER ${cyclock_cross_cxx})
endif()

# Libraries and headers for the target: Debian's multiarch directories
# (libcmocka-dev:ARCH, libjansson-dev:ARCH where the architecture has them)
# and the cross toolchain's sysroot; programs come from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${cyclock_triple})
set(CMAKE_LIBRARY_ARCHITECTURE ${cyclock_triple})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# pkg-config: the target's .pc files only, never the build machine's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${cyclock_triple}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# CTest runs every test program under qemu-user, with the target's
# dynamic loader and libc from /usr/${cyclock_triple} (the cross
# toolchain's).  Once Debian's multiarch libc6:ARCH is installed (the
# target's libcmocka and libjansson bring it), its ld.so.cache entries win
# over that prefix, and the cross loader with the multiarch libc (another
# build) hangs in pthread_create: then the multiarch set is the target's
# whole runtime, "-L /".
# Under qemu-user the kernel's clocksource is the build machine's ("tsc"),
# never this architecture's, so the library would rightly fall back to the
# kernel's clocks: the tests force the counter with the documented
# CYCLOCK_SOURCE=counter, so that its path runs, and see
# CYCLOCK_TEST_EMULATED to skip what qemu-user cannot do (each says why).
set(cyclock_qemu_env -E CYCLOCK_SOURCE=counter -E CYCLOCK_TEST_EMULATED=qemu-user)
find_program(CYCLOCK_QEMU qemu-${CMAKE_SYSTEM_PROCESSOR})
if(CYCLOCK_QEMU)
  if(EXISTS /usr/lib/${cyclock_triple}/libc.so.6)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${CYCLOCK_QEMU} -L / ${cyclock_qemu_env})
  else()
    set(CMAKE_CROSSCOMPILING_EMULATOR ${CYCLOCK_QEMU} -L /usr/${cyclock_triple}
      ${cyclock_qemu_env})
  endif()
endif()
